// run_count's numbered steps; the collective helpers are in count/collective.cpp, the
// statistics' gather and the report in count/count_report.cpp.
#include "count/count_job.hpp"

#include <algorithm>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>
#include <memory>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "count/block_forward.hpp"
#include "count/count_report.hpp"
#include "scheduler/scheduler.hpp"
#include "src/node_share.hpp"
#include "src/output_file.hpp"
#include "src/threads.hpp"
#include "worker/block_cache.hpp"

namespace tricount {

namespace {

// For tests: a worker that stops itself (SIGSTOP) when handed one task, as `kill -STOP`
// stops a worker, so that a test sees what rank 0 says about a stall.
class StoppingTaskSource final : public TaskSource {
 public:
  StoppingTaskSource(TaskSource& source, std::uint64_t stop_at) : source_(source), stop_at_(stop_at) {}
  std::optional<std::uint64_t> next(const TaskReport* finished) override {
    const std::optional<std::uint64_t> id = source_.next(finished);
    if (id && *id == stop_at_) ::raise(SIGSTOP);
    return id;
  }
  void report(const TaskReport& finished) override { source_.report(finished); }
  void fail(const std::string& message) override { source_.fail(message); }

 private:
  TaskSource& source_;
  std::uint64_t stop_at_;
};

}  // namespace

InputIdentity identify_input(const BlockFileReader& file) {
  const GraphHeader& h = file.header();
  Checksum64 blocks;
  for (std::uint32_t i = 0; i < h.parts; ++i)
    for (std::uint32_t j = 0; j < h.parts; ++j) blocks.add_u64(file.block_checksum({i, j}));
  return {h.graph_checksum, blocks.value(), h.parts, h.vertices, h.edges};
}

void check_same_input(const BlockFileReader& file, const InputIdentity& checked) {
  const InputIdentity found = identify_input(file);
  if (found == checked) return;
  auto describe = [](const InputIdentity& id) {
    return "graph checksum " + std::to_string(id.graph_checksum) + ", " + std::to_string(id.vertices) + " vertices, " +
           std::to_string(id.edges) + " edges, " + std::to_string(id.parts) + " parts";
  };
  throw Error("'" + file.path() + "' is not the file rank 0 checked: it was replaced or changed while the count started (rank 0 read " +
              describe(checked) + "; this rank opened " + describe(found) +
              "). Is tricount-partition writing to that path? Rerun once the file no longer changes");
}

namespace {

// Every block's CSR bytes in memory, row-major (auto's count parts, the forwarding plan).
std::vector<std::uint64_t> file_block_csr_bytes(const BlockFileReader& file) {
  const std::uint32_t n = file.header().parts;
  std::vector<std::uint64_t> bytes;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) bytes.push_back(file.block_csr_bytes({i, j}));
  return bytes;
}

// The record of checked blocks the workers of one node share (NodeBlockChecks): an MPI
// shared-memory window over the node's workers. Freed (collectively, by those workers) with
// the job: every worker leaves run_count through the same steps.
struct NodeCheckWindow {
  NodeCheckWindow() = default;
  NodeCheckWindow(const NodeCheckWindow&) = delete;
  NodeCheckWindow& operator=(const NodeCheckWindow&) = delete;
  ~NodeCheckWindow() { release(); }
  void release() {
    checks.reset();
    if (window != MPI_WIN_NULL) MPI_Win_free(&window);
    if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
  }
  MPI_Comm node = MPI_COMM_NULL;  // this node's workers
  MPI_Win window = MPI_WIN_NULL;
  std::unique_ptr<NodeBlockChecks> checks;  // null where the node's workers opened different files
};

// A worker's backend and the seconds its creation took.
struct StartedBackend {
  std::unique_ptr<CountBackend> backend;
  double seconds = 0;
};

// What the steps of run_count share: the job's shape, what rank 0 checked and set up, and
// the result being filled in.
struct CountJob {
  CountJob(MPI_Comm c, const CountOptions& o) : comm(c), options(o) {
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    is_worker = size == 1 || rank != 0;
    workers = size == 1 ? 1 : size - 1;
    worker_options = options.worker_options;
    result.input = options.input;
    result.ranks = size;
    result.workers = workers;
    times = options.setup_times;
  }
  MPI_Comm comm;
  const CountOptions& options;
  int rank = 0, size = 1, workers = 1;
  int local_workers = 1;                   // workers on this rank's node (step 0)
  bool is_worker = false;
  std::uint32_t splits = 0;                // m, as rank 0 resolved --workload-splits
  std::uint32_t count_parts = 0;           // the plan's parts, as rank 0 resolved --count-parts
  std::uint64_t device_bytes = 0;          // the smallest worker's device memory (step 0; 0: a CPU worker)
  std::unique_ptr<BlockFileReader> file;   // rank 0 and every worker
  std::unique_ptr<TaskQueue> queue;        // rank 0
  std::unique_ptr<JournalWriter> journal;  // rank 0, with --journal
  std::unique_ptr<CountBackend> backend;   // workers, from step 3
  std::unique_ptr<PerVertexAhead> per_vertex_ahead;  // --per-vertex, steps 3 to 8: degrees (workers), class 0's ids (rank 0)
  std::unique_ptr<PerEdgeAhead> per_edge_ahead;      // --per-edge, rank 0, steps 3 to 8b: the first block for rows
  std::future<StartedBackend> backend_starting;  // workers, steps 0 to 3: the backend being created
  std::optional<TaskPlan> plan;            // built once per rank: rank 0's in step 1, the others' in step 2
  std::optional<NodeLayout> nodes;         // every rank's node (step 0)
  NodeCheckWindow node_checks;             // workers
  std::unordered_map<std::uint64_t, count_t> journaled_counts;  // rank 0, --per-vertex/--per-edge --resume: to check the recount
  WorkerOptions worker_options;
  SetupTimes times;  // this rank's
  CountResult result;
};

// What counting leaves: this rank's statistics and, on rank 0, its account of the run.
struct CountOutcome {
  RankStats mine;
  std::string failure;            // the first worker failure
  int failed_rank = -1;
  std::string scheduler_failure;  // rank 0's own (journal) error
  count_t reported = 0;           // the scheduler's sum of task reports, checked against the reduce
  std::string recount_failure;    // --per-vertex --resume: a task whose recount differs from its journal record
};

// Rank 0: the tasks --resume skips (and their counts) from the journal, which must belong to
// this graph and plan; then the journal is opened for appending (or created).
std::unordered_set<std::uint64_t> resume_and_open_journal(CountJob& job, const JournalIdentity& identity,
                                                          std::uint64_t tasks) {
  const CountOptions& options = job.options;
  std::unordered_set<std::uint64_t> done;
  if (options.resume && options.journal.empty()) throw UsageError("--resume needs --journal PATH");
  if (options.journal.empty()) return done;
  // Locked before it is read: a count still writing it refuses us here.
  job.journal = std::make_unique<JournalWriter>(options.journal);
  const bool exists = !job.journal->empty();
  if (exists && !options.resume)
    throw UsageError("journal '" + options.journal + "' exists: pass --resume to continue that run, or remove it");
  if (exists) {
    const JournalContents previous = read_journal(options.journal);
    check_journal_identity(options.journal, previous.identity, identity);
    // Per vertex (or edge), finished tasks' counters were never stored: every task is counted
    // again (their counts checked against the journal's) and the journal is started afresh.
    if (!options.per_vertex.empty() || !options.per_edge.empty()) {
      for (const JournalRecord& r : previous.records) job.journaled_counts[r.task] = r.triangles;
      job.journal->start(identity);
      job.journal->begin_run(options.static_schedule ? "static" : "dynamic", static_cast<std::uint32_t>(job.workers));
      return done;
    }
    for (const JournalRecord& r : previous.records) {
      if (r.task >= tasks) throw Error("journal '" + options.journal + "' has task " + std::to_string(r.task) + " out of range");
      done.insert(r.task);
      if (r.triangles > UINT64_MAX - job.result.resumed_triangles)
        throw Error("journal '" + options.journal + "': the counts of its tasks sum past 2^64 (the journal is damaged; remove it to count every task again)");
      job.result.resumed_triangles += r.triangles;
    }
    job.result.resumed_tasks = done.size();
  }
  if (exists) job.journal->resume();
  else job.journal->start(identity);
  job.journal->begin_run(options.static_schedule ? "static" : "dynamic", static_cast<std::uint32_t>(job.workers));
  return done;
}

// The parts of the plan an existing journal was written for, when --resume is to continue it
// (0: none, or no --resume).
std::uint32_t journal_count_parts(const CountOptions& options) {
  std::error_code ec;
  if (!options.resume || options.journal.empty() || std::filesystem::file_size(options.journal, ec) == 0 || ec) return 0;
  return read_journal_identity(options.journal).parts;
}

// Step 0: the job's nodes (NodeLayout: hosts, or --ranks-per-node's virtual nodes); the
// workers' host-local ranks (a worker's GPU) and per-worker shares of the host;
// each worker starts creating its backend on a thread of its own (a GPU context takes a
// second or more), overlapping steps 1 to 3, which join it. Its errors surface in step 3.
void start_backends(CountJob& job) {
  job.nodes.emplace(job.comm, job.options.ranks_per_node);
  job.result.nodes = job.nodes->nodes();
  job.result.ranks_per_node = job.options.ranks_per_node;
  MPI_Comm worker_comm = MPI_COMM_NULL;
  MPI_Comm_split(job.comm, job.is_worker ? 1 : MPI_UNDEFINED, job.rank, &worker_comm);
  int local_workers = 1;
  if (worker_comm != MPI_COMM_NULL) node_local_rank(worker_comm, &local_workers);
  if (worker_comm != MPI_COMM_NULL) MPI_Comm_free(&worker_comm);
  // A worker's GPU follows its node-local rank among all ranks (a scheduler-only rank 0
  // takes a number too), which the launcher's variables give before MPI_Init: there
  // start_gpu_driver already creates that GPU's context. Distinct on a node of G GPUs
  // running G workers and a scheduler.
  const int local_rank = node_local_rank(job.comm);
  job.local_workers = local_workers;
  // Per-worker defaults, unless given: the node's cores shared among its workers (src/node_share.hpp).
  if (job.worker_options.loader_threads == 0) job.worker_options.loader_threads = node_share_of_cores(local_workers);
  BackendOptions bo = job.options.backend_options;
  bo.local_rank = local_rank;
  // The smallest worker's device memory, for --count-parts auto on rank 0 (0: a CPU worker).
  const std::uint64_t mine = job.is_worker ? backend_device_bytes(job.options.backend, bo) : UINT64_MAX;
  MPI_Allreduce(&mine, &job.device_bytes, 1, MPI_UINT64_T, MPI_MIN, job.comm);
  if (!job.is_worker) return;
  if (bo.threads == 0) bo.threads = node_share_of_cores(local_workers);
  // The thread touches nothing of the job's but these copies (HDF5 and MPI stay on this thread).
  job.backend_starting = std::async(std::launch::async, [kind = job.options.backend, bo] {
    StartedBackend started;
    timed(started.seconds, [&] { started.backend = make_backend(kind, bo); });
    return started;
  });
}

// Step 1, rank 0: checks the file, the plan and the journal before anyone starts, and builds
// the task queue.
void check_input_on_rank0(CountJob& job) {
  collective_step(job.comm, [&] {
    if (job.rank != 0) return;
    const CountOptions& options = job.options;
    // An output onto the input (or the journal) would destroy it: refused before any work.
    output::refuse_same_file(options.json, "--json", {{options.input, "--input"}, {options.journal, "--journal"}});
    output::refuse_same_file(options.journal, "--journal", {{options.input, "--input"}});
    output::refuse_same_file(options.per_vertex, "--per-vertex",
                             {{options.input, "--input"}, {options.journal, "--journal"}, {options.json, "--json"}});
    output::refuse_same_file(options.per_edge, "--per-edge",
                             {{options.input, "--input"}, {options.journal, "--journal"}, {options.json, "--json"},
                              {options.per_vertex, "--per-vertex"}});
    if (!options.json.empty()) output::check_writable(options.json, "--json");  // not found out after the count
    if (!options.per_vertex.empty()) check_per_vertex_path(options.per_vertex);
    if (!options.per_edge.empty()) check_per_edge_path(options.per_edge);
    job.file = std::make_unique<BlockFileReader>(options.input);
    const GraphHeader& h = job.file->header();
    job.result.header = h;
    if (options.count_parts) {
      job.count_parts = options.count_parts;
      check_count_parts(job.count_parts, h.parts);
    } else if (!options.per_edge.empty() || options.load_path == "forward") {
      job.count_parts = h.parts;  // not re-blocked with these yet
    } else if (const std::uint32_t journaled = journal_count_parts(options); journaled && h.parts % journaled == 0) {
      job.count_parts = journaled;  // --resume goes on with the grid its journal's task ids name
    } else {
      job.count_parts = auto_count_parts(h.parts, file_block_csr_bytes(*job.file), job.device_bytes,
                                         count_parts_min_tasks(options.splits, static_cast<std::uint64_t>(job.workers)));
    }
    const std::uint32_t group = h.parts / job.count_parts;
    if (group > 1 && !options.per_edge.empty())
      throw UsageError("--count-parts below the file's parts cannot be combined with --per-edge yet: leave --count-parts out");
    if (group > 1 && options.load_path == "forward")
      throw UsageError("--count-parts below the file's parts cannot be combined with --load-path forward yet: use --load-path file");
    job.splits = resolve_workload_splits(options.splits, job.count_parts, static_cast<std::uint64_t>(job.workers));
    const TaskPlan& plan = job.plan.emplace(job.count_parts, job.splits);
    const std::uint64_t tasks = plan.num_tasks();
    if (static_cast<std::uint64_t>(job.workers) > tasks && !options.allow_idle_workers)
      throw UsageError(std::to_string(job.size) + " ranks give " + std::to_string(job.workers) + " workers but '" +
                       options.input + "' with --parts " + std::to_string(h.parts) +
                       (group > 1 ? " counted as " + std::to_string(plan.parts()) : std::string()) + " and --workload-splits " +
                       std::to_string(plan.splits()) + " has only " + std::to_string(tasks) +
                       (tasks == 1 ? " task" : " tasks") + ", fewer tasks than workers: use fewer ranks, more --workload-splits (or auto), or more parts (or --allow-idle-workers)");
    const JournalIdentity identity{h.graph_checksum, job.count_parts, job.splits, h.vertices, h.edges, options.input};
    const std::unordered_set<std::uint64_t> done = resume_and_open_journal(job, identity, tasks);
    std::vector<std::uint64_t> nnz;
    for (std::uint32_t i = 0; i < h.parts; ++i)
      for (std::uint32_t j = 0; j < h.parts; ++j) nnz.push_back(job.file->block_nnz({i, j}));
    job.queue = std::make_unique<TaskQueue>(plan, coarsen_task_work(job.file->read_task_work(), h.parts, group),
                                            coarsen_block_nnz(nnz, h.parts, group), done);
    job.result.input_identity = identify_input(*job.file);
    if (!options.test_replace_input_with.empty()) std::filesystem::rename(options.test_replace_input_with, options.input);
  });
}

// Step 2: every rank learns m and the identity of the file rank 0 checked (the graph's shape
// among it: the one broadcast of it), and so the plan.
void share_splits_and_identity(CountJob& job) {
  std::uint32_t plan_shape[2] = {job.splits, job.count_parts};
  MPI_Bcast(plan_shape, 2, MPI_UINT32_T, 0, job.comm);
  job.splits = plan_shape[0], job.count_parts = plan_shape[1];
  job.result.splits = job.splits;
  job.result.count_parts = job.count_parts;
  InputIdentity& checked = job.result.input_identity;
  std::uint64_t words[5] = {checked.graph_checksum, checked.blocks_digest, checked.parts, checked.vertices, checked.edges};
  MPI_Bcast(words, 5, MPI_UINT64_T, 0, job.comm);
  checked = {words[0], words[1], words[2], words[3], words[4]};
  if (!job.plan) job.plan.emplace(job.count_parts, job.splits);
  job.result.tasks = job.plan->num_tasks();
}

// Step 3, with --per-vertex or --per-edge: what the tables need besides the counts (a
// worker's degree shares, rank 0's first input ids, rank 0's first block for edge rows) is
// read on threads from here on, while the backends start and the workers count; steps 8 and
// 8b take it.
void read_tables_ahead(CountJob& job) {
  const unsigned threads = std::max(1u, job.worker_options.loader_threads);
  if (!job.options.per_vertex.empty())
    job.per_vertex_ahead = std::make_unique<PerVertexAhead>(
        *job.file, job.is_worker && !job.file->has_degrees(), job.rank == 0, job.size == 1 ? 0 : job.rank - 1, job.workers,
        threads, job.rank == 0 && !per_vertex_is_text(job.options.per_vertex) ? job.options.per_vertex : "");
  if (!job.options.per_edge.empty() && job.rank == 0) job.per_edge_ahead = std::make_unique<PerEdgeAhead>(*job.file, threads);
}

// Step 3: every worker opens the file (refusing another than rank 0 checked) and takes its
// backend from step 0 (workers pick GPUs by their local rank among the workers of their node).
void open_workers(CountJob& job) {
  collective_step(job.comm, [&] {
    if (!job.is_worker) return read_tables_ahead(job);
    if (job.worker_options.cache_bytes == 0)
      job.worker_options.cache_bytes = default_cache_bytes(available_memory_bytes(), job.local_workers);
    if (!job.file) {
      job.file = timed(job.times.open_file, [&] { return std::make_unique<BlockFileReader>(job.options.input); });
      timed(job.times.identity_check, [&] { check_same_input(*job.file, job.result.input_identity); });
    }
    read_tables_ahead(job);
    StartedBackend started = timed(job.times.backend_wait, [&] { return job.backend_starting.get(); });  // rethrows its error
    job.backend = std::move(started.backend);
    job.times.backend = started.seconds;
    job.times.backend_steps = job.backend->start_times();
    if (!job.options.per_vertex.empty()) {
      // Counted by the plan's classes; write_per_vertex hands them on by the file's.
      const GraphHeader& h = job.file->header();
      std::vector<std::uint64_t> class_vertices;
      for (std::uint32_t c = 0; c < job.count_parts; ++c) class_vertices.push_back(rows_in_class(h.vertices, job.count_parts, c));
      job.backend->start_per_vertex(std::move(class_vertices));
    }
    if (!job.options.per_edge.empty()) {
      const std::uint32_t n = job.file->header().parts;
      std::vector<std::uint64_t> block_nnz;
      for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = 0; j < n; ++j) block_nnz.push_back(job.file->block_nnz({i, j}));
      job.backend->start_per_edge(n, std::move(block_nnz));
    }
  });
}

