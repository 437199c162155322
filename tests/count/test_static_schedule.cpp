// tricount-count --schedule static (issue 21, the resident mode): rank 0 assigns every task
// before counting, each worker loads all its blocks, all ranks meet, then the count phase
// runs. The real program under mpiexec at 2, 3 and 5 ranks: the counts equal the dynamic
// schedule's and the reference (or SNAP's published count), the journal and --resume work,
// blocks that do not fit and a failing worker end the job with a clear error, never a hang.
// Built twice: test_static_schedule counts with the CPU backend, test_static_schedule_cuda
// (TRICOUNT_STATIC_CUDA, label gpu) with --backend cuda, whose load phase uploads the blocks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/reference_counter.hpp"
#include "worker/backend.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

constexpr double kTimeout = 180;  // seconds; every case here finishes in a few

#ifdef TRICOUNT_STATIC_CUDA
const std::vector<std::string> kBackend = {"--backend", "cuda"};
#define REQUIRE_BACKEND()                                                          \
  do {                                                                             \
    if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU: --backend cuda cannot run"; \
  } while (0)
#else
const std::vector<std::string> kBackend = {"--backend", "cpu", "--threads", "1"};
#define REQUIRE_BACKEND() (void)0
#endif

struct Graph {
  std::string name, path;
  std::uint64_t triangles;
};

class StaticSchedule : public ::testing::TestWithParam<int> {  // the number of ranks
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const EdgePairs edges = random_graph(400, 5000, 21);
    const std::string txt = dir_->file("random.txt");
    write_text_edges(txt, edges);
    graphs_.push_back({"random n=2", partition(txt, "random2.h5", 2), reference::count_triangles(edges)});
    graphs_.push_back({"random n=3", partition(txt, "random3.h5", 3), reference::count_triangles(edges)});
    // Two SNAP graphs (published counts, tests/count/test_snap_graphs.cpp), where the data is here.
    if (std::filesystem::is_directory(graphs_dir())) {
      graphs_.push_back({"ca-GrQc n=3", partition(graphs_dir() + "/CA-GrQc.txt", "grqc.h5", 3), 48260});
      graphs_.push_back({"ego-Facebook n=4", partition(graphs_dir() + "/facebook_combined.txt", "fb.h5", 4), 1612010});
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    graphs_.clear();
  }
  static std::string partition(const std::string& input, const std::string& name, int parts) {
    const std::string out = dir_->file(name);
    const ProcessResult r = run_process(
        {bin_dir() + "/tricount-partition", "--input", input, "--output", out, "--parts", std::to_string(parts), "-q"}, kTimeout);
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    return out;
  }
  std::string file(const std::string& name) const { return dir_->file(std::to_string(GetParam()) + "-" + name); }

  // tricount-count at GetParam() ranks: CPU backend, one thread, the JSON report on stdout.
  ProcessResult count(const std::string& input, std::vector<std::string> extra) const {
    std::vector<std::string> args = {"--input", input, "--json", "-", "-q", "--allow-idle-workers"};
    args.insert(args.end(), kBackend.begin(), kBackend.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return run_process(mpi_command(GetParam(), bin_dir() + "/tricount-count", args), kTimeout);
  }

  static TempDir* dir_;
  static std::vector<Graph> graphs_;
};
TempDir* StaticSchedule::dir_ = nullptr;
std::vector<Graph> StaticSchedule::graphs_;

TEST_P(StaticSchedule, CountsEqualTheDynamicSchedule) {
  REQUIRE_BACKEND();
  for (const Graph& g : graphs_) {
    for (const std::string m : {"1", "3"}) {
      const ProcessResult dynamic = count(g.path, {"--workload-splits", m});
      ASSERT_EQ(dynamic.exit_code, 0) << describe(dynamic);
      const ProcessResult fixed = count(g.path, {"--workload-splits", m, "--schedule", "static"});
      ASSERT_EQ(fixed.exit_code, 0) << describe(fixed);
      EXPECT_EQ(json_uint(fixed.out, "triangles"), g.triangles) << g.name << " m=" << m;
      EXPECT_EQ(json_uint(dynamic.out, "triangles"), g.triangles) << g.name << " m=" << m;
      EXPECT_TRUE(contains(fixed.out, "\"scheduling\": \"static\"")) << fixed.out;
      EXPECT_TRUE(contains(dynamic.out, "\"scheduling\": \"dynamic\"")) << dynamic.out;
      // The ranks' counts sum to the total (the top-level count comes first); every rank has
      // its load and count phase, and some worker held blocks.
      const std::vector<double> triangles = json_numbers(fixed.out, "triangles");
      double ranks_sum = 0;
      for (std::size_t r = 1; r < triangles.size(); ++r) ranks_sum += triangles[r];
      EXPECT_EQ(ranks_sum, triangles.front()) << g.name;
      EXPECT_EQ(json_numbers(fixed.out, "load_phase_seconds").size(), static_cast<std::size_t>(GetParam()));
      EXPECT_EQ(json_numbers(fixed.out, "count_phase_seconds").size(), static_cast<std::size_t>(GetParam()));
      double held = 0;
      for (double b : json_numbers(fixed.out, "resident_bytes")) held += b;
      EXPECT_GT(held, 0.0) << g.name;
    }
  }
}

TEST_P(StaticSchedule, SummaryLineNamesTheScheduleAndPhases) {
  REQUIRE_BACKEND();
  std::vector<std::string> args = {"--input", graphs_.front().path, "--schedule", "static", "--allow-idle-workers",
                                   "--progress-interval", "0"};
  args.insert(args.end(), kBackend.begin(), kBackend.end());
  const ProcessResult r = run_process(mpi_command(GetParam(), bin_dir() + "/tricount-count", args), kTimeout);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "static schedule")) << r.out;
  EXPECT_TRUE(contains(r.out, "load phase")) << r.out;
  EXPECT_TRUE(contains(r.out, "count phase")) << r.out;
}

