// The scaling simulator: replays the task costs measured in a journal through the
// scheduler's own policy (TaskQueue: costliest estimate first, block affinity) for P virtual
// workers, each taking its next task the moment it is free. It predicts; it does not
// measure. What it leaves out: contention between workers for file reads, network and
// scheduler latency (give --task-overhead to add a fixed cost per task).
#pragma once

#include <cstdint>
#include <vector>

#include "scheduler/journal.hpp"

namespace tricount {

struct SimulationPoint {
  int workers = 1;
  double predicted_seconds = 0;  // makespan
  double speedup = 1;            // vs. one worker
  double efficiency = 1;         // speedup / workers
  double imbalance = 1;          // max / min busy seconds (0 when some worker gets nothing)
  std::uint64_t tasks = 0;
};

SimulationPoint simulate_schedule(const JournalContents& journal, int workers, double task_overhead_seconds = 0);

}  // namespace tricount
