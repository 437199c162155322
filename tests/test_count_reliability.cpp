// tricount-count under faults a user or a batch system produces (issue 14): a damaged
// journal, a full disk, a block file replaced while the count starts, a stopped worker.
// Every case runs the real program under mpiexec at several rank counts, with a timeout so
// that a hang fails the test instead of stalling the suite.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

constexpr double kTimeout = 120;  // seconds; every case here finishes in a few

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

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
  }
  static void TearDownTestSuite() { delete dir_; }

  static std::string graph() { return dir_->file("g.h5"); }
  std::string file(const std::string& name) const { return dir_->file(std::to_string(GetParam()) + "-" + name); }

  // tricount-count at GetParam() ranks: CPU backend, one thread, the JSON report on stdout.
  static ProcessResult count(int ranks, std::vector<std::string> extra) {
    std::vector<std::string> args = {"--backend", "cpu", "--threads", "1", "--json", "-", "-q", "--allow-idle-workers"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_process(mpi_command(ranks, bin_dir() + "/tricount-count", args), kTimeout);
  }
  ProcessResult count(std::vector<std::string> extra) const { return count(GetParam(), std::move(extra)); }

  static TempDir* dir_;
  static EdgePairs edges_;
  static std::uint64_t expected_;
};
TempDir* CountReliability::dir_ = nullptr;
EdgePairs CountReliability::edges_;
std::uint64_t CountReliability::expected_ = 0;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
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
  std::string text = read_text(journal);
  std::size_t line3 = text.find('\n', text.find('\n') + 1) + 1;
  const std::size_t count_at = text.find(' ', line3) + 1;
  text.replace(count_at, text.find(' ', count_at) - count_at, "-5");
  std::ofstream(journal, std::ios::binary | std::ios::trunc) << text;

  const ProcessResult resumed = count({"--input", graph(), "--workload-splits", "2", "--journal", journal, "--resume"});
  EXPECT_EQ(resumed.exit_code, 1) << describe(resumed);
  EXPECT_TRUE(contains(resumed.err, "journal '" + journal + "':3:")) << describe(resumed);
  EXPECT_FALSE(resumed.timed_out);
}

INSTANTIATE_TEST_SUITE_P(ranks, CountReliability, ::testing::Values(1, 2, 3),
                         [](const ::testing::TestParamInfo<int>& info) { return "np" + std::to_string(info.param); });
