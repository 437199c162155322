// Issue 29, the runtime: tricount-count --ranks-per-node K (virtual nodes of K consecutive
// ranks, so that one host runs the multi-node path) and --load-path forward (each block read
// from the file once per job and sent over MPI to the workers that need it). The real program
// under mpiexec at 3, 5 and 9 ranks, CPU backend: counts exact against the reference and
// SNAP's published counts, with forward every block read from the file once (from the
// report's per-rank bytes and checks), the per-node sums equal to their ranks', the journal,
// --resume and --per-vertex exact on the new path, a corrupt block named with no hang.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

constexpr double kTimeout = 240;  // seconds; every case here finishes in a few

struct Graph {
  std::string name, path;
  std::uint64_t triangles;
  std::uint64_t blocks;  // parts^2
};

double sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

class NodeLoad : public ::testing::TestWithParam<int> {  // the number of ranks
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const EdgePairs edges = random_graph(500, 6000, 29);
    const std::string txt = dir_->file("random.txt");
    write_text_edges(txt, edges);
    graphs_.push_back({"random n=4", partition(txt, "random4.h5", 4), reference::count_triangles(edges), 16});
    // A SNAP graph (published count, tests/count/test_snap_graphs.cpp), where the data is here.
    if (std::filesystem::is_directory(graphs_dir()))
      graphs_.push_back({"ca-GrQc n=3", partition(graphs_dir() + "/CA-GrQc.txt", "grqc.h5", 3), 48260, 9});
  }
  static void TearDownTestSuite() {
    delete dir_;
    graphs_.clear();
  }
  static std::string partition(const std::string& input, const std::string& name, int parts) {
    const std::string out = dir_->file(name);
    const ProcessResult r = run_partition(input, out, static_cast<std::uint32_t>(parts));
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    return out;
  }
  std::string file(const std::string& name) const { return dir_->file(std::to_string(GetParam()) + "-" + name); }

  // tricount-count at GetParam() ranks: CPU backend, one thread, the JSON report on stdout.
  ProcessResult count(const std::string& input, std::vector<std::string> extra) const {
    extra.insert(extra.begin(), {"-q", "--allow-idle-workers", "--backend", "cpu"});
    return count_json(GetParam(), input, extra);
  }
  // The --ranks-per-node values each rank count runs: 2, and one that leaves a smaller last node.
  std::vector<int> ks() const { return GetParam() == 3 ? std::vector<int>{1, 2} : std::vector<int>{2, 3}; }

  static TempDir* dir_;
  static std::vector<Graph> graphs_;
};
TempDir* NodeLoad::dir_ = nullptr;
std::vector<Graph> NodeLoad::graphs_;

