// CPU backend: counts a task by intersecting sorted rows, edge by edge (GAPBS tc style).
//
// For every edge u -> v of P(i,j) (u in this task's split), the triangles closed by it are
// |P(i,k)[u] ∩ P(j,k)[v]|: each common w is one triangle u -> v -> w with u -> w.
// What the kernel assumes, and what it does because of it:
//  - Every block row is strictly increasing (the partitioner sorts and deduplicates), so
//    a pair of rows is intersected by a merge, entries of one list below the first entry of
//    the other are skipped by one binary search (in degree order that is most of u's list),
//    and counts need no deduplication.
//  - Degree orientation keeps most rows short, so most pairs are short merges: branch-free,
//    and 8 x 8 all-pairs compares with AVX2 where the processor has it (checked at run time;
//    the portable merge otherwise).
//  - Skewed pairs (one list more than gallop_ratio times the other) search the short list's
//    entries in the long one with a doubling step: short * log(long / short), not short + long.
//  - A hub row (at least bitmap_min_degree entries) is marked once in a per-thread bitmap over
//    the span of its ids; each 2-hop list is then tested entry by entry, never merged with the
//    long own list. The bitmap only grows and is cleared by revisiting the row: no per-row
//    allocation.
//  - Work is handed out in chunks of P(i,j) edges (wedge starts), not rows, from an atomic
//    counter: a hub row's edges are spread over threads. About chunks_per_thread chunks per
//    thread (each costs one binary search for its row). Chunks go from the last edge since in
//    degree order the heaviest rows have the highest ids; only light chunks are left at the end.
//  - Per vertex (start_per_vertex), the same kernel is instantiated with a sink that adds 1
//    to each common w's counter; an edge's count is added to v's counter and a row's to u's
//    once each. Where a task runs on several threads the adds are atomic (classes i, j, k
//    may be one class), on one thread plain; the plain count's instantiation has none of this.
//  - Per edge (start_per_edge), the sink also gets where w sits in u's list and in v's list:
//    their positions in P(i,k) and P(j,k) are the edges (u, w) and (v, w), each given 1; the
//    edge (u, v) of P(i,j) gets the pair's count. A hub row finds w's position in its own
//    list by binary search (the bitmap holds no positions); the AVX2 merge finds it in the
//    other list's 8-block by a scan.
// Measured alternatives that were not kept are listed in bench/RESULTS.md (CPU backend).
#include <algorithm>
#include <atomic>
#include <string>
#include <bit>
#include <chrono>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TRICOUNT_CPU_X86 1
#endif

#include "src/threads.hpp"
#include "worker/backend.hpp"
#include "worker/cpu_kernel.hpp"

