// Issue 31.1-2: tricount-count --per-edge streams its table (count/per_edge.cpp over
// src/table_writer). A table of 1,080,100 rows (one block of more than one piece of 2^20
// rows, several 2^18-row HDF5 chunks, many text pieces) at 1 and 3 ranks: every row equal to
// the closed form (each edge of a K4 is in 2 triangles; a wheel's spokes in 2, its rim in
// 1), the .tsv and .h5 tables row for row the same, and the report's per-edge seconds and
// bytes and the summary line's MB/s.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "count/per_edge.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount;
using namespace tricount::testing;

constexpr double kTimeout = 300;
constexpr std::uint64_t kK4s = 180000;  // 1,080,000 edges: more than kPerEdgePieceRows
constexpr std::uint64_t kRim = 50;

using Row = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>;

// Disjoint K4s with ids spread over 2^50, and a wheel (hub 1, rim 2..51), with the triangles
// of each edge by the closed form.
EdgePairs big_graph(std::vector<Row>& expected) {
  EdgePairs g;
  for (std::uint64_t k = 0; k < kK4s; ++k) {
    const std::uint64_t base = (std::uint64_t{1} << 50) + k * 1000003;
    for (std::uint64_t a = 0; a < 4; ++a)
      for (std::uint64_t b = a + 1; b < 4; ++b) {
        g.emplace_back(base + b * 7, base + a * 7);  // the larger id first: rows must put u < v
        expected.emplace_back(base + a * 7, base + b * 7, 2);
      }
  }
  for (std::uint64_t x = 2; x < 2 + kRim; ++x) {
    const std::uint64_t next = x + 1 < 2 + kRim ? x + 1 : 2;
    g.emplace_back(1, x), g.emplace_back(x, next);
    expected.emplace_back(1, x, 2);
    expected.emplace_back(std::min(x, next), std::max(x, next), 1);
  }
  std::sort(expected.begin(), expected.end());
  return g;
}

EdgeRows read_tsv(const std::string& path) {
  std::ifstream in(path);
  EdgeRows rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("#")) continue;
    char* end = nullptr;
    rows.u.push_back(std::strtoull(line.c_str(), &end, 10));
    rows.v.push_back(std::strtoull(end + 1, &end, 10));
    rows.triangles.push_back(static_cast<edge_count_t>(std::strtoull(end + 1, &end, 10)));
  }
  return rows;
}

std::vector<Row> sorted_rows(const EdgeRows& rows) {
  std::vector<Row> out;
  out.reserve(rows.size());
  for (std::size_t x = 0; x < rows.size(); ++x) out.emplace_back(rows.u[x], rows.v[x], rows.triangles[x]);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(PerEdgeStream, ATableOfSeveralPiecesMatchesTheClosedFormInBothFormats) {
  TempDir dir;
  std::vector<Row> expected;
  const EdgePairs edges = big_graph(expected);
  ASSERT_GT(expected.size(), kPerEdgePieceRows);
  write_text_edges(dir.file("g.txt"), edges);
  const std::string h5 = dir.file("g.h5");
  const ProcessResult part = run_process(
      {bin_dir() + "/tricount-partition", "--input", dir.file("g.txt"), "--output", h5, "--parts", "1", "--quiet"}, kTimeout);
  ASSERT_EQ(part.exit_code, 0) << describe(part);
  for (int ranks : {1, 3}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    std::map<std::string, EdgeRows> tables;
    for (const std::string name : {"pe.tsv", "pe.h5"}) {
      const std::string out = dir.file(name), report = dir.file("report.json");
      const ProcessResult r = run_process(
          mpi_command(ranks, bin_dir() + "/tricount-count",
                      {"--input", h5, "--backend", "cpu", "--threads", "1", "--per-edge", out, "--json", report}),
          kTimeout);
      ASSERT_EQ(r.exit_code, 0) << describe(r);
      const EdgeRows rows = name.ends_with(".tsv") ? read_tsv(out) : read_per_edge_hdf5(out);
      EXPECT_EQ(rows.size(), expected.size()) << name;
      for (std::size_t x = 0; x < rows.size(); ++x) ASSERT_LT(rows.u[x], rows.v[x]) << name << " row " << x;
      EXPECT_TRUE(sorted_rows(rows) == expected) << name << ": rows differ from the closed form";
      tables[name] = rows;
      // The report: the step's seconds, the writer's share of them, the table's bytes; the
      // summary line's MB/s.
      std::ifstream in(report);
      const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const double step = json_numbers(json, "per_edge").at(0), write = json_numbers(json, "per_edge_write").at(0);
      EXPECT_GT(write, 0.0) << json;
      EXPECT_GE(step, 0.0) << json;
      const std::uint64_t bytes = json_uint(json, "per_edge_bytes");
      if (name.ends_with(".tsv")) {
        EXPECT_EQ(bytes, fs::file_size(out));
      } else {
        EXPECT_EQ(bytes, 20 * expected.size());
      }
      const std::string said = r.out + r.err;  // the summary line: stdout, as the report goes to a file
      EXPECT_TRUE(contains(said, " | per-edge ")) << said;
      EXPECT_TRUE(contains(said, " MB/s)")) << said;
      EXPECT_TRUE(contains(json, "\"per_vertex\": null")) << "no --per-vertex: its seconds are null";
    }
    // The same rows in the same order in both formats.
    const EdgeRows& text = tables["pe.tsv"];
    const EdgeRows& hdf5 = tables["pe.h5"];
    EXPECT_EQ(text.u, hdf5.u);
    EXPECT_EQ(text.v, hdf5.v);
    EXPECT_EQ(text.triangles, hdf5.triangles);
  }
}

}  // namespace
