#include <gtest/gtest.h>

#include <set>
#include <vector>
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

// --count-parts: count block P'(I,K) of n_c parts is the file blocks P(I + a n_c, K + b n_c).
TEST(TaskPlanCountParts, FileBlocksOfEachCountBlockCoverTheFileOnce) {
  for (const auto& [n, c] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{{6, 1}, {6, 2}, {6, 3}, {6, 6}, {8, 2}}) {
    const std::uint32_t g = n / c;
    std::multiset<std::pair<std::uint32_t, std::uint32_t>> seen;
    for (std::uint32_t i = 0; i < c; ++i)
      for (std::uint32_t k = 0; k < c; ++k) {
        const std::vector<BlockId> f = file_blocks_of({i, k}, c, g);
        ASSERT_EQ(f.size(), std::size_t(g) * g);
        for (std::uint32_t a = 0; a < g; ++a)
          for (std::uint32_t b = 0; b < g; ++b) {
            const BlockId& id = f[a * g + b];
            EXPECT_EQ(id.row_class, i + a * c);  // row-major by (a, b)
            EXPECT_EQ(id.col_class, k + b * c);
            EXPECT_EQ(id.row_class % c, i);  // a file class belongs to the count class it is congruent to
            seen.insert({id.row_class, id.col_class});
          }
      }
    using Ids = std::set<std::pair<std::uint32_t, std::uint32_t>>;
    EXPECT_EQ(seen.size(), std::size_t(n) * n);
    EXPECT_EQ(Ids(seen.begin(), seen.end()).size(), std::size_t(n) * n);  // each file block once
  }
}

TEST(TaskPlanCountParts, MustDivideTheFileParts) {
  EXPECT_NO_THROW(check_count_parts(1, 6));
  EXPECT_NO_THROW(check_count_parts(3, 6));
  EXPECT_NO_THROW(check_count_parts(6, 6));
  EXPECT_THROW(check_count_parts(4, 6), UsageError);
  EXPECT_THROW(check_count_parts(12, 6), UsageError);
  EXPECT_THROW(check_count_parts(0, 6), UsageError);
  try {
    check_count_parts(4, 6);
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--count-parts 4 must divide the file's 6 parts"), std::string::npos) << e.what();
  }
}

TEST(TaskPlanCountParts, CoarsenedCostsSumTheFileCosts) {
  const std::uint32_t n = 4, c = 2, g = 2;
  std::vector<std::uint64_t> work(64), nnz(16);
  for (std::uint64_t t = 0; t < work.size(); ++t) work[t] = t + 1;
  for (std::uint64_t b = 0; b < nnz.size(); ++b) nnz[b] = 10 * b;
  const std::vector<std::uint64_t> w = coarsen_task_work(work, n, g), z = coarsen_block_nnz(nnz, n, g);
  ASSERT_EQ(w.size(), 8u);
  ASSERT_EQ(z.size(), 4u);
  std::uint64_t sum_w = 0, sum_z = 0;
  for (auto x : w) sum_w += x;
  for (auto x : z) sum_z += x;
  EXPECT_EQ(sum_w, 64u * 65u / 2);
  EXPECT_EQ(sum_z, 10u * 15u * 16u / 2);
  // Subtask (1,0,1) of 2 parts sums the file's (i,j,k) with i, k odd and j even.
  std::uint64_t want = 0;
  for (std::uint32_t i = 1; i < n; i += 2)
    for (std::uint32_t j = 0; j < n; j += 2)
      for (std::uint32_t k = 1; k < n; k += 2) want += work[(i * n + j) * n + k];
  EXPECT_EQ(w[(1 * c + 0) * c + 1], want);
  EXPECT_TRUE(coarsen_task_work({}, n, g).empty());  // a file without estimates
  EXPECT_EQ(coarsen_block_nnz(nnz, n, 1), nnz);
}

TEST(TaskPlanCountParts, AutoTakesTheFewestPartsThatFit) {
  const std::uint32_t n = 6;
  std::vector<std::uint64_t> bytes(36, 1000);  // 36 KB in all
  EXPECT_EQ(auto_count_parts(n, bytes, 0), n);               // no device: the CPU backend
  EXPECT_EQ(auto_count_parts(n, bytes, 1'000'000), 1u);      // twice the whole graph in half the device
  EXPECT_EQ(auto_count_parts(n, bytes, 144'000), 1u);        // exactly
  EXPECT_EQ(auto_count_parts(n, bytes, 143'999), 2u);        // 3 blocks of 9 KB, twice: 54 KB
  EXPECT_EQ(auto_count_parts(n, bytes, 108'000), 2u);
  EXPECT_EQ(auto_count_parts(n, bytes, 107'999), 3u);        // 3 blocks of 4 KB, twice: 24 KB
  EXPECT_EQ(auto_count_parts(n, bytes, 47'999), n);          // not even 3 parts fit: the file's own
  // A given m that would leave workers idle: at least that many subtasks.
  EXPECT_EQ(auto_count_parts(n, bytes, 1'000'000, 2), 2u);
  EXPECT_EQ(auto_count_parts(n, bytes, 1'000'000, 9), 3u);
  EXPECT_EQ(auto_count_parts(n, bytes, 1'000'000, 28), n);
  // One large block decides (the three largest count).
  std::vector<std::uint64_t> skewed(36, 10);
  skewed[0] = 100'000;
  EXPECT_EQ(auto_count_parts(n, skewed, 1'000'000), 1u);
  EXPECT_EQ(auto_count_parts(n, skewed, 402'000), 1u);  // twice 100,350 bytes
  EXPECT_EQ(auto_count_parts(n, skewed, 300'000), n);   // P(0,0) alone, twice, is more than half
  EXPECT_EQ(auto_count_parts(1, {5}, 1), 1u);          // one part is one part
}
