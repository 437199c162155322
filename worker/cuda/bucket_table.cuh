// TRUST's per-vertex hash table: a power-of-two number of buckets, each bucket a short
// column of slots ("levels"). Layout, level-major so that threads probing different buckets
// at the same level read consecutive words:
//
//   heads[b] = {length, key}         shared memory: one counter per bucket (filled with
//                                    shared-memory atomics, cleared per vertex) beside the
//                                    bucket's level-0 key
//   shared_slots[(l - 1) * B + b]    levels 1 .. shared_levels-1, shared memory
//   global_slots[(l - Ls) * B + b]   levels shared_levels .. levels-1, a per-CTA area of
//                                    global memory reused from vertex to vertex
//
// A key goes to bucket hash(key); when that bucket already holds `levels` keys it goes to
// the next bucket (linear probing over buckets). A lookup scans its bucket and moves on to
// the next one only while the bucket it scanned is full. Fullness never goes away, so
// every key inserted is found: the buckets between its home and where it landed were all
// full when it was inserted and are still full when it is looked up.
//
// Shapes always have levels * B >= 2 * keys (at most half the slots used), so a non-full
// bucket exists and chains stay short; nothing is dropped, whatever the keys are. The
// caller decides, from the shape, whether the table fits: the warp path takes only shapes
// with no global levels, the CTA path takes global levels up to its scratch area and
// otherwise probes the sorted key list by binary search instead (see count_kernels.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "src/types.hpp"

namespace tricount::cuda {

inline constexpr std::uint32_t kMinLog2Buckets = 5;          // 32 buckets: one per lane
inline constexpr std::uint32_t kHashMultiplier = 0x9E3779B1u;  // Fibonacci hashing (top bits)

__host__ __device__ inline std::uint32_t ceil_log2_u64(std::uint64_t x) {
  if (x <= 1) return 0;
#ifdef __CUDA_ARCH__
  return 64u - static_cast<std::uint32_t>(__clzll(static_cast<long long>(x - 1)));
#else
  return 64u - static_cast<std::uint32_t>(__builtin_clzll(x - 1));
#endif
}

// How tables of one kind (warp or CTA) are sized. Trivially copyable: part of the kernel
// parameters.
struct TableConfig {
  std::uint32_t shared_words = 0;          // per table: B bucket lengths + B * shared levels
  std::uint32_t log2_buckets_per_key = 0;  // B = bit_ceil(keys) << this (then capped)
  std::uint32_t max_shared_levels = 2;
  std::uint32_t hash_multiplier = kHashMultiplier;  // 0 sends every key to bucket 0 (tests)
};

struct TableShape {
  std::uint32_t log2_buckets = kMinLog2Buckets;
  std::uint32_t shared_levels = 1;
  std::uint32_t levels = 1;  // slots per bucket, shared and global together
  __host__ __device__ std::uint32_t buckets() const { return 1u << log2_buckets; }
  __host__ __device__ std::uint64_t shared_words() const {
    return std::uint64_t(buckets()) * (1u + shared_levels);
  }
  __host__ __device__ std::uint64_t global_words() const {
    return std::uint64_t(buckets()) * (levels - shared_levels);
  }
  __host__ __device__ bool all_shared() const { return levels == shared_levels; }
};

// The table for `keys` keys within `config.shared_words` words of shared memory
// (config.shared_words >= 64). Buckets ~ keys (times 2^log2_buckets_per_key), fewer if
// shared memory is short; as many shared levels as fit, up to max_shared_levels; enough
// levels in all for 2 * keys slots, the ones beyond the shared levels in global memory.
__host__ __device__ inline TableShape make_table_shape(std::uint64_t keys, const TableConfig& config) {
  TableShape s;
  std::uint32_t lb = ceil_log2_u64(keys > 0 ? keys : 1) + config.log2_buckets_per_key;
  if (lb < kMinLog2Buckets) lb = kMinLog2Buckets;
  while (lb > kMinLog2Buckets && (std::uint64_t(2) << lb) > config.shared_words) --lb;
  s.log2_buckets = lb;
  const std::uint32_t fit = static_cast<std::uint32_t>(config.shared_words >> lb) - 1u;  // >= 1
  s.shared_levels = fit < config.max_shared_levels ? fit : config.max_shared_levels;
  if (s.shared_levels < 1) s.shared_levels = 1;
  const std::uint64_t need = (2 * keys + (std::uint64_t(1) << lb) - 1) >> lb;
  s.levels = need > s.shared_levels ? static_cast<std::uint32_t>(need) : s.shared_levels;
  return s;
}

// Device view of one vertex's table (trivially copyable; storage owned by the kernel's
// shared memory and the backend's per-CTA scratch buffer). Each bucket's head holds its
// length and its level-0 key side by side, so a probe of a bucket with at most one key
// (the common case: about one key per bucket or fewer) is a single 8-byte shared load.
struct BucketTable {
  uint2* heads = nullptr;          // shared: {length, level-0 key} per bucket
  vid_t* shared_slots = nullptr;   // shared: levels 1 .. shared_levels-1, (l - 1) * B + b
  vid_t* global_slots = nullptr;   // global: levels shared_levels .. levels-1
  std::uint32_t log2_buckets = kMinLog2Buckets;
  std::uint32_t shared_levels = 1;
  std::uint32_t levels = 1;
  std::uint32_t multiplier = kHashMultiplier;