// Step 3b: the workers of each node share one record of checked blocks, so that each block
// is checked once per node. Only where they all opened the same file (device and inode):
// then their mapped blocks are the same page-cache pages, and bytes one checked are the
// bytes the others count (a copy of the file elsewhere would be other bytes).
void share_block_checks(CountJob& job) {
  // 1. The file each worker opened, and the node's workers.
  std::uint64_t mine[2] = {0, 0};
  collective_step(job.comm, [&] {
    if (!job.is_worker) return;
    const auto [device, inode] = job.file->opened_inode();
    mine[0] = device, mine[1] = inode;
  });
  NodeCheckWindow& w = job.node_checks;
  MPI_Comm_split(job.nodes->comm(), job.is_worker ? 1 : MPI_UNDEFINED, job.rank, &w.node);
  if (w.node == MPI_COMM_NULL) return;
  std::uint64_t lowest[2] = {0, 0}, highest[2] = {0, 0};
  MPI_Allreduce(mine, lowest, 2, MPI_UINT64_T, MPI_MIN, w.node);
  MPI_Allreduce(mine, highest, 2, MPI_UINT64_T, MPI_MAX, w.node);
  // 2. parts^2 states in memory of the node's first worker, zeroed before anyone claims one.
  const std::uint64_t parts = job.result.input_identity.parts;
  int local = 0;
  MPI_Comm_rank(w.node, &local);
  const MPI_Aint bytes = local == 0 ? static_cast<MPI_Aint>(parts * parts * sizeof(std::uint32_t)) : 0;
  void* base = nullptr;
  MPI_Win_allocate_shared(bytes, sizeof(std::uint32_t), MPI_INFO_NULL, w.node, &base, &w.window);
  MPI_Aint size = 0;
  int unit = 0;
  MPI_Win_shared_query(w.window, 0, &size, &unit, &base);
  if (local == 0) std::memset(base, 0, static_cast<std::size_t>(bytes));
  MPI_Barrier(w.node);
  // 3. The record, where every worker of the node maps the same file.
  if (lowest[0] != highest[0] || lowest[1] != highest[1]) return;
  w.checks = std::make_unique<NodeBlockChecks>(static_cast<std::uint32_t*>(base), static_cast<std::uint32_t>(parts));
  job.worker_options.node_checks = w.checks.get();
}

