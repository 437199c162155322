// Issue 27.3: the CUDA backend copies the next task's blocks (CountBackend::prefetch_next)
// on a second stream while the current task's kernels run. Driven as run_worker drives it:
// the hint given before each count, answered during it. Exact counts against the reference
// with room for every block, for two triples, and for one (where the hint must not evict
// the running task's blocks and is left to the next count); per-vertex counts too.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "partitioner/partition.hpp"
#include "src/block_format.hpp"
#include "src/task_plan.hpp"
#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"
#include "worker/backend.hpp"
#include "worker/block_cache.hpp"

namespace tricount {
namespace {

using testing::EdgePairs;

struct Counted {
  count_t triangles = 0;
  CountStats stats;
  std::vector<std::uint64_t> bytes_per_task;  // copied during each task's count
  int hints_answered = 0;
};

// Every task of TaskPlan(n, splits) in order, each count given the next task's blocks as its
// hint.
Counted count_with_hints(const PartitionedGraph& g, std::uint32_t splits, CountBackend& backend) {
  const std::uint32_t n = g.header.parts;
  const std::uint64_t base = testing::next_serial_base();
  const TaskPlan plan(n, splits);
  auto blocks_of = [&](std::uint64_t id) {
    const Task t = plan.decode(id);
    auto v = [&](std::uint32_t i, std::uint32_t j) { return make_block_view(g.block(i, j), base + std::uint64_t(i) * n + j); };
    return TaskBlocks{v(t.i, t.k), v(t.i, t.j), v(t.j, t.k), t.split, splits};
  };
  Counted c;
  TaskBlocks next_blocks;
  for (std::uint64_t id = 0; id < plan.num_tasks(); ++id) {
    if (id + 1 < plan.num_tasks())
      backend.prefetch_next([&, id]() -> const TaskBlocks* {
        ++c.hints_answered;
        next_blocks = blocks_of(id + 1);
        return &next_blocks;
      });
    CountStats s;
    c.triangles += backend.count(blocks_of(id), s);
    c.bytes_per_task.push_back(s.bytes_transferred);
    c.stats.bytes_transferred += s.bytes_transferred;
  }
  return c;
}

std::uint64_t largest_block(const PartitionedGraph& g) {
  std::uint64_t largest = 0;
  for (const CsrBlock& b : g.blocks) largest = std::max(largest, b.bytes());
  return largest;
}

TEST(CudaPrefetch, CountsExactlyWithRoomForAllTwoOrOneTriples) {
  TRICOUNT_REQUIRE_GPU();
  const EdgePairs e = testing::random_graph(20000, 400000, 27);
  const count_t want = reference::count_triangles(e);
  const PartitionedGraph g = testing::partition_graph(e, 4);
  const std::uint64_t largest = largest_block(g);
  std::uint64_t all = 0;
  for (const CsrBlock& b : g.blocks) all += b.bytes();
  for (std::uint64_t triples : {0, 2, 1}) {  // 0: no cap
    SCOPED_TRACE("room for " + std::to_string(triples) + " triples (0: all)");
    const std::uint64_t cap = triples ? triples * 3 * largest + (std::uint64_t{1} << 20) : 0;
    auto gpu = testing::cuda_backend(CudaTuning{.device_bytes = cap});
    for (std::uint32_t splits : {1u, 3u}) {
      const Counted c = count_with_hints(g, splits, *gpu);
      EXPECT_EQ(c.triangles, want) << "m=" << splits;
      EXPECT_GT(c.hints_answered, 0) << "the backend asks for the next task's blocks";
      if (triples == 0) {
        // Every block copied once: the first task's in its own count, the others during the
        // count before the one that uses them.
        EXPECT_EQ(c.stats.bytes_transferred, all) << "m=" << splits;
      }
    }
  }
}

TEST(CudaPrefetch, EachBlockIsCopiedDuringTheCountBeforeTheTaskThatFirstUsesIt) {
  TRICOUNT_REQUIRE_GPU();
  const EdgePairs e = testing::random_graph(6000, 80000, 28);
  const PartitionedGraph g = testing::partition_graph(e, 3);
  auto gpu = testing::cuda_backend();
  const Counted c = count_with_hints(g, 1, *gpu);
  EXPECT_EQ(c.triangles, reference::count_triangles(e));
  // The bytes of the blocks each task is the first to use.
  const TaskPlan plan(3, 1);
  std::vector<bool> seen(9, false);
  std::vector<std::uint64_t> first_used(plan.num_tasks(), 0);
  for (std::uint64_t id = 0; id < plan.num_tasks(); ++id)
    for (const BlockId& b : plan.decode(id).blocks()) {
      const std::size_t at = std::size_t(b.row_class) * 3 + b.col_class;
      if (!seen[at]) first_used[id] += g.block(b.row_class, b.col_class).bytes();
      seen[at] = true;
    }
  // Task 0 copies its own and task 1's; task t the next task's; the last none.
  ASSERT_EQ(c.bytes_per_task.size(), plan.num_tasks());
  for (std::uint64_t id = 0; id < plan.num_tasks(); ++id) {
    const std::uint64_t want = (id == 0 ? first_used[0] : 0) + (id + 1 < plan.num_tasks() ? first_used[id + 1] : 0);
    EXPECT_EQ(c.bytes_per_task[id], want) << "task " << id;
  }
}

TEST(CudaPrefetch, PerVertexCountsAreExact) {
  TRICOUNT_REQUIRE_GPU();
  const EdgePairs e = testing::mixed_graph(29);
  const PartitionedGraph g = testing::partition_graph(e, 3);
  const std::uint64_t largest = largest_block(g);
  auto gpu = testing::cuda_backend(CudaTuning{.device_bytes = 2 * 3 * largest + (std::uint64_t{4} << 20)});
  std::vector<std::uint64_t> classes;
  for (std::uint32_t c = 0; c < 3; ++c) classes.push_back(rows_in_class(g.header.vertices, 3, c));
  gpu->start_per_vertex(classes);
  const Counted c = count_with_hints(g, 2, *gpu);
  EXPECT_EQ(c.triangles, reference::count_triangles(e));
  count_t sum = 0;
  for (std::uint32_t k = 0; k < 3; ++k)
    for (count_t x : gpu->take_vertex_counts(k)) sum += x;
  EXPECT_EQ(sum, 3 * c.triangles) << "each triangle counted at its three vertices";
}

// The CPU backend ignores the hint: never asks for the blocks.
TEST(CudaPrefetch, TheCpuBackendIgnoresTheHint) {
  const PartitionedGraph g = testing::partition_graph(testing::random_graph(2000, 20000, 30), 2);
  BackendOptions o;
  o.threads = 1;
  auto cpu = make_cpu_backend(o);
  const Counted c = count_with_hints(g, 1, *cpu);
  EXPECT_EQ(c.hints_answered, 0);
  EXPECT_EQ(c.triangles, reference::count_triangles(testing::random_graph(2000, 20000, 30)));
}

}  // namespace
}  // namespace tricount
