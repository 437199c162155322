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

}  // namespace tricount
