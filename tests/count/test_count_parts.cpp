// tricount-count --count-parts (issue 28): an n-part block file counted as n_c parts, each
// task's blocks re-blocked from the file's (n / n_c)^2 as it needs them. The real program
// under mpiexec at 1 and 3 ranks, both schedules: the counts equal the reference (or SNAP's
// published count) at every divisor, so do the per-vertex tables, the plan has n_c^3 * m
// tasks, the journal belongs to its count parts, and what it cannot do yet is a usage error. Built twice: test_count_parts
// counts with the CPU backend (re-blocked in host memory), test_count_parts_cuda
// (TRICOUNT_COUNT_PARTS_CUDA, label gpu) with --backend cuda (re-blocked on the device).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"
#include "worker/backend.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

constexpr double kTimeout = 180;  // seconds; every case here finishes in a few

#ifdef TRICOUNT_COUNT_PARTS_CUDA
const std::vector<std::string> kBackend = {"--backend", "cuda"};
#define REQUIRE_BACKEND()                                                            \
  do {                                                                               \
    if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU: --backend cuda cannot run"; \
  } while (0)
#else
const std::vector<std::string> kBackend = {"--backend", "cpu", "--threads", "1"};
#define REQUIRE_BACKEND() (void)0
#endif

struct Graph {
  std::string name, path;
  std::uint32_t parts;
  std::uint64_t triangles;
};

class CountParts : public ::testing::TestWithParam<int> {  // the number of ranks
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const EdgePairs mixed = mixed_graph(7);  // hub rows (the CUDA CTA paths), a star, empty rows
    const std::string txt = dir_->file("mixed.txt");
    write_text_edges(txt, mixed);
    graphs_.push_back({"mixed n=6", partition(txt, "mixed6.h5", 6, "packed"), 6, reference::count_triangles(mixed)});
    graphs_.push_back({"mixed n=4 csr", partition(txt, "mixed4.h5", 4, "csr"), 4, reference::count_triangles(mixed)});
    if (std::filesystem::is_directory(graphs_dir()))
      graphs_.push_back({"ca-GrQc n=4", partition(graphs_dir() + "/CA-GrQc.txt", "grqc.h5", 4, "packed"), 4, 48260});
  }
  static void TearDownTestSuite() {
    delete dir_;
    graphs_.clear();
  }
  static std::string partition(const std::string& input, const std::string& name, int parts, const std::string& encoding) {
    const std::string out = dir_->file(name);
    const ProcessResult r = run_process({bin_dir() + "/tricount-partition", "--input", input, "--output", out, "--parts",
                                         std::to_string(parts), "--block-encoding", encoding, "-q"},
                                        kTimeout);
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    return out;
  }
  std::string file(const std::string& name) const { return dir_->file(std::to_string(GetParam()) + "-" + name); }

  // tricount-count at GetParam() ranks, the JSON report on stdout.
  ProcessResult count(const std::string& input, std::vector<std::string> extra) const {
    std::vector<std::string> args = {"--input", input, "--json", "-", "-q", "--allow-idle-workers"};
    args.insert(args.end(), kBackend.begin(), kBackend.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return run_process(mpi_command(GetParam(), bin_dir() + "/tricount-count", args), kTimeout);
  }

  static TempDir* dir_;
  static std::vector<Graph> graphs_;
};
TempDir* CountParts::dir_ = nullptr;
std::vector<Graph> CountParts::graphs_;

TEST_P(CountParts, EveryDivisorCountsTheGraph) {
  REQUIRE_BACKEND();
  for (const Graph& g : graphs_)
    for (std::uint32_t c = 1; c <= g.parts; ++c) {
      if (g.parts % c) continue;
      for (const std::string schedule : {"dynamic", "static"})
        for (const std::string m : {"1", "2"}) {
          const std::string what = g.name + " counted as " + std::to_string(c) + ", " + schedule + ", m=" + m;
          const ProcessResult r =
              count(g.path, {"--count-parts", std::to_string(c), "--schedule", schedule, "--workload-splits", m});
          ASSERT_EQ(r.exit_code, 0) << what << "\n" << describe(r);
          EXPECT_EQ(json_uint(r.out, "triangles"), g.triangles) << what;
          EXPECT_EQ(json_uint(r.out, "parts"), g.parts) << what;
          EXPECT_EQ(json_uint(r.out, "count_parts"), c) << what;
          EXPECT_EQ(json_uint(r.out, "tasks"), std::uint64_t(c) * c * c * std::stoull(m)) << what;
        }
    }
}

TEST_P(CountParts, DefaultIsTheFewestPartsThatFit) {
  REQUIRE_BACKEND();
  const Graph& g = graphs_.front();
  const ProcessResult r = count(g.path, {});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
#ifdef TRICOUNT_COUNT_PARTS_CUDA
  EXPECT_EQ(json_uint(r.out, "count_parts"), 1u);  // the whole graph fits any GPU (the rule: test_task_plan)
#else
  EXPECT_EQ(json_uint(r.out, "count_parts"), g.parts);  // the CPU backend counts the file as it is
#endif
  EXPECT_EQ(json_uint(r.out, "triangles"), g.triangles);
  // Per vertex too (per edge counts the file as it is: not re-blocked yet).
  const ProcessResult pv = count(g.path, {"--per-vertex", file("default.tsv")});
  ASSERT_EQ(pv.exit_code, 0) << describe(pv);
  EXPECT_EQ(json_uint(pv.out, "count_parts"), json_uint(r.out, "count_parts"));
  const ProcessResult pe = count(g.path, {"--per-edge", file("default-edges.tsv")});
  ASSERT_EQ(pe.exit_code, 0) << describe(pe);
  EXPECT_EQ(json_uint(pe.out, "count_parts"), g.parts);
}

// Counted as fewer parts, each vertex's triangles (and so the whole table) are those of the
// file counted as it is: the plan's classes are handed on as the file's (FileClassCounts).
TEST_P(CountParts, PerVertexTablesAreTheSameAtEveryDivisor) {
  REQUIRE_BACKEND();
  for (const Graph& g : graphs_) {
    const std::string own = file("own.tsv");
    std::filesystem::remove(own);
    const ProcessResult base = count(g.path, {"--count-parts", std::to_string(g.parts), "--per-vertex", own});
    ASSERT_EQ(base.exit_code, 0) << g.name << "\n" << describe(base);
    const std::string want = read_file(own);
    ASSERT_FALSE(want.empty()) << g.name;
    for (std::uint32_t c = 1; c < g.parts; ++c) {
      if (g.parts % c) continue;
      for (const std::string schedule : {"dynamic", "static"}) {
        const std::string what = g.name + " counted as " + std::to_string(c) + ", " + schedule;
        const std::string table = file("as" + std::to_string(c) + schedule + ".tsv");
        std::filesystem::remove(table);
        const ProcessResult r = count(g.path, {"--count-parts", std::to_string(c), "--schedule", schedule, "--per-vertex", table});
        ASSERT_EQ(r.exit_code, 0) << what << "\n" << describe(r);
        EXPECT_EQ(json_uint(r.out, "count_parts"), c) << what;
        EXPECT_EQ(json_uint(r.out, "triangles"), g.triangles) << what;
        EXPECT_TRUE(read_file(table) == want) << what << ": the table differs from the file's own parts'";
      }
    }
  }
}

TEST_P(CountParts, SummaryLineSaysHowThePartsWereCounted) {
  REQUIRE_BACKEND();
  std::vector<std::string> args = {"--input", graphs_.front().path, "--count-parts", "2", "--allow-idle-workers",
                                   "--progress-interval", "0"};
  args.insert(args.end(), kBackend.begin(), kBackend.end());
  const ProcessResult r = run_process(mpi_command(GetParam(), bin_dir() + "/tricount-count", args), kTimeout);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "6 parts counted as 2,")) << r.out;
}

