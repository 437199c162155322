// tricount-count --per-vertex through the real programs under mpiexec: every row (input id,
// degree, triangles, clustering) against the independent brute-force reference
// (tests/reference_counter.hpp) at --parts 1-4, --workload-splits 1-3 and 1-5 ranks, in both
// output formats; the report's clustering fields and top vertices; resume; bad paths.
//
// Built twice: test_per_vertex with the CPU backend (label cli), test_per_vertex_cuda
// (TRICOUNT_PER_VERTEX_CUDA, labels gpu and cli) with --backend cuda, which skips every test,
// saying so, without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "count/per_vertex.hpp"
#include "scheduler/journal.hpp"
#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"
#include "worker/backend.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount;
using namespace tricount::testing;

constexpr double kTimeout = 180;

#ifdef TRICOUNT_PER_VERTEX_CUDA
const std::vector<std::string> kBackendArgs = {"--backend", "cuda"};
#define SKIP_WITHOUT_BACKEND() \
  if (!tricount::cuda_available()) GTEST_SKIP() << "no CUDA GPU: --backend cuda cannot run"
#else
const std::vector<std::string> kBackendArgs = {"--backend", "cpu", "--threads", "2"};
#define SKIP_WITHOUT_BACKEND() (void)0
#endif
// The two builds' tests need distinct names for ctest.
#ifdef TRICOUNT_PER_VERTEX_CUDA
#define PerVertexResume PerVertexResumeCuda
#endif

std::string partition(const TempDir& dir, const EdgePairs& edges, std::uint32_t parts, const std::string& name) {
  const std::string text = dir.file(name + ".txt"), h5 = dir.file(name + ".h5");
  write_text_edges(text, edges);
  const ProcessResult r = run_process(
      {bin_dir() + "/tricount-partition", "--input", text, "--output", h5, "--parts", std::to_string(parts), "--quiet"},
      kTimeout);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  return h5;
}

ProcessResult count(int ranks, const std::vector<std::string>& args) {
  std::vector<std::string> all = args;
  all.insert(all.end(), kBackendArgs.begin(), kBackendArgs.end());
  return run_process(mpi_command(ranks, bin_dir() + "/tricount-count", all), kTimeout);
}

// A TSV table back as rows (the '#' lines skipped), checking its shape.
VertexRows read_tsv(const std::string& path) {
  std::ifstream in(path);
  VertexRows rows;
  std::string line;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.starts_with("#")) {
      header = header || line == "# vertex\tdegree\ttriangles\tclustering";
      continue;
    }
    std::istringstream fields(line);
    std::uint64_t v = 0, d = 0, t = 0;
    double c = 0;
    EXPECT_TRUE(fields >> v >> d >> t >> c) << "bad line '" << line << "' in " << path;
    rows.vertex.push_back(v), rows.degree.push_back(d), rows.triangles.push_back(t), rows.clustering.push_back(c);
  }
  EXPECT_TRUE(header) << path << " has no column header line";
  return rows;
}

double json_number(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":");
  if (at == std::string::npos) throw std::runtime_error("no '" + key + "' in the report");
  return std::stod(json.substr(at + key.size() + 3));
}

