#include "scheduler/scheduler.hpp"

#include <bit>
#include <cstring>

namespace tricount {

SchedulerResult serve_tasks(MPI_Comm comm, TaskQueue& queue) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  SchedulerResult result;
  result.tasks_per_rank.assign(static_cast<std::size_t>(size), 0);
  int active = size - 1;
  while (active > 0) {
    MPI_Status status;
    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &status);
    const int worker = status.MPI_SOURCE;
    if (status.MPI_TAG == kTagFailure) {
      int length = 0;
      MPI_Get_count(&status, MPI_CHAR, &length);
      std::string message(static_cast<std::size_t>(length), '\0');
      MPI_Recv(message.data(), length, MPI_CHAR, worker, kTagFailure, comm, MPI_STATUS_IGNORE);
      if (result.failed_rank < 0) {
        result.failed_rank = worker;
        result.failure = message;
      }
      --active;
      continue;
    }
    std::uint64_t request[4];
    MPI_Recv(request, 4, MPI_UINT64_T, worker, kTagRequest, comm, MPI_STATUS_IGNORE);
    if (request[0]) {
      result.finished.push_back({request[1], request[2], std::bit_cast<double>(request[3])});
      ++result.tasks_per_rank[static_cast<std::size_t>(worker)];
    }
    std::uint64_t answer = kNoMoreTasks;
    if (result.failed_rank < 0) {
      if (auto id = queue.pop()) answer = *id;
    }
    MPI_Send(&answer, 1, MPI_UINT64_T, worker, kTagAssign, comm);
    if (answer == kNoMoreTasks) --active;
  }
  return result;
}

std::optional<std::uint64_t> MpiTaskSource::next(const TaskReport* finished) {
  std::uint64_t request[4] = {0, 0, 0, 0};
  if (finished) {
    request[0] = 1;
    request[1] = finished->task;
    request[2] = finished->triangles;
    request[3] = std::bit_cast<std::uint64_t>(finished->seconds);
  }
  MPI_Send(request, 4, MPI_UINT64_T, 0, kTagRequest, comm_);
  std::uint64_t answer = kNoMoreTasks;
  MPI_Recv(&answer, 1, MPI_UINT64_T, 0, kTagAssign, comm_, MPI_STATUS_IGNORE);
  if (answer == kNoMoreTasks) return std::nullopt;
  return answer;
}

void MpiTaskSource::fail(const std::string& message) {
  MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, kTagFailure, comm_);
}

std::optional<std::uint64_t> LocalTaskSource::next(const TaskReport* done) {
  if (done) finished.push_back(*done);
  return queue_.pop();
}

}  // namespace tricount
