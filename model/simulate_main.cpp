// tricount-simulate: predicted scaling. Four modes:
//   --journal J              replay one journal's measured task costs (as before);
//   --fit MODEL --journal J… fit a cost model (model/cost_model.hpp) and save it;
//   --model MODEL GRAPH      predict runs of a graph (block file, or its size) not measured;
//   --plan --model MODEL …   recommend --parts and --workload-splits, with the predictions.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "model/cost_model.hpp"
#include "model/simulate.hpp"
#include "src/block_format.hpp"
#include "src/cli.hpp"
#include "src/json.hpp"
#include "src/output_file.hpp"

namespace tricount {
namespace {

// Each point replays every task over that many virtual workers (memory and time grow with it).
constexpr int kMaxSimulatedWorkers = 1 << 16;

std::vector<int> parse_counts(const std::string& list, const std::string& option) {
  std::vector<int> counts;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      std::size_t used = 0;
      const int w = std::stoi(item, &used);
      if (used != item.size() || w < 1 || w > kMaxSimulatedWorkers) throw std::invalid_argument(item);
      counts.push_back(w);
    } catch (const std::exception&) {
      throw UsageError(option + ": '" + item + "' is not a number between 1 and " + std::to_string(kMaxSimulatedWorkers));
    }
  }
  if (counts.empty()) throw UsageError(option + " is empty");
  return counts;
}

std::vector<int> powers_of_two_up_to(int most) {
  std::vector<int> counts;
  for (int w = 1; w < most; w *= 2) counts.push_back(w);
  counts.push_back(most);
  return counts;
}

// The bytes of every block of a file (n x n, row-major), from its attributes.
std::vector<std::uint64_t> file_block_bytes(const BlockFileReader& file) {
  const std::uint32_t n = file.header().parts;
  std::vector<std::uint64_t> bytes;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) bytes.push_back(block_bytes_of(file.header().vertices, n, i, file.block_nnz({i, j})));
  return bytes;
}

GraphShape file_shape(const std::string& path) {
  const BlockFileReader file(path);
  GraphShape g;
  g.description = "block file '" + path + "'";
  g.vertices = file.header().vertices, g.edges = file.header().edges, g.parts = file.header().parts;
  g.subtask_work = file.read_task_work();
  if (g.subtask_work.empty())
    throw Error("'" + path + "' has no /task_work estimates: partition it again with this tricount-partition");
  g.block_bytes = file_block_bytes(file);
  return g;
}

// The shape of a graph of `size` at the parts of the real block file `like` (a smaller
// graph of the same family, partitioned at the same n; Kronecker graphs are self-similar):
// its /task_work scaled to the size's total work, its blocks' neighbours to the size's edges.
GraphShape like_shape(const std::string& description, std::uint64_t vertices, std::uint64_t edges, std::uint64_t total_work,
                      const std::string& like) {
  const BlockFileReader file(like);
  const std::uint32_t n = file.header().parts;
  GraphShape g;
  g.description = description + ", task and block shape of '" + like + "'";
  g.vertices = vertices, g.edges = edges, g.parts = n;
  const std::vector<std::uint64_t> work = file.read_task_work();
  if (work.empty()) throw Error("--like '" + like + "' has no /task_work estimates: partition it again with this tricount-partition");
  double like_work = 0, like_nnz = 0;
  for (std::uint64_t w : work) like_work += static_cast<double>(w);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) like_nnz += static_cast<double>(file.block_nnz({i, j}));
  if (like_work <= 0 || like_nnz <= 0) throw Error("--like '" + like + "' has no work or no edges");
  for (std::uint64_t w : work) g.subtask_work.push_back(static_cast<std::uint64_t>(static_cast<double>(w) * total_work / like_work));
  char skew[96];
  std::snprintf(skew, sizeof skew, " (largest subtask %.2f x the mean)",
                static_cast<double>(*std::max_element(work.begin(), work.end())) * static_cast<double>(work.size()) / like_work);
  g.description += skew;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j)
      g.block_bytes.push_back(block_bytes_of(
          vertices, n, i, static_cast<std::uint64_t>(static_cast<double>(file.block_nnz({i, j})) * static_cast<double>(edges) / like_nnz)));
  return g;
}

