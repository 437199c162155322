#include "scheduler/task_queue.hpp"

#include <algorithm>
#include <numeric>

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
        const BlockId need[3] = {t.hash_block(), t.one_hop_block(), t.two_hop_block()};
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
    for (const BlockId& b : {t.hash_block(), t.one_hop_block(), t.two_hop_block()}) {
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
