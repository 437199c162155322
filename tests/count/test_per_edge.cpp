// tricount-count --per-edge (issue 31.1) through the real programs under mpiexec: every row
// (input ids u < v, triangles) against the independent brute-force reference
// (tests/reference_per_edge.hpp) on messy inputs (duplicates, reciprocal edges, self-loops,
// sparse ids) at --parts 1-3, --workload-splits 1-3 and 1-3 ranks, both output formats, both
// schedules, beside --per-vertex; the report's top edges; resume; bad paths; a full disk.
//
// Built twice: test_per_edge with the CPU backend (label cli), test_per_edge_cuda
// (TRICOUNT_PER_EDGE_CUDA, labels gpu and cli) with --backend cuda, which skips every test,
// saying so, without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "count/per_edge.hpp"
#include "scheduler/journal.hpp"
#include "tests/faults.hpp"
#include "tests/reference_counter.hpp"
#include "tests/reference_per_edge.hpp"
#include "tests/test_support.hpp"
#include "worker/backend.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount;
using namespace tricount::testing;

constexpr double kTimeout = 180;

#ifdef TRICOUNT_PER_EDGE_CUDA
const std::vector<std::string> kBackendArgs = {"--backend", "cuda"};
#define SKIP_WITHOUT_BACKEND() \
  if (!tricount::cuda_available()) GTEST_SKIP() << "no CUDA GPU: --backend cuda cannot run"
#define PerEdgeResume PerEdgeResumeCuda
#else
const std::vector<std::string> kBackendArgs = {"--backend", "cpu", "--threads", "2"};
#define SKIP_WITHOUT_BACKEND() (void)0
#endif

using EdgeMap = std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t>;

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

// A TSV table back as rows (the '#' lines skipped), checking its header.
EdgeRows read_tsv(const std::string& path) {
  std::ifstream in(path);
  EdgeRows rows;
  std::string line;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.starts_with("#")) {
      header = header || line == "# u\tv\ttriangles";
      continue;
    }
    std::istringstream fields(line);
    std::uint64_t u = 0, v = 0, t = 0;
    EXPECT_TRUE(fields >> u >> v >> t) << "bad line '" << line << "' in " << path;
    rows.u.push_back(u), rows.v.push_back(v), rows.triangles.push_back(static_cast<edge_count_t>(t));
  }
  EXPECT_TRUE(header) << path << " has no column header line";
  return rows;
}

EdgeRows read_rows(const std::string& path) { return per_edge_is_text(path) ? read_tsv(path) : read_per_edge_hdf5(path); }

// Rows as a map, each edge once and u < v.
EdgeMap as_map(const EdgeRows& rows, const std::string& where) {
  EdgeMap found;
  for (std::size_t x = 0; x < rows.size(); ++x) {
    EXPECT_LT(rows.u[x], rows.v[x]) << where << ": row " << x;
    EXPECT_TRUE(found.emplace(std::pair(rows.u[x], rows.v[x]), rows.triangles[x]).second)
        << where << ": edge " << rows.u[x] << "-" << rows.v[x] << " written twice";
  }
  return found;
}

// Rows, report and summary line of one run against the reference.
void expect_matches_reference(const std::string& out, const ProcessResult& r, const EdgeMap& expected, const std::string& where) {
  EXPECT_EQ(as_map(read_rows(out), where), expected) << where;
  std::uint64_t in_triangles = 0, top = 0;
  std::pair<std::uint64_t, std::uint64_t> top_edge;
  for (const auto& [e, t] : expected) {
    in_triangles += t > 0;
    if (t > top) top = t, top_edge = e;  // map order: ties go to the smaller (u, v)
  }
  EXPECT_EQ(json_uint(r.out, "edges_in_triangles"), in_triangles) << where;
  if (top > 0) {
    const std::string tops = r.out.substr(r.out.find("\"top_edges\""));
    EXPECT_EQ(json_uint(tops, "u"), top_edge.first) << where;
    EXPECT_EQ(json_uint(tops, "v"), top_edge.second) << where;
    EXPECT_EQ(json_uint(tops, "triangles"), top) << where;
  } else {
    EXPECT_TRUE(contains(r.out, "\"top_edges\": []")) << where << r.out;
  }
  EXPECT_TRUE(contains(r.err, "top edges (u-v:triangles)")) << where << ": the summary line says\n" << r.err;
}

