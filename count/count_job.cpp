#include "count/count_job.hpp"

#include <algorithm>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>

#include "scheduler/scheduler.hpp"
#include "src/threads.hpp"

#include <filesystem>
#include <unordered_set>

namespace tricount {

void collective_step(MPI_Comm comm, const std::function<void()>& step) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string message;
  int usage = 0;
  try {
    step();
  } catch (const UsageError& e) {
    message = e.what();
    usage = 1;
  } catch (const std::exception& e) {
    message = e.what();
    if (message.empty()) message = "unknown error";
  }
  int mine = message.empty() ? INT_MAX : rank, first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) return;
  int header[2] = {static_cast<int>(message.size()), usage};
  MPI_Bcast(header, 2, MPI_INT, first, comm);
  message.resize(static_cast<std::size_t>(header[0]));
  MPI_Bcast(message.data(), header[0], MPI_CHAR, first, comm);
  if (first != 0 && header[1] == 0) message = "rank " + std::to_string(first) + ": " + message;
  if (header[1]) throw UsageError(message);
  throw Error(message);
}

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

constexpr int kStatFields = 13;

void pack(const RankStats& r, double* out) {
  const WorkerStats& s = r.stats;
  out[0] = r.worker;
  out[1] = static_cast<double>(s.tasks);
  out[2] = s.load_seconds;
  out[3] = s.transfer_seconds;
  out[4] = s.count_seconds;
  out[5] = s.idle_seconds;
  out[6] = s.busy_seconds;
  out[7] = static_cast<double>(s.bytes_loaded);
  out[8] = static_cast<double>(s.triangles);
  out[9] = s.load_steps.metadata;
  out[10] = s.load_steps.read;
  out[11] = s.load_steps.validate;
  out[12] = s.load_steps.checksum;
}

RankStats unpack(int rank, const double* in) {
  RankStats r;
  r.rank = rank;
  r.worker = in[0] != 0;
  r.stats.tasks = static_cast<std::uint64_t>(in[1]);
  r.stats.load_seconds = in[2];
  r.stats.transfer_seconds = in[3];
  r.stats.count_seconds = in[4];
  r.stats.idle_seconds = in[5];
  r.stats.busy_seconds = in[6];
  r.stats.bytes_loaded = static_cast<std::uint64_t>(in[7]);
  r.stats.triangles = static_cast<count_t>(in[8]);
  r.stats.load_steps = {in[9], in[10], in[11], in[12]};
  return r;
}

JsonObject min_mean_max(const std::vector<RankStats>& ranks, double (*field)(const WorkerStats&)) {
  double lo = 0, hi = 0, sum = 0;
  int n = 0;
  for (const RankStats& r : ranks) {
    if (!r.worker) continue;
    const double v = field(r.stats);
    lo = n ? std::min(lo, v) : v;
    hi = n ? std::max(hi, v) : v;
    sum += v;
    ++n;
  }
  JsonObject o;
  o.add("min", lo).add("mean", n ? sum / n : 0.0).add("max", hi);
  return o;
}

double max_of(const std::vector<RankStats>& ranks, double (*field)(const WorkerStats&)) {
  double hi = 0;
  for (const RankStats& r : ranks)
    if (r.worker) hi = std::max(hi, field(r.stats));
  return hi;
}

double f_load(const WorkerStats& s) { return s.load_seconds; }
double f_transfer(const WorkerStats& s) { return s.transfer_seconds; }
double f_count(const WorkerStats& s) { return s.count_seconds; }
double f_idle(const WorkerStats& s) { return s.idle_seconds; }
double f_busy(const WorkerStats& s) { return s.busy_seconds; }
double f_tasks(const WorkerStats& s) { return static_cast<double>(s.tasks); }

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

std::uint32_t auto_workload_splits(std::uint32_t parts, int workers) {
  const std::uint64_t subtasks = std::uint64_t(parts) * parts * parts;
  const std::uint64_t want = 4 * static_cast<std::uint64_t>(std::max(workers, 1));
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>((want + subtasks - 1) / subtasks, 1, 4096));
}

int node_local_rank(MPI_Comm comm, int* local_size) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0;
  MPI_Comm_rank(node, &local);
  if (local_size) MPI_Comm_size(node, local_size);
  MPI_Comm_free(&node);
  return local;
}

