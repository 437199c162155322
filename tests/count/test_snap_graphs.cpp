// Real-world graphs (../shared/data/graphs, see SOURCES.md there): each file is partitioned
// with the built tricount-partition at --parts 1, 2 and 3 and counted with tricount-count
// under mpiexec (1 rank for one part, 3 ranks = 2 workers otherwise); the count must equal
// the triangle count SNAP publishes for the dataset. Every (graph, parts) pair is its own
// ctest test ("snap/SnapGraphs.PublishedTriangles/<file>_parts<n>").
//
// Built twice: test_snap_graphs counts with the CPU backend, test_snap_graphs_cuda
// (TRICOUNT_SNAP_CUDA, label gpu) with --backend cuda, where 3 ranks put both workers on
// one GPU; without a GPU the latter skips every test, saying so.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "count/per_vertex.hpp"
#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"
#include "worker/backend.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount::testing;

struct SnapGraph {
  const char* file;      // name in ../shared/data/graphs
  const char* dataset;   // SNAP dataset name
  std::uint64_t triangles;  // "Number of triangles" published by SNAP (SOURCES.md)
};

void PrintTo(const SnapGraph& g, std::ostream* os) { *os << g.dataset << " (" << g.file << ")"; }

// Hard-coded from ../shared/data/graphs/SOURCES.md: both tables (originals and derived copies).
const std::vector<SnapGraph>& snap_graphs() {
  static const std::vector<SnapGraph> graphs = {
      // Original SNAP files.
      {"facebook_combined.txt", "ego-Facebook", 1612010},
      {"CA-GrQc.txt", "ca-GrQc", 48260},
      {"CA-HepTh.txt", "ca-HepTh", 28339},
      {"CA-HepPh.txt", "ca-HepPh", 3358499},
      {"CA-CondMat.txt", "ca-CondMat", 173361},
      {"Email-Enron.txt", "email-Enron", 727044},
      {"email-Eu-core.txt.gz", "email-Eu-core", 105461},
      {"Wiki-Vote.txt", "wiki-Vote", 608389},
      {"p2p-Gnutella04.txt", "p2p-Gnutella04", 934},
      {"p2p-Gnutella05.txt", "p2p-Gnutella05", 1112},
      {"p2p-Gnutella06.txt", "p2p-Gnutella06", 1142},
      {"p2p-Gnutella08.txt", "p2p-Gnutella08", 2383},
      {"p2p-Gnutella09.txt", "p2p-Gnutella09", 2354},
      {"p2p-Gnutella24.txt", "p2p-Gnutella24", 986},
      {"p2p-Gnutella25.txt", "p2p-Gnutella25", 806},
      {"p2p-Gnutella30.txt", "p2p-Gnutella30", 1590},
      {"p2p-Gnutella31.txt", "p2p-Gnutella31", 2024},
      {"as-caida20071105.txt", "as-caida", 36365},
      {"soc-Slashdot0902.txt.gz", "soc-Slashdot0902", 602592},
      // Derived copies (same graph, different form; same published count).
      {"ca-AstroPh.undirected.txt", "ca-AstroPh", 1351441},
      {"soc-Epinions1.lcc-undirected-relabeled.txt", "soc-Epinions1", 1624481},
      {"Oregon-1.undirected-relabeled.txt", "oregon1_010331", 17144},
      {"cit-HepTh.relabeled.txt", "cit-HepTh", 1478735},
  };
  return graphs;
}

// False when the data directory is missing (the tests then skip, naming it).
bool have_graphs_dir() { return fs::is_directory(graphs_dir()); }

class SnapGraphs : public ::testing::TestWithParam<std::tuple<SnapGraph, std::uint32_t>> {};

#ifdef TRICOUNT_SNAP_CUDA
const std::vector<std::string> kBackendArgs = {"--backend", "cuda"};
#else
const std::vector<std::string> kBackendArgs = {"--backend", "cpu", "--threads", "1"};
#endif

