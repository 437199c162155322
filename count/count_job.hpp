// The whole count as one collective call: rank 0 schedules, every other rank works (one
// rank does both), the 64-bit counts meet in MPI_Reduce, statistics are gathered to rank 0.
// Any error on any rank ends the call on every rank with the same message, never a hang
// (collective_step, count/collective.hpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "count/collective.hpp"
#include "count/per_edge.hpp"
#include "count/per_vertex.hpp"
#include "count/setup_times.hpp"
#include "src/block_format.hpp"
#include "src/json.hpp"
#include "worker/backend.hpp"
#include "worker/worker.hpp"

namespace tricount {

struct CountOptions {
  std::string input;                 // HDF5 block file
  WorkloadSplits splits;             // --workload-splits m, or auto (the default: auto_workload_splits, src/task_plan.hpp)
  // --count-parts n_c: count the file's n parts as n_c, a divisor of n, each count block
  // re-blocked from its (n / n_c)^2 file blocks as the tasks need it (src/task_plan.hpp,
  // file_blocks_of): an n_c-part count's work. 0: auto (auto_count_parts: the fewest parts
  // whose blocks fit every worker's GPU; n with the CPU backend, --per-vertex, --per-edge
  // or --load-path forward).
  std::uint32_t count_parts = 0;
  // --schedule static: rank 0 assigns every task before counting, each worker loads all its
  // blocks, then all ranks meet and the timed count phase runs (false: dynamic hand-out).
  bool static_schedule = false;
  // --ranks-per-node K: the job's nodes are virtual nodes of K consecutive ranks of a host
  // (0: the hosts themselves; NodeLayout, count/collective.hpp).
  int ranks_per_node = 0;
  // --load-path: how the static schedule's workers get their blocks. file: each reads what it
  // needs from the file; forward: each block is read once per job and sent over MPI to the
  // other nodes and workers that need it (count/block_forward.hpp); auto: forward with the
  // static schedule on several nodes, else file. forward needs the static schedule.
  std::string load_path = "auto";
  BackendKind backend = BackendKind::Auto;
  BackendOptions backend_options;
  WorkerOptions worker_options;
  bool allow_idle_workers = false;   // more workers than tasks is an error unless set
  std::string journal;               // append each finished task here ("" = no journal)
  bool resume = false;               // skip the tasks the journal has finished
  std::string json;                  // --json report path, written by the caller ("" = none; checked before counting)
  std::string per_vertex;            // --per-vertex output path ("" = none; checked before counting, written by run_count)
  std::string per_edge;              // --per-edge output path (the same)
  // Rank 0 prints a progress line to stderr this often while counting (0: never).
  double progress_interval_seconds = 0;
  // For tests only: the worker handed this task stops itself with SIGSTOP (as `kill -STOP`).
  std::uint64_t test_stop_at_task = kNoTask;
  // For tests only: rank 0 moves this file over `input` once it has checked `input` (as a
  // tricount-partition writing to the same path would while the count starts).
  std::string test_replace_input_with;
  // What the caller measured before run_count (tricount-count's main: process start to main,
  // MPI_Init, launch checks, the input prepared); run_count adds its own steps to a copy.
  SetupTimes setup_times;
};

// What rank 0 checked of the block file, so that every rank counts that same file: the
// header's numbers and a digest of every block's checksum attribute (reading a block checks
// its bytes against that checksum, so equal identities mean equal content, on whatever node
// and under whatever inode the file is opened).
struct InputIdentity {
  std::uint64_t graph_checksum = 0;
  std::uint64_t blocks_digest = 0;
  std::uint64_t parts = 0, vertices = 0, edges = 0;
  bool operator==(const InputIdentity&) const = default;
};
InputIdentity identify_input(const BlockFileReader& file);
// Throws Error naming the file if `file` is not the file whose identity is `checked`.
void check_same_input(const BlockFileReader& file, const InputIdentity& checked);

struct RankStats {
  int rank = 0;
  bool worker = false;
  int node = 0;      // the job's node index (NodeLayout)
  WorkerStats stats;
  SetupTimes setup;  // this rank's, before and around the count
};

struct CountResult {  // complete on rank 0 only
  std::string input;
  InputIdentity input_identity;  // of the file every rank counted
  count_t triangles = 0;
  GraphHeader header;
  std::uint32_t splits = 1;
  std::uint32_t count_parts = 1;       // the plan's parts (--count-parts; the file's by default)
  std::uint64_t tasks = 0;
  std::uint64_t resumed_tasks = 0;     // finished in earlier runs (from the journal)
  count_t resumed_triangles = 0;
  int ranks = 1;
  int workers = 1;
  int nodes = 1;           // the job's nodes (NodeLayout)
  int ranks_per_node = 0;  // --ranks-per-node (0: the hosts)
  std::string load_path = "file";  // as resolved: file or forward
  std::string backend;
  std::string device;
  std::string schedule = "dynamic";  // or "static"
  double setup_seconds = 0;     // opening the file, creating backends
  double load_phase_seconds = 0;   // static: assignment sent to the barrier after every worker loaded its blocks
  double count_phase_seconds = 0;  // static: barrier to the last count reported (dynamic: = schedule_seconds)
  double schedule_seconds = 0;  // first task handed out to last count reported
  double total_seconds = 0;
  std::vector<RankStats> per_rank;
  std::optional<PerVertexSummary> per_vertex;  // with --per-vertex
  // With --per-vertex: the table, written but not under its name until commit_outputs(), so
  // that the summary line and the report come first (a full disk then loses no count).
  std::shared_ptr<PerVertexOutput> per_vertex_output;
  std::optional<PerEdgeSummary> per_edge;  // with --per-edge
  std::shared_ptr<PerEdgeOutput> per_edge_output;  // with --per-edge: as per_vertex_output
  double per_vertex_seconds = 0;  // rank 0: from the end of counting to the table on the disk (its writing overlaps)
  double per_edge_seconds = 0;    // rank 0: as per_vertex_seconds, for the per-edge table

  // Rank 0, after the summary and the report: puts the per-vertex and per-edge tables under
  // their names, or throws Error with what stopped their writing.
  void commit_outputs() const;

  double imbalance() const;     // max / min busy seconds over workers (0 if undefined)
  JsonObject to_json() const;
  std::string summary() const;  // one line for humans
};

CountResult run_count(MPI_Comm comm, const CountOptions& options);

}  // namespace tricount
