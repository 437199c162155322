// Packed blocks decoded on the device (src/packed_block.hpp has the layout): the stored
// group index and words are uploaded, and one warp per group of 128 rows writes the group's
// CSR offsets and neighbours where the block's device arrays hold them, so a packed block
// crosses the host link at its stored size and the kernels see the same CSR as ever.
//
// A warp decodes a run of 32 values at a time, lane t value t: the 128 lengths (then one scan
// gives the rows' starts and the non-empty rows' ranks), the first neighbour of each
// non-empty row, and the gaps. A gap's row is the last non-empty row whose first gap is at or
// before it (a search over at most 128 starts in shared memory), and its neighbour the row's
// first plus the running sum of gaps + 1 since that row's first gap (a 64-bit warp scan with
// a carry between runs). The host checked the block checksum and the group index; every
// other inconsistency sets *error and the group writes nothing further, so no write leaves
// the group's rows and edges.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "src/packed_block.hpp"
#include "src/types.hpp"

namespace tricount::cuda {

inline constexpr unsigned kUnpackThreads = 256;  // 8 warps, a group each

namespace unpack_detail {

__device__ __forceinline__ std::uint64_t min64(std::uint64_t a, std::uint64_t b) { return a < b ? a : b; }

}  // namespace unpack_detail

struct UnpackParams {
  const std::uint64_t* index = nullptr;  // 2 (groups + 1)
  const std::uint32_t* words = nullptr;
  std::uint64_t rows = 0, cols = 0, nnz = 0, groups = 0;
  eoff_t* offsets = nullptr;  // rows + 1
  vid_t* neighbors = nullptr;  // nnz
  unsigned* error = nullptr;   // set to 1 on an inconsistent group
};

__global__ void __launch_bounds__(kUnpackThreads) unpack_groups(UnpackParams p) {
  using namespace unpack_detail;
  constexpr unsigned kWarps = kUnpackThreads / 32;
  __shared__ std::uint64_t s_start[kWarps][kPackedGroupRows];  // non-empty row j: its first edge, from the group's
  __shared__ std::uint64_t s_gap0[kWarps][kPackedGroupRows];   // its first gap's index
  __shared__ std::uint64_t s_base[kWarps][kPackedGroupRows];   // the gaps' running sum before it
  __shared__ std::uint32_t s_first[kWarps][kPackedGroupRows];  // its first neighbour
  __shared__ std::uint32_t s_len[kWarps][kPackedGroupRows];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  std::uint64_t* start = s_start[warp];
  std::uint64_t* gap0 = s_gap0[warp];
  std::uint64_t* base = s_base[warp];
  std::uint32_t* first = s_first[warp];
  std::uint32_t* len = s_len[warp];
  if (blockIdx.x == 0 && threadIdx.x == 0) p.offsets[p.rows] = p.nnz;
  const std::uint64_t warps = std::uint64_t{gridDim.x} * kWarps;
  for (std::uint64_t g = std::uint64_t{blockIdx.x} * kWarps + warp; g < p.groups; g += warps) {
    const std::uint64_t r0 = g * kPackedGroupRows;
    const unsigned nrows = static_cast<unsigned>(min64(kPackedGroupRows, p.rows - r0));
    const std::uint32_t* w = p.words + p.index[2 * g];
    const std::uint64_t available = p.index[2 * g + 2] - p.index[2 * g];
    const std::uint64_t e0 = p.index[2 * g + 1], edges = p.index[2 * g + 3] - e0;
    bool bad = available == 0;
    const std::uint64_t nonempty = bad ? 0 : w[0];
    bad = bad || nonempty > nrows || nonempty > edges;
    const std::uint64_t runs[3] = {(nrows + 31u) / 32u, (nonempty + 31) / 32, (edges - min64(edges, nonempty) + 31) / 32};
    const std::uint64_t values[3] = {nrows, nonempty, edges - min64(edges, nonempty)};
    const std::uint64_t header = 1 + (runs[0] + runs[1] + runs[2] + 3) / 4;
    bad = bad || header > available;
    if (bad) {
      if (lane == 0) atomicExch(p.error, 1u);
      continue;
    }
    auto width = [&](std::uint64_t k) { return (w[1 + k / 4] >> (8 * (k % 4))) & 0xFFu; };
    std::uint64_t pos = header, k = 0;  // the next run's first word and width
    // A run's words must lie inside the group: false (and *error) otherwise.
    auto run_fits = [&](std::uint64_t count, unsigned wd) {
      return wd <= 32 && pos + packed_run_words(count, wd) <= available;
    };
    // 1. Lengths; the rows' starts and the non-empty rows' ranks by one scan of 4 rows a lane.
    for (unsigned r = 0; r < runs[0]; ++r, ++k) {
      const unsigned wd = width(k), count = nrows - 32 * r < 32 ? nrows - 32 * r : 32;
      if (!run_fits(count, wd)) bad = true;
      else if (lane < count) len[32 * r + lane] = packed_run_value(w + pos, lane, wd);
      pos += packed_run_words(count, wd);
      if (bad) break;
    }
    __syncwarp();
    if (bad) {
      if (lane == 0) atomicExch(p.error, 1u);
      continue;
    }
    std::uint64_t mine = 0;
    unsigned mine_nonempty = 0;
    for (unsigned q = 0; q < 4; ++q) {
      const unsigned row = 4 * lane + q;
      if (row < nrows) mine += len[row], mine_nonempty += len[row] != 0;
    }
    std::uint64_t sum = mine;
    unsigned count_ne = mine_nonempty;
    for (unsigned d = 1; d < 32; d *= 2) {
      const std::uint64_t up = __shfl_up_sync(0xFFFFFFFFu, sum, d);
      const unsigned up_ne = __shfl_up_sync(0xFFFFFFFFu, count_ne, d);
      if (lane >= d) sum += up, count_ne += up_ne;
    }
    const std::uint64_t total = __shfl_sync(0xFFFFFFFFu, sum, 31);
    const unsigned total_ne = __shfl_sync(0xFFFFFFFFu, count_ne, 31);
    if (total != edges || total_ne != nonempty) {
      if (lane == 0) atomicExch(p.error, 1u);
      continue;
    }
    std::uint64_t at = sum - mine;
    unsigned rank = count_ne - mine_nonempty;
    for (unsigned q = 0; q < 4; ++q) {
      const unsigned row = 4 * lane + q;
      if (row >= nrows) break;
      p.offsets[r0 + row] = e0 + at;
      if (len[row] != 0) {
        start[rank] = at;
        gap0[rank] = at - rank;  // the gaps before it: its edges before it, less one per earlier row
        ++rank;
      }
      at += len[row];
    }
    __syncwarp();
    // 2. First neighbours.
    for (unsigned r = 0; r < runs[1]; ++r, ++k) {
      const unsigned wd = width(k), count = static_cast<unsigned>(min64(32, nonempty - 32 * r));
      if (!run_fits(count, wd)) {
        bad = true;
        break;
      }
      if (lane < count) {
        const std::uint32_t x = packed_run_value(w + pos, lane, wd);
        const unsigned j = 32 * r + lane;
        first[j] = x;
        if (x < p.cols) p.neighbors[e0 + start[j]] = x;
        else atomicExch(p.error, 1u);
      }
      pos += packed_run_words(count, wd);
    }
    __syncwarp();
    if (bad) {
      if (lane == 0) atomicExch(p.error, 1u);
      continue;
    }
    // 3. Gaps: each one's row, then the row's first neighbour plus the running sum since the
    //    row's first gap.
    std::uint64_t carry = 0;  // sum of gap + 1 over the earlier runs
    for (std::uint64_t r = 0; r < runs[2]; ++r, ++k) {
      const unsigned wd = width(k), count = static_cast<unsigned>(min64(32, values[2] - 32 * r));
      if (!run_fits(count, wd)) {
        bad = true;
        break;
      }
      const std::uint64_t gi = 32 * r + lane;  // this lane's gap
      std::uint64_t step = lane < count ? std::uint64_t{packed_run_value(w + pos, lane, wd)} + 1 : 0;
      std::uint64_t incl = step;
      for (unsigned d = 1; d < 32; d *= 2) {
        const std::uint64_t up = __shfl_up_sync(0xFFFFFFFFu, incl, d);
        if (lane >= d) incl += up;
      }
      unsigned j = 0;
      if (lane < count) {
        // The last non-empty row whose first gap is at or before gi.
        unsigned lo = 0, hi = static_cast<unsigned>(nonempty);
        while (hi - lo > 1) {
          const unsigned mid = (lo + hi) / 2;
          if (gap0[mid] <= gi) lo = mid;
          else hi = mid;
        }
        j = lo;
        if (gap0[j] == gi) base[j] = carry + incl - step;
      }
      __syncwarp();
      if (lane < count) {
        const std::uint64_t x = std::uint64_t{first[j]} + (carry + incl - base[j]);
        const std::uint64_t e = start[j] + (gi - gap0[j]) + 1;
        if (x < p.cols && e < edges) p.neighbors[e0 + e] = static_cast<vid_t>(x);
        else atomicExch(p.error, 1u);
      }
      carry += __shfl_sync(0xFFFFFFFFu, incl, 31);
      pos += packed_run_words(count, wd);
      __syncwarp();
    }
    if (bad && lane == 0) atomicExch(p.error, 1u);
  }
}

}  // namespace tricount::cuda
