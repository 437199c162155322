// tricount-simulate's cost model from the command line: the fit on journals recorded with the
// real programs (tests/data/cost_model: Kronecker 15, --backend cpu, one rank, n = 2 and 4,
// m = 1 and 3), predictions labelled PREDICTED with what they were calibrated on, the plan's
// choices, and bad input refused with a clear error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <regex>
#include <sstream>

#include "model/cost_model.hpp"
#include "model/graph_shape.hpp"
#include "model/plan.hpp"
#include "src/block_format.hpp"
#include "src/cli.hpp"
#include "tests/test_support.hpp"

namespace tricount {
namespace {

using namespace tricount::testing;
namespace fs = std::filesystem;

std::string data_dir() { return source_dir() + "/tests/data/cost_model"; }

ProcessResult simulate(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {bin_dir() + "/tricount-simulate"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, 120);
}

// Kronecker 13-15 block files made here as the recordings were, and the recorded journals
// pointed at them (their header names the file and its checksum; a partitioner that
// changes the blocks changes the checksum, not what the fit needs).
class RecordedRuns : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<TempDir>();
    for (int scale : {13, 14, 15}) {
      const std::string edges = dir_->file("k" + std::to_string(scale) + ".bin64");
      const auto gen = run_process({bin_dir() + "/tricount-generate", "--kind", "kronecker", "--scale",
                                    std::to_string(scale), "--output", edges});
      ASSERT_EQ(gen.exit_code, 0) << describe(gen);
      for (int n : {2, 4}) {
        if (scale != 15 && n != 2) continue;
        const auto part = run_process({bin_dir() + "/tricount-partition", "-i", edges, "-o", block_file(scale, n),
                                       "--parts", std::to_string(n), "-q"});
        ASSERT_EQ(part.exit_code, 0) << describe(part);
      }
    }
    for (const std::string run : {"k15_n2_m1", "k15_n2_m3", "k15_n4_m1", "k15_n4_m3"}) {
      const int n = run[5] - '0';
      const BlockFileReader file(block_file(15, n));
      std::istringstream in(read_file(data_dir() + "/" + run + ".journal"));
      std::ofstream out(journal(run));
      std::string line;
      int number = 0;
      while (std::getline(in, line)) {
        if (++number == 2) {
          line = std::regex_replace(line, std::regex("graph_checksum=[0-9]+"),
                                    "graph_checksum=" + std::to_string(file.header().graph_checksum));
          line = std::regex_replace(line, std::regex("input=.*$"), "input=" + block_file(15, n));
        }
        out << line << "\n";
      }
    }
  }
  static void TearDownTestSuite() { dir_.reset(); }

  static std::string block_file(int scale, int n) { return dir_->file("k" + std::to_string(scale) + ".p" + std::to_string(n) + ".h5"); }
  static std::string journal(const std::string& run) { return dir_->file(run + ".journal"); }
  static std::string report(const std::string& run) { return data_dir() + "/" + run + ".json"; }

  // Fits on the named runs (with their reports and the three Kronecker samples).
  static ProcessResult fit(const std::string& model, const std::vector<std::string>& runs) {
    std::vector<std::string> args = {"--fit", model, "--backend", "cpu", "--device", "test machine"};
    for (const std::string& r : runs) args.insert(args.end(), {"--journal", journal(r), "--report", report(r)});
    for (int s : {13, 14, 15}) args.insert(args.end(), {"--kronecker-sample", std::to_string(s) + "=" + block_file(s, 2)});
    return simulate(args);
  }

  static double measured_seconds(const std::string& run) {
    double total = 0;
    for (const JournalRecord& r : read_journal(journal(run)).records) total += r.seconds;
    return total;
  }

  static inline std::unique_ptr<TempDir> dir_;
};