// ---- Replay (one journal, its measured costs).
int replay(const std::string& journal_path, const std::vector<int>& counts, double overhead, std::string input,
           bool no_loads, const std::string& json) {
  const JournalContents journal = read_journal(journal_path);
  double measured_total = 0;
  for (const JournalRecord& r : journal.records) measured_total += r.seconds;
  // Block reads per virtual worker need the journal's load column and the block sizes.
  std::optional<BlockLoads> loads;
  std::string loads_note = "block reads replayed where they were measured (--no-loads)";
  if (!no_loads) {
    const bool given = !input.empty();
    if (!given) input = journal.identity.input;
    loads_note = "block reads replayed where they were measured: ";
    if (!given && !std::filesystem::exists(input)) {
      loads_note += "the journal's input '" + input + "' is not here (give --input)";
    } else {
      const BlockFileReader file(input);
      if (file.header().graph_checksum != journal.identity.graph_checksum || file.header().parts != journal.identity.parts)
        throw Error("'" + input + "' is not the graph of journal '" + journal_path + "' (other content or parts)");
      loads = measured_block_loads(journal, file_block_bytes(file));
      if (loads) {
        char rate[64];
        std::snprintf(rate, sizeof rate, "%.3g GB/s", 1e-9 / loads->seconds_per_byte);
        loads_note = std::string("each virtual worker reads the blocks it uses at the measured ") + rate;
      } else {
        loads_note += "the journal has no load column (written before it) or read nothing";
      }
    }
  }
  std::FILE* out = json == "-" ? stderr : stdout;
  std::fprintf(out,
               "PREDICTION, not a measurement: %zu measured task costs (%.3f s in all) from '%s', replayed through\n"
               "the scheduler's policy (costliest first, block affinity) for P virtual workers; %s.\n",
               journal.records.size(), measured_total, journal_path.c_str(), loads_note.c_str());
  std::fprintf(out, "%8s %14s %9s %11s %10s\n", "workers", "predicted_s", "speedup", "efficiency", "imbalance");
  std::vector<JsonObject> points;
  for (int w : counts) {
    const SimulationPoint p = simulate_schedule(journal, w, overhead, loads ? &*loads : nullptr);
    std::fprintf(out, "%8d %14.6f %9.3f %11.3f %10.3f\n", p.workers, p.predicted_seconds, p.speedup, p.efficiency,
                 p.imbalance);
    JsonObject o;
    o.add("workers", p.workers).add("predicted_seconds", p.predicted_seconds).add("speedup", p.speedup)
        .add("efficiency", p.efficiency).add("imbalance", p.imbalance);
    points.push_back(o);
  }
  if (!json.empty()) {
    JsonObject j;
    j.add("prediction", true).add("journal", journal_path).add("tasks", static_cast<std::uint64_t>(journal.records.size()))
        .add("measured_task_seconds", measured_total).add("block_loads_modelled", loads.has_value())
        .add("points", points);
    output::write_text_file(json, "--json", j.str() + "\n");
  }
  return cli::kExitOk;
}

// ---- Fit.
struct FitRequest {
  std::vector<std::string> journals, reports, samples;
  std::string backend, device, storage, output;
};

