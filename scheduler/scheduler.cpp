#include "scheduler/scheduler.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>

#include "src/output_file.hpp"

namespace tricount {
namespace {

// What the SIGTERM handler may read: two in-flight slots per worker rank.
constexpr int kMaxTrackedRanks = 1 << 16;
std::uint64_t* g_in_flight = nullptr;  // [rank * 2 + slot] = task + 1, 0 = empty
int g_tracked_ranks = 0;
const char* g_journal_path = nullptr;

void append_text(char* buf, std::size_t& len, std::size_t cap, const char* s) {
  while (*s && len + 1 < cap) buf[len++] = *s++;
}
void append_number(char* buf, std::size_t& len, std::size_t cap, std::uint64_t v) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  while (n && len + 1 < cap) buf[len++] = digits[--n];
}

// The tasks in flight and where the finished ones are, on stderr: from the signal handler
// below, or as the note of tricount-count's signal watcher (src/output_file.hpp).
void report_in_flight(int sig) {
  // Only async-signal-safe calls here.
  static char buf[8192];
  std::size_t len = 0;
  append_text(buf, len, sizeof buf, "tricount-count: scheduler stopped by signal ");
  append_number(buf, len, sizeof buf, static_cast<std::uint64_t>(sig));
  append_text(buf, len, sizeof buf, " (a rank died or the job was cancelled); tasks in flight:");
  bool any = false;
  for (int r = 0; r < g_tracked_ranks; ++r)
    for (int s = 0; s < 2; ++s)
      if (const std::uint64_t t = g_in_flight[r * 2 + s]) {
        append_text(buf, len, sizeof buf, " rank ");
        append_number(buf, len, sizeof buf, static_cast<std::uint64_t>(r));
        append_text(buf, len, sizeof buf, " task ");
        append_number(buf, len, sizeof buf, t - 1);
        append_text(buf, len, sizeof buf, ";");
        any = true;
      }
  if (!any) append_text(buf, len, sizeof buf, " none;");
  if (g_journal_path) {
    append_text(buf, len, sizeof buf, " finished tasks are in the journal '");
    append_text(buf, len, sizeof buf, g_journal_path);
    append_text(buf, len, sizeof buf, "': rerun with --resume");
  } else {
    append_text(buf, len, sizeof buf, " no --journal was given, so nothing is kept");
  }
  append_text(buf, len, sizeof buf, "\n");
  (void)!::write(2, buf, len);
}

extern "C" void report_in_flight_and_exit(int sig) {
  report_in_flight(sig);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void track(int rank, std::uint64_t task, bool add) {
  if (rank >= g_tracked_ranks) return;
  std::uint64_t* slot = g_in_flight + rank * 2;
  if (add) {
    (slot[0] == 0 ? slot[0] : slot[1]) = task + 1;
  } else {
    if (slot[0] == task + 1) slot[0] = 0;
    else if (slot[1] == task + 1) slot[1] = 0;
  }
}

// Installs the SIGTERM/SIGINT report for the scheduler loop and removes it on every way out
// (an exception included), before the in-flight table it reads goes away.
class InFlightReport {
 public:
  InFlightReport(int ranks, const JournalWriter* journal)
      : in_flight_(static_cast<std::size_t>(std::min(ranks, kMaxTrackedRanks)) * 2, 0) {
    g_in_flight = in_flight_.data();
    g_tracked_ranks = std::min(ranks, kMaxTrackedRanks);
    g_journal_path = journal ? journal->path().c_str() : nullptr;
    struct sigaction action {};
    action.sa_handler = report_in_flight_and_exit;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, &old_term_);
    sigaction(SIGINT, &action, &old_int_);
    output::set_interrupt_note(report_in_flight);  // where a watcher takes the signals instead
  }
  ~InFlightReport() {
    output::set_interrupt_note(nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    sigaction(SIGINT, &old_int_, nullptr);
    g_tracked_ranks = 0;
    g_in_flight = nullptr;
    g_journal_path = nullptr;
  }
  InFlightReport(const InFlightReport&) = delete;
  InFlightReport& operator=(const InFlightReport&) = delete;

 private:
  std::vector<std::uint64_t> in_flight_;  // [rank * 2 + slot] = task + 1, 0 = empty
  struct sigaction old_term_ {}, old_int_ {};
};

}  // namespace

using Clock = std::chrono::steady_clock;

class ProgressLine {
 public:
  explicit ProgressLine(const ProgressOptions& options)
      : options_(options), start_(Clock::now()), next_(start_ + interval()) {}
  bool due(Clock::time_point now) const { return options_.interval_seconds > 0 && now >= next_; }
  // `longest`: the task in flight the longest, its rank and since when (if any is known).
  void print(Clock::time_point now, std::uint64_t done, std::uint64_t in_flight, std::uint64_t waiting,
             const std::optional<std::pair<std::uint64_t, int>>& longest, Clock::time_point longest_since) {
    std::string line = "tricount-count: progress: " + std::to_string(options_.done_before + done) + " of " +
                       std::to_string(options_.tasks) + " tasks done, " + std::to_string(in_flight) + " in flight, " +
                       std::to_string(waiting) + " waiting, " + seconds(now - start_) + " elapsed";
    if (longest)
      line += "; longest in flight: task " + std::to_string(longest->first) + " on rank " + std::to_string(longest->second) +
              " for " + seconds(now - longest_since);
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
    next_ = now + interval();
  }

