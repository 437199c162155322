// The simulator (a journal's measured task costs replayed through the scheduling policy at
// other worker counts), without MPI.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "model/simulate.hpp"
#include "scheduler/journal.hpp"
#include "src/task_plan.hpp"

using namespace tricount;

TEST(Simulator, ReplaysCostsThroughTheSchedulingPolicy) {
  JournalContents j;
  j.identity = {1, 2, 1, 10, 10, "x"};
  // 8 tasks: costs 4,3,3,2,2,1,1,0 (estimates equal to costs).
  const double costs[8] = {4, 3, 3, 2, 2, 1, 1, 0.5};
  for (std::uint64_t t = 0; t < 8; ++t) j.records.push_back({t, 0, costs[t], 1, costs[t]});
  const SimulationPoint one = simulate_schedule(j, 1);
  EXPECT_DOUBLE_EQ(one.predicted_seconds, 16.5);
  EXPECT_DOUBLE_EQ(one.speedup, 1.0);
  const SimulationPoint two = simulate_schedule(j, 2);
  // LPT: {4,2,2} {3,3,1,1}... makespan 8.5 or less
  EXPECT_LE(two.predicted_seconds, 8.5);
  EXPECT_GE(two.predicted_seconds, 8.25);
  const SimulationPoint many = simulate_schedule(j, 16);
  EXPECT_DOUBLE_EQ(many.predicted_seconds, 4.0);
  EXPECT_EQ(many.imbalance, 0.0);  // some workers got nothing
}

// With block loads modelled, each virtual worker pays for the blocks it uses: one worker
// reads each block once, two read the blocks they share twice.
TEST(Simulator, ChargesBlockReadsPerVirtualWorker) {
  JournalContents j;
  j.identity = {1, 2, 1, 10, 10, "x"};  // n = 2: 8 tasks, 4 blocks of 100 bytes
  const TaskPlan plan(2, 1);
  const std::vector<std::uint64_t> bytes(4, 100);
  std::vector<bool> read(4, false);
  double loads_total = 0;
  for (std::uint64_t t = 0; t < 8; ++t) {  // measured on one rank: 1 s of counting, 1 s per block read first
    const Task task = plan.decode(t);
    double load = 0;
    for (const BlockId& b : {task.hash_block(), task.one_hop_block(), task.two_hop_block()}) {
      const std::size_t k = std::size_t(b.row_class) * 2 + b.col_class;
      if (!read[k]) read[k] = true, load += 1.0;
    }
    loads_total += load;
    j.records.push_back({t, 0, 1.0 + load, 1, 1.0, load});
  }
  ASSERT_DOUBLE_EQ(loads_total, 4.0);
  const std::optional<BlockLoads> loads = measured_block_loads(j, bytes);
  ASSERT_TRUE(loads.has_value());
  EXPECT_DOUBLE_EQ(loads->seconds_per_byte, 0.01);

  const SimulationPoint one = simulate_schedule(j, 1, 0, &*loads);
  EXPECT_DOUBLE_EQ(one.predicted_seconds, 12.0);  // 8 counts + 4 block reads
  EXPECT_DOUBLE_EQ(one.speedup, 1.0);
  const SimulationPoint two = simulate_schedule(j, 2, 0, &*loads);
  const SimulationPoint two_replayed = simulate_schedule(j, 2);
  // Each worker counts 4 tasks and reads at least the 3 blocks of its first task.
  EXPECT_GE(two.predicted_seconds, 7.0);
  EXPECT_GT(two.predicted_seconds, two_replayed.predicted_seconds - 1e-9);
  EXPECT_DOUBLE_EQ(two.speedup, 12.0 / two.predicted_seconds);

  // Without the load column there is nothing to model.
  JournalContents old = j;
  for (JournalRecord& r : old.records) r.load_seconds = -1;
  EXPECT_FALSE(measured_block_loads(old, bytes).has_value());
}

// The static schedule in the simulator: each worker first loads every block of its tasks
// (the load phase), then counts its share (the count phase lasts as long as the largest).
TEST(Simulator, StaticScheduleSeparatesTheLoadAndCountPhases) {
  JournalContents j;
  j.identity = {1, 2, 2, 10, 10, "x"};  // n = 2, m = 2: 16 tasks, 4 blocks of 100 bytes
  for (std::uint64_t t = 0; t < 16; ++t) j.records.push_back({t, 0, 1.0, 1, 1.0, 0.0});
  const BlockLoads loads{std::vector<std::uint64_t>(4, 100), 0.01};  // 1 s per block
  const StaticSimulationPoint one = simulate_static(j, 1, &loads);
  EXPECT_DOUBLE_EQ(one.count_phase_seconds, 16.0);
  EXPECT_DOUBLE_EQ(one.load_phase_seconds, 4.0);  // every block once
  EXPECT_DOUBLE_EQ(one.count_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(one.efficiency, 1.0);
  EXPECT_EQ(one.max_bytes, 400u);
  for (int workers : {2, 4, 8}) {
    const StaticSimulationPoint p = simulate_static(j, workers, &loads);
    EXPECT_EQ(p.tasks, 16u);
    EXPECT_EQ(p.max_tasks, 16u / workers) << "even tasks go evenly";
    EXPECT_DOUBLE_EQ(p.count_phase_seconds, 16.0 / workers);
    EXPECT_DOUBLE_EQ(p.count_efficiency, 1.0);
    EXPECT_DOUBLE_EQ(p.imbalance, 1.0);
    // A worker holds the blocks of its tasks: at least 1 (task (i,i,i)), at most all 4.
    EXPECT_GE(p.load_phase_seconds, 1.0);
    EXPECT_LE(p.load_phase_seconds, 4.0);
    EXPECT_DOUBLE_EQ(p.load_phase_seconds, 0.01 * static_cast<double>(p.max_bytes));
    EXPECT_DOUBLE_EQ(p.total_seconds, p.load_phase_seconds + p.count_phase_seconds);
    EXPECT_NEAR(p.efficiency, 20.0 / (workers * p.total_seconds), 1e-12);
  }
  // A slower base read rate for one worker raises the end-to-end efficiency, not the count's.
  const StaticSimulationPoint slow_base = simulate_static(j, 4, &loads, 0.02);
  EXPECT_NEAR(slow_base.efficiency, 24.0 / (4 * slow_base.total_seconds), 1e-12);
  // One costly task: the count phase is at least that task (imbalance above 1).
  j.records[5].seconds = 9.0, j.records[5].estimate = 9.0;
  const StaticSimulationPoint skewed = simulate_static(j, 8, &loads);
  EXPECT_DOUBLE_EQ(skewed.count_phase_seconds, 9.0);
  EXPECT_GT(skewed.imbalance, 2.0);
  EXPECT_LT(skewed.count_efficiency, 0.5);
}
