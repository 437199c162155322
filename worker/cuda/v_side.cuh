// The transposed v side: each edge (u, v) of P(i,j) is counted from the side that probes less.
//
// The count of a task is the sum over edges (u, v) of |H(u) ∩ N2(v)|, with H(u) =
// P(i,k)[u] and N2(v) = P(j,k)[v]. TRUST walks N2(v) through u's table: |N2(v)| probes per
// edge. Under the degree order a row's 2-hop lists belong to heavier vertices and are often
// much longer than its own keys (Kronecker 20: 74% of the edges have |N2(v)| > |H(u)|).
// The same intersection is |H(u)| probes the other way round, through a table of N2(v).
// So an edge whose 2-hop list is longer than quarters/4 times u's keys (defers_edge) is
// left out of the u-side walk and counted on "v's side": the edges v <- u are gathered into
// a transposed block T (rows of class j, entries u) and the same kernels run once more
// with hash = P(j,k), 1-hop = T, 2-hop = P(i,k): each such v builds a table (or bitmap)
// of its list and probes the keys of its in-neighbours u. Both sides test the same
// predicate on the same integers, so every edge is counted on exactly one side. On
// Kronecker 20 (n = 1) the probes fall from 3.9 G to 1.4 G (quarters = 4).
//
// T is built per task: the u side's kernels, which load every N2(v) length anyway, count
// the edges each v takes (deferred_per_v) and mark them (deferred_bits, a bit per edge of
// P(i,j)); a sum of the counts gives each row's bounds; scatter_deferred_edges writes u into
// its slot. Where T fits the L2, the u side also keeps each edge's place among v's (the
// count's old value, deferred_places) and the scatter writes u at v's row start plus its
// place, with no atomic of its own; a larger T takes its slots by atomics on the row ends,
// which placed it 1.6 times faster on Kronecker 24 (likely because atomics fill each row in
// edge order, places all over it at once; not profiled; bench/RESULTS.md, issue 34). Entries of a T
// row come in no particular order (only 2-hop lists and keys must be sorted; 1-hop lists
// are only walked). A separate counting pass cost as much as the scatter (random loads of
// N2(v)'s offsets; bench/notes/cuda-code-figures.md).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "src/task_plan.hpp"
#include "src/types.hpp"

