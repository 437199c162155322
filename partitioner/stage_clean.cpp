// Stage clean: the sorted runs are merged (threads split the key range), dropping
// duplicates, into the unique edges; the distinct input ids are collected on the way (degree
// counters per input id when the ids are dense and small, a bitmap when they are small, else
// sorted id runs) and become the compact ids, in ascending input-id order. Every step runs on
// the stage's threads: the merge cuts, the merge, the deletion of the runs, the id scans.
#include "partitioner/pipeline_state.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <functional>
#include <optional>

#include "partitioner/count_cache.hpp"

namespace tricount::pipeline {

namespace {

// Degree tables whose copies, one per thread, take at most this much are counted per thread
// during the merge (2 threads: up to 2 Mi input ids).
constexpr std::uint64_t kPrivateCountBytes = std::uint64_t{16} << 20;

// Threads for a scan of `n` items: one per 64 Ki items at most (starting one costs more).
unsigned scan_threads(std::uint64_t n, unsigned threads) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>(n >> 16, 1, std::max(1u, threads)));
}

// The compact ids from a table over the input ids (degrees or a bitmap), in ascending order
// on several threads: count(a, b) says how many ids items [a, b) of the table hold; the
// ranges' counts, summed in order, place each range's ids in fill(a, b, first).
class IdScan {
 public:
  template <class Count>
  IdScan(std::uint64_t items, unsigned threads, Count count)
      : cut_(runs::even_cuts(items, scan_threads(items, threads))), first_(cut_.size(), 0) {
    const unsigned parts = static_cast<unsigned>(cut_.size() - 1);
    parallel_for(parts, [&](unsigned t) { first_[t + 1] = count(cut_[t], cut_[t + 1]); });
    for (unsigned t = 0; t < parts; ++t) first_[t + 1] += first_[t];
  }
  std::uint64_t total() const { return first_.back(); }
  template <class Fill>
  void fill(Fill fill) const {
    parallel_for(static_cast<unsigned>(cut_.size() - 1), [&](unsigned t) { fill(cut_[t], cut_[t + 1], first_[t]); });
  }

 private:
  std::vector<std::uint64_t> cut_, first_;
};

}  // namespace

void Pipeline::clean() {
  // Runs of packed keys when every id is below 2^32 (every chunk then packed); else the
  // packed runs are widened to pairs first (ids of 2^32 and more are rare).
  if (edge_runs_.empty()) {
    packed_ = true;
    clean_as<std::uint64_t>(std::move(key_runs_));
  } else {
    packed_ = false;
    widen_key_runs();
    clean_as<RawEdge>(std::move(edge_runs_));
  }
  key_runs_.clear();
  edge_runs_.clear();
}

// Rewrites every run of packed keys as a run of pairs, appended to edge_runs_.
void Pipeline::widen_key_runs() {
  std::vector<Run> wide(key_runs_.size());
  std::atomic<std::size_t> next{0};
  runs::parallel_for(threads_, [&](unsigned) {
    for (std::size_t r; (r = next.fetch_add(1)) < key_runs_.size();) {
      const std::uint64_t size = key_runs_[r].size();
      RunCursor<std::uint64_t> cur(pool_, key_runs_[r], 0, size, io_ / 8);
      FileWriter out(scratch_.new_file("read"), io_);
      for (; !cur.empty(); cur.pop()) out.put(RawEdge{first_of(cur.head()), second_of(cur.head())});
      out.close();
      wide[r] = Run{{Span{out.path(), 0, size}}};
    }
  });
  runs::remove_run_files(key_runs_, pool_, threads_);
  for (Run& r : wide) edge_runs_.push_back(std::move(r));
}

