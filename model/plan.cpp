#include "model/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "src/task_plan.hpp"

namespace tricount {

std::uint64_t triple_bytes(const GraphShape& shape, double table_factor) {
  const std::uint64_t n = shape.parts;
  double most = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t j = 0; j < n; ++j)
      for (std::uint64_t k = 0; k < n; ++k) {
        const double hash = static_cast<double>(shape.block_bytes[i * n + k]);
        most = std::max(most, hash * (1 + table_factor) + static_cast<double>(shape.block_bytes[i * n + j]) +
                                  static_cast<double>(shape.block_bytes[j * n + k]));
      }
  return static_cast<std::uint64_t>(most);
}

// Smallest n whose triple fits, then splits for enough tasks; among n, 2n, ... up to 128
// (more parts: smaller blocks read per GPU, more tasks) while the subtasks are at most 16
// times the tasks wanted (beyond that only the row walks and offsets grow), the fastest at
// the most GPUs.
Plan plan_run(const CostModel& model, const GraphShapes& shapes, const PlanRequest& pr, const MachineParameters& machine,
              bool static_schedule) {
  const GraphSize& size = *shapes.size;
  Plan plan;
  const double budget = pr.memory_headroom * static_cast<double>(pr.gpu_memory_bytes);
  // The triple of even blocks, without building the shape (n^3 task estimates: a billion at
  // n = 1024, which took 23 s to find that nothing fits 1 byte).
  const auto even_triple = [&](std::uint32_t n) {
    const double block = static_cast<double>(block_bytes_of(size.vertices, n, 0, size.edges / (std::uint64_t(n) * n)));
    return block * (3 + pr.table_factor);
  };
  std::uint32_t fit = 1;
  while (fit <= kMaxParts && even_triple(fit) > budget) fit = fit < 16 ? fit + 1 : fit * 2;
  if (fit > kMaxParts) {
    char need[64];
    std::snprintf(need, sizeof need, "%.3g", even_triple(kMaxParts) / pr.memory_headroom);
    throw UsageError("--gpu-memory: no --parts up to " + std::to_string(kMaxParts) + " fits a block triple and its tables in " +
                     std::to_string(pr.gpu_memory_bytes) + " bytes (x --memory-headroom): give at least " + need +
                     " bytes, which fits at --parts " + std::to_string(kMaxParts));
  }
  plan.smallest_parts = fit;
  // The simulations the plan runs (below, then the predictions at 1, 2, 4, ... GPUs), costed
  // before any runs: a plan that would take longer than kMaxSimulationCost is refused, saying
  // which --gpus would do. Static: m, 2m and 4m at each n, each a static point.
  const double factor = static_schedule ? 3 * kStaticSimulationFactor : 1;
  const auto point_cost = [&](std::uint32_t n, int gpus) {
    const double tasks = double(n) * n * n * auto_workload_splits(n, static_cast<std::uint64_t>(gpus), pr.tasks_per_gpu);
    return factor * (simulation_cost(tasks, gpus) + simulation_cost(tasks, 1));
  };
  const auto plan_cost = [&](int gpus) {
    const double most_subtasks = 16.0 * pr.tasks_per_gpu * gpus;
    double cost = 0, last = 0;
    for (std::uint32_t n = fit; n == fit || (n <= 128 && double(n) * n * n <= most_subtasks); n *= 2)
      last = point_cost(n, gpus), cost += last;
    return cost + 2 * last;  // the predictions at every power of two cost about two at the most GPUs
  };
  if (plan_cost(pr.gpus) > kMaxSimulationCost) {
    int most = pr.gpus;
    while (most > 1 && plan_cost(most) > kMaxSimulationCost) most /= 2;
    throw UsageError("--plan: --tasks-per-gpu " + std::to_string(pr.tasks_per_gpu) + " at --gpus " + std::to_string(pr.gpus) +
                     (static_schedule ? " (static schedule)" : "") + " needs more simulation than a plan may run (a few "
                     "minutes): give --gpus at most " + std::to_string(most) +
                     (pr.tasks_per_gpu > 1 ? ", or fewer --tasks-per-gpu" : ""));
  }
  double spent = 0;
  double best = -1;
  const std::uint64_t most_subtasks = 16ull * pr.tasks_per_gpu * static_cast<std::uint64_t>(pr.gpus);
  // (Static: also beyond that, up to 128, while no n has fitted a GPU's blocks yet.)
  for (std::uint32_t n = fit;
       n == fit || (n <= 128 && (std::uint64_t(n) * n * n <= most_subtasks || (static_schedule && best < 0))); n *= 2) {
    const std::uint32_t m = auto_workload_splits(n, static_cast<std::uint64_t>(pr.gpus), pr.tasks_per_gpu);
    spent += point_cost(n, pr.gpus);
    if (spent > kMaxSimulationCost)
      throw UsageError("--schedule static: up to --parts " + std::to_string(n / 2) + " no n fits the blocks of a GPU's tasks "
                       "in --gpu-memory at " + std::to_string(pr.gpus) + " GPUs, and larger n need more simulation than a "
                       "plan may run: give more --gpu-memory or GPUs, or count with the dynamic schedule");
    if (!static_schedule) {
      const double t = predict_runs(model, shapes.at(n), m, {pr.gpus}, machine).front().seconds;
      if (best < 0 || t < best * 0.98) best = t, plan.parts = n, plan.splits = m;  // more parts only for a clear gain
      continue;
    }
    // Static: the shortest load + count phase whose blocks fit each GPU (a plan by the count
    // phase alone took the fewest parts, each GPU loading the most), over m, 2m, 4m (more
    // splits even out hub tasks but repeat the row walk); more parts or splits only for a
    // clear gain. With a load path, that path's load phase (and the path).
    const GraphShape shape = shapes.at(n);
    for (std::uint32_t more = m; more <= std::min<std::uint32_t>(4 * m, kMaxWorkloadSplits); more *= 2) {
      const StaticPrediction p = predict_static(model, shape, more, {pr.gpus}, machine, pr).front();
      if (!p.fits) continue;
      const double t = p.point.total_seconds;
      if (best < 0 || t < best * 0.98)
        best = t, plan.parts = n, plan.splits = more, plan.resident_bytes = p.point.max_bytes, plan.load_path = p.path;
    }
  }
  if (static_schedule && best < 0)
    throw UsageError("--schedule static: at no --parts from " + std::to_string(fit) + " do the blocks of a GPU's tasks fit " +
                     "--gpu-memory at " + std::to_string(pr.gpus) + " GPUs: give more GPUs or count with the dynamic schedule");
  return plan;
}

}  // namespace tricount
