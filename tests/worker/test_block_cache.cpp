// The block cache's share of the node's checks (NodeBlockChecks), in one process: two
// caches over one record stand for two workers of a node.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "partitioner/partition.hpp"
#include "src/packed_block.hpp"
#include "tests/test_support.hpp"
#include "worker/block_cache.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

std::string write_graph(const TempDir& dir, std::uint32_t parts) {  // CSR blocks, which workers map
  PartitionOptions o;
  o.parts = parts;
  o.encoding = BlockEncoding::csr;
  const std::string path = dir.file("g.h5");
  write_block_file(partition_edges(to_raw(random_graph(3000, 60000, 5)), o), path);  // blocks large enough to map
  BlockFileReader reader(path);
  for (std::uint32_t i = 0; i < parts; ++i)
    for (std::uint32_t j = 0; j < parts; ++j) EXPECT_TRUE(reader.map_block({i, j}).has_value());
  return path;
}

}  // namespace

TEST(NodeBlockChecks, TheSecondWorkerOfANodeUsesTheBlocksTheFirstChecked) {
  TempDir dir;
  const std::string path = write_graph(dir, 2);
  BlockFileReader first_file(path), second_file(path);
  std::vector<std::uint32_t> states(4, 0);
  NodeBlockChecks record(states.data(), 2);
  BlockCache first(first_file, 1u << 30, 1, true, &record), second(second_file, 1u << 30, 2, true, &record);
  double seconds = 0;
  std::uint64_t bytes = 0;
  for (std::uint32_t i = 0; i < 2; ++i)
    for (std::uint32_t j = 0; j < 2; ++j) first.get({i, j}, seconds, bytes);
  EXPECT_EQ(first.checks().blocks, 4u);
  EXPECT_EQ(first.checks().bytes, bytes);
  for (std::uint32_t i = 0; i < 2; ++i)
    for (std::uint32_t j = 0; j < 2; ++j) {
      const auto mine = second.get({i, j}, seconds, bytes);
      const CsrBlock read = second_file.read_block({i, j});
      EXPECT_EQ(std::vector<vid_t>(mine->span().neighbors, mine->span().neighbors + mine->span().nnz),
                std::vector<vid_t>(read.neighbors.begin(), read.neighbors.end()));
    }
  EXPECT_EQ(second.checks().blocks, 0u);
  EXPECT_EQ(second.checks().bytes, 0u);
}