namespace tricount {

namespace {

// What the kernel does with each common entry w of a pair, found at in_mine in u's list and
// at in_theirs in v's list: nothing (the plain count, whose code is the same as without
// per-vertex or per-edge counting), or add 1 to w's counter and to the edges (u, w), (v, w).
// Where kPositions is false the pointers are not computed (null).
struct NoSink {
  static constexpr bool kActive = false;
  static constexpr bool kPositions = false;
  void operator()(vid_t, const vid_t*, const vid_t*) const {}
};
// Shared: the task runs on several threads (atomic adds); Own: on the calling thread alone.
enum class Sharing { Shared, Own };

template <class T>
void add_to(T* counts, std::uint64_t at, T found, Sharing sharing) {
  if (sharing == Sharing::Own) counts[at] += found;
  else std::atomic_ref<T>(counts[at]).fetch_add(found, std::memory_order_relaxed);
}

// Per-vertex and per-edge counting: the counters of the task's three classes (u in i, v in j,
// w in k; classes may coincide) and of its three blocks (blocks may coincide), each where on.
struct TaskCounters {
  count_t* u = nullptr;
  count_t* v = nullptr;
  count_t* w = nullptr;
  edge_count_t* one_hop = nullptr;  // P(i,j), by position in its neighbour array
  edge_count_t* hash = nullptr;     // P(i,k)
  edge_count_t* two_hop = nullptr;  // P(j,k)
};

template <Sharing S, bool Vertex, bool Edge>
struct TriangleSink {
  static constexpr bool kActive = true;
  static constexpr bool kPositions = Edge;
  static constexpr bool kVertex = Vertex;
  static constexpr bool kEdge = Edge;
  static constexpr Sharing kSharing = S;
  TaskCounters counters;
  const vid_t* hash_base = nullptr;  // P(i,k)'s neighbour array: in_mine points into it
  const vid_t* two_base = nullptr;   // P(j,k)'s: in_theirs points into it
  void operator()(vid_t w, const vid_t* in_mine, const vid_t* in_theirs) const {
    if constexpr (Vertex) add_to<count_t>(counters.w, w, 1, S);
    if constexpr (Edge) {
      add_to<edge_count_t>(counters.hash, static_cast<std::uint64_t>(in_mine - hash_base), 1, S);
      add_to<edge_count_t>(counters.two_hop, static_cast<std::uint64_t>(in_theirs - two_base), 1, S);
    }
  }
};

// A sink for a pair whose lists come in the other order (the gallop of v's list in u's).
template <class Sink>
struct Swapped {
  static constexpr bool kActive = Sink::kActive;
  static constexpr bool kPositions = Sink::kPositions;
  const Sink& sink;
  void operator()(vid_t w, const vid_t* in_a, const vid_t* in_b) const { sink(w, in_b, in_a); }
};

template <class Sink>
std::uint64_t merge_into(const vid_t* a, std::uint64_t na, const vid_t* b, std::uint64_t nb, const Sink& sink) {
  std::uint64_t i = 0, j = 0, common = 0;
  while (i < na && j < nb) {
    const vid_t x = a[i], y = b[j];
    if constexpr (Sink::kActive) {
      if (x == y) sink(x, a + i, b + j);
    }
    common += x == y;
    i += x <= y;
    j += y <= x;
  }
  return common;
}

#ifdef TRICOUNT_CPU_X86
template <class Sink>
__attribute__((target("avx2,popcnt"))) std::uint64_t merge_avx2_into(const vid_t* a, std::uint64_t na, const vid_t* b,
                                                                     std::uint64_t nb, const Sink& sink) {
  std::uint64_t i = 0, j = 0, common = 0;
  const __m256i rotate = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 0);
  while (i + 8 <= na && j + 8 <= nb) {
    // All 64 pairs of the two 8-blocks: entries are unique per list, so each hit is one
    // common entry, and a pair of blocks is compared once since one block advances each step.
    const __m256i va = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
    __m256i vb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + j));
    __m256i hit = _mm256_cmpeq_epi32(va, vb);
    for (int r = 1; r < 8; ++r) {
      vb = _mm256_permutevar8x32_epi32(vb, rotate);
      hit = _mm256_or_si256(hit, _mm256_cmpeq_epi32(va, vb));
    }
    const unsigned lanes = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(hit)));
    common += static_cast<std::uint64_t>(std::popcount(lanes));
    if constexpr (Sink::kActive) {
      for (unsigned m = lanes; m; m &= m - 1) {  // lanes of a's block
        const vid_t* in_a = a + i + static_cast<unsigned>(std::countr_zero(m));
        const vid_t* in_b = nullptr;
        if constexpr (Sink::kPositions) {
          in_b = b + j;
          while (*in_b != *in_a) ++in_b;  // one of b's 8 entries matched
        }
        sink(*in_a, in_a, in_b);
      }
    }
    const vid_t a_last = a[i + 7], b_last = b[j + 7];
    i += a_last <= b_last ? 8 : 0;
    j += b_last <= a_last ? 8 : 0;
  }
  return common + merge_into(a + i, na - i, b + j, nb - j, sink);
}
#endif

template <class Sink>
std::uint64_t gallop_into(const vid_t* short_list, std::uint64_t n_short, const vid_t* long_list, std::uint64_t n_long,
                          const Sink& sink) {
  std::uint64_t at = 0, common = 0;
  for (std::uint64_t s = 0; s < n_short && at < n_long; ++s) {
    const vid_t x = short_list[s];
    // Double the step until long_list[at + step] >= x, then binary-search the last step.
    std::uint64_t step = 1;
    while (at + step < n_long && long_list[at + step] < x) step *= 2;
    const vid_t* first = long_list + at + step / 2;
    const vid_t* last = long_list + std::min(at + step + 1, n_long);
    at = static_cast<std::uint64_t>(std::lower_bound(first, last, x) - long_list);
    const bool found = at < n_long && long_list[at] == x;
    if constexpr (Sink::kActive) {
      if (found) sink(x, short_list + s, long_list + at);
    }
    common += found;
  }
  return common;
}

}  // namespace

std::uint64_t intersect_merge(const vid_t* a, std::uint64_t na, const vid_t* b, std::uint64_t nb) {
  return merge_into(a, na, b, nb, NoSink{});
}