// Both load paths count exactly; forward reads every block from the file once per job (the
// ranks' bytes read sum to one rank's, each block checked once) and the blocks the others
// need arrive over MPI; the per-node sums are their ranks'.
TEST_P(NodeLoad, BothPathsExactAndForwardReadsEachBlockOnce) {
  for (const Graph& g : graphs_) {
    const ProcessResult one = run_process(mpi_command(1, bin_dir() + "/tricount-count",
                                                      {"--input", g.path, "--json", "-", "-q", "--backend", "cpu", "--threads",
                                                       "1", "--schedule", "static", "--load-path", "file"}),
                                          kTimeout);
    ASSERT_EQ(one.exit_code, 0) << describe(one);
    const double file_bytes = json_numbers(one.out, "bytes_loaded").front();  // its rank's (then its node's)
    ASSERT_GT(file_bytes, 0.0);
    for (int k : ks()) {
      SCOPED_TRACE(g.name + ", --ranks-per-node " + std::to_string(k));
      const std::string nodes = std::to_string((GetParam() + k - 1) / k);
      for (const std::string path : {"file", "forward"}) {
        SCOPED_TRACE("--load-path " + path);
        const ProcessResult r = count(g.path, {"--schedule", "static", "--workload-splits", "2", "--ranks-per-node",
                                               std::to_string(k), "--load-path", path});
        ASSERT_EQ(r.exit_code, 0) << describe(r);
        EXPECT_EQ(json_uint(r.out, "triangles"), g.triangles);
        EXPECT_TRUE(contains(r.out, "\"nodes\": " + nodes)) << r.out;
        EXPECT_TRUE(contains(r.out, "\"ranks_per_node\": " + std::to_string(k))) << r.out;
        EXPECT_TRUE(contains(r.out, "\"load_path\": \"" + path + "\"")) << r.out;
        // bytes_loaded, bytes_received, bytes_sent, bytes_transferred: the ranks', then the nodes'.
        for (const std::string key : {"bytes_loaded", "bytes_received", "bytes_sent", "bytes_transferred"}) {
          const std::vector<double> v = json_numbers(r.out, key);
          ASSERT_EQ(v.size(), static_cast<std::size_t>(GetParam()) + std::stoul(nodes)) << key;
          const double ranks_sum = sum({v.begin(), v.begin() + GetParam()});
          EXPECT_EQ(ranks_sum, sum({v.begin() + GetParam(), v.end()})) << key << ": the nodes' sums are their ranks'";
          if (key == "bytes_transferred") EXPECT_EQ(ranks_sum, 0.0) << "the CPU backend uploads nothing";
          if (key == "bytes_loaded" && path == "forward") EXPECT_EQ(ranks_sum, file_bytes) << "each block read once per job";
          if (key == "bytes_loaded" && path == "file") EXPECT_GE(ranks_sum, file_bytes);
          if (key != "bytes_loaded" && key != "bytes_transferred" && path == "file") EXPECT_EQ(ranks_sum, 0.0) << key;
        }
        const std::vector<double> received = json_numbers(r.out, "bytes_received"), sent = json_numbers(r.out, "bytes_sent");
        EXPECT_EQ(sum({received.begin(), received.begin() + GetParam()}), sum({sent.begin(), sent.begin() + GetParam()}));
        if (path == "forward") {
          EXPECT_EQ(sum(json_numbers(r.out, "blocks_checked")), static_cast<double>(g.blocks)) << "each block checked once";
          EXPECT_GT(sum(received), 0.0) << "the other workers' blocks came over MPI";
        }
      }
    }
  }
}

// Without --load-path: forward with the static schedule on several hosts, file otherwise; the
// virtual nodes of one host read from its page cache (forwarding between them measured slower).
TEST_P(NodeLoad, DefaultPathFollowsTheScheduleAndNodes) {
  const Graph& g = graphs_.front();
  const ProcessResult fixed = count(g.path, {"--schedule", "static", "--ranks-per-node", "2"});
  ASSERT_EQ(fixed.exit_code, 0) << describe(fixed);
  EXPECT_TRUE(contains(fixed.out, "\"load_path\": \"file\"")) << fixed.out;
  EXPECT_TRUE(contains(fixed.out, "\"nodes\": ")) << fixed.out;
  EXPECT_EQ(json_uint(fixed.out, "triangles"), g.triangles);
  const ProcessResult dynamic = count(g.path, {"--ranks-per-node", "2"});
  ASSERT_EQ(dynamic.exit_code, 0) << describe(dynamic);
  EXPECT_TRUE(contains(dynamic.out, "\"load_path\": \"file\"")) << dynamic.out;
  EXPECT_EQ(json_uint(dynamic.out, "triangles"), g.triangles);
  const ProcessResult one_node = count(g.path, {"--schedule", "static"});
  ASSERT_EQ(one_node.exit_code, 0) << describe(one_node);
  EXPECT_TRUE(contains(one_node.out, "\"load_path\": \"file\"")) << one_node.out;
  EXPECT_TRUE(contains(one_node.out, "\"nodes\": 1")) << one_node.out;
}

