// Issue 32: tricount-count --per-vertex under faults.
//  item 3: a full disk lost the count (exit 1 with only the write error, no summary line);
//  item 5: a disk full when the HDF5 table was closed crashed libhdf5 at exit (signal 11);
//  item 9: a FIFO with no reader blocked forever, without a word;
//  item 14: an empty path (--per-vertex "") was silently ignored.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/faults.hpp"
#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

namespace fs = std::filesystem;
constexpr double kTimeout = 120;


class PerVertexFaults : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    // Enough vertices that the table does not fit the small disks below.
    const EdgePairs edges = random_graph(20000, 120000, 32);
    expected_ = reference::count_triangles(edges);
    write_text_edges(dir_->file("g.txt"), edges);
    const ProcessResult r = run_process(
        {bin_dir() + "/tricount-partition", "--input", dir_->file("g.txt"), "--output", graph(), "--parts", "2", "-q"}, kTimeout);
    ASSERT_EQ(r.exit_code, 0) << describe(r);
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string graph() { return dir_->file("g.h5"); }

  // tricount-count at `ranks` ranks, CPU backend, the JSON report on stdout (so the summary
  // line goes to stderr).
  static ProcessResult count(int ranks, std::vector<std::string> extra, double timeout = kTimeout) {
    std::vector<std::string> args = {"--backend", "cpu", "--threads", "1", "--input", graph(), "--json", "-"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_process(mpi_command(ranks, bin_dir() + "/tricount-count", args), timeout);
  }
  static std::string summary() { return "tricount: " + std::to_string(expected_) + " triangles"; }

  static TempDir* dir_;
  static std::uint64_t expected_;
};
TempDir* PerVertexFaults::dir_ = nullptr;
std::uint64_t PerVertexFaults::expected_ = 0;

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

}  // namespace

// Item 3: on a full disk the per-vertex write fails, but the summary line and the report
// come first, so the count is on record; the error names --per-vertex and its path (not the
// temporary's); no temporary stays.
TEST_F(PerVertexFaults, AFullDiskKeepsTheCountOnRecord) {
  for (const std::string name : {"v.tsv", "v.h5"}) {
    for (int ranks : {1, 2}) {
      SCOPED_TRACE(name + " at " + std::to_string(ranks) + " ranks");
      SmallTmpfs disk(32 << 10);
      if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
      const ProcessResult r = count(ranks, {"--per-vertex", disk.file(name)});
      EXPECT_FALSE(r.timed_out);
      EXPECT_EQ(r.exit_code, 1) << describe(r);
      EXPECT_TRUE(contains(r.err, summary())) << "no summary line: " << describe(r);
      EXPECT_EQ(json_uint(r.out, "triangles"), expected_) << "no report: " << describe(r);
      EXPECT_TRUE(contains(r.out, "\"global_clustering\"")) << describe(r);
      EXPECT_TRUE(contains(r.err, "tricount-count: error: cannot write --per-vertex '" + disk.file(name) + "': "))
          << describe(r);
      EXPECT_FALSE(contains(r.err, ".tmp.tricount-")) << "names the temporary: " << describe(r);
      EXPECT_TRUE(entries(disk.path()).empty()) << "left on the disk: " << entries(disk.path()).front();
    }
  }
}

// Item 5: whichever write fills the disk (the data, the attributes, the close), the run ends
// with its error and exit 1, never a crash inside libhdf5 at exit.
TEST_F(PerVertexFaults, ADiskFullWhileTheTableIsClosedDoesNotCrash) {
  for (std::uint64_t kib : {16, 48, 64, 96, 128, 192, 256, 384}) {
    SCOPED_TRACE(std::to_string(kib) + " KiB");
    SmallTmpfs disk(kib << 10);
    if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
    const ProcessResult r = count(1, {"--per-vertex", disk.file("v.h5")});
    EXPECT_FALSE(r.timed_out);
    if (r.exit_code == 0) continue;  // it fitted
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_FALSE(contains(r.err, "Segmentation fault") || contains(r.err, "signal")) << describe(r);
    EXPECT_TRUE(contains(r.err, summary())) << describe(r);
    EXPECT_TRUE(contains(r.err, "--per-vertex '" + disk.file("v.h5") + "'")) << describe(r);
    EXPECT_FALSE(contains(r.err, ".tmp.tricount-")) << "names the temporary: " << describe(r);
    EXPECT_TRUE(entries(disk.path()).empty()) << "left on the disk: " << entries(disk.path()).front();
  }
}

// Item 9: a FIFO nobody reads is refused after a few seconds (the count on record first);
// with a reader, the table goes through it and the FIFO stays.
TEST_F(PerVertexFaults, AFifoWithoutAReaderIsRefusedNotWaitedOnForever) {
  TempDir dir;
  const std::string fifo = dir.file("v.tsv");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = count(1, {"--per-vertex", fifo}, 60);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.timed_out) << "the count waited for a reader of the FIFO for a minute";
  EXPECT_LT(seconds, 45);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, summary())) << describe(r);
  EXPECT_TRUE(contains(r.err, "cannot write --per-vertex '" + fifo + "': it is a FIFO that no process reads"))
      << describe(r);
  // With a reader.
  ProcessResult reader;
  std::thread read_fifo([&] { reader = run_process({"cat", fifo}, kTimeout); });
  const ProcessResult read = count(1, {"--per-vertex", fifo});
  read_fifo.join();
  EXPECT_EQ(read.exit_code, 0) << describe(read);
  EXPECT_TRUE(contains(reader.out, "# vertex\tdegree\ttriangles\tclustering\n")) << describe(reader);
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
}

// Item 14: an empty path is a usage error (exit 2) for --per-vertex and every other option
// that takes a value.
TEST_F(PerVertexFaults, AnEmptyPathIsRefused) {
  for (const std::string option : {"--per-vertex", "--journal", "--json", "--input", "--cache-size"}) {
    SCOPED_TRACE(option);
    std::vector<std::string> args = {"--backend", "cpu", option, ""};
    if (option != "--input") args.insert(args.end(), {"--input", graph()});
    const ProcessResult r = run_process(mpi_command(1, bin_dir() + "/tricount-count", args), kTimeout);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, "tricount-count: error: " + option + " is given an empty value")) << describe(r);
  }
}
