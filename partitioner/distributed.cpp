// partition_distributed (distributed.hpp): the steps in order, each rank's share in memory.
#include "partitioner/distributed.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <optional>
#include <tuple>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <span>

#include "input/known_counts.hpp"
#include "partitioner/id_index.hpp"
#include "partitioner/partition.hpp"
#include "partitioner/progress.hpp"
#include "partitioner/radix_sort.hpp"
#include "partitioner/rank_exchange.hpp"
#include "partitioner/reorder.hpp"
#include "partitioner/vertex_array.hpp"
#include "partitioner/run_files.hpp"
#include "src/block_format.hpp"
#include "src/block_memory.hpp"
#include "src/checksum.hpp"
#include "src/output_file.hpp"
#include "src/packed_block.hpp"
#include "src/threads.hpp"

namespace tricount {
namespace {

using ranks::agreed;
using ranks::Comm;
template <class T>
using Array = VertexArray<T>;

// ---- records: packed keys a << 32 | b when every id is below 2^32, else pairs ------------

// A pair of input ids; unlike RawEdge trivially constructible, so that an Array of them is
// sized without a zero fill on one thread.
struct Pair {
  raw_id_t u, v;
};
struct PairDigits {
  static constexpr unsigned kBits = 8, kDigits = 16;
  static unsigned digit(const Pair& e, unsigned d) {
    return d < 8 ? static_cast<unsigned>(e.v >> (8 * d)) & 0xFF : static_cast<unsigned>(e.u >> (8 * (d - 8))) & 0xFF;
  }
};
inline raw_id_t first_of(const Pair& e) { return e.u; }
inline raw_id_t second_of(const Pair& e) { return e.v; }
inline raw_id_t first_of(std::uint64_t key) { return key >> 32; }
inline raw_id_t second_of(std::uint64_t key) { return key & 0xFFFFFFFFu; }
inline bool less(const Pair& a, const Pair& b) { return a.u != b.u ? a.u < b.u : a.v < b.v; }
inline bool less(std::uint64_t a, std::uint64_t b) { return a < b; }
template <class T>
using DigitsOf = std::conditional_t<std::is_same_v<T, Pair>, PairDigits, KeyDigits>;

inline std::uint64_t mix(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
inline std::uint64_t hash_of(std::uint64_t key) { return mix(key); }
inline std::uint64_t hash_of(const Pair& e) { return mix(e.u * 0x9E3779B97F4A7C15ULL ^ e.v); }

template <class T>
void release(Array<T>& a) {
  Array<T>().swap(a);
}

// Threads for n records: a chunk of at least 64 Ki records each.
unsigned threads_for(std::uint64_t n, unsigned threads) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>(n >> 16, 1, std::max(1u, threads)));
}

// Named steps' seconds on this rank, in the order they ran (every rank runs the same steps):
// lap(name) closes the step that began at the previous lap.
class Laps {
 public:
  void lap(std::string name) {
    const auto now = std::chrono::steady_clock::now();
    steps_.emplace_back(std::move(name), std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }
  const std::vector<std::pair<std::string, double>>& steps() const { return steps_; }

 private:
  std::vector<std::pair<std::string, double>> steps_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};
Laps& laps() {
  static Laps l;
  return l;
}
void lap(std::string name) { laps().lap(std::move(name)); }

// Sorts data on `threads` threads: cut into key ranges by a sample (one scatter pass), then
// each range radix-sorted on its own thread.
template <class T>
void parallel_sort(Array<T>& data, unsigned threads) {
  const std::uint64_t n = data.size();
  Array<T> scratch;
  scratch.resize(n);
  const unsigned t = threads_for(n, threads);
  if (t == 1) {
    lap("sort.cut");  // every rank runs the same laps, whatever its share
    radix_sort<T, DigitsOf<T>>(data.data(), scratch.data(), n);
    lap("sort.radix");
    return;
  }
  std::vector<T> sample;
  const std::uint64_t samples = std::uint64_t{64} * t;
  for (std::uint64_t s = 0; s < samples; ++s) sample.push_back(data[n * s / samples]);
  std::sort(sample.begin(), sample.end(), [](const T& a, const T& b) { return less(a, b); });
  std::vector<T> splitters;
  for (unsigned b = 1; b < t; ++b) splitters.push_back(sample[samples * b / t]);
  auto bucket = [&](const T& x) {
    return static_cast<unsigned>(std::upper_bound(splitters.begin(), splitters.end(), x,
                                                  [](const T& a, const T& b) { return less(a, b); }) -
                                 splitters.begin());
  };
  // Where chunk k's records of range b go: ranges in order, chunks in order within each. Each
  // record's range is searched twice: keeping it (2 bytes a record) was no faster.
  std::vector<std::vector<std::uint64_t>> pos(t);
  // Each thread counts and places in an array it allocates itself: rows of one shared array
  // put neighbouring threads' hot counters in one cache line, bouncing between cores.
  parallel_for(t, [&](unsigned k) {
    std::vector<std::uint64_t> mine(t, 0);
    for (std::uint64_t i = n * k / t; i < n * (k + 1) / t; ++i) ++mine[bucket(data[i])];
    pos[k] = std::move(mine);
  });
  std::vector<std::uint64_t> start(t + 1, 0);
  for (unsigned b = 0; b < t; ++b) {
    std::uint64_t p = start[b];
    for (unsigned k = 0; k < t; ++k) p += std::exchange(pos[k][b], p);
    start[b + 1] = p;
  }
  parallel_for(t, [&](unsigned k) {
    std::vector<std::uint64_t> p = pos[k];  // this thread's own (as above)
    for (std::uint64_t i = n * k / t; i < n * (k + 1) / t; ++i) scratch[p[bucket(data[i])]++] = data[i];
  });
  lap("sort.cut");
  parallel_for(t, [&](unsigned b) {
    radix_sort<T, DigitsOf<T>>(scratch.data() + start[b], data.data() + start[b], start[b + 1] - start[b]);
  });
  data.swap(scratch);
  lap("sort.radix");
}

// Drops repeated records of sorted data, on `threads` threads.
template <class T>
void parallel_unique(Array<T>& data, unsigned threads) {
  const std::uint64_t n = data.size();
  const unsigned t = threads_for(n, threads);
  std::vector<std::uint64_t> kept(t + 1, 0);
  auto keep = [&](std::uint64_t i) { return i == 0 || less(data[i - 1], data[i]); };
  parallel_for(t, [&](unsigned k) {
    std::uint64_t c = 0;
    for (std::uint64_t i = n * k / t; i < n * (k + 1) / t; ++i) c += keep(i);
    kept[k + 1] = c;
  });
  for (unsigned k = 0; k < t; ++k) kept[k + 1] += kept[k];
  Array<T> out;
  out.resize(kept[t]);
  parallel_for(t, [&](unsigned k) {
    std::uint64_t p = kept[k];
    for (std::uint64_t i = n * k / t; i < n * (k + 1) / t; ++i)
      if (keep(i)) out[p++] = data[i];
  });
  data.swap(out);
}

// Calls fn(record) for the records [a, b) of `pieces` taken end to end (at: the pieces' first
// indexes, and their total last).
template <class T, class Fn>
void for_records(const std::vector<Array<T>>& pieces, const std::vector<std::uint64_t>& at, std::uint64_t a,
                 std::uint64_t b, Fn&& fn) {
  std::size_t p = static_cast<std::size_t>(std::upper_bound(at.begin(), at.end(), a) - at.begin()) - 1;
  for (std::uint64_t i = a; i < b; ++p) {
    const T* base = pieces[p].data();
    const std::uint64_t end = std::min(b, at[p + 1]);
    for (; i < end; ++i) fn(base[i - at[p]]);
  }
}

// Sends convert(record) to rank dest(record) for each record of `pieces` (arrays taken end to
// end), on `threads` threads, and drops the records whose dest is c.size; `pieces` is emptied.
template <class To, class From, class Dest, class Convert>
Array<To> route(const Comm& c, std::vector<Array<From>>& pieces, Dest dest, Convert convert, unsigned threads,
                std::uint64_t& sent_bytes) {
  std::vector<std::uint64_t> at(pieces.size() + 1, 0);
  for (std::size_t k = 0; k < pieces.size(); ++k) at[k + 1] = at[k] + pieces[k].size();
  const std::uint64_t n = at.back();
  const unsigned t = threads_for(n, threads);
  const auto R = static_cast<std::size_t>(c.size);
  std::vector<std::vector<std::uint64_t>> count(t);
  parallel_for(t, [&](unsigned k) {  // each thread's counters its own (as parallel_sort's)
    std::vector<std::uint64_t> mine(R + 1, 0);
    for_records(pieces, at, n * k / t, n * (k + 1) / t, [&](const From& e) { ++mine[dest(e)]; });
    count[k] = std::move(mine);
  });
  std::vector<std::uint64_t> counts(R, 0);
  std::vector<std::vector<std::uint64_t>> pos(t, std::vector<std::uint64_t>(R + 1, 0));
  std::uint64_t p = 0;
  for (std::size_t r = 0; r < R; ++r)
    for (unsigned k = 0; k < t; ++k) {
      pos[k][r] = p;
      p += count[k][r];
      counts[r] += count[k][r];
    }
  lap("route.count");
  Array<To> send;
  send.resize(p);
  parallel_for(t, [&](unsigned k) {
    std::vector<std::uint64_t> mine = pos[k];
    for_records(pieces, at, n * k / t, n * (k + 1) / t, [&](const From& e) {
      const std::size_t r = dest(e);
      if (r < R) send[mine[r]++] = convert(e);
    });
  });
  std::vector<Array<From>>().swap(pieces);
  sent_bytes += (p - counts[c.rank]) * sizeof(To);
  lap("route.scatter");
  Array<To> received = ranks::exchange<To>(c, send, counts);
  lap("route.exchange");
  return received;
}
template <class To, class From, class Dest, class Convert>
Array<To> route(const Comm& c, Array<From>& items, Dest dest, Convert convert, unsigned threads, std::uint64_t& sent_bytes) {
  std::vector<Array<From>> one;
  one.push_back(std::move(items));
  return route<To>(c, one, dest, convert, threads, sent_bytes);
}

// ---- the steps ----------------------------------------------------------------------------

class Distributed {
 public:
  Distributed(MPI_Comm comm, const PartitionOptions& options, Progress& progress)
      : c_(comm), o_(options), progress_(progress) {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, c_.rank, MPI_INFO_NULL, &node);
    int on_node = 1;
    MPI_Comm_size(node, &on_node);
    MPI_Comm_free(&node);
    // The node's cores and memory, shared by its ranks.
    threads_ = o_.threads ? o_.threads : std::max(1u, usable_cores() / static_cast<unsigned>(on_node));
    budget_ = o_.memory_budget ? o_.memory_budget : default_memory_budget() / static_cast<std::uint64_t>(on_node);
  }

