// Per-vertex counting on the CUDA backend (CountBackend::start_per_vertex): the kernels'
// variants with kPerVertex add 1 per triangle (u, v, w) to u's counter (its row), v's (its
// 1-hop entry) and w's (the 2-hop element that hit one of u's keys), in the arrays
// CountParams::row_counts, mid_counts and col_counts (the v side passes them with rows and
// 1-hop entries swapped). A plain count compiles none of this.
//
// Global atomics are aggregated first, because a Kronecker graph's triangles pile onto its
// hubs (one address taking millions of atomics would serialise the whole count):
//  * u: a row's hits are summed over the tile (warp rows) or per warp (CTA rows), one
//    atomic each; thread rows add their own row once;
//  * v: a chunk's hits per 1-hop entry are summed in shared memory (EdgeHits, one word per
//    lane of the chunk), one atomic per entry and chunk; a CTA row's queued long lists sum
//    per segment over the warp;
//  * w: every w is one of u's keys, so a row's hits per w are summed in shared memory and
//    flushed once per row: at most one atomic per (row, key) instead of one per triangle.
//    A CTA row with a key bitmap counts them by the key's rank among u's keys as it probes
//    (BitmapRankProber: a prefix count per bitmap word and a popcount, no hashing, every key
//    its own counter in KeyRanks); the
//    others in a small open-addressing table keyed by w (HitTally), where a hit goes to the
//    global counter directly once the table is full around w (never dropped), as a hub
//    row's thousands of keys would make it.
//
// Per-edge counting (kernels with kPerEdge as well, CountBackend::start_per_edge) runs the
// same code with the counters of edges, 32-bit and named by position in their block, in
// place of the vertices': a triangle's edge (u, v) is the 1-hop entry (the same per-entry
// sums; on the v side T's entry is mapped back to its P(i,j) position), (v, w) the 2-hop
// element (one atomic per hit: its position is known only where it is walked), and (u, w)
// u's key w, tallied as above and flushed to the key's position in u's list (its rank, or a
// binary search per tally slot). u's own count is not kept.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "src/types.hpp"
#include "worker/cuda/bucket_table.cuh"

namespace tricount::cuda {

inline constexpr vid_t kTallyEmpty = kMaxVertices;   // no local id is 2^32 - 1
inline constexpr std::uint32_t kTallyProbes = 8;     // slots tried before a hit goes to global memory
// Tally slots (8 bytes each) of a warp-kernel tile and of a CTA row: warp rows have fewer
// than 100 keys (the CTA threshold) and the warp kernel keeps its CTAs per SM with 4 KiB
// for the tallies of its 8 (or 32) tiles.
inline constexpr std::uint32_t kTileTallySlots32 = 64;
inline constexpr std::uint32_t kTileTallySlots8 = 16;
inline constexpr std::uint32_t kCtaTallySlots = 1024;

// The per-vertex words of the dynamic shared memory: a warp-kernel CTA's tallies (512
// slots: 8 tiles of 64 or 32 of 16) and edge words (256 lanes), and a CTA row's tally,
// edge words (256) and queued lists' v (256).
inline constexpr std::uint32_t kTilePerVertexWords = 2 * 512 + 256;
inline constexpr std::uint32_t kCtaPerVertexWords = 2 * kCtaTallySlots + 256 + 256;

// A CTA row's hits per key, by the key's rank among u's sorted keys (counted by the
// row's prober, BitmapRankProber): one counter per key, flushed at the row's end.
struct KeyRanks {
  std::uint32_t* counts = nullptr;  // nullptr: the row uses the hashed slots
  const vid_t* keys_list = nullptr;  // u's keys, sorted: rank r is key keys_list[r]
  std::uint32_t keys = 0;
};

// Shared hit counts per w for one row, flushed into the global counters at the row's end.
// Slots hold {w, hits}; a slot's w is set once (atomicCAS) and stays until the flush.
struct HitTally {
  uint2* slots = nullptr;
  std::uint32_t log2_slots = 1;
  unsigned long long* global = nullptr;  // col_counts
  KeyRanks ranks;  // set for a row whose prober counts by rank: flush those counters instead
  // Per-edge: the counters of u's keys' edges by rank (in place of `global`), and the keys.
  unsigned int* key_edges = nullptr;
  const vid_t* keys_list = nullptr;
  std::uint32_t keys = 0;