#ifdef TRICOUNT_CPU_X86
bool cpu_has_avx2() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"); }

std::uint64_t intersect_merge_avx2(const vid_t* a, std::uint64_t na, const vid_t* b, std::uint64_t nb) {
  return merge_avx2_into(a, na, b, nb, NoSink{});
}
#else
bool cpu_has_avx2() { return false; }
std::uint64_t intersect_merge_avx2(const vid_t* a, std::uint64_t na, const vid_t* b, std::uint64_t nb) {
  return intersect_merge(a, na, b, nb);
}
#endif

std::uint64_t intersect_gallop(const vid_t* short_list, std::uint64_t n_short, const vid_t* long_list,
                               std::uint64_t n_long) {
  return gallop_into(short_list, n_short, long_list, n_long, NoSink{});
}

namespace {

// The bitmap never spans more than this many ids (16 MiB per thread); wider hub rows merge.
constexpr std::uint64_t kMaxBitmapBits = std::uint64_t{1} << 27;

// Intersection of u's list `mine` with v's list `theirs`, by merge or gallop.
template <bool Simd, class Sink>
std::uint64_t count_pair(const vid_t* mine, std::uint64_t n_mine, const vid_t* theirs, std::uint64_t n_theirs,
                         std::uint64_t gallop_ratio, const Sink& sink) {
  if (n_theirs == 0 || mine[n_mine - 1] < theirs[0] || theirs[n_theirs - 1] < mine[0]) return 0;
  // 1. Skip u's entries below v's first: in degree order v's list starts above v, and u's
  //    list up to v is all below it.
  const std::uint64_t skip = static_cast<std::uint64_t>(std::lower_bound(mine, mine + n_mine, theirs[0]) - mine);
  mine += skip;
  n_mine -= skip;
  // 2. Gallop through the longer list when the lengths are far apart, else merge.
  if (n_theirs > gallop_ratio * n_mine) return gallop_into(mine, n_mine, theirs, n_theirs, sink);
  if (n_mine > gallop_ratio * n_theirs) return gallop_into(theirs, n_theirs, mine, n_mine, Swapped<Sink>{sink});
#ifdef TRICOUNT_CPU_X86
  if constexpr (Simd) return merge_avx2_into(mine, n_mine, theirs, n_theirs, sink);
#endif
  return merge_into(mine, n_mine, theirs, n_theirs, sink);
}

// The triangles the edge e = (u, v) of P(i,j) closes: to v's counter and to e's.
template <class Sink>
void add_found_v(const TaskCounters& counters, vid_t v, eoff_t e, std::uint64_t found, const Sink&) {
  if constexpr (Sink::kVertex) add_to<count_t>(counters.v, v, found, Sink::kSharing);
  if constexpr (Sink::kEdge) add_to<edge_count_t>(counters.one_hop, e, static_cast<edge_count_t>(found), Sink::kSharing);
}

// Edges [first_edge, last_edge) of u's row in P(i,j), u's list marked in `bitmap`.
template <class Sink>
std::uint64_t count_hub_row(const TaskBlocks& b, const vid_t* mine, std::uint64_t n_mine, eoff_t first_edge,
                            eoff_t last_edge, std::vector<std::uint64_t>& bitmap, const TaskCounters& counters,
                            const Sink& sink) {
  // 1. Mark u's list, relative to its first id.
  const vid_t base = mine[0], top = mine[n_mine - 1];
  const std::uint64_t span = std::uint64_t{top} - base + 1;
  if (bitmap.size() < (span + 63) / 64) bitmap.resize((span + 63) / 64, 0);
  for (std::uint64_t x = 0; x < n_mine; ++x) bitmap[(mine[x] - base) / 64] |= std::uint64_t{1} << ((mine[x] - base) % 64);
  // 2. Test every entry of each 2-hop list that falls in the span.
  std::uint64_t found = 0;
  for (eoff_t e = first_edge; e < last_edge; ++e) {
    const vid_t v = b.one_hop.neighbors[e];
    const vid_t* theirs = b.two_hop.neighbors + b.two_hop.offsets[v];
    const std::uint64_t n_theirs = b.two_hop.offsets[v + 1] - b.two_hop.offsets[v];
    std::uint64_t found_v = 0;
    for (std::uint64_t f = 0; f < n_theirs && theirs[f] <= top; ++f) {
      const std::uint64_t at = std::uint64_t{theirs[f]} - base;  // wraps (never < span) below base
      if (at < span) {
        const bool hit = (bitmap[at / 64] >> (at % 64)) & 1;
        if constexpr (Sink::kActive) {
          if (hit) {
            const vid_t* in_mine = nullptr;  // the bitmap knows w is in u's list, not where
            if constexpr (Sink::kPositions) in_mine = std::lower_bound(mine, mine + n_mine, theirs[f]);
            sink(theirs[f], in_mine, theirs + f);
          }
        }
        found_v += hit;
      }
    }
    if constexpr (Sink::kActive) {
      if (found_v) add_found_v(counters, v, e, found_v, sink);
    }
    found += found_v;
  }
  // 3. Clear only the words u's list touched.
  for (std::uint64_t x = 0; x < n_mine; ++x) bitmap[(mine[x] - base) / 64] = 0;
  return found;
}

// Triangles closed by edges [first_edge, last_edge) of P(i,j), rows of other splits skipped.
// Per vertex, a row's and an edge's triangles are summed before they touch u's and v's counters.
template <bool Simd, class Sink>
count_t count_edges(const TaskBlocks& b, const CpuTuning& tuning, eoff_t first_edge, eoff_t last_edge,
                    std::vector<std::uint64_t>& bitmap, const TaskCounters& counters) {
  const eoff_t* row_start = b.one_hop.offsets;
  const Sink sink = [&] {
    if constexpr (Sink::kActive) return Sink{counters, b.hash.neighbors, b.two_hop.neighbors};
    else return Sink{};
  }();
  // 1. The row holding first_edge: the last row starting at or before it.
  std::uint64_t u = static_cast<std::uint64_t>(std::upper_bound(row_start, row_start + b.one_hop.rows + 1, first_edge) -
                                               row_start) - 1;
  count_t total = 0;
  // 2. Each row's share of the range, by bitmap for hub rows, else pair by pair.
  for (; u < b.one_hop.rows && row_start[u] < last_edge; ++u) {
    if (b.splits > 1 && split_of_row(u, b.splits) != b.split) continue;
    const eoff_t e0 = std::max(row_start[u], first_edge), e1 = std::min(row_start[u + 1], last_edge);
    const eoff_t h0 = b.hash.offsets[u], h1 = b.hash.offsets[u + 1];
    if (e0 >= e1 || h0 == h1) continue;
    const vid_t* mine = b.hash.neighbors + h0;
    const std::uint64_t n_mine = h1 - h0;
    count_t row_found = 0;
    if (n_mine >= tuning.bitmap_min_degree && std::uint64_t{mine[n_mine - 1]} - mine[0] < kMaxBitmapBits) {
      row_found = count_hub_row(b, mine, n_mine, e0, e1, bitmap, counters, sink);
    } else {
      for (eoff_t e = e0; e < e1; ++e) {
        const vid_t v = b.one_hop.neighbors[e];
        const eoff_t t0 = b.two_hop.offsets[v], t1 = b.two_hop.offsets[v + 1];
        const std::uint64_t found = count_pair<Simd>(mine, n_mine, b.two_hop.neighbors + t0, t1 - t0, tuning.gallop_ratio, sink);
        if constexpr (Sink::kActive) {
          if (found) add_found_v(counters, v, e, found, sink);
        }
        row_found += found;
      }
    }
    if constexpr (Sink::kActive) {
      if constexpr (Sink::kVertex)
        if (row_found) add_to<count_t>(counters.u, u, row_found, Sink::kSharing);
    }
    total += row_found;
  }
  return total;
}

// One thread: grabs edge chunks from the last edge down until none is left.
template <bool Simd, class Sink>
count_t count_chunks(const TaskBlocks& b, const CpuTuning& tuning, unsigned threads, std::atomic<eoff_t>& taken_edges,
                     std::vector<std::uint64_t>& bitmap, const TaskCounters& counters) {
  const eoff_t edges = b.one_hop.offsets[b.one_hop.rows];
  // Each chunk costs a binary search for its first row (cache misses on a large block), so
  // a thread takes about chunks_per_thread of them, no smaller than chunk_edges.
  const eoff_t chunk = std::min<eoff_t>(
      std::max<eoff_t>({tuning.chunk_edges, edges / threads / std::max<std::uint64_t>(tuning.chunks_per_thread, 1), 1}),
      std::max<eoff_t>(edges, 1));
  count_t total = 0;
  for (eoff_t taken; (taken = taken_edges.fetch_add(chunk, std::memory_order_relaxed)) < edges;) {
    const eoff_t last = edges - taken;
    total += count_edges<Simd, Sink>(b, tuning, last > chunk ? last - chunk : 0, last, bitmap, counters);
  }
  return total;
}

// The instantiation for what is counted: plain, or per vertex and/or per edge (atomic adds
// where the task runs on several threads).
template <bool Simd, Sharing S>
count_t count_chunks_sharing(bool per_vertex, bool per_edge, const TaskBlocks& b, const CpuTuning& tuning, unsigned threads,
                             std::atomic<eoff_t>& taken_edges, std::vector<std::uint64_t>& bitmap, const TaskCounters& counters) {
  if (per_vertex && per_edge)
    return count_chunks<Simd, TriangleSink<S, true, true>>(b, tuning, threads, taken_edges, bitmap, counters);
  if (per_vertex) return count_chunks<Simd, TriangleSink<S, true, false>>(b, tuning, threads, taken_edges, bitmap, counters);
  return count_chunks<Simd, TriangleSink<S, false, true>>(b, tuning, threads, taken_edges, bitmap, counters);
}

template <bool Simd>
count_t count_chunks_for(bool per_vertex, bool per_edge, bool shared, const TaskBlocks& b, const CpuTuning& tuning,
                         unsigned threads, std::atomic<eoff_t>& taken_edges, std::vector<std::uint64_t>& bitmap,
                         const TaskCounters& counters) {
  if (!per_vertex && !per_edge) return count_chunks<Simd, NoSink>(b, tuning, threads, taken_edges, bitmap, counters);
  if (shared)
    return count_chunks_sharing<Simd, Sharing::Shared>(per_vertex, per_edge, b, tuning, threads, taken_edges, bitmap, counters);
  return count_chunks_sharing<Simd, Sharing::Own>(per_vertex, per_edge, b, tuning, threads, taken_edges, bitmap, counters);
}

class CpuBackend final : public CountBackend {
 public:
  explicit CpuBackend(const BackendOptions& options)
      : threads_(options.threads ? options.threads : usable_cores()),
        tuning_(options.cpu_tuning),
        simd_(options.cpu_tuning.simd && cpu_has_avx2()),
        bitmaps_(threads_) {}

