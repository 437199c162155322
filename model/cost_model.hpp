// The cost model behind tricount-simulate's predictions for runs it has not seen, fitted
// from measured runs (journals and the block files they counted); the predictions are in
// model/predict.hpp, the planner in model/plan.hpp:
//
//   task seconds  = overhead + rate * work estimate            (count; per backend and device)
//                 + row rate * rows of the task's class i       (each split walks every row)
//                 + load seconds/block * blocks read first by its worker
//                 + load seconds/row * rows of those blocks      (offsets are checked row by row)
//                 + load seconds/byte * bytes of those blocks
//                 + upload seconds/byte * the same bytes         (host -> device)
//
// The work estimate is the partitioner's /task_work of the task's subtask split over m (the
// journal's estimate column). The load terms are least squares over the runs' totals (load
// seconds against the bytes, blocks and rows read first per rank; the block and row terms
// appear once runs of several n are given: on one H200 a rate alone was 20-48% off at n = 2
// and 8, as every block stores |V|/n + 1 offsets, which cost more to check than neighbours);
// every term >= 0. The upload rate is totals over totals. The count
// fit is least squares over every journal record of (seconds - load - upload) against the
// estimate and the rows, every coefficient kept >= 0 (a term that would go negative is
// dropped: evenly hashed tasks all carry about the same estimate). At scale, a GPU reads no
// faster than its share of the node's network link and of the shared file system (named
// parameters); the per-block cost is paid at every scale.
//
// A graph that does not exist is described by its size: a family (Kronecker, fitted from
// measured block files of several scales: log2 |V|, log2 |E| and log2 total work, each
// linear in the scale) gives |V|, |E| and the total work W; tasks then get W / (n^3 m) each
// and blocks |E| / n^2 neighbours each (hashing by id mod n spreads both; the measured
// spread of real files is reported beside the fit).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/graph_shape.hpp"
#include "scheduler/journal.hpp"

namespace tricount {

// One measured run the model is fitted on.
struct MeasuredRun {
  std::string journal_path;
  JournalContents journal;
  std::vector<std::uint64_t> block_bytes;  // n x n, row-major, from the run's block file
  double transfer_seconds = -1;            // from the run's --json report (< 0: not given)
  std::uint64_t transfer_bytes = 0;        // bytes that report says its ranks loaded
};

// log2 y = intercept + slope * scale, fitted over the samples.
struct LogLinear {
  double intercept = 0, slope = 0;
  double at(double scale) const;
};

struct KroneckerFamily {
  bool fitted = false;
  LogLinear vertices, edges, work;
  std::vector<int> scales;  // the samples it rests on
  double max_task_over_mean = 1;  // largest measured task work / mean, at the samples' n
};

struct CostModel {
  std::string backend, device, storage;  // what the count fit and the load rate were measured with
  double task_overhead_seconds = 0;
  double seconds_per_work = 0;
  double seconds_per_row = 0;            // 0 when the fit found no row term (or a negative one)
  double count_r2 = 0;                   // of the per-task fit
  double count_total_relative_error = 0; // max over runs of |predicted - measured| / measured count seconds
  double load_seconds_per_byte = 0;
  double load_seconds_per_block = 0;     // fixed cost of each block read (0: not separable from the rate)
  double load_seconds_per_row = 0;       // cost of each row of a block read, beyond its offset's bytes
  double upload_seconds_per_byte = 0;    // 0 when no report gave transfer times
  std::uint64_t tasks_fitted = 0;
  std::vector<std::string> calibrated_on;  // journals (and reports) it was fitted on
  KroneckerFamily kronecker;
};

// Fits count, load and upload over the runs (at least one, with the load column). Throws
// Error naming the journal when one cannot be used.
CostModel fit_cost_model(const std::vector<MeasuredRun>& runs, const std::string& backend, const std::string& device,
                         const std::string& storage);

// A Kronecker sample: its scale and the block file's size and work totals.
struct GraphSample {
  int scale = 0;
  std::uint64_t vertices = 0, edges = 0, total_work = 0, max_task_work = 0, tasks = 0;
};
KroneckerFamily fit_kronecker_family(const std::vector<GraphSample>& samples);

// Save / load as a small JSON file. Loading throws Error naming the file and the field.
std::string cost_model_json(const CostModel& model);
void save_cost_model(const CostModel& model, const std::string& path);
CostModel load_cost_model(const std::string& path);

// A measured run from its journal and the block file it counted (the journal's input), with
// the transfer seconds and bytes of its tricount-count --json report when `report_path` is
// given. Throws Error naming the journal or the report when one cannot be used.
MeasuredRun measured_run(const std::string& journal_path, const std::string& report_path = "");

// A Kronecker sample of `scale` from the shape of its block file.
GraphSample kronecker_sample(int scale, const GraphShape& shape);

}  // namespace tricount