struct GraphCase {
  const char* name;
  EdgePairs edges;
};

void PrintTo(const GraphCase& c, std::ostream* os) { *os << c.name; }

// Messy inputs: every edge twice in both directions, self-loops, ids near 2^40 far apart.
std::vector<GraphCase> graph_cases() {
  EdgePairs sparse = random_graph(200, 1500, 17);
  for (auto& [a, b] : sparse) a = (std::uint64_t{1} << 40) + a * 1000003, b = (std::uint64_t{1} << 40) + b * 1000003;
  EdgePairs messy = random_graph(150, 1200, 5);
  const std::size_t plain = messy.size();
  for (std::size_t x = 0; x < plain; x += 3) messy.emplace_back(messy[x].second, messy[x].first);  // reciprocal
  for (std::size_t x = 0; x < plain; x += 5) messy.push_back(messy[x]);                           // duplicate
  for (std::uint64_t x = 0; x < 150; x += 7) messy.emplace_back(x, x);                              // self-loops
  EdgePairs wheel;
  for (std::uint64_t x = 1; x <= 40; ++x) wheel.emplace_back(1000, x), wheel.emplace_back(x, x % 40 + 1);
  return {
      {"K7_one_based", complete_graph(7, 1)},
      {"star", star(30)},
      {"wheel", wheel},
      {"two_triangles_sharing_an_edge_duplicated", {{1, 2}, {2, 3}, {3, 1}, {2, 4}, {4, 3}, {2, 1}, {3, 2}, {3, 3}, {1, 2}}},
      {"messy_random", messy},
      {"random_sparse_ids", sparse},
  };
}

class PerEdgeGraphs : public ::testing::TestWithParam<GraphCase> {};