// Step 4: every rank learns the backend and device (from the first worker).
void share_backend(CountJob& job) {
  const int first_worker = std::min(1, job.size - 1);
  char backend_name[16] = {0};
  char device_name[96] = {0};
  if (job.backend && job.rank == first_worker) {
    std::snprintf(backend_name, sizeof backend_name, "%s", std::string(job.backend->name()).c_str());
    std::snprintf(device_name, sizeof device_name, "%s", job.backend->device_name().c_str());
  }
  MPI_Bcast(backend_name, sizeof backend_name, MPI_CHAR, first_worker, job.comm);
  MPI_Bcast(device_name, sizeof device_name, MPI_CHAR, first_worker, job.comm);
  job.result.backend = backend_name;
  job.result.device = device_name;
}

// A --per-vertex --resume recount must give each task the count its journal recorded.
std::string check_recount(const CountJob& job, const std::vector<FinishedTask>& finished) {
  for (const FinishedTask& f : finished) {
    const auto recorded = job.journaled_counts.find(f.report.task);
    if (recorded != job.journaled_counts.end() && recorded->second != f.report.triangles)
      return "task " + std::to_string(f.report.task) + " counted " + std::to_string(f.report.triangles) +
             " triangles again but the journal '" + job.options.journal + "' recorded " + std::to_string(recorded->second);
  }
  return "";
}