TEST_P(NodeLoad, JournalAndResumeExactWithForward) {
  const Graph& g = graphs_.front();
  const std::string journal = file("forward.journal");
  std::filesystem::remove(journal);
  const std::vector<std::string> base = {"--schedule", "static", "--workload-splits", "2", "--ranks-per-node", "2",
                                         "--load-path", "forward", "--journal", journal};
  std::vector<std::string> failing = base;
  failing.insert(failing.end(), {"--test-fault-at-task", "7"});
  const ProcessResult failed = count(g.path, failing);
  ASSERT_EQ(failed.exit_code, 1) << describe(failed);
  EXPECT_FALSE(failed.timed_out);
  EXPECT_TRUE(contains(failed.err, "rerun with --resume")) << failed.err;
  std::vector<std::string> resume = base;
  resume.push_back("--resume");
  const ProcessResult resumed = count(g.path, resume);
  ASSERT_EQ(resumed.exit_code, 0) << describe(resumed);
  EXPECT_EQ(json_uint(resumed.out, "triangles"), g.triangles);
  EXPECT_GT(json_uint(resumed.out, "resumed_tasks"), 0u) << "the other workers' tasks were journaled";
}

TEST_P(NodeLoad, PerVertexEqualsTheDynamicScheduleWithForward) {
  const Graph& g = graphs_.front();
  const std::string dynamic_tsv = file("dynamic.tsv"), forward_tsv = file("forward.tsv");
  const ProcessResult d = count(g.path, {"--workload-splits", "2", "--per-vertex", dynamic_tsv});
  ASSERT_EQ(d.exit_code, 0) << describe(d);
  const ProcessResult f = count(g.path, {"--workload-splits", "2", "--per-vertex", forward_tsv, "--schedule", "static",
                                         "--ranks-per-node", "2", "--load-path", "forward"});
  ASSERT_EQ(f.exit_code, 0) << describe(f);
  EXPECT_EQ(json_uint(f.out, "triangles"), g.triangles);
  EXPECT_EQ(read_file(forward_tsv), read_file(dynamic_tsv));
  EXPECT_GT(read_file(forward_tsv).size(), 0u);
}

// A corrupt block is found by the one rank that reads it; the ranks it would have gone to get
// the reader's message instead of the block: every rank ends, exit 1, the block named, no count.
TEST_P(NodeLoad, ACorruptBlockIsNamedOnceAndNoRankHangs) {
  const std::string input = file("corrupt.h5");
  std::filesystem::copy_file(graphs_.front().path, input, std::filesystem::copy_options::overwrite_existing);
  corrupt_block_neighbors(input, {1, 0});
  for (int k : ks()) {
    const ProcessResult r = count(input, {"--schedule", "static", "--ranks-per-node", std::to_string(k), "--load-path", "forward"});
    EXPECT_FALSE(r.timed_out) << "the job hung";
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, input + "' block P(1,0): checksum mismatch (the file is corrupt)")) << describe(r);
    EXPECT_FALSE(contains(r.out, "\"triangles\"")) << "no report of a count: " << describe(r);
  }
}

INSTANTIATE_TEST_SUITE_P(ranks, NodeLoad, ::testing::Values(3, 5, 9),
                         [](const ::testing::TestParamInfo<int>& info) { return "np" + std::to_string(info.param); });

// Usage errors (exit 2) before any work.
TEST(NodeLoadUsage, BadValuesAreUsageErrors) {
  const std::string any = "/nonexistent/graph.h5";
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--ranks-per-node", "0"}, "--ranks-per-node must be at least 1 (got 0)"},
           {{"--ranks-per-node=-3"}, "--ranks-per-node must be at least 1 (got -3)"},
           {{"--load-path", "nfs"}, "--load-path: 'nfs' is not auto, file or forward"},
           {{"--load-path", "forward"}, "--load-path forward needs --schedule static"}}) {
    std::vector<std::string> argv = {bin_dir() + "/tricount-count", any};
    argv.insert(argv.end(), args.begin(), args.end());
    const ProcessResult r = run_process(argv, kTimeout);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, "tricount-count: error: " + message)) << describe(r);
  }
}

}  // namespace