TEST_F(RecordedRuns, FitOnRecordedJournalsPredictsTheOthersLabelledPredicted) {
  const std::string model = dir_->file("model.json");
  const ProcessResult f = fit(model, {"k15_n2_m1", "k15_n2_m3", "k15_n4_m1"});
  ASSERT_EQ(f.exit_code, 0) << describe(f);
  EXPECT_TRUE(contains(f.out, "fitted on 96 tasks of 3 journals")) << f.out;
  const CostModel m = load_cost_model(model);
  EXPECT_EQ(m.backend, "cpu");
  EXPECT_EQ(m.device, "test machine");
  EXPECT_GT(m.seconds_per_work, 0);
  EXPECT_GT(m.load_seconds_per_byte, 0);
  EXPECT_GT(m.count_r2, 0.2);  // tiny CPU tasks: timing noise, but the work estimate explains a part
  ASSERT_EQ(m.calibrated_on.size(), 6u);
  EXPECT_TRUE(contains(m.calibrated_on[0], "k15_n2_m1.journal"));
  EXPECT_TRUE(contains(m.calibrated_on[5], "kronecker sample 15="));
  ASSERT_TRUE(m.kronecker.fitted);
  EXPECT_GT(m.kronecker.work.slope, m.kronecker.edges.slope);  // work grows faster than the edges

  // The run it has not seen (n = 4, m = 3) on one worker, from its block file.
  const ProcessResult p = simulate({"--model", model, "--input", block_file(15, 4), "--workload-splits", "3",
                                    "--gpus", "1,2,4", "--json", dir_->file("p.json")});
  ASSERT_EQ(p.exit_code, 0) << describe(p);
  EXPECT_TRUE(contains(p.out, "PREDICTED, not measured")) << p.out;
  EXPECT_TRUE(contains(p.out, "calibrated on cpu on test machine")) << p.out;
  EXPECT_TRUE(contains(p.out, "k15_n2_m3.journal")) << p.out;
  const std::string json = read_file(dir_->file("p.json"));
  EXPECT_TRUE(contains(json, "\"label\": \"PREDICTED\"")) << json;
  EXPECT_TRUE(contains(json, "\"calibrated_on\": [")) << json;
  const std::smatch first = [&] {
    std::smatch s;
    std::regex_search(json, s, std::regex("\"predicted_seconds\": ([0-9.e+-]+)"));
    return s;
  }();
  ASSERT_FALSE(first.empty()) << json;
  const double predicted = std::stod(first[1]), measured = measured_seconds("k15_n4_m3");
  EXPECT_NEAR(predicted, measured, 0.5 * measured) << "predicted " << predicted << " s, recorded " << measured << " s";
}

