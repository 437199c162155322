// scripts/fetch-graphs (issue 33): --from copies the test graphs from a local folder and
// checks each against its sha256; a file that differs is refused and not kept.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount::testing;

std::string script() { return std::string(TRICOUNT_SOURCE_DIR) + "/scripts/fetch-graphs"; }

TEST(FetchGraphs, AChecksumMismatchIsRefusedAndNotKept) {
  TempDir from, to;
  fs::create_directory(from.file("graphs"));
  {
    std::ofstream out(from.file("graphs/CA-GrQc.txt"));
    out << "0 1\n1 2\n2 0\n";  // a graph, but not the one the published count is for
  }
  const ProcessResult r =
      run_process({script(), "--from", from.path(), "--to", to.path(), "--only", "CA-GrQc.txt"}, 120);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "CA-GrQc.txt from '" + from.file("graphs/CA-GrQc.txt") + "' has sha256 ")) << r.err;
  EXPECT_TRUE(contains(r.err, "not kept")) << r.err;
  EXPECT_FALSE(fs::exists(to.file("graphs/CA-GrQc.txt")));
  if (fs::exists(to.file("graphs")))
    EXPECT_TRUE(fs::is_empty(to.file("graphs"))) << "a temporary was left in " << to.file("graphs");
}

TEST(FetchGraphs, UsageErrors) {
  TempDir to;
  const ProcessResult unknown = run_process({script(), "--to", to.path(), "--only", "no-such-graph.txt"}, 60);
  EXPECT_EQ(unknown.exit_code, 2) << describe(unknown);
  EXPECT_TRUE(contains(unknown.err, "--only 'no-such-graph.txt' is not one of the files")) << unknown.err;
  const ProcessResult bad_from = run_process({script(), "--from", to.file("missing"), "--to", to.path()}, 60);
  EXPECT_EQ(bad_from.exit_code, 2) << describe(bad_from);
  const ProcessResult list = run_process({script(), "--list"}, 60);
  EXPECT_EQ(list.exit_code, 0) << describe(list);
  EXPECT_TRUE(contains(list.out, "facebook_combined.txt")) << list.out;
  EXPECT_TRUE(contains(list.out, "1612010")) << list.out;
  EXPECT_TRUE(contains(list.out, "cnr-2000.graph")) << list.out;
}

// With the data at hand (../shared/data or an earlier fetch): copied and checked, and
// --check then finds every file right.
TEST(FetchGraphs, FromALocalFolder) {
  const fs::path data = fs::path(graphs_dir()).parent_path();
  if (!fs::exists(data / "graphs" / "CA-GrQc.txt")) GTEST_SKIP() << "no graphs at " << data.string() << ": " << fetch_graphs_hint();
  TempDir to;
  const ProcessResult r = run_process({script(), "--from", data.string(), "--to", to.path(), "--only", "CA-GrQc.txt",
                                       "--only", "test.graph", "--only", "test.properties"},
                                      120);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "3 fetched")) << r.out;
  EXPECT_EQ(fs::file_size(to.file("graphs/CA-GrQc.txt")), fs::file_size(data / "graphs" / "CA-GrQc.txt"));
  EXPECT_TRUE(fs::exists(to.file("webgraph/test.graph")));
  const ProcessResult check = run_process({script(), "--to", to.path(), "--check", "--only", "CA-GrQc.txt"}, 60);
  EXPECT_EQ(check.exit_code, 0) << describe(check);
  const ProcessResult again = run_process({script(), "--from", data.string(), "--to", to.path(), "--only", "CA-GrQc.txt"}, 60);
  EXPECT_EQ(again.exit_code, 0) << describe(again);
  EXPECT_TRUE(contains(again.out, "0 fetched, 1 already there")) << again.out;
  // A damaged file is found by --check.
  {
    std::ofstream out(to.file("graphs/CA-GrQc.txt"), std::ios::app);
    out << "1 2\n";
  }
  const ProcessResult damaged = run_process({script(), "--to", to.path(), "--check", "--only", "CA-GrQc.txt"}, 60);
  EXPECT_EQ(damaged.exit_code, 1) << describe(damaged);
  EXPECT_TRUE(contains(damaged.err, "sha256 differs")) << damaged.err;
}

}  // namespace
