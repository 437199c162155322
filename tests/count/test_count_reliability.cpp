// tricount-count under faults a user or a batch system produces (issue 14): a damaged
// journal, a full disk, a block file replaced while the count starts, a stopped worker.
// Every case runs the real program under mpiexec at several rank counts, with a timeout so
// that a hang fails the test instead of stalling the suite.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/faults.hpp"
#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

constexpr double kTimeout = 120;  // seconds; every case here finishes in a few

class CountReliability : public ::testing::TestWithParam<int> {  // the number of ranks
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    edges_ = random_graph(300, 3000, 14);
    expected_ = reference::count_triangles(edges_);
    const std::string txt = dir_->file("g.txt");
    write_text_edges(txt, edges_);
    const ProcessResult r =
        run_process({bin_dir() + "/tricount-partition", "--input", txt, "--output", graph(), "--parts", "2", "-q"}, kTimeout);
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    // Another graph with the same shape (n = 2) and another count.
    other_edges_ = random_graph(300, 2000, 41);
    ASSERT_NE(reference::count_triangles(other_edges_), expected_);
    const std::string other_txt = dir_->file("other.txt");
    write_text_edges(other_txt, other_edges_);
    const ProcessResult o = run_process(
        {bin_dir() + "/tricount-partition", "--input", other_txt, "--output", other_graph(), "--parts", "2", "-q"}, kTimeout);
    ASSERT_EQ(o.exit_code, 0) << describe(o);
  }
  static void TearDownTestSuite() { delete dir_; }

  static std::string graph() { return dir_->file("g.h5"); }
  static std::string other_graph() { return dir_->file("other.h5"); }
  std::string file(const std::string& name) const { return dir_->file(std::to_string(GetParam()) + "-" + name); }

  // tricount-count at GetParam() ranks: CPU backend, one thread, the JSON report on stdout.
  static ProcessResult count(int ranks, std::vector<std::string> extra) {
    std::vector<std::string> args = {"--backend", "cpu", "--threads", "1", "--json", "-", "-q", "--allow-idle-workers"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_process(mpi_command(ranks, bin_dir() + "/tricount-count", args), kTimeout);
  }
  ProcessResult count(std::vector<std::string> extra) const { return count(GetParam(), std::move(extra)); }

  static TempDir* dir_;
  static EdgePairs edges_, other_edges_;
  static std::uint64_t expected_;
};
TempDir* CountReliability::dir_ = nullptr;
EdgePairs CountReliability::edges_;
EdgePairs CountReliability::other_edges_;
std::uint64_t CountReliability::expected_ = 0;

int count_lines_with(const std::string& text, const std::string& part) {
  int n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

}  // namespace

// Item 3: a journal record with a negative count ("-5" read as 2^64 - 5) made --resume
// print a wrong total with exit 0. Now it is an error naming the journal and the line.
TEST_P(CountReliability, ResumeRefusesANegativeCountInTheJournal) {
  const std::string journal = file("negative.journal");
  const ProcessResult first = count({"--input", graph(), "--workload-splits", "2", "--journal", journal});
  ASSERT_EQ(first.exit_code, 0) << describe(first);
  ASSERT_EQ(json_uint(first.out, "triangles"), expected_);
  // Line 3 is the first record: "<task> <triangles> ..."; make its count negative.
  std::string text = read_file(journal);
  std::size_t line3 = text.find('\n', text.find('\n') + 1) + 1;
  const std::size_t count_at = text.find(' ', line3) + 1;
  text.replace(count_at, text.find(' ', count_at) - count_at, "-5");
  std::ofstream(journal, std::ios::binary | std::ios::trunc) << text;

  const ProcessResult resumed = count({"--input", graph(), "--workload-splits", "2", "--journal", journal, "--resume"});
  EXPECT_EQ(resumed.exit_code, 1) << describe(resumed);
  EXPECT_TRUE(contains(resumed.err, "journal '" + journal + "':3:")) << describe(resumed);
  EXPECT_FALSE(resumed.timed_out);
}

// Item 6: a journal write that fails (disk full) hung the MPI job forever (rank 0 left the
// scheduler loop with an exception while the workers waited for their next task). Now every
// rank ends promptly, exit 1, with the journal's message; after making room, --resume
// finishes the count from what the journal kept.
TEST_P(CountReliability, AFullDiskUnderTheJournalEndsEveryRank) {
  SmallTmpfs disk(16 * 4096);
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  disk.fill_leaving(4096);  // the journal's header fits, about 90 of its 256 records do not
  const std::string journal = disk.file("count.journal");
  const auto t0 = std::chrono::steady_clock::now();
  const ProcessResult full = count({"--input", graph(), "--workload-splits", "32", "--journal", journal});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(full.timed_out) << "the job hung";
  EXPECT_LT(seconds, 60.0);
  EXPECT_EQ(full.exit_code, 1) << describe(full);
  EXPECT_TRUE(contains(full.err, "tricount-count: error: cannot write journal '" + journal + "': No space left on device"))
      << describe(full);
  EXPECT_TRUE(contains(full.err, "--resume")) << describe(full);

  disk.make_room();
  const ProcessResult resumed = count({"--input", graph(), "--workload-splits", "32", "--journal", journal, "--resume"});
  ASSERT_EQ(resumed.exit_code, 0) << describe(resumed);
  EXPECT_EQ(json_uint(resumed.out, "triangles"), expected_);
  EXPECT_GT(json_uint(resumed.out, "resumed_tasks"), 0u);
}