// Partitions the graph at --parts `parts` with --block-encoding `encoding` and counts it.
void expect_published_count(const SnapGraph& graph, std::uint32_t parts, const std::string& encoding) {
#ifdef TRICOUNT_SNAP_CUDA
  if (!tricount::cuda_available()) GTEST_SKIP() << "no CUDA GPU: --backend cuda cannot run";
#endif
  if (!have_graphs_dir())
    GTEST_SKIP() << "graph directory '" << graphs_dir() << "' does not exist; skipping " << graph.file << ": "
                 << fetch_graphs_hint();
  const std::string input = graphs_dir() + "/" + graph.file;
  ASSERT_TRUE(fs::is_regular_file(input)) << "'" << input << "' is listed in SOURCES.md but missing";

  TempDir dir;
  const std::string h5 = dir.file("graph.h5");
  const ProcessResult part = run_process(
      {bin_dir() + "/tricount-partition", "--input", input, "--output", h5, "--parts", std::to_string(parts), "--quiet",
       "--block-encoding", encoding},
      300);
  ASSERT_EQ(part.exit_code, 0) << "tricount-partition on " << graph.file << ":\n" << describe(part);
  ASSERT_TRUE(fs::is_regular_file(h5));

  // One task with one part: more workers than tasks is refused, so one rank there.
  const int ranks = parts == 1 ? 1 : 3;
  const int workers = ranks == 1 ? 1 : ranks - 1;
  std::vector<std::string> args = {"--input", h5, "--json", "-"};
  args.insert(args.end(), kBackendArgs.begin(), kBackendArgs.end());
  const ProcessResult count = run_process(mpi_command(ranks, bin_dir() + "/tricount-count", args), 300);
  ASSERT_EQ(count.exit_code, 0) << "tricount-count on " << graph.file << " (" << parts << " parts):\n" << describe(count);
  EXPECT_EQ(json_uint(count.out, "triangles"), graph.triangles)
      << graph.dataset << " (" << graph.file << ", --parts " << parts << ", " << ranks
      << " ranks): SNAP publishes " << graph.triangles << " triangles";
  EXPECT_EQ(json_uint(count.out, "parts"), parts);
#ifdef TRICOUNT_SNAP_CUDA
  // Every SNAP graph fits a GPU: --count-parts auto counts the file as one part, re-blocked,
  // in one task per worker (--workload-splits auto).
  EXPECT_EQ(json_uint(count.out, "count_parts"), 1u);
  EXPECT_EQ(json_uint(count.out, "tasks"), std::uint64_t(workers));
#else
  EXPECT_EQ(json_uint(count.out, "count_parts"), parts);  // the CPU backend counts the file's own parts
  EXPECT_EQ(json_uint(count.out, "tasks"), std::uint64_t(parts) * parts * parts);
#endif
  EXPECT_EQ(json_uint(count.out, "ranks"), std::uint64_t(ranks));
  EXPECT_EQ(json_uint(count.out, "workers"), std::uint64_t(workers));
#ifdef TRICOUNT_SNAP_CUDA
  EXPECT_NE(count.out.find("\"backend\": \"cuda\""), std::string::npos) << describe(count);
#endif
}

TEST_P(SnapGraphs, PublishedTriangles) {
  const auto& [graph, parts] = GetParam();
  expect_published_count(graph, parts, "csr");
}

// The same counts from packed blocks (decoded when read), at one and at several parts.
class SnapPackedGraphs : public ::testing::TestWithParam<std::tuple<SnapGraph, std::uint32_t>> {};
TEST_P(SnapPackedGraphs, PublishedTriangles) {
  const auto& [graph, parts] = GetParam();
  expect_published_count(graph, parts, "packed");
}

// --per-vertex on every graph (--parts 2, 3 ranks): the per-vertex counts sum to 3 x the
// published count; on the smaller plain-text graphs every row equals the brute-force
// reference's (tests/reference_counter.hpp), read from the file by a parser of its own.
class SnapPerVertex : public ::testing::TestWithParam<std::tuple<SnapGraph, std::uint32_t>> {};

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

TEST_P(SnapPerVertex, SumsToThreeTimesPublishedAndMatchesTheReference) {
  const auto& [graph, parts] = GetParam();
#ifdef TRICOUNT_SNAP_CUDA
  if (!tricount::cuda_available()) GTEST_SKIP() << "no CUDA GPU: --backend cuda cannot run";
#endif
  if (!have_graphs_dir())
    GTEST_SKIP() << "graph directory '" << graphs_dir() << "' does not exist; skipping " << graph.file << ": "
                 << fetch_graphs_hint();
  const std::string input = graphs_dir() + "/" + graph.file;
  ASSERT_TRUE(fs::is_regular_file(input)) << "'" << input << "' is listed in SOURCES.md but missing";
  TempDir dir;
  const std::string h5 = dir.file("graph.h5"), out = dir.file("pv.h5");
  const ProcessResult part = run_process(
      {bin_dir() + "/tricount-partition", "--input", input, "--output", h5, "--parts", std::to_string(parts), "--quiet"},
      300);
  ASSERT_EQ(part.exit_code, 0) << describe(part);
  std::vector<std::string> args = {"--input", h5, "--json", "-", "--per-vertex", out};
  args.insert(args.end(), kBackendArgs.begin(), kBackendArgs.end());
  const ProcessResult count = run_process(mpi_command(3, bin_dir() + "/tricount-count", args), 300);
  ASSERT_EQ(count.exit_code, 0) << describe(count);
  EXPECT_EQ(json_uint(count.out, "triangles"), graph.triangles);
  const tricount::VertexRows rows = tricount::read_per_vertex_hdf5(out);
  std::uint64_t sum = 0;
  for (std::uint64_t t : rows.triangles) sum += t;
  EXPECT_EQ(sum, 3 * graph.triangles) << graph.dataset << ": the per-vertex counts must sum to 3 x the published count";
  EXPECT_EQ(rows.size(), json_uint(count.out, "vertices"));
  const bool small_text = !std::string(graph.file).ends_with(".gz") && fs::file_size(input) < (std::uint64_t{1} << 20);
  if (!small_text) return;
  std::map<std::uint64_t, tricount::reference::VertexTriangles> found;
  for (std::size_t x = 0; x < rows.size(); ++x) found[rows.vertex[x]] = {rows.degree[x], rows.triangles[x]};
  EXPECT_TRUE(found == tricount::reference::per_vertex_triangles(read_snap_text(input)))
      << graph.dataset << ": per-vertex rows differ from the reference";
}

