// The count's collective helpers: one step on every rank whose error, on any rank, ends the
// step on every rank; the node-local rank; and the job's nodes.
#pragma once

#include <mpi.h>

#include <functional>
#include <vector>

namespace tricount {

// Runs `step` on every rank of `comm` (a step for one rank returns at once on the others);
// if it throws on any rank, every rank throws the same error (the lowest failing rank's
// message, as UsageError if it was one), so that no rank waits for one that gave up.
void collective_step(MPI_Comm comm, const std::function<void()>& step);

// Node-local rank among the ranks of `comm` (MPI_COMM_TYPE_SHARED), for picking a GPU, and
// (if asked) how many ranks of `comm` share the node.
int node_local_rank(MPI_Comm comm, int* local_size = nullptr);

// The job's nodes: the one definition of which node a rank is on, for the static schedule's
// grouping (TaskQueue::assign_static_nodes), the node's shared record of checked blocks and
// the forwarding of blocks between nodes. The ranks of `comm` grouped by host
// (MPI_COMM_TYPE_SHARED), or, with `ranks_per_node` K >= 1 (--ranks-per-node), each host's
// ranks further into virtual nodes of K consecutive ranks, so that one host runs the
// multi-node path. A GPU and the cores and memory a worker takes still follow the host
// (node_local_rank): a virtual node is a share of a real one. Collective over `comm`.
class NodeLayout {
 public:
  NodeLayout() = default;
  NodeLayout(MPI_Comm comm, int ranks_per_node);
  NodeLayout(const NodeLayout&) = delete;
  NodeLayout& operator=(const NodeLayout&) = delete;
  ~NodeLayout() { release(); }
  void release() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  MPI_Comm comm() const { return comm_; }  // this rank's node: its ranks, in rank order
  int node() const { return node_; }       // this rank's node index
  int nodes() const { return nodes_; }
  int hosts() const { return hosts_; }  // distinct hosts (MPI_COMM_TYPE_SHARED), whatever the grouping
  // Every rank's node index; nodes numbered by their lowest rank (rank 0's node is node 0).
  const std::vector<int>& node_of_rank() const { return node_of_rank_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int node_ = 0, nodes_ = 1, hosts_ = 1;
  std::vector<int> node_of_rank_;
};

}  // namespace tricount
