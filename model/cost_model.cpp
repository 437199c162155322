#include "model/cost_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "src/block_format.hpp"
#include "src/json.hpp"
#include "src/output_file.hpp"
#include "src/task_plan.hpp"

namespace tricount {
namespace {

// Least squares of y = a + b x. Returns {a, b, R^2}.
struct LineFit {
  double intercept = 0, slope = 0, r2 = 0;
};
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
  LineFit f;
  const double den = n * sxx - sx * sx;
  if (n < 2 || den <= 0) {  // one distinct x: the mean is all it says
    f.intercept = n > 0 ? sy / n : 0;
    return f;
  }
  f.slope = (n * sxy - sx * sy) / den;
  f.intercept = (sy - f.slope * sx) / n;
  double ss_res = 0, ss_tot = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - (f.intercept + f.slope * x[i]);
    ss_res += r * r;
    ss_tot += (y[i] - sy / n) * (y[i] - sy / n);
  }
  f.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
  return f;
}

// Least squares of y against the given columns with every coefficient >= 0: each subset of
// the columns is solved (normal equations on columns scaled to 1, Gaussian elimination), in
// order of size and then of the columns' order, and the feasible one with the least squared
// residual kept; a later subset must lower the residual by more than 0.1% to replace an
// earlier one (so exact data keeps its true terms, a column that adds nothing gets 0, and of
// near-equal fits on nearly collinear columns, such as evenly hashed tasks of one estimate,
// the first column's is kept). Returns the coefficients (0 for a dropped column).
std::vector<double> least_squares_nonnegative(const std::vector<std::vector<double>>& columns, const std::vector<double>& y,
                                              double* residual = nullptr) {
  const std::size_t k = columns.size(), rows = y.size();
  std::vector<double> scale(k, 1.0);
  for (std::size_t c = 0; c < k; ++c) {
    double most = 0;
    for (double v : columns[c]) most = std::max(most, std::abs(v));
    if (most > 0) scale[c] = most;
  }
  double y_squares = 0;
  for (double v : y) y_squares += v * v;
  const double tolerance = 1e-9 * y_squares;
  std::vector<double> best(k, 0.0);
  double best_residual = y_squares;  // the empty subset
  std::vector<std::uint32_t> subsets;
  for (std::uint32_t subset = 1; subset < (1u << k); ++subset) subsets.push_back(subset);
  std::stable_sort(subsets.begin(), subsets.end(),
                   [](std::uint32_t a, std::uint32_t b) { return std::popcount(a) < std::popcount(b); });
  for (std::uint32_t subset : subsets) {
    std::vector<std::size_t> use;
    for (std::size_t c = 0; c < k; ++c)
      if (subset & (1u << c)) use.push_back(c);
    // Normal equations A b = r over the scaled columns in `use`.
    const std::size_t u = use.size();
    std::vector<std::vector<double>> a(u, std::vector<double>(u + 1, 0.0));
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t p = 0; p < u; ++p) {
        const double xp = columns[use[p]][i] / scale[use[p]];
        for (std::size_t q = 0; q < u; ++q) a[p][q] += xp * columns[use[q]][i] / scale[use[q]];
        a[p][u] += xp * y[i];
      }
    bool solved = true;
    for (std::size_t p = 0; p < u && solved; ++p) {
      std::size_t pivot = p;
      for (std::size_t q = p + 1; q < u; ++q)
        if (std::abs(a[q][p]) > std::abs(a[pivot][p])) pivot = q;
      std::swap(a[p], a[pivot]);
      if (!(std::abs(a[p][p]) > 1e-12 * static_cast<double>(rows))) solved = false;  // collinear columns
      for (std::size_t q = 0; q < u && solved; ++q) {
        if (q == p) continue;
        const double f = a[q][p] / a[p][p];
        for (std::size_t c = p; c <= u; ++c) a[q][c] -= f * a[p][c];
      }
    }
    if (!solved) continue;
    std::vector<double> b(k, 0.0);
    bool feasible = true;
    for (std::size_t p = 0; p < u; ++p) {
      b[use[p]] = a[p][u] / a[p][p] / scale[use[p]];
      if (!(b[use[p]] >= 0) || !std::isfinite(b[use[p]])) feasible = false;
    }
    if (!feasible) continue;
    double ss = 0;
    for (std::size_t i = 0; i < rows; ++i) {
      double r = y[i];
      for (std::size_t c = 0; c < k; ++c) r -= b[c] * columns[c][i];
      ss += r * r;
    }
    if (ss < best_residual * (1 - 1e-3) - tolerance) best_residual = ss, best = b;
  }
  if (residual) *residual = best_residual;
  return best;
}

