// Re-blocking on the device (tricount-count --count-parts): count block P'(I,K) of n_c parts
// from its g x g file blocks P(I + a n_c, K + b n_c) (src/task_plan.hpp, file_blocks_of).
// Row x = l g + a of P' is row l of the blocks (a, b) over b, each neighbour m of block (a, b)
// renamed m g + b, merged in order. Three steps on one stream: the degrees (with the
// longest row and the non-empty rows, which the task's plan needs), their prefix sum (CUB),
// and the scatter: each element goes to its rank in the merged row, its index plus the
// elements of the other g - 1 lists that order before it (binary searches).
// Its cost beside the count: bench/RESULTS.md, issue 28.
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <cstdint>

#include "src/types.hpp"
#include "worker/cuda/csr_view.hpp"

namespace tricount::cuda {

inline constexpr unsigned kReblockThreads = 256;

struct ReblockMax {
  __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const { return a > b ? a : b; }
};

struct ReblockShape {
  unsigned long long max_degree;
  unsigned long long nonempty_rows;
};

// out_offsets[x + 1] = degree of row x; shape gathers the longest row and the non-empty rows.
__global__ void __launch_bounds__(kReblockThreads) reblock_degrees(const CsrView* parts, std::uint32_t g, std::uint64_t rows,
                                                                   eoff_t* out_offsets, ReblockShape* shape) {
  using Reduce = cub::BlockReduce<unsigned long long, kReblockThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const std::uint64_t x = blockIdx.x * std::uint64_t(kReblockThreads) + threadIdx.x;
  unsigned long long d = 0;
  if (x < rows) {
    const std::uint32_t a = static_cast<std::uint32_t>(x % g);
    const std::uint64_t l = x / g;
    for (std::uint32_t b = 0; b < g; ++b) d += parts[a * g + b].offsets[l + 1] - parts[a * g + b].offsets[l];
    out_offsets[x + 1] = d;
  }
  const unsigned long long longest = Reduce(temp).Reduce(d, ReblockMax());
  __syncthreads();
  const unsigned long long nonempty = Reduce(temp).Sum(d > 0 ? 1ull : 0ull);
  if (threadIdx.x == 0) {
    atomicMax(&shape->max_degree, longest);
    atomicAdd(&shape->nonempty_rows, nonempty);
  }
}

// Elements of list[0, len) below m (inclusive: at most m).
__device__ inline std::uint32_t reblock_rank(const vid_t* list, std::uint32_t len, vid_t m, bool inclusive) {
  std::uint32_t lo = 0, hi = len;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (list[mid] < m || (inclusive && list[mid] == m)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// A warp per 32 consecutive rows, their elements walked as one list (lane t of a round takes
// element q0 + t): rows of a few elements do not idle the warp, and a long row is spread over
// every lane. Each element finds its row (a search over the rows' ends, in registers), its
// file block b (the row's g lists in turn), and its rank in the merged row.
__global__ void __launch_bounds__(kReblockThreads) reblock_scatter(const CsrView* parts, std::uint32_t g, std::uint64_t rows,
                                                                   const eoff_t* out_offsets, vid_t* out_neighbors) {
  const std::uint64_t x0 = (blockIdx.x * std::uint64_t(kReblockThreads) + threadIdx.x) / 32 * 32;
  const std::uint32_t lane = threadIdx.x % 32;
  if (x0 >= rows) return;  // the whole warp
  const eoff_t base = out_offsets[x0];
  const std::uint64_t x_end = x0 + 32 < rows ? x0 + 32 : rows;
  const std::uint64_t end = out_offsets[x0 + lane < x_end ? x0 + lane + 1 : x_end] - base;  // this lane's row's end
  const std::uint64_t total = __shfl_sync(0xFFFFFFFFu, end, 31);
  for (std::uint64_t q0 = 0; q0 < total; q0 += 32) {
    const std::uint64_t q = q0 + lane;
    std::uint32_t r = 0;  // the rows ending at or before q: q is in row x0 + r
#pragma unroll
    for (std::uint32_t step = 16; step > 0; step >>= 1)
      if (__shfl_sync(0xFFFFFFFFu, end, r + step - 1) <= q) r += step;
    const std::uint64_t row_first = __shfl_sync(0xFFFFFFFFu, end, r == 0 ? 0 : r - 1);
    if (q >= total) continue;
    const std::uint64_t x = x0 + r;
    const std::uint32_t a = static_cast<std::uint32_t>(x % g);
    const std::uint64_t l = x / g;
    std::uint64_t e = r == 0 ? q : q - row_first;  // its index in the row's lists, one after another
    std::uint32_t b = 0;
    for (;; ++b) {
      const CsrView& blk = parts[a * g + b];
      const std::uint64_t len = blk.offsets[l + 1] - blk.offsets[l];
      if (e < len) break;
      e -= len;
    }
    const CsrView& blk = parts[a * g + b];
    const vid_t m = blk.neighbors[blk.offsets[l] + e];
    std::uint64_t pos = e;
    for (std::uint32_t c = 0; c < g; ++c) {
      if (c == b) continue;
      const CsrView& o = parts[a * g + c];
      // Lists before b order an equal local id first (m g + c < m g + b), lists after it last.
      pos += reblock_rank(o.neighbors + o.offsets[l], static_cast<std::uint32_t>(o.offsets[l + 1] - o.offsets[l]), m, c < b);
    }
    out_neighbors[base + (r == 0 ? 0 : row_first) + pos] = static_cast<vid_t>(std::uint64_t(m) * g + b);
  }
}

}  // namespace tricount::cuda
