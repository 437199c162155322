#include "count/collective.hpp"

#include <climits>
#include <exception>
#include <string>

#include "src/types.hpp"

namespace tricount {

void collective_step(MPI_Comm comm, const std::function<void()>& step) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string message;
  int usage = 0;
  try {
    step();
  } catch (const UsageError& e) {
    message = e.what();
    usage = 1;
  } catch (const std::exception& e) {
    message = e.what();
    if (message.empty()) message = "unknown error";
  }
  int mine = message.empty() ? INT_MAX : rank, first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) return;
  int header[2] = {static_cast<int>(message.size()), usage};
  MPI_Bcast(header, 2, MPI_INT, first, comm);
  message.resize(static_cast<std::size_t>(header[0]));
  MPI_Bcast(message.data(), header[0], MPI_CHAR, first, comm);
  if (first != 0 && header[1] == 0) message = "rank " + std::to_string(first) + ": " + message;
  if (header[1]) throw UsageError(message);
  throw Error(message);
}

int node_local_rank(MPI_Comm comm, int* local_size) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0;
  MPI_Comm_rank(node, &local);
  if (local_size) MPI_Comm_size(node, local_size);
  MPI_Comm_free(&node);
  return local;
}

NodeLayout::NodeLayout(MPI_Comm comm, int ranks_per_node) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Comm host = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
  int host_rank = 0;
  MPI_Comm_rank(host, &host_rank);
  const int leads = host_rank == 0 ? 1 : 0;
  MPI_Allreduce(&leads, &hosts_, 1, MPI_INT, MPI_SUM, comm);
  if (ranks_per_node >= 1) {
    MPI_Comm_split(host, rank / ranks_per_node, rank, &comm_);
    MPI_Comm_free(&host);
  } else {
    comm_ = host;
  }
  // A node is named by its lowest rank; the indices follow those ranks' order.
  int lowest = rank;
  MPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, comm_);
  std::vector<int> lowest_of_rank(static_cast<std::size_t>(size));
  MPI_Allgather(&lowest, 1, MPI_INT, lowest_of_rank.data(), 1, MPI_INT, comm);
  std::vector<int> index_of_lowest(static_cast<std::size_t>(size), -1);
  nodes_ = 0;
  for (int r = 0; r < size; ++r)
    if (lowest_of_rank[static_cast<std::size_t>(r)] == r) index_of_lowest[static_cast<std::size_t>(r)] = nodes_++;
  node_of_rank_.resize(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r)
    node_of_rank_[static_cast<std::size_t>(r)] = index_of_lowest[static_cast<std::size_t>(lowest_of_rank[static_cast<std::size_t>(r)])];
  node_ = node_of_rank_[static_cast<std::size_t>(rank)];
}

}  // namespace tricount