TEST_P(StaticSchedule, BadScheduleIsAUsageError) {
  REQUIRE_BACKEND();
  const ProcessResult r = count(graphs_.front().path, {"--schedule", "round-robin"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "--schedule: 'round-robin' is not dynamic or static")) << r.err;
}

TEST_P(StaticSchedule, BlocksThatDoNotFitAreAClearErrorBeforeCounting) {
  REQUIRE_BACKEND();
  const std::string journal = file("nofit.journal");
  const ProcessResult r = count(graphs_.front().path, {"--schedule", "static", "--cache-size", "1K", "--journal", journal});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(contains(r.err, "--schedule static: the ")) << r.err;
  EXPECT_TRUE(contains(r.err, "bytes")) << r.err;
  EXPECT_TRUE(contains(r.err, "--cache-size is 1024 bytes")) << r.err;
  EXPECT_TRUE(contains(r.err, "run more workers")) << r.err;
  EXPECT_TRUE(contains(r.err, "more --parts")) << r.err;
  EXPECT_EQ(r.out, "") << "no report for a count that did not run";
  // Nothing was counted: the journal holds no task.
  const ProcessResult again = count(graphs_.front().path, {"--schedule", "static", "--journal", journal, "--resume"});
  ASSERT_EQ(again.exit_code, 0) << describe(again);
  EXPECT_EQ(json_uint(again.out, "resumed_tasks"), 0u);
  EXPECT_EQ(json_uint(again.out, "triangles"), graphs_.front().triangles);
}

TEST_P(StaticSchedule, FailingWorkerEndsTheJobWithItsError) {
  REQUIRE_BACKEND();
  // --count-parts 2, the file's own: the fault names a task of the 2-part plan.
  const ProcessResult r = count(graphs_.front().path, {"--schedule", "static", "--count-parts", "2", "--test-fault-at-task", "5"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(contains(r.err, "task 5")) << r.err;
  EXPECT_TRUE(contains(r.err, "injected fault")) << r.err;
}

TEST_P(StaticSchedule, JournalAndResumeFinishTheCount) {
  REQUIRE_BACKEND();
  const Graph& g = graphs_.front();
  const std::string journal = file("resume.journal");
  std::filesystem::remove(journal);
  const ProcessResult failed = count(g.path, {"--schedule", "static", "--workload-splits", "2", "--count-parts", "2",
                                              "--journal", journal, "--test-fault-at-task", "7"});
  ASSERT_EQ(failed.exit_code, 1) << describe(failed);
  EXPECT_TRUE(contains(failed.err, "rerun with --resume")) << failed.err;
  const ProcessResult resumed = count(g.path, {"--schedule", "static", "--workload-splits", "2", "--journal", journal, "--resume"});
  ASSERT_EQ(resumed.exit_code, 0) << describe(resumed);
  EXPECT_EQ(json_uint(resumed.out, "triangles"), g.triangles);
  // The other workers finished their lists after the failure (more than 1 rank): those
  // tasks were journaled and are not counted again.
  if (GetParam() > 2) {
    EXPECT_GT(json_uint(resumed.out, "resumed_tasks"), 0u) << resumed.out;
  }
}

TEST_P(StaticSchedule, PerVertexEqualsTheDynamicSchedule) {
  REQUIRE_BACKEND();
  const Graph& g = graphs_.front();
  const std::string dynamic_tsv = file("dynamic.tsv"), static_tsv = file("static.tsv");
  const ProcessResult d = count(g.path, {"--workload-splits", "2", "--per-vertex", dynamic_tsv});
  ASSERT_EQ(d.exit_code, 0) << describe(d);
  const ProcessResult s = count(g.path, {"--workload-splits", "2", "--per-vertex", static_tsv, "--schedule", "static"});
  ASSERT_EQ(s.exit_code, 0) << describe(s);
  EXPECT_EQ(read_file(static_tsv), read_file(dynamic_tsv));
  EXPECT_GT(read_file(static_tsv).size(), 0u);
}

#ifdef TRICOUNT_STATIC_CUDA
// The GPU's own limit: blocks that do not fit the memory the backend may use.
TEST_P(StaticSchedule, BlocksThatDoNotFitTheGpuAreAClearErrorBeforeCounting) {
  REQUIRE_BACKEND();
  // 100,000 bytes of device memory: enough for the backend's self-test at start-up, not for
  // any worker's blocks of this graph (each of its 4 blocks holds about 50,000 edges, so any
  // task needs more); the random graphs above fit in it, the SNAP ones only where present.
  const EdgePairs edges = random_graph(5000, 200000, 22);
  const std::string txt = file("does-not-fit.txt");
  write_text_edges(txt, edges);
  const std::string h5 = partition(txt, std::to_string(GetParam()) + "-does-not-fit.h5", 2);
  const ProcessResult r = count(h5, {"--schedule", "static", "--cuda-tuning", "device-bytes=100000"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "CUDA backend: --schedule static: the ")) << r.err;
  EXPECT_TRUE(contains(r.err, "run more workers")) << r.err;
}
#endif

#ifdef TRICOUNT_STATIC_CUDA
#define RANKS RanksCuda
#else
#define RANKS Ranks
#endif
INSTANTIATE_TEST_SUITE_P(RANKS, StaticSchedule, ::testing::Values(2, 3, 5),
                         [](const ::testing::TestParamInfo<int>& info) { return "np" + std::to_string(info.param); });

}  // namespace
