// The scheduler rank (rank 0): hands task ids to whichever worker asks next, collects each
// finished task's report, and never counts. Also the worker-side end of the same protocol.
//
// Protocol (all point-to-point on the job's communicator):
//   worker -> 0  kTagRequest  uint64[4] {has_report, task, triangles, seconds as bits}
//   0 -> worker  kTagAssign   uint64[1] {task id, or kNoMoreTasks}
//   worker -> 0  kTagFailure  char[]    the error message; the worker then asks for nothing
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "worker/worker.hpp"

namespace tricount {

inline constexpr int kTagRequest = 101;
inline constexpr int kTagAssign = 102;
inline constexpr int kTagFailure = 103;
inline constexpr std::uint64_t kNoMoreTasks = ~std::uint64_t{0};

// The order in which task ids are handed out.
class TaskQueue {
 public:
  explicit TaskQueue(std::uint64_t num_tasks) : num_tasks_(num_tasks) {}
  std::optional<std::uint64_t> pop() {
    if (next_ >= num_tasks_) return std::nullopt;
    return next_++;
  }
  std::uint64_t remaining() const { return num_tasks_ - next_; }

 private:
  std::uint64_t num_tasks_;
  std::uint64_t next_ = 0;
};

struct SchedulerResult {
  std::vector<TaskReport> finished;       // in completion order
  std::vector<std::uint64_t> tasks_per_rank;
  std::string failure;                    // first worker failure, "" if none
  int failed_rank = -1;
};

// Serves every worker rank (1..size-1) until each has been told there is no more work or
// has failed. After a failure, workers that ask are told to stop.
SchedulerResult serve_tasks(MPI_Comm comm, TaskQueue& queue);

// Worker end: asks rank 0.
class MpiTaskSource final : public TaskSource {
 public:
  explicit MpiTaskSource(MPI_Comm comm) : comm_(comm) {}
  std::optional<std::uint64_t> next(const TaskReport* finished) override;
  void fail(const std::string& message) override;

 private:
  MPI_Comm comm_;
};

// One rank doing both jobs.
class LocalTaskSource final : public TaskSource {
 public:
  explicit LocalTaskSource(TaskQueue& queue) : queue_(queue) {}
  std::optional<std::uint64_t> next(const TaskReport* finished) override;
  void fail(const std::string&) override {}
  std::vector<TaskReport> finished;

 private:
  TaskQueue& queue_;
};

}  // namespace tricount
