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
  StaticAssignment assign_static(int workers) const;
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
};

}  // namespace tricount
