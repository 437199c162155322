#include "model/simulate.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <queue>
#include <unordered_map>

#include "scheduler/task_queue.hpp"

namespace tricount {
namespace {

// The three blocks of a task, as indices into a row-major n x n array.
std::array<std::size_t, 3> task_blocks(const TaskPlan& plan, std::uint64_t id) {
  const Task t = plan.decode(id);
  auto at = [&](const BlockId& b) { return std::size_t(b.row_class) * plan.parts() + b.col_class; };
  const std::array<BlockId, 3> b = t.blocks();
  return {at(b[0]), at(b[1]), at(b[2])};
}

// Marks the task's blocks as held and returns the bytes of those that were not yet.
std::uint64_t newly_read_bytes(const TaskPlan& plan, std::uint64_t task, const std::vector<std::uint64_t>& block_bytes,
                               std::vector<bool>& held) {
  if (held.empty()) held.assign(block_bytes.size(), false);
  std::uint64_t bytes = 0;
  for (std::size_t b : task_blocks(plan, task))
    if (!held[b]) {
      held[b] = true;
      bytes += block_bytes[b];
    }
  return bytes;
}

// Each task's work estimate and seconds as a journal gives them. With block loads modelled,
// the measured load is taken out here and charged again per virtual worker.
struct TaskCosts {
  std::vector<double> estimate, seconds;
  std::vector<bool> present;
};

TaskCosts task_costs(const JournalContents& journal, const TaskPlan& plan, const BlockLoads* loads, double task_overhead_seconds) {
  TaskCosts c{std::vector<double>(plan.num_tasks(), 0), std::vector<double>(plan.num_tasks(), 0),
              std::vector<bool>(plan.num_tasks(), false)};
  for (const JournalRecord& r : journal.records) {
    if (r.task >= plan.num_tasks()) throw Error("journal task " + std::to_string(r.task) + " outside the plan");
    c.estimate[r.task] = r.estimate;
    c.seconds[r.task] = (loads ? std::max(0.0, r.seconds - std::max(0.0, r.load_seconds)) : r.seconds) + task_overhead_seconds;
    c.present[r.task] = true;
  }
  return c;
}

}  // namespace

std::optional<BlockLoads> measured_block_loads(const JournalContents& journal, std::vector<std::uint64_t> block_bytes) {
  const TaskPlan plan(journal.identity.parts, journal.identity.splits);
  if (block_bytes.size() != std::size_t(plan.parts()) * plan.parts())
    throw Error("block sizes: " + std::to_string(block_bytes.size()) + " blocks for n = " + std::to_string(plan.parts()));
  double load = 0;
  std::uint64_t bytes = 0;
  std::unordered_map<int, std::vector<bool>> held;  // per rank: blocks read so far
  for (const JournalRecord& r : journal.records) {
    if (r.load_seconds < 0) return std::nullopt;  // no load column
    if (r.task >= plan.num_tasks()) throw Error("journal task " + std::to_string(r.task) + " outside the plan");
    load += r.load_seconds;
    bytes += newly_read_bytes(plan, r.task, block_bytes, held[r.rank]);
  }
  if (bytes == 0 || load <= 0) return std::nullopt;
  BlockLoads l;
  l.block_bytes = std::move(block_bytes);
  l.seconds_per_byte = load / static_cast<double>(bytes);
  return l;
}

SimulationPoint simulate_schedule(const JournalContents& journal, int workers, double task_overhead_seconds,
                                  const BlockLoads* loads) {
  if (workers < 1) throw UsageError("the simulator needs at least one worker");
  const TaskPlan plan(journal.identity.parts, journal.identity.splits);
  const auto [estimate, seconds, present] = task_costs(journal, plan, loads, task_overhead_seconds);
  std::uint64_t bytes_read = 0;  // by the last call of read_seconds
  auto read_seconds = [&](std::uint64_t task, std::vector<bool>& held) {
    bytes_read = loads ? newly_read_bytes(plan, task, loads->block_bytes, held) : 0;
    return static_cast<double>(bytes_read) * (loads ? loads->seconds_per_byte : 0.0);
  };
  // One worker's time, the base of the speedup: every task once, every block read once.
  double one_worker = 0;
  std::vector<bool> used;
  for (std::uint64_t task = 0; task < plan.num_tasks(); ++task)
    if (present[task]) one_worker += seconds[task] + read_seconds(task, used);
  TaskQueue queue(plan, estimate, present);
  using Slot = std::pair<double, int>;  // (free at, worker)
  std::priority_queue<Slot, std::vector<Slot>, std::greater<>> free_at;
  for (int w = 0; w < workers; ++w) free_at.push({0.0, w});
  std::vector<double> busy(static_cast<std::size_t>(workers), 0.0);
  std::vector<std::uint64_t> bytes(static_cast<std::size_t>(workers), 0);
  std::vector<std::vector<bool>> held(static_cast<std::size_t>(workers));  // per worker, when loads
  double makespan = 0;
  SimulationPoint p;
  p.workers = workers;
  while (queue.remaining() > 0) {
    const auto [t, w] = free_at.top();
    free_at.pop();
    const std::uint64_t task = *queue.pop(w + 1);  // worker ranks start at 1
    const double cost = seconds[task] + read_seconds(task, held[static_cast<std::size_t>(w)]);
    busy[static_cast<std::size_t>(w)] += cost;
    bytes[static_cast<std::size_t>(w)] += bytes_read;
    makespan = std::max(makespan, t + cost);
    free_at.push({t + cost, w});
    ++p.tasks;
  }
  p.predicted_seconds = makespan;
  p.speedup = makespan > 0 ? one_worker / makespan : 1.0;
  p.efficiency = p.speedup / workers;
  const auto [lo, hi] = std::minmax_element(busy.begin(), busy.end());
  p.imbalance = *lo > 0 ? *hi / *lo : 0.0;
  std::uint64_t all_bytes = 0;
  for (std::uint64_t b : bytes) p.max_bytes_loaded = std::max(p.max_bytes_loaded, b), all_bytes += b;
  p.mean_bytes_loaded = all_bytes / static_cast<std::uint64_t>(workers);
  return p;
}

StaticSimulationPoint simulate_static(const JournalContents& journal, int workers, const BlockLoads* loads,
                                      double one_worker_seconds_per_byte, int workers_per_node,
                                      std::vector<std::vector<std::uint64_t>>* assignment) {
  if (workers < 1) throw UsageError("the simulator needs at least one worker");
  // 1. Each task's seconds and estimate, as simulate_schedule takes them.
  const TaskPlan plan(journal.identity.parts, journal.identity.splits);
  const auto [estimate, seconds, present] = task_costs(journal, plan, loads, 0.0);
  const double rate = loads ? loads->seconds_per_byte : 0.0;
  // 2. One worker: every task, every block read once.
  double one_count = 0;
  std::uint64_t one_bytes = 0;
  std::vector<bool> used;
  for (std::uint64_t task = 0; task < plan.num_tasks(); ++task)
    if (present[task]) {
      one_count += seconds[task];
      if (loads) one_bytes += newly_read_bytes(plan, task, loads->block_bytes, used);
    }
  // 3. The runtime's assignment; each worker's blocks and share.
  TaskQueue::StaticAssignment a = TaskQueue(plan, estimate, present).assign_static(workers, workers_per_node);
  StaticSimulationPoint p;
  p.workers = workers;
  double share_sum = 0;
  std::uint64_t all_bytes = 0;
  for (const std::vector<std::uint64_t>& list : a.tasks) {
    double share = 0;
    std::uint64_t bytes = 0;
    std::vector<bool> held;
    for (std::uint64_t task : list) {
      share += seconds[task];
      if (loads) bytes += newly_read_bytes(plan, task, loads->block_bytes, held);
    }
    p.count_phase_seconds = std::max(p.count_phase_seconds, share);
    p.load_phase_seconds = std::max(p.load_phase_seconds, static_cast<double>(bytes) * rate);
    p.max_bytes = std::max(p.max_bytes, bytes);
    p.max_tasks = std::max<std::uint64_t>(p.max_tasks, list.size());
    p.tasks += list.size();
    share_sum += share;
    all_bytes += bytes;
  }
  // 4. Speedups against one worker, of the count phase and end to end.
  p.total_seconds = p.load_phase_seconds + p.count_phase_seconds;
  p.mean_bytes = all_bytes / static_cast<std::uint64_t>(workers);
  p.count_speedup = p.count_phase_seconds > 0 ? one_count / p.count_phase_seconds : 1.0;
  p.count_efficiency = p.count_speedup / workers;
  const double one_total = one_count + static_cast<double>(one_bytes) * (one_worker_seconds_per_byte < 0 ? rate : one_worker_seconds_per_byte);
  p.speedup = p.total_seconds > 0 ? one_total / p.total_seconds : 1.0;
  p.efficiency = p.speedup / workers;
  p.imbalance = share_sum > 0 ? p.count_phase_seconds / (share_sum / workers) : 1.0;
  if (assignment) *assignment = std::move(a.tasks);
  return p;
}

}  // namespace tricount