CountResult run_count(MPI_Comm comm, const CountOptions& options) {
  const double t_start = MPI_Wtime();
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const bool is_worker = size == 1 || rank != 0;
  const int workers = size == 1 ? 1 : size - 1;

  CountResult result;
  result.input = options.input;
  result.ranks = size;
  result.workers = workers;
  result.splits = options.splits;

  // Rank 0 checks the file, the plan and the journal before anyone starts.
  std::unique_ptr<BlockFileReader> file;
  std::unique_ptr<TaskQueue> queue;
  std::unique_ptr<JournalWriter> journal;
  std::uint32_t splits = options.splits;
  collective_step(comm, [&] {
    if (rank != 0) return;
    file = std::make_unique<BlockFileReader>(options.input);
    const GraphHeader& h = file->header();
    if (splits == 0) splits = auto_workload_splits(h.parts, workers);
    const TaskPlan plan(h.parts, splits);
    const std::uint64_t tasks = plan.num_tasks();
    if (static_cast<std::uint64_t>(workers) > tasks && !options.allow_idle_workers)
      throw UsageError(std::to_string(size) + " ranks give " + std::to_string(workers) + " workers but '" + options.input +
                       "' with --parts " + std::to_string(plan.parts()) + " and --workload-splits " +
                       std::to_string(plan.splits()) + " has only " + std::to_string(tasks) +
                       " tasks: use fewer ranks, more --workload-splits (or auto), or more parts (or --allow-idle-workers)");
    std::unordered_set<std::uint64_t> done;
    const JournalIdentity identity{h.graph_checksum, h.parts, splits, h.vertices, h.edges, options.input};
    if (options.resume && options.journal.empty()) throw UsageError("--resume needs --journal PATH");
    if (!options.journal.empty()) {
      const bool exists = std::filesystem::exists(options.journal) && std::filesystem::file_size(options.journal) > 0;
      if (exists && !options.resume)
        throw UsageError("journal '" + options.journal + "' exists: pass --resume to continue that run, or remove it");
      if (exists) {
        const JournalContents previous = read_journal(options.journal);
        check_journal_identity(options.journal, previous.identity, identity);
        for (const JournalRecord& r : previous.records) {
          if (r.task >= tasks) throw Error("journal '" + options.journal + "' has task " + std::to_string(r.task) + " out of range");
          done.insert(r.task);
          if (r.triangles > UINT64_MAX - result.resumed_triangles)
            throw Error("journal '" + options.journal + "': the counts of its tasks sum past 2^64 (the journal is damaged; remove it to count every task again)");
          result.resumed_triangles += r.triangles;
        }
        result.resumed_tasks = done.size();
      }
      journal = std::make_unique<JournalWriter>(options.journal, identity, exists);
    }
    std::vector<std::uint64_t> nnz;
    for (std::uint32_t i = 0; i < h.parts; ++i)
      for (std::uint32_t j = 0; j < h.parts; ++j) nnz.push_back(file->block_nnz({i, j}));
    queue = std::make_unique<TaskQueue>(plan, file->read_task_work(), nnz, done);
    result.input_identity = identify_input(*file);
    if (!options.test_replace_input_with.empty())
      std::filesystem::rename(options.test_replace_input_with, options.input);
  });
  MPI_Bcast(&splits, 1, MPI_UINT32_T, 0, comm);
  result.splits = splits;
  // Every rank counts the file rank 0 checked (a file replaced meanwhile is refused below).
  InputIdentity& checked = result.input_identity;
  std::uint64_t identity_words[5] = {checked.graph_checksum, checked.blocks_digest, checked.parts, checked.vertices,
                                     checked.edges};
  MPI_Bcast(identity_words, 5, MPI_UINT64_T, 0, comm);
  checked = {identity_words[0], identity_words[1], identity_words[2], identity_words[3], identity_words[4]};

  // Every worker opens the file and creates its backend; workers pick GPUs by their local
  // rank among the workers of their node.
  MPI_Comm worker_comm = MPI_COMM_NULL;
  MPI_Comm_split(comm, is_worker ? 1 : MPI_UNDEFINED, rank, &worker_comm);
  int local_workers = 1;
  const int local_rank = worker_comm != MPI_COMM_NULL ? node_local_rank(worker_comm, &local_workers) : 0;
  // Block loading threads, unless given: the node's cores shared among its workers, and no
  // more than the cores this process may run on (srun --cpus-per-task, mpirun --bind-to).
  WorkerOptions worker_options = options.worker_options;
  if (worker_options.loader_threads == 0) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    worker_options.loader_threads =
        std::max(1u, std::min(usable_cores(), cores / static_cast<unsigned>(std::max(1, local_workers))));
  }
  if (worker_comm != MPI_COMM_NULL) MPI_Comm_free(&worker_comm);
  std::unique_ptr<CountBackend> backend;
  collective_step(comm, [&] {
    if (!is_worker) return;
    if (!file) {
      file = std::make_unique<BlockFileReader>(options.input);
      check_same_input(*file, checked);
    }
    BackendOptions bo = options.backend_options;
    bo.local_rank = local_rank;
    backend = make_backend(options.backend, bo);
  });
  std::uint64_t header_fields[3] = {0, 0, 0};
  char backend_name[16] = {0};
  char device_name[96] = {0};
  if (backend && rank == std::min(1, size - 1)) {
    std::snprintf(backend_name, sizeof backend_name, "%s", std::string(backend->name()).c_str());
    std::snprintf(device_name, sizeof device_name, "%s", backend->device_name().c_str());
  }
  MPI_Bcast(backend_name, sizeof backend_name, MPI_CHAR, std::min(1, size - 1), comm);
  MPI_Bcast(device_name, sizeof device_name, MPI_CHAR, std::min(1, size - 1), comm);
  if (rank == 0) {
    result.header = file->header();
    header_fields[0] = result.header.parts;
    header_fields[1] = result.header.vertices;
    header_fields[2] = result.header.edges;
  }
  MPI_Bcast(header_fields, 3, MPI_UINT64_T, 0, comm);
  const TaskPlan plan(static_cast<std::uint32_t>(header_fields[0]), splits);
  result.tasks = plan.num_tasks();
  result.backend = backend_name;
  result.device = device_name;
  const double t_ready = MPI_Wtime();
  result.setup_seconds = t_ready - t_start;

  // Counting: dynamic hand-out of task ids.
  RankStats mine;
  mine.rank = rank;
  mine.worker = is_worker;
  std::string failure;
  int failed_rank = -1;
  std::string scheduler_failure;  // rank 0's own (journal) error
  count_t reported = 0;  // the scheduler's sum of task reports, checked against the reduce
  const ProgressOptions progress{options.progress_interval_seconds, result.tasks, result.resumed_tasks};
  if (size == 1) {
    LocalTaskSource source(*queue, journal.get(), progress);
    try {
      mine.stats = run_worker(*file, plan, *backend, source, worker_options);
    } catch (const std::exception& e) {
      failure = e.what();
      failed_rank = 0;
    }
    scheduler_failure = source.scheduler_failure;
    for (const FinishedTask& f : source.finished) reported += f.report.triangles;
  } else if (rank == 0) {
    const SchedulerResult served = serve_tasks(comm, *queue, journal.get(), progress);
    failure = served.failure;
    failed_rank = served.failed_rank;
    scheduler_failure = served.scheduler_failure;
    for (const FinishedTask& f : served.finished) reported += f.report.triangles;
  } else {
    MpiTaskSource mpi_source(comm);
    StoppingTaskSource source(mpi_source, options.test_stop_at_task);
    try {
      mine.stats = run_worker(*file, plan, *backend, source, worker_options);
    } catch (const std::exception&) {
      // reported to rank 0 through the source; rank 0 tells everyone below
    }
  }

  // 64-bit counts meet at rank 0.
  count_t total = 0;
  MPI_Reduce(&mine.stats.triangles, &total, 1, MPI_UINT64_T, MPI_SUM, 0, comm);
  result.schedule_seconds = MPI_Wtime() - t_ready;

  // Failures end the call on every rank with rank 0's account of them.
  collective_step(comm, [&] {
    if (rank != 0) return;
    if (!scheduler_failure.empty())
      throw Error(scheduler_failure + "; the count stopped. The tasks finished before are in the journal: make room and rerun with --resume");
    if (failed_rank >= 0)
      throw Error("worker rank " + std::to_string(failed_rank) + " failed on " + failure +
                  (journal ? "; finished tasks are in the journal '" + options.journal + "': rerun with --resume" : ""));
    if (reported != total)
      throw Error("internal error: task reports sum to " + std::to_string(reported) + " but MPI_Reduce gave " +
                  std::to_string(total));
  });

  std::vector<double> all(static_cast<std::size_t>(size) * kStatFields);
  double packed[kStatFields];
  pack(mine, packed);
  MPI_Gather(packed, kStatFields, MPI_DOUBLE, all.data(), kStatFields, MPI_DOUBLE, 0, comm);
  if (rank == 0) {
    result.triangles = total + result.resumed_triangles;
    for (int r = 0; r < size; ++r) result.per_rank.push_back(unpack(r, all.data() + std::size_t(r) * kStatFields));
  }
  result.total_seconds = MPI_Wtime() - t_start;
  return result;
}

