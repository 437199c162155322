#include "worker/worker.hpp"

#include <chrono>

#include "worker/block_cache.hpp"

namespace tricount {

WorkerStats run_worker(const BlockFileReader& file, const TaskPlan& plan, CountBackend& backend, TaskSource& source,
                       const WorkerOptions& options) {
  using Clock = std::chrono::steady_clock;
  WorkerStats stats;
  BlockCache cache(file, options.cache_bytes);
  TaskReport report;
  const TaskReport* finished = nullptr;
  try {
    while (true) {
      const auto ask = Clock::now();
      const std::optional<std::uint64_t> id = source.next(finished);
      const auto start = Clock::now();
      stats.idle_seconds += std::chrono::duration<double>(start - ask).count();
      if (!id) break;
      const Task task = plan.decode(*id);
      double load = 0;
      auto hash = cache.get(task.hash_block(), load, stats.bytes_loaded);
      auto one_hop = cache.get(task.one_hop_block(), load, stats.bytes_loaded);
      auto two_hop = cache.get(task.two_hop_block(), load, stats.bytes_loaded);
      stats.load_seconds += load;
      SubtaskBlocks blocks{hash->view(), one_hop->view(), two_hop->view(), task.split, plan.splits()};
      CountStats cs;
      const count_t found = backend.count(blocks, cs);
      stats.transfer_seconds += cs.transfer_seconds;
      stats.count_seconds += cs.count_seconds;
      stats.triangles += found;
      ++stats.tasks;
      report = {*id, found, std::chrono::duration<double>(Clock::now() - start).count()};
      stats.busy_seconds += report.seconds;
      finished = &report;
    }
  } catch (const std::exception& e) {
    source.fail(e.what());
    throw;
  }
  return stats;
}

}  // namespace tricount
