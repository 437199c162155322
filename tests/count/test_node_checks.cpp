// Block checks shared by the workers of a node (issue 21, "load once per node"): each block
// is checked (checksum and validation) by one worker of the node and used unchecked by the
// others, which map the same page-cache pages. The real tricount-count under mpiexec at 1-4
// ranks, CPU backend: the same count, each block checked exactly once (from the report's
// per-rank statistics), and a corrupt block still refused with a clear message, no hang.
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "src/block_format.hpp"
#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

constexpr double kTimeout = 120;  // seconds; a hang fails the test instead of stalling the suite
constexpr std::uint32_t kParts = 3;

double sum(const std::vector<double>& values) { return std::accumulate(values.begin(), values.end(), 0.0); }

class NodeChecks : public ::testing::TestWithParam<int> {  // the number of ranks
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    // Blocks of 4 KiB and more: the file aligns them, so workers map them (smaller ones are
    // read into private copies, each checked by the worker that read it).
    const EdgePairs edges = random_graph(3000, 60000, 21);
    expected_ = reference::count_triangles(edges);
    const std::string txt = dir_->file("g.txt");
    write_text_edges(txt, edges);
    // CSR blocks: a packed block is decoded by each worker that loads it, checked by the
    // checksum of its stored bytes first, so its check is not shared.
    const ProcessResult r = run_process({bin_dir() + "/tricount-partition", "--input", txt, "--output", graph(), "--parts",
                                         std::to_string(kParts), "--block-encoding", "csr", "-q"},
                                        kTimeout);
    ASSERT_EQ(r.exit_code, 0) << describe(r);
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string graph() { return dir_->file("g.h5"); }

  // tricount-count at GetParam() ranks: CPU backend, one thread, 4 splits (108 tasks, so
  // that every worker loads many blocks), the JSON report on stdout.
  ProcessResult count(const std::string& input) const {
    const std::vector<std::string> args = {"--input", input, "--backend", "cpu", "--threads", "1", "--workload-splits", "4",
                                           "--json", "-", "-q"};
    return run_process(mpi_command(GetParam(), bin_dir() + "/tricount-count", args), kTimeout);
  }

  static TempDir* dir_;
  static std::uint64_t expected_;
};
TempDir* NodeChecks::dir_ = nullptr;
std::uint64_t NodeChecks::expected_ = 0;

}  // namespace

// Every task of the plan runs, so every one of the n^2 blocks is used; on one node each is
// checked by exactly one worker, however many workers share the node.
TEST_P(NodeChecks, SameCountAndEachBlockCheckedOncePerNode) {
  const ProcessResult r = count(graph());
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(json_uint(r.out, "triangles"), expected_);
  std::uint64_t block_bytes = 0;
  {
    BlockFileReader reader(graph());
    for (std::uint32_t i = 0; i < kParts; ++i)
      for (std::uint32_t j = 0; j < kParts; ++j) {
        const std::optional<MappedBlock> mapped = reader.map_block({i, j});
        ASSERT_TRUE(mapped.has_value()) << "block " << i << "," << j << " is not mapped: the test would not share its check";
        block_bytes += mapped->span().bytes();
      }
  }
  const std::vector<double> blocks = json_numbers(r.out, "blocks_checked"), bytes = json_numbers(r.out, "bytes_checked"),
                            loaded = json_numbers(r.out, "bytes_loaded");
  ASSERT_EQ(blocks.size(), static_cast<std::size_t>(GetParam())) << r.out;  // one entry per rank
  EXPECT_EQ(sum(blocks), double(kParts * kParts)) << r.out;
  EXPECT_EQ(sum(bytes), double(block_bytes)) << r.out;
  for (std::size_t rank = 0; rank < bytes.size(); ++rank) EXPECT_LE(bytes[rank], loaded[rank]) << "rank " << rank;
}

// A block whose bytes do not match its checksum: whichever worker checks it first fails,
// the others that need it check it themselves (and fail the same way); every rank ends with
// the message naming the file and the block, exit 1, and no count is reported.
TEST_P(NodeChecks, ACorruptBlockIsRefusedWithAClearMessageAndNoHang) {
  const std::string input = dir_->file(std::to_string(GetParam()) + "-corrupt.h5");
  std::filesystem::copy_file(graph(), input, std::filesystem::copy_options::overwrite_existing);
  corrupt_block_neighbors(input, {1, 0});
  const ProcessResult r = count(input);
  EXPECT_FALSE(r.timed_out) << "the job hung";
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, input + "' block P(1,0): checksum mismatch (the file is corrupt)")) << describe(r);
  EXPECT_FALSE(contains(r.out, "\"triangles\"")) << "no report of a count: " << describe(r);
}

INSTANTIATE_TEST_SUITE_P(ranks, NodeChecks, ::testing::Values(1, 2, 3, 4),
                         [](const ::testing::TestParamInfo<int>& info) { return "np" + std::to_string(info.param); });