double CountResult::imbalance() const {
  double lo = 0, hi = 0;
  bool any = false;
  for (const RankStats& r : per_rank) {
    if (!r.worker) continue;
    lo = any ? std::min(lo, r.stats.busy_seconds) : r.stats.busy_seconds;
    hi = any ? std::max(hi, r.stats.busy_seconds) : r.stats.busy_seconds;
    any = true;
  }
  return any && lo > 0 ? hi / lo : 0.0;
}

JsonObject CountResult::to_json() const {
  JsonObject seconds;
  seconds.add("setup", setup_seconds)
      .add("load", max_of(per_rank, f_load))
      .add("transfer", max_of(per_rank, f_transfer))
      .add("count", max_of(per_rank, f_count))
      .add("schedule", schedule_seconds)
      .add("total", total_seconds);
  JsonObject timers;
  timers.add("load", min_mean_max(per_rank, f_load))
      .add("transfer", min_mean_max(per_rank, f_transfer))
      .add("count", min_mean_max(per_rank, f_count))
      .add("idle", min_mean_max(per_rank, f_idle))
      .add("busy", min_mean_max(per_rank, f_busy))
      .add("tasks", min_mean_max(per_rank, f_tasks));
  std::vector<JsonObject> ranks_json;
  for (const RankStats& r : per_rank) {
    JsonObject o;
    o.add("rank", r.rank)
        .add("role", r.worker ? (ranks == 1 ? "scheduler+worker" : "worker") : "scheduler")
        .add("tasks", r.stats.tasks)
        .add("triangles", r.stats.triangles)
        .add("load_seconds", r.stats.load_seconds)
        .add("transfer_seconds", r.stats.transfer_seconds)
        .add("count_seconds", r.stats.count_seconds)
        .add("idle_seconds", r.stats.idle_seconds)
        .add("busy_seconds", r.stats.busy_seconds)
        .add("bytes_loaded", r.stats.bytes_loaded);
    JsonObject steps;
    steps.add("metadata", r.stats.load_steps.metadata)
        .add("read", r.stats.load_steps.read)
        .add("validate", r.stats.load_steps.validate)
        .add("checksum", r.stats.load_steps.checksum);
    o.add("load_steps_seconds", steps);
    ranks_json.push_back(o);
  }
  const double count_s = max_of(per_rank, f_count);
  JsonObject j;
  j.add("input", input)
      .add("source", header.source_file)
      .add("triangles", triangles)
      .add("vertices", header.vertices)
      .add("edges", header.edges)
      .add("parts", header.parts)
      .add("workload_splits", splits)
      .add("tasks", tasks)
      .add("ranks", ranks)
      .add("workers", workers)
      .add("backend", backend)
      .add("device", device)
      .add("ordering", header.ordering)
      .add("seconds", seconds)
      .add("teps", count_s > 0 ? static_cast<double>(header.edges) / count_s : 0.0)
      .add("imbalance", imbalance())
      .add("resumed_tasks", resumed_tasks)
      .add("timers", timers)
      .add("per_rank", ranks_json);
  return j;
}

std::string CountResult::summary() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%llu triangles | %llu vertices, %llu edges | %u parts, %u splits, %llu tasks | %d ranks (%d workers, %s: %s) | "
                "load %.3f s, count %.3f s, total %.3f s",
                static_cast<unsigned long long>(triangles), static_cast<unsigned long long>(header.vertices),
                static_cast<unsigned long long>(header.edges), header.parts, splits, static_cast<unsigned long long>(tasks),
                ranks, workers, backend.c_str(), device.c_str(), max_of(per_rank, f_load), max_of(per_rank, f_count),
                total_seconds);
  return buf;
}

}  // namespace tricount
