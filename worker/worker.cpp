#include "worker/worker.hpp"

#include <signal.h>

#include <chrono>
#include <future>
#include <new>

#include "worker/block_cache.hpp"

namespace tricount {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct TaskBlocks {
  std::shared_ptr<const LoadedBlock> hash, one_hop, two_hop;
  double load_seconds = 0;
  std::uint64_t bytes = 0;
};

TaskBlocks load_blocks(BlockCache& cache, const Task& task) {
  TaskBlocks b;
  b.hash = cache.get(task.hash_block(), b.load_seconds, b.bytes);
  b.one_hop = cache.get(task.one_hop_block(), b.load_seconds, b.bytes);
  b.two_hop = cache.get(task.two_hop_block(), b.load_seconds, b.bytes);
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
  return "task " + std::to_string(id) + " (i,j,k,w = " + std::to_string(t.i) + "," + std::to_string(t.j) + "," +
         std::to_string(t.k) + "," + std::to_string(t.split) + ")";
}

}  // namespace

WorkerStats run_worker(const BlockFileReader& file, const TaskPlan& plan, CountBackend& backend, TaskSource& source,
                       const WorkerOptions& options) {
  WorkerStats stats;
  BlockCache cache(file, options.cache_bytes, options.loader_threads, options.map_blocks, options.node_checks);
  std::optional<std::uint64_t> current;
  std::optional<TaskReport> unreported;
  std::future<TaskBlocks> prefetched;  // blocks of `current`, loading in the background
  try {
    auto ask = Clock::now();
    current = source.next(nullptr);
    stats.idle_seconds += since(ask);
    while (current) {
      const std::uint64_t id = *current;
      const Task task = plan.decode(id);
      const auto start = Clock::now();
      TaskBlocks blocks;
      if (prefetched.valid()) {
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
      SubtaskBlocks views{blocks.hash->view(), blocks.one_hop->view(), blocks.two_hop->view(), task.split, plan.splits()};
      CountStats cs;
      count_t found = 0;
      try {
        found = backend.count(views, cs);
      } catch (const std::exception& e) {
        throw Error(describe(plan, id) + ": " + what_failed(e));
      }
      stats.transfer_seconds += cs.transfer_seconds;
      stats.count_seconds += cs.count_seconds;
      stats.triangles += found;
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
  } catch (const std::exception& e) {
    if (prefetched.valid()) prefetched.wait();  // the loader thread uses `cache`
    source.fail(current ? describe(plan, *current) + ": " + what_failed(e) : what_failed(e));
    throw;
  }
  return stats;
}

}  // namespace tricount
