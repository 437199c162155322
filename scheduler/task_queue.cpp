#include "scheduler/task_queue.hpp"

#include <array>
#include <algorithm>
#include <cmath>
#include <functional>
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

TaskQueue::StaticAssignment TaskQueue::assign_static(int workers, int workers_per_node) const {
  if (workers < 1) throw Error("a static schedule needs at least one worker");
  if (workers_per_node <= 0 || workers_per_node >= workers) return assign_static_nodes({workers});
  std::vector<int> sizes;
  for (int first = 0; first < workers; first += workers_per_node) sizes.push_back(std::min(workers_per_node, workers - first));
  return assign_static_nodes(sizes);
}

TaskQueue::StaticAssignment TaskQueue::assign_static_nodes(const std::vector<int>& workers_per_node) const {
  if (workers_per_node.empty()) throw Error("a static schedule needs at least one worker");
  int workers = 0;
  for (int s : workers_per_node) {
    if (s < 1) throw Error("a static schedule's node has no worker");
    workers += s;
  }
  std::vector<std::uint64_t> ids;
  for (std::size_t p = 0; p < order_.size(); ++p)
    if (!taken_[p]) ids.push_back(order_[p]);
  // One node (or no blocks to group by): the workers directly.
  StaticAssignment flat = assign_greedy(ids, std::vector<double>(static_cast<std::size_t>(workers), 1.0), {}, kStaticCapacitySlack);
  if (workers_per_node.size() == 1 || !plan_) return flat;
  // 1. The tasks to nodes: home boxes first, capacities by the nodes' workers.
  const std::vector<int> homes = node_homes(workers_per_node);
  const std::uint64_t n = plan_->parts();
  std::vector<int> home(ids.size());
  for (std::size_t x = 0; x < ids.size(); ++x) {
    const Task t = plan_->decode(ids[x]);
    home[x] = homes[(std::uint64_t(t.i) * n + t.j) * n + t.k];
  }
  std::vector<double> weight(workers_per_node.begin(), workers_per_node.end());
  const StaticAssignment by_node = assign_greedy(ids, weight, home, kStaticCapacitySlack / 2);
  // 2. Within each node, its tasks to its workers as with one node.
  StaticAssignment a;
  a.tasks.resize(static_cast<std::size_t>(workers));
  a.cost.assign(static_cast<std::size_t>(workers), 0.0);
  int first = 0;
  for (std::size_t g = 0; g < workers_per_node.size(); ++g) {
    const int size = workers_per_node[g];
    StaticAssignment inner =
        assign_greedy(by_node.tasks[g], std::vector<double>(static_cast<std::size_t>(size), 1.0), {}, kStaticCapacitySlack / 2);
    for (int w = 0; w < size; ++w) {
      a.tasks[static_cast<std::size_t>(first + w)] = std::move(inner.tasks[static_cast<std::size_t>(w)]);
      a.cost[static_cast<std::size_t>(first + w)] = inner.cost[static_cast<std::size_t>(w)];
    }
    first += size;
  }
  // 3. The boxes pay where they need fewer blocks per node than the one-node assignment's
  // groups and stay within its capacity (few nodes on a small cube may not).
  double total = 0, costliest = 0;
  for (std::uint64_t id : ids) total += estimate(id), costliest = std::max(costliest, estimate(id));
  const double half = 1 + kStaticCapacitySlack / 2;
  const double bound = std::max(half * half * std::max(total / workers, costliest), *std::max_element(flat.cost.begin(), flat.cost.end()));
  auto node_blocks = [&](const StaticAssignment& s) {
    std::uint64_t sum = 0;
    std::size_t w = 0;
    std::vector<bool> seen(n * n);
    for (int size : workers_per_node) {
      std::fill(seen.begin(), seen.end(), false);
      for (int x = 0; x < size; ++x, ++w)
        for (std::uint64_t id : s.tasks[w])
          for (const BlockId& b : plan_->decode(id).blocks()) {
            const std::uint64_t at = std::uint64_t(b.row_class) * n + b.col_class;
            sum += seen[at] ? 0 : 1;
            seen[at] = true;
          }
    }
    return sum;
  };
  if (*std::max_element(a.cost.begin(), a.cost.end()) <= bound && node_blocks(a) < node_blocks(flat)) return a;
  return flat;
}

