#include "count/node_peers.hpp"

#include <climits>

#include "src/types.hpp"

namespace tricount {

MpiNodePeers::MpiNodePeers(MPI_Comm node_workers) : comm_(node_workers) {
  MPI_Comm_rank(comm_, &index_);
  MPI_Comm_size(comm_, &size_);
}

std::vector<std::string> MpiNodePeers::allgather(const std::string& mine) {
  TRICOUNT_EXPECTS(mine.size() <= INT_MAX / static_cast<std::size_t>(size_), "allgather of " + std::to_string(mine.size()) + " bytes");
  const int bytes = static_cast<int>(mine.size());
  std::string all(mine.size() * static_cast<std::size_t>(size_), '\0');
  MPI_Allgather(mine.data(), bytes, MPI_CHAR, all.data(), bytes, MPI_CHAR, comm_);
  std::vector<std::string> out;
  for (int p = 0; p < size_; ++p) out.push_back(all.substr(mine.size() * static_cast<std::size_t>(p), mine.size()));
  return out;
}

}  // namespace tricount
