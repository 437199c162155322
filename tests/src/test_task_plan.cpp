#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "src/task_plan.hpp"

using namespace tricount;

TEST(TaskPlan, IdsRoundTripAndCoverEveryTaskOnce) {
  for (std::uint32_t n = 1; n <= 5; ++n) {
    for (std::uint32_t m = 1; m <= 4; ++m) {
      const TaskPlan plan(n, m);
      ASSERT_EQ(plan.num_tasks(), std::uint64_t(n) * n * n * m);
      std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>> seen;
      for (std::uint64_t id = 0; id < plan.num_tasks(); ++id) {
        const Task t = plan.decode(id);
        EXPECT_EQ(plan.encode(t), id);
        EXPECT_TRUE(seen.emplace(t.i, t.j, t.k, t.split).second);
        EXPECT_EQ(t.hash_block(), (BlockId{t.i, t.k}));
        EXPECT_EQ(t.one_hop_block(), (BlockId{t.i, t.j}));
        EXPECT_EQ(t.two_hop_block(), (BlockId{t.j, t.k}));
      }
    }
  }
}

TEST(TaskPlan, RejectsZeroAndOutOfRange) {
  EXPECT_THROW(TaskPlan(0, 1), UsageError);
  EXPECT_THROW(TaskPlan(1, 0), UsageError);
  const TaskPlan plan(2, 2);
  EXPECT_THROW(plan.decode(16), Error);
  EXPECT_THROW(plan.encode(Task{2, 0, 0, 0}), Error);
}

// One limit for --parts and one for --workload-splits, wherever they are checked.
TEST(TaskPlan, PartsAndSplitsHaveOneLimitEach) {
  EXPECT_NO_THROW(TaskPlan(kMaxParts, kMaxWorkloadSplits));
  EXPECT_THROW(TaskPlan(kMaxParts + 1, 1), UsageError);
  EXPECT_THROW(TaskPlan(1, kMaxWorkloadSplits + 1), UsageError);
  EXPECT_THROW(check_parts(std::uint64_t{1} << 32), UsageError);
  EXPECT_THROW(check_workload_splits(1048576), UsageError);
  try {
    check_parts(4294967298);
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--parts must be between 1 and " + std::to_string(kMaxParts) + " (got 4294967298)"),
              std::string::npos) << e.what();
  }
}

TEST(TaskPlan, LargePlansDoNotWrap) {
  // 1024^3 * 8 = 2^33 tasks: ids past 2^32 must survive the round trip.
  const TaskPlan plan(1024, 8);
  EXPECT_EQ(plan.num_tasks(), std::uint64_t{1} << 33);
  const std::uint64_t id = (std::uint64_t{1} << 33) - 1;
  const Task t = plan.decode(id);
  EXPECT_EQ(t.i, 1023u);
  EXPECT_EQ(t.j, 1023u);
  EXPECT_EQ(t.k, 1023u);
  EXPECT_EQ(t.split, 7u);
  EXPECT_EQ(plan.encode(t), id);
  EXPECT_EQ(plan.encode(plan.decode(std::uint64_t{1} << 32)), std::uint64_t{1} << 32);
}

TEST(TaskPlan, SplitsPartitionRowsEvenly) {
  for (std::uint32_t m : {2u, 3u, 7u}) {
    std::vector<std::uint64_t> hits(m, 0);
    const std::uint64_t rows = 100000;
    for (std::uint64_t r = 0; r < rows; ++r) ++hits[split_of_row(r, m)];
    for (std::uint64_t h : hits) EXPECT_NEAR(double(h), double(rows) / m, 0.03 * rows / m);
  }
  EXPECT_EQ(split_of_row(12345, 1), 0u);
}

TEST(TaskPlan, RowsInClass) {
  EXPECT_EQ(rows_in_class(10, 3, 0), 4u);  // 0 3 6 9
  EXPECT_EQ(rows_in_class(10, 3, 1), 3u);  // 1 4 7
  EXPECT_EQ(rows_in_class(10, 3, 2), 3u);  // 2 5 8
  EXPECT_EQ(rows_in_class(2, 4, 3), 0u);
  EXPECT_EQ(rows_in_class(0, 2, 0), 0u);
  // Past 2^32 vertices in the arithmetic (the file format caps |V| below that).
  EXPECT_EQ(rows_in_class(std::uint64_t{1} << 33, 2, 1), std::uint64_t{1} << 32);
}

TEST(CheckedCast, RefusesToWrap) {
  EXPECT_EQ(checked_cast<std::uint32_t>(std::uint64_t{4294967295u}), 4294967295u);
  EXPECT_THROW(checked_cast<std::uint32_t>(std::uint64_t{1} << 32), Error);
  EXPECT_THROW(checked_cast<std::uint32_t>(-1), Error);
  EXPECT_THROW(checked_cast<std::int32_t>(std::uint64_t{1} << 31), Error);
}
