// tricount-simulate: predicted scaling. Four modes:
//   --journal J              replay one journal's measured task costs (as before);
//   --fit MODEL --journal J… fit a cost model (model/cost_model.hpp) and save it;
//   --model MODEL GRAPH      predict runs of a graph (block file, or its size) not measured
//                            (model/predict.hpp);
//   --plan --model MODEL …   recommend --parts and --workload-splits, with the predictions
//                            (model/plan.hpp).
// The library in model/ does the work; this file reads the options and prints.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <set>
#include <sstream>

#include "model/cost_model.hpp"
#include "model/plan.hpp"
#include "model/predict.hpp"
#include "model/simulate.hpp"
#include "src/block_format.hpp"
#include "src/cli.hpp"
#include "src/json.hpp"
#include "src/output_file.hpp"
#include "src/task_plan.hpp"

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

// A prediction is printed only when every number of it is one: inf seconds or a nan speedup
// shown as a PREDICTION looked like a result (issue 32, item 10).
void require_finite(std::initializer_list<double> values, const std::string& source) {
  for (double v : values)
    if (!std::isfinite(v))
      throw Error("the prediction from " + source + " is not a finite number (inf or nan): its values are out of range");
}

// Outputs that name an input would destroy it (as tricount-count refuses): --fit or --json
// onto a journal, report, model, sample or block file, by path or by st_dev and st_ino.
void refuse_outputs_onto_inputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                                const std::vector<output::NamedPath>& inputs) {
  for (const auto& [path, option] : outputs) output::refuse_same_file(path, option, inputs);
  for (const auto& [path, option] : outputs)
    if (!path.empty() && path != "-") output::check_writable(path, option);  // not found out after the work
}

// Refuses (UsageError) a prediction of `tasks` tasks at each GPU count (and at one GPU, the
// base of the efficiencies) that would take longer than kMaxSimulationCost.
void check_prediction_cost(std::uint64_t tasks, const std::vector<int>& counts, bool static_schedule, const std::string& what) {
  double cost = simulation_cost(static_cast<double>(tasks), 1);
  for (int gpus : counts) cost += simulation_cost(static_cast<double>(tasks), gpus);
  if (static_schedule) cost *= kStaticSimulationFactor;
  if (cost > kMaxSimulationCost)
    throw UsageError(what + " gives " + std::to_string(tasks) + " tasks: simulating them on these --gpus takes more than "
                     "a prediction may (a few minutes); give fewer --parts or --workload-splits, or fewer or smaller --gpus");
}

// ---- Replay (one journal, its measured costs).
// The schedule a replay follows: --schedule when given, else the journal's (static when every
// run it records was; journals written before runs were recorded say nothing: dynamic).
std::string replay_schedule(const JournalContents& journal, const std::string& asked, std::string& note) {
  if (!asked.empty()) {
    note = "the " + asked + " schedule, as --schedule asks";
    return asked;
  }
  const bool all_static = !journal.runs.empty() && std::all_of(journal.runs.begin(), journal.runs.end(),
                                                               [](const JournalRun& r) { return r.schedule == "static"; });
  const std::string schedule = all_static ? "static" : "dynamic";
  note = journal.runs.empty() ? "the dynamic schedule (the journal does not record its runs' schedule)"
                              : "the " + schedule + " schedule, as the journal's run" + (journal.runs.size() > 1 ? "s" : "") + " used";
  if (journal.runs.size() > 1)
    note += " (" + std::to_string(journal.runs.size()) + " runs: resumed " + std::to_string(journal.runs.size() - 1) + " time" +
            (journal.runs.size() > 2 ? "s" : "") + ", the first run finished " + std::to_string(journal.runs[1].first_record) + " tasks)";
  return schedule;
}

