// tricount-count at --parts 1 with several CUDA workers on a node: the one block goes onto the
// node's GPUs once (CountBackend::upload_shared: each worker uploads a slice from host memory
// and copies the others' from its peers' devices; workers on one GPU copy within it). The real
// program under mpiexec, --backend cuda (label gpu; skipped, saying so, without a GPU): counts
// exact under both schedules and per vertex, every worker of a node getting slices from its
// peers (bytes_from_peers in the report); a worker alone on its node, --parts 2 and
// --cuda-tuning share-uploads=0 share nothing.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"
#include "worker/backend.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

constexpr double kTimeout = 180;

#define REQUIRE_GPU() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU: --backend cuda cannot run"

class SharedUpload : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const EdgePairs edges = random_graph(3000, 40000, 41);
    expected_ = reference::count_triangles(edges);
    write_text_edges(dir_->file("g.txt"), edges);
    for (const int parts : {1, 2}) {
      const ProcessResult r =
          run_process({bin_dir() + "/tricount-partition", "--input", dir_->file("g.txt"), "--output", graph(parts), "--parts",
                       std::to_string(parts), "-q"},
                      kTimeout);
      ASSERT_EQ(r.exit_code, 0) << describe(r);
    }
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string graph(int parts) { return dir_->file("g" + std::to_string(parts) + ".h5"); }

  // The JSON report of tricount-count at `ranks` ranks with `extra` options.
  static std::string count(int ranks, int parts, std::vector<std::string> extra) {
    std::vector<std::string> args = {"--input", graph(parts), "--backend", "cuda", "--json", "-", "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult r = run_process(mpi_command(ranks, bin_dir() + "/tricount-count", args), kTimeout);
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_EQ(json_uint(r.out, "triangles"), expected_) << describe(r);
    return r.out;
  }
  // Every rank's bytes_from_peers (rank 0 first).
  static std::vector<double> from_peers(const std::string& json) { return json_numbers(json, "bytes_from_peers"); }

  static TempDir* dir_;
  static std::uint64_t expected_;
};
TempDir* SharedUpload::dir_ = nullptr;
std::uint64_t SharedUpload::expected_ = 0;

TEST_F(SharedUpload, EveryWorkerOfTheNodeTakesSlicesFromItsPeers) {
  REQUIRE_GPU();
  for (const std::vector<std::string>& extra :
       std::vector<std::vector<std::string>>{{}, {"--schedule", "static"}, {"--per-vertex", dir_->file("v.tsv")}}) {
    for (const int ranks : {3, 4}) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks " + ::testing::PrintToString(extra));
      const std::vector<double> peers = from_peers(count(ranks, 1, extra));
      ASSERT_EQ(peers.size(), static_cast<std::size_t>(ranks));
      EXPECT_EQ(peers[0], 0.0);  // the scheduler
      for (int r = 1; r < ranks; ++r) EXPECT_GT(peers[static_cast<std::size_t>(r)], 0.0) << "rank " << r;
    }
  }
}

TEST_F(SharedUpload, AWorkerAloneAndMorePartsShareNothing) {
  REQUIRE_GPU();
  for (const double b : from_peers(count(2, 1, {}))) EXPECT_EQ(b, 0.0);
  for (const double b : from_peers(count(3, 2, {}))) EXPECT_EQ(b, 0.0);
  for (const double b : from_peers(count(3, 1, {"--cuda-tuning", "share-uploads=0"}))) EXPECT_EQ(b, 0.0);
  // Virtual nodes of 2 ranks: {0, 1}, {2, 3}, {4}: only ranks 2 and 3 share.
  const std::vector<double> peers = from_peers(count(5, 1, {"--ranks-per-node", "2"}));
  ASSERT_EQ(peers.size(), 5u);
  EXPECT_EQ(peers[1], 0.0);
  EXPECT_GT(peers[2], 0.0);
  EXPECT_GT(peers[3], 0.0);
  EXPECT_EQ(peers[4], 0.0);
}

}  // namespace