// Least squares of y = a + b x + c z with a, b, c >= 0 (see least_squares_nonnegative).
struct PlaneFit {
  double intercept = 0, slope_x = 0, slope_z = 0, r2 = 0;
};
PlaneFit fit_plane(const std::vector<double>& x, const std::vector<double>& z, const std::vector<double>& y) {
  double ss = 0;
  const std::vector<double> b = least_squares_nonnegative({x, std::vector<double>(x.size(), 1.0), z}, y, &ss);
  double mean = 0, ss_tot = 0;
  for (double v : y) mean += v / static_cast<double>(y.size());
  for (double v : y) ss_tot += (v - mean) * (v - mean);
  return {b[1], b[0], b[2], ss_tot > 0 ? 1 - ss / ss_tot : 1};
}

// Per record of a run: the bytes its rank read first (the blocks it did not hold yet); the
// number of those blocks and of their rows are added to *blocks and *rows.
std::vector<std::uint64_t> first_read_bytes(const MeasuredRun& run, std::uint64_t* blocks, std::uint64_t* rows) {
  const TaskPlan plan(run.journal.identity.parts, run.journal.identity.splits);
  if (run.block_bytes.size() != std::size_t(plan.parts()) * plan.parts())
    throw Error("'" + run.journal_path + "': the block file has " + std::to_string(run.block_bytes.size()) +
                " blocks, the journal's n = " + std::to_string(plan.parts()));
  std::unordered_map<int, std::vector<bool>> held;
  std::vector<std::uint64_t> bytes;
  for (const JournalRecord& r : run.journal.records) {
    if (r.task >= plan.num_tasks())
      throw Error("'" + run.journal_path + "': task " + std::to_string(r.task) + " is outside the plan");
    std::vector<bool>& h = held[r.rank];
    if (h.empty()) h.assign(run.block_bytes.size(), false);
    const Task t = plan.decode(r.task);
    std::uint64_t b = 0;
    for (const BlockId& id : t.blocks()) {
      const std::size_t at = std::size_t(id.row_class) * plan.parts() + id.col_class;
      if (h[at]) continue;
      h[at] = true, b += run.block_bytes[at], ++*blocks;
      *rows += rows_in_class(run.journal.identity.vertices, plan.parts(), id.row_class);
    }
    bytes.push_back(b);
  }
  return bytes;
}

double task_rows(const JournalIdentity& identity, std::uint64_t task) {
  const TaskPlan plan(identity.parts, identity.splits);
  return static_cast<double>(rows_in_class(identity.vertices, identity.parts, plan.decode(task).i));
}

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

}  // namespace

double LogLinear::at(double scale) const { return std::exp2(intercept + slope * scale); }