TEST_F(RecordedRuns, PlanPartsFitTheMemoryAndSplitsGiveEnoughTasks) {
  const std::string model = dir_->file("plan-model.json");
  ASSERT_EQ(fit(model, {"k15_n2_m1", "k15_n4_m3"}).exit_code, 0);
  const CostModel m = load_cost_model(model);
  for (const auto& [memory, gpus] : std::vector<std::pair<std::string, int>>{{"64M", 64}, {"8M", 16}, {"1G", 4}}) {
    const ProcessResult p = simulate({"--plan", "--model", model, "--kronecker-scale", "20", "--gpus", std::to_string(gpus),
                                      "--gpu-memory", memory, "--gpus-per-node", "4"});
    ASSERT_EQ(p.exit_code, 0) << describe(p);
    std::smatch s;
    ASSERT_TRUE(std::regex_search(p.out, s, std::regex("PLAN: --parts ([0-9]+) --workload-splits ([0-9]+)"))) << p.out;
    const std::uint32_t n = std::stoul(s[1]), splits = std::stoul(s[2]);
    // The three blocks of a task and the tables fit in 80% of the memory, and every GPU has
    // at least --tasks-per-gpu subtasks (by default tricount-count's auto rule, 4).
    const double budget = 0.8 * double(cli::parse_size(memory, "memory"));
    const double v = m.kronecker.vertices.at(20), e = m.kronecker.edges.at(20);
    const GraphShape shape = synthetic_shape("k20", std::uint64_t(v), std::uint64_t(e), 1, n);
    EXPECT_LE(double(triple_bytes(shape, 2.0)), budget) << memory << " n = " << n;
    EXPECT_GE(std::uint64_t(n) * n * n * splits, std::uint64_t(kAutoTasksPerWorker) * gpus) << p.out;
    EXPECT_TRUE(contains(p.out, "PREDICTED, not measured")) << p.out;
    // One row per GPU count, 1, 2, 4, ... up to --gpus.
    for (int g = 1; g <= gpus; g *= 2) EXPECT_TRUE(std::regex_search(p.out, std::regex("\n +" + std::to_string(g) + " +[0-9]"))) << g;
  }
  // A block file: its size and total work, planned at other parts.
  const ProcessResult from_file = simulate({"--plan", "--model", model, "--input", block_file(15, 2), "--gpus", "4",
                                            "--gpu-memory", "1M"});
  ASSERT_EQ(from_file.exit_code, 0) << describe(from_file);
  EXPECT_TRUE(std::regex_search(from_file.out, std::regex("PLAN: --parts ([3-9]|[1-9][0-9]+) "))) << from_file.out;
  EXPECT_TRUE(contains(from_file.out, "k15.p2.h5")) << from_file.out;
  // Less memory, more parts.
  auto parts_for = [&](const std::string& memory) {
    const ProcessResult p = simulate({"--plan", "--model", model, "--kronecker-scale", "20", "--gpus", "1", "--gpu-memory", memory});
    std::smatch s;
    std::regex_search(p.out, s, std::regex("smallest n whose block triple fits: ([0-9]+)"));
    return s.empty() ? 0 : std::stoi(s[1]);
  };
  EXPECT_GT(parts_for("16M"), parts_for("256M"));
  EXPECT_EQ(parts_for("64G"), 1);
}

// --schedule static (issue 21, resident mode): both phases, count-phase and end-to-end
// efficiency, the plan's n and m whose blocks fit each GPU, and the shape of a --like file.
TEST_F(RecordedRuns, StaticSchedulePredictsBothPhasesAndNamesItsShape) {
  const std::string model = dir_->file("static-model.json");
  ASSERT_EQ(fit(model, {"k15_n2_m1", "k15_n4_m3"}).exit_code, 0);
  // 1. The plan: n and m for the resident mode; synthetic graphs say their tasks are even.
  const std::string json = dir_->file("static-plan.json");
  const ProcessResult plan = simulate({"--plan", "--model", model, "--kronecker-scale", "20", "--gpus", "16", "--gpu-memory",
                                       "256M", "--schedule", "static", "--json", json});
  ASSERT_EQ(plan.exit_code, 0) << describe(plan);
  EXPECT_TRUE(contains(plan.out, "PREDICTED, not measured, STATIC schedule")) << plan.out;
  EXPECT_TRUE(contains(plan.out, "resident (static schedule)")) << plan.out;
  EXPECT_TRUE(contains(plan.out, "even tasks and blocks")) << plan.out;
  EXPECT_TRUE(contains(plan.out, "count_eff")) << plan.out;
  EXPECT_TRUE(std::regex_search(plan.out, std::regex(R"(\n +1 +[0-9.]+ +1\.000 )"))) << "one GPU: count efficiency 1\n" << plan.out;
  EXPECT_TRUE(std::regex_search(plan.out, std::regex(R"(\n +16 +[0-9.]+ +[01]\.[0-9]+ .* yes +[0-9.]+\n)"))) << plan.out;
  const std::string report = read_file(json);
  EXPECT_TRUE(contains(report, "\"scheduling\": \"static\"")) << report;
  EXPECT_EQ(json_numbers(report, "count_phase_seconds").size(), 5u) << "1, 2, 4, 8, 16 GPUs";
  for (double e : json_numbers(report, "count_efficiency")) EXPECT_LE(e, 1.0 + 1e-9);
  // 2. A --like file at the predicted n gives its shape (and says so); at another n, even tasks.
  const ProcessResult like = simulate({"--model", model, "--kronecker-scale", "20", "--parts", "4", "--gpus", "1,4",
                                       "--schedule", "static", "--like", block_file(15, 4), "--like", block_file(15, 2)});
  ASSERT_EQ(like.exit_code, 0) << describe(like);
  EXPECT_TRUE(contains(like.out, "task and block shape of '" + block_file(15, 4) + "'")) << like.out;
  const ProcessResult other_n = simulate({"--model", model, "--kronecker-scale", "20", "--parts", "8", "--gpus", "1,4",
                                          "--schedule", "static", "--like", block_file(15, 4)});
  ASSERT_EQ(other_n.exit_code, 0) << describe(other_n);
  EXPECT_TRUE(contains(other_n.out, "even tasks and blocks")) << other_n.out;
}

