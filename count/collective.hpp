// The count's collective helpers: one step on every rank whose error, on any rank, ends the
// step on every rank; and the node-local rank.
#pragma once

#include <mpi.h>

#include <functional>

namespace tricount {

// Runs `step` on every rank of `comm` (a step for one rank returns at once on the others);
// if it throws on any rank, every rank throws the same error (the lowest failing rank's
// message, as UsageError if it was one), so that no rank waits for one that gave up.
void collective_step(MPI_Comm comm, const std::function<void()>& step);

// Node-local rank among the ranks of `comm` (MPI_COMM_TYPE_SHARED), for picking a GPU, and
// (if asked) how many ranks of `comm` share the node.
int node_local_rank(MPI_Comm comm, int* local_size = nullptr);

}  // namespace tricount