// Step 5a, static schedule: rank 0 assigns every task (TaskQueue::assign_static_nodes, a
// node's workers on one sub-cube) and sends each worker its list; every worker loads and
// checks all the blocks of its tasks, from the file or, with --load-path forward, each block
// read once and passed on over MPI (an error on any rank, such as blocks that do not fit,
// ends the call on every rank before counting); then all ranks meet, so that the count
// phase after it reads no block.
struct ResidentLoad {
  std::vector<std::vector<std::uint64_t>> assigned;  // rank 0: each rank's list (rank 0's empty)
  std::vector<std::uint64_t> tasks;                  // a worker's own list
  std::unique_ptr<BlockCache> cache;                 // a worker's, holding its blocks
  std::vector<std::shared_ptr<const LoadedBlock>> held;
  WorkerStats stats;                                 // a worker's load phase
  ForwardPlan forward;                               // --load-path forward: rank 0's, then every rank's
};

void load_resident(CountJob& job, ResidentLoad& load) {
  // 1. The assignment, on rank 0.
  std::vector<int> counts(static_cast<std::size_t>(job.size), 0), offsets(static_cast<std::size_t>(job.size), 0);
  std::vector<std::uint64_t> all;
  collective_step(job.comm, [&] {
    if (job.rank != 0) return;
    const bool forward = job.result.load_path == "forward";
    const std::vector<std::uint64_t> block_bytes = forward ? file_block_csr_bytes(*job.file) : std::vector<std::uint64_t>{};
    if (job.size == 1) {
      load.tasks = std::move(job.queue->assign_static(1).tasks.front());
      if (forward) load.forward = plan_forwarding(*job.plan, {load.tasks}, job.nodes->node_of_rank(), block_bytes);
      return;
    }
    // The workers by node (nodes without a worker left out), a node's workers sharing one
    // sub-cube of the tasks.
    const std::vector<int>& node_of_rank = job.nodes->node_of_rank();
    std::vector<std::vector<int>> by_node(static_cast<std::size_t>(job.nodes->nodes()));
    for (int r = 1; r < job.size; ++r) by_node[static_cast<std::size_t>(node_of_rank[static_cast<std::size_t>(r)])].push_back(r);
    std::vector<int> sizes, rank_of_slot;
    for (const std::vector<int>& ranks : by_node)
      if (!ranks.empty()) sizes.push_back(static_cast<int>(ranks.size())), rank_of_slot.insert(rank_of_slot.end(), ranks.begin(), ranks.end());
    TaskQueue::StaticAssignment a = job.queue->assign_static_nodes(sizes);
    std::vector<std::size_t> slot_of_rank(static_cast<std::size_t>(job.size), 0);
    for (std::size_t slot = 0; slot < rank_of_slot.size(); ++slot) slot_of_rank[static_cast<std::size_t>(rank_of_slot[slot])] = slot;
    load.assigned.assign(static_cast<std::size_t>(job.size), {});
    for (int r = 1; r < job.size; ++r) {
      std::vector<std::uint64_t>& list = a.tasks[slot_of_rank[static_cast<std::size_t>(r)]];
      if (all.size() + list.size() > static_cast<std::size_t>(INT_MAX))
        throw Error("--schedule static: more than 2^31 tasks; use --schedule dynamic");
      counts[static_cast<std::size_t>(r)] = static_cast<int>(list.size());
      offsets[static_cast<std::size_t>(r)] = static_cast<int>(all.size());
      all.insert(all.end(), list.begin(), list.end());
      load.assigned[static_cast<std::size_t>(r)] = std::move(list);
    }
    if (forward) load.forward = plan_forwarding(*job.plan, load.assigned, job.nodes->node_of_rank(), block_bytes);
  });
  // 2. Each worker's list from rank 0.
  if (job.size > 1) {
    int mine = 0;
    MPI_Scatter(counts.data(), 1, MPI_INT, &mine, 1, MPI_INT, 0, job.comm);
    if (job.rank != 0) load.tasks.resize(static_cast<std::size_t>(mine));
    MPI_Scatterv(all.data(), counts.data(), offsets.data(), MPI_UINT64_T, job.rank != 0 ? load.tasks.data() : nullptr, mine,
                 MPI_UINT64_T, 0, job.comm);
  }
  // 3. Every worker's cache, which must hold its blocks.
  const WorkerOptions& wo = job.worker_options;
  collective_step(job.comm, [&] {
    if (!job.is_worker) return;
    load.cache = make_block_cache(*job.file, wo);
    resident_blocks(*job.file, *job.plan, load.tasks, wo.cache_bytes);
  });
  // 3b. --load-path forward: each block read once, and sent to the workers that need it
  // (on a communicator of its own: its messages meet nothing else).
  if (job.result.load_path == "forward") {
    broadcast_plan(job.comm, load.forward);
    MPI_Comm exchange = MPI_COMM_NULL;
    MPI_Comm_dup(job.comm, &exchange);
    try {
      collective_step(job.comm, [&] {
        if (job.is_worker) forward_blocks(exchange, load.forward, *job.plan, *job.file, *load.cache, load.stats);
      });
    } catch (...) {
      MPI_Comm_free(&exchange);
      throw;
    }
    MPI_Comm_free(&exchange);
    load.forward = {};
  }
  // 3c. Every worker loads the rest of its blocks (none after forwarding) and hands them to
  // its backend; 4. all ranks meet.
  collective_step(job.comm, [&] {
    if (!job.is_worker) return;
    const double forwarding = load.stats.forward_seconds;
    load.held = load_resident_blocks(*load.cache, *job.file, *job.plan, *job.backend, load.tasks, wo.cache_bytes, load.stats);
    load.stats.load_phase_seconds += forwarding;
  });
  MPI_Barrier(job.comm);
}

