// The scaling simulator: replays the task costs measured in a journal through the
// scheduler's own policy (TaskQueue: costliest estimate first, block affinity) for P virtual
// workers, each taking its next task the moment it is free. It predicts; it does not
// measure.
//
// Block loads: a task's measured seconds include reading those of its blocks that its
// worker did not hold yet. With BlockLoads (the journal's load column and the block sizes
// of the file) a task costs its seconds less its measured load, plus the reading of each of
// its blocks that its virtual worker has not read before, at the run's measured rate
// (load seconds / bytes first read, per rank). So P workers each pay for the blocks they
// use, as real ones do; without it the loads are replayed where they were measured, which
// undercounts them once workers share blocks (measured on 2 GPUs: 0.47 s predicted, 0.86 s
// measured). What it leaves out: prefetch overlapping a load with the previous count (so
// loads are charged in full), cache eviction (each worker keeps what it read), contention
// for file reads, network and scheduler latency (--task-overhead adds a fixed cost per task).
#pragma once

#include <cstdint>
#include <optional>
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
  std::uint64_t max_bytes_loaded = 0;   // block bytes the busiest reader read (with BlockLoads)
  std::uint64_t mean_bytes_loaded = 0;  // over the workers
};

// The bytes of each block (n x n, row-major) and the measured read rate.
struct BlockLoads {
  std::vector<std::uint64_t> block_bytes;
  double seconds_per_byte = 0;
};

// BlockLoads for a journal whose records all carry a load column, given the block sizes:
// the rate is the journal's load seconds over the bytes each rank read first (in journal
// order). Nothing (nullopt) when the journal has no load column or read nothing.
std::optional<BlockLoads> measured_block_loads(const JournalContents& journal, std::vector<std::uint64_t> block_bytes);

SimulationPoint simulate_schedule(const JournalContents& journal, int workers, double task_overhead_seconds = 0,
                                  const BlockLoads* loads = nullptr);

// The static schedule (tricount-count --schedule static): the tasks assigned before counting
// by the runtime's own policy (TaskQueue::assign_static on the journal's estimates); each
// worker first loads every block of its tasks (the load phase), then all meet, then each
// counts its list (the count phase lasts as long as the slowest worker's share). Task
// seconds as in simulate_schedule (less the measured load when `loads` is given).
struct StaticSimulationPoint {
  int workers = 1;
  double load_phase_seconds = 0;   // the slowest worker's loading of its blocks
  double count_phase_seconds = 0;  // the slowest worker's share of the task seconds
  double total_seconds = 0;        // load phase + count phase
  double count_speedup = 1, count_efficiency = 1;  // count phase vs one worker counting every task
  double speedup = 1, efficiency = 1;              // end to end vs one worker reading every block once and counting
  double imbalance = 1;            // count phase / mean share
  std::uint64_t tasks = 0, max_tasks = 0;
  std::uint64_t max_bytes = 0, mean_bytes = 0;  // of the blocks each worker holds (with `loads`)
};
// `one_worker_seconds_per_byte`: the read rate of the one-worker base (< 0: the loads' rate;
// at scale a GPU's share of the file system is slower than one GPU alone).
// `workers_per_node`: the runtime's assignment by nodes of that many workers (0: one node);
// `assignment`, when given, receives each worker's tasks.
StaticSimulationPoint simulate_static(const JournalContents& journal, int workers, const BlockLoads* loads = nullptr,
                                      double one_worker_seconds_per_byte = -1, int workers_per_node = 0,
                                      std::vector<std::vector<std::uint64_t>>* assignment = nullptr);

}  // namespace tricount
