// Threads: how many cores this process may use, and a plain fork-join over ranges.
#pragma once

#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace tricount {

// The cores this process may run on: its CPU affinity set (srun --cpus-per-task,
// mpirun --bind-to, taskset), else the machine's. "All cores" defaults mean these, so that a
// rank bound to a few cores does not start a thread per core of the whole node.
inline unsigned usable_cores() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
  return std::max(1u, std::thread::hardware_concurrency());
}

// Runs body(first, last) over [0, n) cut into at most `threads` contiguous ranges, the first
// on the calling thread. For work of tens of MB per call, where starting threads is cheap.
template <class Body>
void parallel_ranges(std::uint64_t n, unsigned threads, Body&& body) {
  const std::uint64_t t = std::clamp<std::uint64_t>(threads, 1, std::max<std::uint64_t>(n, 1));
  if (t <= 1) {
    body(std::uint64_t{0}, n);
    return;
  }
  std::vector<std::thread> pool;
  for (std::uint64_t k = 1; k < t; ++k) pool.emplace_back([&, k] { body(n * k / t, n * (k + 1) / t); });
  body(std::uint64_t{0}, n / t);
  for (auto& th : pool) th.join();
}

}  // namespace tricount