// Step 5: counting, by dynamic hand-out of task ids (rank 0 serves, the others count; one
// rank does both), or by the static lists with the blocks already loaded (`resident`).
CountOutcome count_tasks(CountJob& job, ResidentLoad* resident) {
  CountOutcome out;
  out.mine.rank = job.rank;
  out.mine.worker = job.is_worker;
  const ProgressOptions progress{job.options.progress_interval_seconds, job.result.tasks, job.result.resumed_tasks};
  // The worker's loop, over the cache of the load phase when there was one.
  auto work = [&](TaskSource& source) {
    if (resident) {
      out.mine.stats = resident->stats;
      run_worker(*resident->cache, *job.plan, *job.backend, source, job.worker_options, out.mine.stats);
    } else {
      out.mine.stats = run_worker(*job.file, *job.plan, *job.backend, source, job.worker_options);
    }
  };
  if (job.size == 1) {
    // One worker: its static list is the queue's whole order, so the queue serves it.
    LocalTaskSource source(*job.queue, job.journal.get(), progress);
    try {
      work(source);
    } catch (const std::exception& e) {
      out.failure = e.what();
      out.failed_rank = 0;
    }
    out.scheduler_failure = source.scheduler_failure;
    for (const FinishedTask& f : source.finished) out.reported += f.report.triangles;
    out.recount_failure = check_recount(job, source.finished);
  } else if (job.rank == 0) {
    const SchedulerResult served =
        serve_tasks(job.comm, *job.queue, job.journal.get(), progress, resident ? &resident->assigned : nullptr);
    out.failure = served.failure;
    out.failed_rank = served.failed_rank;
    out.scheduler_failure = served.scheduler_failure;
    for (const FinishedTask& f : served.finished) out.reported += f.report.triangles;
    out.recount_failure = check_recount(job, served.finished);
  } else {
    MpiTaskSource dynamic_source(job.comm);
    std::optional<StaticTaskSource> static_source;
    if (resident) static_source.emplace(job.comm, resident->tasks);
    TaskSource& source_of_ids = resident ? static_cast<TaskSource&>(*static_source) : dynamic_source;
    StoppingTaskSource source(source_of_ids, job.options.test_stop_at_task);
    try {
      work(source);
    } catch (const std::exception&) {
      // reported to rank 0 through the source; rank 0 tells everyone in step 7
    }
  }
  return out;
}

