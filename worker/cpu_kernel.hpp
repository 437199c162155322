// The CPU backend's kernel, exposed for its tests and for callers that tune it: the tuning
// values and the three set-intersection counters it picks from (see cpu_backend.cpp).
#pragma once

#include <cstdint>
#include <memory>

#include "src/types.hpp"
#include "worker/backend.hpp"

namespace tricount {

struct CpuTuning {
  // A row u whose own list has at least this many entries is marked in a bitmap once and
  // every 2-hop list is tested against it (hub rows); shorter rows merge or gallop.
  std::uint64_t bitmap_min_degree = 256;
  // A pair gallops (the short list searched in the long one) when one list is more than
  // this many times longer than the other; else the two lists are merged.
  std::uint64_t gallop_ratio = 16;
  // Edges of P(i,j) a thread takes per grab from the shared counter: the subtask's edges
  // cut into about chunks_per_thread grabs per thread, at least chunk_edges each.
  std::uint64_t chunk_edges = 256;
  std::uint64_t chunks_per_thread = 64;
  // Subtasks with fewer 1-hop plus 2-hop entries than this run on the calling thread alone.
  std::uint64_t min_parallel_entries = 65536;
  // Use AVX2 for merging when the processor has it (false: the portable merge).
  bool simd = true;
};

// Counts |a ∩ b| of two strictly increasing lists.
std::uint64_t intersect_merge(const vid_t* a, std::uint64_t na, const vid_t* b, std::uint64_t nb);
// The same with AVX2; only call where cpu_has_avx2().
std::uint64_t intersect_merge_avx2(const vid_t* a, std::uint64_t na, const vid_t* b, std::uint64_t nb);
// The same by searching each entry of the short list in the long one with a doubling step.
std::uint64_t intersect_gallop(const vid_t* short_list, std::uint64_t n_short, const vid_t* long_list,
                               std::uint64_t n_long);
bool cpu_has_avx2();

std::unique_ptr<CountBackend> make_cpu_backend(const BackendOptions& options, const CpuTuning& tuning);

}  // namespace tricount
