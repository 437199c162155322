#include "model/predict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "src/task_plan.hpp"

namespace tricount {

JournalContents model_task_run(const CostModel& model, const GraphShape& shape, std::uint32_t splits) {
  check_workload_splits(splits);
  JournalContents run;
  run.identity.parts = shape.parts;
  run.identity.splits = splits;
  run.identity.vertices = shape.vertices;
  const TaskPlan plan(shape.parts, splits);
  run.records.reserve(plan.num_tasks());
  for (std::uint64_t id = 0; id < plan.num_tasks(); ++id) {
    const Task t = plan.decode(id);
    const double work = static_cast<double>(shape.subtask_work[(std::size_t(t.i) * shape.parts + t.j) * shape.parts + t.k]) / splits;
    const double rows = static_cast<double>(rows_in_class(shape.vertices, shape.parts, t.i));
    run.records.push_back(
        {id, 0, model.task_overhead_seconds + model.seconds_per_work * work + model.seconds_per_row * rows, 0, work, 0.0});
  }
  return run;
}

BlockLoads model_block_loads(const CostModel& model, const GraphShape& shape, double seconds_per_byte, bool with_fixed_costs) {
  BlockLoads loads{shape.loaded_bytes(), seconds_per_byte};
  // The simulator charges bytes at one rate: a block's fixed and per-row costs ride on it as
  // the bytes read at that rate in the same time.
  if (with_fixed_costs && (model.load_seconds_per_block > 0 || model.load_seconds_per_row > 0))
    for (std::size_t b = 0; b < loads.block_bytes.size(); ++b) {
      const double rows = static_cast<double>(rows_in_class(shape.vertices, shape.parts, static_cast<std::uint32_t>(b / shape.parts)));
      loads.block_bytes[b] +=
          static_cast<std::uint64_t>((model.load_seconds_per_block + model.load_seconds_per_row * rows) / seconds_per_byte);
    }
  return loads;
}

std::vector<PredictedPoint> predict_runs(const CostModel& model, const GraphShape& shape, std::uint32_t splits,
                                         const std::vector<int>& gpu_counts, const MachineParameters& machine) {
  check_workload_splits(splits);
  // 1. The run as a journal of predicted task costs (load charged by the simulator).
  const JournalContents run = model_task_run(model, shape, splits);
  // 2. Each GPU count through the scheduler's policy, reading at the slowest of the bounds.
  auto rate_at = [&](int gpus) {
    const double own = model.load_seconds_per_byte;
    const double network = std::min(gpus, machine.gpus_per_node) / machine.network_bytes_per_second;
    const double shared_fs = gpus / machine.file_system_bytes_per_second;
    return std::max({own, network, shared_fs}) + model.upload_seconds_per_byte * shape.upload_cost;
  };
  double count_seconds = 0;
  for (const JournalRecord& r : run.records) count_seconds += r.seconds;
  const bool extra_costs = model.load_seconds_per_block > 0 || model.load_seconds_per_row > 0;
  auto loads_at = [&](int gpus, bool with_fixed_costs) { return model_block_loads(model, shape, rate_at(gpus), with_fixed_costs); };
  const BlockLoads one = loads_at(1, true);
  const double one_gpu = simulate_schedule(run, 1, 0, &one).predicted_seconds;
  std::vector<PredictedPoint> points;
  for (int gpus : gpu_counts) {
    const BlockLoads loads = loads_at(gpus, true);
    SimulationPoint s = simulate_schedule(run, gpus, 0, &loads);
    // What the simulator charged for reads (fixed costs included), then the real bytes.
    const double charged_all = static_cast<double>(s.mean_bytes_loaded) * gpus * loads.seconds_per_byte;
    if (extra_costs) {
      const BlockLoads plain = loads_at(gpus, false);
      const SimulationPoint bytes_only = simulate_schedule(run, gpus, 0, &plain);
      s.max_bytes_loaded = bytes_only.max_bytes_loaded, s.mean_bytes_loaded = bytes_only.mean_bytes_loaded;
    }
    PredictedPoint p;
    p.gpus = gpus;
    p.seconds = s.predicted_seconds;
    p.speedup = s.predicted_seconds > 0 ? one_gpu / s.predicted_seconds : 1;
    p.efficiency = p.speedup / gpus;
    p.imbalance = s.imbalance;
    p.load_seconds_per_byte = loads.seconds_per_byte;
    p.max_bytes_per_gpu = s.max_bytes_loaded;
    p.mean_bytes_per_gpu = s.mean_bytes_loaded;
    p.tasks = s.tasks;
    p.count_seconds = count_seconds;
    const double bytes_all = static_cast<double>(s.mean_bytes_loaded) * gpus;
    p.upload_seconds = bytes_all * model.upload_seconds_per_byte;
    p.load_seconds = charged_all - p.upload_seconds;
    points.push_back(p);
  }
  return points;
}

std::vector<StaticPrediction> predict_static(const CostModel& model, const GraphShape& shape, std::uint32_t splits,
                                             const std::vector<int>& counts, const MachineParameters& machine,
                                             const PlanRequest& memory) {
  const JournalContents run = model_task_run(model, shape, splits);
  const std::vector<PredictedPoint> dynamic = predict_runs(model, shape, splits, counts, machine);
  const double one_rate = predict_runs(model, shape, splits, {1}, machine).front().load_seconds_per_byte;
  const double budget = memory.memory_headroom * static_cast<double>(memory.gpu_memory_bytes);
  // With a load path, the runtime's assignment by nodes (one sub-cube per node).
  const bool by_nodes = !machine.load_path.empty();
  const int per_node = by_nodes ? machine.gpus_per_node : 0;
  const TaskPlan plan(shape.parts, splits);
  std::vector<StaticPrediction> out;
  for (std::size_t c = 0; c < counts.size(); ++c) {
    StaticPrediction p;
    p.dynamic = dynamic[c];
    // Times with each block's fixed load costs; bytes held without them; the one-GPU base at its own rate.
    const BlockLoads charged = model_block_loads(model, shape, dynamic[c].load_seconds_per_byte, true);
    // What each GPU holds: its blocks' CSR bytes (a packed block is decoded on the device).
    const BlockLoads plain{shape.block_bytes, dynamic[c].load_seconds_per_byte};
    const BlockLoads base_loads = model_block_loads(model, shape, one_rate, true);
    std::vector<std::vector<std::uint64_t>> assignment;
    p.point = simulate_static(run, counts[c], &charged, one_rate, per_node, by_nodes ? &assignment : nullptr);
    const StaticSimulationPoint bytes = simulate_static(run, counts[c], &plain, -1, per_node);
    const StaticSimulationPoint base = simulate_static(run, 1, &base_loads);
    p.point.max_bytes = bytes.max_bytes, p.point.mean_bytes = bytes.mean_bytes;
    if (by_nodes) {
      // 2. Each path's load phase for that assignment; the one asked for (or the faster).
      p.file = load_phase(model, shape, plan, assignment, machine, "file");
      p.forward = load_phase(model, shape, plan, assignment, machine, "forward");
      p.path = machine.load_path != "auto" ? machine.load_path
               : p.forward.load_phase_seconds < p.file.load_phase_seconds ? "forward" : "file";
      p.point.load_phase_seconds = (p.path == "file" ? p.file : p.forward).load_phase_seconds;
      p.point.total_seconds = p.point.load_phase_seconds + p.point.count_phase_seconds;
    }
    p.point.speedup = p.point.total_seconds > 0 ? base.total_seconds / p.point.total_seconds : 1.0;
    p.point.efficiency = p.point.speedup / counts[c];
    p.fits = memory.gpu_memory_bytes == 0 ||
             static_cast<double>(p.point.max_bytes) + memory.table_factor * static_cast<double>(shape.max_block_bytes()) <= budget;
    out.push_back(p);
  }
  return out;
}

GraphSize graph_size(const GraphRequest& g, const CostModel& model) {
  GraphSize s;
  const KroneckerFamily& k = model.kronecker;
  if (g.kronecker_scale > 0) {
    if (!k.fitted) throw UsageError("--kronecker-scale: the model has no Kronecker family (fit it with --kronecker-sample)");
    const double v = k.vertices.at(g.kronecker_scale), e = k.edges.at(g.kronecker_scale);
    if (v > double(kMaxVertices)) {
      char count[32];
      std::snprintf(count, sizeof count, "%.3g", v);
      throw UsageError("--kronecker-scale " + std::to_string(g.kronecker_scale) + ": the model's Kronecker family gives " +
                       count + " vertices, more than 2^32 - 1 (give a smaller scale)");
    }
    s.vertices = static_cast<std::uint64_t>(v), s.edges = static_cast<std::uint64_t>(e);
    s.total_work = static_cast<std::uint64_t>(k.work.at(g.kronecker_scale));
    s.description = "Kronecker scale " + std::to_string(g.kronecker_scale);
    return s;
  }
  if (g.edges < 1 || g.vertices < 2) throw UsageError("--edges and --vertices: give both, at least 1 and 2");
  if (g.vertices > double(kMaxVertices)) throw UsageError("--vertices is more than 2^32 - 1");
  if (g.edges > g.vertices * (g.vertices - 1) / 2) throw UsageError("--edges is more than a simple graph of --vertices can hold");
  s.vertices = static_cast<std::uint64_t>(g.vertices), s.edges = static_cast<std::uint64_t>(g.edges);
  if (g.family == "kronecker") {
    if (!k.fitted) throw UsageError("--family kronecker: the model has no Kronecker family (fit it with --kronecker-sample)");
    // The scale whose edge count this is; its work per edge.
    const double scale = (std::log2(g.edges) - k.edges.intercept) / k.edges.slope;
    s.total_work = static_cast<std::uint64_t>(g.edges * k.work.at(scale) / k.edges.at(scale));
  } else if (g.family == "erdos-renyi") {
    // Uniform degrees d = 2|E|/|V|: each oriented edge probes the out-list of its head, about d/2.
    s.total_work = static_cast<std::uint64_t>(g.edges + g.edges * g.edges / g.vertices);
  } else {
    throw UsageError("--family: '" + g.family + "' is not kronecker or erdos-renyi");
  }
  s.description = g.family + " graph of " + std::to_string(s.vertices) + " vertices and " + std::to_string(s.edges) + " edges";
  return s;
}

GraphShapes graph_shapes(const GraphRequest& graph, const CostModel& model, bool any_parts, std::uint32_t parts,
                         const std::vector<std::string>& like) {
  GraphShapes shapes;
  shapes.packed = graph.packed;
  if (!graph.input.empty()) {
    shapes.from_file = file_shape(graph.input);
    if (any_parts) {
      // Other parts than the file's: its size and total work (work does not depend on n), even tasks.
      const GraphShape& f = *shapes.from_file;
      shapes.size = GraphSize{f.description, f.vertices, f.edges, f.total_work()};
      shapes.from_file.reset();
    } else if (parts != 0 && parts != shapes.from_file->parts)
      throw UsageError("--parts " + std::to_string(parts) + ": '" + graph.input + "' has n = " +
                       std::to_string(shapes.from_file->parts) + " (partition it again for other parts)");
  } else {
    shapes.size = graph_size(graph, model);
  }
  // --like files by their parts (the one with the most edges where several share n).
  for (const std::string& path : like) {
    const BlockFileReader file(path);
    auto& slot = shapes.like_at[file.header().parts];
    if (file.header().edges > slot.first) slot = {file.header().edges, path};
  }
  return shapes;
}

GraphShape GraphShapes::at(std::uint32_t n) const {
  if (from_file) return *from_file;
  GraphShape shape;
  if (const auto like = like_at.find(n); like != like_at.end()) {
    shape = like_shape(size->description, size->vertices, size->edges, size->total_work, like->second.second);
  } else {
    shape = synthetic_shape(size->description, size->vertices, size->edges, size->total_work, n);
    shape.description += ", even tasks and blocks";
  }
  if (packed) {
    pack_shape(shape);
    shape.description += ", packed blocks";
  }
  return shape;
}

}  // namespace tricount