// Step 7: failures end the call on every rank with rank 0's account of them.
void end_on_failure(const CountJob& job, const CountOutcome& out, count_t total) {
  collective_step(job.comm, [&] {
    if (job.rank != 0) return;
    if (!out.scheduler_failure.empty())
      throw Error(out.scheduler_failure + "; the count stopped. The tasks finished before are in the journal: make room and rerun with --resume");
    if (out.failed_rank >= 0)
      throw Error("worker rank " + std::to_string(out.failed_rank) + " failed on " + out.failure +
                  (job.journal ? "; finished tasks are in the journal '" + job.options.journal + "': rerun with --resume" : ""));
    if (!out.recount_failure.empty()) throw Error(out.recount_failure + ": the input or the journal changed; remove the journal to count afresh");
    if (out.reported != total)
      throw Error("internal error: task reports sum to " + std::to_string(out.reported) + " but MPI_Reduce gave " +
                  std::to_string(total));
  });
}

// The threads with which rank 0 builds and formats a table's rows once the workers are done.
unsigned table_build_threads() { return std::min(8u, usable_cores()); }

// Step 8, with --per-vertex: each class's counters and degrees (read since step 3) summed over
// the workers piece by piece, the rows built and written by rank 0 (the counters' sum must be
// 3 x the triangles).
void write_per_vertex(CountJob& job, count_t total) {
  const double t0 = MPI_Wtime();
  PerVertexSources sources;
  FileClassCounts counts(job.file ? job.file->header().parts : 1, job.count_parts, job.file ? job.file->header().vertices : 0,
                         [&](std::uint32_t c) { return job.backend->take_vertex_counts(c); }, table_build_threads());
  sources.take_counts = [&](std::uint32_t c) { return counts.take(c); };
  sources.degree_shares = [&] { return job.per_vertex_ahead->take_degrees(); };
  sources.first_ids = [&] { return job.per_vertex_ahead->take_first_ids(); };
  if (job.file && job.file->has_degrees()) sources.first_degrees = [&] { return job.per_vertex_ahead->take_first_degrees(); };
  if (job.rank == 0) sources.early_writer = [&] { return job.per_vertex_ahead->take_early_writer(); };
  sources.write_threads = table_build_threads();
  auto out = std::make_shared<PerVertexOutput>(
      reduce_per_vertex(job.comm, job.is_worker, job.file.get(), job.options.per_vertex, sources, total));
  // The slowest worker's degree read (on its thread, overlapping the count), for the report.
  const double mine = job.is_worker ? job.per_vertex_ahead->degree_seconds() : 0.0;
  MPI_Reduce(&mine, &out->steps.degree_read, 1, MPI_DOUBLE, MPI_MAX, 0, job.comm);
  job.per_vertex_ahead.reset();
  if (job.rank != 0) return;
  job.result.per_vertex = out->summary;
  job.result.per_vertex_output = std::move(out);
  job.result.per_vertex_seconds = MPI_Wtime() - t0;
}

