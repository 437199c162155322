// bench tool, not a product feature: the cost model's held-out validation (issue 21) away
// from the block files. Where the files are (the GPU host), `shape` writes what the fit and
// the predictions need of each file as a small JSON file; anywhere, `fit` fits a model on
// journals with those shapes (model/cost_model.hpp, as tricount-simulate --fit does) and
// `predict` predicts one run from a shape or from the model's Kronecker family.
//
//   cost_model_tool shape FILE.h5 OUT.json
//   cost_model_tool fit OUT.json BACKEND DEVICE STORAGE
//                   (--run JOURNAL SHAPE.json [--transfer SECONDS BYTES])... [--sample SCALE SHAPE.json]...
//   cost_model_tool predict MODEL.json (--shape SHAPE.json | --scale S --parts N) --splits M
//                   [--gpus 1,2,...] [--count-factor F]
//
// --transfer: the run's upload seconds and bytes loaded (its --json report, summed over the
// worker ranks). --count-factor multiplies the model's count terms (overhead, rate, row rate):
// a CPU worker of t threads predicted from one of T threads counts with F = T / t.
// predict prints one JSON object on stdout (PREDICTED, with the model's sources).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "model/cost_model.hpp"
#include "model/graph_shape.hpp"
#include "model/predict.hpp"
#include "src/json.hpp"

namespace {

using namespace tricount;

[[noreturn]] void usage(const std::string& what) {
  std::fprintf(stderr, "cost_model_tool: error: %s\n", what.c_str());
  std::exit(2);
}

int shape_of_file(const std::string& path, const std::string& out) {
  save_graph_shape(file_shape(path), out);
  return 0;
}

int fit(int argc, char** argv) {
  if (argc < 6) usage("fit OUT.json BACKEND DEVICE STORAGE (--run JOURNAL SHAPE [--transfer S B])... [--sample SCALE SHAPE]...");
  const std::string out = argv[2];
  std::vector<MeasuredRun> runs;
  std::vector<GraphSample> samples;
  std::vector<std::string> sample_names;
  for (int a = 6; a < argc; ++a) {
    const std::string opt = argv[a];
    if (opt == "--run" && a + 2 < argc) {
      MeasuredRun run;
      run.journal_path = argv[a + 1];
      run.journal = read_journal(run.journal_path);
      run.block_bytes = load_graph_shape(argv[a + 2]).block_bytes;
      runs.push_back(std::move(run));
      a += 2;
    } else if (opt == "--transfer" && a + 2 < argc && !runs.empty()) {
      runs.back().transfer_seconds = std::strtod(argv[a + 1], nullptr);
      runs.back().transfer_bytes = std::strtoull(argv[a + 2], nullptr, 10);
      a += 2;
    } else if (opt == "--sample" && a + 2 < argc) {
      samples.push_back(kronecker_sample(std::atoi(argv[a + 1]), load_graph_shape(argv[a + 2])));
      sample_names.push_back(std::string("kronecker sample ") + argv[a + 1] + "=" + argv[a + 2]);
      a += 2;
    } else {
      usage("fit: unexpected argument '" + opt + "'");
    }
  }
  CostModel model = fit_cost_model(runs, argv[3], argv[4], argv[5]);
  if (!samples.empty()) {
    model.kronecker = fit_kronecker_family(samples);
    model.calibrated_on.insert(model.calibrated_on.end(), sample_names.begin(), sample_names.end());
  }
  save_cost_model(model, out);
  return 0;
}

int predict(int argc, char** argv) {
  if (argc < 3) usage("predict MODEL.json (--shape SHAPE | --scale S --parts N) --splits M [--gpus LIST] [--count-factor F]");
  CostModel model = load_cost_model(argv[2]);
  std::string shape_path;
  int scale = 0;
  std::uint32_t parts = 0, splits = 1;
  double factor = 1;
  std::vector<int> gpus = {1};
  for (int a = 3; a + 1 < argc; a += 2) {
    const std::string opt = argv[a], value = argv[a + 1];
    if (opt == "--shape") shape_path = value;
    else if (opt == "--scale") scale = std::atoi(value.c_str());
    else if (opt == "--parts") parts = static_cast<std::uint32_t>(std::atoi(value.c_str()));
    else if (opt == "--splits") splits = static_cast<std::uint32_t>(std::atoi(value.c_str()));
    else if (opt == "--count-factor") factor = std::strtod(value.c_str(), nullptr);
    else if (opt == "--gpus") {
      gpus.clear();
      for (std::size_t at = 0; at < value.size();) {
        const std::size_t comma = value.find(',', at);
        gpus.push_back(std::atoi(value.substr(at, comma - at).c_str()));
        at = comma == std::string::npos ? value.size() : comma + 1;
      }
    } else usage("predict: unexpected argument '" + opt + "'");
  }
  // 1. The graph: a measured shape, or the family's size at that scale (even tasks).
  GraphShape shape;
  if (!shape_path.empty()) {
    shape = load_graph_shape(shape_path);
  } else {
    if (scale < 1 || parts < 1 || !model.kronecker.fitted) usage("predict: give --shape, or --scale and --parts with a family model");
    const KroneckerFamily& k = model.kronecker;
    shape = synthetic_shape("Kronecker scale " + std::to_string(scale), static_cast<std::uint64_t>(k.vertices.at(scale)),
                            static_cast<std::uint64_t>(k.edges.at(scale)), static_cast<std::uint64_t>(k.work.at(scale)), parts);
  }
  // 2. The count terms scaled (CPU threads), then the runs.
  model.task_overhead_seconds *= factor, model.seconds_per_work *= factor, model.seconds_per_row *= factor;
  const std::vector<PredictedPoint> points = predict_runs(model, shape, splits, gpus, MachineParameters{});
  std::vector<JsonObject> rows;
  for (const PredictedPoint& p : points) {
    JsonObject o;
    o.add("gpus", p.gpus).add("predicted_seconds", p.seconds).add("speedup", p.speedup).add("efficiency", p.efficiency)
        .add("imbalance", p.imbalance).add("tasks", p.tasks).add("count_seconds_all_gpus", p.count_seconds)
        .add("load_seconds_all_gpus", p.load_seconds).add("upload_seconds_all_gpus", p.upload_seconds)
        .add("mean_bytes_per_gpu", p.mean_bytes_per_gpu).add("max_bytes_per_gpu", p.max_bytes_per_gpu);
    rows.push_back(o);
  }
  JsonObject j;
  j.add("prediction", true).add("model", argv[2]).add("graph", shape.description).add("vertices", shape.vertices)
      .add("edges", shape.edges).add("parts", shape.parts).add("splits", splits).add("total_work", shape.total_work())
      .add("count_factor", factor).add("points", rows);
  std::printf("%s\n", j.str().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "shape" && argc == 4) return shape_of_file(argv[2], argv[3]);
    if (mode == "fit") return fit(argc, argv);
    if (mode == "predict") return predict(argc, argv);
    usage("usage: cost_model_tool shape FILE.h5 OUT.json | fit ... | predict ... (see the source's header)");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cost_model_tool: error: %s\n", e.what());
    return 1;
  }
}
