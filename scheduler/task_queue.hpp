// The order in which the scheduler hands out task ids, shared by the real scheduler and the
// scaling simulator so that a prediction replays the same policy.
//
// Longest processing time first: tasks go out by decreasing estimated cost (the
// partitioner's per-subtask work estimates split evenly over the m workload splits; without
// them, the three blocks' sizes). Block affinity: among the next few costliest tasks (a
// window whose costs are within a factor of the costliest), a worker gets the one with the
// most blocks among those of its last kAffinityMemory tasks, which it most likely still
// holds (its cache keeps recently used blocks), so it reads fewer blocks. The window
// is small and bounded by cost, so no task waits behind more than a window's worth of
// lighter ones: nothing starves. It widens with the workers (kAffinityWindowPerWorker per
// worker seen so far): with more workers asking, each needs more choice to stay on its
// blocks, so that the bytes each worker loads fall as workers are added.
//
// The static schedule (tricount-count --schedule static) assigns every task before counting,
// by the same costs, costliest first: to the worker that holds most of the task's blocks and
// stays within a capacity (the ideal share, total / workers, or the costliest task, plus
// kStaticCapacitySlack), else to the least loaded (as longest-processing-time-first would).
// So a worker's tasks share blocks (fewer to load and hold) and no worker ends above
// (1 + slack) x the ideal share, or the least loaded's share plus one task.
//
// With workers on several nodes, a node's workers share one sub-cube of the (i,j,k) cube, so
// that the blocks entering a node fall with the number of nodes: the cube is cut into one box
// per node (recursive bisection of its longest side, cut where the estimated cost splits in
// the ratio of the two halves' workers), and the same greedy rule then assigns the tasks to
// nodes, a task's own box first (its "home"), with each node's capacity its workers' share;
// within a node, the tasks go to its workers as with one node (half the slack at each level).
// Where that needs no fewer blocks per node than the one-node assignment's groups (two or
// three nodes on a small cube), or ends above its capacity, the one-node assignment stands.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_set>
#include <vector>

#include "src/task_plan.hpp"

namespace tricount {

class TaskQueue {
 public:
  // `work` has n^3 entries (may be empty); `block_nnz` has n^2 (fallback cost); tasks in
  // `done` are never handed out.
  TaskQueue(const TaskPlan& plan, const std::vector<std::uint64_t>& work, const std::vector<std::uint64_t>& block_nnz,
            const std::unordered_set<std::uint64_t>& done = {});
  // Costs given per task id (the simulator replays a journal's estimates); tasks not in
  // `present` are never handed out.
  TaskQueue(const TaskPlan& plan, std::vector<double> cost_by_task, const std::vector<bool>& present);
  // Plain id order, every task.
  explicit TaskQueue(std::uint64_t num_tasks);

  std::optional<std::uint64_t> pop(int worker);

  // Every task not yet handed out, assigned to `workers` workers (index 0 .. workers-1), each
  // list in the order its worker counts it (costliest first). Deterministic: the same
  // queue and count give the same lists. Leaves the queue as it is.
  struct StaticAssignment {
    std::vector<std::vector<std::uint64_t>> tasks;  // per worker
    std::vector<double> cost;                       // per worker: the summed estimates
  };
  // `workers_per_node` groups consecutive workers into nodes (the last may be smaller); 0, or
  // at least `workers`, is one node.
  StaticAssignment assign_static(int workers, int workers_per_node = 0) const;
  // Nodes of the given sizes (workers 0 .. sizes[0]-1 on node 0, and so on); one entry is one
  // node. Sizes must be at least 1.
  StaticAssignment assign_static_nodes(const std::vector<int>& workers_per_node) const;
  // Which node each task of assign_static_nodes's cube box split is homed on, by subtask
  // (i,j,k) index (i*n+j)*n+k; -1 where no node has it. Exposed for tests and the simulator.
  std::vector<int> node_homes(const std::vector<int>& workers_per_node) const;
  std::uint64_t remaining() const { return remaining_; }
  double estimate(std::uint64_t task) const;  // the cost used for ordering

  static constexpr std::size_t kAffinityWindow = 8;            // at least
  static constexpr std::size_t kAffinityWindowPerWorker = 2;
  static constexpr double kAffinityCostFactor = 0.5;
  static constexpr std::size_t kAffinityMemory = 16;  // tasks whose blocks count as held
  static constexpr double kStaticCapacitySlack = 0.02;  // above the ideal share (see above)

 private:
  std::optional<TaskPlan> plan_;
  std::vector<std::uint64_t> order_;     // task ids by decreasing cost
  std::vector<double> cost_;             // by task id (empty for plain order)
  std::vector<bool> taken_;              // by position in order_
  std::size_t head_ = 0;                 // first untaken position
  std::uint64_t remaining_ = 0;
  // Per worker rank: the blocks of its last kAffinityMemory tasks (3 per task, a ring).
  struct Held {
    std::vector<BlockId> blocks;
    std::size_t next = 0;
  };
  std::vector<Held> held_;

  void sort_by_cost();
  // The one greedy rule of the static schedule: `ids` (costliest first) to bins of the given
  // weights (a bin's capacity is its weight's share), each task to its home bin (`home`,
  // parallel to ids, -1 or empty for none) when that stays within the capacity, else to the
  // bin holding most of its blocks within the capacity, else to the least loaded. The capacity
  // is the bin's share, or the costliest task, times (1 + slack).
  StaticAssignment assign_greedy(const std::vector<std::uint64_t>& ids, const std::vector<double>& weight,
                                 const std::vector<int>& home, double slack) const;
};

}  // namespace tricount
