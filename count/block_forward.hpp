// tricount-count --load-path forward: under the static schedule, each block any worker needs
// is read from the file (and checked) by exactly one rank, then sent over MPI to one rank on
// each other node that needs it, which passes it on to the other workers of its node that
// need it. So the job reads every block once, and the bytes entering a node are the blocks
// its workers need, once.
//
// The plan (rank 0, from the static assignment): for each block, its reader is a worker that
// needs it on the node needing it that has read the fewest bytes so far (the reads spread
// over the nodes), and within that node the worker with the fewest bytes read; on each other
// node that needs it, the worker with the fewest bytes received takes it from the reader (the
// node's holder); the node's other workers that need it take it from their node's holder.
//
// The exchange (every worker): blocks in one order on every rank; a rank that reads a block
// sends it on without waiting (MPI_Isend), so that its next read overlaps the sends, and a
// rank that receives it waits for it. A block that cannot be read (a corrupt block, named by
// the reader's message) travels as its error instead: every message of the plan is still
// sent, so that no rank waits for one that gave up, and every rank that needed the block
// throws its reader's message at the end.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "src/block_format.hpp"
#include "src/task_plan.hpp"
#include "worker/block_cache.hpp"
#include "worker/worker.hpp"

namespace tricount {

// One rank's part of the plan, as every rank's parts travel: (block index i*n+j, needer
// rank, source rank) triples, source -1 for "read it from the file", ordered by block, then
// needer.
struct ForwardPlan {
  std::vector<std::uint64_t> triples;  // 3 words per entry
};

// Rank 0: the plan for `assigned` (each rank's task list; rank 0's empty unless it is the only
// rank), with the ranks' nodes and each block's bytes (n^2 entries).
ForwardPlan plan_forwarding(const TaskPlan& plan, const std::vector<std::vector<std::uint64_t>>& assigned,
                            const std::vector<int>& node_of_rank, const std::vector<std::uint64_t>& block_bytes);

// Rank 0's plan to every rank of `comm`. Collective.
void broadcast_plan(MPI_Comm comm, ForwardPlan& plan);

// Every worker of `comm`: its blocks of the plan into `cache`, read from `file` or received,
// and sent on to the ranks that take them from it; counts into `stats` (bytes_loaded for the
// reads, bytes_received, bytes_sent). Ranks outside the plan return at once. Throws Error
// after the exchange if a block this rank needed could not be read (the reader's message).
// `comm` must carry nothing else during the call (count_job passes a duplicate).
void forward_blocks(MPI_Comm comm, const ForwardPlan& plan, const TaskPlan& task_plan, const BlockFileReader& file,
                    BlockCache& cache, WorkerStats& stats);

}  // namespace tricount
