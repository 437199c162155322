// Packed warp rows (issue 20): a warp takes several short rows at once instead of one, for
// subtasks whose warp rows are short (uniform graphs: about 16 keys and 16 1-hop entries a
// row). With one row per warp, a row's fixed work (its offsets, the table's clear and
// inserts, the prefix sum of its 2-hop lengths, the partly empty last step of its walk) and
// its chain of dependent loads are paid row by row; here the rows of a grab whose tables
// fit the warp's shared slice together form a group: the group's tables are built in one
// pass over all of their keys, and the group's 1-hop entries are walked as one list, 32
// at a time, whatever row they belong to. Each lane probes the table of the row its 2-hop
// element came from (found with the same shuffles that find the element's list).
//
// Only the plain total count on the u side without the transposed v side, the reverse
// search or 8-lane tiles uses it (subtask_plan.cuh decides); per-vertex counting takes the
// other kernels.
#pragma once

#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/block/block_reduce.cuh>

#include "worker/cuda/bucket_table.cuh"
#include "worker/cuda/count_kernels.cuh"

namespace tricount::cuda {

// Rows a warp takes per grab at most: one per lane.
inline constexpr std::uint32_t kPackedMaxChunk = 32;

// A row's table in the warp's shared slice, in one word so that a lane fetches the table of
// any row with one shuffle: first word (bits 0-15; slices are at most 12,288 words), log2
// of the buckets (16-23), levels (24-31; warp tables have every level in shared memory).
__device__ __forceinline__ std::uint32_t pack_table(std::uint32_t first_word, const TableShape& s) {
  return first_word | (s.log2_buckets << 16) | (s.levels << 24);
}
__device__ __forceinline__ BucketTable unpack_table(std::uint32_t* slice, std::uint32_t packed, std::uint32_t multiplier) {
  TableShape s;
  s.log2_buckets = (packed >> 16) & 0xFFu;
  s.shared_levels = s.levels = packed >> 24;
  BucketTable t;
  t.place(slice + (packed & 0xFFFFu), s, nullptr, multiplier);
  return t;
}

template <int kMinBlocks>
__global__ void __launch_bounds__(kTileBlockThreads, kMinBlocks) count_packed_rows(CountParams p) {
  extern __shared__ __align__(16) std::uint32_t smem[];
  using Reduce = cub::BlockReduce<unsigned long long, kTileBlockThreads>;
  __shared__ typename Reduce::TempStorage reduce_storage;

  const auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  const std::uint32_t lane = warp.thread_rank();
  const std::uint32_t budget = p.tile_table.shared_words;  // the warp's slice
  std::uint32_t* slice = smem + (threadIdx.x / 32) * budget;
  const std::uint32_t mult = p.tile_table.hash_multiplier;
  const std::uint32_t rows = p.tile_rows ? p.list_sizes[1] : p.direct_rows;
  const std::uint32_t max_chunk = p.tile_chunk;  // host: at most kPackedMaxChunk
  unsigned long long found = 0;
  for (;;) {
    // 1. A grab of rows, lane q holding row q's offsets and its table's size (0: the row has
    //    no keys or no 1-hop entry, so no triangle).
    std::uint32_t first = 0;
    if (lane == 0) first = atomicAdd(&p.next[1], max_chunk);
    first = warp.shfl(first, 0);
    if (first >= rows) break;
    const std::uint32_t grabbed = rows - first > max_chunk ? max_chunk : rows - first;
    eoff_t h0 = 0, o0 = 0;
    std::uint32_t keys = 0, ones = 0, words = 0;
    if (lane < grabbed) {
      const std::uint32_t idx = first + lane;
      const vid_t u = p.tile_rows ? p.tile_rows[rows - 1 - idx] : rows - 1 - idx;
      h0 = p.hash.offsets[u];
      o0 = p.one_hop.offsets[u];
      const eoff_t h1 = p.hash.offsets[u + 1], o1 = p.one_hop.offsets[u + 1];
      if (h1 > h0 && o1 > o0) {
        keys = static_cast<std::uint32_t>(h1 - h0);
        ones = static_cast<std::uint32_t>(o1 - o0);
        words = static_cast<std::uint32_t>(make_table_shape(keys, p.tile_table).shared_words());
      }
    }
    // 2. Groups: consecutive rows whose tables fit the slice together (one table always
    //    fits: the host gives the warp kernels only rows whose table does).
    for (std::uint32_t q = 0; q < grabbed;) {
      const std::uint32_t words_incl = cg::inclusive_scan(warp, lane >= q ? words : 0u);
      const std::uint32_t over = warp.ballot(lane >= q && lane < grabbed && words_incl > budget);
      const std::uint32_t stop = over ? __ffs(over) - 1 : grabbed;
      const std::uint32_t end = stop > q ? stop : q + 1;  // always true (see above); never a loop without progress
      const bool in_group = lane >= q && lane < end;
      q = end;
      // 2a. Each row's table in the slice, cleared.
      const std::uint32_t g_keys = in_group ? keys : 0u, g_ones = in_group ? ones : 0u;
      const std::uint32_t g_words = in_group ? words : 0u;
      const std::uint32_t first_word = cg::inclusive_scan(warp, g_words) - g_words;
      const std::uint32_t table = g_keys ? pack_table(first_word, make_table_shape(g_keys, p.tile_table)) : 0u;
      for (std::uint32_t m = warp.ballot(g_keys != 0); m; m &= m - 1) {
        const std::uint32_t t = warp.shfl(table, __ffs(m) - 1);
        unpack_table(slice, t, mult).clear(lane, 32);
      }
      warp.sync();
      // 2b. Every key of the group inserted, 32 at a time, each into its row's table.
      const std::uint32_t keys_incl = cg::inclusive_scan(warp, g_keys);
      const std::uint32_t keys_total = warp.shfl(keys_incl, 31);
      for (std::uint32_t kb = 0; kb < keys_total; kb += 32) {
        const std::uint32_t k = kb + lane;
        const std::uint32_t r = owner_lane<32>(warp, keys_incl, k);
        const std::uint32_t t = warp.shfl(table, r);
        const eoff_t key_at = warp.shfl(h0 - eoff_t{keys_incl - g_keys}, r) + k;  // row r's keys start at its excl
        if (k < keys_total) unpack_table(slice, t, mult).insert(p.hash.neighbors[key_at]);
      }
      warp.sync();
      // 2c. The group's 1-hop entries as one list, 32 at a time: each entry's 2-hop list N2(v)
      //     probed against its own row's table (lists of 32 or more by the whole warp).
      const std::uint32_t ones_incl = cg::inclusive_scan(warp, g_ones);
      const std::uint32_t ones_total = warp.shfl(ones_incl, 31);
      for (std::uint32_t eb = 0; eb < ones_total; eb += 32) {
        const std::uint32_t e = eb + lane;
        const std::uint32_t r = owner_lane<32>(warp, ones_incl, e);  // the lane of e's row
        const eoff_t entry_at = warp.shfl(o0 - eoff_t{ones_incl - g_ones}, r) + e;
        const std::uint32_t row_table = warp.shfl(table, r);
        eoff_t begin = 0, end_at = 0;
        if (e < ones_total) {
          const vid_t v = p.one_hop.neighbors[entry_at];
          begin = p.two_hop.offsets[v];
          end_at = p.two_hop.offsets[v + 1];
        }
        const std::uint32_t len = static_cast<std::uint32_t>(end_at - begin);
        const bool is_long = len >= 32u;
        // Short lists: slots of kShortPer elements as in probe_two_hop, each slot's table,
        // range and place fetched from the lane of its list.
        const std::uint32_t short_len = is_long ? 0u : len;
        const std::uint32_t slots = (short_len + kShortPer - 1) / kShortPer;
        const std::uint32_t incl = cg::inclusive_scan(warp, slots);
        const std::uint32_t total = warp.shfl(incl, 31);
        const std::uint32_t excl = incl - slots;
        const eoff_t adj = begin - eoff_t{kShortPer} * excl;
        const std::uint32_t lim = kShortPer * excl + short_len;
        for (std::uint32_t sb = 0; sb < total; sb += 32) {
          const std::uint32_t slot = sb + lane;
          const std::uint32_t pos = owner_lane<32>(warp, incl, slot);
          const eoff_t a = warp.shfl(adj, pos);
          const std::uint32_t l = warp.shfl(lim, pos);
          const BucketTable tb = unpack_table(slice, warp.shfl(row_table, pos), mult);
          if (slot < total) {
            vid_t w[kShortPer];
            const vid_t* at = p.two_hop.neighbors + a + eoff_t{kShortPer} * slot;
#pragma unroll
            for (std::uint32_t k = 0; k < kShortPer; ++k) w[k] = (k == 0 || kShortPer * slot + k < l) ? at[k] : kNeverKey;
#pragma unroll
            for (std::uint32_t k = 0; k < kShortPer; ++k) found += tb.contains<false>(w[k]);  // kNeverKey: never a key
          }
        }
        // Long lists: one at a time by the whole warp, with their own row's table.
        for (std::uint32_t m = warp.ballot(is_long); m; m &= m - 1) {
          const int src = __ffs(m) - 1;
          Prober<false, false> probe;
          probe.table = unpack_table(slice, warp.shfl(row_table, src), mult);
          probe.kmin = 0;
          probe.kmax = kNeverKey - 1;
          found += walk_long_lists<32>(warp, p, 1u << src, begin, len, probe);
        }
      }
      warp.sync();  // the next group clears these tables
    }
  }
  const unsigned long long block_total = Reduce(reduce_storage).Sum(found);
  if (threadIdx.x == 0 && block_total) atomicAdd(p.result, block_total);
}

}  // namespace tricount::cuda
