#include <gtest/gtest.h>

#include <filesystem>

#include "partitioner/partition.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

PartitionedGraph small_graph(std::uint32_t parts) {
  PartitionOptions o;
  o.parts = parts;
  return partition_edges(to_raw(random_graph(200, 1500, 7)), o);
}

}  // namespace

TEST(BlockFormat, WriteThenReadGivesTheSameBlocks) {
  TempDir dir;
  for (std::uint32_t n : {1u, 2u, 3u}) {
    const PartitionedGraph g = small_graph(n);
    const std::string path = dir.file("g" + std::to_string(n) + ".h5");
    write_block_file(g, path);
    BlockFileReader reader(path);
    EXPECT_EQ(reader.header().parts, n);
    EXPECT_EQ(reader.header().vertices, g.header.vertices);
    EXPECT_EQ(reader.header().edges, g.header.edges);
    EXPECT_EQ(reader.header().ordering, "degree");
    EXPECT_EQ(reader.read_vertex_map(), g.vertex_map);
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = 0; j < n; ++j) {
        const CsrBlock b = reader.read_block({i, j});
        EXPECT_EQ(b.offsets, g.block(i, j).offsets);
        EXPECT_EQ(b.neighbors, g.block(i, j).neighbors);
        EXPECT_EQ(b.max_degree, g.block(i, j).max_degree);
        EXPECT_EQ(reader.block_nnz({i, j}), b.nnz());
      }
  }
}

TEST(BlockFormat, WriterWithoutCommitLeavesNothing) {
  TempDir dir;
  const PartitionedGraph g = small_graph(2);
  const std::string path = dir.file("never.h5");
  std::string temp;
  {
    BlockFileWriter w(path, g.header);
    temp = w.temp_path();
    w.write_vertex_map(g.vertex_map);
    w.write_block(g.blocks[0]);
    EXPECT_TRUE(std::filesystem::exists(temp));
    EXPECT_THROW(w.commit(), Error);  // blocks missing
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(temp));
}

TEST(BlockFormat, EmptyGraphRoundTrips) {
  TempDir dir;
  PartitionOptions o;
  o.parts = 3;
  const PartitionedGraph g = partition_edges(std::vector<RawEdge>{{5, 5}}, o);  // one self-loop
  EXPECT_EQ(g.header.vertices, 0u);
  EXPECT_EQ(g.header.edges, 0u);
  write_block_file(g, dir.file("empty.h5"));
  BlockFileReader reader(dir.file("empty.h5"));
  EXPECT_EQ(reader.read_block({2, 1}).rows, 0u);
}

TEST(BlockFormat, ValidateCatchesCorruptBlocks) {
  const PartitionedGraph g = small_graph(1);
  CsrBlock b = g.blocks[0];
  ASSERT_GT(b.nnz(), 2u);
  CsrBlock bad = b;
  bad.neighbors[0] = static_cast<vid_t>(bad.cols);
  EXPECT_THROW(validate_block(bad, "x.h5"), Error);
  bad = b;
  bad.offsets.back() += 1;
  EXPECT_THROW(validate_block(bad, "x.h5"), Error);
  bad = b;
  bad.max_degree += 1;
  try {
    validate_block(bad, "x.h5");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x.h5: block P(0,0)"), std::string::npos) << e.what();
  }
}

TEST(BlockFormat, ReaderNamesTheFileForMissingAndForeignFiles) {
  TempDir dir;
  try {
    BlockFileReader r(dir.file("nope.h5"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nope.h5"), std::string::npos);
  }
  write_text_edges(dir.file("text.h5"), {{1, 2}});
  try {
    BlockFileReader r(dir.file("text.h5"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("text.h5"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("not an HDF5 file"), std::string::npos) << e.what();
  }
}
