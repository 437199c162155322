// Issue 33, item 7: the journal records each run's schedule and where a resumed run starts;
// tricount-simulate replays a static run as static, finds the journal's block file beside
// the journal, and speaks of workers (not GPUs) for a CPU model, with no upload rate; the
// count's summary and report words.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount::testing;

std::string count_prog() { return bin_dir() + "/tricount-count"; }
std::string simulate_prog() { return bin_dir() + "/tricount-simulate"; }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int count_lines_starting(const std::string& text, const std::string& prefix) {
  int n = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) n += line.rfind(prefix, 0) == 0;
  return n;
}

class SimulateWords : public ::testing::Test {
 protected:
  void SetUp() override {
    edges_ = random_graph(2000, 20000, 5);
    expected_ = tricount::reference::count_triangles(edges_);
    const std::string txt = dir_.file("g.txt");
    write_text_edges(txt, edges_);
    fs::create_directory(dir_.file("run"));
    h5_ = dir_.file("run/g.h5");
    const ProcessResult r =
        run_process({bin_dir() + "/tricount-partition", "--input", txt, "--output", h5_, "--parts", "2", "--quiet"}, 120);
    ASSERT_EQ(r.exit_code, 0) << describe(r);
  }
  TempDir dir_;
  std::string h5_;
  EdgePairs edges_;
  std::uint64_t expected_ = 0;
};

TEST_F(SimulateWords, StaticJournalIsReplayedAsStaticFromTheJournalsFolder) {
  const std::string journal = dir_.file("run/static.journal");
  const ProcessResult r = run_process(
      mpi_command(3, count_prog(), {h5_, "--schedule", "static", "--journal", journal, "--backend", "cpu", "-q"}), 120);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const std::string text = read_text(journal);
  EXPECT_TRUE(contains(text, "\n# run schedule=static workers=2\n")) << text;
  // input= names the block file from the journal's folder, so the folder can move.
  EXPECT_TRUE(contains(text, " input=g.h5\n")) << text;
  fs::rename(dir_.file("run"), dir_.file("moved"));
  const ProcessResult sim = run_process({simulate_prog(), "--journal", dir_.file("moved/static.journal"), "--workers", "1,2"}, 120);
  ASSERT_EQ(sim.exit_code, 0) << describe(sim);
  EXPECT_TRUE(contains(sim.out, "the static schedule, as the journal's run used")) << sim.out;
  EXPECT_TRUE(contains(sim.out, "load_phase_s")) << sim.out;
  EXPECT_FALSE(contains(sim.out, "is not here")) << "the block file beside the journal was not found:\n" << sim.out;
  // --schedule overrides.
  const ProcessResult dyn = run_process(
      {simulate_prog(), "--journal", dir_.file("moved/static.journal"), "--workers", "1,2", "--schedule", "dynamic"}, 120);
  ASSERT_EQ(dyn.exit_code, 0) << describe(dyn);
  EXPECT_TRUE(contains(dyn.out, "the dynamic schedule, as --schedule asks")) << dyn.out;
}

TEST_F(SimulateWords, AResumedRunIsABoundaryInTheJournalAndTheSummary) {
  const std::string journal = dir_.file("run/j.journal");
  // The first run fails on one task (after others were journaled); the second resumes.
  const ProcessResult first = run_process({count_prog(), h5_, "--journal", journal, "-m", "4", "--backend", "cpu",
                                           "--threads", "1", "--test-fault-at-task", "5"},
                                          120);
  ASSERT_EQ(first.exit_code, 1) << describe(first);
  const ProcessResult second = run_process(
      {count_prog(), h5_, "--journal", journal, "-m", "4", "--backend", "cpu", "--resume", "--json", "-"}, 120);
  ASSERT_EQ(second.exit_code, 0) << describe(second);
  EXPECT_EQ(json_uint(second.out, "triangles"), expected_);
  const std::uint64_t resumed = json_uint(second.out, "resumed_tasks");
  ASSERT_GT(resumed, 0u) << "the first run journaled nothing before task 5";
  EXPECT_TRUE(contains(second.err, "32 tasks (" + std::to_string(resumed) + " resumed from the journal)")) << second.err;
  EXPECT_EQ(count_lines_starting(read_text(journal), "# run schedule=dynamic workers=1"), 2) << read_text(journal);
  const ProcessResult sim = run_process({simulate_prog(), "--journal", journal, "--workers", "1,2"}, 120);
  ASSERT_EQ(sim.exit_code, 0) << describe(sim);
  EXPECT_TRUE(contains(sim.out, "2 runs: resumed 1 time, the first run finished " + std::to_string(resumed) + " tasks"))
      << sim.out;
}

TEST_F(SimulateWords, ACpuModelSpeaksOfWorkers) {
  const std::string journal = dir_.file("run/fit.journal");
  const ProcessResult r = run_process({count_prog(), h5_, "--journal", journal, "-m", "2", "--backend", "cpu", "-q"}, 120);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const std::string model = dir_.file("cpu_model.json");
  const ProcessResult fit =
      run_process({simulate_prog(), "--fit", model, "--journal", journal, "--backend", "cpu", "--device", "test CPU"}, 120);
  ASSERT_EQ(fit.exit_code, 0) << describe(fit);
  EXPECT_TRUE(contains(fit.out, "upload n/a (cpu backend: no device copy)")) << fit.out;
  EXPECT_FALSE(contains(fit.out, "upload 0")) << fit.out;
  const ProcessResult predict = run_process({simulate_prog(), "--model", model, "--edges", "100000", "--vertices", "10000",
                                             "--family", "erdos-renyi", "--parts", "2", "--workers", "1,2"},
                                            120);
  ASSERT_EQ(predict.exit_code, 0) << describe(predict);
  EXPECT_TRUE(contains(predict.out, "workers per node")) << predict.out;
  EXPECT_TRUE(contains(predict.out, "max_GB_per_worker")) << predict.out;
  EXPECT_FALSE(contains(predict.out, "GPU")) << predict.out;
  EXPECT_FALSE(contains(predict.out, "gpus")) << predict.out;
  const ProcessResult both = run_process({simulate_prog(), "--model", model, "--edges", "100000", "--vertices", "10000",
                                          "--family", "erdos-renyi", "--parts", "2", "--workers", "1,2", "--gpus", "1"},
                                         60);
  EXPECT_EQ(both.exit_code, 2) << describe(both);
}

TEST(SimulateHelp, DefaultsReadAsWritten) {
  const ProcessResult r = run_process({bin_dir() + "/tricount-simulate", "--help"}, 60);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "--memory-headroom arg (=0.8)")) << r.out;
  EXPECT_FALSE(contains(r.out, "0000000")) << r.out;
}

// A dynamic run has no load phase: null in the report, not a few nanoseconds.
TEST_F(SimulateWords, DynamicReportHasNoLoadPhase) {
  const ProcessResult r = run_process({count_prog(), h5_, "--json", "-", "--backend", "cpu"}, 120);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "\"load_phase\": null")) << r.out;
  const ProcessResult s = run_process({count_prog(), h5_, "--json", "-", "--backend", "cpu", "--schedule", "static"}, 120);
  ASSERT_EQ(s.exit_code, 0) << describe(s);
  EXPECT_FALSE(contains(s.out, "\"load_phase\": null")) << s.out;
}

}  // namespace