 private:
  Clock::duration interval() const {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.interval_seconds));
  }
  static std::string seconds(Clock::duration d) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f s", std::chrono::duration<double>(d).count());
    return buf;
  }
  ProgressOptions options_;
  Clock::time_point start_, next_;
};

SchedulerResult serve_tasks(MPI_Comm comm, TaskQueue& queue, JournalWriter* journal, const ProgressOptions& progress,
                            const std::vector<std::vector<std::uint64_t>>* assigned) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  SchedulerResult result;
  struct WorkerState {
    bool told_done = false;
    bool finished = false;
    std::int64_t in_flight = 0;
    std::size_t next_static = 0;  // static schedule: its next task not yet started
  };
  std::vector<WorkerState> workers(static_cast<std::size_t>(size));
  const InFlightReport report_on_signal(size, journal);
  ProgressLine progress_line(progress);
  struct Handout {
    int rank;
    Clock::time_point since;
  };
  std::map<std::uint64_t, Handout> out;  // tasks in flight
  // Static schedule: every worker's list is out from the start, its tasks counted in order,
  // so the one in flight is the first not yet reported.
  std::uint64_t static_waiting = 0;
  auto start_static = [&](int worker) {
    WorkerState& w = workers[static_cast<std::size_t>(worker)];
    const std::vector<std::uint64_t>& list = (*assigned)[static_cast<std::size_t>(worker)];
    if (w.next_static >= list.size()) return;
    const std::uint64_t task = list[w.next_static++];
    track(worker, task, true);
    out[task] = {worker, Clock::now()};
    --static_waiting;
  };
  if (assigned) {
    if (assigned->size() != static_cast<std::size_t>(size))
      throw Error("internal error: a static schedule of " + std::to_string(assigned->size()) + " lists for " +
                  std::to_string(size) + " ranks");
    for (int r = 1; r < size; ++r) {
      WorkerState& w = workers[static_cast<std::size_t>(r)];
      w.told_done = true;
      w.in_flight = static_cast<std::int64_t>((*assigned)[static_cast<std::size_t>(r)].size());
      static_waiting += (*assigned)[static_cast<std::size_t>(r)].size();
      start_static(r);
      if (w.in_flight == 0) w.finished = true;
    }
  }
  auto print_progress = [&](Clock::time_point now) {
    auto longest = out.end();
    for (auto it = out.begin(); it != out.end(); ++it)
      if (longest == out.end() || it->second.since < longest->second.since) longest = it;
    std::optional<std::pair<std::uint64_t, int>> who;
    if (longest != out.end()) who = std::pair(longest->first, longest->second.rank);
    progress_line.print(now, result.finished.size(), out.size(), assigned ? static_waiting : queue.remaining(), who,
                        longest != out.end() ? longest->second.since : now);
  };

  int active = 0;
  for (int r = 1; r < size; ++r) active += workers[static_cast<std::size_t>(r)].finished ? 0 : 1;
  auto backoff = std::chrono::microseconds(20);
  while (active > 0) {
    if (const auto now = Clock::now(); progress_line.due(now)) print_progress(now);
    // Poll with a short sleep rather than block: a blocking receive spins a core that a
    // worker on the same node may need.
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &status);
    if (!flag) {
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, std::chrono::microseconds(200));
      continue;
    }
    backoff = std::chrono::microseconds(20);
    const int worker = status.MPI_SOURCE;
    WorkerState& w = workers[static_cast<std::size_t>(worker)];
    if (status.MPI_TAG == kTagFailure) {
      int length = 0;
      MPI_Get_count(&status, MPI_CHAR, &length);
      std::string message(static_cast<std::size_t>(length), '\0');
      MPI_Recv(message.data(), length, MPI_CHAR, worker, kTagFailure, comm, MPI_STATUS_IGNORE);
      if (result.failed_rank < 0) {
        result.failed_rank = worker;
        result.failure = message;
      }
      if (!w.finished) --active;
      w.finished = true;
      continue;
    }
    std::uint64_t request[kRequestWords];
    MPI_Recv(request, kRequestWords, MPI_UINT64_T, worker, kTagRequest, comm, MPI_STATUS_IGNORE);
    if (request[0] & kHasReport) {
      const FinishedTask done{
          {request[1], request[2], std::bit_cast<double>(request[3]), std::bit_cast<double>(request[4])}, worker};
      result.finished.push_back(done);
      track(worker, done.report.task, false);
      out.erase(done.report.task);
      --w.in_flight;
      if (assigned) start_static(worker);
      // A journal that cannot be written (disk full) stops the hand-out; the workers still
      // running are told there is no more work, so every rank reaches the end and fails.
      if (journal && result.scheduler_failure.empty()) {
        try {
          journal->append({done.report.task, done.report.triangles, done.report.seconds, worker,
                           queue.estimate(done.report.task), done.report.load_seconds});
        } catch (const std::exception& e) {
          result.scheduler_failure = e.what();
        }
      }
    }
    if (request[0] & kWantsTask) {
      std::uint64_t answer = kNoMoreTasks;
      if (result.failed_rank < 0 && result.scheduler_failure.empty() && !assigned)
        if (auto id = queue.pop(worker)) answer = *id;
      MPI_Send(&answer, 1, MPI_UINT64_T, worker, kTagAssign, comm);
      if (answer == kNoMoreTasks) {
        w.told_done = true;
      } else {
        track(worker, answer, true);
        out[answer] = {worker, Clock::now()};
        ++w.in_flight;
      }
    }
    if (w.told_done && w.in_flight <= 0 && !w.finished) {
      w.finished = true;
      --active;
    }
  }
  return result;
}