  unsigned threads() const { return threads_; }

  // shared_stream: `source` reads this rank's share of the input (a text file's lines).
  DistributedReport run(EdgeSource& source, bool shared_stream, const std::string& source_file,
                        std::uint64_t source_size, const std::string& output) {
    shared_stream_ = shared_stream;
    // Each step frees arrays about the size of the next step's: reuse their touched pages.
    const ReuseFreedArrays reuse;
    // 1. read
    progress_.begin("read", 0, "edges");
    std::vector<Array<Pair>> pairs;  // pieces
    raw_id_t max_id = 0;
    lap("start");
    read_agreed(source, pairs, max_id);
    lap("read");
    input_edges_ = ranks::sum(c_, read_edges_);
    max_id = ranks::max(c_, max_id);
    // What no share can check alone (a Matrix Market size line's entry count, a WebGraph's arc
    // count and statistics), checked on the ranks' sums.
    std::vector<std::uint64_t> totals = source.share_totals();
    if (shared_stream_ && !totals.empty()) {
      ranks::allreduce(c_, totals.data(), totals.size());
      agreed(c_, [&] { source.check_share_totals(totals); });
    }
    std::string md5;
    agreed(c_, [&] { md5 = source.input_md5(); });
    if (shared_stream_) ranks::broadcast_string(c_, md5, 0);  // of the shares only rank 0's digests
    progress_.add(input_edges_);
    progress_.end(std::to_string(c_.size) + " ranks, at most " + human_count(double(ranks::max(c_, read_edges_))) +
                  " edges read on one");

    // 2. clean, 3. degrees
    if (max_id < (raw_id_t{1} << 32))
      clean_and_count<std::uint64_t>(pairs, max_id, [](const Pair& e) { return (e.u << 32) | e.v; });
    else
      clean_and_count<Pair>(pairs, max_id, [](const Pair& e) { return e; });

    // 4. orient, reorder, blocks
    reorder();
    GraphHeader header;
    header.parts = o_.parts;
    header.vertices = vertices_;
    header.edges = edges_;
    header.ordering = std::string(to_string(o_.order));
    header.source_file = source_file;
    header.source_size = source_size;
    header.source_md5 = md5;
    header.input_edges = input_edges_;
    header.encoding = o_.encoding;
    agreed(c_, [&] { carry_known_counts(o_, header); });
    std::optional<BlockFileWriter> writer;
    agreed(c_, [&] {
      if (c_.rank != 0) return;
      writer.emplace(output, header);
      std::vector<raw_id_t> map(vertices_);
      std::vector<std::uint32_t> degrees(vertices_);
      parallel_ranges(vertices_, threads_, [&](std::uint64_t a, std::uint64_t b) {
        for (std::uint64_t x = a; x < b; ++x) {
          map[new_id_[x]] = input_id_[x];
          degrees[new_id_[x]] = degree_[x];
        }
      });
      writer->write_vertex_map(map);
      writer->write_degrees(degrees);
    });
    release(input_id_);
    blocks();

    // 5. write
    std::vector<std::uint64_t> work = estimate();
    std::uint64_t max_degree = 0;
    write(writer ? &*writer : nullptr, output, max_degree);
    agreed(c_, [&] {
      if (!writer) return;
      writer->write_task_work(work);
      writer->set_max_degree(max_degree);
      writer->commit();
    });
    header.max_degree = max_degree;
    lap("commit");
    report_steps();
    DistributedReport report;
    report.header = header;
    report.ranks = c_.size;
    return report;
  }