CostModel fit_cost_model(const std::vector<MeasuredRun>& runs, const std::string& backend, const std::string& device,
                         const std::string& storage) {
  if (runs.empty()) throw UsageError("the fit needs at least one journal");
  CostModel m;
  m.backend = backend, m.device = device, m.storage = storage;
  // 1. Load: least squares of each run's load seconds against the bytes, blocks and rows its
  // ranks read first (no intercept); upload: totals over totals.
  std::vector<std::vector<std::uint64_t>> first(runs.size());
  std::vector<double> run_load, run_bytes, run_blocks, run_rows;
  double transfer = 0, transfer_bytes = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const MeasuredRun& run = runs[r];
    if (run.journal.records.empty()) throw Error("'" + run.journal_path + "' records no task");
    std::uint64_t blocks = 0, rows = 0;
    first[r] = first_read_bytes(run, &blocks, &rows);
    double load = 0, bytes = 0;
    for (std::size_t i = 0; i < run.journal.records.size(); ++i) {
      const JournalRecord& rec = run.journal.records[i];
      if (rec.load_seconds < 0)
        throw Error("'" + run.journal_path + "' has no load column (written before it): record it again with this tricount-count");
      load += rec.load_seconds;
      bytes += static_cast<double>(first[r][i]);
    }
    run_load.push_back(load), run_bytes.push_back(bytes), run_blocks.push_back(static_cast<double>(blocks));
    run_rows.push_back(static_cast<double>(rows));
    if (run.transfer_seconds >= 0) transfer += run.transfer_seconds, transfer_bytes += static_cast<double>(run.transfer_bytes);
    m.calibrated_on.push_back(run.journal_path);
  }
  const std::vector<double> load_fit = least_squares_nonnegative({run_bytes, run_blocks, run_rows}, run_load);
  m.load_seconds_per_byte = load_fit[0];
  m.load_seconds_per_block = load_fit[1];
  m.load_seconds_per_row = load_fit[2];
  m.upload_seconds_per_byte = transfer_bytes > 0 ? transfer / transfer_bytes : 0;
  // 2. Count: least squares of the task's remaining seconds against its work estimate and
  // the rows of its class.
  std::vector<double> x, z, y;
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (std::size_t i = 0; i < runs[r].journal.records.size(); ++i) {
      const JournalRecord& rec = runs[r].journal.records[i];
      x.push_back(rec.estimate);
      z.push_back(task_rows(runs[r].journal.identity, rec.task));
      y.push_back(std::max(0.0, rec.seconds - rec.load_seconds -
                                    m.upload_seconds_per_byte * static_cast<double>(first[r][i])));
    }
  const PlaneFit f = fit_plane(x, z, y);
  m.task_overhead_seconds = std::max(0.0, f.intercept);
  m.seconds_per_work = std::max(0.0, f.slope_x);
  m.seconds_per_row = f.slope_z;
  m.count_r2 = f.r2;
  m.tasks_fitted = x.size();
  // 3. How well it sums up per run (what a prediction of a whole run rests on).
  std::size_t k = 0;
  for (const MeasuredRun& run : runs) {
    double measured = 0, predicted = 0;
    for (const JournalRecord& rec : run.journal.records) {
      measured += y[k];
      predicted += m.task_overhead_seconds + m.seconds_per_work * rec.estimate + m.seconds_per_row * z[k];
      ++k;
    }
    if (measured > 0) m.count_total_relative_error = std::max(m.count_total_relative_error, std::abs(predicted - measured) / measured);
  }
  return m;
}

KroneckerFamily fit_kronecker_family(const std::vector<GraphSample>& samples) {
  KroneckerFamily k;
  if (samples.size() < 2) throw UsageError("the Kronecker family needs samples of at least two scales");
  std::vector<double> s, v, e, w;
  for (const GraphSample& g : samples) {
    if (g.vertices == 0 || g.edges == 0 || g.total_work == 0)
      throw Error("Kronecker sample of scale " + std::to_string(g.scale) + " is empty or has no /task_work");
    s.push_back(g.scale);
    v.push_back(std::log2(static_cast<double>(g.vertices)));
    e.push_back(std::log2(static_cast<double>(g.edges)));
    w.push_back(std::log2(static_cast<double>(g.total_work)));
    k.scales.push_back(g.scale);
    if (g.tasks > 0)
      k.max_task_over_mean = std::max(k.max_task_over_mean, static_cast<double>(g.max_task_work) * static_cast<double>(g.tasks) /
                                                                static_cast<double>(g.total_work));
  }
  const LineFit fv = fit_line(s, v), fe = fit_line(s, e), fw = fit_line(s, w);
  if (fv.slope <= 0 || fe.slope <= 0 || fw.slope <= 0)
    throw Error("Kronecker samples do not grow with the scale (give samples of distinct scales)");
  k.vertices = {fv.intercept, fv.slope};
  k.edges = {fe.intercept, fe.slope};
  k.work = {fw.intercept, fw.slope};
  k.fitted = true;
  return k;
}

