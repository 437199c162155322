// The workers of one node as CountBackend::upload_shared sees them (worker/backend.hpp's
// NodePeers), over the node's worker communicator.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "worker/backend.hpp"

namespace tricount {

class MpiNodePeers final : public NodePeers {
 public:
  explicit MpiNodePeers(MPI_Comm node_workers);  // not owned
  int index() const override { return index_; }
  int size() const override { return size_; }
  std::vector<std::string> allgather(const std::string& mine) override;

 private:
  MPI_Comm comm_;
  int index_ = 0, size_ = 1;
};

}  // namespace tricount