int replay(const std::string& journal_path, const std::vector<int>& counts, double overhead, std::string input,
           bool no_loads, const std::string& json, const std::string& asked_schedule) {
  const JournalContents journal = read_journal(journal_path);
  std::string schedule_note;
  const std::string schedule = replay_schedule(journal, asked_schedule, schedule_note);
  output::refuse_same_file(json, "--json", {{input.empty() ? journal.identity.input : input, "the journal's block file"}});
  double measured_total = 0;
  for (const JournalRecord& r : journal.records) measured_total += r.seconds;
  // A run that did not finish replays as a smaller one: said, not passed off as the whole run.
  const std::uint64_t tasks = std::uint64_t{journal.identity.parts} * journal.identity.parts * journal.identity.parts *
                              std::max<std::uint32_t>(journal.identity.splits, 1);
  std::set<std::uint64_t> recorded;
  for (const JournalRecord& r : journal.records) recorded.insert(r.task);
  if (recorded.empty())
    throw Error("journal '" + journal_path + "' records no task: nothing to replay (a run stopped before its first task?)");
  if (recorded.size() < tasks)
    std::fprintf(stderr,
                 "tricount-simulate: warning: journal '%s' records %zu of its run's %llu tasks (a run that did not finish): "
                 "the replay predicts those tasks only; finish the run with tricount-count --resume for a whole prediction\n",
                 journal_path.c_str(), recorded.size(), static_cast<unsigned long long>(tasks));
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
      if (file.header().graph_checksum != journal.identity.graph_checksum || file.header().parts % journal.identity.parts != 0)
        throw Error("'" + input + "' is not the graph of journal '" + journal_path + "' (other content or parts)");
      loads = measured_block_loads(journal, count_block_bytes(file, journal.identity.parts, journal_path));
      if (loads) {
        char rate[64];
        std::snprintf(rate, sizeof rate, "%.3g GB/s", 1e-9 / loads->seconds_per_byte);
        loads_note = std::string("each virtual worker reads the blocks it uses at the measured ") + rate;
      } else {
        loads_note += "the journal has no load column (written before it) or read nothing";
      }
    }
  }
  // Every point first: nothing is printed unless all of it is a number.
  std::vector<SimulationPoint> simulated;
  for (int w : counts) {
    simulated.push_back(simulate_schedule(journal, w, overhead, loads ? &*loads : nullptr));
    const SimulationPoint& p = simulated.back();
    require_finite({measured_total, p.predicted_seconds, p.speedup, p.efficiency, p.imbalance}, "journal '" + journal_path + "'");
  }
  std::FILE* out = json == "-" ? stderr : stdout;
  if (schedule == "static") {
    if (overhead > 0) throw UsageError("--task-overhead: the static replay has no per-task hand-out to charge");
    std::fprintf(out,
                 "PREDICTION, not a measurement: %zu measured task costs (%.3f s in all) from '%s', replayed through\n"
                 "%s: every virtual worker first loads the blocks of its assigned tasks, then all count; %s.\n",
                 journal.records.size(), measured_total, journal_path.c_str(), schedule_note.c_str(), loads_note.c_str());
    std::fprintf(out, "%8s %14s %14s %14s %10s %11s %10s\n", "workers", "load_phase_s", "count_phase_s", "predicted_s",
                 "count_eff", "efficiency", "imbalance");
    std::vector<JsonObject> points;
    for (int w : counts) {
      const StaticSimulationPoint p = simulate_static(journal, w, loads ? &*loads : nullptr);
      std::fprintf(out, "%8d %14.6f %14.6f %14.6f %10.3f %11.3f %10.3f\n", p.workers, p.load_phase_seconds,
                   p.count_phase_seconds, p.total_seconds, p.count_efficiency, p.efficiency, p.imbalance);
      JsonObject o;
      o.add("workers", p.workers).add("predicted_seconds", p.total_seconds).add("load_phase_seconds", p.load_phase_seconds)
          .add("count_phase_seconds", p.count_phase_seconds).add("speedup", p.speedup).add("efficiency", p.efficiency)
          .add("count_efficiency", p.count_efficiency).add("imbalance", p.imbalance);
      points.push_back(o);
    }
    if (!json.empty()) {
      JsonObject j;
      j.add("prediction", true).add("journal", journal_path).add("scheduling", "static")
          .add("tasks", static_cast<std::uint64_t>(journal.records.size())).add("measured_task_seconds", measured_total)
          .add("block_loads_modelled", loads.has_value()).add("points", points);
      output::write_text_file(json, "--json", j.str() + "\n");
    }
    return cli::kExitOk;
  }
  std::fprintf(out,
               "PREDICTION, not a measurement: %zu measured task costs (%.3f s in all) from '%s', replayed through\n"
               "%s (costliest first, block affinity) for P virtual workers; %s.\n",
               journal.records.size(), measured_total, journal_path.c_str(), schedule_note.c_str(), loads_note.c_str());
  std::fprintf(out, "%8s %14s %9s %11s %10s\n", "workers", "predicted_s", "speedup", "efficiency", "imbalance");
  std::vector<JsonObject> points;
  for (const SimulationPoint& p : simulated) {
    std::fprintf(out, "%8d %14.6f %9.3f %11.3f %10.3f\n", p.workers, p.predicted_seconds, p.speedup, p.efficiency,
                 p.imbalance);
    JsonObject o;
    o.add("workers", p.workers).add("predicted_seconds", p.predicted_seconds).add("speedup", p.speedup)
        .add("efficiency", p.efficiency).add("imbalance", p.imbalance);
    points.push_back(o);
  }
  if (!json.empty()) {
    JsonObject j;
    j.add("prediction", true).add("journal", journal_path).add("scheduling", "dynamic")
        .add("tasks", static_cast<std::uint64_t>(journal.records.size()))
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
  for (const MeasuredRun& run : runs)
    output::refuse_same_file(request.output, "--fit", {{run.journal.identity.input, "the block file of --journal"}});
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
  check_cost_model(model, "--fit '" + request.output + "': the fit on the journals given");
  save_cost_model(model, request.output);
  // A CPU worker copies nothing to a device: no upload rate to speak of.
  char upload[96];
  if (model.backend != "cuda") std::snprintf(upload, sizeof upload, "upload n/a (%s backend: no device copy)", model.backend.c_str());
  else if (model.upload_seconds_per_byte > 0) std::snprintf(upload, sizeof upload, "upload %.3g GB/s", 1e-9 / model.upload_seconds_per_byte);
  else std::snprintf(upload, sizeof upload, "upload not measured (give each journal's --report)");
  std::printf("fitted on %llu tasks of %zu journals (%s, %s): overhead %.3g s/task, %.4g s per 1e9 work, %.4g s per 1e9 "
              "rows (R^2 %.3f, run totals within %.1f%%), load %.3g GB/s (%s), %s -> '%s'\n",
              static_cast<unsigned long long>(model.tasks_fitted), runs.size(), model.backend.c_str(), model.device.c_str(),
              model.task_overhead_seconds, model.seconds_per_work * 1e9, model.seconds_per_row * 1e9, model.count_r2,
              100 * model.count_total_relative_error,
              model.load_seconds_per_byte > 0 ? 1e-9 / model.load_seconds_per_byte : 0.0, model.storage.c_str(), upload,
              request.output.c_str());
  return cli::kExitOk;
}