 private:
  // read() on every rank, its errors agreed. A bad line of a text share is numbered from the
  // share's first line: the lines of the shares before it make it the file's line number.
  void read_agreed(EdgeSource& source, std::vector<Array<Pair>>& pairs, raw_id_t& max_id) {
    std::optional<ShareLineError> bad;
    std::exception_ptr other;
    try {
      max_id = read(source, pairs);
    } catch (const ShareLineError& e) {
      bad = e;
    } catch (...) {
      other = std::current_exception();
    }
    const std::uint64_t before = ranks::sum_below(c_, bad ? bad->line() - 1 : source.lines_read());
    agreed(c_, [&] {
      if (other) std::rethrow_exception(other);
      if (bad) throw Error(bad->located(before));
    });
  }

  // Reads this rank's share as canonical pairs (a <= b: the clean step drops self-loops), in
  // pieces taken end to end; returns the largest id.
  raw_id_t read(EdgeSource& source, std::vector<Array<Pair>>& out) {
    raw_id_t max_id = 0;
    if (const IndexedEdges* indexed = source.indexed()) {
      const std::uint64_t E = indexed->edge_count();
      const std::uint64_t first = E * std::uint64_t(c_.rank) / std::uint64_t(c_.size);
      const std::uint64_t last = E * std::uint64_t(c_.rank + 1) / std::uint64_t(c_.size);
      read_edges_ = last - first;
      check_memory(read_edges_, 0);
      Array<Pair>& all = out.emplace_back();
      all.resize(read_edges_);
      const unsigned t = threads_for(read_edges_, threads_);
      std::vector<raw_id_t> most(t, 0);
      parallel_for(t, [&](unsigned k) {
        const std::uint64_t a = read_edges_ * k / t, b = read_edges_ * (k + 1) / t;
        constexpr std::uint64_t kBatch = 1 << 16;
        std::vector<RawEdge> batch(kBatch);
        for (std::uint64_t at = a; at < b; at += kBatch) {
          const std::uint64_t m = std::min(kBatch, b - at);
          indexed->edges_at(first + at, m, batch.data());
          for (std::uint64_t i = 0; i < m; ++i) {
            const RawEdge e = batch[i];
            all[at + i] = e.u <= e.v ? Pair{e.u, e.v} : Pair{e.v, e.u};
            most[k] = std::max({most[k], e.u, e.v});
          }
        }
      });
      for (raw_id_t m : most) max_id = std::max(max_id, m);
      check_memory(read_edges_, max_id);
      return max_id;
    }
    // A stream: a share (text, WebGraph) is this rank's own; of any other stream every rank
    // parses all of it and keeps every R-th batch.
    const std::uint64_t every = shared_stream_ ? 1 : std::uint64_t(c_.size);
    const std::uint64_t mine = shared_stream_ ? 0 : std::uint64_t(c_.rank);
    // Batches are kept as they come, as pieces: growing one array by push_back copied it on one
    // thread into fresh pages at every doubling.
    std::vector<RawEdge> batch;
    for (std::uint64_t b = 0; source.next_batch(batch, std::size_t{1} << 20); ++b) {
      if (b % every != mine) continue;
      Array<Pair>& k = out.emplace_back();
      k.resize(batch.size());
      for (std::size_t i = 0; i < batch.size(); ++i) {
        const RawEdge e = batch[i];
        k[i] = e.u <= e.v ? Pair{e.u, e.v} : Pair{e.v, e.u};
        max_id = std::max({max_id, e.u, e.v});
      }
      read_edges_ += batch.size();
      check_memory(read_edges_, 0);
    }
    check_memory(read_edges_, max_id);
    return max_id;
  }

  // The share's records (about 32 bytes an edge at the exchanges) and the table over the
  // input ids (4 bytes each up to the largest) must fit this rank's budget.
  void check_memory(std::uint64_t edges, raw_id_t max_id) const {
    const unsigned __int128 need =
        static_cast<unsigned __int128>(edges) * 32 + (dense_ids(max_id) ? static_cast<unsigned __int128>(max_id) * 4 : 0);
    if (need <= budget_) return;
    throw Error("rank " + std::to_string(c_.rank) + " of " + std::to_string(c_.size) + " needs more than its memory budget " +
                mib(budget_) + " for its share of " + std::to_string(edges) + " edges (32 bytes each)" +
                (dense_ids(max_id) ? " and a table over the input ids up to " + std::to_string(max_id) + " (4 bytes each)" : "") +
                ": run more ranks (on more nodes), give each more --memory-budget, or partition with one process, whose "
                "runs go to disk");
  }