// A count --json report's transfer seconds and bytes loaded, summed over its worker ranks.
void add_report(const std::string& path, MeasuredRun& run) {
  // The report is the program's own JSON; only two keys per rank are needed.
  std::ifstream in(path);
  if (!in) throw Error("cannot read --report '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  double seconds = 0;
  std::uint64_t bytes = 0;
  bool any = false;
  for (std::size_t at = text.find("\"per_rank\""); at != std::string::npos;) {
    const std::size_t t = text.find("\"transfer_seconds\":", at), b = text.find("\"bytes_loaded\":", at);
    if (t == std::string::npos || b == std::string::npos) break;
    seconds += std::strtod(text.c_str() + t + 19, nullptr);
    bytes += std::strtoull(text.c_str() + b + 15, nullptr, 10);
    any = true;
    at = std::max(t, b) + 1;
  }
  if (!any) throw Error("--report '" + path + "' has no per_rank transfer_seconds and bytes_loaded (a tricount-count --json report?)");
  run.transfer_seconds = seconds;
  run.transfer_bytes = bytes;
}

int fit(const FitRequest& request) {
  if (request.journals.empty()) throw UsageError("--fit needs at least one --journal");
  if (!request.reports.empty() && request.reports.size() != request.journals.size())
    throw UsageError("--report: give one per --journal, in the same order (" + std::to_string(request.journals.size()) +
                     " journals, " + std::to_string(request.reports.size()) + " reports)");
  // 1. The runs, each with its block file (the journal's input).
  std::vector<MeasuredRun> runs;
  for (std::size_t r = 0; r < request.journals.size(); ++r) {
    MeasuredRun run;
    run.journal_path = request.journals[r];
    run.journal = read_journal(run.journal_path);
    const std::string& input = run.journal.identity.input;
    if (!std::filesystem::exists(input))
      throw Error("journal '" + run.journal_path + "': its block file '" + input + "' is not here (the fit needs its block sizes)");
    const BlockFileReader file(input);
    if (file.header().graph_checksum != run.journal.identity.graph_checksum)
      throw Error("'" + input + "' is not the graph of journal '" + run.journal_path + "' (other content)");
    run.block_bytes = file_block_bytes(file);
    if (!request.reports.empty()) add_report(request.reports[r], run);
    runs.push_back(std::move(run));
  }
  // 2. The count, load and upload rates; 3. the Kronecker family from its samples.
  CostModel model = fit_cost_model(runs, request.backend, request.device, request.storage);
  if (!request.samples.empty()) {
    std::vector<GraphSample> samples;
    for (const std::string& s : request.samples) {
      const std::size_t eq = s.find('=');
      GraphSample g;
      try {
        std::size_t used = 0;
        g.scale = std::stoi(s.substr(0, eq), &used);
        if (eq == std::string::npos || used != eq || g.scale < 1 || g.scale > 40) throw std::invalid_argument(s);
      } catch (const std::exception&) {
        throw UsageError("--kronecker-sample: '" + s + "' is not SCALE=BLOCKFILE");
      }
      const GraphShape shape = file_shape(s.substr(eq + 1));
      g.vertices = shape.vertices, g.edges = shape.edges, g.total_work = shape.total_work();
      g.tasks = shape.subtask_work.size();
      for (std::uint64_t w : shape.subtask_work) g.max_task_work = std::max(g.max_task_work, w);
      samples.push_back(g);
      model.calibrated_on.push_back("kronecker sample " + s);
    }
    model.kronecker = fit_kronecker_family(samples);
  }
  save_cost_model(model, request.output);
  std::printf("fitted on %llu tasks of %zu journals (%s, %s): overhead %.3g s/task, %.4g s per 1e9 work, %.4g s per 1e9 "
              "rows (R^2 %.3f, run totals within %.1f%%), load %.3g GB/s (%s), upload %.3g GB/s -> '%s'\n",
              static_cast<unsigned long long>(model.tasks_fitted), runs.size(), model.backend.c_str(), model.device.c_str(),
              model.task_overhead_seconds, model.seconds_per_work * 1e9, model.seconds_per_row * 1e9, model.count_r2,
              100 * model.count_total_relative_error,
              model.load_seconds_per_byte > 0 ? 1e-9 / model.load_seconds_per_byte : 0.0, model.storage.c_str(),
              model.upload_seconds_per_byte > 0 ? 1e-9 / model.upload_seconds_per_byte : 0.0, request.output.c_str());
  return cli::kExitOk;
}

// ---- Predict and plan.
struct GraphRequest {
  std::string input, family = "kronecker";
  int kronecker_scale = 0;
  double edges = 0, vertices = 0;
};

// |V|, |E| and total work of a graph given by size, from the model's family fit.
struct GraphSize {
  std::string description;
  std::uint64_t vertices = 0, edges = 0, total_work = 0;
};

GraphSize graph_size(const GraphRequest& g, const CostModel& model) {
  GraphSize s;
  const KroneckerFamily& k = model.kronecker;
  if (g.kronecker_scale > 0) {
    if (!k.fitted) throw UsageError("--kronecker-scale: the model has no Kronecker family (fit it with --kronecker-sample)");
    const double v = k.vertices.at(g.kronecker_scale), e = k.edges.at(g.kronecker_scale);
    if (v > double(kMaxVertices)) throw UsageError("--kronecker-scale " + std::to_string(g.kronecker_scale) + " has more vertices than 2^32 - 1");
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

std::string calibration_note(const CostModel& model, const std::string& model_path) {
  std::string note = "calibrated on " + model.backend + " on " + model.device + " (model '" + model_path + "': ";
  for (std::size_t i = 0; i < model.calibrated_on.size(); ++i) note += (i ? ", " : "") + model.calibrated_on[i];
  return note + ")";
}

void print_points(std::FILE* out, const std::vector<PredictedPoint>& points) {
  std::fprintf(out, "%7s %13s %9s %11s %10s %16s %16s\n", "gpus", "predicted_s", "speedup", "efficiency", "imbalance",
               "max_GB_per_gpu", "load_GB/s/gpu");
  for (const PredictedPoint& p : points)
    std::fprintf(out, "%7d %13.4f %9.2f %11.3f %10.3f %16.3f %16.3f\n", p.gpus, p.seconds, p.speedup, p.efficiency,
                 p.imbalance, 1e-9 * static_cast<double>(p.max_bytes_per_gpu), 1e-9 / p.load_seconds_per_byte);
}

std::vector<JsonObject> points_json(const std::vector<PredictedPoint>& points) {
  std::vector<JsonObject> out;
  for (const PredictedPoint& p : points) {
    JsonObject o;
    o.add("gpus", p.gpus).add("predicted_seconds", p.seconds).add("speedup", p.speedup).add("efficiency", p.efficiency)
        .add("imbalance", p.imbalance).add("max_bytes_per_gpu", p.max_bytes_per_gpu)
        .add("mean_bytes_per_gpu", p.mean_bytes_per_gpu).add("tasks", p.tasks)
        .add("count_seconds_all_gpus", p.count_seconds).add("load_seconds_all_gpus", p.load_seconds)
        .add("upload_seconds_all_gpus", p.upload_seconds);
    out.push_back(o);
  }
  return out;
}

struct PredictRequest {
  std::string model_path, json;
  GraphRequest graph;
  std::uint32_t parts = 0, splits = 1;
  std::vector<int> gpus;
  MachineParameters machine;
  bool plan = false;
  PlanRequest plan_request;
  bool static_schedule = false;    // --schedule static: the resident mode's two phases
  std::vector<std::string> like;   // --like: block files whose shapes stand in for a graph given by size
};

// The static schedule at each GPU count: the runtime's assignment, the blocks each GPU holds,
// the load phase at the rate predict_runs charges at that count, then the count phase.
struct StaticPrediction {
  PredictedPoint dynamic;        // the dynamic schedule's prediction at the same count
  StaticSimulationPoint point;
  bool fits = true;              // the GPU's blocks and the hash tables of its largest block fit
};

std::vector<StaticPrediction> predict_static(const CostModel& model, const GraphShape& shape, std::uint32_t splits,
                                             const std::vector<int>& counts, const MachineParameters& machine,
                                             const PlanRequest& memory) {
  const JournalContents run = model_task_run(model, shape, splits);
  const std::vector<PredictedPoint> dynamic = predict_runs(model, shape, splits, counts, machine);
  const double one_rate = predict_runs(model, shape, splits, {1}, machine).front().load_seconds_per_byte;
  const double budget = memory.memory_headroom * static_cast<double>(memory.gpu_memory_bytes);
  std::vector<StaticPrediction> out;
  for (std::size_t c = 0; c < counts.size(); ++c) {
    StaticPrediction p;
    p.dynamic = dynamic[c];
    // Times with each block's fixed load costs; bytes without them; the one-GPU base at its own rate.
    const BlockLoads charged = model_block_loads(model, shape, dynamic[c].load_seconds_per_byte, true);
    const BlockLoads plain = model_block_loads(model, shape, dynamic[c].load_seconds_per_byte, false);
    const BlockLoads base_loads = model_block_loads(model, shape, one_rate, true);
    p.point = simulate_static(run, counts[c], &charged, one_rate);
    const StaticSimulationPoint bytes = simulate_static(run, counts[c], &plain);
    const StaticSimulationPoint base = simulate_static(run, 1, &base_loads);
    p.point.max_bytes = bytes.max_bytes, p.point.mean_bytes = bytes.mean_bytes;
    p.point.speedup = p.point.total_seconds > 0 ? base.total_seconds / p.point.total_seconds : 1.0;
    p.point.efficiency = p.point.speedup / counts[c];
    p.fits = memory.gpu_memory_bytes == 0 ||
             static_cast<double>(p.point.max_bytes) + memory.table_factor * static_cast<double>(shape.max_block_bytes()) <= budget;
    out.push_back(p);
  }
  return out;
}

void print_static(std::FILE* out, const std::vector<StaticPrediction>& points, bool memory_given) {
  std::fprintf(out, "%7s %13s %10s %13s %13s %10s %10s %16s %5s %10s\n", "gpus", "count_phase_s", "count_eff", "load_phase_s",
               "total_s", "total_eff", "imbalance", "max_GB_per_gpu", "fits", "dyn_eff");
  for (const StaticPrediction& s : points) {
    const StaticSimulationPoint& p = s.point;
    std::fprintf(out, "%7d %13.4f %10.3f %13.4f %13.4f %10.3f %10.3f %16.3f %5s %10.3f\n", p.workers, p.count_phase_seconds,
                 p.count_efficiency, p.load_phase_seconds, p.total_seconds, p.efficiency, p.imbalance,
                 1e-9 * static_cast<double>(p.max_bytes), memory_given ? (s.fits ? "yes" : "NO") : "-", s.dynamic.efficiency);
  }
}

std::vector<JsonObject> static_json(const std::vector<StaticPrediction>& points) {
  std::vector<JsonObject> out;
  for (const StaticPrediction& s : points) {
    const StaticSimulationPoint& p = s.point;
    JsonObject o;
    o.add("gpus", p.workers).add("count_phase_seconds", p.count_phase_seconds).add("count_efficiency", p.count_efficiency)
        .add("load_phase_seconds", p.load_phase_seconds).add("total_seconds", p.total_seconds).add("efficiency", p.efficiency)
        .add("imbalance", p.imbalance).add("max_bytes_per_gpu", p.max_bytes).add("mean_bytes_per_gpu", p.mean_bytes)
        .add("max_tasks_per_gpu", p.max_tasks).add("tasks", p.tasks).add("resident_fits", s.fits)
        .add("load_seconds_per_byte", s.dynamic.load_seconds_per_byte).add("dynamic_seconds", s.dynamic.seconds)
        .add("dynamic_efficiency", s.dynamic.efficiency);
    out.push_back(o);
  }
  return out;
}

// The static schedule's predictions: both phases, count-phase and end-to-end efficiency.
int predict_static_and_print(const PredictRequest& request, const CostModel& model, const GraphShape& shape, std::uint32_t parts,
                             std::uint32_t splits, const std::vector<int>& counts, const std::string& plan_note, std::FILE* out) {
  const std::vector<StaticPrediction> points =
      predict_static(model, shape, splits, counts, request.machine, request.plan_request);
  if (!plan_note.empty()) std::fprintf(out, "%s\n", plan_note.c_str());
  std::fprintf(out,
               "PREDICTED, not measured, STATIC schedule (resident mode: every GPU loads the blocks of its assigned tasks, "
               "then all meet, then the timed count phase): %s (%llu vertices, %llu edges, work %.4g) at --parts %u "
               "--workload-splits %u;\n%s; %d GPUs per node, %.3g GB/s network per node, %.3g TB/s shared file system.\n"
               "count_eff: one GPU counting every task / (GPUs x count phase); total_eff: one GPU reading every block once and "
               "counting / (GPUs x (load + count phase)); fits: the GPU's blocks and the tables of its largest block within "
               "%.0f%% of --gpu-memory; dyn_eff: the dynamic schedule's end-to-end efficiency.\n",
               shape.description.c_str(), static_cast<unsigned long long>(shape.vertices),
               static_cast<unsigned long long>(shape.edges), static_cast<double>(shape.total_work()), parts, splits,
               calibration_note(model, request.model_path).c_str(), request.machine.gpus_per_node,
               1e-9 * request.machine.network_bytes_per_second, 1e-12 * request.machine.file_system_bytes_per_second,
               100 * request.plan_request.memory_headroom);
  print_static(out, points, request.plan_request.gpu_memory_bytes > 0);
  if (!request.json.empty()) {
    JsonObject j;
    std::string sources = "[";
    for (std::size_t i = 0; i < model.calibrated_on.size(); ++i) sources += (i ? ", " : "") + json_escape(model.calibrated_on[i]);
    j.add("prediction", true).add("label", "PREDICTED").add("scheduling", "static").add("model", request.model_path)
        .add("backend", model.backend).add("device", model.device).add_raw("calibrated_on", sources + "]")
        .add("graph", shape.description).add("vertices", shape.vertices).add("edges", shape.edges)
        .add("total_work", shape.total_work()).add("parts", parts).add("workload_splits", splits)
        .add("gpus_per_node", request.machine.gpus_per_node)
        .add("network_bytes_per_second", request.machine.network_bytes_per_second)
        .add("file_system_bytes_per_second", request.machine.file_system_bytes_per_second)
        .add("gpu_memory_bytes", request.plan_request.gpu_memory_bytes).add("points", static_json(points));
    output::write_text_file(request.json, "--json", j.str() + "\n");
  }
  return cli::kExitOk;
}

int predict(const PredictRequest& request) {
  // 1. The model and the graph's shape (at the requested parts, or the file's own).
  const CostModel model = load_cost_model(request.model_path);
  std::optional<GraphSize> size;
  std::optional<GraphShape> from_file;
  if (!request.graph.input.empty()) {
    from_file = file_shape(request.graph.input);
    if (request.plan) {
      // Other parts than the file's: its size and total work (work does not depend on n), even tasks.
      size = GraphSize{from_file->description, from_file->vertices, from_file->edges, from_file->total_work()};
      from_file.reset();
    } else if (request.parts != 0 && request.parts != from_file->parts)
      throw UsageError("--parts " + std::to_string(request.parts) + ": '" + request.graph.input + "' has n = " +
                       std::to_string(from_file->parts) + " (partition it again for other parts)");
  } else {
    size = graph_size(request.graph, model);
  }
  // --like files by their parts (the one with the most edges where several share n).
  std::map<std::uint32_t, std::pair<std::uint64_t, std::string>> like_at;
  for (const std::string& path : request.like) {
    const BlockFileReader file(path);
    auto& slot = like_at[file.header().parts];
    if (file.header().edges > slot.first) slot = {file.header().edges, path};
  }
  auto shape_at = [&](std::uint32_t n) {
    if (from_file) return *from_file;
    if (const auto like = like_at.find(n); like != like_at.end())
      return like_shape(size->description, size->vertices, size->edges, size->total_work, like->second.second);
    GraphShape even = synthetic_shape(size->description, size->vertices, size->edges, size->total_work, n);
    even.description += ", even tasks and blocks";
    return even;
  };
  // 2. The plan: smallest n whose triple fits, then splits for enough tasks; among n, 2n, ...
  // up to 128 (more parts: smaller blocks read per GPU, more tasks) while the subtasks are at
  // most 16 times the tasks wanted (beyond that only the row walks and offsets grow), the
  // fastest at the most GPUs.
  std::uint32_t parts = request.parts ? request.parts : (from_file ? from_file->parts : 0);
  std::uint32_t splits = request.splits;
  std::string plan_note;
  if (request.plan) {
    const PlanRequest& pr = request.plan_request;
    const double budget = pr.memory_headroom * static_cast<double>(pr.gpu_memory_bytes);
    std::uint32_t fit = 1;
    while (fit <= kMaxParts && static_cast<double>(triple_bytes(synthetic_shape("", size->vertices, size->edges, 0, fit), pr.table_factor)) > budget)
      fit = fit < 16 ? fit + 1 : fit * 2;
    if (fit > kMaxParts)
      throw UsageError("--gpu-memory: no --parts up to " + std::to_string(kMaxParts) + " fits a block triple in it");
    double best = -1;
    const std::uint64_t most_subtasks = 16ull * pr.tasks_per_gpu * static_cast<std::uint64_t>(pr.gpus);
    std::uint64_t resident_bytes = 0;
    // (Static: also beyond that, up to 128, while no n has fitted a GPU's blocks yet.)
    for (std::uint32_t n = fit;
         n == fit || (n <= 128 && (std::uint64_t(n) * n * n <= most_subtasks || (request.static_schedule && best < 0))); n *= 2) {
      PlanRequest for_n = pr;
      const std::uint32_t m = splits_for(n, for_n);
      if (!request.static_schedule) {
        const double t = predict_runs(model, shape_at(n), m, {pr.gpus}, request.machine).front().seconds;
        if (best < 0 || t < best * 0.98) best = t, parts = n, splits = m;  // more parts only for a clear gain
        continue;
      }
      // Static: the shortest count phase whose blocks fit each GPU, over m, 2m, 4m (more
      // splits even out hub tasks but repeat the row walk); more parts or splits only for a
      // clear gain.
      const GraphShape shape = shape_at(n);
      for (std::uint32_t more = m; more <= std::min<std::uint32_t>(4 * m, kMaxWorkloadSplits); more *= 2) {
        const StaticPrediction p = predict_static(model, shape, more, {pr.gpus}, request.machine, pr).front();
        if (!p.fits) continue;
        if (best < 0 || p.point.count_phase_seconds < best * 0.98)
          best = p.point.count_phase_seconds, parts = n, splits = more, resident_bytes = p.point.max_bytes;
      }
    }
    if (request.static_schedule && best < 0)
      throw UsageError("--schedule static: at no --parts from " + std::to_string(fit) + " do the blocks of a GPU's tasks fit " +
                       "--gpu-memory at " + std::to_string(pr.gpus) + " GPUs: give more GPUs or count with the dynamic schedule");
    char note[256];
    std::snprintf(note, sizeof note,
                  "PLAN: --parts %u --workload-splits %u (smallest n whose block triple fits: %u; at n = %u the triple + tables "
                  "take %.3g GB of %.3g GB usable; %llu tasks, %.1f per GPU at %d)",
                  parts, splits, fit, parts, 1e-9 * static_cast<double>(triple_bytes(shape_at(parts), pr.table_factor)), 1e-9 * budget,
                  static_cast<unsigned long long>(std::uint64_t(parts) * parts * parts * splits),
                  static_cast<double>(std::uint64_t(parts) * parts * parts * splits) / pr.gpus, pr.gpus);
    plan_note = note;
    if (request.static_schedule) {
      std::snprintf(note, sizeof note,
                    "; resident (static schedule): the shortest count phase at %d GPUs whose blocks fit, %.3g GB of blocks on "
                    "the fullest GPU",
                    pr.gpus, 1e-9 * static_cast<double>(resident_bytes));
      plan_note += note;
    }
  }
  if (parts == 0) throw UsageError("--parts: give the parts to predict for (or --plan)");
  // 3. The predictions.
  const GraphShape shape = shape_at(parts);
  const std::vector<int> counts = request.plan ? powers_of_two_up_to(request.plan_request.gpus) : request.gpus;
  std::FILE* out = request.json == "-" ? stderr : stdout;
  if (request.static_schedule) return predict_static_and_print(request, model, shape, parts, splits, counts, plan_note, out);
  const std::vector<PredictedPoint> points = predict_runs(model, shape, splits, counts, request.machine);
  if (!plan_note.empty()) std::fprintf(out, "%s\n", plan_note.c_str());
  std::fprintf(out,
               "PREDICTED, not measured: %s (%llu vertices, %llu edges, work %.4g) at --parts %u --workload-splits %u;\n"
               "%s; %d GPUs per node, %.3g GB/s network per node, %.3g TB/s shared file system.\n",
               shape.description.c_str(), static_cast<unsigned long long>(shape.vertices),
               static_cast<unsigned long long>(shape.edges), static_cast<double>(shape.total_work()), parts, splits,
               calibration_note(model, request.model_path).c_str(), request.machine.gpus_per_node,
               1e-9 * request.machine.network_bytes_per_second, 1e-12 * request.machine.file_system_bytes_per_second);
  print_points(out, points);
  if (!request.json.empty()) {
    JsonObject j;
    std::string sources = "[";
    for (std::size_t i = 0; i < model.calibrated_on.size(); ++i) sources += (i ? ", " : "") + json_escape(model.calibrated_on[i]);
    j.add("prediction", true).add("label", "PREDICTED").add("model", request.model_path).add("backend", model.backend)
        .add("device", model.device).add_raw("calibrated_on", sources + "]").add("graph", shape.description)
        .add("vertices", shape.vertices).add("edges", shape.edges).add("total_work", shape.total_work())
        .add("parts", parts).add("workload_splits", splits).add("gpus_per_node", request.machine.gpus_per_node)
        .add("network_bytes_per_second", request.machine.network_bytes_per_second)
        .add("file_system_bytes_per_second", request.machine.file_system_bytes_per_second).add("points", points_json(points));
    output::write_text_file(request.json, "--json", j.str() + "\n");
  }
  return cli::kExitOk;
}

double positive_size(const std::string& text, const std::string& option) {
  const double v = static_cast<double>(cli::parse_size(text, option));
  if (v <= 0) throw UsageError(option + " must be positive (got '" + text + "')");
  return v;
}

// "25G" -> 25e9 bytes/s (decimal units, as bandwidths are quoted), "2.5T", "1e9".
double parse_rate(const std::string& text, const std::string& option) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  const std::string unit = end ? std::string(end) : "";
  const std::string units = "KMGT";
  if (unit.size() == 1 && units.find(unit[0]) != std::string::npos) v *= std::pow(1e3, double(units.find(unit[0]) + 1));
  else if (!unit.empty() || end == text.c_str()) v = -1;
  if (!(v > 0) || !std::isfinite(v))
    throw UsageError(option + ": '" + text + "' is not a positive bandwidth in bytes per second (e.g. 25G, 2.5T)");
  return v;
}

}  // namespace
}  // namespace tricount