  __device__ __forceinline__ void set_keys(unsigned int* edges, const vid_t* list, std::uint32_t count) {
    key_edges = edges;
    keys_list = list;
    keys = count;
  }
  template <bool kPerEdge>
  __device__ __forceinline__ void to_global(vid_t w, std::uint32_t hits) const {
    if constexpr (kPerEdge) atomicAdd(&key_edges[rank_of_key(w)], hits);
    else atomicAdd(&global[w], static_cast<unsigned long long>(hits));
  }
  // w's rank among u's keys (w is one of them).
  __device__ __forceinline__ std::uint32_t rank_of_key(vid_t w) const {
    std::uint32_t lo = 0, hi = keys;
    while (lo < hi) {
      const std::uint32_t mid = (lo + hi) / 2;
      if (keys_list[mid] < w) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // Slots for a row of `keys` keys: twice the keys (a power of two), at most `capacity`.
  __device__ __forceinline__ void size_for(std::uint32_t keys, std::uint32_t capacity_log2) {
    const std::uint32_t want = ceil_log2_u64(2 * std::uint64_t(keys));
    log2_slots = want < 1 ? 1 : want < capacity_log2 ? want : capacity_log2;
  }
  template <bool kPerEdge>
  __device__ __forceinline__ void add(vid_t w) const {
    const std::uint32_t mask = (1u << log2_slots) - 1;
    std::uint32_t s = (w * kHashMultiplier) >> (32u - log2_slots);
    for (std::uint32_t tries = 0; tries < kTallyProbes; ++tries) {
      unsigned int* key = &slots[s].x;
      vid_t k = *reinterpret_cast<volatile unsigned int*>(key);
      if (k == kTallyEmpty) {
        k = atomicCAS(key, kTallyEmpty, w);
        if (k == kTallyEmpty) k = w;
      }
      if (k == w) {
        atomicAdd(&slots[s].y, 1u);
        return;
      }
      s = (s + 1) & mask;
    }
    to_global<kPerEdge>(w, 1);  // tally full around w's slot
  }
  // Adds every slot's hits to the global counters and empties the slots (all `threads`
  // threads call it once every add of the row is done; a barrier before the next row's adds).
  template <bool kPerEdge>
  __device__ __forceinline__ void flush(std::uint32_t thread, std::uint32_t threads) const {
    if (ranks.counts) {  // the counters are zeroed when the next row that uses them starts
      for (std::uint32_t r = thread; r < ranks.keys; r += threads) {
        const std::uint32_t c = ranks.counts[r];
        if (!c) continue;
        if constexpr (kPerEdge) atomicAdd(&key_edges[r], c);
        else atomicAdd(&global[ranks.keys_list[r]], static_cast<unsigned long long>(c));
      }
      return;
    }
    for (std::uint32_t s = thread; s < (1u << log2_slots); s += threads) {
      const uint2 e = slots[s];
      if (e.x == kTallyEmpty) continue;
      to_global<kPerEdge>(e.x, e.y);
      slots[s] = make_uint2(kTallyEmpty, 0);
    }
  }
};

__device__ __forceinline__ void clear_tally(uint2* slots, std::uint32_t count, std::uint32_t thread, std::uint32_t threads) {
  for (std::uint32_t s = thread; s < count; s += threads) slots[s] = make_uint2(kTallyEmpty, 0);
}

// What a tile's probing adds to, per vertex: the row's tally of w and the hits of each of
// the chunk's 1-hop entries (edge_hits[lane], lane = the entry's position in the chunk).
struct PerVertexTile {
  HitTally tally;
  std::uint32_t* edge_hits = nullptr;
  unsigned long long* mid_counts = nullptr;
  // Per-edge: the 1-hop block's counters (mid_edge_of: T's entry -> P(i,j) position, v side)
  // and the 2-hop block's.
  unsigned int* mid_edges = nullptr;
  const std::uint32_t* mid_edge_of = nullptr;
  unsigned int* col_edges = nullptr;
  __device__ __forceinline__ void add_mid_edge(eoff_t t, std::uint32_t hits) const {
    atomicAdd(&mid_edges[mid_edge_of ? mid_edge_of[t] : t], hits);
  }
  __device__ __forceinline__ void add_col_edge(eoff_t f) const { atomicAdd(&col_edges[f], 1u); }
};

}  // namespace tricount::cuda