// ---- Predict and plan.

// What a worker is called in the output: a GPU for a model of the cuda backend, a worker (a
// CPU worker rank) for any other. Texts are written with GPU words and said in the model's.
struct Words {
  bool gpu = true;
  std::string one() const { return gpu ? "gpu" : "worker"; }    // column names
  std::string many() const { return gpu ? "gpus" : "workers"; }
  std::string say(std::string text) const {
    if (gpu) return text;
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"GPUs", "workers"}, {"GPU", "worker"}})
      for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
  }
};
Words words_for(const CostModel& model) { return Words{model.backend == "cuda"}; }

// printf into a string of any length (the calibration note names every journal).
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  va_list args, again;
  va_start(args, fmt);
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  std::string text(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(text.data(), text.size() + 1, fmt, again);
  va_end(again);
  return text;
}

std::string calibration_note(const CostModel& model, const std::string& model_path) {
  std::string note = "calibrated on " + model.backend + " on " + model.device + " (model '" + model_path + "': ";
  for (std::size_t i = 0; i < model.calibrated_on.size(); ++i) note += (i ? ", " : "") + model.calibrated_on[i];
  return note + ")";
}

void print_points(std::FILE* out, const std::vector<PredictedPoint>& points, const Words& w) {
  const int width = w.gpu ? 16 : 17;
  std::fprintf(out, "%7s %13s %9s %11s %10s %*s %*s\n", w.many().c_str(), "predicted_s", "speedup", "efficiency", "imbalance",
               width, ("max_GB_per_" + w.one()).c_str(), width, ("load_GB/s/" + w.one()).c_str());
  for (const PredictedPoint& p : points)
    std::fprintf(out, "%7d %13.4f %9.2f %11.3f %10.3f %*.3f %*.3f\n", p.gpus, p.seconds, p.speedup, p.efficiency,
                 p.imbalance, width, 1e-9 * static_cast<double>(p.max_bytes_per_gpu), width, 1e-9 / p.load_seconds_per_byte);
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
  std::uint32_t count_parts = 0;  // --count-parts: the parts a block file is counted as (0: tricount-count's auto)
  WorkloadSplits splits;  // --workload-splits m, or auto (tricount-count's rule at the most --gpus)
  std::vector<int> gpus;
  MachineParameters machine;
  bool plan = false;
  PlanRequest plan_request;
  bool static_schedule = false;    // --schedule static: the resident mode's two phases
  std::vector<std::string> like;   // --like: block files whose shapes stand in for a graph given by size
};

void print_static(std::FILE* out, const std::vector<StaticPrediction>& points, bool memory_given, const Words& w) {
  const int width = w.gpu ? 16 : 17;
  std::fprintf(out, "%7s %13s %10s %13s %13s %10s %10s %*s %5s %10s\n", w.many().c_str(), "count_phase_s", "count_eff",
               "load_phase_s", "total_s", "total_eff", "imbalance", width, ("max_GB_per_" + w.one()).c_str(), "fits", "dyn_eff");
  for (const StaticPrediction& s : points) {
    const StaticSimulationPoint& p = s.point;
    std::fprintf(out, "%7d %13.4f %10.3f %13.4f %13.4f %10.3f %10.3f %*.3f %5s %10.3f\n", p.workers, p.count_phase_seconds,
                 p.count_efficiency, p.load_phase_seconds, p.total_seconds, p.efficiency, p.imbalance, width,
                 1e-9 * static_cast<double>(p.max_bytes), memory_given ? (s.fits ? "yes" : "NO") : "-", s.dynamic.efficiency);
  }
}

