// The counting kernels of the CUDA backend (see cuda_backend.cu for the algorithm and its
// assumptions). Tasks of tiny rows run only count_thread_rows (at the end); the others
// run three launches per side (the u side, and the transposed v side, v_side.cuh):
//   1. classify: a CUB three-way partition of the rows of class i into the CTA list
//      (degree >= threshold, or a table too large for a warp), the warp list (the rest),
//      and the rows skipped (other workload split, or no hash or no 1-hop neighbour);
//   2. count_cta_rows: one CTA per row, table in shared memory with spill-over levels in a
//      per-CTA global area, or binary search for rows whose table cannot fit anywhere;
//   3. count_tile_rows: one warp (a tile of G lanes) per row, table in shared memory;
//   4. count_tiny_rows: one thread per tiny row (no list: it skips the others itself).
// Tasks of short rows (a uniform graph cut into parts) run count_filter_rows instead of 1-4.
// Unclassified sides of short 2-hop lists (a uniform graph in one part) run count_batch_rows
// (batch_rows.cuh) instead of 3.
// 2 runs concurrently with 3 and 4 on two streams. Both take rows from the end of their list
// (rows are numbered by ascending degree, so the heaviest go first) from a global atomic
// counter, walk the row's 2-hop lists (short ones as one virtual list through a prefix sum
// of their lengths, long ones list by list), and reduce their 64-bit counts with
// cub::BlockReduce and one atomicAdd per CTA.
#pragma once

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "src/task_plan.hpp"
#include "src/types.hpp"
#include "worker/cuda/bucket_table.cuh"
#include "worker/cuda/csr_view.hpp"
#include "worker/cuda/per_vertex.cuh"
#include "worker/cuda/v_side.cuh"