// Checks rows, report and summary line of one run against the reference.
void expect_matches_reference(const VertexRows& rows, const std::string& report,
                              const std::map<std::uint64_t, reference::VertexTriangles>& expected, const std::string& where) {
  std::map<std::uint64_t, reference::VertexTriangles> found;
  for (std::size_t x = 0; x < rows.size(); ++x) {
    EXPECT_TRUE(found.emplace(rows.vertex[x], reference::VertexTriangles{rows.degree[x], rows.triangles[x]}).second)
        << where << ": vertex " << rows.vertex[x] << " written twice";
    const double d = static_cast<double>(rows.degree[x]);
    const double want = rows.degree[x] < 2 ? 0.0 : 2.0 * static_cast<double>(rows.triangles[x]) / (d * (d - 1));
    EXPECT_NEAR(rows.clustering[x], want, 1e-15) << where << ": vertex " << rows.vertex[x];
  }
  EXPECT_EQ(found, expected) << where;
  // The report: transitivity, the networkx average, the vertex in most triangles.
  double triangles3 = 0, wedges = 0, clustering = 0;
  std::uint64_t top = 0, top_t = 0;
  for (const auto& [id, t] : expected) {
    triangles3 += static_cast<double>(t.triangles);
    wedges += static_cast<double>(t.degree) * static_cast<double>(t.degree - 1) / 2;
    const double d = static_cast<double>(t.degree);
    clustering += t.degree < 2 ? 0.0 : 2.0 * static_cast<double>(t.triangles) / (d * (d - 1));
    if (t.triangles > top_t) top = id, top_t = t.triangles;
  }
  EXPECT_NEAR(json_number(report, "global_clustering"), wedges > 0 ? triangles3 / wedges : 0.0, 1e-8) << where;
  EXPECT_NEAR(json_number(report, "average_clustering"), clustering / static_cast<double>(expected.size()), 1e-8) << where;
  if (top_t > 0) {
    const std::string tops = report.substr(report.find("\"top_vertices\""));
    EXPECT_EQ(json_uint(tops, "vertex"), top) << where;
    EXPECT_EQ(json_uint(tops, "triangles"), top_t) << where;
  } else {
    EXPECT_TRUE(contains(report, "\"top_vertices\": []")) << where << report;
  }
}

EdgePairs wheel(std::uint64_t rim, std::uint64_t first_id) {
  EdgePairs g;
  for (std::uint64_t x = 1; x <= rim; ++x) {
    g.emplace_back(first_id, first_id + x);
    g.emplace_back(first_id + x, first_id + x % rim + 1);
  }
  return g;
}

struct GraphCase {
  const char* name;
  EdgePairs edges;
};

void PrintTo(const GraphCase& c, std::ostream* os) { *os << c.name; }

std::vector<GraphCase> graph_cases() {
  EdgePairs sparse = random_graph(200, 1500, 17);  // ids near 2^40, far apart
  for (auto& [a, b] : sparse) a = (std::uint64_t{1} << 40) + a * 1000003, b = (std::uint64_t{1} << 40) + b * 1000003;
  return {
      {"K6_one_based", complete_graph(6, 1)},
      {"star", star(30)},
      {"wheel", wheel(10, 1)},
      {"two_triangles_sharing_an_edge", {{1, 2}, {2, 3}, {3, 1}, {2, 4}, {4, 3}}},
      {"random_sparse_ids", sparse},
  };
}

class PerVertexGraphs : public ::testing::TestWithParam<GraphCase> {};