// A block file is predicted at the parts tricount-count counts it as (--count-parts, issue
// 28): its count blocks are the blocks of the file partitioned at those parts, its work the
// same, its loads its own blocks' bytes; auto follows --gpu-memory for a GPU model and keeps
// the file's n for a CPU model.
TEST_F(RecordedRuns, ABlockFileIsPredictedAtThePartsItIsCountedAs) {
  const GraphShape four = file_shape(block_file(15, 4)), two = file_shape(block_file(15, 2));
  const GraphShape counted = count_parts_shape(four, 2);
  EXPECT_EQ(counted.parts, 2u);
  EXPECT_EQ(counted.block_bytes, two.block_bytes);
  EXPECT_EQ(counted.subtask_work.size(), 8u);
  EXPECT_EQ(counted.total_work(), four.total_work());
  const auto sum = [](const std::vector<std::uint64_t>& v) { return std::accumulate(v.begin(), v.end(), std::uint64_t{0}); };
  EXPECT_EQ(sum(counted.loaded_bytes()), sum(four.loaded_bytes()));
  EXPECT_TRUE(contains(counted.description, "counted as 2 parts")) << counted.description;
  EXPECT_EQ(count_parts_shape(four, 4).block_bytes, four.block_bytes);
  EXPECT_THROW(count_parts_shape(four, 3), UsageError);

  const std::string model = dir_->file("count-parts-model.json");
  ASSERT_EQ(fit(model, {"k15_n2_m1", "k15_n4_m1"}).exit_code, 0);
  const ProcessResult given = simulate({"--model", model, "--input", block_file(15, 4), "--count-parts", "2", "--gpus", "1,2"});
  ASSERT_EQ(given.exit_code, 0) << describe(given);
  EXPECT_TRUE(contains(given.out, "counted as 2 parts")) << given.out;
  EXPECT_TRUE(contains(given.out, "--parts 2 ")) << given.out;
  const ProcessResult cpu = simulate({"--model", model, "--input", block_file(15, 4), "--gpus", "1,2", "--gpu-memory", "64G"});
  ASSERT_EQ(cpu.exit_code, 0) << describe(cpu);
  EXPECT_TRUE(contains(cpu.out, "--parts 4 ")) << cpu.out;
  EXPECT_FALSE(contains(cpu.out, "counted as")) << cpu.out;
  // The same model as a GPU's: auto counts the file as one part where its blocks fit.
  const std::string gpu_model = dir_->file("count-parts-gpu-model.json");
  std::ofstream(gpu_model) << std::regex_replace(read_file(model), std::regex("\"backend\": \"cpu\""), "\"backend\": \"cuda\"");
  const ProcessResult fits = simulate({"--model", gpu_model, "--input", block_file(15, 4), "--gpus", "1,2", "--gpu-memory", "64G"});
  ASSERT_EQ(fits.exit_code, 0) << describe(fits);
  EXPECT_TRUE(contains(fits.out, "counted as 1 part")) << fits.out;
  EXPECT_TRUE(contains(fits.out, "--parts 1 ")) << fits.out;
  const ProcessResult no_memory = simulate({"--model", gpu_model, "--input", block_file(15, 4), "--gpus", "1,2"});
  ASSERT_EQ(no_memory.exit_code, 0) << describe(no_memory);
  EXPECT_TRUE(contains(no_memory.out, "--parts 4 ")) << no_memory.out;
  // A given m still gives every GPU a task: 8 GPUs at m = 1 need 2 parts (8 subtasks).
  const ProcessResult eight = simulate({"--model", gpu_model, "--input", block_file(15, 4), "--gpus", "8", "--gpu-memory", "64G",
                                        "--workload-splits", "1"});
  ASSERT_EQ(eight.exit_code, 0) << describe(eight);
  EXPECT_TRUE(contains(eight.out, "counted as 2 parts")) << eight.out;
}