// A bad block is refused by the worker that checks it and by every other that needs it
// (each checks it itself, for the message); the record never says good.
TEST(NodeBlockChecks, ACorruptBlockIsRefusedByEveryWorkerOfTheNode) {
  TempDir dir;
  const std::string path = write_graph(dir, 2);
  corrupt_block_neighbors(path, {1, 0});
  BlockFileReader first_file(path), second_file(path);
  std::vector<std::uint32_t> states(4, 0);
  NodeBlockChecks record(states.data(), 2);
  for (BlockFileReader* file : {&first_file, &second_file}) {
    BlockCache cache(*file, 1u << 30, 1, true, &record);
    double seconds = 0;
    std::uint64_t bytes = 0;
    try {
      cache.get({1, 0}, seconds, bytes);
      FAIL() << "expected a checksum mismatch";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path + "' block P(1,0): checksum mismatch"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(cache.get({0, 1}, seconds, bytes));  // the others are still good
  }
}

// Every loaded block knows its rows with a neighbour (the CUDA backend's plans average
// over those): the same count as a walk over the read block's offsets.
TEST(BlockCache, ALoadedBlockCountsItsNonEmptyRows) {
  TempDir dir;
  const std::string path = write_graph(dir, 2);
  BlockFileReader file(path);
  BlockCache cache(file, 1u << 30, 2);
  double seconds = 0;
  std::uint64_t bytes = 0;
  for (std::uint32_t i = 0; i < 2; ++i)
    for (std::uint32_t j = 0; j < 2; ++j) {
      const CsrBlock read = file.read_block({i, j});
      std::uint64_t want = 0;
      for (std::uint64_t r = 0; r < read.rows; ++r) want += read.offsets[r + 1] != read.offsets[r];
      const auto loaded = cache.get({i, j}, seconds, bytes);
      EXPECT_EQ(loaded->nonempty_rows, want) << block_name({i, j});
      EXPECT_EQ(loaded->view().nonempty_rows, want);
      EXPECT_EQ(count_nonempty_rows(read.span(), 3), want);
      EXPECT_GT(want, 0u);
      EXPECT_LT(want, read.rows + 1);
    }
}


// A packed file for a backend that decodes on the device: the cache maps the stored words
// (checked against the checksum, not decoded), the view carries them and the rows a plan
// needs; without that backend the cache decodes, and both views describe the same block.
TEST(BlockCache, PackedBlocksGoToADecodingBackendAsStored) {
  TempDir dir;
  PartitionOptions o;
  o.parts = 2;
  PartitionedGraph g = partition_edges(to_raw(random_graph(3000, 60000, 5)), o);
  g.header.encoding = BlockEncoding::packed;
  const std::string path = dir.file("packed.h5");
  write_block_file(g, path);
  BlockFileReader file(path);
  BlockCache as_stored(file, 1u << 30, 2, true, nullptr, /*packed_to_device=*/true), decoded(file, 1u << 30, 2);
  double seconds = 0;
  std::uint64_t bytes = 0;
  for (std::uint32_t i = 0; i < 2; ++i)
    for (std::uint32_t j = 0; j < 2; ++j) {
      SCOPED_TRACE(block_name({i, j}));
      EXPECT_TRUE(file.is_packed({i, j}));
      const auto s = as_stored.get({i, j}, seconds, bytes);
      const auto d = decoded.get({i, j}, seconds, bytes);
      ASSERT_TRUE(s->packed.has_value());
      EXPECT_FALSE(d->packed.has_value());
      const BlockView sv = s->view(), dv = d->view();
      EXPECT_TRUE(sv.packed());
      EXPECT_FALSE(dv.packed());
      EXPECT_EQ(sv.offsets, nullptr);
      EXPECT_EQ(sv.rows, dv.rows);
      EXPECT_EQ(sv.nnz, dv.nnz);
      EXPECT_EQ(sv.max_degree, dv.max_degree);
      EXPECT_EQ(sv.nonempty_rows, dv.nonempty_rows);
      const PackedBlock want = pack_block(g.block(i, j).span());
      ASSERT_EQ(sv.packed_word_count, want.words.size());
      EXPECT_TRUE(std::equal(want.index.begin(), want.index.end(), sv.packed_index));
      EXPECT_TRUE(std::equal(want.words.begin(), want.words.end(), sv.packed_words));
      EXPECT_TRUE(std::equal(dv.neighbors, dv.neighbors + dv.nnz, g.block(i, j).neighbors.begin()));
    }
  EXPECT_EQ(as_stored.resident_bytes(), 0u);  // mapped: the page cache's
  EXPECT_GT(decoded.resident_bytes(), 0u);
  // A CSR file: nothing packed, whatever the backend.
  const std::string csr = write_graph(dir, 2);
  BlockFileReader csr_file(csr);
  BlockCache csr_cache(csr_file, 1u << 30, 2, true, nullptr, true);
  EXPECT_FALSE(csr_file.is_packed({0, 1}));
  EXPECT_FALSE(csr_cache.get({0, 1}, seconds, bytes)->view().packed());
}

// A packed block mapped for the device knows its non-empty rows (each group's first word)
// and its stored bytes without decoding.
TEST(BlockCache, MappedPackedBlocksKnowTheirRowsAndBytes) {
  TempDir dir;
  PartitionOptions o;
  o.parts = 1;
  PartitionedGraph g = partition_edges(to_raw(random_graph(3000, 60000, 6)), o);
  g.header.encoding = BlockEncoding::packed;
  const std::string path = dir.file("packed.h5");
  write_block_file(g, path);
  const std::optional<MappedPackedBlock> m = BlockFileReader(path).map_packed({0, 0});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->nonempty_rows(), count_nonempty_rows(g.block(0, 0).span()));
  EXPECT_EQ(m->stored_bytes(), pack_block(g.block(0, 0).span()).bytes());
}