// With a load path: both paths' load phases at each count and the terms they rest on (the
// path taken marked *), count and end-to-end efficiency of each.
void print_load_terms(std::FILE* out, const std::vector<StaticPrediction>& points, const Words& w) {
  std::fprintf(out,
               "Load phase by path (largest over nodes or %s; net_GB: entering a node, its own file-system reads included; sent_GB: "
               "leaving it; each "
               "pipe's seconds alone; node_fs_s: a node's reads on a path of their own (--file-system-per-node); load_s = the "
               "path's phase):\n",
               w.many().c_str());
  std::fprintf(out, "%7s %6s %8s %13s %12s %13s %13s %10s %8s %9s %8s %8s %8s %8s %9s %9s %9s %9s %10s\n", w.many().c_str(), "nodes",
               "path", "read_GB/node", "net_GB/node", "sent_GB/node", "copy_GB/node", ("GB/" + w.one()).c_str(), "fs_s", "node_fs_s", "net_s", "read_s",
               "check_s", "copy_s", "upload_s", "load_s", "count_s", "total_s", "total_eff");
  for (const StaticPrediction& s : points) {
    const double base = s.point.speedup * s.point.total_seconds;  // one GPU reading every block once and counting
    for (const LoadPhaseTerms* t : {&s.file, &s.forward}) {
      const double total = t->load_phase_seconds + s.point.count_phase_seconds;
      std::fprintf(out, "%7d %6d %7s%s %13.3f %12.3f %13.3f %13.3f %10.3f %8.4f %9.4f %8.4f %8.4f %8.4f %8.4f %9.4f %9.4f %9.4f %9.4f %10.3f\n",
                   s.point.workers, t->nodes, t->path.c_str(), t->path == s.path ? "*" : " ",
                   1e-9 * static_cast<double>(t->max_read_bytes_per_node), 1e-9 * static_cast<double>(t->max_network_bytes_per_node),
                   1e-9 * static_cast<double>(t->max_sent_bytes_per_node), 1e-9 * static_cast<double>(t->max_copy_bytes_per_node), 1e-9 * static_cast<double>(t->max_bytes_per_gpu),
                   t->file_system_seconds, t->node_file_system_seconds, t->network_seconds, t->read_seconds, t->check_seconds, t->copy_seconds,
                   t->upload_seconds, t->load_phase_seconds, s.point.count_phase_seconds, total,
                   total > 0 ? base / total / s.point.workers : 1.0);
    }
  }
}

JsonObject load_terms_json(const LoadPhaseTerms& t) {
  JsonObject o;
  o.add("nodes", t.nodes).add("total_read_bytes", t.total_read_bytes).add("max_read_bytes_per_node", t.max_read_bytes_per_node)
      .add("max_network_bytes_per_node", t.max_network_bytes_per_node).add("max_sent_bytes_per_node", t.max_sent_bytes_per_node).add("max_copy_bytes_per_node", t.max_copy_bytes_per_node)
      .add("max_bytes_per_gpu", t.max_bytes_per_gpu).add("file_system_seconds", t.file_system_seconds)
      .add("node_file_system_seconds", t.node_file_system_seconds).add("network_seconds", t.network_seconds).add("read_seconds", t.read_seconds).add("check_seconds", t.check_seconds)
      .add("copy_seconds", t.copy_seconds).add("upload_seconds", t.upload_seconds)
      .add("load_phase_seconds", t.load_phase_seconds);
  return o;
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
    if (!s.path.empty()) o.add("load_path", s.path).add("file", load_terms_json(s.file)).add("forward", load_terms_json(s.forward));
    out.push_back(o);
  }
  return out;
}

