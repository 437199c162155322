// Per-edge counting on the CUDA backend with CudaTuning::edge_lists (else per-edge tasks run
// count_kernels.cuh's kPerEdge form, which is faster: bench/RESULTS.md; kept as an option
// and as the benchmark's independent check of it): one kernel of its own. Each triangle (u, v, w) of the task adds 1
// to its three edges' 32-bit counters, each named by its position in its block's neighbour
// array: (u, v) at e in P(i,j), (u, w) in P(i,k), (v, w) in P(j,k). A sorted-list
// intersection knows both positions of every common w, and adds to the vertices' counters
// beside, which the kPerEdge kernels do not.
//
// What it does, and why:
//  * Tiles of G lanes take chunks of P(i,j) edges from a global counter, from the last edge
//    down (rows are numbered by ascending degree, so the heaviest edges go first); a chunk
//    costs one binary search for its first row. Rows of other workload splits are skipped.
//  * For the edge e = (u, v): the shorter of H(u) = P(i,k)[u] and N2(v) = P(j,k)[v] is
//    spread over the tile's lanes, and each lane searches its elements in the longer list
//    (binary search from where its previous element was found: a lane's elements ascend).
//    Elements of the shorter list below the longer one's first are skipped by one search,
//    and a lane stops at the first element above the longer one's last.
//  * Each common w: 1 to the counters of its positions in H(u) and in N2(v) (atomics: the
//    three blocks may be one block, and other tiles reach the same edges); the tile's sum
//    for e goes to e's counter once (and, per vertex, to u's and v's counters; w's gets 1).
//  * G = 32 where u's lists can be long (the hash block has a row of 128 or more), else 8:
//    degree orientation keeps most lists short, and a warp per short pair idles its lanes.
//  * 64-bit counts per lane, cub::BlockReduce per CTA, one atomicAdd per CTA.
// Per edge it probes min(|H(u)|, |N2(v)|) log max(...) elements, about what the CPU
// backend's gallop does; the hash kernels' tuning does not apply.
#pragma once

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/block/block_reduce.cuh>

#include "src/task_plan.hpp"
#include "src/types.hpp"
#include "worker/cuda/csr_view.hpp"

namespace tricount::cuda {

namespace cg = cooperative_groups;

inline constexpr int kPerEdgeThreads = 256;

struct PerEdgeParams {
  CsrView hash;     // P(i,k)
  CsrView one_hop;  // P(i,j)
  CsrView two_hop;  // P(j,k)
  std::uint64_t rows = 0;   // rows of P(i,j)
  std::uint64_t edges = 0;  // entries of P(i,j)
  std::uint32_t split = 0, splits = 1;
  std::uint64_t chunk = 32;  // edges a tile takes per grab
  unsigned int* one_hop_edges = nullptr;  // P(i,j)'s counters, by position
  unsigned int* hash_edges = nullptr;     // P(i,k)'s
  unsigned int* two_hop_edges = nullptr;  // P(j,k)'s
  // Per-vertex counting beside it (null when off): classes i, j and k.
  unsigned long long* row_counts = nullptr;
  unsigned long long* mid_counts = nullptr;
  unsigned long long* col_counts = nullptr;
  unsigned long long* next = nullptr;    // edges taken
  unsigned long long* result = nullptr;  // the task's triangles
};

// The last row of P(i,j) starting at or before edge e.
__device__ __forceinline__ std::uint64_t row_of_edge(const eoff_t* offsets, std::uint64_t rows, eoff_t e) {
  std::uint64_t lo = 0, hi = rows;  // offsets[lo] <= e < offsets[hi]
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (offsets[mid] <= e) lo = mid;
    else hi = mid;
  }
  return lo;
}

// The first position in [begin, end) of `list` whose element is >= x.
__device__ __forceinline__ eoff_t lower_bound_from(const vid_t* list, eoff_t begin, eoff_t end, vid_t x) {
  while (begin < end) {
    const eoff_t mid = begin + (end - begin) / 2;
    if (list[mid] < x) begin = mid + 1;
    else end = mid;
  }
  return begin;
}