namespace tricount::cuda {

namespace cg = cooperative_groups;

// kDefer, a template parameter of the u side's kernels: 0 none; 1 the u side gives edges to
// the transposed v side (counts and marks them); kDeferPlaces also keeps each one's place in
// T (CountParams::deferred_places). A kernel each: the returned place would otherwise cost
// the atomics' kernels too (Kronecker 23 and 24; bench/RESULTS.md, issue 34).
inline constexpr int kDeferPlaces = 2;
inline constexpr int kTileBlockThreads = 256;  // warp kernel: 8 tiles of 32 lanes per CTA
inline constexpr int kCtaThreads = 256;        // CTA kernel: threads per row

struct CountParams {
  CsrView hash;     // P(i,k)
  CsrView one_hop;  // P(i,j)
  CsrView two_hop;  // P(j,k)
  const std::uint32_t* two_hop_offsets32 = nullptr;  // two_hop.offsets narrowed to 32 bits (nullptr: none)
  const vid_t* cta_rows = nullptr;
  const vid_t* tile_rows = nullptr;           // nullptr: every row of the block, 0 .. direct_rows-1
  std::uint32_t direct_rows = 0;
  const std::uint32_t* list_sizes = nullptr;  // [0] CTA rows, [1] warp rows (written by the partition)
  std::uint32_t* next = nullptr;              // [0] next CTA row, [1] next warp row
  unsigned long long* result = nullptr;
  TableConfig tile_table;
  TableConfig cta_table;
  vid_t* cta_scratch = nullptr;        // gridDim.x areas of cta_scratch_words
  std::uint64_t cta_scratch_words = 0;
  std::uint32_t table_limit = 0xFFFFFFFFu;  // rows with more keys use binary search
  std::uint32_t tile_chunk = 8;             // rows a warp takes per atomic grab
  std::uint32_t trim_min = 0;               // 2-hop lists at least this long skip their elements
                                            // below u's smallest key (0: off)
  std::uint32_t search_ratio = 0;           // warp rows: 2-hop lists longer than this many
                                            // times u's keys are searched for u's keys (0: off)
  std::uint32_t cta_bitmap_words = 0;       // CTA rows whose key span fits this many words
                                            // of bits use a bitmap (0: off)
  // The u side when the transposed v side runs (kernels with kDefer): edges that
  // defers_edge() gives to v's side are left out here, counted per v in deferred_per_v
  // and marked in deferred_bits; where T fits the L2, each one's place among v's is kept in
  // deferred_places (by its P(i,j) position; null: not kept).
  std::uint32_t defer_quarters = 4;
  unsigned long long* deferred_per_v = nullptr;
  std::uint32_t* deferred_places = nullptr;
  std::uint32_t* deferred_bits = nullptr;
  // Per-vertex counting (kernels with kPerVertex, per_vertex.cuh): the counters of the rows'
  // class, of the 1-hop entries' class and of the 2-hop elements' class.
  unsigned long long* row_counts = nullptr;
  unsigned long long* mid_counts = nullptr;
  unsigned long long* col_counts = nullptr;
  bool rank_counts = true;  // CTA rows with a bitmap count w's hits by key rank (KeyRanks)
  // Per-edge counting (kernels with kPerEdge): the counters of the three blocks' edges by
  // position; one_hop_edge_of maps a 1-hop entry to its P(i,j) position (T on the v side).
  unsigned int* hash_edges = nullptr;
  unsigned int* one_hop_edges = nullptr;
  const std::uint32_t* one_hop_edge_of = nullptr;
  unsigned int* two_hop_edges = nullptr;
};

__device__ __forceinline__ void set_edge_counters(PerVertexTile& pvt, const CountParams& p) {
  pvt.mid_edges = p.one_hop_edges;
  pvt.mid_edge_of = p.one_hop_edge_of;
  pvt.col_edges = p.two_hop_edges;
}

// Which list a row goes to: 0 skipped, 1 CTA, 2 warp.
struct RowClassifier {
  const eoff_t* hash_offsets;
  const eoff_t* one_hop_offsets;
  std::uint32_t split;
  std::uint32_t splits;
  std::uint32_t cta_threshold;   // hash or 1-hop degree >= this: CTA
  std::uint32_t tile_max_keys;   // larger tables do not fit a warp's shared memory
  std::uint32_t tiny_max = 0;    // hash and 1-hop degree both <= this: count_tiny_rows' (0: none)
  __device__ int operator()(vid_t u) const {
    if (splits > 1 && split_of_row(u, splits) != split) return 0;
    const eoff_t hd = hash_offsets[u + 1] - hash_offsets[u];
    const eoff_t od = one_hop_offsets[u + 1] - one_hop_offsets[u];
    if (hd == 0 || od == 0) return 0;  // no table or nothing to probe: no triangle
    if (hd <= tiny_max && od <= tiny_max) return 0;  // one thread's row
    if (hd >= cta_threshold || od >= cta_threshold || hd > tile_max_keys) return 1;
    return 2;
  }
};
struct IsCtaRow {
  RowClassifier c;
  __device__ bool operator()(vid_t u) const { return c(u) == 1; }
};
struct IsTileRow {
  RowClassifier c;
  __device__ bool operator()(vid_t u) const { return c(u) == 2; }
};

// A block's offsets narrowed to 32 bits (the caller checked nnz < 2^32).
__global__ void narrow_offsets(const eoff_t* in, std::uint32_t* out, std::uint64_t n) {
  for (std::uint64_t x = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; x < n; x += std::uint64_t(gridDim.x) * blockDim.x)
    out[x] = static_cast<std::uint32_t>(in[x]);
}

// The first position of the sorted 2-hop list [begin, end) whose element is >= kmin: the
// elements before it cannot be among u's keys, so they are neither read nor probed.
__device__ __forceinline__ eoff_t first_not_below(const vid_t* list, eoff_t begin, eoff_t end, vid_t kmin) {
  while (begin < end) {
    const eoff_t mid = begin + (end - begin) / 2;
    if (list[mid] < kmin) begin = mid + 1;
    else end = mid;
  }
  return begin;
}

// The position of the last key <= w among `count` sorted keys (count >= 1, w >= keys[0]).
__device__ __forceinline__ std::uint32_t key_floor(const vid_t* keys, std::uint32_t count, vid_t w) {
  std::uint32_t at = 0;
  while (count > 1) {
    const std::uint32_t half = count / 2;
    if (keys[at + half] <= w) at += half;
    count -= half;
  }
  return at;
}

__device__ __forceinline__ bool sorted_contains(const vid_t* list, eoff_t begin, eoff_t end, vid_t key) {
  while (begin < end) {
    const eoff_t mid = begin + (end - begin) / 2;
    const vid_t x = list[mid];
    if (x == key) return true;
    if (x < key) begin = mid + 1;
    else end = mid;
  }
  return false;
}

inline constexpr std::uint32_t kUnroll = 4;  // 2-hop elements in flight per lane on long lists
// Elements of the virtual (short-list) walk whose loads are issued before any is probed: a
// warp row of a uniform graph walks ~8 rounds of 32 elements, each a dependent HBM load, so
// issuing them one at a time leaves it latency-bound (figures: bench/notes/cuda-code-figures.md).
// The virtual walk hands each lane kShortPer consecutive elements of one list (a "slot": a
// list of len elements has ceil(len / kShortPer) slots), so that one search for the owning
// list serves kShortPer elements, 4 elements in flight per lane. Slots of 2 elements and
// several rounds of slots per step (kShortUnroll) were measured and not kept:
// bench/RESULTS.md#measured-and-not-kept.
inline constexpr std::uint32_t kShortPer = 4;

// What a slot holds past the end of its list: no key is this id (ids are < kMaxVertices),
// and it lies above every key range, so a probe rejects it with its range check.
inline constexpr vid_t kNeverKey = kMaxVertices;

// The number of lanes of the tile whose inclusive prefix sum `incl` is <= x: the lane
// whose part of a virtual list holds position x (lanes with nothing are skipped over).
// G/2 + ... + 1 shuffles, every lane converged.
template <int G, class Tile>
__device__ __forceinline__ std::uint32_t owner_lane(const Tile& tile, std::uint32_t incl, std::uint32_t x) {
  std::uint32_t pos = 0;
#pragma unroll
  for (int st = G / 2; st > 0; st >>= 1) {
    const std::uint32_t y = tile.shfl(incl, pos + st - 1);
    if (y <= x) pos += st;
  }
  return pos;
}

// Probes element w of a 2-hop list against u's keys: the table, or u's sorted hash list.
template <bool kGlobal, bool kBsearch>
struct Prober {
  BucketTable table;
  const vid_t* hash_list;  // u's keys, sorted
  std::uint32_t keys;
  vid_t kmin, kmax;
  __device__ __forceinline__ std::uint32_t operator()(vid_t w) const {
    if (w < kmin || w > kmax) return 0;
    if constexpr (kBsearch) return sorted_contains(hash_list, 0, keys, w);
    else return table.contains<kGlobal>(w);
  }
};

// Probes element w of a 2-hop list against u's keys held as a bitmap over [kmin, kmax]
// (bit w - kmin set iff w is a key): one range check, one shared load, one bit test, with
// no chain to follow. CTA rows whose key span fits the CTA's shared memory use it; under
// the degree order a heavy row's keys are all above it, so its span is short.
struct BitmapProber {
  const std::uint32_t* bits;
  vid_t kmin, kmax;
  __device__ __forceinline__ std::uint32_t operator()(vid_t w) const {
    const std::uint32_t x = w - kmin;  // wraps for w < kmin
    if (x > kmax - kmin) return 0;
    return (bits[x >> 5] >> (x & 31u)) & 1u;
  }
};

// A bitmap prober that also counts each hit on its key's counter (per-vertex, KeyRanks): each
// bitmap word is stored beside the number of set bits before it ({bits, before}), so a probe
// is one 64-bit shared load, and a hit's rank (before plus the set bits below it in the word)
// is computed without a branch, leaving one predicated shared atomic: the per-vertex kernels
// are bound by instruction issue (bench/RESULTS.md, issue 34).
struct BitmapRankProber {
  const uint2* words;
  std::uint32_t* counts;
  vid_t kmin, kmax;
  __device__ __forceinline__ std::uint32_t operator()(vid_t w) const {
    const std::uint32_t x = w - kmin;  // wraps for w < kmin
    uint2 e = make_uint2(0u, 0u);
    if (x <= kmax - kmin) e = words[x >> 5];
    const std::uint32_t bit = x & 31u;
    const std::uint32_t hit = (e.x >> bit) & 1u;
    const std::uint32_t rank = e.y + __popc(e.x & ((1u << bit) - 1u));
    if (hit) atomicAdd(&counts[rank], 1u);
    return hit;
  }
};

// A per-vertex hit on key w: into the row's tally, unless the prober counted it already.
template <bool kPerEdge, class Probe>
__device__ __forceinline__ void tally_hit(const Probe&, const PerVertexTile& pvt, vid_t w) {
  pvt.tally.add<kPerEdge>(w);
}
template <bool kPerEdge>
__device__ __forceinline__ void tally_hit(const BitmapRankProber&, const PerVertexTile&, vid_t) {}

// The lanes of `mask` each hold a long 2-hop list (begin, len): the whole tile walks them
// one at a time, coalesced, kUnroll loads in flight per lane.
template <int G, bool kPerVertex = false, bool kPerEdge = false, class Tile, class Probe>
__device__ __forceinline__ unsigned long long walk_long_lists(const Tile& tile, const CountParams& p, std::uint32_t mask,
                                                             eoff_t begin, std::uint32_t len, const Probe& probe,
                                                             const PerVertexTile& pvt = {}) {
  const std::uint32_t lane = tile.thread_rank();
  unsigned long long found = 0;
  for (; mask; mask &= mask - 1) {
    std::uint32_t list_hits = 0;  // this lane's hits in this list: found grows once per list (32-bit adds)
    const int src = __ffs(mask) - 1;
    const eoff_t lb = tile.shfl(begin, src);
    const std::uint32_t ll = tile.shfl(len, src);
    const vid_t* list = p.two_hop.neighbors + lb;
    std::uint32_t k = lane;
    for (; k + (kUnroll - 1) * G < ll; k += kUnroll * G) {
      vid_t w[kUnroll];
#pragma unroll
      for (std::uint32_t q = 0; q < kUnroll; ++q) w[q] = list[k + q * G];
#pragma unroll
      for (std::uint32_t q = 0; q < kUnroll; ++q) {
        const std::uint32_t hit = probe(w[q]);
        if constexpr (kPerVertex) {
          if (hit) {
            tally_hit<kPerEdge>(probe, pvt, w[q]);
            if constexpr (kPerEdge) pvt.add_col_edge(lb + k + q * G);
          }
        }
        list_hits += hit;
      }
    }
    for (; k < ll; k += G) {
      const vid_t x = list[k];
      const std::uint32_t hit = probe(x);
      if constexpr (kPerVertex) {
        if (hit) {
          tally_hit<kPerEdge>(probe, pvt, x);
          if constexpr (kPerEdge) pvt.add_col_edge(lb + k);
        }
      }
      list_hits += hit;
    }
    found += list_hits;
    if constexpr (kPerVertex) {  // the list is one 1-hop entry's: summed over the tile, one atomic (not G on one word)
      const std::uint32_t hits = cg::reduce(tile, list_hits, cg::plus<std::uint32_t>());
      if (lane == 0 && hits) atomicAdd(&pvt.edge_hits[src], hits);
    }
  }
  return found;
}

// The other direction for 2-hop lists that dwarf u's key list H(u): search each key of u
// in the (sorted) 2-hop list, |H(u)| * log2 |N2(v)| steps instead of |N2(v)| probes. The
// pairs (list, key) are spread over the lanes like the short lists (a prefix sum of the
// key counts, each lane finding its list by binary search over the prefix sums).
struct ReverseSearch {
  const vid_t* keys_list = nullptr;  // u's keys, sorted
  std::uint32_t keys = 0;
  std::uint32_t ratio = 0;  // lists longer than ratio * keys (0: never)
  __device__ __forceinline__ bool wants(std::uint32_t len) const {
    return ratio != 0 && std::uint64_t(len) > std::uint64_t(ratio) * keys;
  }
};

// Walks the 2-hop lists N2(v) of the 1-hop entries [o0, o1) of one row, on one tile of G
// lanes, G entries (a "chunk") at a time; `next_chunk(c)` hands out the chunk indices
// this tile takes (all of them on the warp path; shared among the warps of a CTA on the
// CTA path). Within a chunk, lists of at least G elements go to `long_lists` (walked
// by the tile, or queued for the whole CTA); the shorter lists are walked as one
// virtual list through a prefix sum of their lengths, G elements per step, each lane
// finding its list by binary search over the prefix sums (held in registers, read with
// shuffles). With kReverse, lists that `rev` wants are searched for u's keys instead
// (ReverseSearch); without it the code is that of version 4 (the reverse search costs the
// register-capped warp kernel spills, which rows with little work feel). Returns this
// lane's hits.
template <int G, int kDefer, bool kReverse = false, bool kPerVertex = false, bool kPerEdge = false, class Tile, class Probe,
          class NextChunk, class LongLists>
__device__ __forceinline__ unsigned long long probe_two_hop(const Tile& tile, const CountParams& p, const Probe& probe,
                                                           eoff_t o0, eoff_t o1, std::uint32_t row_keys,
                                                           NextChunk next_chunk, LongLists&& long_lists,
                                                           const ReverseSearch& rev = {}, const PerVertexTile& pvt = {}) {
  const std::uint32_t lane = tile.thread_rank();
  unsigned long long found = 0;
  for (std::uint64_t c; next_chunk(c);) {
    const eoff_t base = o0 + c * G;
    if (base >= o1) break;
    const eoff_t t = base + lane;
    eoff_t begin = 0, end = 0;
    bool deferred = false;
    vid_t my_v = 0;  // kPerVertex: this lane's 1-hop entry (kPerEdge: its index in the row)
    if (t < o1) {
      const vid_t v = p.one_hop.neighbors[t];
      if constexpr (kPerEdge) my_v = static_cast<vid_t>(t - o0);
      else if constexpr (kPerVertex) my_v = v;
      if (p.two_hop_offsets32) {
        begin = p.two_hop_offsets32[v];
        end = p.two_hop_offsets32[v + 1];
      } else {
        begin = p.two_hop.offsets[v];
        end = p.two_hop.offsets[v + 1];
      }
      if (kDefer && defers_edge(end - begin, row_keys, p.defer_quarters)) {
        deferred = true;  // v's side counts it: one more entry in T's row v
        end = begin;
        if constexpr (kDefer == kDeferPlaces) p.deferred_places[t] = static_cast<std::uint32_t>(atomicAdd(&p.deferred_per_v[v], 1ull));
        else atomicAdd(&p.deferred_per_v[v], 1ull);
      }
      if (p.trim_min && end - begin >= p.trim_min) begin = first_not_below(p.two_hop.neighbors, begin, end, probe.kmin);
    }
    if constexpr (kDefer) {  // the whole tile records which of its G edges went
      const std::uint32_t m = tile.ballot(deferred);
      if (lane == 0 && m) record_deferred(p.deferred_bits, base, m);
    }
    std::uint32_t len = static_cast<std::uint32_t>(end - begin);
    if constexpr (kReverse) {
      if (rev.ratio != 0) {  // uniform: the whole tile takes this branch or none of it
        const bool reverse = rev.wants(len);
        if (tile.any(reverse)) {
          const std::uint32_t pairs = reverse ? rev.keys : 0u;
          const std::uint32_t pincl = cg::inclusive_scan(tile, pairs);
          const std::uint32_t ptotal = tile.shfl(pincl, G - 1);
          const std::uint32_t pexcl = pincl - pairs;
          for (std::uint32_t eb = 0; eb < ptotal; eb += G) {
            const std::uint32_t e = eb + lane;
            const std::uint32_t pos = owner_lane<G>(tile, pincl, e);  // the lane of pair e
            const eoff_t lb = tile.shfl(begin, pos);
            const std::uint32_t ll = tile.shfl(len, pos);
            const std::uint32_t first = tile.shfl(pexcl, pos);
            if (e < ptotal) {
              const vid_t key = rev.keys_list[e - first];
              bool hit;
              eoff_t at = 0;  // kPerEdge: where key sits in the 2-hop list
              if constexpr (kPerEdge) {
                at = first_not_below(p.two_hop.neighbors, lb, lb + ll, key);
                hit = at < lb + ll && p.two_hop.neighbors[at] == key;
              } else {
                hit = sorted_contains(p.two_hop.neighbors, lb, lb + ll, key);
              }
              found += hit;
              if constexpr (kPerVertex) {
                if (hit) {
                  pvt.tally.add<kPerEdge>(key);
                  atomicAdd(&pvt.edge_hits[pos], 1u);
                  if constexpr (kPerEdge) pvt.add_col_edge(at);
                }
              }
            }
          }
          if (reverse) len = 0;  // done: neither a short nor a long list
        }
      }
    }
    const bool is_long = len >= static_cast<std::uint32_t>(G);

    // Short lists: one virtual list of slots of kShortPer consecutive elements, G slots a
    // step, each slot's elements loaded before any is probed (more loads in flight per row).
    const std::uint32_t short_len = is_long ? 0u : len;
    const std::uint32_t slots = (short_len + kShortPer - 1) / kShortPer;
    const std::uint32_t incl = cg::inclusive_scan(tile, slots);
    const std::uint32_t total = tile.shfl(incl, G - 1);
    const std::uint32_t excl = incl - slots;
    const eoff_t adj = begin - eoff_t{kShortPer} * excl;  // slot s, if in this list, starts at adj + kShortPer * s
    const std::uint32_t lim = kShortPer * excl + short_len;  // and element adj + x is in it iff x < lim
    for (std::uint32_t sb = 0; sb < total; sb += G) {  // the same on every lane: the shuffles stay converged
      vid_t w[kShortPer];
#pragma unroll
      for (std::uint32_t k = 0; k < kShortPer; ++k) w[k] = kNeverKey;
      std::uint32_t owner = 0;  // kPerVertex: the lane whose 1-hop entry owns this slot
      eoff_t slot_at = 0;       // kPerEdge: the 2-hop position of the slot's first element
      // Always true here; kept from the unrolled form (several rounds of slots per step):
      // with it the compiler emits the machine code that was measured (without it, other
      // convergence regions around the shuffles).
      if (sb < total) {
        const std::uint32_t slot = sb + lane;
        const std::uint32_t pos = owner_lane<G>(tile, incl, slot);  // the lane of this slot's list
        if constexpr (kPerVertex) owner = pos;
        const eoff_t a = tile.shfl(adj, pos);
        const std::uint32_t l = tile.shfl(lim, pos);
        if (slot < total) {
          if constexpr (kPerEdge) slot_at = a + eoff_t{kShortPer} * slot;
          const vid_t* at = p.two_hop.neighbors + a + eoff_t{kShortPer} * slot;
#pragma unroll
          for (std::uint32_t k = 0; k < kShortPer; ++k)
            if (k == 0 || kShortPer * slot + k < l) w[k] = at[k];
        }
      }
      if (sb + lane < total) {
        std::uint32_t slot_hits = 0;
#pragma unroll
        for (std::uint32_t k = 0; k < kShortPer; ++k) {
          const std::uint32_t hit = probe(w[k]);
          if constexpr (kPerVertex) {
            if (hit) {
              tally_hit<kPerEdge>(probe, pvt, w[k]);
              if constexpr (kPerEdge) pvt.add_col_edge(slot_at + k);
            }
          }
          slot_hits += hit;
        }
        found += slot_hits;  // once per slot
        if constexpr (kPerVertex)
          if (slot_hits) atomicAdd(&pvt.edge_hits[owner], slot_hits);
      }
    }

    // Long lists: walked now by this tile, or handed to the CTA (long_lists decides).
    found += long_lists(tile, tile.ballot(is_long), is_long, begin, len, probe, my_v);
    if constexpr (kPerVertex) {  // the chunk's hits per 1-hop entry, one atomic each
      tile.sync();
      const std::uint32_t h = pvt.edge_hits[lane];
      if (h) {
        pvt.edge_hits[lane] = 0;
        if constexpr (kPerEdge) pvt.add_mid_edge(t, h);
        else atomicAdd(&pvt.mid_counts[my_v], static_cast<unsigned long long>(h));
      }
      tile.sync();
    }
  }
  return found;
}

// One row u on a tile of G lanes: build u's table in the tile's shared memory, then probe.
template <int G, int kDefer, bool kReverse, bool kPerVertex = false, bool kPerEdge = false, class Tile>
__device__ __forceinline__ unsigned long long tile_row(const Tile& tile, const CountParams& p, vid_t u,
                                                      std::uint32_t* smem_table, PerVertexTile pvt = {}) {
  const std::uint32_t lane = tile.thread_rank();
  const eoff_t h0 = p.hash.offsets[u], h1 = p.hash.offsets[u + 1];
  const eoff_t o0 = p.one_hop.offsets[u], o1 = p.one_hop.offsets[u + 1];
  if (h1 == h0 || o1 == o0) return 0;  // unclassified rows (CountParams::direct_rows): no triangle
  const std::uint32_t keys = static_cast<std::uint32_t>(h1 - h0);
  const TableShape shape = make_table_shape(keys, p.tile_table);  // all levels shared: the host saw to it
  Prober<false, false> probe;
  probe.table.place(smem_table, shape, nullptr, p.tile_table.hash_multiplier);
  probe.hash_list = p.hash.neighbors + h0;
  probe.keys = keys;
  probe.table.clear(lane, G);
  tile.sync();
  for (std::uint32_t e = lane; e < keys; e += G) probe.table.insert(p.hash.neighbors[h0 + e]);
  probe.kmin = p.hash.neighbors[h0];
  probe.kmax = p.hash.neighbors[h1 - 1];
  tile.sync();
  if constexpr (kPerVertex) pvt.tally.size_for(keys, G == 32 ? 6 : 4);  // log2 of kTileTallySlots32 / 8
  if constexpr (kPerEdge) pvt.tally.set_keys(p.hash_edges + h0, p.hash.neighbors + h0, keys);
  std::uint64_t next = 0;
  const unsigned long long found = probe_two_hop<G, kDefer, kReverse, kPerVertex, kPerEdge>(
      tile, p, probe, o0, o1, keys,
      [&](std::uint64_t& c) {
        c = next++;
        return true;
      },
      [&](const Tile& t, std::uint32_t mask, bool, eoff_t begin, std::uint32_t len, const auto& pr, vid_t) {
        return walk_long_lists<G, kPerVertex, kPerEdge>(t, p, mask, begin, len, pr, pvt);
      },
      ReverseSearch{p.hash.neighbors + h0, keys, p.search_ratio}, pvt);
  tile.sync();  // the next row clears this table
  if constexpr (kPerVertex) {  // u once per row; w once per (row, key) from the tally
    const unsigned long long row_hits = cg::reduce(tile, found, cg::plus<unsigned long long>());
    if (row_hits) {
      if (lane == 0 && !kPerEdge) atomicAdd(&p.row_counts[u], row_hits);
      pvt.tally.template flush<kPerEdge>(lane, G);
      // Converged here: the flush's lanes leave its loop apart, and the next row's first
      // collective would otherwise take the divergent path (WARPSYNC.COLLECTIVE, the warp
      // kernel's largest stall in a per-vertex profile).
      tile.sync();
    }
  }
  return found;
}

// kReverse: 2-hop lists much longer than u's key list are searched (p.search_ratio).
// kDefer: the u side defers edges to the transposed v side (CountParams::defer_quarters etc.),
// a template parameter so that the
// kernel without it carries none of its registers (uniform graphs felt them: 6%).
// kPerVertex: per-vertex counting (per_vertex.cuh); its tallies and edge words lie in the
// dynamic shared memory after the tables (kTilePerVertexWords). kPerEdge (with kPerVertex):
// the same code counting per edge.
template <int G, int kMinBlocks, bool kReverse, int kDefer, bool kPerVertex = false, bool kPerEdge = false>
__global__ void __launch_bounds__(kTileBlockThreads, kMinBlocks) count_tile_rows(CountParams p) {
  extern __shared__ __align__(16) std::uint32_t smem[];
  using Reduce = cub::BlockReduce<unsigned long long, kTileBlockThreads>;
  __shared__ typename Reduce::TempStorage reduce_storage;

  const auto tile = cg::tiled_partition<G>(cg::this_thread_block());
  std::uint32_t* table_smem = smem + (threadIdx.x / G) * p.tile_table.shared_words;
  const std::uint32_t rows = p.tile_rows ? p.list_sizes[1] : p.direct_rows;
  const std::uint32_t max_chunk = p.tile_chunk;  // rows per grab (host: 1 to 16 by row count)
  PerVertexTile pvt;
  if constexpr (kPerVertex) {
    std::uint32_t* pv_words = smem + ((kTileBlockThreads / G) * p.tile_table.shared_words + 1) / 2 * 2;
    constexpr std::uint32_t tally_slots = G == 32 ? kTileTallySlots32 : kTileTallySlots8;
    static_assert(2 * tally_slots * (kTileBlockThreads / G) + kTileBlockThreads <= kTilePerVertexWords, "per-vertex words");
    pvt.tally.slots = reinterpret_cast<uint2*>(pv_words) + (threadIdx.x / G) * tally_slots;
    pvt.tally.global = p.col_counts;
    std::uint32_t* edge_words = pv_words + 2 * tally_slots * (kTileBlockThreads / G);
    pvt.edge_hits = edge_words + (threadIdx.x / G) * G;
    pvt.mid_counts = p.mid_counts;
    set_edge_counters(pvt, p);
    clear_tally(reinterpret_cast<uint2*>(pv_words), tally_slots * (kTileBlockThreads / G), threadIdx.x, kTileBlockThreads);
    edge_words[threadIdx.x] = 0;
    __syncthreads();
  }
  unsigned long long found = 0;
  for (;;) {
    std::uint32_t first = 0;
    if (tile.thread_rank() == 0) first = atomicAdd(&p.next[1], max_chunk);
    first = tile.shfl(first, 0);
    if (first >= rows) break;
    const std::uint32_t last = rows - first > max_chunk ? first + max_chunk : rows;
    for (std::uint32_t idx = first; idx < last; ++idx) {
      const vid_t u = p.tile_rows ? p.tile_rows[rows - 1 - idx] : rows - 1 - idx;
      found += tile_row<G, kDefer, kReverse, kPerVertex, kPerEdge>(tile, p, u, table_smem, pvt);
    }
  }
  const unsigned long long block_total = Reduce(reduce_storage).Sum(found);
  if (threadIdx.x == 0 && block_total) atomicAdd(p.result, block_total);
}

// One CTA per row (rows of large degree): the CTA builds u's table, then its warps take
// chunks of 32 1-hop entries from a shared counter and probe them as on the warp path,
// except that long 2-hop lists go to a shared queue; once the chunks are done, the queued
// lists are cut into segments of kSegment elements that all warps share, so one hub's long
// list does not keep a single warp busy while the others wait at the row's barrier.
// Rows whose key span max H(u) - min H(u) fits the CTA's bitmap words (cta_bitmap_words *
// 32 bits) hold their keys as a bitmap in shared memory instead of a table (BitmapProber).
// Without a table that fits (shared levels plus this CTA's global area) the warps probe
// u's sorted list by binary search instead: slower, never wrong.
inline constexpr std::uint32_t kLongQueue = 256;
inline constexpr std::uint32_t kSegment = 32 * kUnroll;

struct CtaShared {
  eoff_t q_begin[kLongQueue];
  std::uint32_t q_len[kLongQueue];
  std::uint32_t q_seg[kLongQueue];  // exclusive prefix sum of segments per queued list
  std::uint32_t chunk;  // a row's chunks number at most 2^27 (32-bit degrees): a native shared atomic, not a 64-bit CAS loop
  std::uint32_t queued;
  std::uint32_t idx;
  std::uint32_t segments;
};

template <int kDefer, bool kPerVertex = false, bool kPerEdge = false, class Probe>
__device__ __forceinline__ unsigned long long cta_probe_row(const CountParams& p, const Probe& probe, eoff_t o0, eoff_t o1,
                                                           std::uint32_t keys, CtaShared& sh, void* scan_storage,
                                                           const PerVertexTile& pvt = {}, vid_t* q_v = nullptr) {
  using Scan = cub::BlockScan<std::uint32_t, kCtaThreads>;
  const auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  const std::uint32_t lane = warp.thread_rank();
  unsigned long long found = probe_two_hop<32, kDefer, false, kPerVertex, kPerEdge>(
      warp, p, probe, o0, o1, keys,
      [&](std::uint64_t& c) {
        std::uint32_t x = 0;
        if (lane == 0) x = atomicAdd(&sh.chunk, 1u);
        c = warp.shfl(x, 0);
        return true;
      },
      [&](const auto& t, std::uint32_t mask, bool mine, eoff_t begin, std::uint32_t len, const auto& pr, vid_t v) {
        if (!mask) return 0ull;
        std::uint32_t first = 0;
        if (lane == 0) first = atomicAdd(&sh.queued, static_cast<std::uint32_t>(__popc(mask)));
        first = t.shfl(first, 0);
        const std::uint32_t rank = __popc(mask & ((1u << lane) - 1));
        if (first + __popc(mask) <= kLongQueue) {
          if (mine) {
            sh.q_begin[first + rank] = begin;
            sh.q_len[first + rank] = len;
            if constexpr (kPerVertex) q_v[first + rank] = v;
          }
          return 0ull;
        }
        if (mine && first + rank < kLongQueue) sh.q_len[first + rank] = 0;  // queue full: slot left empty
        return walk_long_lists<32, kPerVertex, kPerEdge>(t, p, mask, begin, len, pr, pvt);
      },
      ReverseSearch{}, pvt);
  __syncthreads();  // queue complete
  const std::uint32_t queued = sh.queued < kLongQueue ? sh.queued : kLongQueue;
  if (queued == 0) return found;  // uniform: every thread read the same count
  {
    std::uint32_t segs[2], excl[2], total = 0;
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      const std::uint32_t i = threadIdx.x * 2 + q;
      segs[q] = i < queued ? (sh.q_len[i] + kSegment - 1) / kSegment : 0;
    }
    Scan(*static_cast<typename Scan::TempStorage*>(scan_storage)).ExclusiveSum(segs, excl, total);
#pragma unroll
    for (int q = 0; q < 2; ++q)
      if (threadIdx.x * 2 + q < queued) sh.q_seg[threadIdx.x * 2 + q] = excl[q];
    if (threadIdx.x == 0) sh.segments = total;
  }
  __syncthreads();
  const std::uint32_t segments = sh.segments;
  std::uint32_t lo = 0;  // the list of this warp's previous segment (a warp takes its segments in order)
  for (std::uint32_t sgm = threadIdx.x / 32; sgm < segments; sgm += kCtaThreads / 32) {
    // The last list whose first segment is <= sgm, looked up in a window of 32 lists from
    // the previous one with one ballot (q_seg is non-decreasing, so the lanes that pass
    // are a prefix; lane 0 always passes) instead of a binary search per segment.
    for (;;) {
      const std::uint32_t i = lo + lane;
      const std::uint32_t m = warp.ballot(i < queued && sh.q_seg[i] <= sgm);
      lo += __popc(m) - 1;
      if (m != 0xFFFFFFFFu) break;
    }
    const std::uint32_t off = (sgm - sh.q_seg[lo]) * kSegment;
    const std::uint32_t rest = sh.q_len[lo] - off;
    const std::uint32_t left = rest < kSegment ? rest : kSegment;  // this segment's elements (> 0)
    const vid_t* list = p.two_hop.neighbors + sh.q_begin[lo] + off;
    // Only the rounds of 32 the segment has are issued (the test is the same on every
    // lane): a long list's last segment is partly empty, and with all 4 rounds issued
    // Kronecker 18's CTA rows used 67-73% of the lanes they issued.
    vid_t w[kUnroll];
#pragma unroll
    for (std::uint32_t q = 0; q < kUnroll; ++q) {
      if (q * 32 >= left) break;
      const std::uint32_t k = q * 32 + lane;
      w[q] = k < left ? list[k] : 0;
    }
    std::uint32_t segment_hits = 0;  // 32-bit adds per element, one 64-bit add per segment
#pragma unroll
    for (std::uint32_t q = 0; q < kUnroll; ++q) {
      if (q * 32 >= left) break;
      if (q * 32 + lane < left) {
        const std::uint32_t hit = probe(w[q]);
        if constexpr (kPerVertex) {
          if (hit) {
            tally_hit<kPerEdge>(probe, pvt, w[q]);
            if constexpr (kPerEdge) pvt.add_col_edge(sh.q_begin[lo] + off + q * 32 + lane);
          }
        }
        segment_hits += hit;
      }
    }
    found += segment_hits;  // once per segment
    if constexpr (kPerVertex) {  // the segment's list is one 1-hop entry's: one atomic for it
      const std::uint32_t hits = cg::reduce(warp, segment_hits, cg::plus<std::uint32_t>());
      if (lane == 0 && hits) {
        if constexpr (kPerEdge) pvt.add_mid_edge(o0 + q_v[lo], hits);
        else atomicAdd(&pvt.mid_counts[q_v[lo]], static_cast<unsigned long long>(hits));
      }
    }
  }
  return found;
}

