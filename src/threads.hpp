// Threads: how many cores this process may use, and the one fork-join helper.
#pragma once

#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
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

// The one fork-join helper: runs fn(t) for every t in [0, threads), fn(0) on the calling
// thread; waits for all, then rethrows the first exception on the caller (an exception in a
// thread never terminates the process).
template <class Fn>
void parallel_for(unsigned threads, Fn&& fn) {
  threads = std::max(1u, threads);
  std::exception_ptr first;
  std::mutex m;
  auto guarded = [&](unsigned t) {
    try {
      fn(t);
    } catch (...) {
      std::lock_guard lock(m);
      if (!first) first = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> pool;
    pool.reserve(threads - 1);
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(guarded, t);
    guarded(0);
  }
  if (first) std::rethrow_exception(first);
}

// Runs body(first, last) over [0, n) cut into at most `threads` contiguous ranges, through
// parallel_for (the first range on the calling thread, exceptions carried to the caller).
// For work of tens of MB per call, where starting threads is cheap.
template <class Body>
void parallel_ranges(std::uint64_t n, unsigned threads, Body&& body) {
  const std::uint64_t t = std::clamp<std::uint64_t>(threads, 1, std::max<std::uint64_t>(n, 1));
  parallel_for(static_cast<unsigned>(t), [&](unsigned k) { body(n * k / t, n * (k + 1) / t); });
}

}  // namespace tricount