  // Lays the table out in `smem` (shape.shared_words() words, 8-byte aligned).
  __device__ void place(std::uint32_t* smem, const TableShape& shape, vid_t* global, std::uint32_t mult) {
    heads = reinterpret_cast<uint2*>(smem);
    shared_slots = smem + 2 * shape.buckets();
    global_slots = global;
    log2_buckets = shape.log2_buckets;
    shared_levels = shape.shared_levels;
    levels = shape.levels;
    multiplier = mult;
  }

  __device__ std::uint32_t buckets() const { return 1u << log2_buckets; }
  __device__ std::uint32_t bucket_of(vid_t key) const { return (key * multiplier) >> (32u - log2_buckets); }

  __device__ void clear(std::uint32_t thread, std::uint32_t threads) {
    for (std::uint32_t b = thread; b < buckets(); b += threads) heads[b] = make_uint2(0, 0);
  }

  __device__ void insert(vid_t key) {
    const std::uint32_t nb = buckets();
    const std::uint32_t mask = nb - 1;
    std::uint32_t b = bucket_of(key);
    for (;;) {
      const std::uint32_t pos = atomicAdd(&heads[b].x, 1u);  // shared-memory atomic
      if (pos < levels) {
        if (pos == 0) heads[b].y = key;
        else if (pos < shared_levels) shared_slots[(pos - 1) * nb + b] = key;
        else global_slots[(pos - shared_levels) * nb + b] = key;
        return;
      }
      b = (b + 1) & mask;  // bucket full: linear probing into the next bucket
    }
  }

  // kGlobal: the table may have levels in global memory (false for warp tables, which
  // the host only gives shapes with every level in shared memory).
  template <bool kGlobal>
  __device__ bool contains(vid_t key) const {
    const std::uint32_t nb = buckets();
    const std::uint32_t mask = nb - 1;
    std::uint32_t b = bucket_of(key);
    for (std::uint32_t visited = 0; visited < nb; ++visited) {
      const uint2 head = heads[b];
      const std::uint32_t n = head.x;
      if (n == 0) return false;
      if (head.y == key) return true;
      if (n > 1) {
        const std::uint32_t m = n < levels ? n : levels;
        const std::uint32_t ms = m < shared_levels ? m : shared_levels;
        for (std::uint32_t l = 1; l < ms; ++l)
          if (shared_slots[(l - 1) * nb + b] == key) return true;
        if constexpr (kGlobal) {
          for (std::uint32_t l = shared_levels; l < m; ++l)
            if (global_slots[(l - shared_levels) * nb + b] == key) return true;
        }
      }
      if (n < levels) return false;
      b = (b + 1) & mask;
    }
    return false;
  }
};

}  // namespace tricount::cuda