// kMinBlocks: CTAs per SM the register allocation must allow (shipped: 6). kDefer: as for
// count_tile_rows.
// kPerVertex: as for count_tile_rows (its words after the table or bitmap: kCtaPerVertexWords).
template <int kMinBlocks, int kDefer, bool kPerVertex = false, bool kPerEdge = false>
__global__ void __launch_bounds__(kCtaThreads, kMinBlocks) count_cta_rows(CountParams p) {
  extern __shared__ __align__(16) std::uint32_t smem[];
  using Reduce = cub::BlockReduce<unsigned long long, kCtaThreads>;
  using Scan = cub::BlockScan<std::uint32_t, kCtaThreads>;
  __shared__ union {
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
  } temp;
  __shared__ CtaShared sh;

  const std::uint32_t rows = p.list_sizes[0];
  vid_t* global_slots = p.cta_scratch + blockIdx.x * p.cta_scratch_words;
  PerVertexTile pvt;
  vid_t* q_v = nullptr;  // the 1-hop entry of each queued long list
  // kPerVertex: a bitmap row counting by key rank lays out its bitmap words, each beside its
  // prefix count, then the counters, from smem on up to the tally's end (the tally, unused
  // then, is cleared again before the next row that hashes).
  std::uint32_t region_words = 0, rank_words = 0;
  bool tally_dirty = false;
  if constexpr (kPerVertex) {
    const std::uint32_t table_words = p.cta_table.shared_words > p.cta_bitmap_words ? p.cta_table.shared_words : p.cta_bitmap_words;
    region_words = (table_words + 1) / 2 * 2;
    rank_words = region_words + 2 * kCtaTallySlots;
    std::uint32_t* pv_words = smem + region_words;
    pvt.tally.slots = reinterpret_cast<uint2*>(pv_words);
    pvt.tally.global = p.col_counts;
    std::uint32_t* edge_words = pv_words + 2 * kCtaTallySlots;
    pvt.edge_hits = edge_words + (threadIdx.x / 32) * 32;
    pvt.mid_counts = p.mid_counts;
    set_edge_counters(pvt, p);
    q_v = edge_words + kCtaThreads;
    static_assert(2 * kCtaTallySlots + kCtaThreads + kLongQueue <= kCtaPerVertexWords, "per-vertex words");
    clear_tally(pvt.tally.slots, kCtaTallySlots, threadIdx.x, kCtaThreads);
    edge_words[threadIdx.x] = 0;
    __syncthreads();
  }
  unsigned long long found = 0;
  for (;;) {
    if (threadIdx.x == 0) {
      sh.idx = atomicAdd(&p.next[0], 1u);
      sh.chunk = 0;
      sh.queued = 0;
    }
    __syncthreads();
    const std::uint32_t idx = sh.idx;
    if (idx >= rows) break;
    const vid_t u = p.cta_rows[rows - 1 - idx];
    const eoff_t h0 = p.hash.offsets[u], h1 = p.hash.offsets[u + 1];
    const eoff_t o0 = p.one_hop.offsets[u], o1 = p.one_hop.offsets[u + 1];
    const std::uint32_t keys = static_cast<std::uint32_t>(h1 - h0);
    const vid_t kmin = p.hash.neighbors[h0], kmax = p.hash.neighbors[h1 - 1];
    // Bitmap when u's key span fits (keys are sorted and distinct: kmin <= kmax).
    const std::uint64_t span_words = (std::uint64_t(kmax - kmin) >> 5) + 1;
    const bool use_bitmap = span_words <= p.cta_bitmap_words;
    const TableShape shape = make_table_shape(keys, p.cta_table);
    const bool use_table = !use_bitmap && keys <= p.table_limit && shape.global_words() <= p.cta_scratch_words;
    bool by_rank = false;  // kPerVertex: w's hits by key rank (KeyRanks)
    if constexpr (kPerVertex) {
      by_rank = use_bitmap && p.rank_counts && 2 * span_words + keys <= rank_words;
      if (tally_dirty && !by_rank) {  // a rank row's counters lay over it
        clear_tally(pvt.tally.slots, kCtaTallySlots, threadIdx.x, kCtaThreads);
        tally_dirty = false;
      }
    }
    BucketTable table;
    table.place(smem, shape, global_slots, p.cta_table.hash_multiplier);
    if (use_bitmap) {
      const std::uint32_t words = static_cast<std::uint32_t>(span_words);
      // A rank row's word w is smem[2 w], beside its count of set bits before (BitmapRankProber).
      const std::uint32_t stride = by_rank ? 2u : 1u;
      for (std::uint32_t w = threadIdx.x; w < stride * words; w += kCtaThreads) smem[w] = 0;
      if constexpr (kPerVertex) {
        if (by_rank)
          for (std::uint32_t e = threadIdx.x; e < keys; e += kCtaThreads) smem[2 * words + e] = 0;
      }
      __syncthreads();
      for (std::uint32_t e = threadIdx.x; e < keys; e += kCtaThreads) {
        const std::uint32_t x = p.hash.neighbors[h0 + e] - kmin;
        atomicOr(&smem[stride * (x >> 5)], 1u << (x & 31u));
      }
      if constexpr (kPerVertex) {
        if (by_rank) {  // the set bits before each word: a block-wide exclusive sum, words in runs per thread
          __syncthreads();
          const std::uint32_t per = (words + kCtaThreads - 1) / kCtaThreads;
          const std::uint32_t w0 = threadIdx.x * per < words ? threadIdx.x * per : words;
          const std::uint32_t w1 = w0 + per < words ? w0 + per : words;
          std::uint32_t bits = 0;
          for (std::uint32_t w = w0; w < w1; ++w) bits += __popc(smem[2 * w]);
          std::uint32_t before = 0;
          Scan(temp.scan).ExclusiveSum(bits, before);
          for (std::uint32_t w = w0; w < w1; ++w) {
            smem[2 * w + 1] = before;
            before += __popc(smem[2 * w]);
          }
        }
      }
    } else if (use_table) {
      table.clear(threadIdx.x, kCtaThreads);
      __syncthreads();
      for (std::uint32_t e = threadIdx.x; e < keys; e += kCtaThreads) table.insert(p.hash.neighbors[h0 + e]);
    }
    __syncthreads();  // table built; sh.idx read by every thread

    const unsigned long long found_before = found;  // kPerVertex: this row's hits are the difference
    if constexpr (kPerVertex) {
      pvt.tally.size_for(keys, 10);  // log2 of kCtaTallySlots
      const std::uint32_t words = static_cast<std::uint32_t>(span_words);
      pvt.tally.ranks = by_rank ? KeyRanks{smem + 2 * words, p.hash.neighbors + h0, keys} : KeyRanks{};
      if constexpr (kPerEdge) pvt.tally.set_keys(p.hash_edges + h0, p.hash.neighbors + h0, keys);
    }
    bool probed = false;  // by the counting prober (kPerVertex only: the plain kernel has none)
    if constexpr (kPerVertex) {
      if (by_rank) {
        const std::uint32_t words = static_cast<std::uint32_t>(span_words);
        found += cta_probe_row<kDefer, kPerVertex, kPerEdge>(p, BitmapRankProber{reinterpret_cast<const uint2*>(smem), smem + 2 * words, kmin, kmax}, o0, o1, keys,
                                                   sh, &temp.scan, pvt, q_v);
        probed = true;
      }
    }
    if (probed) {
    } else if (use_bitmap) {
      found += cta_probe_row<kDefer, kPerVertex, kPerEdge>(p, BitmapProber{smem, kmin, kmax}, o0, o1, keys, sh, &temp.scan, pvt, q_v);
    } else if (!use_table) {
      found += cta_probe_row<kDefer, kPerVertex, kPerEdge>(p, Prober<false, true>{table, p.hash.neighbors + h0, keys, kmin, kmax}, o0, o1, keys, sh, &temp.scan, pvt, q_v);
    } else if (!shape.all_shared()) {
      found += cta_probe_row<kDefer, kPerVertex, kPerEdge>(p, Prober<true, false>{table, p.hash.neighbors + h0, keys, kmin, kmax}, o0, o1, keys, sh, &temp.scan, pvt, q_v);
    } else {
      found += cta_probe_row<kDefer, kPerVertex, kPerEdge>(p, Prober<false, false>{table, p.hash.neighbors + h0, keys, kmin, kmax}, o0, o1, keys, sh, &temp.scan, pvt, q_v);
    }
    __syncthreads();  // the table, the queue and the counters are reused by the next row
    if constexpr (kPerVertex) {  // u once per warp; the tally flushed before the next row's barrier
      const auto warp = cg::tiled_partition<32>(cg::this_thread_block());
      const unsigned long long row_hits = cg::reduce(warp, found - found_before, cg::plus<unsigned long long>());
      if (warp.thread_rank() == 0 && row_hits && !kPerEdge) atomicAdd(&p.row_counts[u], row_hits);
      pvt.tally.template flush<kPerEdge>(threadIdx.x, kCtaThreads);
      if (by_rank && 2 * span_words + keys > region_words) tally_dirty = true;
    }
  }
  const unsigned long long block_total = Reduce(temp.reduce).Sum(found);
  if (threadIdx.x == 0 && block_total) atomicAdd(p.result, block_total);
}

