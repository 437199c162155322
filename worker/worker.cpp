#include "worker/worker.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <future>
#include <mutex>
#include <new>
#include <utility>

#include "src/node_share.hpp"
#include "worker/block_cache.hpp"
#include "worker/reblock.hpp"

namespace tricount {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A task's block in one role at the plan's parts: its file block, or (--count-parts) its
// g x g file blocks, given to a backend that re-blocks them as one composite view, else
// re-blocked here.
struct RoleBlock {
  std::vector<std::shared_ptr<const LoadedBlock>> files;  // file_blocks_of's order
  std::shared_ptr<const LoadedBlock> merged;               // re-blocked in host memory
  std::vector<BlockView> part_views;                       // the composite's parts
  std::uint64_t composite_serial = 0;
  BlockView view(const BlockId& id, std::uint64_t rows, std::uint64_t cols, std::uint32_t group) const {
    if (merged) return merged->view();
    if (files.size() == 1) return files.front()->view();
    BlockView v;
    v.id = id;
    v.serial = composite_serial;
    v.rows = rows;
    v.cols = cols;
    for (const BlockView& p : part_views) v.nnz += p.nnz;
    v.parts = part_views.data();
    v.group = group;
    return v;
  }
};

struct HeldBlocks {
  RoleBlock hash, one_hop, two_hop;
  double load_seconds = 0;
  std::uint64_t bytes = 0;
};

// How the plan's blocks map onto the file's (--count-parts), and the count blocks this worker
// re-blocked or named lately: the same file blocks give the same serial, so that neither the
// host nor a backend's device cache merges a block twice while its parts stay loaded.
class CountBlocks {
 public:
  CountBlocks(const BlockFileReader& file, const TaskPlan& plan, bool backend_reblocks, unsigned threads)
      : vertices_(file.header().vertices), count_parts_(plan.parts()), group_(file.header().parts / plan.parts()),
        backend_reblocks_(backend_reblocks), threads_(threads) {}

  RoleBlock load(BlockCache& cache, const BlockId& id, double& load_seconds, std::uint64_t& bytes) {
    RoleBlock r;
    if (group_ == 1) {
      r.files.push_back(cache.get(id, load_seconds, bytes));
      return r;
    }
    for (const BlockId& f : file_blocks_of(id, count_parts_, group_)) r.files.push_back(cache.get(f, load_seconds, bytes));
    std::vector<std::uint64_t> key{std::uint64_t(id.row_class) << 32 | id.col_class};
    for (const auto& f : r.files) key.push_back(f->serial);
    std::lock_guard lock(mutex_);
    for (Recent& e : recent_)
      if (e.key == key) {
        r.composite_serial = e.serial;
        r.merged = e.merged;
      }
    if (!r.composite_serial) {
      if (recent_.size() == kRecent) recent_.erase(recent_.begin());
      recent_.push_back({key, next_serial_++, nullptr});
      r.composite_serial = recent_.back().serial;
    }
    if (backend_reblocks_) {
      for (const auto& f : r.files) r.part_views.push_back(f->view());
      return r;
    }
    if (!r.merged) {
      std::vector<CsrSpan> spans;
      for (const auto& f : r.files) spans.push_back(f->span());
      auto m = std::make_shared<LoadedBlock>();
      const auto t0 = std::chrono::steady_clock::now();
      m->block = reblock(spans, id, rows(id.row_class), rows(id.col_class), group_, threads_);
      load_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      m->serial = r.composite_serial;
      m->nonempty_rows = count_nonempty_rows(m->span(), threads_);
      r.merged = m;
      for (Recent& e : recent_)
        if (e.key == key) e.merged = m;
    }
    return r;
  }

  std::uint64_t rows(std::uint32_t c) const { return rows_in_class(vertices_, count_parts_, c); }
  std::uint32_t group() const { return group_; }

 private:
  // Serials of count blocks lie above those of the block cache's loads (counted from 1).
  static constexpr std::uint64_t kFirstSerial = std::uint64_t{1} << 62;
  // The last blocks of a few tasks: a task's three roles, and the next task's while it loads.
  static constexpr std::size_t kRecent = 8;
  struct Recent {
    std::vector<std::uint64_t> key;  // the count block and its parts' serials
    std::uint64_t serial;
    std::shared_ptr<const LoadedBlock> merged;
  };
  std::uint64_t vertices_;
  std::uint32_t count_parts_, group_;
  bool backend_reblocks_;
  unsigned threads_;
  std::mutex mutex_;
  std::vector<Recent> recent_;
  std::uint64_t next_serial_ = kFirstSerial;
};

HeldBlocks load_blocks(BlockCache& cache, CountBlocks& blocks, const Task& task) {
  HeldBlocks b;
  const std::array<BlockId, 3> need = task.blocks();
  b.hash = blocks.load(cache, need[0], b.load_seconds, b.bytes);
  b.one_hop = blocks.load(cache, need[1], b.load_seconds, b.bytes);
  b.two_hop = blocks.load(cache, need[2], b.load_seconds, b.bytes);
  return b;
}

TaskBlocks views_of(const HeldBlocks& h, const CountBlocks& blocks, const Task& task, std::uint32_t splits) {
  auto role = [&](const RoleBlock& r, const BlockId& id) {
    return r.view(id, blocks.rows(id.row_class), blocks.rows(id.col_class), blocks.group());
  };
  return {role(h.hash, task.hash_block()), role(h.one_hop, task.one_hop_block()), role(h.two_hop, task.two_hop_block()),
          task.split, splits};
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
  // 1. The distinct file blocks of the tasks (a count block's g x g with --count-parts), and
  // their bytes from the file's attributes.
  const std::uint32_t n = file.header().parts, group = n / plan.parts();
  std::vector<bool> needed(std::size_t(n) * n, false);
  for (std::uint64_t id : tasks) {
    const Task t = plan.decode(id);
    for (const BlockId& b : t.blocks())
      for (const BlockId& f : file_blocks_of(b, plan.parts(), group)) needed[std::size_t(f.row_class) * n + f.col_class] = true;
  }
  std::vector<BlockId> blocks;
  std::uint64_t bytes = 0;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j)
      if (needed[std::size_t(i) * n + j]) {
        blocks.push_back({i, j});
        bytes += file.block_csr_bytes({i, j});
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
  for (const BlockId& b : blocks) bytes += file.block_csr_bytes(b);
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
  CountBlocks count_blocks(cache.file(), plan, backend.reblocks(), cache.threads());
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
        blocks = load_blocks(cache, count_blocks, task);
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
        if (next)
          prefetched = std::async(std::launch::async, [&cache, &count_blocks, t = plan.decode(*next)] {
            return load_blocks(cache, count_blocks, t);
          });
      }
      if (id == options.fault_at_task) {
        if (options.crash_on_fault) ::raise(SIGKILL);
        throw Error("injected fault (test option)");
      }
      TaskBlocks views = views_of(blocks, count_blocks, task, plan.splits());
      // The next task's blocks, for a backend that copies them while this task counts; an
      // error loading them is kept for the next task to report, as prefetched.get() above would.
      if (next && prefetched.valid())
        backend.prefetch_next([&, next_task = plan.decode(*next)]() -> const TaskBlocks* {
          const auto wait = Clock::now();
          try {
            taken = prefetched.get();
          } catch (...) {
            taken_failed = std::current_exception();
          }
          stats.idle_seconds += since(wait);
          if (!taken) return nullptr;
          taken_views = views_of(*taken, count_blocks, next_task, plan.splits());
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
