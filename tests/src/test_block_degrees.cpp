// The degrees stored in a block file (BlockFileWriter::write_degrees, /degrees): read back per
// class as written; a file without them says so; a changed degree is named (file and class)
// when its class is read, and the other classes still read; a wrong length is refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "partitioner/partition.hpp"
#include "src/block_format.hpp"
#include "src/task_plan.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

// The degrees of class c as read_degrees_class returns them (ids c, c + n, ...).
std::vector<std::uint64_t> class_of(const std::vector<std::uint32_t>& degrees, std::uint32_t n, std::uint32_t c) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t v = c; v < degrees.size(); v += n) out.push_back(degrees[v]);
  return out;
}

TEST(BlockDegrees, EveryClassReadsBackWhatWasWritten) {
  TempDir dir;
  const EdgePairs edges = random_graph(700, 4000, 9);
  for (const std::uint32_t n : {1u, 3u, 4u}) {
    const PartitionedGraph g = partition_graph(edges, n);
    const std::vector<std::uint32_t> degrees = degrees_of_blocks(g);
    const std::string path = dir.file("g" + std::to_string(n) + ".h5");
    write_block_file(g, path);
    const BlockFileReader f(path);
    ASSERT_TRUE(f.has_degrees());
    std::uint64_t sum = 0;
    for (std::uint32_t c = 0; c < n; ++c) {
      const std::vector<std::uint64_t> got = f.read_degrees_class(c);
      EXPECT_EQ(got, class_of(degrees, n, c)) << "class " << c << " of " << n;
      EXPECT_EQ(got.size(), rows_in_class(f.header().vertices, n, c));
      for (std::uint64_t d : got) sum += d;
    }
    EXPECT_EQ(sum, 2 * f.header().edges);  // every edge counted at both ends
  }
}

TEST(BlockDegrees, AFileWithoutThemSaysSo) {
  TempDir dir;
  const PartitionedGraph g = partition_graph(random_graph(200, 900, 4), 2);
  write_block_file_without_degrees(g, dir.file("old.h5"));
  const BlockFileReader f(dir.file("old.h5"));
  EXPECT_FALSE(f.has_degrees());
  try {
    f.read_degrees_class(0);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "stores no degrees")) << e.what();
    EXPECT_TRUE(contains(e.what(), "old.h5")) << e.what();
  }
}

TEST(BlockDegrees, AChangedDegreeIsNamedWithItsClassAndTheOthersStillRead) {
  TempDir dir;
  const PartitionedGraph g = partition_graph(random_graph(500, 3000, 6), 3);
  const std::string path = dir.file("g.h5");
  write_block_file(g, path);
  corrupt_stored_degree(path, 7);  // class 7 mod 3 = 1
  const BlockFileReader f(path);
  try {
    f.read_degrees_class(1);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "'" + path + "'")) << e.what();
    EXPECT_TRUE(contains(e.what(), "vertex class 1")) << e.what();
    EXPECT_TRUE(contains(e.what(), "re-run tricount-partition")) << e.what();
  }
  const std::vector<std::uint32_t> degrees = degrees_of_blocks(g);
  EXPECT_EQ(f.read_degrees_class(0), class_of(degrees, 3, 0));
  EXPECT_EQ(f.read_degrees_class(2), class_of(degrees, 3, 2));
  EXPECT_THROW(f.read_degrees_class(3), Error);  // no such class
}

TEST(BlockDegrees, AWrongLengthIsRefused) {
  TempDir dir;
  const PartitionedGraph g = partition_graph(random_graph(100, 400, 2), 2);
  BlockFileWriter w(dir.file("g.h5"), g.header);
  std::vector<std::uint32_t> degrees = degrees_of_blocks(g);
  degrees.pop_back();
  EXPECT_THROW(w.write_degrees(degrees), Error);
}

}  // namespace