// Tasks whose rows are all tiny (hash and 1-hop rows of at most kThreadMaxRow entries,
// 2-hop rows of at most kThreadMaxList: 3D grids, meshes): one thread per row, u's keys
// and 1-hop entries in registers, the 2-hop lists compared against the keys directly. No
// classification, no table, no warp waiting on one row's chain of dependent loads: the
// warp path spends a grid's time in that chain (2 M rows of 3 x 3 elements), here every
// thread runs its own and all of a row's 1-hop lookups are issued before any list is read.
inline constexpr std::uint32_t kThreadMaxRow = 8;
inline constexpr std::uint32_t kThreadMaxList = 64;
inline constexpr int kThreadBlockThreads = 256;

// A thread row's hit on key w (at position `key_at` of the hash block) through 2-hop
// element `two_hop_at`: w's counter, or (kPerEdge) the two edges' counters.
template <bool kPerEdge>
__device__ __forceinline__ void add_key_hit(const CountParams& p, vid_t w, eoff_t key_at, eoff_t two_hop_at) {
  if constexpr (kPerEdge) {
    atomicAdd(&p.hash_edges[key_at], 1u);
    atomicAdd(&p.two_hop_edges[two_hop_at], 1u);
  } else {
    atomicAdd(&p.col_counts[w], 1ull);
  }
}
// A thread row's hits through its 1-hop entry v at position t: v's counter, or (kPerEdge) the edge's.
template <bool kPerEdge>
__device__ __forceinline__ void add_entry_hits(const CountParams& p, vid_t v, eoff_t t, std::uint32_t hits) {
  if constexpr (kPerEdge) atomicAdd(&p.one_hop_edges[p.one_hop_edge_of ? p.one_hop_edge_of[t] : t], hits);
  else atomicAdd(&p.mid_counts[v], static_cast<unsigned long long>(hits));
}

