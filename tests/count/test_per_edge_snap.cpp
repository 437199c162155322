// tricount-count --per-edge on the SNAP graphs of ../shared/data/graphs (see SOURCES.md
// there), each GRAPH given as its edge file (partitioned by rank 0 into 2 x 2 blocks) and
// counted at 3 ranks: the edge supports sum to 3 x the triangle count SNAP publishes, every
// edge after cleaning has one row, and on the smaller plain-text graphs every row equals the
// brute-force reference's (tests/reference_per_edge.hpp), read from the file by a parser of
// its own.
//
// Built twice: test_per_edge_snap with the CPU backend, test_per_edge_snap_cuda
// (TRICOUNT_PER_EDGE_CUDA, label gpu) with --backend cuda, which skips without a GPU.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "count/per_edge.hpp"
#include "tests/reference_per_edge.hpp"
#include "tests/test_support.hpp"
#include "worker/backend.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount::testing;

struct SnapGraph {
  const char* file;         // name in ../shared/data/graphs
  std::uint64_t triangles;  // "Number of triangles" published by SNAP (SOURCES.md)
};

void PrintTo(const SnapGraph& g, std::ostream* os) { *os << g.file; }

// From ../shared/data/graphs/SOURCES.md (test_snap_graphs checks that table against it).
const std::vector<SnapGraph> kGraphs = {
    {"facebook_combined.txt", 1612010},  {"CA-GrQc.txt", 48260},          {"CA-HepTh.txt", 28339},
    {"CA-HepPh.txt", 3358499},           {"CA-CondMat.txt", 173361},      {"Email-Enron.txt", 727044},
    {"email-Eu-core.txt.gz", 105461},    {"Wiki-Vote.txt", 608389},       {"p2p-Gnutella04.txt", 934},
    {"p2p-Gnutella08.txt", 2383},        {"p2p-Gnutella31.txt", 2024},    {"as-caida20071105.txt", 36365},
    {"soc-Slashdot0902.txt.gz", 602592}, {"ca-AstroPh.undirected.txt", 1351441},
    {"soc-Epinions1.lcc-undirected-relabeled.txt", 1624481},               {"Oregon-1.undirected-relabeled.txt", 17144},
    {"cit-HepTh.relabeled.txt", 1478735},
};

#ifdef TRICOUNT_PER_EDGE_CUDA
const std::vector<std::string> kBackendArgs = {"--backend", "cuda"};
#else
const std::vector<std::string> kBackendArgs = {"--backend", "cpu", "--threads", "1"};
#endif

EdgePairs read_snap_text(const std::string& path) {
  std::ifstream in(path);
  EdgePairs edges;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line[0] == '%') continue;
    std::istringstream fields(line);
    std::uint64_t a = 0, b = 0;
    if (fields >> a >> b) edges.emplace_back(a, b);
  }
  return edges;
}

class SnapPerEdge : public ::testing::TestWithParam<SnapGraph> {};

TEST_P(SnapPerEdge, SumsToThreeTimesPublishedAndMatchesTheReference) {
  const SnapGraph& graph = GetParam();
#ifdef TRICOUNT_PER_EDGE_CUDA
  if (!tricount::cuda_available()) GTEST_SKIP() << "no CUDA GPU: --backend cuda cannot run";
#endif
  if (!fs::is_directory(graphs_dir()))
    GTEST_SKIP() << "graph directory '" << graphs_dir() << "' does not exist; skipping " << graph.file << ": "
                 << fetch_graphs_hint();
  const std::string input = graphs_dir() + "/" + graph.file;
  ASSERT_TRUE(fs::is_regular_file(input)) << "'" << input << "' is listed in SOURCES.md but missing";
  TempDir dir;
  const std::string out = dir.file("pe.h5");
  std::vector<std::string> args = {input, "--parts", "2", "--json", "-", "--quiet", "--per-edge", out};
  args.insert(args.end(), kBackendArgs.begin(), kBackendArgs.end());
  const ProcessResult count = run_process(mpi_command(3, bin_dir() + "/tricount-count", args), 300);
  ASSERT_EQ(count.exit_code, 0) << describe(count);
  EXPECT_EQ(json_uint(count.out, "triangles"), graph.triangles);
  const tricount::EdgeRows rows = tricount::read_per_edge_hdf5(out);
  std::uint64_t sum = 0;
  for (std::uint64_t t : rows.triangles) sum += t;
  EXPECT_EQ(sum, 3 * graph.triangles) << graph.file << ": the edge supports must sum to 3 x the published count";
  EXPECT_EQ(rows.size(), json_uint(count.out, "edges"));
  const bool small_text = !std::string(graph.file).ends_with(".gz") && fs::file_size(input) < (std::uint64_t{1} << 20);
  if (!small_text) return;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> found;
  for (std::size_t x = 0; x < rows.size(); ++x) found[{rows.u[x], rows.v[x]}] = rows.triangles[x];
  EXPECT_TRUE(found == tricount::reference::per_edge_triangles(read_snap_text(input)))
      << graph.file << ": per-edge rows differ from the reference";
}

std::string test_name(const ::testing::TestParamInfo<SnapGraph>& info) {
  std::string name;
  for (const char* c = info.param.file; *c; ++c) name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
  return name;
}

#ifdef TRICOUNT_PER_EDGE_CUDA
INSTANTIATE_TEST_SUITE_P(snap_cuda, SnapPerEdge, ::testing::ValuesIn(kGraphs), test_name);
#else
INSTANTIATE_TEST_SUITE_P(snap, SnapPerEdge, ::testing::ValuesIn(kGraphs), test_name);
#endif

}  // namespace