  std::string_view name() const override { return "cpu"; }
  std::string device_name() const override { return std::to_string(threads_) + " CPU threads"; }

  count_t count(const TaskBlocks& b, CountStats& stats) override {
    TRICOUNT_EXPECTS(b.one_hop.rows == b.hash.rows, "blocks " + std::to_string(b.one_hop.id.row_class) +
                                                        ": P(i,j) and P(i,k) disagree on the rows of class i");
    TRICOUNT_EXPECTS(b.two_hop.rows == b.one_hop.cols, "P(j,k) rows do not match the columns of P(i,j)");
    TRICOUNT_EXPECTS(b.two_hop.cols == b.hash.cols, "P(j,k) and P(i,k) disagree on the columns of class k");
    const auto t0 = std::chrono::steady_clock::now();
    TaskCounters counters;
    if (per_vertex_) vertex_counters_of(b, counters);
    if (per_edge_) edge_counters_of(b, counters);
    std::atomic<eoff_t> taken_edges{0};
    // Small tasks are not worth a thread start.
    const unsigned use = b.one_hop.nnz + b.two_hop.nnz < tuning_.min_parallel_entries ? 1u : threads_;
    std::vector<count_t> partial(use, 0);
    const auto run = [&](unsigned t) {
      std::vector<std::uint64_t>& bitmap = bitmaps_[t];
      partial[t] = simd_ ? count_chunks_for<true>(per_vertex_, per_edge_, use > 1, b, tuning_, use, taken_edges, bitmap, counters)
                         : count_chunks_for<false>(per_vertex_, per_edge_, use > 1, b, tuning_, use, taken_edges, bitmap, counters);
    };
    {
      std::vector<std::jthread> pool;
      for (unsigned t = 1; t < use; ++t) pool.emplace_back(run, t);
      run(0);
    }  // joins
    count_t total = 0;
    for (count_t p : partial) total += p;
    stats.count_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return total;
  }