TEST_P(PerEdgeGraphs, EveryPartsSplitsAndRanksMatchTheReference) {
  SKIP_WITHOUT_BACKEND();
  const GraphCase& c = GetParam();
  const EdgeMap expected = reference::per_edge_triangles(c.edges);
  std::uint64_t sum = 0;
  for (const auto& [e, t] : expected) sum += t;
  ASSERT_EQ(sum, 3 * reference::count_triangles(c.edges)) << "the reference itself";
  TempDir dir;
  for (std::uint32_t parts = 1; parts <= 3; ++parts) {
    const std::string h5 = partition(dir, c.edges, parts, "g" + std::to_string(parts));
    for (std::uint32_t splits = 1; splits <= 3; ++splits) {
      const int ranks = 1 + static_cast<int>(parts + splits) % 3;  // 1 to 3 ranks over the grid
      const bool text = (parts + splits) % 2 == 0;
      const bool static_schedule = parts == 2;
      const bool per_vertex = splits == 2;
      const std::string out = dir.file("pe" + std::to_string(parts) + std::to_string(splits) + (text ? ".tsv" : ".h5"));
      const std::string where = std::string(c.name) + " --parts " + std::to_string(parts) + " --workload-splits " +
                                std::to_string(splits) + ", " + std::to_string(ranks) + " ranks, " + out +
                                (static_schedule ? ", static" : "") + (per_vertex ? ", with --per-vertex" : "");
      std::vector<std::string> args = {"--input", h5, "--per-edge", out, "--workload-splits", std::to_string(splits),
                                       "--allow-idle-workers", "--json", "-"};
      if (static_schedule) args.insert(args.end(), {"--schedule", "static"});
      if (per_vertex) args.insert(args.end(), {"--per-vertex", dir.file("pv" + std::to_string(parts) + ".tsv")});
      const ProcessResult r = count(ranks, args);
      ASSERT_EQ(r.exit_code, 0) << where << describe(r);
      expect_matches_reference(out, r, expected, where);
      if (per_vertex) EXPECT_TRUE(contains(r.out, "\"top_vertices\"")) << where;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
#ifdef TRICOUNT_PER_EDGE_CUDA
    pe_cuda,
#else
    pe,
#endif
    PerEdgeGraphs, ::testing::ValuesIn(graph_cases()),
    [](const ::testing::TestParamInfo<GraphCase>& info) { return std::string(info.param.name); });

// An edge-file GRAPH (partitioned by rank 0 first) gives the same rows.
TEST(PerEdgeResume, AnEdgeFileGraphAndAResumedRunWriteTheSameOutput) {
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
  ProcessResult r = count(3, with({"--per-edge", clean}));
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(as_map(read_tsv(clean), "clean"), reference::per_edge_triangles(g));
  const std::string from_text = dir.file("from_text.h5");
  r = count(2, {dir.file("g.txt"), "--parts", "2", "--per-edge", from_text, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(as_map(read_per_edge_hdf5(from_text), "edge-file GRAPH"), reference::per_edge_triangles(g));
  for (const bool per_edge_first : {true, false}) {
    // A run that fails part-way (with or without --per-edge), then --resume --per-edge.
    const std::string journal = dir.file(std::string("run") + (per_edge_first ? "1" : "2") + ".journal");
    const std::string out = dir.file(std::string("resumed") + (per_edge_first ? "1" : "2") + ".tsv");
    std::vector<std::string> first = with({"--journal", journal, "--test-fault-at-task", "30"});
    if (per_edge_first) first.insert(first.end(), {"--per-edge", out});
    r = count(3, first);
    ASSERT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_FALSE(fs::exists(out)) << "a failed run left a per-edge file";
    ASSERT_TRUE(fs::exists(journal));
    r = count(3, with({"--journal", journal, "--resume", "--per-edge", out}));
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_TRUE(read_file(out) == read_file(clean)) << "resumed output differs from a clean run's";
    // The journal was started afresh by the recount: a plain --resume now has every task done.
    r = count(1, with({"--journal", journal, "--resume", "--json", "-"}));
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_EQ(json_uint(r.out, "triangles"), reference::count_triangles(g));
    EXPECT_EQ(json_uint(r.out, "resumed_tasks"), 54u);
  }
}

#ifndef TRICOUNT_PER_EDGE_CUDA  // once is enough: no counting happens, or only the writing is tested
TEST(PerEdgePaths, AnUnwritablePathIsRefusedBeforeCounting) {
  TempDir dir;
  const std::string h5 = partition(dir, complete_graph(10), 2, "g");
  const std::string journal = dir.file("run.journal");  // a count that ran would leave records here
  fs::create_directory(dir.file("sub"));
  for (const std::string& bad : {dir.file("no/such/dir/pe.tsv"), dir.file("no/such/dir/pe.h5"), dir.file("sub"),
                                 std::string("/dev/null")}) {
    const ProcessResult r = count(1, {"--input", h5, "--per-edge", bad, "--journal", journal});
    EXPECT_EQ(r.exit_code, 1) << bad << describe(r);
    EXPECT_TRUE(contains(r.err, "tricount-count: error: ") && contains(r.err, "--per-edge '" + bad + "'")) << bad << describe(r);
    EXPECT_FALSE(fs::exists(journal)) << bad << ": counted before finding the bad path";
    fs::remove(journal);
  }
}

TEST(PerEdgePaths, OntoTheInputTheJournalTheReportOrThePerVertexTableIsRefused) {
  TempDir dir;
  const std::string h5 = partition(dir, complete_graph(10), 2, "g");
  const std::string before = read_file(h5);
  fs::create_symlink(h5, dir.file("link.h5"));
  for (const std::string& onto : {h5, dir.file("link.h5")}) {
    const ProcessResult r = count(1, {"--input", h5, "--per-edge", onto});
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, "tricount-count: error: --per-edge '" + onto + "' is the same file as --input")) << describe(r);
    EXPECT_TRUE(read_file(h5) == before) << "the block file was changed by --per-edge " << onto;
  }
  // An edge-file GRAPH is refused as the output before it is partitioned.
  const std::string text = dir.file("g.txt");
  const std::string text_before = read_file(text);
  ProcessResult r = count(1, {text, "--per-edge", text});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "--per-edge")) << describe(r);
  EXPECT_TRUE(read_file(text) == text_before);
  const std::string journal = dir.file("j.journal"), json = dir.file("r.json"), pv = dir.file("pv.tsv");
  r = count(1, {"--input", h5, "--per-edge", journal, "--journal", journal});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "is the same file as --journal")) << describe(r);
  r = count(1, {"--input", h5, "--per-edge", json, "--json", json});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "is the same file as --json")) << describe(r);
  r = count(1, {"--input", h5, "--per-edge", pv, "--per-vertex", pv});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "--per-edge '" + pv + "' is the same file as --per-vertex")) << describe(r);
  EXPECT_FALSE(fs::exists(pv));
  r = count(1, {"--input", h5, "--per-edge", ""});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "tricount-count: error: --per-edge is given an empty value")) << describe(r);
}