// kRow: the most hash and 1-hop entries a row may have (kThreadMaxRow, or 4: half the
// registers where no row has more). kPerVertex: each thread adds its row's, its 1-hop
// entries' and its hits' counts itself (kPerEdge: its 1-hop entries', its keys' and its
// 2-hop elements' edges).
template <std::uint32_t kRow, bool kPerVertex = false, bool kPerEdge = false>
__global__ void __launch_bounds__(kThreadBlockThreads) count_thread_rows(CountParams p, std::uint64_t rows, std::uint32_t split,
                                                                         std::uint32_t splits) {
  using Reduce = cub::BlockReduce<unsigned long long, kThreadBlockThreads>;
  __shared__ typename Reduce::TempStorage reduce_storage;
  unsigned long long found = 0;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * kThreadBlockThreads;
  for (std::uint64_t u = std::uint64_t(blockIdx.x) * kThreadBlockThreads + threadIdx.x; u < rows; u += stride) {
    if (splits > 1 && split_of_row(u, splits) != split) continue;
    const eoff_t h0 = p.hash.offsets[u], h1 = p.hash.offsets[u + 1];
    const eoff_t o0 = p.one_hop.offsets[u], o1 = p.one_hop.offsets[u + 1];
    const std::uint32_t keys = static_cast<std::uint32_t>(h1 - h0);
    const std::uint32_t ones = static_cast<std::uint32_t>(o1 - o0);
    if (keys == 0 || ones == 0) continue;
    vid_t key[kRow], v[kRow];
#pragma unroll
    for (std::uint32_t q = 0; q < kRow; ++q) {
      key[q] = q < keys ? p.hash.neighbors[h0 + q] : 0;
      v[q] = q < ones ? p.one_hop.neighbors[o0 + q] : 0;
    }
    eoff_t b[kRow], e[kRow];
#pragma unroll
    for (std::uint32_t q = 0; q < kRow; ++q) {
      b[q] = e[q] = 0;
      if (q < ones) {
        b[q] = p.two_hop.offsets[v[q]];
        e[q] = p.two_hop.offsets[v[q] + 1];
      }
    }
    const vid_t kmin = key[0];
    vid_t kmax = key[0];
#pragma unroll
    for (std::uint32_t q = 1; q < kRow; ++q)
      if (q < keys) kmax = key[q];  // keys are sorted (no dynamic register indexing)
    unsigned long long row_hits = 0;  // kPerVertex
#pragma unroll
    for (std::uint32_t q = 0; q < kRow; ++q) {
      std::uint32_t edge_hits = 0;
      for (eoff_t f = b[q]; f < e[q]; ++f) {
        const vid_t w = p.two_hop.neighbors[f];
        if (w < kmin || w > kmax) continue;
        if constexpr (kPerVertex) {  // w is at most one key: one branch per element, not per key
          std::uint32_t hit = 0, rank = 0;
#pragma unroll
          for (std::uint32_t r = 0; r < kRow; ++r) {
            const bool m = r < keys && key[r] == w;
            hit |= m ? 1u : 0u;
            rank = m ? r : rank;
          }
          edge_hits += hit;
          if (hit) add_key_hit<kPerEdge>(p, w, h0 + rank, f);
        } else {
#pragma unroll
          for (std::uint32_t r = 0; r < kRow; ++r)
            edge_hits += (r < keys && key[r] == w) ? 1u : 0u;  // keys are distinct
        }
      }
      found += edge_hits;  // once per 1-hop entry
      if constexpr (kPerVertex) {
        if (edge_hits) add_entry_hits<kPerEdge>(p, v[q], o0 + q, edge_hits);
        row_hits += edge_hits;
      }
    }
    if constexpr (kPerVertex && !kPerEdge) {
      if (row_hits) atomicAdd(&p.row_counts[u], row_hits);
    }
  }
  const unsigned long long block_total = Reduce(reduce_storage).Sum(found);
  if (threadIdx.x == 0 && block_total) atomicAdd(p.result, block_total);
}

