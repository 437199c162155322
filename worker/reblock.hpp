// Re-blocking on the host: a count block of n_c = n / g parts from its g x g file blocks
// (src/task_plan.hpp, file_blocks_of), for backends that count from host memory. The CUDA
// backend does the same on the device (worker/cuda/reblock.cuh).
#pragma once

#include <cstdint>
#include <vector>

#include "src/block_format.hpp"

namespace tricount {

// P'(id) with `rows` rows and `cols` columns (its classes' sizes at n_c parts) from `parts`,
// the g x g file blocks in file_blocks_of's order, on up to `threads` threads.
CsrBlock reblock(const std::vector<CsrSpan>& parts, const BlockId& id, std::uint64_t rows, std::uint64_t cols,
                 std::uint32_t group, unsigned threads);

}  // namespace tricount