TEST(PerEdgePaths, ARecountThatDiffersFromTheJournalIsRefused) {
  TempDir dir;
  const std::string h5 = partition(dir, complete_graph(12), 2, "g");
  const std::string journal = dir.file("run.journal"), out = dir.file("pe.tsv");
  ProcessResult r = count(1, {"--input", h5, "--journal", journal, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  // Add 1 to the count of the journal's first record (the first line that is not a '#' line).
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
  r = count(1, {"--input", h5, "--journal", journal, "--resume", "--per-edge", out});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "the journal '" + journal + "' recorded")) << describe(r);
  EXPECT_FALSE(fs::exists(out));
}

TEST(PerEdgePaths, AnEmptyGraphGivesAnEmptyTable) {
  TempDir dir;
  const std::string text = dir.file("loops.txt"), h5 = dir.file("g.h5"), out = dir.file("pe.tsv");
  std::ofstream(text) << "1 1\n2 2\n";
  const ProcessResult part = run_process({bin_dir() + "/tricount-partition", "--input", text, "--output", h5, "--quiet"}, kTimeout);
  ASSERT_EQ(part.exit_code, 0) << describe(part);
  const ProcessResult r = count(1, {"--input", h5, "--per-edge", out, "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(read_tsv(out).size(), 0u);
  EXPECT_TRUE(contains(r.out, "\"top_edges\": []")) << r.out;
}

// Chunked (to grow as pieces arrive) and unfiltered, as the per-vertex table: deflate ran far
// below disk speed (bench/RESULTS.md, per-vertex and per-edge).
TEST(PerEdgePaths, TheHdf5FileIsChunkedAndUnfiltered) {
  if (std::system("command -v h5ls > /dev/null 2>&1") != 0) GTEST_SKIP() << "h5ls is not on PATH";
  TempDir dir;
  const std::string h5 = partition(dir, random_graph(3000, 20000, 3), 2, "g");
  const std::string out = dir.file("pe.h5");
  const ProcessResult r = count(1, {"--input", h5, "--per-edge", out, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const ProcessResult listing = run_process({"h5ls", "-v", out}, kTimeout);
  ASSERT_EQ(listing.exit_code, 0) << describe(listing);
  const std::string edges = std::to_string(reference::per_edge_triangles(random_graph(3000, 20000, 3)).size());
  for (const std::string& name : std::vector<std::string>{"u ", "v ", "triangles ", "Dataset {" + edges + "/Inf}", "Chunks:",
                                 "native unsigned long", "native unsigned int"})
    EXPECT_TRUE(contains(listing.out, name)) << name << "\n" << listing.out;
  EXPECT_FALSE(contains(listing.out, "Filter")) << listing.out;
}

// A full disk: the summary line and the report come first, so the count is on record; the
// error names --per-edge; no temporary stays.
TEST(PerEdgePaths, AFullDiskKeepsTheCountOnRecord) {
  TempDir dir;
  const EdgePairs edges = random_graph(20000, 120000, 32);
  const std::string h5 = partition(dir, edges, 2, "g");
  const std::string summary = "tricount: " + std::to_string(reference::count_triangles(edges)) + " triangles";
  for (const std::string name : {"e.tsv", "e.h5"})
    for (int ranks : {1, 2}) {
      SCOPED_TRACE(name + " at " + std::to_string(ranks) + " ranks");
      SmallTmpfs disk(64 << 10);
      if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
      const ProcessResult r = count(ranks, {"--input", h5, "--per-edge", disk.file(name), "--json", "-"});
      EXPECT_FALSE(r.timed_out);
      EXPECT_EQ(r.exit_code, 1) << describe(r);
      EXPECT_TRUE(contains(r.err, summary)) << "no summary line: " << describe(r);
      EXPECT_TRUE(contains(r.out, "\"top_edges\"")) << "no report: " << describe(r);
      EXPECT_TRUE(contains(r.err, "tricount-count: error: cannot write --per-edge '" + disk.file(name))) << describe(r);
      std::vector<std::string> left;
      for (const auto& e : fs::directory_iterator(disk.path())) left.push_back(e.path().filename().string());
      EXPECT_TRUE(left.empty()) << "left on the disk: " << left.front();
    }
}
#endif

}  // namespace
