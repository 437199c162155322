// The static schedule by nodes (TaskQueue::assign_static with workers_per_node): every task
// once, one node exactly as before, a node's workers on one sub-cube (the distinct blocks a
// node needs fall as nodes are added), and the costs balanced within the capacity slack.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <utility>
#include <vector>

#include "scheduler/task_queue.hpp"

namespace tricount {
namespace {

std::vector<std::uint64_t> skewed_work(std::uint64_t n) {
  std::vector<std::uint64_t> work(n * n * n);
  for (std::size_t x = 0; x < work.size(); ++x) work[x] = (x * 7919) % 997 + 1 + (x % 17 == 0 ? 20000 : 0);  // a few hubs
  return work;
}

std::set<std::pair<std::uint32_t, std::uint32_t>> blocks_of(const TaskPlan& plan, const std::vector<std::uint64_t>& tasks) {
  std::set<std::pair<std::uint32_t, std::uint32_t>> blocks;
  for (std::uint64_t id : tasks)
    for (const BlockId& b : plan.decode(id).blocks()) blocks.insert({b.row_class, b.col_class});
  return blocks;
}

// The blocks a node's workers need together, for nodes of `per_node` consecutive workers.
std::vector<std::size_t> node_blocks(const TaskPlan& plan, const TaskQueue::StaticAssignment& a, int per_node) {
  std::vector<std::size_t> out;
  for (std::size_t first = 0; first < a.tasks.size(); first += static_cast<std::size_t>(per_node)) {
    std::vector<std::uint64_t> tasks;
    for (std::size_t w = first; w < std::min(a.tasks.size(), first + static_cast<std::size_t>(per_node)); ++w)
      tasks.insert(tasks.end(), a.tasks[w].begin(), a.tasks[w].end());
    out.push_back(blocks_of(plan, tasks).size());
  }
  return out;
}

TEST(StaticNodes, OneNodeIsTodaysAssignment) {
  const TaskPlan plan(5, 3);
  const TaskQueue q(plan, skewed_work(5), {});
  for (int workers : {1, 2, 3, 7, 64}) {
    const TaskQueue::StaticAssignment base = q.assign_static(workers);
    for (int per_node : {0, -1, workers, workers + 5}) {
      const TaskQueue::StaticAssignment a = q.assign_static(workers, per_node);
      EXPECT_EQ(a.tasks, base.tasks) << workers << " workers, " << per_node << " per node";
      EXPECT_EQ(a.cost, base.cost);
    }
    EXPECT_EQ(q.assign_static_nodes({workers}).tasks, base.tasks);
  }
}

TEST(StaticNodes, EveryTaskOnceDeterministicBalanced) {
  const TaskPlan plan(6, 4);
  const TaskQueue q(plan, skewed_work(6), {});
  for (int workers : {2, 3, 5, 8, 9, 24}) {
    for (int per_node : {1, 2, 3, 4}) {
      if (per_node >= workers) continue;
      SCOPED_TRACE(std::to_string(workers) + " workers, " + std::to_string(per_node) + " per node");
      const TaskQueue::StaticAssignment a = q.assign_static(workers, per_node);
      ASSERT_EQ(a.tasks.size(), static_cast<std::size_t>(workers));
      std::set<std::uint64_t> seen;
      double total = 0, largest = 0;
      for (int w = 0; w < workers; ++w) {
        double sum = 0, previous = 1e300;
        for (std::uint64_t id : a.tasks[static_cast<std::size_t>(w)]) {
          EXPECT_TRUE(seen.insert(id).second) << "task " << id << " twice";
          EXPECT_LE(q.estimate(id), previous) << "a worker counts its costliest first";
          previous = q.estimate(id);
          sum += q.estimate(id);
          largest = std::max(largest, q.estimate(id));
        }
        EXPECT_DOUBLE_EQ(a.cost[static_cast<std::size_t>(w)], sum);
        total += sum;
      }
      EXPECT_EQ(seen.size(), plan.num_tasks());
      EXPECT_EQ(q.assign_static(workers, per_node).tasks, a.tasks) << "deterministic";
      // Each node within its capacity (its workers' share plus the slack) or the mean plus
      // one task; each worker the same within its node.
      const double slack = 1 + TaskQueue::kStaticCapacitySlack;
      for (int first = 0; first < workers; first += per_node) {
        const int size = std::min(per_node, workers - first);
        double node = 0, most = 0;
        for (int w = first; w < first + size; ++w) node += a.cost[static_cast<std::size_t>(w)], most = std::max(most, a.cost[static_cast<std::size_t>(w)]);
        const double share = total * size / workers;
        EXPECT_LE(node, std::max(slack * std::max(share, largest), share + largest) + 1e-9) << "node from worker " << first;
        EXPECT_LE(most, std::max(slack * std::max(node / size, largest), node / size + largest) + 1e-9) << "node from worker " << first;
      }
    }
  }
}

std::size_t sum(const std::vector<std::size_t>& v) { return std::accumulate(v.begin(), v.end(), std::size_t{0}); }

// Even costs: the blocks a node needs fall as nodes are added (two nodes cannot cut them:
// half of the cube still needs every block of one kind), below what the one-node assignment
// gives the same groups of workers from four nodes on, and never above it.
TEST(StaticNodes, NodeBlocksFallAsNodesGrow) {
  const TaskPlan plan(8, 2);
  const TaskQueue q(plan, std::vector<std::uint64_t>(512, 100), {});
  const int workers = 16;
  double previous = 1e300;
  for (int per_node : {16, 8, 4, 2}) {
    SCOPED_TRACE(std::to_string(per_node) + " per node");
    const std::vector<std::size_t> grouped = node_blocks(plan, q.assign_static(workers, per_node), per_node);
    const std::vector<std::size_t> flat = node_blocks(plan, q.assign_static(workers), per_node);
    const double mean = static_cast<double>(sum(grouped)) / grouped.size();
    EXPECT_LE(sum(grouped), sum(flat));
    if (per_node <= 4) {
      EXPECT_LT(sum(grouped), sum(flat)) << "the one-node assignment's groups";
      EXPECT_LT(mean, previous);
    } else {
      EXPECT_LE(mean, previous);
    }
    previous = mean;
    // 8 nodes: each a 4x4x4 sub-cube, whose blocks P(I,K), P(I,J), P(J,K) are 3 x 16 at most.
    if (per_node == 2) {
      EXPECT_LE(*std::max_element(grouped.begin(), grouped.end()), 48u);
    }
  }
}

// Skewed costs, nodes of unequal size (the last smaller): never more blocks per node than the
// one-node assignment's groups, fewer from five nodes on.
TEST(StaticNodes, SkewedCostsUnequalNodes) {
  const TaskPlan plan(12, 3);
  const TaskQueue q(plan, skewed_work(12), {});
  for (const auto& [workers, per_node] : {std::pair{5, 2}, std::pair{9, 2}, std::pair{16, 3}, std::pair{24, 5}}) {
    SCOPED_TRACE(std::to_string(workers) + " workers, " + std::to_string(per_node) + " per node");
    const std::vector<std::size_t> grouped = node_blocks(plan, q.assign_static(workers, per_node), per_node);
    const std::vector<std::size_t> flat = node_blocks(plan, q.assign_static(workers), per_node);
    if (workers / per_node >= 4) {
      EXPECT_LT(sum(grouped), sum(flat));
    } else {
      EXPECT_LE(sum(grouped), sum(flat));
    }
  }
}

TEST(StaticNodes, SkipsFinishedTasksAndRefusesEmptyNodes) {
  const TaskPlan plan(2, 1);
  const TaskQueue q(plan, std::vector<std::uint64_t>(8, 5), {}, {1, 4, 6});
  const TaskQueue::StaticAssignment a = q.assign_static(3, 1);
  std::set<std::uint64_t> seen;
  for (const auto& list : a.tasks) seen.insert(list.begin(), list.end());
  EXPECT_EQ(seen, (std::set<std::uint64_t>{0, 2, 3, 5, 7}));
  EXPECT_THROW(q.assign_static_nodes({2, 0}), Error);
  EXPECT_THROW(q.assign_static_nodes({}), Error);
}

}  // namespace
}  // namespace tricount
