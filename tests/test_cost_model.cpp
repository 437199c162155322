// The cost model: the fit recovers the rates a journal was made with, survives its JSON file,
// refuses what it cannot use, and the plan's choices (parts whose triple fits the GPU's
// memory; splits that give every GPU enough tasks).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "scheduler/cost_model.hpp"
#include "src/task_plan.hpp"
#include "test_support.hpp"

namespace tricount {
namespace {

using testing::TempDir;

// A one-rank run at n parts and m splits of a graph whose blocks hold `block_bytes` each,
// made with known rates: task seconds = overhead + rate * estimate + load per byte read first.
MeasuredRun run_with_rates(std::uint32_t n, std::uint32_t m, double overhead, double rate, double load_per_byte,
                           double upload_per_byte, double row_rate = 0) {
  MeasuredRun run;
  run.journal_path = "made-n" + std::to_string(n) + "-m" + std::to_string(m);
  run.journal.identity = {7, n, m, 1000, 1000, "x"};
  const TaskPlan plan(n, m);
  run.block_bytes.resize(std::size_t(n) * n);
  for (std::size_t b = 0; b < run.block_bytes.size(); ++b) run.block_bytes[b] = 1000 + 37 * b;
  std::vector<bool> held(run.block_bytes.size(), false);
  std::uint64_t all_bytes = 0;
  for (std::uint64_t id = 0; id < plan.num_tasks(); ++id) {
    const Task t = plan.decode(id);
    std::uint64_t bytes = 0;
    for (const BlockId& b : {t.hash_block(), t.one_hop_block(), t.two_hop_block()}) {
      const std::size_t at = std::size_t(b.row_class) * n + b.col_class;
      if (!held[at]) held[at] = true, bytes += run.block_bytes[at];
    }
    all_bytes += bytes;
    const double estimate = 100.0 + 17.0 * double((t.i * 3 + t.j * 5 + t.k * 7) % 11) + t.split;
    const double load = load_per_byte * double(bytes);
    const double rows = double(rows_in_class(1000, n, t.i));
    run.journal.records.push_back(
        {id, 0, overhead + rate * estimate + row_rate * rows + load + upload_per_byte * double(bytes), 1, estimate, load});
  }
  run.transfer_seconds = upload_per_byte * double(all_bytes);
  run.transfer_bytes = all_bytes;
  return run;
}

TEST(CostModel, FitRecoversKnownRates) {
  const std::vector<MeasuredRun> runs = {run_with_rates(2, 3, 0.002, 1e-5, 2e-10, 5e-11),
                                         run_with_rates(4, 1, 0.002, 1e-5, 2e-10, 5e-11)};
  const CostModel m = fit_cost_model(runs, "cpu", "test machine", "page cache");
  EXPECT_NEAR(m.task_overhead_seconds, 0.002, 1e-9);
  EXPECT_NEAR(m.seconds_per_work, 1e-5, 1e-12);
  EXPECT_NEAR(m.load_seconds_per_byte, 2e-10, 1e-16);
  EXPECT_NEAR(m.upload_seconds_per_byte, 5e-11, 1e-17);
  EXPECT_NEAR(m.count_r2, 1.0, 1e-9);
  EXPECT_LT(m.count_total_relative_error, 1e-9);
  EXPECT_EQ(m.tasks_fitted, 2u * 2 * 2 * 3 + 4u * 4 * 4);
  ASSERT_EQ(m.calibrated_on.size(), 2u);
  EXPECT_EQ(m.calibrated_on[0], "made-n2-m3");

  // A cost per row of the task's class (each split walks them all): rows differ with n.
  const std::vector<MeasuredRun> with_rows = {run_with_rates(2, 3, 0.002, 1e-5, 2e-10, 0, 4e-6),
                                              run_with_rates(5, 1, 0.002, 1e-5, 2e-10, 0, 4e-6)};
  const CostModel r = fit_cost_model(with_rows, "cpu", "test machine", "page cache");
  EXPECT_NEAR(r.task_overhead_seconds, 0.002, 1e-8);
  EXPECT_NEAR(r.seconds_per_work, 1e-5, 1e-11);
  EXPECT_NEAR(r.seconds_per_row, 4e-6, 1e-11);
  EXPECT_NEAR(r.count_r2, 1.0, 1e-9);
}

TEST(CostModel, RefusesJournalWithoutLoadColumnOrTasks) {
  MeasuredRun old = run_with_rates(2, 1, 0, 1e-5, 1e-10, 0);
  for (JournalRecord& r : old.journal.records) r.load_seconds = -1;
  try {
    fit_cost_model({old}, "cpu", "x", "page cache");
    FAIL() << "a journal without the load column was fitted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("made-n2-m1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no load column"), std::string::npos) << e.what();
  }
  MeasuredRun empty = run_with_rates(2, 1, 0, 1e-5, 1e-10, 0);
  empty.journal.records.clear();
  EXPECT_THROW(fit_cost_model({empty}, "cpu", "x", "page cache"), Error);
  EXPECT_THROW(fit_cost_model({}, "cpu", "x", "page cache"), UsageError);
  MeasuredRun wrong_blocks = run_with_rates(2, 1, 0, 1e-5, 1e-10, 0);
  wrong_blocks.block_bytes.pop_back();
  EXPECT_THROW(fit_cost_model({wrong_blocks}, "cpu", "x", "page cache"), Error);
}

TEST(CostModel, SavesAndLoadsItsJsonFile) {
  CostModel m = fit_cost_model({run_with_rates(2, 2, 0.001, 3e-6, 1e-10, 2e-11)}, "cuda", "NVIDIA \"H200\"", "local disk");
  m.kronecker = fit_kronecker_family({{16, 50000, 1000000, 30000000, 4000000, 8}, {18, 180000, 4200000, 150000000, 20000000, 8}});
  TempDir dir;
  save_cost_model(m, dir.file("model.json"));
  const CostModel back = load_cost_model(dir.file("model.json"));
  EXPECT_EQ(back.device, "NVIDIA \"H200\"");
  EXPECT_EQ(back.storage, "local disk");
  EXPECT_NEAR(back.seconds_per_work / m.seconds_per_work, 1, 1e-8);
  EXPECT_NEAR(back.load_seconds_per_byte / m.load_seconds_per_byte, 1, 1e-8);
  EXPECT_EQ(back.calibrated_on, m.calibrated_on);
  ASSERT_TRUE(back.kronecker.fitted);
  EXPECT_EQ(back.kronecker.scales, (std::vector<int>{16, 18}));
  EXPECT_NEAR(back.kronecker.edges.at(17), std::sqrt(1000000.0 * 4200000.0), 1);
  EXPECT_NEAR(back.kronecker.max_task_over_mean, 20000000.0 * 8 / 150000000.0, 1e-6);

  // A damaged or foreign file is refused naming the file and what is wrong.
  std::ofstream(dir.file("bad.json")) << "{\"tricount_cost_model\": 1, \"backend\": \"cuda\"}";
  try {
    load_cost_model(dir.file("bad.json"));
    FAIL() << "an incomplete model loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'device'"), std::string::npos) << e.what();
  }
  std::ofstream(dir.file("torn.json")) << "{\"tricount_cost_model\": 1, \"backend\": \"cu";
  EXPECT_THROW(load_cost_model(dir.file("torn.json")), Error);
  EXPECT_THROW(load_cost_model(dir.file("missing.json")), Error);
}