template <class T>
void Pipeline::clean_as(std::vector<Run> input_runs) {
  using Less = LessOf<T>;
  std::uint64_t total = 0;
  for (const Run& r : input_runs) total += r.size();
  progress_.begin("clean", total, "edges");
  auto [runs, mine] = reduce_fanin<T>(std::move(input_runs), true, true, "merge", Less{});

  // Distinct ids and degrees: when the input ids are dense and small, one degree counter per
  // input id, counted during the merge (a nonzero degree marks the id: no degrees pass);
  // else a bitmap over [0, max id] when it is small, else sorted id runs, and the degrees
  // stage counts the degrees in a pass of its own. V <= 2 * total, so "dense" is at most
  // 16 ids per input edge, as IdIndex's table (8 per vertex).
  const std::uint64_t raw_table_bytes = (max_raw_id_ + 1) * sizeof(std::uint32_t);
  const bool count_here = total > 0 && max_raw_id_ <= 16 * total + (std::uint64_t{1} << 20) &&
                          raw_table_bytes <= work_budget_ / 4;
  const std::uint64_t bitmap_words = (max_raw_id_ >> 6) + 1;
  const bool use_bitmap = !count_here && total > 0 && bitmap_words * 8 <= work_budget_ / 4;
  report_.id_collection = count_here ? "degree table" : use_bitmap ? "bitmap" : "runs";
  VertexArray<std::uint64_t> bitmap;
  if (use_bitmap) assign_zeros(bitmap, bitmap_words, threads_);
  if (count_here) assign_zeros(raw_degree_, max_raw_id_ + 1, threads_);
  // A small table is counted into one copy per thread, summed after the merge: the second
  // endpoints fall all over the table, and the shared counters' atomic adds bounced their
  // lines between the cores on almost every edge (bench/notes/partitioner-passes.md).
  const bool private_counts = count_here && threads_ > 1 && raw_table_bytes * threads_ <= kPrivateCountBytes &&
                              raw_table_bytes * threads_ <= work_budget_ / 4;
  std::vector<std::vector<std::uint32_t>> thread_degree(private_counts ? threads_ : 0);
  const std::size_t id_buffer = std::max<std::size_t>(1024, work_budget_ / 4 / sizeof(raw_id_t) / threads_);
  std::vector<Span> unique_parts(threads_), first_id_parts(threads_);
  std::vector<std::vector<Run>> id_runs(threads_);

  runs::parallel_merge<T>(
      pool_, runs, threads_, cursor_bytes(runs.size(), threads_), Less{}, Same{},
      [&](const MergeRange<T>& range, runs::MergeStream<T, Less>& stream) {
        const unsigned t = range.part;
        FileWriter out(scratch_.new_file("unique"), io_);
        FileWriter firsts;
        std::vector<raw_id_t> seconds;
        if (!use_bitmap && !count_here) {
          firsts = FileWriter(scratch_.new_file("ids"), io_);
          seconds.reserve(id_buffer);
        }
        auto flush_seconds = [&] {
          if (seconds.empty()) return;
          std::sort(seconds.begin(), seconds.end());
          seconds.erase(std::unique(seconds.begin(), seconds.end()), seconds.end());
          const std::string path = scratch_.new_file("ids");
          runs::write_file(path, seconds.data(), seconds.size() * sizeof(raw_id_t));
          id_runs[t].push_back(Run{{Span{path, 0, seconds.size()}}});
          seconds.clear();
        };
        auto set_bit = [&](raw_id_t id) {
          std::uint64_t& w = bitmap[id >> 6];
          const std::uint64_t bit = std::uint64_t{1} << (id & 63);
          if (!(std::atomic_ref<std::uint64_t>(w).load(std::memory_order_relaxed) & bit))
            std::atomic_ref<std::uint64_t>(w).fetch_or(bit, std::memory_order_relaxed);
        };
        // Degrees: the first endpoints come in order (counted locally per run of equal
        // ones), the second into the thread's copy of a small table, else through a
        // per-thread cache of counters.
        std::optional<CountCache> second_degree;
        std::uint32_t* own_degree = nullptr;
        if (private_counts) {
          thread_degree[t].assign(raw_degree_.size(), 0);
          own_degree = thread_degree[t].data();
        } else if (count_here) {
          second_degree.emplace(raw_degree_.data());
        }
        std::uint32_t pending = 0;
        auto flush_pending = [&](raw_id_t u) {
          if (pending) std::atomic_ref<std::uint32_t>(raw_degree_[u]).fetch_add(pending, std::memory_order_relaxed);
          pending = 0;
        };
        T e, last{};
        bool have = false;
        std::uint64_t n = 0, firsts_n = 0, since = 0;
        while (stream.next(e)) {
          if (++since == 65536) {
            progress_.add(since);
            since = 0;
          }
          if (have && e == last) continue;
          out.put(e);
          ++n;
          const raw_id_t u = first_of(e), v = second_of(e);
          const bool new_first = !have || u != first_of(last);
          if (count_here) {
            if (new_first && have) flush_pending(first_of(last));
            ++pending;
            if (own_degree) ++own_degree[v];
            else second_degree->inc(static_cast<std::uint32_t>(v));
          } else if (use_bitmap) {
            if (new_first) set_bit(u);
            set_bit(v);
          } else {
            if (new_first) {
              firsts.put(u);
              ++firsts_n;
            }
            seconds.push_back(v);
            if (seconds.size() == id_buffer) flush_seconds();
          }
          last = e;
          have = true;
        }
        if (count_here) {
          if (have) flush_pending(first_of(last));
          if (second_degree) second_degree->flush();
        }
        progress_.add(since);
        out.close();
        unique_parts[t] = Span{out.path(), 0, n};
        if (!use_bitmap && !count_here) {
          flush_seconds();
          firsts.close();
          first_id_parts[t] = Span{firsts.path(), 0, firsts_n};
        }
      });
  remove_mine(runs, mine);
  if (private_counts)
    parallel_ranges(raw_degree_.size(), scan_threads(raw_degree_.size(), threads_), [&](std::uint64_t a, std::uint64_t b) {
      for (const std::vector<std::uint32_t>& d : thread_degree)
        for (std::uint64_t id = a; id < b; ++id) raw_degree_[id] += d[id];
    });
  thread_degree.clear();
  for (Span& s : unique_parts) unique_edges_.append(std::move(s));
  edges_ = unique_edges_.size();
  check_parts_for_graph(o_.parts, edges_);
  progress_.end(std::to_string(edges_) + " undirected edges" +
                (report_.merge_passes ? ", " + std::to_string(report_.merge_passes) + " extra merge passes" : ""));

  // Compact ids: the distinct ids in ascending order.
  progress_.begin("ids", 0, "vertices");
  if (count_here) {
    IdScan scan(raw_degree_.size(), threads_, [&](std::uint64_t a, std::uint64_t b) {
      std::uint64_t v = 0;
      for (std::uint64_t id = a; id < b; ++id) v += raw_degree_[id] != 0;
      return v;
    });
    vertices_ = scan.total();
    check_vertex_count();
    require_vertex_memory(12 * vertices_ + raw_table_bytes, "the input ids, the degrees and a table over the input ids");
    input_id_.resize(vertices_);
    scan.fill([&](std::uint64_t a, std::uint64_t b, std::uint64_t p) {
      for (std::uint64_t id = a; id < b; ++id)
        if (raw_degree_[id]) input_id_[p++] = id;
    });
  } else if (use_bitmap) {
    IdScan scan(bitmap.size(), threads_, [&](std::uint64_t a, std::uint64_t b) {
      std::uint64_t v = 0;
      for (std::uint64_t k = a; k < b; ++k) v += std::popcount(bitmap[k]);
      return v;
    });
    vertices_ = scan.total();
    check_vertex_count();
    require_vertex_memory(16 * vertices_ + bitmap.size() * 8, "the input ids, their index and the degrees (16 bytes a vertex)");
    input_id_.resize(vertices_);
    scan.fill([&](std::uint64_t a, std::uint64_t b, std::uint64_t p) {
      for (std::uint64_t k = a; k < b; ++k)
        for (std::uint64_t w = bitmap[k]; w; w &= w - 1) input_id_[p++] = (k << 6) | std::countr_zero(w);
    });
    runs::release(bitmap);
  } else {
    std::vector<Run> ids;
    Run firsts;
    for (Span& s : first_id_parts) firsts.append(std::move(s));
    if (firsts.size()) ids.push_back(std::move(firsts));
    for (auto& rs : id_runs)
      for (Run& r : rs) ids.push_back(std::move(r));
    auto [id_runs_reduced, id_mine] =
        reduce_fanin<raw_id_t>(std::move(ids), true, true, "ids", std::less<raw_id_t>{});
    const Run merged = merge_to_run<raw_id_t>(id_runs_reduced, true, "ids", std::less<raw_id_t>{});
    remove_mine(id_runs_reduced, id_mine);
    vertices_ = merged.size();
    check_vertex_count();
    require_vertex_memory(16 * vertices_, "the input ids, their index and the degrees (16 bytes a vertex)");
    input_id_.resize(vertices_);
    parallel_ranges(vertices_, scan_threads(vertices_, threads_), [&](std::uint64_t a, std::uint64_t b) {
      RunCursor<raw_id_t> cur(pool_, merged, a, b, io_ / sizeof(raw_id_t));
      for (std::uint64_t p = a; p < b; ++p, cur.pop()) input_id_[p] = cur.head();
    });
    runs::remove_run_files({merged}, pool_, threads_);
  }
  progress_.add(vertices_);
  progress_.end("distinct ids by " + report_.id_collection);
}

void Pipeline::check_vertex_count() const {
  if (vertices_ > kMaxVertices)
    throw Error("the graph has " + std::to_string(vertices_) + " non-isolated vertices; at most " +
                std::to_string(kMaxVertices) + " (32-bit ids) are supported");
}

}  // namespace tricount::pipeline
