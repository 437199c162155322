#include "scheduler/simulate.hpp"

#include <algorithm>
#include <functional>
#include <queue>

#include "scheduler/task_queue.hpp"

namespace tricount {

SimulationPoint simulate_schedule(const JournalContents& journal, int workers, double task_overhead_seconds) {
  if (workers < 1) throw UsageError("the simulator needs at least one worker");
  const TaskPlan plan(journal.identity.parts, journal.identity.splits);
  std::vector<double> estimate(plan.num_tasks(), 0), seconds(plan.num_tasks(), 0);
  std::vector<bool> present(plan.num_tasks(), false);
  for (const JournalRecord& r : journal.records) {
    if (r.task >= plan.num_tasks()) throw Error("journal task " + std::to_string(r.task) + " outside the plan");
    estimate[r.task] = r.estimate;
    seconds[r.task] = r.seconds + task_overhead_seconds;
    present[r.task] = true;
  }
  TaskQueue queue(plan, estimate, present);
  using Slot = std::pair<double, int>;  // (free at, worker)
  std::priority_queue<Slot, std::vector<Slot>, std::greater<>> free_at;
  for (int w = 0; w < workers; ++w) free_at.push({0.0, w});
  std::vector<double> busy(static_cast<std::size_t>(workers), 0.0);
  double makespan = 0, total = 0;
  SimulationPoint p;
  p.workers = workers;
  while (queue.remaining() > 0) {
    const auto [t, w] = free_at.top();
    free_at.pop();
    const std::uint64_t task = *queue.pop(w + 1);  // worker ranks start at 1
    const double cost = seconds[task];
    busy[static_cast<std::size_t>(w)] += cost;
    total += cost;
    makespan = std::max(makespan, t + cost);
    free_at.push({t + cost, w});
    ++p.tasks;
  }
  p.predicted_seconds = makespan;
  p.speedup = makespan > 0 ? total / makespan : 1.0;
  p.efficiency = p.speedup / workers;
  const auto [lo, hi] = std::minmax_element(busy.begin(), busy.end());
  p.imbalance = *lo > 0 ? *hi / *lo : 0.0;
  return p;
}

}  // namespace tricount