TEST_P(PerVertexGraphs, EveryPartsSplitsAndRanksMatchTheReference) {
  SKIP_WITHOUT_BACKEND();
  const GraphCase& c = GetParam();
  const auto expected = reference::per_vertex_triangles(c.edges);
  TempDir dir;
  for (std::uint32_t parts = 1; parts <= 4; ++parts) {
    const std::string h5 = partition(dir, c.edges, parts, "g" + std::to_string(parts));
    for (std::uint32_t splits = 1; splits <= 3; ++splits) {
      const int ranks = 1 + static_cast<int>(parts + splits) % 5;  // 1 to 5 ranks over the grid
      const bool text = (parts + splits) % 2 == 0;
      const std::string out = dir.file("pv" + std::to_string(parts) + std::to_string(splits) + (text ? ".tsv" : ".h5"));
      const std::string where = std::string(c.name) + " --parts " + std::to_string(parts) + " --workload-splits " +
                                std::to_string(splits) + ", " + std::to_string(ranks) + " ranks, " + out;
      const ProcessResult r = count(ranks, {"--input", h5, "--per-vertex", out, "--workload-splits", std::to_string(splits),
                                            "--allow-idle-workers", "--json", "-"});
      ASSERT_EQ(r.exit_code, 0) << where << describe(r);
      expect_matches_reference(text ? read_tsv(out) : read_per_vertex_hdf5(out), r.out, expected, where);
      EXPECT_TRUE(contains(r.err, "clustering global")) << where << ": the summary line says\n" << r.err;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
#ifdef TRICOUNT_PER_VERTEX_CUDA
    pv_cuda,
#else
    pv,
#endif
    PerVertexGraphs, ::testing::ValuesIn(graph_cases()),
    [](const ::testing::TestParamInfo<GraphCase>& info) { return std::string(info.param.name); });

TEST(PerVertexResume, AResumedRunWritesTheSameOutput) {
  SKIP_WITHOUT_BACKEND();
  TempDir dir;
  const EdgePairs g = random_graph(400, 5000, 23);
  const std::string h5 = partition(dir, g, 3, "g");
  // The file's own parts also without the table (--count-parts auto would re-block on a GPU):
  // the faults name tasks of the 3-part plan.
  const std::vector<std::string> base = {"--input", h5, "--workload-splits", "2", "--count-parts", "3", "--quiet"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const std::string clean = dir.file("clean.tsv");
  ProcessResult r = count(3, with({"--per-vertex", clean}));
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(read_tsv(clean).size(), reference::per_vertex_triangles(g).size());
  for (const bool per_vertex_first : {true, false}) {
    // A run that fails part-way (with or without --per-vertex), then --resume --per-vertex.
    const std::string journal = dir.file(std::string("run") + (per_vertex_first ? "1" : "2") + ".journal");
    const std::string out = dir.file(std::string("resumed") + (per_vertex_first ? "1" : "2") + ".tsv");
    std::vector<std::string> first = with({"--journal", journal, "--test-fault-at-task", "30"});
    if (per_vertex_first) first.insert(first.end(), {"--per-vertex", out});
    r = count(3, first);
    ASSERT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_FALSE(fs::exists(out)) << "a failed run left a per-vertex file";
    ASSERT_TRUE(fs::exists(journal));
    r = count(3, with({"--journal", journal, "--resume", "--per-vertex", out}));
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_TRUE(read_file(out) == read_file(clean)) << "resumed output differs from a clean run's";
    // The journal was started afresh by the recount: a plain --resume now has every task done.
    r = count(1, with({"--journal", journal, "--resume", "--json", "-"}));
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_EQ(json_uint(r.out, "triangles"), reference::count_triangles(g));
    EXPECT_EQ(json_uint(r.out, "resumed_tasks"), 54u);
  }
}

#ifndef TRICOUNT_PER_VERTEX_CUDA  // once is enough: no counting happens
TEST(PerVertexPaths, AnUnwritablePathIsRefusedBeforeCounting) {
  TempDir dir;
  const std::string h5 = partition(dir, complete_graph(10), 2, "g");
  const std::string journal = dir.file("run.journal");  // a count that ran would leave records here
  fs::create_directory(dir.file("sub"));
  for (const std::string& bad : {dir.file("no/such/dir/pv.tsv"), dir.file("no/such/dir/pv.h5"), dir.file("sub"),
                                 std::string("/dev/null")}) {
    const ProcessResult r = count(1, {"--input", h5, "--per-vertex", bad, "--journal", journal});
    EXPECT_EQ(r.exit_code, 1) << bad << describe(r);
    EXPECT_TRUE(contains(r.err, "tricount-count: error: ") && contains(r.err, "--per-vertex '" + bad + "'"))
        << bad << describe(r);
    EXPECT_FALSE(fs::exists(journal)) << bad << ": counted before finding the bad path";
    fs::remove(journal);
  }
}

TEST(PerVertexPaths, OntoTheInputTheJournalOrTheReportIsRefused) {
  TempDir dir;
  const std::string h5 = partition(dir, complete_graph(10), 2, "g");
  const std::string before = read_file(h5);
  fs::create_symlink(h5, dir.file("link.h5"));
  for (const std::string& onto : {h5, dir.file("link.h5")}) {
    const ProcessResult r = count(1, {"--input", h5, "--per-vertex", onto});
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, "tricount-count: error: --per-vertex '" + onto + "' is the same file as --input"))
        << describe(r);
    EXPECT_TRUE(read_file(h5) == before) << "the block file was changed by --per-vertex " << onto;
  }
  const std::string journal = dir.file("j.journal"), json = dir.file("r.json");
  ProcessResult r = count(1, {"--input", h5, "--per-vertex", journal, "--journal", journal});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "is the same file as --journal")) << describe(r);
  r = count(1, {"--input", h5, "--per-vertex", json, "--json", json});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "is the same file as --json")) << describe(r);
}

