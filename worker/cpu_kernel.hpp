// The CPU backend's kernel, exposed for its tests: the three set-intersection counters it
// picks from (see cpu_backend.cpp; its tuning is CpuTuning in worker/backend.hpp).
#pragma once

#include <cstdint>
#include <memory>

#include "src/types.hpp"
#include "worker/backend.hpp"

namespace tricount {

// Counts |a ∩ b| of two strictly increasing lists.
std::uint64_t intersect_merge(const vid_t* a, std::uint64_t na, const vid_t* b, std::uint64_t nb);
// The same with AVX2; only call where cpu_has_avx2().
std::uint64_t intersect_merge_avx2(const vid_t* a, std::uint64_t na, const vid_t* b, std::uint64_t nb);
// The same by searching each entry of the short list in the long one with a doubling step.
std::uint64_t intersect_gallop(const vid_t* short_list, std::uint64_t n_short, const vid_t* long_list,
                               std::uint64_t n_long);
bool cpu_has_avx2();

}  // namespace tricount
