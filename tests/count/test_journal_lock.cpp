// Issue 32, item 2: two counts on one journal. A --resume started while another count still
// appended to the same --journal interleaved its records with the other's (torn lines,
// duplicate tasks), and every later --resume refused the journal as damaged: all journaled
// work was lost. Now rank 0 holds an exclusive lock (flock) on the journal for the whole run
// and a second count on it is refused, naming the journal; the journal stays valid and
// resumable.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "scheduler/journal.hpp"
#include "tests/faults.hpp"
#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

constexpr double kTimeout = 120;


class JournalLock : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const EdgePairs edges = random_graph(300, 3000, 14);
    expected_ = reference::count_triangles(edges);
    write_text_edges(dir_->file("g.txt"), edges);
    const ProcessResult r = run_process(
        {bin_dir() + "/tricount-partition", "--input", dir_->file("g.txt"), "--output", graph(), "--parts", "2", "-q"}, kTimeout);
    ASSERT_EQ(r.exit_code, 0) << describe(r);
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string graph() { return dir_->file("g.h5"); }

  // tricount-count at `ranks` ranks, CPU backend, the report on stdout.
  static ProcessResult count(int ranks, const std::string& input, std::vector<std::string> extra) {
    std::vector<std::string> args = {"--backend", "cpu", "--threads", "1", "--json", "-", "-q", "--input", input};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_process(mpi_command(ranks, bin_dir() + "/tricount-count", args), kTimeout);
  }

  static TempDir* dir_;
  static std::uint64_t expected_;
};
TempDir* JournalLock::dir_ = nullptr;
std::uint64_t JournalLock::expected_ = 0;

// The journal's lock, taken by this process as another count would hold it.
class HeldLock {
 public:
  explicit HeldLock(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_CLOEXEC)) {
    locked_ = fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
  }
  ~HeldLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool locked() const { return locked_; }

 private:
  int fd_ = -1;
  bool locked_ = false;
};

}  // namespace

// The lock held by this process: a --resume, and a fresh count, are refused and write nothing;
// once the lock is free the journal resumes to the right count.
TEST_F(JournalLock, ACountRefusesAJournalWhoseLockIsHeld) {
  const std::string journal = dir_->file("held.journal");
  const ProcessResult first = count(1, graph(), {"--workload-splits", "4", "--journal", journal});
  ASSERT_EQ(first.exit_code, 0) << describe(first);
  const std::string before = read_file(journal);
  {
    HeldLock lock(journal);
    ASSERT_TRUE(lock.locked());
    for (const bool resume : {true, false}) {
      std::vector<std::string> args = {"--workload-splits", "4", "--journal", journal};
      if (resume) args.push_back("--resume");
      const ProcessResult second = count(2, graph(), args);
      EXPECT_EQ(second.exit_code, 1) << describe(second);
      EXPECT_TRUE(contains(second.err, "tricount-count: error: journal '" + journal +
                                           "' is in use: another tricount-count is writing it"))
          << describe(second);
      EXPECT_FALSE(contains(second.out, "\"triangles\"")) << describe(second);
      EXPECT_EQ(read_file(journal), before) << "the refused count wrote to the journal";
    }
  }
  const ProcessResult resumed = count(2, graph(), {"--workload-splits", "4", "--journal", journal, "--resume"});
  ASSERT_EQ(resumed.exit_code, 0) << describe(resumed);
  EXPECT_EQ(json_uint(resumed.out, "triangles"), expected_);
  EXPECT_EQ(json_uint(resumed.out, "resumed_tasks"), 32u);
}

// The race: a count is still writing the journal (its worker is stopped mid-run) when
// a --resume on the same journal starts. The second is refused; the first goes on and
// finishes; the journal reads back whole, every task once, and resumes to the right count.
TEST_F(JournalLock, AResumeWhileAnotherCountWritesTheJournalIsRefused) {
  // A copy of the graph under a name of its own: the marker that finds the stopped worker.
  const std::string input = dir_->file("race.h5"), journal = dir_->file("race.journal");
  std::filesystem::copy_file(graph(), input, std::filesystem::copy_options::overwrite_existing);
  ProcessResult first;
  std::thread job([&] {
    first = count(2, input, {"--workload-splits", "8", "--journal", journal, "--test-stop-at-task", "7"});
  });
  pid_t stopped = 0;
  for (int tries = 0; tries < 600 && !stopped; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stopped = find_stopped_process(input);
  }
  ASSERT_NE(stopped, 0) << "no worker stopped itself";
  const ProcessResult second = count(1, input, {"--workload-splits", "8", "--journal", journal, "--resume"});
  ::kill(stopped, SIGCONT);
  job.join();
  EXPECT_EQ(second.exit_code, 1) << describe(second);
  EXPECT_TRUE(contains(second.err, "journal '" + journal + "' is in use")) << describe(second);
  ASSERT_EQ(first.exit_code, 0) << describe(first);
  EXPECT_EQ(json_uint(first.out, "triangles"), expected_);
  const JournalContents contents = read_journal(journal);  // throws on torn or duplicate records
  EXPECT_FALSE(contents.torn_last_line);
  EXPECT_EQ(contents.records.size(), 64u);
  const ProcessResult resumed = count(1, input, {"--workload-splits", "8", "--journal", journal, "--resume"});
  ASSERT_EQ(resumed.exit_code, 0) << describe(resumed);
  EXPECT_EQ(json_uint(resumed.out, "triangles"), expected_);
  EXPECT_EQ(json_uint(resumed.out, "resumed_tasks"), 64u);
}