// A journal of a file counted as fewer parts (tricount-count --count-parts) names the file of
// more parts: the replay and the fit take each count block's loads as its file blocks' bytes,
// and a journal whose parts do not divide the file's is refused.
TEST_F(RecordedRuns, JournalsOfAFileCountedAsFewerPartsReplayAndFit) {
  const std::string journal = dir_->file("count-parts.journal");
  std::filesystem::remove(journal);
  const ProcessResult c = run_process(mpi_command(2, bin_dir() + "/tricount-count",
                                                  {"--input", block_file(15, 4), "--backend", "cpu", "--threads", "1",
                                                   "--count-parts", "2", "--workload-splits", "2", "--journal", journal, "-q"}),
                                      120);
  ASSERT_EQ(c.exit_code, 0) << describe(c);
  ASSERT_TRUE(contains(read_file(journal), "parts=2 ")) << read_file(journal);
  const ProcessResult replay = simulate({"--journal", journal, "--workers", "1,2"});
  ASSERT_EQ(replay.exit_code, 0) << describe(replay);
  EXPECT_TRUE(contains(replay.out, "reads the blocks it uses at the measured")) << replay.out;
  const ProcessResult fitted = simulate({"--fit", dir_->file("count-parts-fit.json"), "--journal", journal, "--backend", "cpu"});
  ASSERT_EQ(fitted.exit_code, 0) << describe(fitted);
  EXPECT_TRUE(contains(fitted.out, "fitted on 16 tasks of 1 journals")) << fitted.out;
  // The same journal against the 2-part file of the same graph: other content, refused.
  const ProcessResult other = simulate({"--journal", journal, "--input", block_file(15, 2), "--workers", "1"});
  EXPECT_EQ(other.exit_code, 1) << describe(other);
  EXPECT_TRUE(contains(other.err, "is not the graph of journal")) << other.err;
}

struct BadCase {
  const char* name;
  std::vector<std::string> args;  // MODEL: a valid model file; NOFAMILY: one without Kronecker samples
  int exit_code;
  const char* mentions;
};
void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class SimulateRefuses : public RecordedRuns, public ::testing::WithParamInterface<BadCase> {};

TEST_P(SimulateRefuses, WithAClearError) {
  const BadCase& c = GetParam();
  const std::string model = dir_->file("bad-case-model.json"), bare = dir_->file("bare-model.json");
  if (!fs::exists(model)) ASSERT_EQ(fit(model, {"k15_n2_m1"}).exit_code, 0);
  if (!fs::exists(bare)) ASSERT_EQ(simulate({"--fit", bare, "--journal", journal("k15_n2_m1")}).exit_code, 0);
  std::ofstream(dir_->file("torn.json")) << "{\"tricount_cost_model\": 1, \"backend\": \"cp";
  std::vector<std::string> args;
  for (const std::string& a : c.args)
    args.push_back(a == "MODEL" ? model : a == "NOFAMILY" ? bare : a == "TORN" ? dir_->file("torn.json")
                   : a == "J1" ? journal("k15_n2_m1") : a == "R1" ? report("k15_n2_m1") : a == "K15P4" ? block_file(15, 4) : a);
  const ProcessResult r = simulate(args);
  EXPECT_EQ(r.exit_code, c.exit_code) << describe(r);
  EXPECT_TRUE(contains(r.err, "tricount-simulate: error:")) << describe(r);
  EXPECT_TRUE(contains(r.err, c.mentions)) << "expected '" << c.mentions << "'\n" << describe(r);
}