void check_cost_model(const CostModel& m, const std::string& where) {
  auto in_range = [&](const std::string& name, double value, double lo, double hi, bool lo_open, const std::string& why) {
    if (std::isfinite(value) && (lo_open ? value > lo : value >= lo) && value <= hi) return;
    char range[96];
    std::snprintf(range, sizeof range, "%s%.6g, %.6g]", lo_open ? "(" : "[", lo, hi);
    char shown[64];
    std::snprintf(shown, sizeof shown, "%.6g", value);
    throw Error(where + ": field '" + name + "' = " + shown + " is out of range " + range + " (" + why + ")");
  };
  const std::string per_unit = "seconds per unit: at most 1 ms";
  in_range("task_overhead_seconds", m.task_overhead_seconds, 0, 3600, false, "seconds per task: at most an hour");
  in_range("seconds_per_work", m.seconds_per_work, 0, 1e-3, false, per_unit);
  in_range("seconds_per_row", m.seconds_per_row, 0, 1e-3, false, per_unit);
  in_range("load_seconds_per_byte", m.load_seconds_per_byte, 0, 1e-3, false, per_unit);
  in_range("load_seconds_per_block", m.load_seconds_per_block, 0, 3600, false, "seconds per block: at most an hour");
  in_range("load_seconds_per_row", m.load_seconds_per_row, 0, 1e-3, false, per_unit);
  in_range("upload_seconds_per_byte", m.upload_seconds_per_byte, 0, 1e-3, false, per_unit);
  in_range("count_r2", m.count_r2, -1e9, 1, false, "a coefficient of determination");
  in_range("count_total_relative_error", m.count_total_relative_error, 0, 1e9, false, "a relative error");
  if (!(m.task_overhead_seconds > 0 || m.seconds_per_work > 0 || m.seconds_per_row > 0))
    throw Error(where + ": task_overhead_seconds, seconds_per_work and seconds_per_row are all 0: the model gives a "
                "task no time, so no prediction can be made (fit it on journals of counts that took time)");
  if (!m.kronecker.fitted) return;
  const auto loglin = [&](const std::string& name, const LogLinear& l) {
    in_range("kronecker." + name + ".intercept", l.intercept, -64, 64, false, "log2 at scale 0");
    in_range("kronecker." + name + ".slope", l.slope, 0, 4, true, "log2 growth per scale: above 0");
  };
  loglin("log2_vertices", m.kronecker.vertices);
  loglin("log2_edges", m.kronecker.edges);
  loglin("log2_total_work", m.kronecker.work);
  in_range("kronecker.max_task_over_mean", m.kronecker.max_task_over_mean, 1, 1e9, false, "largest task / mean task");
}

std::string cost_model_json(const CostModel& m) {
  auto loglin = [](const LogLinear& l) {
    JsonObject o;
    o.add("intercept", l.intercept).add("slope", l.slope);
    return o;
  };
  std::string sources = "[";
  for (std::size_t i = 0; i < m.calibrated_on.size(); ++i) sources += (i ? ", " : "") + json_escape(m.calibrated_on[i]);
  sources += "]";
  std::string scales = "[";
  for (std::size_t i = 0; i < m.kronecker.scales.size(); ++i) scales += (i ? ", " : "") + std::to_string(m.kronecker.scales[i]);
  scales += "]";
  JsonObject kron;
  kron.add("fitted", m.kronecker.fitted).add_raw("scales", scales).add("log2_vertices", loglin(m.kronecker.vertices))
      .add("log2_edges", loglin(m.kronecker.edges)).add("log2_total_work", loglin(m.kronecker.work))
      .add("max_task_over_mean", m.kronecker.max_task_over_mean);
  JsonObject j;
  j.add("tricount_cost_model", 1).add("backend", m.backend).add("device", m.device).add("storage", m.storage)
      .add("task_overhead_seconds", m.task_overhead_seconds).add("seconds_per_work", m.seconds_per_work)
      .add("seconds_per_row", m.seconds_per_row)
      .add("count_r2", m.count_r2).add("count_total_relative_error", m.count_total_relative_error)
      .add("load_seconds_per_byte", m.load_seconds_per_byte).add("load_seconds_per_block", m.load_seconds_per_block)
      .add("load_seconds_per_row", m.load_seconds_per_row)
      .add("upload_seconds_per_byte", m.upload_seconds_per_byte).add("tasks_fitted", m.tasks_fitted).add_raw("calibrated_on", sources).add("kronecker", kron);
  return j.str() + "\n";
}

void save_cost_model(const CostModel& model, const std::string& path) {
  output::write_text_file(path, "--fit", cost_model_json(model));
}