// Tasks of short rows (no CTA row, no v side, short 2-hop lists, an average 1-hop row of at
// most CudaTuning::filter_row_average entries: a uniform graph cut into parts): one thread per
// row, as count_thread_rows, but for rows of any length. A warp on a row of 4 to 8 entries
// leaves most lanes idle and waits on one row's chain of loads; here each thread walks its
// own chain, fetching the next entry's bounds while it walks a list. u's keys go into a
// 128-bit filter in registers; a 2-hop element is searched for in u's sorted keys (through
// L1) only when it passes the filter (one multiply, one bit). Rows of more entries stay with
// the warp kernel, whose lanes read a list's elements together (bench/RESULTS.md, issue 34).
__device__ __forceinline__ std::uint32_t filter_bit(vid_t w) { return (w * 0x9E3779B1u) >> 25; }  // 0..127

template <bool kPerVertex = false, bool kPerEdge = false>
__global__ void __launch_bounds__(kThreadBlockThreads) count_filter_rows(CountParams p, std::uint64_t rows, std::uint32_t split,
                                                                          std::uint32_t splits) {
  using Reduce = cub::BlockReduce<unsigned long long, kThreadBlockThreads>;
  __shared__ typename Reduce::TempStorage reduce_storage;
  unsigned long long found = 0;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * kThreadBlockThreads;
  auto bounds = [&](vid_t v, eoff_t& b, eoff_t& e) {
    if (p.two_hop_offsets32) {
      b = p.two_hop_offsets32[v];
      e = p.two_hop_offsets32[v + 1];
    } else {
      b = p.two_hop.offsets[v];
      e = p.two_hop.offsets[v + 1];
    }
  };
  for (std::uint64_t u = std::uint64_t(blockIdx.x) * kThreadBlockThreads + threadIdx.x; u < rows; u += stride) {
    if (splits > 1 && split_of_row(u, splits) != split) continue;
    const eoff_t h0 = p.hash.offsets[u], h1 = p.hash.offsets[u + 1];
    const eoff_t o0 = p.one_hop.offsets[u], o1 = p.one_hop.offsets[u + 1];
    if (h0 == h1 || o0 == o1) continue;
    // 1. The first entry's bounds, then u's keys into the filter while they load.
    vid_t v = p.one_hop.neighbors[o0];
    eoff_t b, e;
    bounds(v, b, e);
    std::uint32_t m0 = 0, m1 = 0, m2 = 0, m3 = 0;
    for (eoff_t q = h0; q < h1; ++q) {
      const std::uint32_t bit = filter_bit(p.hash.neighbors[q]);
      const std::uint32_t one = 1u << (bit & 31);
      m0 |= bit < 32 ? one : 0u;
      m1 |= bit - 32 < 32 ? one : 0u;
      m2 |= bit - 64 < 32 ? one : 0u;
      m3 |= bit >= 96 ? one : 0u;
    }
    const vid_t kmin = p.hash.neighbors[h0], kmax = p.hash.neighbors[h1 - 1];
    const std::uint32_t keys = static_cast<std::uint32_t>(h1 - h0);
    unsigned long long row_hits = 0;  // kPerVertex
    // 2. Each 1-hop entry's list against the filter; the next entry's bounds in flight.
    for (eoff_t t = o0;;) {
      const bool more = t + 1 < o1;
      vid_t next_v = 0;
      eoff_t nb = 0, ne = 0;
      if (more) {
        next_v = p.one_hop.neighbors[t + 1];
        bounds(next_v, nb, ne);
      }
      std::uint32_t edge_hits = 0;
      for (eoff_t f = b; f < e; ++f) {
        const vid_t w = p.two_hop.neighbors[f];
        if (w > kmax) break;  // sorted: nothing further can be a key
        if (w < kmin) continue;
        const std::uint32_t bit = filter_bit(w);
        const std::uint32_t word = bit < 64 ? (bit < 32 ? m0 : m1) : (bit < 96 ? m2 : m3);
        if (!((word >> (bit & 31)) & 1u)) continue;
        // w passed the filter: search u's keys (the last key <= w; w >= kmin)
        const eoff_t at = h0 + key_floor(p.hash.neighbors + h0, keys, w);
        if (p.hash.neighbors[at] != w) continue;
        ++edge_hits;
        if constexpr (kPerVertex) add_key_hit<kPerEdge>(p, w, at, f);
      }
      found += edge_hits;  // once per 1-hop entry
      if constexpr (kPerVertex) {
        if (edge_hits) add_entry_hits<kPerEdge>(p, v, t, edge_hits);
        row_hits += edge_hits;
      }
      if (!more) break;
      ++t;
      v = next_v;
      b = nb;
      e = ne;
    }
    if constexpr (kPerVertex && !kPerEdge) {
      if (row_hits) atomicAdd(&p.row_counts[u], row_hits);
    }
  }
  const unsigned long long block_total = Reduce(reduce_storage).Sum(found);
  if (threadIdx.x == 0 && block_total) atomicAdd(p.result, block_total);
}