const std::vector<BadCase> kBadCases = {
    {"PlanWithoutModel", {"--plan", "--kronecker-scale", "20", "--gpus", "8", "--gpu-memory", "1G"}, 2, "--plan needs --model"},
    {"PlanWithoutMemory", {"--plan", "--model", "MODEL", "--kronecker-scale", "20", "--gpus", "8"}, 2, "--gpu-memory"},
    {"PlanWithSeveralGpuCounts", {"--plan", "--model", "MODEL", "--kronecker-scale", "20", "--gpus", "8,16", "--gpu-memory", "1G"}, 2, "one number"},
    {"PlanHeadroomAboveOne", {"--plan", "--model", "MODEL", "--kronecker-scale", "20", "--gpus", "8", "--gpu-memory", "1G", "--memory-headroom", "1.5"}, 2, "--memory-headroom"},
    {"ModelWithoutGraph", {"--model", "MODEL", "--gpus", "1"}, 2, "exactly one graph"},
    {"ModelWithTwoGraphs", {"--model", "MODEL", "--kronecker-scale", "20", "--edges", "100", "--vertices", "20", "--gpus", "1"}, 2, "exactly one graph"},
    {"ModelWithoutParts", {"--model", "MODEL", "--kronecker-scale", "20", "--gpus", "1"}, 2, "--parts"},
    {"ScaleOutOfRange", {"--model", "MODEL", "--kronecker-scale", "40", "--parts", "4", "--gpus", "1"}, 2, "--kronecker-scale"},
    {"EdgesWithoutVertices", {"--model", "MODEL", "--edges", "1000", "--parts", "4", "--gpus", "1"}, 2, "--vertices"},
    {"MoreEdgesThanASimpleGraphHolds", {"--model", "MODEL", "--edges", "1000", "--vertices", "10", "--parts", "2", "--gpus", "1"}, 2, "simple graph"},
    {"UnknownFamily", {"--model", "MODEL", "--edges", "1000", "--vertices", "100", "--family", "powerlaw", "--parts", "2", "--gpus", "1"}, 2, "powerlaw"},
    {"UnknownBlockEncoding", {"--model", "MODEL", "--kronecker-scale", "20", "--parts", "2", "--gpus", "1", "--block-encoding", "zip"}, 2, "csr or packed"},
    {"ScaleWithoutFamilyFit", {"--model", "NOFAMILY", "--kronecker-scale", "20", "--parts", "4", "--gpus", "1"}, 2, "--kronecker-sample"},
    {"BadSchedule", {"--model", "MODEL", "--kronecker-scale", "20", "--parts", "4", "--gpus", "1", "--schedule", "lpt"}, 2, "--schedule: 'lpt'"},
    {"LikeWithInput", {"--model", "MODEL", "--input", "MODEL", "--parts", "4", "--gpus", "1", "--like", "MODEL"}, 2, "--like"},
    {"BadBandwidth", {"--model", "MODEL", "--kronecker-scale", "20", "--parts", "4", "--gpus", "1", "--network", "5X"}, 2, "--network"},
    {"BadGpuList", {"--model", "MODEL", "--kronecker-scale", "20", "--parts", "4", "--gpus", "1,x"}, 2, "'x'"},
    {"DamagedModel", {"--model", "TORN", "--kronecker-scale", "20", "--parts", "4", "--gpus", "1"}, 1, "torn.json"},
    {"MissingModel", {"--model", "/nonexistent/model.json", "--kronecker-scale", "20", "--parts", "4", "--gpus", "1"}, 1, "/nonexistent/model.json"},
    {"FitWithoutJournal", {"--fit", "out.json"}, 2, "--journal"},
    {"FitReportsNotOnePerJournal", {"--fit", "out.json", "--journal", "J1", "--report", "R1", "--report", "R1"}, 2, "one per --journal"},
    {"FitBadSample", {"--fit", "out.json", "--journal", "J1", "--kronecker-sample", "twenty=x.h5"}, 2, "SCALE=BLOCKFILE"},
    {"FitReportNotACountReport", {"--fit", "out.json", "--journal", "J1", "--report", "J1"}, 1, "per_rank"},
    {"ReplayTwoJournals", {"--journal", "J1", "--journal", "J1"}, 2, "one --journal"},
    {"CountPartsNotADivisor", {"--model", "MODEL", "--input", "K15P4", "--count-parts", "3", "--gpus", "1"}, 2, "--count-parts"},
    {"CountPartsZero", {"--model", "MODEL", "--input", "K15P4", "--count-parts", "0", "--gpus", "1"}, 2, "--count-parts"},
    {"CountPartsOfASize", {"--model", "MODEL", "--kronecker-scale", "20", "--parts", "4", "--count-parts", "2", "--gpus", "1"}, 2, "--count-parts"},
};