CostModel load_cost_model(const std::string& path) {
  const std::string what = "a cost model file";
  const JsonValue doc = read_json_file(path, what);
  auto field = [&](const JsonValue& object, const std::string& key, JsonValue::Kind kind) -> const JsonValue& {
    return json_field(object, key, kind, path, what);
  };
  auto num = [&](const JsonValue& o, const std::string& key) {
    const double v = field(o, key, JsonValue::Number).number;
    if (!std::isfinite(v)) throw Error("'" + path + "': field '" + key + "' is not a finite number");
    return v;
  };
  auto str = [&](const std::string& key) { return field(doc, key, JsonValue::String).text; };
  if (num(doc, "tricount_cost_model") != 1) throw Error("'" + path + "': cost model version is not 1");
  CostModel m;
  m.backend = str("backend"), m.device = str("device"), m.storage = str("storage");
  m.task_overhead_seconds = num(doc, "task_overhead_seconds");
  m.seconds_per_work = num(doc, "seconds_per_work");
  m.seconds_per_row = num(doc, "seconds_per_row");
  m.count_r2 = num(doc, "count_r2");
  m.count_total_relative_error = num(doc, "count_total_relative_error");
  m.load_seconds_per_byte = num(doc, "load_seconds_per_byte");
  m.upload_seconds_per_byte = num(doc, "upload_seconds_per_byte");
  // Models saved before the per-block load cost have none.
  if (doc.fields.count("load_seconds_per_block")) m.load_seconds_per_block = num(doc, "load_seconds_per_block");
  if (doc.fields.count("load_seconds_per_row")) m.load_seconds_per_row = num(doc, "load_seconds_per_row");
  const double tasks = num(doc, "tasks_fitted");
  if (!(tasks >= 0 && tasks <= 9007199254740992.0) || tasks != std::floor(tasks))
    throw Error("'" + path + "': field 'tasks_fitted' is not a count");
  m.tasks_fitted = static_cast<std::uint64_t>(tasks);
  for (const JsonValue& s : field(doc, "calibrated_on", JsonValue::Array).items) {
    if (s.kind != JsonValue::String) throw Error("'" + path + "': field 'calibrated_on' holds a non-string");
    m.calibrated_on.push_back(s.text);
  }
  const JsonValue& k = field(doc, "kronecker", JsonValue::Object);
  m.kronecker.fitted = field(k, "fitted", JsonValue::Bool).boolean;
  for (const JsonValue& s : field(k, "scales", JsonValue::Array).items) {
    if (s.kind != JsonValue::Number || !(s.number >= 1 && s.number <= 64) || s.number != std::floor(s.number))
      throw Error("'" + path + "': field 'kronecker.scales' holds a value that is not a scale from 1 to 64");
    m.kronecker.scales.push_back(static_cast<int>(s.number));
  }
  auto loglin = [&](const std::string& key) {
    const JsonValue& o = field(k, key, JsonValue::Object);
    return LogLinear{num(o, "intercept"), num(o, "slope")};
  };
  m.kronecker.vertices = loglin("log2_vertices");
  m.kronecker.edges = loglin("log2_edges");
  m.kronecker.work = loglin("log2_total_work");
  m.kronecker.max_task_over_mean = num(k, "max_task_over_mean");
  check_cost_model(m, "'" + path + "'");
  return m;
}

MeasuredRun measured_run(const std::string& journal_path, const std::string& report_path) {
  MeasuredRun run;
  run.journal_path = journal_path;
  run.journal = read_journal(run.journal_path);
  const std::string& input = run.journal.identity.input;
  if (!std::filesystem::exists(input))
    throw Error("journal '" + run.journal_path + "': its block file '" + input + "' is not here (the fit needs its block sizes)");
  const BlockFileReader file(input);
  if (file.header().graph_checksum != run.journal.identity.graph_checksum)
    throw Error("'" + input + "' is not the graph of journal '" + run.journal_path + "' (other content)");
  run.block_bytes = count_block_bytes(file, run.journal.identity.parts, run.journal_path);
  if (!report_path.empty()) add_report(report_path, run);
  return run;
}

GraphSample kronecker_sample(int scale, const GraphShape& shape) {
  GraphSample g;
  g.scale = scale;
  g.vertices = shape.vertices, g.edges = shape.edges, g.total_work = shape.total_work();
  g.tasks = shape.subtask_work.size();
  for (std::uint64_t w : shape.subtask_work) g.max_task_work = std::max(g.max_task_work, w);
  return g;
}

}  // namespace tricount