// Waits for a request to complete by polling with short sleeps: a blocking wait spins a
// core, and on a node with more ranks than cores that starves the scheduler rank.
void wait_politely(MPI_Request& request) {
  auto pause = std::chrono::microseconds(5);
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(200));
  }
}

std::optional<std::uint64_t> MpiTaskSource::next(const TaskReport* finished) {
  std::uint64_t answer = kNoMoreTasks;
  MPI_Request pending;
  MPI_Irecv(&answer, 1, MPI_UINT64_T, 0, kTagAssign, comm_, &pending);
  std::uint64_t request[kRequestWords] = {kWantsTask, 0, 0, 0, 0};
  if (finished) {
    request[0] |= kHasReport;
    request[1] = finished->task;
    request[2] = finished->triangles;
    request[3] = std::bit_cast<std::uint64_t>(finished->seconds);
    request[4] = std::bit_cast<std::uint64_t>(finished->load_seconds);
  }
  MPI_Send(request, kRequestWords, MPI_UINT64_T, 0, kTagRequest, comm_);
  wait_politely(pending);
  if (answer == kNoMoreTasks) return std::nullopt;
  return answer;
}

std::optional<std::uint64_t> StaticTaskSource::next(const TaskReport* finished) {
  if (finished) mpi_.report(*finished);
  if (next_ >= tasks_.size()) return std::nullopt;
  return tasks_[next_++];
}

void MpiTaskSource::report(const TaskReport& finished) {
  std::uint64_t request[kRequestWords] = {kHasReport, finished.task, finished.triangles,
                                         std::bit_cast<std::uint64_t>(finished.seconds),
                                         std::bit_cast<std::uint64_t>(finished.load_seconds)};
  MPI_Send(request, kRequestWords, MPI_UINT64_T, 0, kTagRequest, comm_);
}

void MpiTaskSource::fail(const std::string& message) {
  MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, kTagFailure, comm_);
}

LocalTaskSource::LocalTaskSource(TaskQueue& queue, JournalWriter* journal, const ProgressOptions& progress)
    : queue_(queue), journal_(journal), progress_(std::make_unique<ProgressLine>(progress)) {}

LocalTaskSource::~LocalTaskSource() = default;

std::optional<std::uint64_t> LocalTaskSource::next(const TaskReport* done) {
  if (done) report(*done);
  if (const auto now = Clock::now(); progress_->due(now))
    progress_->print(now, finished.size(), handed_out_ - finished.size(), queue_.remaining(), std::nullopt, now);
  const std::optional<std::uint64_t> id = queue_.pop(0);
  if (id) ++handed_out_;
  return id;
}

void LocalTaskSource::report(const TaskReport& done) {
  finished.push_back({done, 0});
  if (!journal_) return;
  try {
    journal_->append({done.task, done.triangles, done.seconds, 0, queue_.estimate(done.task), done.load_seconds});
  } catch (const std::exception& e) {
    scheduler_failure = e.what();
    throw;  // ends the worker (run_worker reports and rethrows)
  }
}

}  // namespace tricount
