// The policies components share (issue 26.3): one definition each in src/, tested here with
// injected numbers. --workload-splits auto (src/task_plan.hpp), a worker's share of the
// node's cores and memory (src/node_share.hpp), the fork-join helper (src/threads.hpp) and
// a task's three blocks.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>

#include "model/plan.hpp"
#include "src/node_share.hpp"
#include "src/task_plan.hpp"
#include "src/threads.hpp"
#include "src/types.hpp"

using namespace tricount;

TEST(WorkloadSplits, AutoGivesEveryWorkerATask) {
  EXPECT_EQ(kAutoTasksPerWorker, 1u);
  // One worker has nobody to share with.
  for (std::uint32_t n : {1u, 2u, 7u}) EXPECT_EQ(auto_workload_splits(n, 1), 1u) << n;
  EXPECT_EQ(auto_workload_splits(1, 0), 1u);
  // 4 workers on a --parts 1 file: 4 tasks, one each.
  EXPECT_EQ(auto_workload_splits(1, 4), 4u);
  EXPECT_EQ(auto_workload_splits(1, 5), 5u);
  EXPECT_EQ(auto_workload_splits(2, 4), 1u);   // 8 subtasks already
  EXPECT_EQ(auto_workload_splits(2, 9), 2u);   // 8 subtasks for 9 workers
  EXPECT_EQ(auto_workload_splits(4, 4), 1u);
  EXPECT_EQ(auto_workload_splits(1, 1u << 20), kMaxWorkloadSplits);  // capped
  EXPECT_EQ(auto_workload_splits(2, 3, 8), 3u);  // 24 wanted over 8 subtasks (i,j,k)
  for (std::uint32_t n : {1u, 3u, 8u})
    for (std::uint64_t w : {2u, 5u, 100u}) EXPECT_GE(std::uint64_t(n) * n * n * auto_workload_splits(n, w), w);
}

TEST(WorkloadSplits, ParseTakesAutoOrANumberInRange) {
  EXPECT_FALSE(parse_workload_splits("auto").has_value());
  EXPECT_EQ(parse_workload_splits("3"), WorkloadSplits(3u));
  EXPECT_EQ(parse_workload_splits(std::to_string(kMaxWorkloadSplits)), WorkloadSplits(kMaxWorkloadSplits));
  for (const char* bad : {"0", "", "-1", "abc", "3x", "Auto", "4097", "99999999999999"})
    EXPECT_THROW(parse_workload_splits(bad), UsageError) << bad;
  EXPECT_EQ(resolve_workload_splits(std::nullopt, 1, 4), 4u);
  EXPECT_EQ(resolve_workload_splits(7u, 1, 4), 7u);
}

// tricount-simulate --plan picks m with the same rule as tricount-count's auto at --gpus.
TEST(WorkloadSplits, ThePlannerUsesTheCountsRule) {
  PlanRequest r;
  EXPECT_EQ(r.tasks_per_gpu, kAutoTasksPerWorker);
  for (std::uint32_t n : {1u, 2u, 4u})
    for (int gpus : {1, 4, 64}) {
      r.gpus = gpus;
      EXPECT_EQ(auto_workload_splits(n, std::uint64_t(r.gpus), r.tasks_per_gpu), auto_workload_splits(n, std::uint64_t(gpus)));
    }
}

TEST(TaskBlocks, HashOneHopTwoHop) {
  const Task t{1, 2, 3, 0};
  const std::array<BlockId, 3> b = t.blocks();
  EXPECT_EQ(b[0], (BlockId{1, 3}));
  EXPECT_EQ(b[1], (BlockId{1, 2}));
  EXPECT_EQ(b[2], (BlockId{2, 3}));
}

TEST(NodeShare, CoresAreSharedAmongTheNodesWorkers) {
  EXPECT_EQ(cores_per_worker(64, 64, 1), 64u);
  EXPECT_EQ(cores_per_worker(64, 64, 4), 16u);
  EXPECT_EQ(cores_per_worker(64, 8, 4), 8u);    // bound to 8 cores: no more than those
  EXPECT_EQ(cores_per_worker(2, 2, 5), 1u);     // at least one
  EXPECT_EQ(cores_per_worker(0, 0, 0), 1u);     // unknown: one
  EXPECT_GE(node_share_of_cores(1), 1u);
  EXPECT_LE(node_share_of_cores(1), usable_cores());
}

TEST(NodeShare, CacheDefaultIsHalfTheAvailableMemoryPerWorker) {
  const std::uint64_t gib = std::uint64_t{1} << 30;
  EXPECT_EQ(default_cache_bytes(64 * gib, 1), 32 * gib);
  EXPECT_EQ(default_cache_bytes(64 * gib, 4), 8 * gib);
  EXPECT_EQ(default_cache_bytes(2 * kMinDefaultCacheBytes, 1), kMinDefaultCacheBytes);  // the floor itself
  EXPECT_EQ(default_cache_bytes(64 * gib, 0), 32 * gib);  // no worker known: as one
}

TEST(NodeShare, CacheDefaultBelowTheFloorIsAClearError) {
  try {
    default_cache_bytes(std::uint64_t{1} << 30, 8);  // 64 MiB each
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--cache-size"), std::string::npos) << m;
    EXPECT_NE(m.find("1024 MiB available"), std::string::npos) << m;
    EXPECT_NE(m.find("8 workers"), std::string::npos) << m;
    EXPECT_NE(m.find("give --cache-size explicitly"), std::string::npos) << m;
  }
  EXPECT_THROW(default_cache_bytes(0, 1), Error);  // nothing known of the memory
}

TEST(NodeShare, AvailableMemoryIsKnownHere) {
  const std::uint64_t available = available_memory_bytes();
  EXPECT_GT(available, 0u);
  EXPECT_LT(available, std::uint64_t{1} << 50);
}

TEST(ForkJoin, EveryIndexRunsOnce) {
  std::atomic<int> sum{0};
  parallel_for(5, [&](unsigned t) { sum += static_cast<int>(t) + 1; });
  EXPECT_EQ(sum.load(), 15);
  std::atomic<std::uint64_t> covered{0};
  parallel_ranges(1000, 7, [&](std::uint64_t a, std::uint64_t b) { covered += b - a; });
  EXPECT_EQ(covered.load(), 1000u);
}

// An exception in any thread reaches the caller after every thread finished, never
// std::terminate.
TEST(ForkJoin, AnExceptionIsCarriedToTheCaller) {
  std::atomic<int> finished{0};
  try {
    parallel_for(4, [&](unsigned t) {
      if (t == 2) throw std::runtime_error("thread 2 failed");
      ++finished;
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "thread 2 failed");
  }
  EXPECT_EQ(finished.load(), 3);
  EXPECT_THROW(parallel_ranges(100, 4,
                               [&](std::uint64_t first, std::uint64_t) {
                                 if (first > 0) throw Error("range failed");
                               }),
               Error);
  EXPECT_THROW(parallel_for(1, [](unsigned) { throw Error("on the caller's thread"); }), Error);
}