// The static schedule's predictions: both phases, count-phase and end-to-end efficiency.
int predict_static_and_print(const PredictRequest& request, const CostModel& model, const GraphShape& shape, std::uint32_t parts,
                             std::uint32_t splits, const std::vector<int>& counts, const std::string& plan_note, std::FILE* out) {
  const std::vector<StaticPrediction> points =
      predict_static(model, shape, splits, counts, request.machine, request.plan_request);
  const Words w = words_for(model);
  for (const StaticPrediction& s : points)
    require_finite({s.point.count_phase_seconds, s.point.count_efficiency, s.point.load_phase_seconds, s.point.total_seconds,
                    s.point.efficiency, s.point.imbalance, s.dynamic.efficiency},
                   "model '" + request.model_path + "'");
  if (!plan_note.empty()) std::fprintf(out, "%s\n", plan_note.c_str());
  const std::string text = format(
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
  std::fputs(w.say(text).c_str(), out);
  print_static(out, points, request.plan_request.gpu_memory_bytes > 0, w);
  if (!request.machine.load_path.empty()) {
    std::fputs(w.say(format("Load paths (--load-path %s): file: every GPU reads its own blocks; forward: each block read once "
                            "per job and sent to the nodes needing it (%.3g us per message), copied within a node (%.3g GB/s "
                            "per node), uploaded by each GPU; tasks assigned by nodes of %d GPUs.\n",
                            request.machine.load_path.c_str(), 1e6 * request.machine.network_latency_seconds,
                            1e-9 * request.machine.intra_node_bytes_per_second, request.machine.gpus_per_node)).c_str(),
               out);
    print_load_terms(out, points, w);
  }
  if (!request.json.empty()) {
    JsonObject j;
    std::string sources = "[";
    for (std::size_t i = 0; i < model.calibrated_on.size(); ++i) sources += (i ? ", " : "") + json_escape(model.calibrated_on[i]);
    j.add("prediction", true).add("label", "PREDICTED").add("scheduling", "static").add("model", request.model_path)
        .add("backend", model.backend).add("unit", w.one()).add("device", model.device).add_raw("calibrated_on", sources + "]")
        .add("graph", shape.description).add("vertices", shape.vertices).add("edges", shape.edges)
        .add("total_work", shape.total_work()).add("parts", parts).add("workload_splits", splits)
        .add("gpus_per_node", request.machine.gpus_per_node)
        .add("network_bytes_per_second", request.machine.network_bytes_per_second)
        .add("file_system_bytes_per_second", request.machine.file_system_bytes_per_second)
        .add("gpu_memory_bytes", request.plan_request.gpu_memory_bytes);
    if (!request.machine.load_path.empty())
      j.add("load_path", request.machine.load_path).add("network_latency_seconds", request.machine.network_latency_seconds)
          .add("intra_node_bytes_per_second", request.machine.intra_node_bytes_per_second)
          .add("node_file_system_bytes_per_second", request.machine.node_file_system_bytes_per_second);
    j.add("points", static_json(points));
    output::write_text_file(request.json, "--json", j.str() + "\n");
  }
  return cli::kExitOk;
}

int predict(const PredictRequest& request) {
  // 1. The model and the graph's shape (at the requested parts, or the file's own).
  const CostModel model = load_cost_model(request.model_path);
  GraphShapes shapes = graph_shapes(request.graph, model, request.plan, request.parts, request.like);
  // A block file is counted as tricount-count counts it: --count-parts, or its auto rule on
  // --gpu-memory (the file's n for a CPU model, or with no --gpu-memory to go by).
  if (shapes.from_file) {
    const GraphShape& file = *shapes.from_file;
    std::uint32_t count_parts = request.count_parts;
    if (count_parts == 0) {
      const std::uint64_t device = model.backend == "cuda" ? request.plan_request.gpu_memory_bytes : 0;
      const std::uint64_t most = static_cast<std::uint64_t>(*std::max_element(request.gpus.begin(), request.gpus.end()));
      count_parts = auto_count_parts(file.parts, file.block_bytes, device, count_parts_min_tasks(request.splits, most));
    }
    shapes.from_file = count_parts_shape(file, count_parts);
  } else if (request.count_parts) {
    throw UsageError("--count-parts: predictions of a block file (--input) only; --plan and a graph given by size choose --parts");
  }
  // 2. The plan (model/plan.hpp), or the parts and splits asked for.
  std::uint32_t parts = shapes.from_file ? shapes.from_file->parts : request.parts;
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
    plan_note = words_for(model).say(note);
    if (request.static_schedule) {
      std::snprintf(note, sizeof note,
                    "; resident (static schedule): the shortest load + count phase at %d GPUs whose blocks fit, %.3g GB "
                    "of blocks on the fullest GPU",
                    pr.gpus,
                    1e-9 * static_cast<double>(plan.resident_bytes));
      plan_note += words_for(model).say(note);
      if (!plan.load_path.empty())
        plan_note += "; --load-path " + plan.load_path + (request.machine.load_path == "auto" ? " (the faster of file and forward)" : "");
    }
  }
  if (parts == 0) throw UsageError("--parts: give the parts to predict for (or --plan)");
  if (!request.plan)
    splits = resolve_workload_splits(request.splits, parts,
                                     static_cast<std::uint64_t>(*std::max_element(request.gpus.begin(), request.gpus.end())));
  // 3. The predictions.
  const std::vector<int> counts = request.plan ? powers_of_two_up_to(request.plan_request.gpus) : request.gpus;
  if (!request.plan)
    check_prediction_cost(std::uint64_t(parts) * parts * parts * splits, counts, request.static_schedule,
                          "--parts " + std::to_string(parts) + " --workload-splits " + std::to_string(splits));
  const GraphShape shape = shapes.at(parts);
  std::FILE* out = request.json == "-" ? stderr : stdout;
  if (request.static_schedule) return predict_static_and_print(request, model, shape, parts, splits, counts, plan_note, out);
  const std::vector<PredictedPoint> points = predict_runs(model, shape, splits, counts, request.machine);
  const Words w = words_for(model);
  for (const PredictedPoint& p : points)
    require_finite({p.seconds, p.speedup, p.efficiency, p.imbalance, p.load_seconds_per_byte}, "model '" + request.model_path + "'");
  if (!plan_note.empty()) std::fprintf(out, "%s\n", plan_note.c_str());
  const std::string text = format(
               "PREDICTED, not measured: %s (%llu vertices, %llu edges, work %.4g) at --parts %u --workload-splits %u;\n"
               "%s; %d GPUs per node, %.3g GB/s network per node, %.3g TB/s shared file system.\n",
               shape.description.c_str(), static_cast<unsigned long long>(shape.vertices),
               static_cast<unsigned long long>(shape.edges), static_cast<double>(shape.total_work()), parts, splits,
               calibration_note(model, request.model_path).c_str(), request.machine.gpus_per_node,
               1e-9 * request.machine.network_bytes_per_second, 1e-12 * request.machine.file_system_bytes_per_second);
  std::fputs(w.say(text).c_str(), out);
  print_points(out, points, w);
  if (!request.json.empty()) {
    JsonObject j;
    std::string sources = "[";
    for (std::size_t i = 0; i < model.calibrated_on.size(); ++i) sources += (i ? ", " : "") + json_escape(model.calibrated_on[i]);
    j.add("prediction", true).add("label", "PREDICTED").add("model", request.model_path).add("backend", model.backend)
        .add("unit", w.one()).add("device", model.device).add_raw("calibrated_on", sources + "]").add("graph", shape.description)
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
  // Decimal numbers only (an exponent allowed): strtod alone also read hex ("0x10G" was 16G),
  // "inf" and leading blanks.
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.') ||
      text.find_first_of("xX") != std::string::npos)
    v = -1;
  const std::string unit = end ? std::string(end) : "";
  const std::string units = "KMGT";
  if (unit.size() == 1 && units.find(unit[0]) != std::string::npos) v *= std::pow(1e3, double(units.find(unit[0]) + 1));
  else if (!unit.empty() || end == text.c_str()) v = -1;
  // From a slow disk to a thousand times today's fastest file systems: beyond, the
  // predicted seconds lose all meaning (1e-300 B/s gave inf).
  if (!(v >= 1e6 && v <= 1e18))
    throw UsageError(option + ": '" + text + "' is not a bandwidth between 1M and 1000000T bytes per second (e.g. 25G, 2.5T)");
  return v;
}

