#include "scheduler/task_queue.hpp"

#include <array>
#include <algorithm>
#include <numeric>
#include <set>
#include <utility>

namespace tricount {

TaskQueue::TaskQueue(std::uint64_t num_tasks) : order_(num_tasks), taken_(num_tasks, false), remaining_(num_tasks) {
  std::iota(order_.begin(), order_.end(), std::uint64_t{0});
}

TaskQueue::TaskQueue(const TaskPlan& plan, const std::vector<std::uint64_t>& work,
                     const std::vector<std::uint64_t>& block_nnz, const std::unordered_set<std::uint64_t>& done)
    : plan_(plan) {
  const std::uint64_t n = plan.parts(), total = plan.num_tasks();
  const bool have_work = work.size() == n * n * n;
  cost_.resize(total);
  for (std::uint64_t id = 0; id < total; ++id) {
    const Task t = plan.decode(id);
    const std::uint64_t ijk = (std::uint64_t(t.i) * n + t.j) * n + t.k;
    double c = 0;
    if (have_work) {
      c = static_cast<double>(work[ijk]);
    } else if (block_nnz.size() == n * n) {
      c = static_cast<double>(block_nnz[t.i * n + t.j] + block_nnz[t.j * n + t.k] + block_nnz[t.i * n + t.k]);
    }
    cost_[id] = c / plan.splits();
    if (!done.count(id)) order_.push_back(id);
  }
  sort_by_cost();
}

TaskQueue::TaskQueue(const TaskPlan& plan, std::vector<double> cost_by_task, const std::vector<bool>& present)
    : plan_(plan), cost_(std::move(cost_by_task)) {
  if (cost_.size() != plan.num_tasks() || present.size() != plan.num_tasks())
    throw Error("task costs do not cover the plan's " + std::to_string(plan.num_tasks()) + " tasks");
  for (std::uint64_t id = 0; id < plan.num_tasks(); ++id)
    if (present[id]) order_.push_back(id);
  sort_by_cost();
}

void TaskQueue::sort_by_cost() {
  std::stable_sort(order_.begin(), order_.end(), [&](std::uint64_t a, std::uint64_t b) { return cost_[a] > cost_[b]; });
  taken_.assign(order_.size(), false);
  remaining_ = order_.size();
}

double TaskQueue::estimate(std::uint64_t task) const { return cost_.empty() ? 0.0 : cost_[task]; }

std::optional<std::uint64_t> TaskQueue::pop(int worker) {
  while (head_ < order_.size() && taken_[head_]) ++head_;
  if (head_ >= order_.size()) return std::nullopt;
  std::size_t pick = head_;
  if (plan_ && worker >= 0) {
    if (held_.size() <= static_cast<std::size_t>(worker)) held_.resize(static_cast<std::size_t>(worker) + 1);
    const std::vector<BlockId>& held = held_[static_cast<std::size_t>(worker)].blocks;
    if (!held.empty()) {
      auto shared = [&](const Task& t) {
        const std::array<BlockId, 3> need = t.blocks();
        int s = 0;
        for (const BlockId& b : need) s += std::find(held.begin(), held.end(), b) != held.end();
        return s;
      };
      const double floor = cost_[order_[head_]] * kAffinityCostFactor;
      const std::size_t window = std::max(kAffinityWindow, kAffinityWindowPerWorker * held_.size());  // held_: one per worker rank seen
      int best = -1;
      std::size_t seen = 0;
      for (std::size_t p = head_; p < order_.size() && seen < window; ++p) {
        if (taken_[p]) continue;
        ++seen;
        if (cost_[order_[p]] < floor) break;
        const int s = shared(plan_->decode(order_[p]));
        if (s > best) {
          best = s;
          pick = p;
          if (s == 3) break;
        }
      }
    }
  }
  taken_[pick] = true;
  --remaining_;
  const std::uint64_t id = order_[pick];
  if (plan_ && worker >= 0) {
    Held& h = held_[static_cast<std::size_t>(worker)];
    const Task t = plan_->decode(id);
    for (const BlockId& b : t.blocks()) {
      if (std::find(h.blocks.begin(), h.blocks.end(), b) != h.blocks.end()) continue;
      if (h.blocks.size() < 3 * kAffinityMemory) {
        h.blocks.push_back(b);
      } else {
        h.blocks[h.next] = b;  // the oldest goes
        h.next = (h.next + 1) % h.blocks.size();
      }
    }
  }
  return id;
}

}  // namespace tricount

namespace tricount {

TaskQueue::StaticAssignment TaskQueue::assign_static(int workers) const {
  if (workers < 1) throw Error("a static schedule needs at least one worker");
  StaticAssignment a;
  a.tasks.resize(static_cast<std::size_t>(workers));
  a.cost.assign(static_cast<std::size_t>(workers), 0.0);
  // 1. The capacity: the ideal share (or the costliest task), with a little slack.
  double total = 0, costliest = 0;
  for (std::size_t p = 0; p < order_.size(); ++p)
    if (!taken_[p]) total += estimate(order_[p]), costliest = std::max(costliest, estimate(order_[p]));
  const double capacity = (1 + kStaticCapacitySlack) * std::max(total / workers, costliest);
  // 2. Workers by (assigned cost, index), and per block the workers holding it.
  std::set<std::pair<double, int>> by_load;
  for (int w = 0; w < workers; ++w) by_load.insert({0.0, w});
  const std::uint64_t n = plan_ ? plan_->parts() : 0;
  std::vector<std::vector<int>> holders(n * n);
  std::vector<std::vector<bool>> held(plan_ ? static_cast<std::size_t>(workers) : 0);  // per worker: n x n flags
  auto holds = [&](int w, std::uint64_t b) {
    const std::vector<bool>& h = held[static_cast<std::size_t>(w)];
    return !h.empty() && h[b];
  };
  auto blocks_of = [&](std::uint64_t id) {
    const Task t = plan_->decode(id);
    const std::array<BlockId, 3> need = t.blocks();
    std::array<std::uint64_t, 3> b{};
    for (std::size_t r = 0; r < 3; ++r) b[r] = std::uint64_t(need[r].row_class) * n + need[r].col_class;
    return b;
  };
  // 3. Costliest first: to the worker holding most of the task's blocks that stays within
  // the capacity (ties: least loaded, then lowest index), else to the least loaded.
  for (std::size_t p = 0; p < order_.size(); ++p) {
    if (taken_[p]) continue;
    const std::uint64_t id = order_[p];
    const double c = estimate(id);
    int w = by_load.begin()->second;
    if (plan_) {
      const auto need = blocks_of(id);
      int best_score = 0;
      for (std::uint64_t b : need)
        for (int h : holders[b]) {
          const double load = a.cost[static_cast<std::size_t>(h)];
          if (load + c > capacity) continue;
          int score = 0;
          for (std::uint64_t other : need) score += holds(h, other) ? 1 : 0;
          const double best_load = a.cost[static_cast<std::size_t>(w)];
          if (score > best_score || (score == best_score && (load < best_load || (load == best_load && h < w))))
            best_score = score, w = h;
        }
      std::vector<bool>& h = held[static_cast<std::size_t>(w)];
      if (h.empty()) h.assign(n * n, false);
      for (std::uint64_t b : need)
        if (!h[b]) h[b] = true, holders[b].push_back(w);
    }
    double& load = a.cost[static_cast<std::size_t>(w)];
    by_load.erase({load, w});
    load += c;
    by_load.insert({load, w});
    a.tasks[static_cast<std::size_t>(w)].push_back(id);
  }
  return a;
}

}  // namespace tricount