  // `pairs`: canonical, a self-loop where the input had one (dropped here).
  template <class T, class Convert>
  void clean_and_count(std::vector<Array<Pair>>& pairs, raw_id_t max_id, Convert convert) {
    progress_.begin("clean", input_edges_, "edges");
    const auto R = static_cast<std::size_t>(c_.size);
    Array<T> mine = route<T>(
        c_, pairs, [&](const Pair& e) { return e.u == e.v ? R : static_cast<std::size_t>(hash_of(convert(e)) % R); },
        convert, threads_, sent_bytes_);
    parallel_sort(mine, threads_);
    parallel_unique(mine, threads_);
    lap("clean.unique");
    wait_for_ranks("clean");
    local_edges_ = mine.size();
    edges_ = ranks::sum(c_, local_edges_);
    progress_.add(input_edges_);
    progress_.end(mib(ranks::sum(c_, sent_bytes_)) + " sent between the ranks, at most " +
                  mib(ranks::max(c_, sent_bytes_)) + " by one");

    progress_.begin("degrees", 0, "vertices");
    std::optional<pipeline::IdIndex> search;
    if (dense_ids(max_id)) {
      // Degrees per input id, summed over the ranks; the compact ids are the ids of degree > 0,
      // ascending, and index_ maps an input id to its compact id (in place of its degree).
      const std::uint64_t M = max_id + 1;
      assign_zeros(index_, M, threads_);
      // The records are sorted by their first id: one add per run of it (a hub's thousands of
      // edges would otherwise be thousands of atomic adds to one counter from every thread).
      parallel_ranges(mine.size(), threads_, [&](std::uint64_t a, std::uint64_t b) {
        for (std::uint64_t i = a; i < b;) {
          const raw_id_t first = first_of(mine[i]);
          std::uint32_t run = 0;
          for (; i < b && first_of(mine[i]) == first; ++i, ++run)
            std::atomic_ref<std::uint32_t>(index_[second_of(mine[i])]).fetch_add(1, std::memory_order_relaxed);
          std::atomic_ref<std::uint32_t>(index_[first]).fetch_add(run, std::memory_order_relaxed);
        }
      });
      lap("degrees.count");
      ranks::allreduce(c_, index_.data(), M);
      lap("degrees.allreduce");
      const unsigned t = threads_for(M, threads_);
      std::vector<std::uint64_t> at(t + 1, 0);
      parallel_for(t, [&](unsigned k) {
        std::uint64_t v = 0;
        for (std::uint64_t id = M * k / t; id < M * (k + 1) / t; ++id) v += index_[id] != 0;
        at[k + 1] = v;
      });
      for (unsigned k = 0; k < t; ++k) at[k + 1] += at[k];
      vertices_ = at[t];
      check_vertex_count();
      input_id_.resize(vertices_);
      degree_.resize(vertices_);
      parallel_for(t, [&](unsigned k) {
        std::uint64_t p = at[k];
        for (std::uint64_t id = M * k / t; id < M * (k + 1) / t; ++id)
          if (const std::uint32_t d = index_[id]) {
            input_id_[p] = id;
            degree_[p] = d;
            index_[id] = static_cast<std::uint32_t>(p++);
          }
      });
    } else {
      // Sparse ids: every rank's ids with their degrees on this rank (id, degree) ...
      Array<Pair> ends;
      ends.resize(2 * mine.size());
      parallel_ranges(mine.size(), threads_, [&](std::uint64_t a, std::uint64_t b) {
        for (std::uint64_t i = a; i < b; ++i) {
          ends[2 * i] = {first_of(mine[i]), 1};
          ends[2 * i + 1] = {second_of(mine[i]), 1};
        }
      });
      parallel_sort(ends, threads_);
      fold_degrees(ends);
      std::vector<std::uint64_t> sizes(c_.size, 0);
      sizes[c_.rank] = ends.size();
      ranks::allreduce(c_, sizes.data(), sizes.size());
      Array<Pair> all;
      std::uint64_t total = 0;
      for (std::uint64_t x : sizes) total += x;
      all.resize(total);
      for (int r = 0; r < c_.size; ++r) {
        const std::uint64_t at = std::accumulate(sizes.begin(), sizes.begin() + r, std::uint64_t{0});
        if (r == c_.rank) std::copy(ends.begin(), ends.end(), all.begin() + static_cast<std::ptrdiff_t>(at));
        ranks::broadcast(c_, all.data() + at, sizes[r], r);
      }
      release(ends);
      // ... then summed per id, in id order: the compact ids.
      parallel_sort(all, threads_);
      fold_degrees(all);
      vertices_ = all.size();
      check_vertex_count();
      input_id_.resize(vertices_);
      degree_.resize(vertices_);
      parallel_ranges(vertices_, threads_, [&](std::uint64_t a, std::uint64_t b) {
        for (std::uint64_t x = a; x < b; ++x) {
          input_id_[x] = all[x].u;
          degree_[x] = static_cast<vid_t>(all[x].v);
        }
      });
      release(all);
      search.emplace(std::span<const raw_id_t>(input_id_.data(), vertices_), 0, threads_);
    }
    auto compact = [&](raw_id_t id) { return search ? (*search)(id) : index_[id]; };
    lap("degrees.ids");
    // Each rank's unique edges in compact ids, oriented: from lower to higher (degree, id).
    oriented_.resize(mine.size());
    parallel_ranges(mine.size(), threads_, [&](std::uint64_t a, std::uint64_t b) {
      for (std::uint64_t i = a; i < b; ++i) {
        const vid_t x = compact(first_of(mine[i])), y = compact(second_of(mine[i]));
        oriented_[i] = lower(x, y) ? (std::uint64_t{x} << 32 | y) : (std::uint64_t{y} << 32 | x);
      }
    });
    release(mine);
    release(index_);
    lap("degrees.orient");
    wait_for_ranks("degrees");
    progress_.add(vertices_);
    progress_.end(search ? "ids gathered from every rank" : "degree table over the input ids");
  }

  // Whether the ids are counted in a table over [0, max_id] (4 bytes an id, within a quarter
  // of the budget), else gathered from every rank and searched.
  bool dense_ids(raw_id_t max_id) const {
    return max_id < (raw_id_t{1} << 40) && (max_id + 1) * 4 <= budget_ / 4;
  }

  // Sorted (id, count) records -> one record per id with the counts summed.
  void fold_degrees(Array<Pair>& records) {
    std::uint64_t p = 0;
    for (std::uint64_t i = 0; i < records.size(); ++i) {
      if (p > 0 && records[p - 1].u == records[i].u) records[p - 1].v += records[i].v;
      else records[p++] = records[i];
    }
    records.resize(p);
  }

  void check_vertex_count() const {
    if (vertices_ > kMaxVertices)
      throw Error("the graph has " + std::to_string(vertices_) + " non-isolated vertices; at most " +
                  std::to_string(kMaxVertices) + " (32-bit ids) are supported");
  }

  // One line: each step's seconds on the slowest and the fastest rank (a collective).
  void report_steps() {
    const auto& steps = laps().steps();
    std::vector<double> most(steps.size()), least(steps.size());
    for (std::size_t k = 0; k < steps.size(); ++k) most[k] = least[k] = steps[k].second;
    MPI_Allreduce(MPI_IN_PLACE, most.data(), static_cast<int>(most.size()), MPI_DOUBLE, MPI_MAX, c_.comm);
    MPI_Allreduce(MPI_IN_PLACE, least.data(), static_cast<int>(least.size()), MPI_DOUBLE, MPI_MIN, c_.comm);
    if (c_.rank != 0 || progress_.mode() == Progress::Mode::Off) return;
    std::string line = "[partition] steps, s on the slowest / fastest rank:";
    char buffer[96];
    for (std::size_t k = 0; k < steps.size(); ++k) {
      std::snprintf(buffer, sizeof buffer, " %s %.2f/%.2f", steps[k].first.c_str(), most[k], least[k]);
      line += buffer;
    }
    progress_.message(line);
  }

