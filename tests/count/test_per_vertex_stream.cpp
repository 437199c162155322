// Issue 31.2: tricount-count --per-vertex streams its table (count/per_vertex.cpp over
// src/table_writer). A table of 400,000 rows (more than one 2^18-row HDF5 chunk, many text
// pieces, classes of about 100,000 rows at --parts 4) at 1 and 3 ranks: every row equal to
// the independent reference, the .tsv and .h5 tables row for row the same, and the report's
// per-vertex seconds and bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "count/per_vertex.hpp"
#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount;
using namespace tricount::testing;

constexpr double kTimeout = 300;

// 100,000 disjoint K4s with ids spread over 2^50 (400,000 vertices of degree 3 in 3
// triangles each), and a wheel whose hub is in 50 triangles.
EdgePairs big_graph() {
  EdgePairs g;
  for (std::uint64_t k = 0; k < 100000; ++k) {
    const std::uint64_t base = (std::uint64_t{1} << 50) + k * 1000003;
    for (std::uint64_t a = 0; a < 4; ++a)
      for (std::uint64_t b = a + 1; b < 4; ++b) g.emplace_back(base + a * 7, base + b * 7);
  }
  for (std::uint64_t x = 1; x <= 50; ++x) g.emplace_back(1, 1 + x), g.emplace_back(1 + x, 1 + x % 50 + 1);
  return g;
}

VertexRows read_tsv(const std::string& path) {
  std::ifstream in(path);
  VertexRows rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("#")) continue;
    char* end = nullptr;
    rows.vertex.push_back(std::strtoull(line.c_str(), &end, 10));
    rows.degree.push_back(std::strtoull(end + 1, &end, 10));
    rows.triangles.push_back(std::strtoull(end + 1, &end, 10));
    rows.clustering.push_back(std::strtod(end + 1, &end));
  }
  return rows;
}

TEST(PerVertexStream, ATableOfManyChunksMatchesTheReferenceInBothFormats) {
  TempDir dir;
  const EdgePairs edges = big_graph();
  const std::map<std::uint64_t, reference::VertexTriangles> expected = reference::per_vertex_triangles(edges);
  ASSERT_EQ(expected.size(), 400051u);
  write_text_edges(dir.file("g.txt"), edges);
  const std::string h5 = dir.file("g.h5");
  const ProcessResult part = run_process(
      {bin_dir() + "/tricount-partition", "--input", dir.file("g.txt"), "--output", h5, "--parts", "4", "--quiet"}, kTimeout);
  ASSERT_EQ(part.exit_code, 0) << describe(part);
  for (int ranks : {1, 3}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    std::map<std::string, VertexRows> tables;
    for (const std::string name : {"pv.tsv", "pv.h5"}) {
      const std::string out = dir.file(name), report = dir.file("report.json");
      const ProcessResult r = run_process(mpi_command(ranks, bin_dir() + "/tricount-count",
                                                      {"--input", h5, "--backend", "cpu", "--threads", "1", "--per-vertex",
                                                       out, "--json", report, "--quiet"}),
                                          kTimeout);
      ASSERT_EQ(r.exit_code, 0) << describe(r);
      const VertexRows rows = name.ends_with(".tsv") ? read_tsv(out) : read_per_vertex_hdf5(out);
      std::map<std::uint64_t, reference::VertexTriangles> found;
      for (std::size_t x = 0; x < rows.size(); ++x) {
        found[rows.vertex[x]] = {rows.degree[x], rows.triangles[x]};
        ASSERT_EQ(rows.clustering[x], local_clustering(rows.degree[x], rows.triangles[x])) << name << " row " << x;
      }
      EXPECT_EQ(rows.size(), expected.size()) << name;
      EXPECT_TRUE(found == expected) << name << ": rows differ from the reference";
      tables[name] = rows;
      // The report: the step's seconds, the writer's share of them, the table's bytes.
      std::ifstream in(report);
      const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const double step = json_numbers(json, "per_vertex").at(0), write = json_numbers(json, "per_vertex_write").at(0);
      EXPECT_GT(write, 0.0) << json;
      EXPECT_GE(step, 0.0) << json;
      const std::uint64_t bytes = json_uint(json, "per_vertex_bytes");
      if (name.ends_with(".tsv")) EXPECT_EQ(bytes, fs::file_size(out));
      else EXPECT_EQ(bytes, 32 * expected.size());
    }
    // The same rows in the same order in both formats (the doubles to the bit).
    const VertexRows& text = tables["pv.tsv"];
    const VertexRows& hdf5 = tables["pv.h5"];
    EXPECT_EQ(text.vertex, hdf5.vertex);
    EXPECT_EQ(text.degree, hdf5.degree);
    EXPECT_EQ(text.triangles, hdf5.triangles);
    EXPECT_EQ(text.clustering, hdf5.clustering);
  }
}

}  // namespace