// The tiny rows of a classified side (RowClassifier::tiny_max: hash and 1-hop lists of 1 to
// tiny_max entries, which the classifier leaves out of the CTA and warp lists): one thread
// per row, u's keys and 1-hop entries in registers, as count_thread_rows. More parts make
// most rows this small, and a warp's table, barriers and chunk grabs cost such a row more
// than its probes. A 2-hop list is walked against the keys up to kThreadMaxList elements
// (stopping past the largest key), longer ones are searched for each key. kDefer: the
// edges defers_edge() gives to v's side are counted and marked as the warp kernel marks
// them (the same predicate on the same lengths, so each edge is still counted once).
template <int kDefer, bool kPerVertex = false, bool kPerEdge = false>
__global__ void __launch_bounds__(kThreadBlockThreads) count_tiny_rows(CountParams p, std::uint64_t rows, std::uint32_t split,
                                                                       std::uint32_t splits, std::uint32_t tiny_max) {
  using Reduce = cub::BlockReduce<unsigned long long, kThreadBlockThreads>;
  __shared__ typename Reduce::TempStorage reduce_storage;
  unsigned long long found = 0;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * kThreadBlockThreads;
  for (std::uint64_t u = std::uint64_t(blockIdx.x) * kThreadBlockThreads + threadIdx.x; u < rows; u += stride) {
    if (splits > 1 && split_of_row(u, splits) != split) continue;
    const eoff_t h0 = p.hash.offsets[u], h1 = p.hash.offsets[u + 1];
    const eoff_t o0 = p.one_hop.offsets[u], o1 = p.one_hop.offsets[u + 1];
    const eoff_t keys = h1 - h0, ones = o1 - o0;
    if (keys == 0 || ones == 0 || keys > tiny_max || ones > tiny_max) continue;  // none, or the warp and CTA lists'
    vid_t key[kThreadMaxRow], v[kThreadMaxRow];
#pragma unroll
    for (std::uint32_t q = 0; q < kThreadMaxRow; ++q) {
      key[q] = q < keys ? p.hash.neighbors[h0 + q] : kNeverKey;
      v[q] = q < ones ? p.one_hop.neighbors[o0 + q] : 0;
    }
    eoff_t b[kThreadMaxRow], e[kThreadMaxRow];
#pragma unroll
    for (std::uint32_t q = 0; q < kThreadMaxRow; ++q) {
      b[q] = e[q] = 0;
      if (q < ones) {
        b[q] = p.two_hop.offsets[v[q]];
        e[q] = p.two_hop.offsets[v[q] + 1];
      }
    }
    const vid_t kmin = key[0];
    vid_t kmax = key[0];
#pragma unroll
    for (std::uint32_t q = 1; q < kThreadMaxRow; ++q)
      if (q < keys) kmax = key[q];  // keys are sorted (no dynamic register indexing)
    std::uint32_t deferred = 0;
    unsigned long long row_hits = 0;  // kPerVertex
#pragma unroll
    for (std::uint32_t q = 0; q < kThreadMaxRow; ++q) {
      if (q >= ones) continue;
      const eoff_t len = e[q] - b[q];
      if constexpr (kDefer) {
        if (defers_edge(len, keys, p.defer_quarters)) {
          deferred |= 1u << q;
          if constexpr (kDefer == kDeferPlaces) p.deferred_places[o0 + q] = static_cast<std::uint32_t>(atomicAdd(&p.deferred_per_v[v[q]], 1ull));
          else atomicAdd(&p.deferred_per_v[v[q]], 1ull);
          continue;
        }
      }
      std::uint32_t edge_hits = 0;
      if (len <= kThreadMaxList) {
        for (eoff_t f = b[q]; f < e[q]; ++f) {
          const vid_t w = p.two_hop.neighbors[f];
          if (w > kmax) break;  // sorted: nothing further can be a key
          if (w < kmin) continue;
          if constexpr (kPerVertex) {  // w is at most one key: one branch per element
            std::uint32_t hit = 0, rank = 0;
#pragma unroll
            for (std::uint32_t r = 0; r < kThreadMaxRow; ++r) {
              const bool m = key[r] == w;
              hit |= m ? 1u : 0u;
              rank = m ? r : rank;
            }
            edge_hits += hit;
            if (hit) add_key_hit<kPerEdge>(p, w, h0 + rank, f);
          } else {
#pragma unroll
            for (std::uint32_t r = 0; r < kThreadMaxRow; ++r) {
              const std::uint32_t hit = key[r] == w ? 1u : 0u;  // keys are distinct; unused ones never match
              edge_hits += hit;
            }
          }
        }
      } else {
#pragma unroll
        for (std::uint32_t r = 0; r < kThreadMaxRow; ++r) {
          if (r >= keys) continue;
          std::uint32_t hit;
          eoff_t at = 0;  // kPerEdge: where key r sits in the 2-hop list
          if constexpr (kPerEdge) {
            at = first_not_below(p.two_hop.neighbors, b[q], e[q], key[r]);
            hit = at < e[q] && p.two_hop.neighbors[at] == key[r] ? 1u : 0u;
          } else {
            hit = sorted_contains(p.two_hop.neighbors, b[q], e[q], key[r]) ? 1u : 0u;
          }
          edge_hits += hit;
          if constexpr (kPerVertex) {
            if (hit) add_key_hit<kPerEdge>(p, key[r], h0 + r, at);
          }
        }
      }
      found += edge_hits;
      if constexpr (kPerVertex) {
        if (edge_hits) add_entry_hits<kPerEdge>(p, v[q], o0 + q, edge_hits);
        row_hits += edge_hits;
      }
    }
    if constexpr (kDefer) {
      if (deferred) record_deferred(p.deferred_bits, o0, deferred);
    }
    if constexpr (kPerVertex && !kPerEdge) {
      if (row_hits) atomicAdd(&p.row_counts[u], row_hits);
    }
  }
  const unsigned long long block_total = Reduce(reduce_storage).Sum(found);
  if (threadIdx.x == 0 && block_total) atomicAdd(p.result, block_total);
}

}  // namespace tricount::cuda
