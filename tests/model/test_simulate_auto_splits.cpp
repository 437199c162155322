// tricount-simulate --workload-splits auto: the m tricount-count's auto picks at the most
// --gpus (one rule, src/task_plan.hpp), and auto is the default as in tricount-count;
// --auto-splits prints that m alone (for slurm/study.sbatch).
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "model/cost_model.hpp"
#include "src/task_plan.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

TEST(SimulateSplits, AutoIsTheCountsChoiceAtTheMostGpus) {
  TempDir dir;
  const std::string txt = dir.file("g.txt");
  write_text_edges(txt, random_graph(500, 4000, 5));
  const std::string h5 = dir.file("g.h5");
  const ProcessResult part =
      run_process({bin_dir() + "/tricount-partition", "--input", txt, "--output", h5, "--parts", "1", "-q"}, 120);
  ASSERT_EQ(part.exit_code, 0) << describe(part);
  CostModel model;
  model.backend = "cpu", model.device = "test", model.storage = "page cache";
  model.seconds_per_work = 1e-9, model.load_seconds_per_byte = 1e-10;
  model.calibrated_on = {"by hand"};
  const std::string path = dir.file("model.json");
  save_cost_model(model, path);
  auto splits_of = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {bin_dir() + "/tricount-simulate", "--model", path, "--input", h5};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const ProcessResult r = run_process(argv, 120);
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    std::smatch m;
    return std::regex_search(r.out, m, std::regex("--workload-splits ([0-9]+)")) ? std::stoi(m[1]) : -1;
  };
  EXPECT_EQ(splits_of({"--gpus", "1,2,4", "--workload-splits", "auto"}), int(auto_workload_splits(1, 4)));
  EXPECT_EQ(splits_of({"--gpus", "1,2,4"}), int(auto_workload_splits(1, 4)));  // the default
  EXPECT_EQ(splits_of({"--gpus", "1"}), 1);
  EXPECT_EQ(splits_of({"--gpus", "1,2", "--workload-splits", "3"}), 3);
  const ProcessResult bad = run_process({bin_dir() + "/tricount-simulate", "--model", path, "--input", h5, "--gpus", "2",
                                         "--workload-splits", "some"},
                                        120);
  EXPECT_EQ(bad.exit_code, 2) << describe(bad);
  EXPECT_NE(bad.err.find("--workload-splits"), std::string::npos) << describe(bad);
}

// --auto-splits: the rule's m for a block file's parts or for --parts, and nothing else.
TEST(SimulateSplits, AutoSplitsPrintsTheRulesM) {
  TempDir dir;
  const std::string h5 = make_block_file(dir, 2);
  auto m_of = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {bin_dir() + "/tricount-simulate", "--auto-splits"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const ProcessResult r = run_process(argv, 120);
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    return r.out;
  };
  EXPECT_EQ(m_of({"--input", h5, "--gpus", "12"}), std::to_string(auto_workload_splits(2, 12)) + "\n");
  EXPECT_EQ(m_of({"--parts", "1", "--gpus", "4"}), "4\n");
  EXPECT_EQ(m_of({"--parts", "4", "--workers", "48"}), std::to_string(auto_workload_splits(4, 48)) + "\n");
  EXPECT_EQ(m_of({"--parts", "3", "--gpus", "1"}), "1\n");
  // Counted as fewer parts, the m of those parts.
  EXPECT_EQ(m_of({"--input", h5, "--count-parts", "1", "--gpus", "12"}), std::to_string(auto_workload_splits(1, 12)) + "\n");
  EXPECT_EQ(m_of({"--parts", "4", "--count-parts", "2", "--gpus", "48"}), std::to_string(auto_workload_splits(2, 48)) + "\n");
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"--gpus", "4"}, {"--parts", "2", "--input", h5, "--gpus", "4"}, {"--parts", "2"}, {"--parts", "2", "--gpus", "2,4"},
           {"--parts", "0", "--gpus", "2"}, {"--input", dir.file("missing.h5"), "--gpus", "2"},
           {"--input", h5, "--count-parts", "3", "--gpus", "2"}}) {
    std::vector<std::string> argv = {bin_dir() + "/tricount-simulate", "--auto-splits"};
    argv.insert(argv.end(), bad.begin(), bad.end());
    const ProcessResult r = run_process(argv, 120);
    EXPECT_NE(r.exit_code, 0) << describe(r);
    EXPECT_TRUE(r.out.empty()) << describe(r);
    EXPECT_FALSE(r.err.empty()) << describe(r);
  }
}

// --auto-count-parts: the parts tricount-count's --count-parts auto counts a block file as
// (the rule itself: test_task_plan), and nothing else.
TEST(SimulateSplits, AutoCountPartsPrintsTheRulesParts) {
  TempDir dir;
  const std::string h5 = make_block_file(dir, 4);
  auto run = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {bin_dir() + "/tricount-simulate", "--auto-count-parts"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_process(argv, 120);
  };
  auto parts_of = [&](const std::vector<std::string>& extra) {
    const ProcessResult r = run(extra);
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    return r.out;
  };
  EXPECT_EQ(parts_of({"--input", h5, "--gpus", "4", "--gpu-memory", "64G"}), "1\n");             // fits: one part
  EXPECT_EQ(parts_of({"--input", h5, "--gpus", "4", "--gpu-memory", "1K"}), "4\n");              // nothing fits: the file's
  EXPECT_EQ(parts_of({"--input", h5, "--gpus", "8", "--gpu-memory", "64G", "--workload-splits", "1"}), "2\n");  // 8 tasks
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"--input", h5, "--gpus", "4"}, {"--parts", "4", "--gpus", "4", "--gpu-memory", "64G"},
           {"--input", h5, "--gpu-memory", "64G"}, {"--input", h5, "--gpus", "4", "--gpu-memory", "lots"}}) {
    const ProcessResult r = run(bad);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(r.out.empty()) << describe(r);
    EXPECT_FALSE(r.err.empty()) << describe(r);
  }
}

}  // namespace