// Step 8b, with --per-edge: each block's counters summed over the workers piece by piece, the
// rows built and written by rank 0 (their sum must be 3 x the triangles).
void write_per_edge(CountJob& job, count_t total) {
  const double t0 = MPI_Wtime();
  const unsigned threads = std::max(1u, job.worker_options.loader_threads);
  const unsigned write_threads = table_build_threads();
  auto out = std::make_shared<PerEdgeOutput>(reduce_per_edge(
      job.comm, job.is_worker, job.file.get(), job.options.per_edge,
      [&](BlockId id) { return job.backend->take_edge_counts(id); }, total, threads, write_threads, kPerEdgePieceRows,
      job.per_edge_ahead.get()));
  job.per_edge_ahead.reset();
  if (job.rank != 0) return;
  job.result.per_edge = out->summary;
  job.result.per_edge_output = std::move(out);
  job.result.per_edge_seconds = MPI_Wtime() - t0;
}

}  // namespace

CountResult run_count(MPI_Comm comm, const CountOptions& options) {
  const double t_start = MPI_Wtime();
  CountJob job(comm, options);
  SetupTimes& times = job.times;
  times.process_start = seconds_since_process_start();
  timed(times.worker_comm, [&] { start_backends(job); });                  // 0. workers: a backend, on its own thread
  timed(times.check_input, [&] { check_input_on_rank0(job); });           // 1. rank 0: file, plan, journal, task queue
  timed(times.share_identity, [&] { share_splits_and_identity(job); });   // 2. m, the file's identity and shape, the plan
  open_workers(job);                                                       // 3. workers: the same file, their backend
  timed(times.node_window, [&] { share_block_checks(job); });             // 3b. workers of a node: one check per block
  timed(times.share_backend, [&] { share_backend(job); });                // 4.
  const double t_ready = MPI_Wtime();
  job.result.setup_seconds = times.setup = t_ready - t_start;
  std::optional<ResidentLoad> resident;
  // The load path: forward only under the static schedule (tricount-count refuses forward
  // with the dynamic one as a usage error); auto is forward on several hosts: virtual nodes of
  // one host read its page cache faster than MPI copies blocks between them (bench/RESULTS.md §4).
  job.result.load_path = !options.static_schedule ? "file"
                         : options.load_path == "auto" ? (job.nodes->nodes() > 1 && job.nodes->hosts() > 1 &&
                                                                  job.count_parts == job.result.input_identity.parts
                                                              ? "forward"
                                                              : "file")
                                                       : options.load_path;
  // Packed blocks reach a backend that decodes them undecoded; forwarding sends decoded blocks.
  if (job.backend) job.worker_options.packed_to_device = job.backend->decodes_packed() && job.result.load_path != "forward";
  if (options.static_schedule) {
    job.result.schedule = "static";
    load_resident(job, resident.emplace());  // 5a. static: every worker's blocks loaded, then a barrier
  }
  const double t_count = MPI_Wtime();
  const CountOutcome outcome = count_tasks(job, resident ? &*resident : nullptr);  // 5.
  count_t total = 0;  // 6. 64-bit counts meet at rank 0
  MPI_Reduce(&outcome.mine.stats.triangles, &total, 1, MPI_UINT64_T, MPI_SUM, 0, comm);
  job.result.schedule_seconds = MPI_Wtime() - t_ready;
  job.result.load_phase_seconds = t_count - t_ready;
  job.result.count_phase_seconds = MPI_Wtime() - t_count;
  end_on_failure(job, outcome, total);  // 7.
  if (!options.per_vertex.empty()) write_per_vertex(job, total);  // 8.
  if (!options.per_edge.empty()) write_per_edge(job, total);      // 8b.
  timed(times.teardown, [&] {  // 9. device and pinned memory, resident blocks and the node's window released
    resident.reset();
    job.backend.reset();
    job.node_checks.release();
  });
  RankStats mine = outcome.mine;
  mine.setup = times;
  mine.node = job.nodes->node();
  job.result.per_rank = gather_rank_stats(comm, mine);  // 10. every rank's statistics to rank 0
  if (job.rank == 0) job.result.triangles = total + job.result.resumed_triangles;
  job.result.total_seconds = MPI_Wtime() - t_start;
  return std::move(job.result);
}

void CountResult::commit_outputs() const {
  if (per_vertex_output) per_vertex_output->commit();
  if (per_edge_output) per_edge_output->commit();
}

}  // namespace tricount