TEST_P(CountParts, WhatItCannotDoIsAUsageError) {
  REQUIRE_BACKEND();
  const Graph& g = graphs_.front();
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"--count-parts", "4"}, "--count-parts 4 must divide the file's 6 parts"},
           {{"--count-parts", "12"}, "--count-parts 12 must divide the file's 6 parts"},
           {{"--count-parts", "0"}, "--count-parts must be a divisor of the block file's parts (got 0)"},
           {{"--count-parts", "3", "--per-edge", file("pe.tsv")}, "cannot be combined with --per-edge yet"},
           {{"--count-parts", "3", "--schedule", "static", "--load-path", "forward"}, "cannot be combined with --load-path forward"},
       }) {
    const ProcessResult r = count(g.path, c.args);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_FALSE(r.timed_out);
    EXPECT_TRUE(contains(r.err, c.message)) << r.err;
    EXPECT_EQ(r.out, "") << "no report for a count that did not run";
  }
  EXPECT_FALSE(std::filesystem::exists(file("pe.tsv")));
}

TEST_P(CountParts, JournalBelongsToItsCountParts) {
  REQUIRE_BACKEND();
  const Graph& g = graphs_.front();
  const std::string journal = file("count-parts.journal");
  std::filesystem::remove(journal);
  const ProcessResult failed =
      count(g.path, {"--count-parts", "2", "--workload-splits", "2", "--journal", journal, "--test-fault-at-task", "9"});
  ASSERT_EQ(failed.exit_code, 1) << describe(failed);
  EXPECT_TRUE(contains(failed.err, "rerun with --resume")) << failed.err;
  // Another grid's task ids mean other blocks: refused.
  const ProcessResult other = count(g.path, {"--count-parts", "3", "--workload-splits", "2", "--journal", journal, "--resume"});
  EXPECT_EQ(other.exit_code, 1) << describe(other);
  EXPECT_TRUE(contains(other.err, "belongs to another run")) << other.err;
  // Without --count-parts, --resume goes on with the journal's grid.
  const ProcessResult resumed = count(g.path, {"--workload-splits", "2", "--journal", journal, "--resume"});
  ASSERT_EQ(resumed.exit_code, 0) << describe(resumed);
  EXPECT_EQ(json_uint(resumed.out, "triangles"), g.triangles);
  EXPECT_EQ(json_uint(resumed.out, "count_parts"), 2u);
}

INSTANTIATE_TEST_SUITE_P(RANKS, CountParts, ::testing::Values(1, 3),
                         [](const ::testing::TestParamInfo<int>& info) { return "np" + std::to_string(info.param); });

}  // namespace
