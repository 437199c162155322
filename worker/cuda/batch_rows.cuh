// count_batch_rows: the warp path for sides of short rows read straight from HBM (a sparse
// uniform graph whose blocks dwarf the L2). The warp kernel spends such a row (about 16 1-hop
// entries of about 20 2-hop elements) in a chain of dependent loads: u's offsets, u's keys,
// its 1-hop entries, their bounds, then two or three rounds of 2-hop elements, each a round
// trip to HBM for a few hundred bytes. Here a warp takes up to kBatchRows consecutive rows
// at once, stages all their keys and their 1-hop entries' bounds in shared memory (one round
// trip each for the whole batch), and walks every 2-hop list of the batch as one virtual list
// of slots of kShortPer elements, kBatchSteps slots per lane loaded before any is probed.
// An element is probed by binary search in its row's sorted keys (shared memory).
//
// Assumes (the planner sees to it, kernel_plan.cuh): every row of the block (no split, no
// classification: RowClassifier's "direct" side), hash and 1-hop rows of at most
// kBatchKeys / kBatchEntries entries, 2-hop bounds from the 32-bit copy of the offsets.
#pragma once

#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/block/block_reduce.cuh>

#include "worker/cuda/count_kernels.cuh"

namespace tricount::cuda {

inline constexpr std::uint32_t kBatchRows = 32;      // rows per grab: a lane's offsets each
inline constexpr std::uint32_t kBatchKeys = 256;     // keys a warp stages at once
inline constexpr std::uint32_t kBatchEntries = 256;  // 1-hop entries a warp stages at once
inline constexpr int kBatchBlockThreads = 256;
// Slots per lane loaded before any is probed: 2 (1, 3 and 4, and the loads pinned ahead of the
// probes, were slower: bench/RESULTS.md#measured-and-not-kept).
inline constexpr std::uint32_t kBatchSteps = 2;

// A warp's staging area.
struct BatchStage {
  vid_t keys[kBatchKeys];                 // the batch's hash lists, back to back
  std::uint32_t begin[kBatchEntries];     // each 1-hop entry's 2-hop list: first position
  std::uint32_t slot_end[kBatchEntries];  // ... its slots' inclusive prefix sum
  std::uint32_t info[kBatchEntries];      // ... its length | its row << 24
  std::uint32_t row_keys[kBatchRows];     // each row's keys: first (in keys) | count << 16
};

// The first entry e whose slot_end[e] > slot: how many entries end at or before it, in
// log2(kBatchEntries) fixed halvings without a branch (entries past the stage's end hold ~0u;
// a loop halving [0, n) cost twice the instructions: bench/results/h200-issue34-batch-rows/).
__device__ __forceinline__ std::uint32_t slot_owner(const std::uint32_t* slot_end, std::uint32_t slot) {
  std::uint32_t pos = 0;
#pragma unroll
  for (std::uint32_t step = kBatchEntries / 2; step > 0; step >>= 1)
    if (slot_end[pos + step - 1] <= slot) pos += step;
  return pos;
}

template <bool kPerVertex = false, bool kPerEdge = false>
__global__ void __launch_bounds__(kBatchBlockThreads) count_batch_rows(CountParams p) {
  using Reduce = cub::BlockReduce<unsigned long long, kBatchBlockThreads>;
  __shared__ typename Reduce::TempStorage reduce_storage;
  __shared__ BatchStage stages[kBatchBlockThreads / 32];
  BatchStage& st = stages[threadIdx.x / 32];
  const auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  const std::uint32_t lane = warp.thread_rank();
  const std::uint32_t rows = p.direct_rows;
  unsigned long long found = 0;
  for (;;) {
    // 1. A grab of up to 32 rows (the heaviest first): rows [ua, ub), a lane's offsets each.
    std::uint32_t first = 0;
    if (lane == 0) first = atomicAdd(&p.next[1], kBatchRows);
    first = warp.shfl(first, 0);
    if (first >= rows) break;
    const std::uint32_t ub = rows - first;
    const std::uint32_t ua = ub > kBatchRows ? ub - kBatchRows : 0;
    const std::uint32_t n = ub - ua;
    eoff_t h0 = 0, h1 = 0, o0 = 0, o1 = 0;
    if (lane < n) {
      h0 = p.hash.offsets[ua + lane];
      h1 = p.hash.offsets[ua + lane + 1];
      o0 = p.one_hop.offsets[ua + lane];
      o1 = p.one_hop.offsets[ua + lane + 1];
    }
    const std::uint32_t hd = static_cast<std::uint32_t>(h1 - h0), od = static_cast<std::uint32_t>(o1 - o0);
    const std::uint32_t hincl = cg::inclusive_scan(warp, hd), oincl = cg::inclusive_scan(warp, od);
    const eoff_t hbase = warp.shfl(h0, 0), obase = warp.shfl(o0, 0);
    // A row with no key or no 1-hop entry has no triangle: its entries walk nothing.
    const bool live = hd > 0 && od > 0;
    // 2. Sub-batches of the grab's rows whose keys and entries fit the stage.
    for (std::uint32_t done = 0, hdone = 0, odone = 0; done < n;) {
      const bool fits = lane >= done && lane < n && hincl - hdone <= kBatchKeys && oincl - odone <= kBatchEntries;
      const std::uint32_t end = done + __popc(warp.ballot(fits));  // >= done + 1: no row exceeds the stage
      const std::uint32_t hend = warp.shfl(hincl, end - 1), oend = warp.shfl(oincl, end - 1);
      const std::uint32_t nkeys = hend - hdone, nentries = oend - odone;
      // Keys of rows [done, end), and each row's place among them.
      for (std::uint32_t q = lane; q < nkeys; q += 32) st.keys[q] = p.hash.neighbors[hbase + hdone + q];
      if (lane >= done && lane < end) st.row_keys[lane] = (hincl - hd - hdone) | ((live ? hd : 0u) << 16);
      // The entries' rows (lanes < done count as ended before any entry; lanes >= end never).
      const std::uint32_t row_end = lane < done ? 0u : lane < end ? oincl - odone : 0xFFFFFFFFu;
      const std::uint32_t row_live = live ? 1u : 0u;
      // 3. Each entry's 2-hop bounds, all of the sub-batch's loads issued before any is used.
      constexpr std::uint32_t kRounds = kBatchEntries / 32;
      vid_t v[kRounds];
#pragma unroll
      for (std::uint32_t r = 0; r < kRounds; ++r) {
        const std::uint32_t e = r * 32 + lane;
        v[r] = e < nentries ? p.one_hop.neighbors[obase + odone + e] : 0;
      }
      std::uint32_t b[kRounds], end_at[kRounds];
#pragma unroll
      for (std::uint32_t r = 0; r < kRounds; ++r) {
        const std::uint32_t e = r * 32 + lane;
        b[r] = end_at[r] = 0;
        if (e < nentries) {
          b[r] = p.two_hop_offsets32[v[r]];
          end_at[r] = p.two_hop_offsets32[v[r] + 1];
        }
      }
      std::uint32_t total = 0;
#pragma unroll
      for (std::uint32_t r = 0; r < kRounds; ++r) {
        if (r * 32 >= nentries) break;  // the same on every lane
        const std::uint32_t e = r * 32 + lane;
        const std::uint32_t row = owner_lane<32>(warp, row_end, e);
        const bool row_walks = warp.shfl(row_live, row);  // every lane: a converged shuffle
        const bool walk = e < nentries && row_walks;
        const std::uint32_t l = walk ? end_at[r] - b[r] : 0u;
        const std::uint32_t slots = (l + kShortPer - 1) / kShortPer;
        const std::uint32_t incl = cg::inclusive_scan(warp, slots);
        if (e < nentries) {
          st.begin[e] = b[r];
          st.slot_end[e] = total + incl;
          st.info[e] = l | (row << 24);
        }
        total += warp.shfl(incl, 31);
      }
      for (std::uint32_t e = nentries + lane; e < kBatchEntries; e += 32) st.slot_end[e] = ~0u;  // slot_owner's bound
      warp.sync();
      // 4. The virtual list: kBatchSteps slots per lane in flight, then their probes.
      for (std::uint32_t sb = 0; sb < total; sb += 32 * kBatchSteps) {
        vid_t w[kBatchSteps][kShortPer];
        std::uint32_t at[kBatchSteps], info[kBatchSteps], ent[kBatchSteps];
#pragma unroll
        for (std::uint32_t j = 0; j < kBatchSteps; ++j) {
          const std::uint32_t slot = sb + j * 32 + lane;
#pragma unroll
          for (std::uint32_t k = 0; k < kShortPer; ++k) w[j][k] = kNeverKey;
          info[j] = 0;
          at[j] = ent[j] = 0;
          if (slot < total) {
            const std::uint32_t e = slot_owner(st.slot_end, slot);
            const std::uint32_t first_slot = e ? st.slot_end[e - 1] : 0u;
            const std::uint32_t k0 = (slot - first_slot) * kShortPer;
            info[j] = st.info[e];
            ent[j] = e;
            at[j] = st.begin[e] + k0;
            const std::uint32_t l = (info[j] & 0xFFFFFFu) - k0;
            const vid_t* src = p.two_hop.neighbors + at[j];
#pragma unroll
            for (std::uint32_t k = 0; k < kShortPer; ++k)
              if (k == 0 || k < l) w[j][k] = src[k];
          }
        }
#pragma unroll
        for (std::uint32_t j = 0; j < kBatchSteps; ++j) {
          if (sb + j * 32 + lane >= total) continue;
          const std::uint32_t row = info[j] >> 24;
          const std::uint32_t rk = st.row_keys[row];
          const vid_t* keys = st.keys + (rk & 0xFFFFu);
          const std::uint32_t count = rk >> 16;
          const vid_t kmin = keys[0], kmax = keys[count - 1];
          std::uint32_t slot_hits = 0;
#pragma unroll
          for (std::uint32_t k = 0; k < kShortPer; ++k) {
            const vid_t x = w[j][k];
            if (x < kmin || x > kmax) continue;
            const std::uint32_t f = key_floor(keys, count, x);
            if (keys[f] != x) continue;
            ++slot_hits;
            if constexpr (kPerVertex) add_key_hit<kPerEdge>(p, x, hbase + hdone + (rk & 0xFFFFu) + f, at[j] + k);
          }
          found += slot_hits;
          if constexpr (kPerVertex) {
            if (slot_hits) {
              const eoff_t t = obase + odone + ent[j];
              add_entry_hits<kPerEdge>(p, p.one_hop.neighbors[t], t, slot_hits);
              if constexpr (!kPerEdge) atomicAdd(&p.row_counts[ua + row], static_cast<unsigned long long>(slot_hits));
            }
          }
        }
      }
      warp.sync();  // the next sub-batch overwrites the stage
      done = end;
      hdone = hend;
      odone = oend;
    }
  }
  const unsigned long long block_total = Reduce(reduce_storage).Sum(found);
  if (threadIdx.x == 0 && block_total) atomicAdd(p.result, block_total);
}

}  // namespace tricount::cuda
