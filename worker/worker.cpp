#include "worker/worker.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <future>
#include <new>
#include <utility>

#include "src/node_share.hpp"
#include "worker/block_cache.hpp"

namespace tricount {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct HeldBlocks {
  std::shared_ptr<const LoadedBlock> hash, one_hop, two_hop;
  double load_seconds = 0;
  std::uint64_t bytes = 0;
};

HeldBlocks load_blocks(BlockCache& cache, const Task& task) {
  HeldBlocks b;
  const std::array<BlockId, 3> need = task.blocks();
  b.hash = cache.get(need[0], b.load_seconds, b.bytes);
  b.one_hop = cache.get(need[1], b.load_seconds, b.bytes);
  b.two_hop = cache.get(need[2], b.load_seconds, b.bytes);
  return b;
}

// A bare "std::bad_alloc" says nothing a user can act on.
std::string what_failed(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return "out of memory (std::bad_alloc): give a smaller --cache-size, partition with more --parts (smaller "
           "blocks) or run fewer ranks per node";
  return e.what();
}

std::string describe(const TaskPlan& plan, std::uint64_t id) {
  const Task t = plan.decode(id);
  return "task " + std::to_string(id) + " (i,j,k,s = " + std::to_string(t.i) + "," + std::to_string(t.j) + "," +
         std::to_string(t.k) + "," + std::to_string(t.split) + ")";
}

}  // namespace

std::unique_ptr<BlockCache> make_block_cache(const BlockFileReader& file, const WorkerOptions& options) {
  const std::uint64_t budget = options.cache_bytes ? options.cache_bytes : default_cache_bytes(available_memory_bytes(), 1);
  return std::make_unique<BlockCache>(file, budget, options.loader_threads, options.map_blocks, options.node_checks,
                                      options.packed_to_device);
}

WorkerStats run_worker(const BlockFileReader& file, const TaskPlan& plan, CountBackend& backend, TaskSource& source,
                       const WorkerOptions& options) {
  WorkerStats stats;
  const std::unique_ptr<BlockCache> cache = make_block_cache(file, options);
  run_worker(*cache, plan, backend, source, options, stats);
  return stats;
}

std::vector<BlockId> resident_blocks(const BlockFileReader& file, const TaskPlan& plan, const std::vector<std::uint64_t>& tasks,
                                     std::uint64_t cache_bytes) {
  // 1. The distinct blocks of the tasks, and their bytes from the file's attributes.
  const std::uint32_t n = plan.parts();
  std::vector<bool> needed(std::size_t(n) * n, false);
  for (std::uint64_t id : tasks) {
    const Task t = plan.decode(id);
    for (const BlockId& b : t.blocks())
      needed[std::size_t(b.row_class) * n + b.col_class] = true;
  }
  std::vector<BlockId> blocks;
  std::uint64_t bytes = 0;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j)
      if (needed[std::size_t(i) * n + j]) {
        blocks.push_back({i, j});
        bytes += csr_bytes(rows_in_class(file.header().vertices, n, i), file.block_nnz({i, j}));
      }
  // 2. They must all fit the host budget, else the count would read some again.
  if (bytes > cache_bytes) {
    char gib[2][32];
    std::snprintf(gib[0], sizeof gib[0], "%.2f GiB", double(bytes) / double(1ull << 30));
    std::snprintf(gib[1], sizeof gib[1], "%.2f GiB", double(cache_bytes) / double(1ull << 30));
    throw Error("--schedule static: the " + std::to_string(blocks.size()) + " blocks of this worker's " +
                std::to_string(tasks.size()) + " tasks need " + std::to_string(bytes) + " bytes (" + gib[0] +
                ") in memory but --cache-size is " + std::to_string(cache_bytes) + " bytes (" + gib[1] +
                "): give --cache-size of at least " + std::to_string(bytes) + ", run more workers (each then holds fewer "
                "blocks), partition with more --parts (smaller blocks), or count with --schedule dynamic");
  }
  return blocks;
}

std::vector<std::shared_ptr<const LoadedBlock>> load_resident_blocks(BlockCache& cache, const BlockFileReader& file,
                                                                     const TaskPlan& plan, CountBackend& backend,
                                                                     const std::vector<std::uint64_t>& tasks,
                                                                     std::uint64_t cache_bytes, WorkerStats& stats) {
  const auto start = Clock::now();
  // 1-2. The distinct blocks, which must fit the host budget.
  const std::vector<BlockId> blocks = resident_blocks(file, plan, tasks, cache_bytes);
  std::uint64_t bytes = 0;
  for (const BlockId& b : blocks) bytes += csr_bytes(rows_in_class(file.header().vertices, plan.parts(), b.row_class), file.block_nnz(b));
  // 3. Load and check them all now, holding each so that nothing is evicted.
  std::vector<std::shared_ptr<const LoadedBlock>> held;
  for (const BlockId& b : blocks) held.push_back(cache.get(b, stats.load_seconds, stats.bytes_loaded));
  // 4. Onto the device, for a backend that counts there.
  std::vector<BlockView> views;
  for (const auto& b : held) views.push_back(b->view());
  CountStats copies;
  backend.make_resident(views, copies);
  stats.transfer_seconds += copies.transfer_seconds;
  stats.bytes_transferred += copies.bytes_transferred;
  stats.resident_bytes = bytes;
  stats.load_phase_seconds = since(start);
  return held;
}

