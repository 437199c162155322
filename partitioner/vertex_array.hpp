// The pipeline's vertex-sized arrays (degrees, input ids, new ids, the tables over the input
// ids, a block's column counts): sized without a zero fill, then zeroed or filled on the
// stage's threads. std::vector's resize and assign touch every page on the calling thread
// (the kernel's page faults and zeroing, then the fill), one thread for hundreds of MB at
// Kronecker 26; here the first touch is spread over the threads like the work that follows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "src/block_memory.hpp"
#include "src/threads.hpp"

namespace tricount {

// resize() leaves new elements unset (the blocks' allocator, src/block_memory.hpp).
template <class T>
using VertexArray = std::vector<T, BlockAllocator<T>>;

// Threads for touching `bytes` bytes: at least 1 MiB a thread (starting one costs more).
inline unsigned fill_threads(std::uint64_t bytes, unsigned threads) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>(bytes >> 20, 1, std::max(1u, threads)));
}

// data[0, n) = value, on up to `threads` threads.
template <class T>
void parallel_fill(T* data, std::uint64_t n, const T& value, unsigned threads) {
  parallel_ranges(n, fill_threads(n * sizeof(T), threads),
                  [&](std::uint64_t a, std::uint64_t b) { std::fill(data + a, data + b, value); });
}

// `a` resized to n elements, all zero, its pages first touched on up to `threads` threads.
template <class T>
void assign_zeros(VertexArray<T>& a, std::uint64_t n, unsigned threads) {
  a.clear();
  a.resize(n);
  parallel_fill(a.data(), n, T{}, threads);
}

}  // namespace tricount