  void start_per_vertex(std::vector<std::uint64_t> class_vertices) override {
    class_vertices_ = std::move(class_vertices);
    class_counts_.assign(class_vertices_.size(), {});
    per_vertex_ = true;
  }

  std::vector<count_t> take_vertex_counts(std::uint32_t c) override {
    TRICOUNT_EXPECTS(per_vertex_ && c < class_vertices_.size(),
                     "take_vertex_counts(" + std::to_string(c) + ") without start_per_vertex for that class");
    std::vector<count_t> counts = std::move(class_counts_[c]);
    class_counts_[c] = {};
    if (counts.empty()) counts.assign(class_vertices_[c], 0);  // no task touched class c
    return counts;
  }

  void start_per_edge(std::uint32_t parts, std::vector<std::uint64_t> block_nnz) override {
    TRICOUNT_EXPECTS(block_nnz.size() == std::uint64_t{parts} * parts,
                     "start_per_edge: " + std::to_string(block_nnz.size()) + " block sizes for " + std::to_string(parts) + " parts");
    parts_ = parts;
    block_nnz_ = std::move(block_nnz);
    block_edges_.assign(block_nnz_.size(), {});
    per_edge_ = true;
  }

  std::vector<edge_count_t> take_edge_counts(BlockId id) override {
    TRICOUNT_EXPECTS(per_edge_ && id.row_class < parts_ && id.col_class < parts_,
                     "take_edge_counts(P(" + std::to_string(id.row_class) + "," + std::to_string(id.col_class) +
                         ")) without start_per_edge for that block");
    const std::uint64_t at = std::uint64_t{id.row_class} * parts_ + id.col_class;
    std::vector<edge_count_t> counts = std::move(block_edges_[at]);
    block_edges_[at] = {};
    if (counts.empty()) counts.assign(block_nnz_[at], 0);  // no task touched the block
    return counts;
  }

