// The distributed runtime through the real programs under mpiexec: a worker that dies, a
// resumed run, journals that must be refused, and the simulator replaying a measured run.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "scheduler/journal.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

class Runtime : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string edges = dir_->file("k14.bin64");
    ASSERT_EQ(run_process({bin_dir() + "/tricount-generate", "--kind", "kronecker", "--scale", "14", "--output", edges}).exit_code, 0);
    for (int parts : {2, 3}) {
      const auto r = run_process({bin_dir() + "/tricount-partition", "--input", edges, "--output",
                                  dir_->file("k14p" + std::to_string(parts) + ".h5"), "--parts", std::to_string(parts), "-q"});
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    const auto one = run_process(mpi_command(1, bin_dir() + "/tricount-count",
                                             {"--input", dir_->file("k14p2.h5"), "--backend", "cpu", "--json", "-", "-q"}));
    ASSERT_EQ(one.exit_code, 0) << one.err;
    expected_ = json_uint(one.out, "triangles");
    ASSERT_GT(expected_, 0u);
  }
  static void TearDownTestSuite() { delete dir_; }

  static ProcessResult count(int ranks, const std::string& graph, std::vector<std::string> extra) {
    std::vector<std::string> args = {"--input", dir_->file(graph), "--backend", "cpu", "--threads", "1", "--json", "-", "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_process(mpi_command(ranks, bin_dir() + "/tricount-count", args), 120);
  }

  static TempDir* dir_;
  static std::uint64_t expected_;
};
TempDir* Runtime::dir_ = nullptr;
std::uint64_t Runtime::expected_ = 0;

std::set<std::uint64_t> journal_tasks(const std::string& path) {
  std::set<std::uint64_t> tasks;
  for (const JournalRecord& r : read_journal(path).records) EXPECT_TRUE(tasks.insert(r.task).second) << "task twice";
  return tasks;
}

}  // namespace

TEST_F(Runtime, AKilledWorkerEndsTheRunPromptlyAndResumeFinishesIt) {
  const std::string journal = dir_->file("killed.journal");
  const auto t0 = std::chrono::steady_clock::now();
  // Task 13 is handed out mid-run; the worker that gets it kills itself with SIGKILL.
  const auto killed = count(3, "k14p3.h5", {"--workload-splits", "2", "--journal", journal, "--test-fault-at-task", "13", "--test-crash"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(killed.exit_code, 0);
  EXPECT_FALSE(killed.timed_out);
  EXPECT_LT(seconds, 30.0);
  EXPECT_NE(killed.err.find("task 13"), std::string::npos) << killed.err;
  EXPECT_NE(killed.err.find("rank"), std::string::npos) << killed.err;
  const std::set<std::uint64_t> before = journal_tasks(journal);
  EXPECT_FALSE(before.count(13));
  EXPECT_LT(before.size(), 54u);

  const auto resumed = count(3, "k14p3.h5", {"--workload-splits", "2", "--journal", journal, "--resume"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(json_uint(resumed.out, "triangles"), expected_);
  EXPECT_EQ(json_uint(resumed.out, "resumed_tasks"), before.size());
  const std::set<std::uint64_t> after = journal_tasks(journal);  // also checks no task twice
  EXPECT_EQ(after.size(), 54u);
}

TEST_F(Runtime, AFailingWorkerIsAClearErrorNamingRankAndTask) {
  const auto failed = count(3, "k14p2.h5", {"--test-fault-at-task", "3"});
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_NE(failed.err.find("worker rank"), std::string::npos) << failed.err;
  EXPECT_NE(failed.err.find("task 3"), std::string::npos) << failed.err;
}

TEST_F(Runtime, JournalsOfOtherInputsOrParametersAreRefused) {
  const std::string journal = dir_->file("other.journal");
  ASSERT_EQ(count(2, "k14p2.h5", {"--journal", journal}).exit_code, 0);
  const auto other_input = count(2, "k14p3.h5", {"--journal", journal, "--resume"});
  EXPECT_NE(other_input.exit_code, 0);
  EXPECT_NE(other_input.err.find("belongs to another run"), std::string::npos) << other_input.err;
  const auto other_splits = count(2, "k14p2.h5", {"--journal", journal, "--resume", "--workload-splits", "2"});
  EXPECT_NE(other_splits.exit_code, 0);
  EXPECT_NE(other_splits.err.find("splits"), std::string::npos) << other_splits.err;
  const auto no_resume = count(2, "k14p2.h5", {"--journal", journal});
  EXPECT_EQ(no_resume.exit_code, 2) << "an existing journal without --resume is refused";
}

TEST_F(Runtime, ATornLastJournalLineIsTolerated) {
  const std::string journal = dir_->file("torn.journal");
  const auto killed = count(3, "k14p2.h5", {"--journal", journal, "--workload-splits", "3", "--test-fault-at-task", "20"});
  ASSERT_NE(killed.exit_code, 0);
  {
    std::ofstream out(journal, std::ios::app);
    out << "21 123";  // half a record, as a kill mid-write leaves it
  }
  const auto resumed = count(3, "k14p2.h5", {"--journal", journal, "--resume", "--workload-splits", "3"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(json_uint(resumed.out, "triangles"), expected_);
  EXPECT_EQ(journal_tasks(journal).size(), 24u);
}

TEST_F(Runtime, SameCountAtNineRanksWithAutoSplits) {
  const auto r = count(9, "k14p2.h5", {"--workload-splits", "auto"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json_uint(r.out, "triangles"), expected_);
  EXPECT_GE(json_uint(r.out, "tasks"), 8u);  // at least one per worker
}

// tricount-simulate replays a measured run's journal for the same plan: every task of the
// run, a prediction per worker count, block reads modelled from the journal's load column.
// How close the prediction comes to the measured time is a benchmark
// (bench/bench_simulator.sh), not a test: timings on a shared machine vary.
TEST_F(Runtime, SimulatorReplaysTheMeasuredRunsPlan) {
  const std::string journal = dir_->file("sim.journal");
  const auto measured = count(3, "k14p2.h5", {"--workload-splits", "4", "--journal", journal});
  ASSERT_EQ(measured.exit_code, 0) << measured.err;
  const auto sim = run_process({bin_dir() + "/tricount-simulate", "--journal", journal, "--workers", "1,2", "--json", "-"});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_NE(sim.err.find("PREDICTION"), std::string::npos);
  EXPECT_EQ(json_uint(sim.out, "tasks"), json_uint(measured.out, "tasks"));
  EXPECT_EQ(json_uint(sim.out, "tasks"), 32u);  // n = 2, m = 4
  EXPECT_TRUE(std::regex_search(sim.out, std::regex("\"block_loads_modelled\": *true"))) << sim.out;
  EXPECT_EQ(json_numbers(sim.out, "workers"), (std::vector<double>{1, 2})) << sim.out;
  const std::vector<double> predicted = json_numbers(sim.out, "predicted_seconds");
  ASSERT_EQ(predicted.size(), 2u) << sim.out;
  for (double seconds : predicted) EXPECT_GT(seconds, 0.0) << sim.out;
}

TEST_F(Runtime, BuiltInVerifierAgrees) {
  const auto r = count(3, "k14p3.h5", {"--verify", "--workload-splits", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("verified"), std::string::npos) << r.err;
  EXPECT_EQ(json_uint(r.out, "triangles"), expected_);
}