namespace tricount::cuda {

// True when edge (u, v) is counted on v's side: v's 2-hop list is longer than quarters/4
// times u's keys (64-bit products: no overflow for 32-bit lengths).
__host__ __device__ __forceinline__ bool defers_edge(std::uint64_t two_hop_len, std::uint64_t row_keys,
                                                     std::uint32_t quarters) {
  return two_hop_len * 4 > row_keys * quarters;
}

struct TransposeParams {
  const eoff_t* one_hop_offsets = nullptr;  // P(i,j)
  const vid_t* one_hop_neighbors = nullptr;
  std::uint64_t rows = 0;                   // rows of class i
  std::uint64_t nnz = 0;                    // entries of P(i,j)
  const std::uint32_t* bits = nullptr;      // which edges are deferred (set by the u side)
  const std::uint32_t* places = nullptr;    // each deferred edge's place in its row (set by the u side; null: not kept)
  eoff_t* t_offsets = nullptr;              // T's row starts (places), or its row ends, decremented into starts
  vid_t* t_neighbors = nullptr;             // T's entries
  std::uint32_t* t_edges = nullptr;         // per-edge: each entry's position in P(i,j) (null: not kept)
};

// Marks edge first + i of P(i,j) as deferred for each bit i set in m (at most 32 edges, so
// at most two words).
__device__ __forceinline__ void record_deferred(std::uint32_t* bits, std::uint64_t first, std::uint32_t m) {
  const std::uint64_t shifted = std::uint64_t(m) << (first & 31u);
  std::uint32_t* word = bits + first / 32;
  if (static_cast<std::uint32_t>(shifted)) atomicOr(word, static_cast<std::uint32_t>(shifted));
  if (shifted >> 32) atomicOr(word + 1, static_cast<std::uint32_t>(shifted >> 32));
}

inline constexpr int kTransposeBlockThreads = 256;
inline constexpr std::uint32_t kTransposeEdgesPerThread = 16;  // consecutive edges per thread
inline constexpr std::uint32_t kTransposeLoads = 8;            // edges whose slots are in flight together

// Writes u into v's row of T for every deferred edge (u, v) (the bits the u side set): at
// v's row start plus the edge's place, or (no places) at a slot taken by decrementing v's
// row end, so that the ends become T's offsets. Each thread takes kTransposeEdgesPerThread
// consecutive edges, so hub rows are spread over many threads; it skips its edges if none
// is deferred, else finds the row of its first edge by binary search over the offsets and
// steps on from there. Without places the kernel is latency-bound on the slot atomics
// (Nsight Compute, Kronecker 18: 93 cycles per issued instruction at 46% occupancy); 8 edges
// per thread, 4 atomics in flight and 8 CTAs per SM were no faster. kPlaces: p.places is set
// (a kernel of its own: the atomics' kernel keeps its registers).
template <bool kPlaces>
__global__ void __launch_bounds__(kTransposeBlockThreads) scatter_deferred_edges(TransposeParams p) {
  static_assert(sizeof(eoff_t) == sizeof(unsigned long long), "row ends are decremented with 64-bit atomics");
  static_assert(32 % kTransposeEdgesPerThread == 0, "a thread's decision bits lie in one word");
  const std::uint64_t stride = std::uint64_t(gridDim.x) * kTransposeBlockThreads * kTransposeEdgesPerThread;
  for (std::uint64_t e0 = (std::uint64_t(blockIdx.x) * kTransposeBlockThreads + threadIdx.x) * kTransposeEdgesPerThread; e0 < p.nnz;
       e0 += stride) {
    const std::uint32_t bits = (p.bits[e0 / 32] >> (e0 & 31u)) & ((1u << kTransposeEdgesPerThread) - 1u);
    if (bits == 0) continue;
    const std::uint64_t e1 = e0 + kTransposeEdgesPerThread < p.nnz ? e0 + kTransposeEdgesPerThread : p.nnz;
    std::uint64_t lo = 0, hi = p.rows;  // offsets[lo] <= e0 < offsets[hi]
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (p.one_hop_offsets[mid] <= e0) lo = mid;
      else hi = mid;
    }
    std::uint64_t u = lo;
    eoff_t row_end = p.one_hop_offsets[u + 1];
    for (std::uint32_t b0 = 0; e0 + b0 < e1; b0 += kTransposeLoads) {
      const std::uint64_t eb = e0 + b0;
      vid_t v[kTransposeLoads], from[kTransposeLoads];
      std::uint32_t place[kTransposeLoads];
#pragma unroll
      for (std::uint32_t q = 0; q < kTransposeLoads; ++q) {
        const bool taken = bits >> (b0 + q) & 1u;
        v[q] = taken ? p.one_hop_neighbors[eb + q] : 0;
        if constexpr (kPlaces) place[q] = taken ? p.places[eb + q] : 0;
      }
#pragma unroll
      for (std::uint32_t q = 0; q < kTransposeLoads; ++q) {
        const std::uint64_t e = eb + q;
        from[q] = 0;
        if (e >= e1) continue;
        if (e >= row_end) {  // next non-empty row
          do row_end = p.one_hop_offsets[++u + 1];
          while (e >= row_end);
        }
        from[q] = static_cast<vid_t>(u);
      }
      eoff_t slot[kTransposeLoads];
#pragma unroll
      for (std::uint32_t q = 0; q < kTransposeLoads; ++q)
        if (bits >> (b0 + q) & 1u)
          if constexpr (kPlaces) slot[q] = p.t_offsets[v[q]] + place[q];
          else slot[q] = atomicAdd(reinterpret_cast<unsigned long long*>(p.t_offsets + v[q]), ~0ull) - 1;
#pragma unroll
      for (std::uint32_t q = 0; q < kTransposeLoads; ++q)
        if (bits >> (b0 + q) & 1u) {
          p.t_neighbors[slot[q]] = from[q];
          if (p.t_edges) p.t_edges[slot[q]] = static_cast<std::uint32_t>(eb + q);
        }
    }
  }
}

}  // namespace tricount::cuda