TEST(CostModel, PredictsTheRunItWasFittedOnAndScalesWithGpus) {
  const MeasuredRun run = run_with_rates(4, 2, 0.001, 1e-5, 1e-9, 0);
  const CostModel m = fit_cost_model({run}, "cpu", "x", "page cache");
  GraphShape shape;
  shape.parts = 4;
  shape.block_bytes = run.block_bytes;
  const TaskPlan plan(4, 2);
  shape.subtask_work.assign(64, 0);
  for (const JournalRecord& r : run.journal.records) shape.subtask_work[r.task / 2] += static_cast<std::uint64_t>(r.estimate);
  MachineParameters machine;
  machine.network_bytes_per_second = machine.file_system_bytes_per_second = 1e18;  // the measured rate binds
  const std::vector<PredictedPoint> p = predict_runs(m, shape, 2, {1, 2, 8}, machine);
  double measured = 0, measured_load = 0;
  for (const JournalRecord& r : run.journal.records) measured += r.seconds, measured_load += r.load_seconds;
  ASSERT_EQ(p.size(), 3u);
  EXPECT_NEAR(p[0].seconds, measured, 1e-3 * measured);  // estimates split over m: up to 0.5 work lost per task
  EXPECT_NEAR(p[0].load_seconds, measured_load, 1e-9 * measured_load);
  EXPECT_LT(p[1].seconds, p[0].seconds);
  EXPECT_GT(p[2].speedup, 2.0);
  EXPECT_LE(p[2].efficiency, 1.0 + 1e-9);
  EXPECT_GT(p[2].max_bytes_per_gpu, 0u);
  EXPECT_LE(p[2].max_bytes_per_gpu, p[0].max_bytes_per_gpu);
  // A slow shared file system binds the load rate of many GPUs.
  machine.file_system_bytes_per_second = 1e6;
  const std::vector<PredictedPoint> slow = predict_runs(m, shape, 2, {8}, machine);
  EXPECT_DOUBLE_EQ(slow[0].load_seconds_per_byte, 8 / 1e6);
  EXPECT_GT(slow[0].seconds, p[2].seconds);
}

TEST(Plan, SplitsGiveEveryGpuEnoughTasks) {
  PlanRequest r;
  r.tasks_per_gpu = 8;
  r.gpus = 1024;
  EXPECT_EQ(splits_for(16, r), 2u);  // 4096 subtasks, 8192 wanted
  EXPECT_EQ(splits_for(32, r), 1u);
  EXPECT_EQ(splits_for(4, r), 128u);
  r.gpus = 1 << 16;
  EXPECT_EQ(splits_for(1, r), kMaxWorkloadSplits);  // capped
  for (std::uint32_t n : {1u, 3u, 8u, 20u}) {
    r.gpus = 100;
    EXPECT_GE(std::uint64_t(n) * n * n * splits_for(n, r), 800u) << n;
  }
}

TEST(Plan, TripleBytesCountTheThreeBlocksAndTheTables) {
  const GraphShape g = synthetic_shape("g", 1000, 40000, 1000000, 4);
  // 4 x 4 blocks of 2500 neighbours; rows of class 0: 250 (+1 offsets).
  EXPECT_EQ(g.block_bytes[0], 251u * 8 + 2500u * 4);
  EXPECT_EQ(g.total_work(), 64u * (1000000 / 64));
  EXPECT_EQ(triple_bytes(g, 2.0), 5 * g.block_bytes[0]);
  EXPECT_EQ(triple_bytes(g, 0.0), 3 * g.block_bytes[0]);
  EXPECT_THROW(synthetic_shape("g", 1000, 40000, 1, 0), UsageError);
}

}  // namespace
}  // namespace tricount