std::string test_name(const ::testing::TestParamInfo<SnapGraphs::ParamType>& info) {
  std::string name;
  for (const char* c = std::get<0>(info.param).file; *c; ++c)
    name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
  return name + "_parts" + std::to_string(std::get<1>(info.param));
}

#ifdef TRICOUNT_SNAP_CUDA
INSTANTIATE_TEST_SUITE_P(snap_cuda, SnapGraphs,
#else
INSTANTIATE_TEST_SUITE_P(snap, SnapGraphs,
#endif
                         ::testing::Combine(::testing::ValuesIn(snap_graphs()), ::testing::Values(1u, 2u, 3u)),
                         test_name);

#ifdef TRICOUNT_SNAP_CUDA
INSTANTIATE_TEST_SUITE_P(snap_cuda, SnapPackedGraphs,
#else
INSTANTIATE_TEST_SUITE_P(snap, SnapPackedGraphs,
#endif
                         ::testing::Combine(::testing::ValuesIn(snap_graphs()), ::testing::Values(1u, 3u)), test_name);

#ifdef TRICOUNT_SNAP_CUDA
INSTANTIATE_TEST_SUITE_P(snap_cuda, SnapPerVertex,
#else
INSTANTIATE_TEST_SUITE_P(snap, SnapPerVertex,
#endif
                         ::testing::Combine(::testing::ValuesIn(snap_graphs()), ::testing::Values(2u)), test_name);

#ifndef TRICOUNT_SNAP_CUDA  // once is enough
// The table above must list exactly the files of SOURCES.md, with the same published counts.
TEST(snapTable, MatchesSourcesMd) {
  const std::string md = graphs_dir() + "/SOURCES.md";
  if (!have_graphs_dir()) GTEST_SKIP() << "graph directory '" << graphs_dir() << "' does not exist: " << fetch_graphs_hint();
  // Downloaded graphs come without the data's notes (scripts/fetch-graphs --from copies them).
  if (!fs::exists(md)) GTEST_SKIP() << "'" << md << "' is not there (the graphs were downloaded, not copied with --from)";
  std::ifstream in(md);
  ASSERT_TRUE(in) << "cannot read '" << md << "'";
  auto cells = [](const std::string& line) {
    std::vector<std::string> out;
    std::string cell;
    for (std::size_t p = 1; p < line.size(); ++p) {
      if (line[p] == '|') {
        const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
        out.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
        cell.clear();
      } else {
        cell += line[p];
      }
    }
    return out;
  };
  std::map<std::string, std::uint64_t> listed;
  int column = -1;  // index of "published triangles" in the current table
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("|", 0) != 0) {
      column = -1;
      continue;
    }
    const auto row = cells(line);
    if (column < 0) {
      for (std::size_t c = 0; c < row.size(); ++c)
        if (row[c].find("published triangles") != std::string::npos) column = static_cast<int>(c);
      continue;
    }
    if (row.empty() || row[0].rfind("---", 0) == 0 || static_cast<int>(row.size()) <= column) continue;
    std::string digits;
    for (char c : row[static_cast<std::size_t>(column)])
      if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
    ASSERT_FALSE(digits.empty()) << "no number in: " << line;
    listed[row[0]] = std::stoull(digits);
  }
  std::map<std::string, std::uint64_t> ours;
  for (const auto& g : snap_graphs()) ours[g.file] = g.triangles;
  EXPECT_EQ(listed.size(), 23u);
  EXPECT_EQ(ours, listed);
}

#endif

}  // namespace