  // Ends a step's laps with the wait for the slowest rank, a lap of its own (else the next
  // step's first lap, at its first collective, holds it).
  void wait_for_ranks(const std::string& step) {
    MPI_Barrier(c_.comm);
    lap(step + ".wait");
  }

  bool lower(vid_t a, vid_t b) const { return degree_[a] != degree_[b] ? degree_[a] < degree_[b] : a < b; }

  void reorder() {
    progress_.begin("reorder", vertices_, "vertices");
    const std::uint64_t V = vertices_;
    if (o_.order == VertexOrder::Degree) {
      new_id_ = degree_order(std::span<const vid_t>(degree_.data(), V), threads_);
    } else {
      // TRUST's collective order: out-degrees and collective degrees summed over the ranks.
      Array<vid_t> outdeg;
      assign_zeros(outdeg, V, threads_);
      parallel_ranges(oriented_.size(), threads_, [&](std::uint64_t a, std::uint64_t b) {
        for (std::uint64_t i = a; i < b; ++i)
          std::atomic_ref<vid_t>(outdeg[oriented_[i] >> 32]).fetch_add(1, std::memory_order_relaxed);
      });
      ranks::allreduce(c_, outdeg.data(), V);
      Array<std::uint64_t> collective;
      assign_zeros(collective, V, threads_);
      parallel_ranges(oriented_.size(), threads_, [&](std::uint64_t a, std::uint64_t b) {
        for (std::uint64_t i = a; i < b; ++i)
          std::atomic_ref<std::uint64_t>(collective[oriented_[i] >> 32])
              .fetch_add(outdeg[oriented_[i] & 0xFFFFFFFFu], std::memory_order_relaxed);
      });
      ranks::allreduce(c_, collective.data(), V);
      parallel_ranges(V, threads_, [&](std::uint64_t a, std::uint64_t b) {
        for (std::uint64_t x = a; x < b; ++x) collective[x] += outdeg[x];
      });
      new_id_ = collective_order(collective, outdeg, threads_);
    }
    lap("reorder");
    progress_.add(V);
    progress_.end(std::string(to_string(o_.order)) + " order");
  }

  // Rows of class i in new ids [lo, hi): local rows [first, last).
  std::pair<std::uint64_t, std::uint64_t> rows_of(std::uint64_t lo, std::uint64_t hi, std::uint64_t i) const {
    const std::uint64_t n = o_.parts;
    auto first_at = [&](std::uint64_t x) { return x <= i ? 0 : (x - i + n - 1) / n; };
    return {first_at(lo), first_at(hi)};
  }

  void blocks() {
    progress_.begin("blocks", edges_, "edges");
    const std::uint64_t V = vertices_, n = o_.parts;
    // New ids, then the rows' owners: ranges of buckets of new ids of about equal work, an edge
    // counted 1 and a row n / 2 (its n offsets: in degree order the low ids are most of the rows).
    parallel_ranges(oriented_.size(), threads_, [&](std::uint64_t a, std::uint64_t b) {
      for (std::uint64_t i = a; i < b; ++i)
        oriented_[i] = std::uint64_t{new_id_[oriented_[i] >> 32]} << 32 | new_id_[oriented_[i] & 0xFFFFFFFFu];
    });
    release(new_id_);
    release(degree_);
    lap("blocks.relabel");
    // Packed blocks: each rank's rows of every block start at a row group (a multiple of
    // kPackedGroupRows), so that the ranks code whole groups, as one process does.
    const std::uint64_t align = o_.encoding == BlockEncoding::packed ? kPackedGroupRows * n : 1;
    const std::uint64_t width = (std::max<std::uint64_t>(1, (V + (std::uint64_t{1} << 16) - 1) >> 16) + align - 1) / align * align;
    const std::uint64_t buckets = std::max<std::uint64_t>(1, (V + width - 1) / width);
    std::vector<std::uint64_t> per_bucket(buckets, 0);
    {
      const unsigned t = threads_for(oriented_.size(), threads_);
      std::vector<std::vector<std::uint64_t>> mine(t, std::vector<std::uint64_t>(buckets, 0));
      parallel_for(t, [&](unsigned k) {
        const std::uint64_t n_ = oriented_.size();
        for (std::uint64_t e = n_ * k / t; e < n_ * (k + 1) / t; ++e) ++mine[k][(oriented_[e] >> 32) / width];
      });
      for (const auto& m : mine)
        for (std::uint64_t b = 0; b < buckets; ++b) per_bucket[b] += m[b];
    }
    ranks::allreduce(c_, per_bucket.data(), buckets);
    lap("blocks.histogram");
    auto work_of = [&](std::uint64_t b) {  // twice the bucket's work
      const std::uint64_t rows = std::min(V, (b + 1) * width) - std::min(V, b * width);
      return 2 * per_bucket[b] + n * rows;
    };
    std::uint64_t total = 0;
    for (std::uint64_t b = 0; b < buckets; ++b) total += work_of(b);
    std::vector<int> owner(buckets);
    lo_.assign(c_.size + 1, V);
    lo_[0] = 0;
    std::uint64_t before = 0;
    int r = 0;
    for (std::uint64_t b = 0; b < buckets; ++b) {
      while (r + 1 < c_.size && before >= total * std::uint64_t(r + 1) / std::uint64_t(c_.size)) {
        ++r;
        lo_[r] = std::min(V, b * width);
      }
      owner[b] = r;
      before += work_of(b);
    }
    for (int q = r + 1; q < c_.size; ++q) lo_[q] = V;
    Array<std::uint64_t> rows = route<std::uint64_t>(
        c_, oriented_, [&](std::uint64_t key) { return static_cast<std::size_t>(owner[(key >> 32) / width]); },
        [](std::uint64_t key) { return key; }, threads_, sent_bytes_);
    parallel_sort(rows, threads_);
    // This rank's rows of every block: neighbours in (row, column) order, the sort's.
    const std::uint64_t lo = lo_[c_.rank], hi = lo_[c_.rank + 1];
    slices_.assign(n * n, {});
    for (std::uint64_t i = 0; i < n; ++i)
      for (std::uint64_t j = 0; j < n; ++j) {
        Slice& s = slices_[i * n + j];
        const auto [first, last] = rows_of(lo, hi, i);
        s.first_row = first;
        assign_zeros(s.offsets, last - first + 1, threads_);
      }
    const std::uint64_t m = rows.size();
    const unsigned t = threads_for(m, threads_);
    std::vector<std::vector<std::uint64_t>> count(t, std::vector<std::uint64_t>(n * n, 0));
    // The records are sorted by row: one add per row and block (a hub row's thousands of
    // neighbours were as many atomic adds to one counter).
    parallel_for(t, [&](unsigned k) {
      std::vector<std::uint64_t> run(n, 0);
      const std::uint64_t last = m * (k + 1) / t;
      for (std::uint64_t e = m * k / t; e < last;) {
        const std::uint64_t x = rows[e] >> 32, i = x % n;
        for (; e < last && rows[e] >> 32 == x; ++e) ++run[(rows[e] & 0xFFFFFFFFu) % n];
        for (std::uint64_t j = 0; j < n; ++j) {
          if (run[j] == 0) continue;
          Slice& s = slices_[i * n + j];
          count[k][i * n + j] += run[j];
          std::atomic_ref<eoff_t>(s.offsets[x / n - s.first_row + 1]).fetch_add(run[j], std::memory_order_relaxed);
          run[j] = 0;
        }
      }
    });
    std::vector<std::vector<std::uint64_t>> pos(t, std::vector<std::uint64_t>(n * n, 0));
    for (std::uint64_t b = 0; b < n * n; ++b) {
      std::uint64_t p = 0;
      for (unsigned k = 0; k < t; ++k) pos[k][b] = std::exchange(p, p + count[k][b]);
      slices_[b].neighbors.resize(p);
    }
    parallel_for(t, [&](unsigned k) {
      std::vector<std::uint64_t> mine = pos[k];  // this thread's own (as parallel_sort's)
      for (std::uint64_t e = m * k / t; e < m * (k + 1) / t; ++e) {
        const std::uint64_t x = rows[e] >> 32, y = rows[e] & 0xFFFFFFFFu, b = (x % n) * n + y % n;
        slices_[b].neighbors[mine[b]++] = static_cast<vid_t>(y / n);
      }
    });
    release(rows);
    lap("blocks.rows");
    parallel_ranges(n * n, threads_, [&](std::uint64_t first, std::uint64_t last) {
      for (std::uint64_t b = first; b < last; ++b)
        std::partial_sum(slices_[b].offsets.begin(), slices_[b].offsets.end(), slices_[b].offsets.begin());
    });
    lap("blocks.offsets");
    wait_for_ranks("blocks");
    progress_.add(edges_);
    progress_.end(mib(ranks::sum(c_, sent_bytes_)) + " sent between the ranks in all, at most " +
                  mib(ranks::max(c_, sent_bytes_)) + " by one");
  }

