// The planner (tricount-simulate --plan): the --parts and --workload-splits to count a graph
// with on a cluster, from the cost model's predictions (model/predict.hpp). The smallest n
// whose largest triple of blocks and hash tables fit one GPU, then the splits that give every
// GPU enough tasks; among n, 2n, ... the fastest predicted at the most GPUs (static schedule:
// the shortest load + count phase; with a load path, by that path's load phase, and the path
// for "auto").
#pragma once

#include <cstdint>
#include <string>

#include "model/predict.hpp"

namespace tricount {

// The bytes of the largest block triple of a task of `shape`, with the hashed block's tables.
std::uint64_t triple_bytes(const GraphShape& shape, double table_factor);
// The splits at n parts: auto_workload_splits (src/task_plan.hpp) for request.gpus GPUs and
// request.tasks_per_gpu, the rule of tricount-count's --workload-splits auto.

struct Plan {
  std::uint32_t parts = 0, splits = 1;
  std::uint32_t smallest_parts = 1;  // the smallest n whose block triple fits
  std::uint64_t resident_bytes = 0;  // static schedule: the blocks on the fullest GPU at the plan
  std::string load_path;             // static schedule with machine.load_path: file or forward
};
// Throws UsageError naming --gpu-memory when no n fits (for the static schedule: when at no
// n do the blocks of a GPU's tasks fit).
Plan plan_run(const CostModel& model, const GraphShapes& shapes, const PlanRequest& request, const MachineParameters& machine,
              bool static_schedule);

}  // namespace tricount
