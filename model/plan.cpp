#include "model/plan.hpp"

#include <algorithm>
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
  std::uint32_t fit = 1;
  while (fit <= kMaxParts && static_cast<double>(triple_bytes(synthetic_shape("", size.vertices, size.edges, 0, fit), pr.table_factor)) > budget)
    fit = fit < 16 ? fit + 1 : fit * 2;
  if (fit > kMaxParts)
    throw UsageError("--gpu-memory: no --parts up to " + std::to_string(kMaxParts) + " fits a block triple in it");
  plan.smallest_parts = fit;
  double best = -1;
  const std::uint64_t most_subtasks = 16ull * pr.tasks_per_gpu * static_cast<std::uint64_t>(pr.gpus);
  // (Static: also beyond that, up to 128, while no n has fitted a GPU's blocks yet.)
  for (std::uint32_t n = fit;
       n == fit || (n <= 128 && (std::uint64_t(n) * n * n <= most_subtasks || (static_schedule && best < 0))); n *= 2) {
    const std::uint32_t m = auto_workload_splits(n, static_cast<std::uint64_t>(pr.gpus), pr.tasks_per_gpu);
    if (!static_schedule) {
      const double t = predict_runs(model, shapes.at(n), m, {pr.gpus}, machine).front().seconds;
      if (best < 0 || t < best * 0.98) best = t, plan.parts = n, plan.splits = m;  // more parts only for a clear gain
      continue;
    }
    // Static: the shortest count phase whose blocks fit each GPU, over m, 2m, 4m (more
    // splits even out hub tasks but repeat the row walk); more parts or splits only for a
    // clear gain.
    const GraphShape shape = shapes.at(n);
    for (std::uint32_t more = m; more <= std::min<std::uint32_t>(4 * m, kMaxWorkloadSplits); more *= 2) {
      const StaticPrediction p = predict_static(model, shape, more, {pr.gpus}, machine, pr).front();
      if (!p.fits) continue;
      if (best < 0 || p.point.count_phase_seconds < best * 0.98)
        best = p.point.count_phase_seconds, plan.parts = n, plan.splits = more, plan.resident_bytes = p.point.max_bytes;
    }
  }
  if (static_schedule && best < 0)
    throw UsageError("--schedule static: at no --parts from " + std::to_string(fit) + " do the blocks of a GPU's tasks fit " +
                     "--gpu-memory at " + std::to_string(pr.gpus) + " GPUs: give more GPUs or count with the dynamic schedule");
  return plan;
}

}  // namespace tricount