int main(int argc, char** argv) {
  using namespace tricount;
  return cli::run_main("tricount-simulate", [&] {
    cli::po::options_description opts("options");
    std::vector<std::string> journals, reports, samples;
    std::string json, workers_list, input, fit_path, model_path, gpus_list, gpu_memory, network = "25G", file_system = "2.5T";
    std::string backend = "cuda", device = "unnamed device", storage = "page cache", schedule = "dynamic";
    int max_workers = 1024, kronecker_scale = 0;
    double overhead = 0, edges = 0, vertices = 0;
    PredictRequest request;
    opts.add_options()
      ("journal,j", cli::po::value(&journals)->composing(), "journal written by tricount-count --journal (repeat for --fit)")
      ("max-workers", cli::po::value(&max_workers)->default_value(1024), "predict for 1, 2, 4, ... up to this many workers")
      ("workers", cli::po::value(&workers_list), "comma-separated worker counts instead of powers of two")
      ("task-overhead", cli::po::value(&overhead)->default_value(0.0), "seconds added to every task (scheduler latency)")
      ("input,i", cli::po::value(&input),
       "the block file of the journal's run, for block sizes (default: the journal's input, if it is there): "
       "each virtual worker then pays for reading the blocks it uses, at the measured rate; with --model: the graph to predict")
      ("no-loads", "replay task costs as measured, without modelling per-worker block reads")
      ("json", cli::po::value(&json), "also write the predictions as JSON to PATH (- for stdout)")
      ("fit", cli::po::value(&fit_path), "fit a cost model on the --journal runs and write it to PATH (JSON)")
      ("report", cli::po::value(&reports)->composing(), "with --fit: each journal's tricount-count --json report, for upload rates")
      ("kronecker-sample", cli::po::value(&samples)->composing(),
       "with --fit: SCALE=BLOCKFILE of a Kronecker graph, to fit |V|, |E| and work against the scale (two or more)")
      ("backend", cli::po::value(&backend)->default_value(backend), "with --fit: the backend the journals were counted with")
      ("device", cli::po::value(&device)->default_value(device), "with --fit: the device they ran on (e.g. 'H200')")
      ("storage", cli::po::value(&storage)->default_value(storage), "with --fit: where the block file was read from")
      ("model", cli::po::value(&model_path), "predict from this cost model (written by --fit)")
      ("kronecker-scale", cli::po::value(&kronecker_scale), "with --model: predict a Kronecker graph of this scale")
      ("edges", cli::po::value(&edges), "with --model: predict a graph of this many (undirected) edges ...")
      ("vertices", cli::po::value(&vertices), "... and this many vertices")
      ("family", cli::po::value(&request.graph.family)->default_value("kronecker"), "degree distribution of --edges/--vertices: kronecker or erdos-renyi")
      ("parts", cli::po::value(&request.parts), "with --model: n to predict for")
      ("workload-splits", cli::po::value(&request.splits)->default_value(1), "with --model: m to predict for")
      ("gpus", cli::po::value(&gpus_list), "with --model: comma-separated GPU counts; with --plan: the most GPUs")
      ("gpus-per-node", cli::po::value(&request.machine.gpus_per_node)->default_value(6), "GPUs sharing a node's network link")
      ("network", cli::po::value(&network)->default_value(network), "network bandwidth per node, bytes/s (25G)")
      ("file-system", cli::po::value(&file_system)->default_value(file_system), "shared file system bandwidth, bytes/s (2.5T: GPFS-like)")
      ("schedule", cli::po::value(&schedule)->default_value(schedule),
       "with --model/--plan: dynamic (tasks handed out as GPUs ask, blocks loaded on demand) or static (tricount-count "
       "--schedule static: each GPU loads the blocks of its assigned tasks, then the timed count phase; predicts both "
       "phases, and --plan picks n and m whose blocks fit each GPU)")
      ("like", cli::po::value(&request.like)->composing(),
       "with --kronecker-scale or --edges/--vertices: a block file of a smaller graph of the same family; at its --parts the "
       "prediction takes its task-work and block-size shape, scaled to the graph's total work and edges (repeat for other "
       "n; without one, tasks and blocks are even)")
      ("plan", "recommend --parts and --workload-splits for --gpus of --gpu-memory each, with the predictions")
      ("gpu-memory", cli::po::value(&gpu_memory), "with --plan: memory of one GPU (e.g. 16G, 80G)")
      ("tasks-per-gpu", cli::po::value(&request.plan_request.tasks_per_gpu)->default_value(8), "with --plan: the fewest tasks per GPU")
      ("memory-headroom", cli::po::value(&request.plan_request.memory_headroom)->default_value(0.8),
       "with --plan: the fraction of GPU memory the block triple and tables may take")
      ("table-factor", cli::po::value(&request.plan_request.table_factor)->default_value(2.0),
       "with --plan: hash table bytes per byte of the hashed block (the CUDA tables keep at least 2 slots per key)");
    cli::po::variables_map vm;
    if (!cli::parse(argc, argv, opts, vm,
                    "tricount-simulate --journal PATH [--max-workers 1024]\n"
                    "  tricount-simulate --fit MODEL.json --journal PATH... [--report JSON...] [--kronecker-sample S=FILE...]\n"
                    "  tricount-simulate --model MODEL.json (--input FILE | --kronecker-scale S | --edges E --vertices V)\n"
                    "                    --parts N [--workload-splits M] --gpus 1,2,4\n"
                    "  tricount-simulate --plan --model MODEL.json (--kronecker-scale S | --edges E --vertices V)\n"
                    "                    --gpus P --gpu-memory 16G [--gpus-per-node 6]",
                    "Replays the task costs measured in a journal through the scheduler's own policy for P\n"
                    "virtual workers and prints the PREDICTED time, speedup, efficiency and imbalance; fits a\n"
                    "cost model on measured runs and predicts runs not measured (other n, m, GPU counts, graphs\n"
                    "given by size); recommends n and m for a cluster (--plan)."))
      return cli::kExitOk;
    // 1. Fit.
    if (!fit_path.empty()) {
      if (vm.count("model") || vm.count("plan")) throw UsageError("--fit: give --model and --plan in a later call");
      return fit({journals, reports, samples, backend, device, storage, fit_path});
    }
    // 2. Predict or plan.
    if (!model_path.empty() || vm.count("plan")) {
      if (model_path.empty()) throw UsageError("--plan needs --model (a cost model written by --fit)");
      if (!journals.empty()) throw UsageError("--model predicts from the model: leave out --journal");
      const int graphs = int(!input.empty()) + int(vm.count("kronecker-scale") > 0) + int(vm.count("edges") || vm.count("vertices"));
      if (graphs != 1)
        throw UsageError("--model: give exactly one graph: --input BLOCKFILE, --kronecker-scale S, or --edges E --vertices V");
      if (vm.count("kronecker-scale") && (kronecker_scale < 1 || kronecker_scale > 32))
        throw UsageError("--kronecker-scale must be between 1 and 32 (got " + std::to_string(kronecker_scale) + ")");
      if (request.machine.gpus_per_node < 1) throw UsageError("--gpus-per-node must be at least 1");
      check_workload_splits(request.splits);
      if (vm.count("parts")) check_parts(request.parts);
      request.model_path = model_path, request.json = json;
      request.graph.input = input, request.graph.kronecker_scale = kronecker_scale;
      request.graph.edges = edges, request.graph.vertices = vertices;
      request.machine.network_bytes_per_second = parse_rate(network, "--network");
      request.machine.file_system_bytes_per_second = parse_rate(file_system, "--file-system");
      request.plan = vm.count("plan") > 0;
      if (schedule != "dynamic" && schedule != "static") throw UsageError("--schedule: '" + schedule + "' is not dynamic or static");
      request.static_schedule = schedule == "static";
      if (!request.like.empty() && !input.empty()) throw UsageError("--like: the graph is given by --input already");
      if (gpus_list.empty()) throw UsageError(request.plan ? "--plan needs --gpus (the most GPUs)" : "--model needs --gpus (e.g. 1,2,4)");
      request.gpus = parse_counts(gpus_list, "--gpus");
      if (request.plan) {
        if (request.gpus.size() != 1) throw UsageError("--plan: --gpus is one number, the most GPUs");
        if (gpu_memory.empty()) throw UsageError("--plan needs --gpu-memory (one GPU's memory, e.g. 16G)");
        if (request.plan_request.tasks_per_gpu < 1) throw UsageError("--tasks-per-gpu must be at least 1");
        if (!(request.plan_request.memory_headroom > 0 && request.plan_request.memory_headroom <= 1))
          throw UsageError("--memory-headroom must be above 0 and at most 1");
        if (!(request.plan_request.table_factor >= 0 && request.plan_request.table_factor <= 64))
          throw UsageError("--table-factor must be between 0 and 64");
        request.plan_request.gpus = request.gpus.front();
        request.plan_request.gpu_memory_bytes = static_cast<std::uint64_t>(positive_size(gpu_memory, "--gpu-memory"));
      } else if (!gpu_memory.empty()) {
        request.plan_request.gpu_memory_bytes = static_cast<std::uint64_t>(positive_size(gpu_memory, "--gpu-memory"));
      }
      return predict(request);
    }
    // 3. Replay one journal.
    if (journals.size() != 1) throw UsageError("give one --journal to replay (or --fit, --model)");
    if (max_workers < 1 || max_workers > kMaxSimulatedWorkers)
      throw UsageError("--max-workers must be between 1 and " + std::to_string(kMaxSimulatedWorkers) + " (got " +
                       std::to_string(max_workers) + "); for other counts give them with --workers");
    std::vector<int> counts;
    if (!workers_list.empty()) {
      counts = parse_counts(workers_list, "--workers");
    } else {
      for (int w = 1; w <= max_workers; w *= 2) counts.push_back(w);
    }
    return replay(journals.front(), counts, overhead, input, vm.count("no-loads") > 0, json);
  });
}
