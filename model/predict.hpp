// Predictions of runs not measured, from a cost model (model/cost_model.hpp) and a graph's
// shape (model/graph_shape.hpp), through the scheduler's own policy (model/simulate.hpp):
// the dynamic schedule (tasks handed out as GPUs ask) and the static one (each GPU loads the
// blocks of its assigned tasks, then counts). At scale, a GPU reads no faster than its share
// of the node's network link and of the shared file system (MachineParameters); with a load
// path (model/load_phase.hpp) the static schedule is assigned by nodes and its load phase
// is that path's pipes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/cost_model.hpp"
#include "model/graph_shape.hpp"
#include "model/load_phase.hpp"
#include "model/simulate.hpp"

namespace tricount {

struct PredictedPoint {
  int gpus = 1;
  double seconds = 0, speedup = 1, efficiency = 1, imbalance = 1;
  double load_seconds_per_byte = 0;  // the rate used at this count (the slowest of the bounds)
  std::uint64_t max_bytes_per_gpu = 0, mean_bytes_per_gpu = 0;
  std::uint64_t tasks = 0;
  double count_seconds = 0;  // summed over every GPU: overheads and counting
  double load_seconds = 0;   // summed over every GPU: block reads
  double upload_seconds = 0; // summed over every GPU: host -> device copies of the blocks read
};

// What simulating `tasks` tasks on `gpus` virtual GPUs costs, in units of one waiting task
// looked at by a hand-out (each hand-out scans up to max(8, 2 x gpus) waiting tasks for block
// affinity; a task's own bookkeeping counts as 48 such), and the most one prediction or plan
// may spend: a few minutes on one core (a unit took 0.1 to 0.25 us on a 2-core VM; the plan
// for 1024 GPUs of the README costs about 2^29 dynamic, 2^31 static). A static point costs
// about 4 dynamic ones (its dynamic twin, the assignment, the phases).
inline double simulation_cost(double tasks, double gpus) {
  return tasks * (48 + std::min(std::max(8.0, 2 * gpus), tasks));
}
inline constexpr double kMaxSimulationCost = 4294967296.0;  // 2^32
inline constexpr double kStaticSimulationFactor = 4;

// The run predict_runs simulates, as a journal: each task's model seconds (overhead, work,
// row walk; no loads) and its work estimate. The static schedule's simulation starts from it too.
JournalContents model_task_run(const CostModel& model, const GraphShape& shape, std::uint32_t splits);
// The blocks as the simulator charges them at `seconds_per_byte`; with_fixed_costs adds each
// block's per-block and per-row load seconds as the bytes read at that rate in the same time.
BlockLoads model_block_loads(const CostModel& model, const GraphShape& shape, double seconds_per_byte, bool with_fixed_costs);
// Predicts one run of `shape` at m splits on each GPU count (efficiency against one GPU
// at the same n and m), through the scheduler's own policy (simulate_schedule).
std::vector<PredictedPoint> predict_runs(const CostModel& model, const GraphShape& shape, std::uint32_t splits,
                                         const std::vector<int>& gpu_counts, const MachineParameters& machine);

// What a plan aims for (model/plan.hpp) and the GPU memory a static prediction checks the
// blocks against: the parts whose triple of blocks (and the hash tables of one of them) fit
// the GPU's memory, and the splits that give every GPU enough tasks.
struct PlanRequest {
  int gpus = 1;
  std::uint64_t gpu_memory_bytes = 0;
  double memory_headroom = 0.8;   // fraction of GPU memory the blocks and tables may use
  double table_factor = 2.0;      // hash table bytes per byte of the hashed block
  std::uint32_t tasks_per_gpu = kAutoTasksPerWorker;  // --tasks-per-gpu: at least this many tasks per GPU
};

// The static schedule at each GPU count: the runtime's assignment, the blocks each GPU holds,
// the load phase at the rate predict_runs charges at that count, then the count phase. With
// machine.load_path set, the assignment is by nodes of machine.gpus_per_node and the load
// phase is the path's (both paths' terms kept; `point` and `path` are the one asked for, or
// the faster for "auto").
struct StaticPrediction {
  PredictedPoint dynamic;        // the dynamic schedule's prediction at the same count
  StaticSimulationPoint point;
  bool fits = true;              // the GPU's blocks and the hash tables of its largest block fit
  std::string path;              // "" (the earlier model), file or forward
  LoadPhaseTerms file, forward;  // with a load path: each path's load phase at this assignment
};
std::vector<StaticPrediction> predict_static(const CostModel& model, const GraphShape& shape, std::uint32_t splits,
                                             const std::vector<int>& counts, const MachineParameters& machine,
                                             const PlanRequest& memory);

// A graph to predict, given by its block file or by its size.
struct GraphRequest {
  std::string input, family = "kronecker";
  int kronecker_scale = 0;
  double edges = 0, vertices = 0;
  bool packed = false;  // a graph given by size, partitioned with --block-encoding packed
};

// |V|, |E| and total work of a graph given by size, from the model's family fit.
struct GraphSize {
  std::string description;
  std::uint64_t vertices = 0, edges = 0, total_work = 0;
};
// Throws UsageError naming the option when the size cannot be predicted.
GraphSize graph_size(const GraphRequest& g, const CostModel& model);

// The graph's shape at any n: a block file's own (at its n only), or a graph of a size, with
// the shape of a --like file at that file's n and even tasks and blocks elsewhere.
struct GraphShapes {
  std::optional<GraphSize> size;        // a graph given by size (a block file's, when planning)
  std::optional<GraphShape> from_file;  // a block file's own shape, at its n
  std::map<std::uint32_t, std::pair<std::uint64_t, std::string>> like_at;  // n -> most edges, path
  bool packed = false;  // shapes made for a size are packed (pack_shape)
  GraphShape at(std::uint32_t n) const;
};
// `any_parts` (planning): a block file stands for its size, at any n; else `parts` (0: the
// file's) must be the file's n. `like`: block files of smaller graphs of the same family.
GraphShapes graph_shapes(const GraphRequest& graph, const CostModel& model, bool any_parts, std::uint32_t parts,
                         const std::vector<std::string>& like);

}  // namespace tricount