std::vector<int> TaskQueue::node_homes(const std::vector<int>& workers_per_node) const {
  if (!plan_) return {};
  const std::uint64_t n = plan_->parts();
  // The estimated cost of each subtask (i,j,k), over the tasks not yet handed out.
  std::vector<double> cube(n * n * n, 0.0);
  for (std::size_t p = 0; p < order_.size(); ++p)
    if (!taken_[p]) {
      const Task t = plan_->decode(order_[p]);
      cube[(std::uint64_t(t.i) * n + t.j) * n + t.k] += estimate(order_[p]);
    }
  std::vector<int> home(n * n * n, -1);
  struct Box {
    std::array<std::uint64_t, 3> lo, hi;
  };
  auto at = [&](std::uint64_t i, std::uint64_t j, std::uint64_t k) { return (i * n + j) * n + k; };
  // Recursive bisection: nodes [g0, g1) share `box`.
  std::function<void(Box, std::size_t, std::size_t)> split = [&](Box box, std::size_t g0, std::size_t g1) {
    std::size_t d = 0;
    for (std::size_t e = 1; e < 3; ++e)
      if (box.hi[e] - box.lo[e] > box.hi[d] - box.lo[d]) d = e;
    const std::uint64_t extent = box.hi[d] - box.lo[d];
    if (g1 - g0 == 1 || extent <= 1) {
      // One node, or a box of one subtask that several nodes would share: the first has it.
      for (std::uint64_t i = box.lo[0]; i < box.hi[0]; ++i)
        for (std::uint64_t j = box.lo[1]; j < box.hi[1]; ++j)
          for (std::uint64_t k = box.lo[2]; k < box.hi[2]; ++k) home[at(i, j, k)] = static_cast<int>(g0);
      return;
    }
    // The nodes in two halves, and the cut where the cost splits as their workers do.
    const std::size_t gm = g0 + (g1 - g0) / 2;
    double left_w = 0, all_w = 0;
    for (std::size_t g = g0; g < g1; ++g) (g < gm ? left_w : all_w) += workers_per_node[g];
    all_w += left_w;
    std::vector<double> slice(extent, 0.0);
    for (std::uint64_t i = box.lo[0]; i < box.hi[0]; ++i)
      for (std::uint64_t j = box.lo[1]; j < box.hi[1]; ++j)
        for (std::uint64_t k = box.lo[2]; k < box.hi[2]; ++k) {
          const std::array<std::uint64_t, 3> x{i, j, k};
          slice[x[d] - box.lo[d]] += cube[at(i, j, k)];
        }
    double total = 0;
    for (double c : slice) total += c;
    const double want = left_w / all_w;
    std::uint64_t cut = 1;
    double best = 2, sum = 0;
    for (std::uint64_t c = 1; c < extent; ++c) {
      sum += slice[c - 1];
      const double fraction = total > 0 ? sum / total : static_cast<double>(c) / static_cast<double>(extent);
      if (std::abs(fraction - want) < best) best = std::abs(fraction - want), cut = c;
    }
    Box left = box, right = box;
    left.hi[d] = box.lo[d] + cut;
    right.lo[d] = box.lo[d] + cut;
    split(left, g0, gm);
    split(right, gm, g1);
  };
  split(Box{{0, 0, 0}, {n, n, n}}, 0, workers_per_node.size());
  return home;
}

TaskQueue::StaticAssignment TaskQueue::assign_greedy(const std::vector<std::uint64_t>& ids, const std::vector<double>& weight,
                                                     const std::vector<int>& home, double slack) const {
  const int workers = static_cast<int>(weight.size());
  StaticAssignment a;
  a.tasks.resize(static_cast<std::size_t>(workers));
  a.cost.assign(static_cast<std::size_t>(workers), 0.0);
  // 1. The capacities: each bin's share of the total (or the costliest task), with a little slack.
  double total = 0, costliest = 0, all_weight = 0;
  for (std::uint64_t id : ids) total += estimate(id), costliest = std::max(costliest, estimate(id));
  for (double w : weight) all_weight += w;
  std::vector<double> capacity(static_cast<std::size_t>(workers));
  for (int w = 0; w < workers; ++w)
    capacity[static_cast<std::size_t>(w)] =
        (1 + slack) * std::max(total * weight[static_cast<std::size_t>(w)] / all_weight, costliest);
  // 2. Bins by (assigned cost per weight, index), and per block the bins holding it.
  auto relative = [&](int w) { return a.cost[static_cast<std::size_t>(w)] / weight[static_cast<std::size_t>(w)]; };
  std::set<std::pair<double, int>> by_load;
  for (int w = 0; w < workers; ++w) by_load.insert({0.0, w});
  const std::uint64_t n = plan_ ? plan_->parts() : 0;
  std::vector<std::vector<int>> holders(n * n);
  std::vector<std::vector<bool>> held(plan_ ? static_cast<std::size_t>(workers) : 0);  // per bin: n x n flags
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
  auto fits = [&](int w, double c) { return a.cost[static_cast<std::size_t>(w)] + c <= capacity[static_cast<std::size_t>(w)]; };
  // 3. Costliest first: to the task's home bin if it fits; else to the bin holding most of the
  // task's blocks that stays within its capacity (ties: least loaded, then lowest index), else
  // to the least loaded.
  for (std::size_t x = 0; x < ids.size(); ++x) {
    const std::uint64_t id = ids[x];
    const double c = estimate(id);
    int w = by_load.begin()->second;
    const int own = home.empty() ? -1 : home[x];
    if (own >= 0 && fits(own, c)) {
      w = own;
    } else if (plan_) {
      const auto need = blocks_of(id);
      int best_score = 0;
      for (std::uint64_t b : need)
        for (int h : holders[b]) {
          if (!fits(h, c)) continue;
          int score = 0;
          for (std::uint64_t other : need) score += holds(h, other) ? 1 : 0;
          const double load = relative(h), best_load = relative(w);
          if (score > best_score || (score == best_score && (load < best_load || (load == best_load && h < w))))
            best_score = score, w = h;
        }
    }
    if (plan_) {
      const auto need = blocks_of(id);
      std::vector<bool>& h = held[static_cast<std::size_t>(w)];
      if (h.empty()) h.assign(n * n, false);
      for (std::uint64_t b : need)
        if (!h[b]) h[b] = true, holders[b].push_back(w);
    }
    by_load.erase({relative(w), w});
    a.cost[static_cast<std::size_t>(w)] += c;
    by_load.insert({relative(w), w});
    a.tasks[static_cast<std::size_t>(w)].push_back(id);
  }
  return a;
}

}  // namespace tricount