  // The task work of every (i, j, k), as estimate_task_work computes it from whole blocks:
  // each rank sums over its rows, with every row's length per class from the ranks that own them.
  std::vector<std::uint64_t> estimate() {
    progress_.begin("estimate", 0, "tasks");
    const std::uint64_t n = o_.parts, V = vertices_;
    Array<std::uint32_t> length;  // length[y * n + k]: row y's neighbours of class k
    length.resize(V * n);
    // This rank's rows y in order, each row's n lengths together: one pass over its part (a
    // pass per block touched every cache line of it n * n times).
    const std::uint64_t lo = lo_[c_.rank], hi = lo_[c_.rank + 1];
    parallel_ranges(hi - lo, threads_, [&](std::uint64_t a, std::uint64_t b) {
      for (std::uint64_t y = lo + a; y < lo + b; ++y) {
        const std::uint64_t i = y % n;
        for (std::uint64_t k = 0; k < n; ++k) {
          const Slice& s = slices_[i * n + k];
          const std::uint64_t r = y / n - s.first_row;
          length[y * n + k] = static_cast<std::uint32_t>(s.offsets[r + 1] - s.offsets[r]);
        }
      }
    });
    lap("estimate.lengths");
    std::vector<std::uint64_t> part(c_.size + 1);
    for (int r = 0; r <= c_.size; ++r) part[r] = lo_[r] * n;
    ranks::allgather_ranges(c_, length.data(), part);
    lap("estimate.allgather");
    std::vector<std::uint64_t> work(n * n * n, 0);
    std::mutex m;
    parallel_for(threads_, [&](unsigned t) {
      std::vector<std::uint64_t> mine(n * n * n, 0);
      for (std::uint64_t b = 0; b < n * n; ++b) {
        const std::uint64_t i = b / n, j = b % n;
        const Slice& s = slices_[b];
        const std::uint64_t nnz = s.neighbors.size();
        for (std::uint64_t e = nnz * t / threads_; e < nnz * (t + 1) / threads_; ++e) {
          const std::uint64_t y = std::uint64_t{s.neighbors[e]} * n + j;
          for (std::uint64_t k = 0; k < n; ++k) mine[(i * n + j) * n + k] += length[y * n + k];
        }
      }
      std::lock_guard lock(m);
      for (std::size_t w = 0; w < work.size(); ++w) work[w] += mine[w];
    });
    release(length);
    lap("estimate.sum");
    wait_for_ranks("estimate");
    std::vector<std::uint64_t> nnz(n * n);
    for (std::uint64_t b = 0; b < n * n; ++b) nnz[b] = slices_[b].neighbors.size();
    ranks::allreduce(c_, work.data(), work.size());
    ranks::allreduce(c_, nnz.data(), nnz.size());
    for (std::uint64_t i = 0; i < n; ++i)
      for (std::uint64_t j = 0; j < n; ++j)
        for (std::uint64_t k = 0; k < n; ++k) work[(i * n + j) * n + k] += nnz[i * n + k];
    progress_.add(n * n * n);
    progress_.end();
    return work;
  }