// "2e-6" -> seconds: a latency from 0 to one second.
double parse_seconds(const std::string& text, const std::string& option) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(v >= 0 && v <= 1))
    throw UsageError(option + ": '" + text + "' is not a number of seconds from 0 to 1 (e.g. 2e-6)");
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
    std::string backend = "cuda", device = "unnamed device", storage = "page cache", schedule = "dynamic", block_encoding;
    std::string intra_node, latency, node_file_system;
    int max_workers = 1024, kronecker_scale = 0;
    double overhead = 0, edges = 0, vertices = 0;
    PredictRequest request;
    opts.add_options()
      ("journal,j", cli::po::value(&journals)->composing(), "journal written by tricount-count --journal (repeat for --fit)")
      ("max-workers", cli::po::value(&max_workers)->default_value(1024), "predict for 1, 2, 4, ... up to this many workers")
      ("workers", cli::po::value(&workers_list),
       "comma-separated worker counts instead of powers of two; with --model and --plan the same as --gpus (for a CPU model)")
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
      ("block-encoding", cli::po::value(&block_encoding)->default_value("packed"), "with --model and a graph given by size: "
       "its blocks as tricount-partition --block-encoding writes them, packed (its default: read, sent and uploaded at "
       "their packed bytes, decoded on the GPU) or csr; a block file's own are its encoding")
      ("parts", cli::po::value(&request.parts), "with --model: n to predict for")
      ("count-parts", cli::po::value(&request.count_parts),
       "with --model --input: the parts the block file is counted as (tricount-count --count-parts), a divisor of its n "
       "(default: tricount-count's, the fewest whose blocks fit --gpu-memory; the file's n without --gpu-memory or for a "
       "CPU model)")
      ("workload-splits", cli::po::value(&splits_text)->default_value("auto"),
       "with --model: m to predict for; auto: tricount-count's choice at the most --gpus (a task per GPU at least, more "
       "only where tasks would divide unevenly; m = 1 for one)")
      ("gpus", cli::po::value(&gpus_list), "with --model: comma-separated GPU counts; with --plan: the most GPUs")
      ("gpus-per-node", cli::po::value(&request.machine.gpus_per_node)->default_value(6), "GPUs sharing a node's network link")
      ("network", cli::po::value(&network)->default_value(network), "network bandwidth per node, bytes/s (25G)")
      ("file-system", cli::po::value(&file_system)->default_value(file_system), "shared file system bandwidth, bytes/s (2.5T: GPFS-like)")
      ("load-path", cli::po::value(&request.machine.load_path),
       "with --schedule static: file (every GPU reads its blocks), forward (each block read once per job, sent over the "
       "network to the nodes needing it) or auto (the faster; with --plan, chosen with n and m); tasks then assigned by "
       "nodes of --gpus-per-node, as tricount-count does (without it: the earlier model, no nodes)")
      ("file-system-per-node", cli::po::value(&node_file_system),
       "with --load-path: a node's bandwidth from the file system when its reads do not cross the network link (a "
       "storage network of their own, or a node-local copy), bytes/s; default: they share --network")
      ("network-latency", cli::po::value(&latency), "with --load-path: seconds per network message (default 2e-6)")
      ("intra-node-bandwidth", cli::po::value(&intra_node),
       "with --load-path: bytes/s of a node's host-memory copies to its GPUs' ranks (default 100G)")
      ("schedule", cli::po::value(&schedule)->default_value(schedule),
       "with --journal: the schedule to replay (default: the journal's, as its runs recorded it); "
       "with --model/--plan: dynamic (tasks handed out as GPUs ask, blocks loaded on demand) or static (tricount-count "
       "--schedule static: each GPU loads the blocks of its assigned tasks, then the timed count phase; predicts both "
       "phases, and --plan picks n and m whose blocks fit each GPU)")
      ("like", cli::po::value(&request.like)->composing(),
       "with --kronecker-scale or --edges/--vertices: a block file of a smaller graph of the same family; at its --parts the "
       "prediction takes its task-work and block-size shape, scaled to the graph's total work and edges (repeat for other "
       "n; without one, tasks and blocks are even)")
      ("plan", "recommend --parts and --workload-splits for --gpus of --gpu-memory each, with the predictions")
      ("auto-splits", "print the m that tricount-count's --workload-splits auto takes for --gpus (or --workers) workers "
       "on --input BLOCKFILE (its parts) or --parts N, counted as --count-parts N_C if given, and nothing else")
      ("auto-count-parts", "print the parts tricount-count's --count-parts auto counts --input BLOCKFILE as, on --gpus W GPUs "
       "of --gpu-memory each (with a given --workload-splits m, enough for every GPU to have a task), and nothing else")
      ("gpu-memory", cli::po::value(&gpu_memory), "memory of one GPU (e.g. 16G, 80G): with --plan, the parts whose blocks "
       "fit; with --model --input and --auto-count-parts, the parts tricount-count counts the file as")
      ("tasks-per-gpu", cli::po::value(&request.plan_request.tasks_per_gpu)->default_value(kAutoTasksPerWorker),
       "with --plan: the fewest tasks per GPU (the default is tricount-count's --workload-splits auto)")
      ("memory-headroom", cli::po::value(&request.plan_request.memory_headroom)->default_value(0.8, "0.8"),
       "with --plan: the fraction of GPU memory the block triple and tables may take")
      ("table-factor", cli::po::value(&request.plan_request.table_factor)->default_value(2.0),
       "with --plan: hash table bytes per byte of the hashed block (the CUDA tables keep at least 2 slots per key)");
    cli::po::variables_map vm;
    if (!cli::parse(argc, argv, opts, vm,
                    "tricount-simulate --journal PATH [--max-workers 1024]\n"
                    "  tricount-simulate --fit MODEL.json --journal PATH... [--report JSON...] [--kronecker-sample S=FILE...]\n"
                    "  tricount-simulate --model MODEL.json (--input FILE | --kronecker-scale S | --edges E --vertices V)\n"
                    "                    --parts N [--workload-splits M] --gpus 1,2,4\n"
                    "  tricount-simulate --auto-splits (--input BLOCKFILE | --parts N) --gpus W\n"
                    "  tricount-simulate --plan --model MODEL.json (--kronecker-scale S | --edges E --vertices V)\n"
                    "                    --gpus P --gpu-memory 16G [--gpus-per-node 6]\n"
                    "                    [--schedule static --load-path file|forward|auto [--file-system-per-node BW]]",
                    "Replays the task costs measured in a journal through the scheduler's own policy for P\n"
                    "virtual workers and prints the PREDICTED time, speedup, efficiency and imbalance; fits a\n"
                    "cost model on measured runs and predicts runs not measured (other n, m, GPU counts, graphs\n"
                    "given by size); recommends n and m for a cluster (--plan)."))
      return cli::kExitOk;
    // 0. Outputs onto inputs, and values no computation can use.
    {
      std::vector<output::NamedPath> inputs;
      for (const std::string& j : journals) inputs.push_back({j, "--journal"});
      for (const std::string& r : reports) inputs.push_back({r, "--report"});
      for (const std::string& k : samples)
        if (k.find('=') != std::string::npos) inputs.push_back({k.substr(k.find('=') + 1), "--kronecker-sample"});
      for (const std::string& l : request.like) inputs.push_back({l, "--like"});
      inputs.push_back({model_path, "--model"});
      inputs.push_back({input, "--input"});
      refuse_outputs_onto_inputs({{fit_path, "--fit"}, {json, "--json"}}, inputs);
      output::refuse_same_file(json, "--json", {{fit_path, "--fit"}});
    }
    if (!(overhead >= 0 && overhead <= 3600))
      throw UsageError("--task-overhead must be between 0 and 3600 seconds (a scheduler's latency per task is microseconds "
                       "to milliseconds)");
    // 1. The rules of tricount-count's auto layout, alone (slurm/study.sbatch asks for them here):
    // --workload-splits auto's m, --count-parts auto's n_c.
    if (vm.count("auto-splits") || vm.count("auto-count-parts")) {
      const std::string what = vm.count("auto-splits") ? "--auto-splits" : "--auto-count-parts";
      if (vm.count("auto-splits") && vm.count("auto-count-parts")) throw UsageError("--auto-splits and --auto-count-parts: ask one");
      for (const char* other : {"fit", "model", "plan", "journal"})
        if (vm.count(other)) throw UsageError(what + ": leave out --" + other);
      if (int(!input.empty()) + int(vm.count("parts") > 0) != 1)
        throw UsageError(what + ": give the block file (--input) or its --parts, one of them");
      if (int(!gpus_list.empty()) + int(!workers_list.empty()) != 1)
        throw UsageError(what + ": give the workers' count, --gpus W or --workers W");
      const char* option = gpus_list.empty() ? "--workers" : "--gpus";
      const std::vector<int> workers = parse_counts(gpus_list.empty() ? workers_list : gpus_list, option);
      if (workers.size() != 1) throw UsageError(what + ": " + option + " is one number");
      const std::uint64_t w = static_cast<std::uint64_t>(workers.front());
      if (vm.count("auto-count-parts")) {
        if (input.empty() || gpu_memory.empty())
          throw UsageError("--auto-count-parts: give the block file (--input) and one GPU's --gpu-memory");
        const BlockFileReader file(input);
        const WorkloadSplits m = vm["workload-splits"].defaulted() ? WorkloadSplits{} : parse_workload_splits(splits_text);
        const auto bytes = static_cast<std::uint64_t>(positive_size(gpu_memory, "--gpu-memory"));
        std::printf("%u\n", auto_count_parts(file.header().parts, file_block_bytes(file), bytes, count_parts_min_tasks(m, w)));
        return cli::kExitOk;
      }
      std::uint32_t parts = input.empty() ? request.parts : BlockFileReader(input).header().parts;
      check_parts(parts);
      if (vm.count("count-parts")) {
        check_count_parts(request.count_parts, parts);
        parts = request.count_parts;
      }
      std::printf("%u\n", auto_workload_splits(parts, w));
      return cli::kExitOk;
    }
    // 2. Fit.
    if (!fit_path.empty()) {
      if (vm.count("model") || vm.count("plan")) throw UsageError("--fit: give --model and --plan in a later call");
      return fit({journals, reports, samples, backend, device, storage, fit_path});
    }
    // 3. Predict or plan.
    if (!model_path.empty() || vm.count("plan")) {
      if (model_path.empty()) throw UsageError("--plan needs --model (a cost model written by --fit)");
      if (!journals.empty()) throw UsageError("--model predicts from the model: leave out --journal");
      const int graphs = int(!input.empty()) + int(vm.count("kronecker-scale") > 0) + int(vm.count("edges") || vm.count("vertices"));
      if (graphs != 1)
        throw UsageError("--model: give exactly one graph: --input BLOCKFILE, --kronecker-scale S, or --edges E --vertices V");
      if (vm.count("kronecker-scale") && (kronecker_scale < 1 || kronecker_scale > 32))
        throw UsageError("--kronecker-scale must be between 1 and 32 (got " + std::to_string(kronecker_scale) + ")");
      if (request.machine.gpus_per_node < 1 || request.machine.gpus_per_node > 1024)
        throw UsageError("--gpus-per-node must be between 1 and 1024");
      request.splits = parse_workload_splits(splits_text);
      if (vm.count("parts")) check_parts(request.parts);
      if (vm.count("count-parts") && request.count_parts == 0)
        throw UsageError("--count-parts must be a divisor of the block file's parts (got 0); leave it out for tricount-count's choice");
      request.model_path = model_path, request.json = json;
      request.graph.input = input, request.graph.kronecker_scale = kronecker_scale;
      request.graph.edges = edges, request.graph.vertices = vertices;
      if (block_encoding != "csr" && block_encoding != "packed")
        throw UsageError("--block-encoding must be csr or packed, not '" + block_encoding + "'");
      request.graph.packed = block_encoding == "packed";
      request.machine.network_bytes_per_second = parse_rate(network, "--network");
      request.machine.file_system_bytes_per_second = parse_rate(file_system, "--file-system");
      request.plan = vm.count("plan") > 0;
      if (schedule != "dynamic" && schedule != "static") throw UsageError("--schedule: '" + schedule + "' is not dynamic or static");
      request.static_schedule = schedule == "static";
      if (vm.count("load-path")) {
        const std::string& path = request.machine.load_path;
        if (path != "file" && path != "forward" && path != "auto")
          throw UsageError("--load-path: '" + path + "' is not file, forward or auto");
        if (!request.static_schedule)
          throw UsageError("--load-path models the static schedule's load phase: give --schedule static");
      } else {
        for (const char* option : {"network-latency", "intra-node-bandwidth", "file-system-per-node"})
          if (vm.count(option)) throw UsageError(std::string("--") + option + " needs --load-path (file, forward or auto)");
      }
      if (vm.count("network-latency")) request.machine.network_latency_seconds = parse_seconds(latency, "--network-latency");
      if (vm.count("file-system-per-node"))
        request.machine.node_file_system_bytes_per_second = parse_rate(node_file_system, "--file-system-per-node");
      if (vm.count("intra-node-bandwidth"))
        request.machine.intra_node_bytes_per_second = parse_rate(intra_node, "--intra-node-bandwidth");
      if (!request.like.empty() && !input.empty()) throw UsageError("--like: the graph is given by --input already");
      // A CPU model's workers are not GPUs: --workers says the same as --gpus.
      if (!gpus_list.empty() && !workers_list.empty()) throw UsageError("--gpus and --workers: give one of them");
      if (gpus_list.empty()) gpus_list = workers_list;
      if (gpus_list.empty())
        throw UsageError(request.plan ? "--plan needs --gpus (the most GPUs; --workers for a CPU model)"
                                      : "--model needs --gpus (e.g. 1,2,4; --workers for a CPU model)");
      request.gpus = parse_counts(gpus_list, "--gpus");
      if (request.plan) {
        if (request.gpus.size() != 1) throw UsageError("--plan: --gpus is one number, the most GPUs");
        if (gpu_memory.empty()) throw UsageError("--plan needs --gpu-memory (one GPU's memory, e.g. 16G)");
        if (request.plan_request.tasks_per_gpu < 1 || request.plan_request.tasks_per_gpu > 1024)
          throw UsageError("--tasks-per-gpu must be between 1 and 1024 (more even out unequal tasks, but each "
                           "split repeats a share of its subtask; more only lengthen the plan)");
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
    // 4. Replay one journal.
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
    if (!vm["schedule"].defaulted() && schedule != "dynamic" && schedule != "static")
      throw UsageError("--schedule: '" + schedule + "' is not dynamic or static");
    return replay(journals.front(), counts, overhead, input, vm.count("no-loads") > 0, json,
                  vm["schedule"].defaulted() ? "" : schedule);
  });
}