void run_worker(BlockCache& cache, const TaskPlan& plan, CountBackend& backend, TaskSource& source,
                const WorkerOptions& options, WorkerStats& stats) {
  const auto phase_start = Clock::now();
  std::optional<std::uint64_t> current;
  std::optional<TaskReport> unreported;
  std::future<HeldBlocks> prefetched;  // blocks of `current`, loading in the background
  // `prefetched`'s blocks (or why they could not be loaded), taken early while the backend
  // counted the task before (CountBackend::prefetch_next).
  std::optional<HeldBlocks> taken;
  std::exception_ptr taken_failed;
  TaskBlocks taken_views;
  bool counted_one = false;
  try {
    auto ask = Clock::now();
    current = source.next(nullptr);
    stats.idle_seconds += since(ask);
    while (current) {
      const std::uint64_t id = *current;
      const Task task = plan.decode(id);
      const auto start = Clock::now();
      HeldBlocks blocks;
      if (taken) {
        blocks = std::move(*taken);
        taken.reset();
      } else if (taken_failed) {
        std::rethrow_exception(std::exchange(taken_failed, nullptr));
      } else if (prefetched.valid()) {
        const auto wait = Clock::now();
        blocks = prefetched.get();
        stats.idle_seconds += since(wait);
      } else {
        blocks = load_blocks(cache, task);
      }
      stats.load_seconds += blocks.load_seconds;
      stats.bytes_loaded += blocks.bytes;
      // Ask for the next task now (reporting the previous one) and load its blocks while
      // this one counts.
      std::optional<std::uint64_t> next;
      if (options.prefetch) {
        ask = Clock::now();
        next = source.next(unreported ? &*unreported : nullptr);
        stats.idle_seconds += since(ask);
        unreported.reset();
        if (next) prefetched = std::async(std::launch::async, [&cache, t = plan.decode(*next)] { return load_blocks(cache, t); });
      }
      if (id == options.fault_at_task) {
        if (options.crash_on_fault) ::raise(SIGKILL);
        throw Error("injected fault (test option)");
      }
      TaskBlocks views{blocks.hash->view(), blocks.one_hop->view(), blocks.two_hop->view(), task.split, plan.splits()};
      // The next task's blocks, for a backend that copies them while this task counts; an
      // error loading them is kept for the next task to report, as prefetched.get() above would.
      if (next && prefetched.valid())
        backend.prefetch_next([&, split = plan.decode(*next).split]() -> const TaskBlocks* {
          const auto wait = Clock::now();
          try {
            taken = prefetched.get();
          } catch (...) {
            taken_failed = std::current_exception();
          }
          stats.idle_seconds += since(wait);
          if (!taken) return nullptr;
          taken_views = {taken->hash->view(), taken->one_hop->view(), taken->two_hop->view(), split, plan.splits()};
          return &taken_views;
        });
      CountStats cs;
      count_t found = 0;
      try {
        found = backend.count(views, cs);
      } catch (const std::exception& e) {
        throw Error(describe(plan, id) + ": " + what_failed(e));
      }
      stats.transfer_seconds += cs.transfer_seconds;
      stats.bytes_transferred += cs.bytes_transferred;
      stats.count_seconds += cs.count_seconds;
      stats.triangles += found;
      if (!counted_one) stats.first_task_seconds = since(phase_start);
      counted_one = true;
      ++stats.tasks;
      const TaskReport report{id, found, since(start), blocks.load_seconds};
      stats.busy_seconds += report.seconds;
      if (options.prefetch) {
        unreported = report;
      } else {
        ask = Clock::now();
        next = source.next(&report);
        stats.idle_seconds += since(ask);
      }
      current = next;
    }
    if (unreported) source.report(*unreported);
    stats.load_steps = cache.read_times();
    const BlockChecks checked = cache.checks();
    stats.blocks_checked = checked.blocks;
    stats.bytes_checked = checked.bytes;
    stats.check_seconds = checked.seconds;
    stats.count_phase_seconds = since(phase_start);
  } catch (const std::exception& e) {
    if (prefetched.valid()) prefetched.wait();  // the loader thread uses `cache`
    source.fail(current ? describe(plan, *current) + ": " + what_failed(e) : what_failed(e));
    throw;
  }
}

}  // namespace tricount
