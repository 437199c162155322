// tricount-simulate: predicted scaling. Four modes:
//   --journal J              replay one journal's measured task costs (as before);
//   --fit MODEL --journal J… fit a cost model (model/cost_model.hpp) and save it;
//   --model MODEL GRAPH      predict runs of a graph (block file, or its size) not measured
//                            (model/predict.hpp);
//   --plan --model MODEL …   recommend --parts and --workload-splits, with the predictions
//                            (model/plan.hpp).
// The library in model/ does the work; this file reads the options and prints.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>

#include "model/cost_model.hpp"
#include "model/plan.hpp"
#include "model/predict.hpp"
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

int fit(const FitRequest& request) {
  if (request.journals.empty()) throw UsageError("--fit needs at least one --journal");
  if (!request.reports.empty() && request.reports.size() != request.journals.size())
    throw UsageError("--report: give one per --journal, in the same order (" + std::to_string(request.journals.size()) +
                     " journals, " + std::to_string(request.reports.size()) + " reports)");
  // 1. The runs, each with its block file (the journal's input).
  std::vector<MeasuredRun> runs;
  for (std::size_t r = 0; r < request.journals.size(); ++r)
    runs.push_back(measured_run(request.journals[r], request.reports.empty() ? "" : request.reports[r]));
  // 2. The count, load and upload rates; 3. the Kronecker family from its samples.
  CostModel model = fit_cost_model(runs, request.backend, request.device, request.storage);
  if (!request.samples.empty()) {
    std::vector<GraphSample> samples;
    for (const std::string& s : request.samples) {
      const std::size_t eq = s.find('=');
      int scale = 0;
      try {
        std::size_t used = 0;
        scale = std::stoi(s.substr(0, eq), &used);
        if (eq == std::string::npos || used != eq || scale < 1 || scale > 40) throw std::invalid_argument(s);
      } catch (const std::exception&) {
        throw UsageError("--kronecker-sample: '" + s + "' is not SCALE=BLOCKFILE");
      }
      samples.push_back(kronecker_sample(scale, file_shape(s.substr(eq + 1))));
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
  std::uint32_t parts = 0;
  WorkloadSplits splits;  // --workload-splits m, or auto (tricount-count's rule at the most --gpus)
  std::vector<int> gpus;
  MachineParameters machine;
  bool plan = false;
  PlanRequest plan_request;
  bool static_schedule = false;    // --schedule static: the resident mode's two phases
  std::vector<std::string> like;   // --like: block files whose shapes stand in for a graph given by size
};

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
  const GraphShapes shapes = graph_shapes(request.graph, model, request.plan, request.parts, request.like);
  // 2. The plan (model/plan.hpp), or the parts and splits asked for.
  std::uint32_t parts = request.parts ? request.parts : (shapes.from_file ? shapes.from_file->parts : 0);
  std::uint32_t splits = 1;
  std::string plan_note;
  if (request.plan) {
    const PlanRequest& pr = request.plan_request;
    const Plan plan = plan_run(model, shapes, pr, request.machine, request.static_schedule);
    parts = plan.parts, splits = plan.splits;
    const double budget = pr.memory_headroom * static_cast<double>(pr.gpu_memory_bytes);
    char note[256];
    std::snprintf(note, sizeof note,
                  "PLAN: --parts %u --workload-splits %u (smallest n whose block triple fits: %u; at n = %u the triple + tables "
                  "take %.3g GB of %.3g GB usable; %llu tasks, %.1f per GPU at %d)",
                  parts, splits, plan.smallest_parts, parts, 1e-9 * static_cast<double>(triple_bytes(shapes.at(parts), pr.table_factor)),
                  1e-9 * budget, static_cast<unsigned long long>(std::uint64_t(parts) * parts * parts * splits),
                  static_cast<double>(std::uint64_t(parts) * parts * parts * splits) / pr.gpus, pr.gpus);
    plan_note = note;
    if (request.static_schedule) {
      std::snprintf(note, sizeof note,
                    "; resident (static schedule): the shortest count phase at %d GPUs whose blocks fit, %.3g GB of blocks on "
                    "the fullest GPU",
                    pr.gpus, 1e-9 * static_cast<double>(plan.resident_bytes));
      plan_note += note;
    }
  }
  if (parts == 0) throw UsageError("--parts: give the parts to predict for (or --plan)");
  if (!request.plan)
    splits = resolve_workload_splits(request.splits, parts,
                                     static_cast<std::uint64_t>(*std::max_element(request.gpus.begin(), request.gpus.end())));
  // 3. The predictions.
  const GraphShape shape = shapes.at(parts);
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
    std::string splits_text = "auto";
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
      ("workload-splits", cli::po::value(&splits_text)->default_value("auto"),
       "with --model: m to predict for; auto: tricount-count's choice at the most --gpus (about 4 tasks per GPU, "
       "m = 1 for one)")
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
      ("tasks-per-gpu", cli::po::value(&request.plan_request.tasks_per_gpu)->default_value(kAutoTasksPerWorker),
       "with --plan: the fewest tasks per GPU (the default is tricount-count's --workload-splits auto)")
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
      request.splits = parse_workload_splits(splits_text);
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