  // Rank 0 places every block in the file (its group and datasets, in block order); then every
  // rank writes its rows of each block at their place itself, on its threads, and hashes the
  // checksum pieces that lie within its bytes; rank 0 reads back the few pieces that straddle
  // two ranks and records each block's figures. No rank holds a whole block.
  // `output` names the block file in messages (every rank writes into its temporary).
  void write(BlockFileWriter* writer, const std::string& output, std::uint64_t& max_degree) {
    progress_.begin("write", edges_, "edges");
    const std::uint64_t n = o_.parts, V = vertices_, R = static_cast<std::uint64_t>(c_.size), blocks = n * n;
    const std::uint64_t me = static_cast<std::uint64_t>(c_.rank);
    std::vector<std::uint64_t> nnz(R * blocks, 0);  // nnz[r * blocks + b]: rank r's neighbours in block b
    for (std::uint64_t b = 0; b < blocks; ++b) nnz[me * blocks + b] = slices_[b].neighbors.size();
    ranks::allreduce(c_, nnz.data(), nnz.size());
    auto rows_of_class = [&](std::uint64_t i) { return rows_in_class(V, o_.parts, static_cast<std::uint32_t>(i)); };
    std::vector<std::uint64_t> total(blocks, 0), base(blocks, 0);  // base: the neighbours of lower ranks
    for (std::uint64_t b = 0; b < blocks; ++b)
      for (std::uint64_t r = 0; r < R; ++r) {
        total[b] += nnz[r * blocks + b];
        if (r < me) base[b] += nnz[r * blocks + b];
      }
    // Packed blocks: each rank codes its rows of each block (whole row groups: blocks() aligned
    // the ranks' rows), and the words of lower ranks come first.
    const bool packed = o_.encoding == BlockEncoding::packed;
    std::vector<PackedBlock> coded(packed ? blocks : 0);
    std::vector<std::uint64_t> words(packed ? R * blocks : 0, 0), word_total(blocks, 0), word_base(blocks, 0);
    if (packed) {
      agreed(c_, [&] {
        for (std::uint64_t b = 0; b < blocks; ++b) {
          const Slice& sl = slices_[b];
          CsrSpan span;
          span.id = {static_cast<std::uint32_t>(b / n), static_cast<std::uint32_t>(b % n)};
          span.rows = sl.offsets.size() - 1;
          span.cols = rows_of_class(b % n);
          span.offsets = sl.offsets.data();
          span.neighbors = sl.neighbors.data();
          span.nnz = sl.neighbors.size();
          coded[b] = pack_block(span, threads_);
          words[me * blocks + b] = coded[b].words.size();
        }
      });
      ranks::allreduce(c_, words.data(), words.size());
      for (std::uint64_t b = 0; b < blocks; ++b)
        for (std::uint64_t r = 0; r < R; ++r) {
          word_total[b] += words[r * blocks + b];
          if (r < me) word_base[b] += words[r * blocks + b];
        }
      lap("write.pack");
    }
    // 1. Where each block's two arrays start in the file.
    std::vector<std::uint64_t> address(2 * blocks, 0);
    std::string temp;
    agreed(c_, [&] {
      if (c_.rank != 0) return;
      for (std::uint64_t b = 0; b < blocks; ++b) {
        const BlockId id{static_cast<std::uint32_t>(b / n), static_cast<std::uint32_t>(b % n)};
        std::tie(address[2 * b], address[2 * b + 1]) =
            packed ? writer->allocate_packed_block(id, rows_of_class(b / n), rows_of_class(b % n), total[b], word_total[b])
                   : writer->allocate_block(id, rows_of_class(b / n), rows_of_class(b % n), total[b]);
      }
      temp = writer->temp_path();
    });
    ranks::broadcast(c_, address.data(), address.size(), 0);
    std::uint64_t length = temp.size();
    ranks::broadcast(c_, &length, 1, 0);
    temp.resize(length);
    ranks::broadcast(c_, temp.data(), length, 0);
    lap("write.place");
    // 2. Each rank's rows at their place. Pieces: each block's offsets', then its neighbours'.
    constexpr std::uint64_t P = kChecksumPieceBytes;
    std::vector<std::uint64_t> first_piece(2 * blocks + 1, 0), bytes(2 * blocks, 0);
    for (std::uint64_t b = 0; b < blocks; ++b) {
      bytes[2 * b] = packed ? packed_index_entries(rows_of_class(b / n)) * sizeof(std::uint64_t)
                            : (rows_of_class(b / n) + 1) * sizeof(eoff_t);
      bytes[2 * b + 1] = packed ? word_total[b] * sizeof(std::uint32_t) : total[b] * sizeof(vid_t);
      first_piece[2 * b + 1] = first_piece[2 * b] + (bytes[2 * b] + P - 1) / P;
      first_piece[2 * b + 2] = first_piece[2 * b + 1] + (bytes[2 * b + 1] + P - 1) / P;
    }
    std::vector<std::uint64_t> pieces(first_piece.back(), 0), known(first_piece.back(), 0);
    std::vector<std::uint64_t> with_two(blocks, 0), longest(blocks, 0);
    agreed(c_, [&] {
      const int fd = ::open(temp.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0)
        throw Error("rank " + std::to_string(c_.rank) + " cannot open '" + temp + "' to write its rows: " +
                    std::strerror(errno) + " (every rank's node must see the output's directory)");
      struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
      } closer{fd};
      std::atomic<std::uint64_t> next{0};
      parallel_for(static_cast<unsigned>(std::min<std::uint64_t>(threads_, 2 * blocks)), [&](unsigned) {
        for (std::uint64_t item; (item = next.fetch_add(1)) < 2 * blocks;) {
          const std::uint64_t b = item / 2;
          Slice& s = slices_[b];
          const unsigned char* data = nullptr;
          std::uint64_t at = 0, size = 0;  // this rank's bytes [at, at + size) of the array
          if (item % 2 == 0) {
            const std::uint64_t rows = s.offsets.size() - 1;
            for (std::uint64_t r = 0; r < rows; ++r) {
              const std::uint64_t d = s.offsets[r + 1] - s.offsets[r];
              with_two[b] += d >= 2;
              longest[b] = std::max(longest[b], d);
            }
          }
          if (packed && item % 2 == 0) {
            // The index: this rank's groups' pairs, counted from the block's start; the last
            // rank also writes the closing pair (the totals).
            std::vector<std::uint64_t>& index = coded[b].index;
            const std::uint64_t groups = index.size() / 2 - 1;
            for (std::uint64_t g = 0; g < groups; ++g) index[2 * g] += word_base[b], index[2 * g + 1] += base[b];
            index[2 * groups] = word_total[b];
            index[2 * groups + 1] = total[b];
            if (me + 1 < R) index.resize(2 * groups);
            data = reinterpret_cast<const unsigned char*>(index.data());
            at = 2 * packed_groups(s.first_row) * sizeof(std::uint64_t);
            size = index.size() * sizeof(std::uint64_t);
          } else if (packed) {
            data = reinterpret_cast<const unsigned char*>(coded[b].words.data());
            at = word_base[b] * sizeof(std::uint32_t);
            size = coded[b].words.size() * sizeof(std::uint32_t);
          } else if (item % 2 == 0) {
            // Offsets: entry 0 from rank 0, then each rank's rows' ends, counted from the block's start.
            for (eoff_t& o : s.offsets) o += base[b];
            const std::uint64_t skip = c_.rank == 0 ? 0 : 1;
            data = reinterpret_cast<const unsigned char*>(s.offsets.data() + skip);
            at = (s.first_row + skip) * sizeof(eoff_t);
            size = (s.offsets.size() - skip) * sizeof(eoff_t);
          } else {
            data = reinterpret_cast<const unsigned char*>(s.neighbors.data());
            at = base[b] * sizeof(vid_t);
            size = s.neighbors.size() * sizeof(vid_t);
          }
          if (size == 0) continue;
          runs::pwrite_output(fd, data, size, address[item] + at, output);
          // The pieces wholly within [at, at + size).
          for (std::uint64_t k = (at + P - 1) / P; k * P < at + size; ++k) {
            const std::uint64_t end = std::min((k + 1) * P, bytes[item]);
            if (end > at + size) break;
            pieces[first_piece[item] + k] = checksum_piece(data + (k * P - at), end - k * P, k);
            known[first_piece[item] + k] = 1;
          }
        }
      });
      if (::fdatasync(fd) != 0) runs::throw_output_write_error(output, errno);
    });
    ranks::allreduce(c_, pieces.data(), pieces.size());
    ranks::allreduce(c_, known.data(), known.size());
    ranks::allreduce(c_, with_two.data(), with_two.size());
    ranks::allreduce(c_, longest.data(), longest.size(), MPI_MAX);
    lap("write.rows");
    // 3. The pieces that straddle ranks, read back, and each block's checksum (rank 0).
    agreed(c_, [&] {
      if (c_.rank != 0) return;
      const int fd = ::open(temp.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) throw Error("cannot read back '" + temp + "': " + std::strerror(errno));
      struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
      } closer{fd};
      std::vector<unsigned char> piece(P);
      for (std::uint64_t item = 0; item < 2 * blocks; ++item)
        for (std::uint64_t k = 0; first_piece[item] + k < first_piece[item + 1]; ++k) {
          if (known[first_piece[item] + k]) continue;
          const std::uint64_t size = std::min(P, bytes[item] - k * P);
          runs::pread_all(fd, piece.data(), size, address[item] + k * P, temp);
          pieces[first_piece[item] + k] = checksum_piece(piece.data(), size, k);
        }
      for (std::uint64_t b = 0; b < blocks; ++b) {
        auto digest = [&](std::uint64_t item) {
          return combine_pieces(bytes[item], std::vector<std::uint64_t>(pieces.begin() + first_piece[item],
                                                                        pieces.begin() + first_piece[item + 1]));
        };
        const std::uint64_t checksum = block_checksum(rows_of_class(b / n), rows_of_class(b % n), digest(2 * b), digest(2 * b + 1));
        writer->block_written({static_cast<std::uint32_t>(b / n), static_cast<std::uint32_t>(b % n)},
                              checked_cast<std::uint32_t>(longest[b], "max_degree"), with_two[b], checksum);
      }
    });
    max_degree = 0;
    for (std::uint64_t d : longest) max_degree = std::max(max_degree, d);
    slices_.clear();
    coded.clear();
    lap("write.checksums");
    progress_.add(edges_);
    progress_.end();
  }

  struct Slice {  // this rank's rows [first_row, first_row + offsets.size() - 1) of one block
    std::uint64_t first_row = 0;
    Array<eoff_t> offsets;  // from 0
    Array<vid_t> neighbors;
  };

  Comm c_;
  const PartitionOptions& o_;
  Progress& progress_;
  unsigned threads_ = 1;
  bool shared_stream_ = false;  // the source is this rank's share of the input (text, WebGraph)
  std::uint64_t budget_ = 0;
  std::uint64_t read_edges_ = 0, input_edges_ = 0, local_edges_ = 0, edges_ = 0, vertices_ = 0, sent_bytes_ = 0;
  Array<std::uint32_t> index_;  // input id -> compact id
  Array<raw_id_t> input_id_;    // compact id -> input id
  Array<vid_t> degree_, new_id_;
  Array<std::uint64_t> oriented_;  // this rank's unique edges: x << 32 | y, compact ids, then new ids
  std::vector<std::uint64_t> lo_;  // rank r owns the rows of new ids [lo_[r], lo_[r + 1])
  std::vector<Slice> slices_;      // row-major: slices_[i * n + j] is this rank's part of P(i,j)
};

}  // namespace

