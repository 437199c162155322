// Stage read: one reader parses the input in batches (text on several threads inside the
// source); producer threads turn batches into canonical (min, max) pairs, self-loops dropped;
// sorter threads sort full chunks and write them as sorted runs (packed 64-bit keys when the
// chunk's ids are below 2^32, else pairs). An input whose edges come by index
// (EdgeSource::indexed: a generator, an uncompressed binary file) skips the reader: each
// thread computes or preads chunks of the edge index range and sorts and writes them.
#include "partitioner/pipeline_state.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "partitioner/radix_sort.hpp"
#include "src/threads.hpp"

namespace tricount::pipeline {

void Pipeline::read(EdgeSource& source, const std::string& source_file) {
  const IndexedEdges* generated = source.indexed();  // a generator's or a binary file's edges by index
  progress_.begin("read", generated ? generated->edge_count() : 0, "edges");
  if (!generated && !source_file.empty()) progress_.set_fraction(input_fraction(source_file));
  // Producers take batches from the source (one at a time: the source is sequential, and
  // text is parsed on several threads inside it) and turn them into canonical pairs in
  // their own buffers; sorters sort and write the full buffers as runs. One producer ran
  // at 60-70 M edges/s on binary input (read sequentially then), the read stage's limit on a
  // 16-core host; text parses slower than 4 of them. Runs are sorted and merged later, so
  // which producer takes which batch changes nothing.
  const unsigned producers = std::clamp(threads_ / 4, 1u, 4u);
  // One buffer per sorter and per producer, and each sorter's radix scratch. Runs of at
  // most 2^22 edges (64 MiB): with a large budget, all sorters still get work (2^24 left
  // Kronecker 20 in one run, sorted on one thread).
  // A small input (o_.expected_input_edges) gets about 32 runs at most from its size: the
  // sorters then work while the text is parsed instead of after it, on buffers used again
  // instead of fresh pages (bench/notes/partitioner-passes.md); inputs of 2^27 edges and more
  // are not affected.
  const std::uint64_t chunk =
      tune_.run_edges ? tune_.run_edges
                      : std::clamp<std::uint64_t>(
                            std::min(work_budget_ * 3 / 4 / sizeof(RawEdge) / (2 * threads_ + producers),
                                     o_.expected_input_edges ? std::max<std::uint64_t>(o_.expected_input_edges / 32, 1 << 16)
                                                             : std::uint64_t(-1)),
                            4096, std::uint64_t{1} << 22);
  const std::size_t batch_max = static_cast<std::size_t>(std::clamp<std::uint64_t>(chunk / 4, 1024, 1u << 18));

  std::mutex m;
  // Sorts a buffer of canonical pairs and writes it as one run; `v` is left empty.
  auto write_run = [&](std::vector<RawEdge>& v, std::vector<RawEdge>& scratch) {
    const std::string path = scratch_.new_file("read");
    // Packed 64-bit keys when the chunk's ids are below 2^32 (8 bytes an edge), else pairs.
    const bool packed = sort_edges(v, scratch);
    std::uint64_t count = 0;
    if (packed) {
      std::uint64_t* keys = packed_keys(v);
      count = static_cast<std::uint64_t>(std::unique(keys, keys + v.size()) - keys);
      runs::write_file(path, keys, count * sizeof(std::uint64_t));
    } else {
      v.erase(std::unique(v.begin(), v.end()), v.end());
      count = v.size();
      runs::write_file(path, v.data(), count * sizeof(RawEdge));
    }
    v.clear();
    std::lock_guard lock(m);
    (packed ? key_runs_ : edge_runs_).push_back(Run{{Span{path, 0, count}}});
  };
  auto finish = [&] {
    report_.runs = edge_runs_.size() + key_runs_.size();
    progress_.end(std::to_string(report_.runs) + " sorted runs");
  };

  // Edges by index: every thread takes chunks of the edge index range in turn, computes (or,
  // for a binary file, preads) their edges, makes them canonical pairs in place and sorts and
  // writes them as runs itself; no edge passes through a queue, and neither one reader nor
  // the few producers below bound the stage. Which thread takes which chunk changes nothing,
  // as with the producers below.
  if (generated) {
    const std::uint64_t total = generated->edge_count();
    // At least one chunk per thread, so that a small graph is generated on every thread too.
    const std::uint64_t size = std::min(chunk, std::max<std::uint64_t>(total / threads_ + 1, 4096));
    const std::uint64_t chunks = total / size + (total % size != 0);
    std::atomic<std::uint64_t> next{0};
    std::atomic<bool> stop{false};
    std::vector<raw_id_t> max_of(threads_, 0);
    parallel_for(threads_, [&](unsigned t) {
      try {
        std::vector<RawEdge> v, scratch;
        raw_id_t my_max = 0;
        for (std::uint64_t c; !stop.load(std::memory_order_relaxed) && (c = next.fetch_add(1)) < chunks;) {
          const std::uint64_t first = c * size, n = std::min(size, total - first);
          v.resize(static_cast<std::size_t>(n));
          generated->edges_at(first, n, v.data());
          std::size_t kept = 0;
          for (const RawEdge& e : v) {
            if (e.u == e.v) continue;
            const RawEdge canonical = e.u < e.v ? e : RawEdge{e.v, e.u};
            my_max = std::max(my_max, canonical.v);
            v[kept++] = canonical;
          }
          v.resize(kept);
          progress_.add(n);
          if (kept > 0) write_run(v, scratch);
        }
        max_of[t] = my_max;
      } catch (...) {
        stop = true;
        throw;
      }
    });
    input_edges_ = total;
    max_raw_id_ = *std::max_element(max_of.begin(), max_of.end());
    finish();
    return;
  }

  std::condition_variable cv;
  std::vector<std::vector<RawEdge>> buffers(threads_ + producers);
  std::vector<std::size_t> free_list;
  for (std::size_t b = 0; b < buffers.size(); ++b) free_list.push_back(b);
  std::deque<std::size_t> full;
  bool done = false, failed = false;
  std::exception_ptr error;
  auto fail = [&](std::exception_ptr e) {
    std::lock_guard lock(m);
    if (!error) error = e;
    failed = true;
    cv.notify_all();
  };

  auto sorter = [&] {
    std::vector<RawEdge> scratch;
    while (true) {
      std::size_t b;
      {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return failed || done || !full.empty(); });
        if (failed) return;
        if (full.empty()) return;  // done
        b = full.front();
        full.pop_front();
      }
      try {
        write_run(buffers[b], scratch);
        std::lock_guard lock(m);
        free_list.push_back(b);
        cv.notify_all();
      } catch (...) {
        fail(std::current_exception());
        return;
      }
    }
  };
  std::vector<std::jthread> sorters;
  for (unsigned t = 0; t < threads_; ++t) sorters.emplace_back(sorter);

  // A free buffer's index, or nothing once the read has failed.
  auto take_free = [&]() -> std::optional<std::size_t> {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return failed || !free_list.empty(); });
    if (failed) return std::nullopt;
    const std::size_t b = free_list.back();
    free_list.pop_back();
    return b;
  };
  auto hand_off = [&](std::size_t b) {
    std::lock_guard lock(m);
    full.push_back(b);
    cv.notify_all();
  };

  std::mutex source_mutex;
  raw_id_t max_id = 0;
  auto producer = [&] {
    try {
      std::optional<std::size_t> cur = take_free();
      if (!cur) return;
      if (buffers[*cur].capacity() < chunk) buffers[*cur].reserve(chunk);  // pages are touched as filled
      std::vector<RawEdge> batch;
      raw_id_t my_max = 0;
      for (;;) {
        {
          std::lock_guard lock(source_mutex);
          if (!source.next_batch(batch, batch_max)) break;
          input_edges_ += batch.size();
        }
        progress_.add(batch.size());
        for (const RawEdge& e : batch) {
          if (e.u == e.v) continue;
          const RawEdge c = e.u < e.v ? e : RawEdge{e.v, e.u};
          my_max = std::max(my_max, c.v);
          buffers[*cur].push_back(c);
          if (buffers[*cur].size() == chunk) {
            hand_off(*cur);
            if (!(cur = take_free())) return;
            if (buffers[*cur].capacity() < chunk) buffers[*cur].reserve(chunk);
          }
        }
      }
      std::lock_guard lock(m);
      max_id = std::max(max_id, my_max);
      if (!buffers[*cur].empty()) full.push_back(*cur);
      else free_list.push_back(*cur);
      cv.notify_all();
    } catch (...) {
      fail(std::current_exception());
    }
  };
  {
    std::vector<std::jthread> readers;
    for (unsigned t = 0; t < producers; ++t) readers.emplace_back(producer);
  }
  max_raw_id_ = max_id;
  {
    std::lock_guard lock(m);
    done = true;
  }
  cv.notify_all();
  sorters.clear();
  if (error) std::rethrow_exception(error);
  buffers.clear();
  buffers.shrink_to_fit();
  finish();
}

}  // namespace tricount::pipeline
