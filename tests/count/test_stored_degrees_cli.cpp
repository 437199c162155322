// tricount-count --per-vertex with the degrees stored in the block file (rank 0 reads them)
// and with a file written before they were stored (the workers count them from the blocks):
// the same rows at 1 and 3 ranks, and the report says which it used. A stored degree changed
// on the disk is an error naming the file and the vertex class, with no table left behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "partitioner/partition.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount;
using namespace tricount::testing;

constexpr double kTimeout = 180;

ProcessResult count(int ranks, const std::string& graph, const std::string& table) {
  return run_process(mpi_command(ranks, bin_dir() + "/tricount-count",
                                 {"--input", graph, "--backend", "cpu", "--threads", "1", "--per-vertex", table, "--json", "-"}),
                     kTimeout);
}

// The files beside the block file g.h5 in `dir`: none once a failed count has cleaned up.
std::vector<std::string> left_beside_graph(const TempDir& dir) {
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir.path()))
    if (e.path().filename() != "g.h5") left.push_back(e.path().filename().string());
  return left;
}

TEST(StoredDegreesCli, TheOlderFileGivesTheSameRowsAndTheReportSaysWhere) {
  TempDir dir;
  const PartitionedGraph g = partition_graph(random_graph(2000, 12000, 23), 2);
  write_block_file(g, dir.file("new.h5"));
  write_block_file_without_degrees(g, dir.file("old.h5"));
  for (const int ranks : {1, 3}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const ProcessResult a = count(ranks, dir.file("new.h5"), dir.file("new.tsv"));
    const ProcessResult b = count(ranks, dir.file("old.h5"), dir.file("old.tsv"));
    ASSERT_EQ(a.exit_code, 0) << describe(a);
    ASSERT_EQ(b.exit_code, 0) << describe(b);
    EXPECT_TRUE(contains(a.out, "\"per_vertex_degrees\": \"file\"")) << a.out;
    EXPECT_TRUE(contains(b.out, "\"per_vertex_degrees\": \"blocks\"")) << b.out;
    const std::string rows = table_rows(read_file(dir.file("new.tsv")));
    EXPECT_GT(rows.size(), 10000u);
    EXPECT_EQ(rows, table_rows(read_file(dir.file("old.tsv"))));
  }
}

TEST(StoredDegreesCli, AChangedStoredDegreeIsNamedAndNoTableIsLeft) {
  TempDir dir;
  write_block_file(partition_graph(random_graph(2000, 12000, 24), 2), dir.file("g.h5"));
  corrupt_stored_degree(dir.file("g.h5"), 3);  // class 1
  for (const int ranks : {1, 3})
    for (const std::string name : {"v.tsv", "v.h5"}) {
      SCOPED_TRACE(name + " at " + std::to_string(ranks) + " ranks");
      const ProcessResult r = count(ranks, dir.file("g.h5"), dir.file(name));
      EXPECT_FALSE(r.timed_out);
      EXPECT_EQ(r.exit_code, 1) << describe(r);
      EXPECT_TRUE(contains(r.err, "'" + dir.file("g.h5") + "': the degrees of vertex class 1 do not match their checksum"))
          << describe(r);
      EXPECT_TRUE(contains(r.err, "re-run tricount-partition")) << describe(r);
      const std::vector<std::string> left = left_beside_graph(dir);
      EXPECT_TRUE(left.empty()) << ::testing::PrintToString(left);
    }
}

// An input id changed on the disk would put a count under another vertex's name: the class's
// checksum names it, for --per-vertex and --per-edge, and no table is left.
TEST(StoredDegreesCli, AChangedInputIdIsNamedAndNoTableIsLeft) {
  TempDir dir;
  write_block_file(partition_graph(random_graph(2000, 12000, 25), 2), dir.file("g.h5"));
  corrupt_vertex_map_entry(dir.file("g.h5"), 5);  // class 1
  for (const int ranks : {1, 3})
    for (const std::string option : {"--per-vertex", "--per-edge"}) {
      SCOPED_TRACE(option + " at " + std::to_string(ranks) + " ranks");
      const ProcessResult r =
          run_process(mpi_command(ranks, bin_dir() + "/tricount-count",
                                  {"--input", dir.file("g.h5"), "--backend", "cpu", "--threads", "1", option, dir.file("t.h5")}),
                      kTimeout);
      EXPECT_FALSE(r.timed_out);
      EXPECT_EQ(r.exit_code, 1) << describe(r);
      EXPECT_TRUE(contains(r.err, "'" + dir.file("g.h5") +
                                      "': the input ids (vertex_map) of vertex class 1 do not match their checksum"))
          << describe(r);
      const std::vector<std::string> left = left_beside_graph(dir);
      EXPECT_TRUE(left.empty()) << ::testing::PrintToString(left);
    }
}

}  // namespace