 private:
  // Class c's counters, allocated (zero) by the first task that touches c.
  count_t* class_counters(std::uint32_t c, std::uint64_t ids_used) {
    TRICOUNT_EXPECTS(c < class_vertices_.size() && ids_used <= class_vertices_[c],
                     "per-vertex counting: a block of class " + std::to_string(c) + " has " + std::to_string(ids_used) +
                         " vertices, more than the class holds");
    std::vector<count_t>& counts = class_counts_[c];
    if (counts.empty()) counts.assign(class_vertices_[c], 0);
    return counts.data();
  }
  void vertex_counters_of(const TaskBlocks& b, TaskCounters& counters) {
    counters.u = class_counters(b.one_hop.id.row_class, b.one_hop.rows);
    counters.v = class_counters(b.one_hop.id.col_class, b.one_hop.cols);
    counters.w = class_counters(b.hash.id.col_class, b.hash.cols);
  }
  // A block's edge counters, allocated (zero) by the first task that touches it.
  edge_count_t* block_counters(const BlockView& v) {
    TRICOUNT_EXPECTS(v.id.row_class < parts_ && v.id.col_class < parts_ &&
                         v.nnz == block_nnz_[std::uint64_t{v.id.row_class} * parts_ + v.id.col_class],
                     "per-edge counting: block P(" + std::to_string(v.id.row_class) + "," + std::to_string(v.id.col_class) +
                         ") of " + std::to_string(v.nnz) + " edges is not a block given to start_per_edge");
    std::vector<edge_count_t>& counts = block_edges_[std::uint64_t{v.id.row_class} * parts_ + v.id.col_class];
    if (counts.empty()) counts.assign(v.nnz, 0);
    return counts.data();
  }
  void edge_counters_of(const TaskBlocks& b, TaskCounters& counters) {
    counters.one_hop = block_counters(b.one_hop);
    counters.hash = block_counters(b.hash);
    counters.two_hop = block_counters(b.two_hop);
  }

  unsigned threads_;
  CpuTuning tuning_;
  bool simd_;
  std::vector<std::vector<std::uint64_t>> bitmaps_;  // one per thread, grown on demand
  bool per_vertex_ = false;
  std::vector<std::uint64_t> class_vertices_;     // per-vertex: ids per class
  std::vector<std::vector<count_t>> class_counts_;  // per-vertex: per class, empty until touched
  bool per_edge_ = false;
  std::uint32_t parts_ = 0;                          // per-edge: blocks are parts_ x parts_
  std::vector<std::uint64_t> block_nnz_;             // per-edge: edges per block, row-major
  std::vector<std::vector<edge_count_t>> block_edges_;  // per-edge: per block, empty until touched
};

}  // namespace

std::unique_ptr<CountBackend> make_cpu_backend(const BackendOptions& options) {
  return std::make_unique<CpuBackend>(options);
}

}  // namespace tricount
