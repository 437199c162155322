// tricount-count's defaults (issues 27 and 33): a user who gives only the block file gets a
// correct run at any number of ranks. --workload-splits auto (4 workers on a --parts 1 file
// need no option), --cache-size from the node's available memory (the static schedule
// needs no option when the blocks fit), CPU threads shared among the node's workers.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "src/task_plan.hpp"
#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

constexpr double kTimeout = 180;


class CountDefaults : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    edges_ = random_graph(600, 6000, 33);
    const std::string txt = dir_->file("g.txt");
    write_text_edges(txt, edges_);
    for (int parts : {1, 2}) {
      const ProcessResult r = run_process({bin_dir() + "/tricount-partition", "--input", txt, "--output", file(parts),
                                           "--parts", std::to_string(parts), "-q"},
                                          kTimeout);
      ASSERT_EQ(r.exit_code, 0) << describe(r);
    }
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string file(int parts) { return dir_->file("g.p" + std::to_string(parts) + ".h5"); }

  // The block file and the CPU backend (a GPU here would otherwise be picked), nothing else
  // but the JSON report on stdout.
  static ProcessResult count(int ranks, int parts, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"--input", file(parts), "--backend", "cpu", "--json", "-", "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_process(mpi_command(ranks, bin_dir() + "/tricount-count", args), kTimeout);
  }

  static inline TempDir* dir_ = nullptr;
  static inline EdgePairs edges_;
};

// mpirun -np 5 on a --parts 1 file: 4 workers, auto gives 4 tasks (m = 4), one each.
TEST_F(CountDefaults, FiveRanksOnOnePartNeedNoOption) {
  const ProcessResult r = count(5, 1);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(json_uint(r.out, "triangles"), reference::count_triangles(edges_));
  EXPECT_EQ(json_uint(r.out, "workers"), 4u);
  EXPECT_EQ(json_uint(r.out, "workload_splits"), auto_workload_splits(1, 4));
  EXPECT_EQ(json_uint(r.out, "tasks"), 4u);
}

// One worker keeps m = 1: more splits would only repeat the row walks.
TEST_F(CountDefaults, OneWorkerKeepsOneSplit) {
  for (int ranks : {1, 2}) {
    const ProcessResult r = count(ranks, 2);
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_EQ(json_uint(r.out, "workload_splits"), 1u) << ranks;
    EXPECT_EQ(json_uint(r.out, "triangles"), reference::count_triangles(edges_));
  }
  // A number given is used as given.
  const ProcessResult given = count(3, 2, {"--workload-splits", "3"});
  ASSERT_EQ(given.exit_code, 0) << describe(given);
  EXPECT_EQ(json_uint(given.out, "workload_splits"), 3u);
}

// --schedule static without --cache-size: the default (the node's available memory shared
// among its workers) holds a small graph's blocks.
TEST_F(CountDefaults, StaticScheduleWorksWithoutCacheSize) {
  for (int ranks : {1, 3}) {
    const ProcessResult r = count(ranks, 2, {"--schedule", "static"});
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_EQ(json_uint(r.out, "triangles"), reference::count_triangles(edges_)) << ranks;
    EXPECT_TRUE(contains(r.out, "\"scheduling\": \"static\"")) << r.out;
  }
  // An explicit size still rules, with the clear error when the blocks do not fit it.
  const ProcessResult small = count(3, 2, {"--schedule", "static", "--cache-size", "2K"});
  EXPECT_EQ(small.exit_code, 1) << describe(small);
  EXPECT_TRUE(contains(small.err, "--cache-size is 2048 bytes")) << describe(small);
  const ProcessResult zero = count(1, 2, {"--cache-size", "0"});
  EXPECT_EQ(zero.exit_code, 2) << describe(zero);
  EXPECT_TRUE(contains(zero.err, "--cache-size")) << describe(zero);
}

// The CPU backend's threads, unless given: the node's cores shared among its workers (as the
// loader threads), so that 4 workers on a node do not each start a thread per core.
TEST_F(CountDefaults, CpuThreadsAreSharedAmongTheNodesWorkers) {
  const ProcessResult r = count(5, 1);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("\"device\": \"([0-9]+) CPU threads\""))) << r.out;
  const unsigned threads = static_cast<unsigned>(std::stoul(m[1]));
  EXPECT_GE(threads, 1u);
  EXPECT_LE(threads, std::max(1u, std::thread::hardware_concurrency() / 4)) << r.out;
  // Given, it is used as given.
  const ProcessResult given = count(2, 1, {"--threads", "3"});
  ASSERT_EQ(given.exit_code, 0) << describe(given);
  EXPECT_TRUE(contains(given.out, "\"3 CPU threads\"")) << given.out;
}

}  // namespace