bool started_by_mpi_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(name)) return true;
  return false;
}

DistributedReport partition_distributed(MPI_Comm comm, const DistributedInput& input, const std::string& output,
                                        const PartitionOptions& options) {
  const Comm c(comm);
  check_parts(options.parts);
  PartitionOptions o = options;
  std::unique_ptr<EdgeSource> source;
  std::string source_file;
  std::uint64_t source_size = 0;
  Generator generator;
  agreed(c, [&] {
    if (input.generator) {
      generator = make_generator(*input.generator, options.threads);
      source_file = generator.spec;
      o.known = generator_known_counts(generator);
    } else {
      if (c.rank == 0) output::refuse_same_file(output, "--output", input_paths(input.path, "--input", "a file --input reads"));
      source_file = input.path;
      std::error_code ec;
      source_size = std::filesystem::file_size(input.path, ec);
      if (ec) source_size = 0;
      o.known = read_known_sidecar(input.path);
    }
    if (c.rank == 0) output::check_writable(output, "--output", /*needs_regular_file=*/true);
  });
  Progress progress(c.rank == 0 ? Progress::mode_for(options.progress) : Progress::Mode::Off, "[partition]",
                    options.debug_memory);
  Distributed job(comm, o, progress);
  // An uncompressed edge list or Matrix Market file is read in byte ranges, a share of whole
  // lines per rank, and a WebGraph BV graph in runs of node ranges; other streams are parsed
  // whole on every rank.
  bool shares = false;
  agreed(c, [&] { shares = c.rank == 0 && c.size > 1 && !input.generator && splits_into_shares(input.path, input.format); });
  shares = ranks::max(c, shares ? 1 : 0) != 0;  // rank 0's finding
  agreed(c, [&] {
    if (input.generator) return;
    EdgeFileOptions read{.threads = job.threads(), .progress = false};
    if (shares) read.share = static_cast<unsigned>(c.rank), read.shares = static_cast<unsigned>(c.size);
    const InputFormat format =
        shares && input.format == InputFormat::Auto ? detect_input_format(input.path) : input.format;
    source = open_edge_file(input.path, format, read);
  });
  EdgeSource& edges = input.generator ? *generator.source : *source;
  DistributedReport report = job.run(edges, shares, source_file, source_size, output);
  return report;
}

}  // namespace tricount