// This lane's share of |H(u) ∩ N2(v)|, each common w added to its two edges (and w's vertex).
template <unsigned G>
__device__ __forceinline__ std::uint32_t intersect_edge(const cg::thread_block_tile<G>& tile, const PerEdgeParams& p,
                                                        eoff_t h0, eoff_t h1, eoff_t t0, eoff_t t1) {
  if (h0 == h1 || t0 == t1) return 0;
  // S: the shorter list, L: the longer; hash_short says which one S is.
  const bool hash_short = h1 - h0 <= t1 - t0;
  const vid_t* s_list = hash_short ? p.hash.neighbors : p.two_hop.neighbors;
  const vid_t* l_list = hash_short ? p.two_hop.neighbors : p.hash.neighbors;
  const eoff_t s0 = hash_short ? h0 : t0, s1 = hash_short ? h1 : t1;
  const eoff_t l0 = hash_short ? t0 : h0, l1 = hash_short ? t1 : h1;
  const vid_t l_first = l_list[l0], l_last = l_list[l1 - 1];
  const eoff_t s_begin = lower_bound_from(s_list, s0, s1, l_first);
  std::uint32_t hits = 0;
  eoff_t from = l0;
  for (eoff_t s = s_begin + tile.thread_rank(); s < s1; s += G) {
    const vid_t w = s_list[s];
    if (w > l_last) break;
    from = lower_bound_from(l_list, from, l1, w);
    if (from == l1) break;
    if (l_list[from] != w) continue;
    ++hits;
    atomicAdd(&p.hash_edges[hash_short ? s : from], 1u);
    atomicAdd(&p.two_hop_edges[hash_short ? from : s], 1u);
    if (p.col_counts) atomicAdd(&p.col_counts[w], 1ull);
  }
  return hits;
}

template <unsigned G>
__global__ void __launch_bounds__(kPerEdgeThreads) count_per_edge(PerEdgeParams p) {
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<G> tile = cg::tiled_partition<G>(block);
  unsigned long long mine = 0;
  for (;;) {
    // 1. A chunk of edges [first, last), from the end.
    unsigned long long taken = 0;
    if (tile.thread_rank() == 0) taken = atomicAdd(p.next, static_cast<unsigned long long>(p.chunk));
    taken = tile.shfl(taken, 0);
    if (taken >= p.edges) break;
    const eoff_t last = p.edges - taken;
    const eoff_t first = last > p.chunk ? last - p.chunk : 0;
    // 2. Edge by edge, the row advancing with it.
    std::uint64_t u = row_of_edge(p.one_hop.offsets, p.rows, first);
    eoff_t row_end = p.one_hop.offsets[u + 1];
    bool in_split = p.splits <= 1 || split_of_row(u, p.splits) == p.split;
    for (eoff_t e = first; e < last; ++e) {
      while (row_end <= e) {
        ++u;
        row_end = p.one_hop.offsets[u + 1];
        in_split = p.splits <= 1 || split_of_row(u, p.splits) == p.split;
      }
      if (!in_split) continue;
      const vid_t v = p.one_hop.neighbors[e];
      const std::uint32_t hits =
          intersect_edge(tile, p, p.hash.offsets[u], p.hash.offsets[u + 1], p.two_hop.offsets[v], p.two_hop.offsets[v + 1]);
      const std::uint32_t edge_hits = cg::reduce(tile, hits, cg::plus<std::uint32_t>());
      if (tile.thread_rank() == 0 && edge_hits) {
        atomicAdd(&p.one_hop_edges[e], edge_hits);
        if (p.row_counts) {
          atomicAdd(&p.row_counts[u], static_cast<unsigned long long>(edge_hits));
          atomicAdd(&p.mid_counts[v], static_cast<unsigned long long>(edge_hits));
        }
      }
      mine += hits;
    }
  }
  // 3. The CTA's sum, one atomic.
  using Reduce = cub::BlockReduce<unsigned long long, kPerEdgeThreads>;
  __shared__ typename Reduce::TempStorage reduce_storage;
  const unsigned long long total = Reduce(reduce_storage).Sum(mine);
  if (threadIdx.x == 0 && total) atomicAdd(p.result, total);
}

}  // namespace tricount::cuda
