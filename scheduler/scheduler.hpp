// The scheduler rank (rank 0): hands task ids to whichever worker asks next, records each
// finished task (and journals it), and never counts. Also the worker-side end of the
// protocol.
//
// Protocol (point-to-point on the job's communicator):
//   worker -> 0  kTagRequest  uint64[5] {flags, task, triangles, seconds as bits, load seconds as bits}
//                flags: kHasReport (task/triangles/seconds/load describe a finished task),
//                       kWantsTask (answer with the next id)
//   0 -> worker  kTagAssign   uint64[1] {task id, or kNoMoreTasks}
//   worker -> 0  kTagFailure  char[]    the error message; the worker then sends nothing
// A worker asks for its next task when it starts counting the current one (so it can load
// the next blocks meanwhile); its last report comes without a request.
// Static schedule (tricount-count --schedule static): every worker got its list of tasks
// before counting (TaskQueue::assign_static); it counts them in order and sends only reports
// (no kWantsTask), and is done when all its tasks are reported, or when it failed. After a
// failure the other workers finish their lists (their tasks are journaled), then the job
// ends with the error.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/journal.hpp"
#include "scheduler/task_queue.hpp"
#include "worker/worker.hpp"

namespace tricount {

inline constexpr int kTagRequest = 101;
inline constexpr int kTagAssign = 102;
inline constexpr int kTagFailure = 103;
inline constexpr int kRequestWords = 5;
inline constexpr std::uint64_t kHasReport = 1;
inline constexpr std::uint64_t kWantsTask = 2;
inline constexpr std::uint64_t kNoMoreTasks = ~std::uint64_t{0};

// A progress line on stderr every `interval_seconds` while tasks are out, so that a stall
// (a stopped or hung worker) shows in a batch log: tasks done, in flight and waiting, the
// time since counting began, and the task in flight the longest with its rank.
struct ProgressOptions {
  double interval_seconds = 0;    // 0: no progress lines
  std::uint64_t tasks = 0;        // in the whole run
  std::uint64_t done_before = 0;  // finished by earlier runs (the journal)
};

struct FinishedTask {
  TaskReport report;
  int rank = 0;
};

struct SchedulerResult {
  std::vector<FinishedTask> finished;  // in completion order
  std::string failure;                 // first worker failure, "" if none
  int failed_rank = -1;
  // Rank 0's own error (a journal write failed): no task was handed out after it.
  std::string scheduler_failure;
};

// Serves every worker rank (1..size-1) until each has been told there is no more work and
// has reported all its tasks, or has failed. After a failure (a worker's, or rank 0's own
// journal write), workers that ask are told to stop, so every rank gets to the end of the
// count promptly. Each finished task is appended to `journal` if given. While serving,
// SIGTERM (what mpirun sends when another rank dies) prints the tasks in flight before the
// rank exits. `assigned` (static schedule): each worker rank's task list, indexed by rank
// (rank 0's empty); then nothing is handed out.
SchedulerResult serve_tasks(MPI_Comm comm, TaskQueue& queue, JournalWriter* journal, const ProgressOptions& progress = {},
                            const std::vector<std::vector<std::uint64_t>>* assigned = nullptr);

// Worker end: asks rank 0.
class MpiTaskSource final : public TaskSource {
 public:
  explicit MpiTaskSource(MPI_Comm comm) : comm_(comm) {}
  std::optional<std::uint64_t> next(const TaskReport* finished) override;
  void report(const TaskReport& finished) override;
  void fail(const std::string& message) override;

 private:
  MPI_Comm comm_;
};

// Worker end of the static schedule: its own list, in order; reports go to rank 0.
class StaticTaskSource final : public TaskSource {
 public:
  StaticTaskSource(MPI_Comm comm, std::vector<std::uint64_t> tasks) : mpi_(comm), tasks_(std::move(tasks)) {}
  std::optional<std::uint64_t> next(const TaskReport* finished) override;
  void report(const TaskReport& finished) override { mpi_.report(finished); }
  void fail(const std::string& message) override { mpi_.fail(message); }

 private:
  MpiTaskSource mpi_;
  std::vector<std::uint64_t> tasks_;
  std::size_t next_ = 0;
};

class ProgressLine;

// One rank doing both jobs (its progress lines come between tasks).
class LocalTaskSource final : public TaskSource {
 public:
  LocalTaskSource(TaskQueue& queue, JournalWriter* journal, const ProgressOptions& progress = {});
  ~LocalTaskSource() override;
  std::optional<std::uint64_t> next(const TaskReport* finished) override;
  void report(const TaskReport& finished) override;
  void fail(const std::string&) override {}
  std::vector<FinishedTask> finished;
  std::string scheduler_failure;  // the journal write that failed (it also ends the worker)

 private:
  TaskQueue& queue_;
  JournalWriter* journal_;
  std::unique_ptr<ProgressLine> progress_;
  std::uint64_t handed_out_ = 0;
};

}  // namespace tricount