// Item 6, the other errors of rank 0: a journal that cannot even be created and a JSON
// report that cannot be written end every rank with exit 1, never a hang.
TEST_P(CountReliability, OtherRankZeroWriteErrorsEndEveryRank) {
  SmallTmpfs disk(4 * 4096);
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  disk.fill_leaving(0);
  const std::string journal = disk.file("count.journal");
  const ProcessResult no_journal = count({"--input", graph(), "--journal", journal});
  EXPECT_FALSE(no_journal.timed_out) << "the job hung";
  EXPECT_EQ(no_journal.exit_code, 1) << describe(no_journal);
  EXPECT_TRUE(contains(no_journal.err, "cannot write journal '" + journal + "'")) << describe(no_journal);

  std::vector<std::string> args = {"--backend", "cpu", "--threads", "1", "-q", "--allow-idle-workers", "--input", graph(),
                                   "--json", disk.file("report.json")};
  const ProcessResult no_json = run_process(mpi_command(GetParam(), bin_dir() + "/tricount-count", args), kTimeout);
  EXPECT_FALSE(no_json.timed_out) << "the job hung";
  EXPECT_EQ(no_json.exit_code, 1) << describe(no_json);
  EXPECT_TRUE(contains(no_json.err, "tricount-count: error:")) << describe(no_json);
}

// Item 2: rank 0 checked one block file and the workers, opening the path later, counted
// another (tricount-partition re-run onto the same output): graph B's count with graph A's
// edge count, exit 0. Now a worker that opens another file refuses it, and every rank ends
// with that message; one rank counts the file it opened, and --verify refuses another.
TEST_P(CountReliability, ABlockFileReplacedAsTheCountStartsIsRefused) {
  auto replaced_run = [&](std::vector<std::string> extra) {
    const std::string input = file("replaced.h5"), replacement = file("replacement.h5");
    std::filesystem::copy_file(graph(), input, std::filesystem::copy_options::overwrite_existing);
    std::filesystem::copy_file(other_graph(), replacement, std::filesystem::copy_options::overwrite_existing);
    std::vector<std::string> args = {"--input", input, "--test-replace-input", replacement};
    args.insert(args.end(), extra.begin(), extra.end());
    return count(args);
  };
  const ProcessResult r = replaced_run({});
  EXPECT_FALSE(r.timed_out) << "the job hung";
  if (GetParam() == 1) {  // one rank counts the file it checked, whatever the path holds now
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_EQ(json_uint(r.out, "triangles"), expected_);
    const ProcessResult verified = replaced_run({"--verify"});
    EXPECT_EQ(verified.exit_code, 1) << describe(verified);
    EXPECT_TRUE(contains(verified.err, "is not the file rank 0 checked")) << describe(verified);
  } else {
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, "replaced.h5' is not the file rank 0 checked")) << describe(r);
    EXPECT_FALSE(contains(r.out, "\"triangles\"")) << "no report of a count: " << describe(r);
  }
}

// Item 17: a stopped worker (SIGSTOP) stalled the job without a word. Now rank 0 prints a
// progress line every --progress-interval seconds that names the task in flight longest
// and its rank, so the stall shows in a batch log; --quiet prints none. The test stops a
// worker (it stops itself when handed task 5), reads the lines, then lets it go on.
TEST_P(CountReliability, AStoppedWorkerShowsInProgressLines) {
  if (GetParam() == 1) {  // one rank stopped is the whole job: its lines come between tasks
    std::vector<std::string> args = {"--backend", "cpu", "--threads", "1", "--input", graph(), "--workload-splits", "32",
                                     "--progress-interval", "0.001"};
    const ProcessResult r = run_process(mpi_command(1, bin_dir() + "/tricount-count", args), kTimeout);
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_TRUE(contains(r.err, "tricount-count: progress: ")) << describe(r);
    EXPECT_TRUE(contains(r.err, " of 256 tasks done, ")) << describe(r);
    args.push_back("-q");
    const ProcessResult quiet = run_process(mpi_command(1, bin_dir() + "/tricount-count", args), kTimeout);
    ASSERT_EQ(quiet.exit_code, 0) << describe(quiet);
    EXPECT_FALSE(contains(quiet.err, "progress")) << describe(quiet);
    return;
  }
  for (bool quiet : {false, true}) {
    // A copy of the graph under a name of its own: the marker that finds the stopped rank.
    const std::string input = file(quiet ? "stopped-quiet.h5" : "stopped.h5");
    std::filesystem::copy_file(graph(), input, std::filesystem::copy_options::overwrite_existing);
    std::vector<std::string> args = {"--backend", "cpu", "--threads", "1", "--input", input, "--workload-splits", "4",
                                     "--progress-interval", "0.2", "--test-stop-at-task", "5"};
    if (quiet) args.push_back("-q");
    ProcessResult r;
    std::thread job([&] { r = run_process(mpi_command(GetParam(), bin_dir() + "/tricount-count", args), kTimeout); });
    pid_t stopped = 0;
    for (int tries = 0; tries < 600 && !stopped; ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      stopped = find_stopped_process(input);
    }
    EXPECT_NE(stopped, 0) << "no worker stopped itself";
    std::this_thread::sleep_for(std::chrono::seconds(2));  // about 10 progress lines
    if (stopped) ::kill(stopped, SIGCONT);
    job.join();
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    if (quiet) {
      EXPECT_FALSE(contains(r.err, "progress")) << describe(r);
    } else {
      EXPECT_GE(count_lines_with(r.err, "tricount-count: progress: "), 3) << describe(r);
      EXPECT_TRUE(contains(r.err, " of 32 tasks done, ")) << describe(r);
      EXPECT_TRUE(contains(r.err, "; longest in flight: task ")) << describe(r);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ranks, CountReliability, ::testing::Values(1, 2, 3),
                         [](const ::testing::TestParamInfo<int>& info) { return "np" + std::to_string(info.param); });
