// A worker: asks for task ids, loads each task's block triple, counts it with its backend,
// and reports. Where the ids come from (the scheduler rank over MPI, or a local queue when
// one rank does both jobs) is behind TaskSource.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "src/block_format.hpp"
#include "src/task_plan.hpp"
#include "worker/backend.hpp"

namespace tricount {

class NodeBlockChecks;  // worker/block_cache.hpp
class BlockCache;
struct LoadedBlock;

struct TaskReport {
  std::uint64_t task = 0;
  count_t triangles = 0;
  double seconds = 0;       // load + count of this task
  double load_seconds = 0;  // of which reading its blocks (0 when all were cached)
};

class TaskSource {
 public:
  virtual ~TaskSource() = default;
  // Reports a finished task (if any) and returns the next id, or nullopt when done.
  virtual std::optional<std::uint64_t> next(const TaskReport* finished) = 0;
  // Reports a finished task without asking for another (the worker's last report).
  virtual void report(const TaskReport& finished) = 0;
  // Tells the source this worker failed; it will ask for nothing more.
  virtual void fail(const std::string& message) = 0;
};

struct WorkerStats {
  count_t triangles = 0;
  std::uint64_t tasks = 0;
  double load_seconds = 0;      // reading blocks from the file
  double transfer_seconds = 0;  // host -> device
  std::uint64_t bytes_transferred = 0;  // host -> device (upload GB/s: over transfer_seconds)
  double count_seconds = 0;     // backend counting
  double idle_seconds = 0;      // waiting for the scheduler's answer or for blocks not yet loaded
  double busy_seconds = 0;      // load + transfer + count
  std::uint64_t bytes_loaded = 0;
  // Of the blocks loaded, those this worker checked (checksum and validation); the others a
  // worker of its node checked (WorkerOptions::node_checks). check_seconds is in load_seconds.
  std::uint64_t blocks_checked = 0;
  std::uint64_t bytes_checked = 0;
  double check_seconds = 0;
  BlockReadTimes load_steps;    // where load_seconds went
  // The static schedule's load phase (load_resident_blocks, before the barrier; 0 under the
  // dynamic schedule) and the count phase (wall seconds of run_worker, either schedule).
  double load_phase_seconds = 0;
  double count_phase_seconds = 0;
  std::uint64_t resident_bytes = 0;  // of the blocks loaded in the load phase
  // --load-path forward (count/block_forward.hpp): blocks other ranks read and sent to this
  // one, and those this one sent on, with their bytes, and the wall seconds of the exchange.
  std::uint64_t blocks_received = 0, bytes_received = 0;
  std::uint64_t blocks_sent = 0, bytes_sent = 0;
  double forward_seconds = 0;
  // run_worker's start to its first task counted (asking, loading, copying and counting it,
  // with what a backend allocates on first use); 0 with no task.
  double first_task_seconds = 0;
};

inline constexpr std::uint64_t kNoTask = ~std::uint64_t{0};

struct WorkerOptions {
  // Host block cache budget (--cache-size); 0: the default, the worker's share of the node's
  // available memory (default_cache_bytes, src/node_share.hpp; run_count divides it among the
  // workers of the node, make_block_cache alone takes one worker's).
  std::uint64_t cache_bytes = 0;
  bool prefetch = true;  // ask for the next task early and load its blocks while counting
  bool map_blocks = true;  // map blocks from the file where possible (BlockFileReader::map_block)
  unsigned loader_threads = 0;  // threads that read, validate and checksum each block (0: run_count picks)
  NodeBlockChecks* node_checks = nullptr;  // the node's shared record of checked blocks (null: check all here)
  bool packed_to_device = false;  // packed blocks to the backend undecoded (CountBackend::decodes_packed)
  // Fault injection, for tests only: on this task the worker throws (or, with
  // crash_on_fault, kills itself with SIGKILL as `kill -9` would).
  std::uint64_t fault_at_task = kNoTask;
  bool crash_on_fault = false;
};

// The worker's block cache: the one construction from the options (cache_bytes 0: the default).
std::unique_ptr<BlockCache> make_block_cache(const BlockFileReader& file, const WorkerOptions& options);

// Runs until the source says done. Errors are reported to the source and rethrown.
WorkerStats run_worker(const BlockFileReader& file, const TaskPlan& plan, CountBackend& backend, TaskSource& source,
                       const WorkerOptions& options);
// The same with the worker's block cache given (it keeps what the load phase loaded); adds to
// `stats`.
void run_worker(BlockCache& cache, const TaskPlan& plan, CountBackend& backend, TaskSource& source,
                const WorkerOptions& options, WorkerStats& stats);

// The static schedule's load phase: loads and checks every block of `tasks` into `cache`
// (whose budget must hold them all: --cache-size), then hands them to the backend
// (CountBackend::make_resident: the CUDA backend uploads them), so that counting them reads
// and copies nothing. Throws Error before loading anything when they do not fit the host
// budget (the backend's when they do not fit the GPU), naming the bytes needed and what to
// do. Adds the loads and copies to `stats` (load_phase_seconds, resident_bytes). The blocks
// stay loaded while the returned holders live.
// The distinct blocks of `tasks` (in id order); throws the Error load_resident_blocks names
// when their bytes exceed `cache_bytes`.
std::vector<BlockId> resident_blocks(const BlockFileReader& file, const TaskPlan& plan, const std::vector<std::uint64_t>& tasks,
                                     std::uint64_t cache_bytes);
std::vector<std::shared_ptr<const LoadedBlock>> load_resident_blocks(BlockCache& cache, const BlockFileReader& file,
                                                                     const TaskPlan& plan, CountBackend& backend,
                                                                     const std::vector<std::uint64_t>& tasks,
                                                                     std::uint64_t cache_bytes, WorkerStats& stats);

}  // namespace tricount