TEST(PerVertexPaths, ARecountThatDiffersFromTheJournalIsRefused) {
  TempDir dir;
  const std::string h5 = partition(dir, complete_graph(12), 2, "g");
  const std::string journal = dir.file("run.journal"), out = dir.file("pv.tsv");
  ProcessResult r = count(1, {"--input", h5, "--journal", journal, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  // Add 1 to the count of the journal's first record (the first line that is not a '#' header
  // or run line; since issue 33 a "# run" line follows the two header lines).
  std::istringstream lines(read_file(journal));
  std::string line, edited;
  bool done = false;
  while (std::getline(lines, line)) {
    if (!done && !line.empty() && line[0] != '#') {
      done = true;
      JournalRecord first = read_journal(journal).records.at(0);
      ++first.triangles;  // recorded so, with its check value (a wrong count, not damage)
      line = journal_record_line(first);
    }
    edited += line + "\n";
  }
  std::ofstream(journal, std::ios::trunc) << edited;
  r = count(1, {"--input", h5, "--journal", journal, "--resume", "--per-vertex", out});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "the journal '" + journal + "' recorded")) << describe(r);
  EXPECT_FALSE(fs::exists(out));
}

TEST(PerVertexPaths, AnEmptyGraphGivesAnEmptyTable) {
  TempDir dir;
  const std::string text = dir.file("loops.txt"), h5 = dir.file("g.h5"), out = dir.file("pv.tsv");
  std::ofstream(text) << "1 1\n2 2\n";
  const ProcessResult part = run_process({bin_dir() + "/tricount-partition", "--input", text, "--output", h5, "--quiet"}, kTimeout);
  ASSERT_EQ(part.exit_code, 0) << describe(part);
  const ProcessResult r = count(1, {"--input", h5, "--per-vertex", out, "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(read_tsv(out).size(), 0u);
  EXPECT_TRUE(contains(r.out, "\"average_clustering\": 0")) << r.out;
}

// Chunked (to grow as classes arrive) and unfiltered: deflate ran far below disk speed
// (bench/RESULTS.md, per-vertex).
TEST(PerVertexPaths, TheHdf5FileIsChunkedAndUnfiltered) {
  if (std::system("command -v h5ls > /dev/null 2>&1") != 0) GTEST_SKIP() << "h5ls is not on PATH";
  TempDir dir;
  const std::string h5 = partition(dir, random_graph(3000, 20000, 3), 2, "g");
  const std::string out = dir.file("pv.h5");
  const ProcessResult r = count(1, {"--input", h5, "--per-vertex", out, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const ProcessResult listing = run_process({"h5ls", "-v", out}, kTimeout);
  ASSERT_EQ(listing.exit_code, 0) << describe(listing);
  for (const char* name : {"vertex ", "degree ", "triangles ", "clustering ", "Dataset {3000/Inf}", "Chunks:",
                           "native unsigned long", "native double"})
    EXPECT_TRUE(contains(listing.out, name)) << name << "\n" << listing.out;
  EXPECT_FALSE(contains(listing.out, "Filter")) << listing.out;
}
#endif

}  // namespace
