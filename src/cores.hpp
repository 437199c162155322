// How many cores this process may run on: its CPU affinity set (srun --cpus-per-task,
// mpirun --bind-to, taskset), else the machine's. "All cores" defaults mean these, so that a
// rank bound to a few cores does not start a thread per core of the whole node.
#pragma once

#include <sched.h>

#include <algorithm>
#include <thread>

namespace tricount {

inline unsigned usable_cores() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace tricount