INSTANTIATE_TEST_SUITE_P(cli, SimulateRefuses, ::testing::ValuesIn(kBadCases),
                         [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

// Usage errors with exit 2, "tricount-simulate: error: ..." naming the culprit (the
// programs' common table, tests/test_support.hpp).
class Usage : public ::testing::TestWithParam<UsageCase> {};

TEST_P(Usage, ExitsTwoWithMessage) { expect_usage_error(GetParam()); }

const std::vector<UsageCase> kUsageCases = {
    {"SimulateTooManyWorkers", "simulate", {"--journal", "x.journal", "--max-workers", "100000000"}, "--workers"},
    {"SimulateWorkerCountTooLarge", "simulate", {"--journal", "x.journal", "--workers", "1,100000000"}, "100000000"},
};

INSTANTIATE_TEST_SUITE_P(cli, Usage, ::testing::ValuesIn(kUsageCases),
                         [](const ::testing::TestParamInfo<UsageCase>& info) { return std::string(info.param.name); });

// A journal whose block file is gone: the fit names both and says what it needs.
// A journal of a run that did not finish replays the tasks it has, with a warning that says
// how many of the run's tasks those are; one with no task at all is an error.
TEST_F(RecordedRuns, AReplayOfAnUnfinishedRunSaysSo) {
  const ProcessResult whole = simulate({"--journal", journal("k15_n2_m1"), "--workers", "1,2", "--no-loads"});
  ASSERT_EQ(whole.exit_code, 0) << describe(whole);
  EXPECT_FALSE(contains(whole.err, "warning")) << whole.err;
  std::istringstream in(read_file(journal("k15_n2_m1")));
  std::string line, head, part;
  for (int number = 1; std::getline(in, line); ++number) {
    if (number <= 2) head += line + "\n";
    if (number <= 4) part += line + "\n";
  }
  std::ofstream(dir_->file("part.journal")) << part;
  const ProcessResult r = simulate({"--journal", dir_->file("part.journal"), "--workers", "1,2", "--no-loads"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "records 2 of its run's 8 tasks (a run that did not finish)")) << r.err;
  std::ofstream(dir_->file("head.journal")) << head;
  const ProcessResult none = simulate({"--journal", dir_->file("head.journal"), "--workers", "1,2", "--no-loads"});
  EXPECT_EQ(none.exit_code, 1) << describe(none);
  EXPECT_TRUE(contains(none.err, "records no task: nothing to replay")) << none.err;
}

TEST_F(RecordedRuns, FitRefusesAJournalWhoseBlockFileIsGone) {
  const std::string moved = dir_->file("moved.journal");
  std::string text = read_file(journal("k15_n2_m1"));
  text = std::regex_replace(text, std::regex("input=[^\n]*"), "input=" + dir_->file("gone.h5"));
  std::ofstream(moved) << text;
  const ProcessResult r = simulate({"--fit", dir_->file("never.json"), "--journal", moved});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "moved.journal")) << r.err;
  EXPECT_TRUE(contains(r.err, "gone.h5")) << r.err;
  EXPECT_FALSE(fs::exists(dir_->file("never.json")));
}

}  // namespace
}  // namespace tricount
