#include "tests/partitioner/pipeline_checks.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "src/block_format.hpp"

namespace tricount::testing {

void write_in_memory(const std::vector<RawEdge>& edges, const PartitionOptions& o, const std::string& path) {
  PartitionedGraph g = partition_edges(edges, o);
  write_block_file(g, path);
}

void expect_same_blocks(const std::string& expected_path, const std::string& actual_path, bool deep) {
  BlockFileReader e(expected_path), a(actual_path);
  const GraphHeader &he = e.header(), &ha = a.header();
  ASSERT_EQ(he.parts, ha.parts);
  EXPECT_EQ(he.vertices, ha.vertices);
  EXPECT_EQ(he.edges, ha.edges);
  EXPECT_EQ(he.input_edges, ha.input_edges);
  EXPECT_EQ(he.max_degree, ha.max_degree);
  EXPECT_EQ(he.ordering, ha.ordering);
  EXPECT_EQ(he.graph_checksum, ha.graph_checksum);
  for (std::uint32_t i = 0; i < he.parts; ++i)
    for (std::uint32_t j = 0; j < he.parts; ++j) {
      EXPECT_EQ(e.block_checksum({i, j}), a.block_checksum({i, j})) << "block P(" << i << "," << j << ")";
      EXPECT_EQ(e.block_nnz({i, j}), a.block_nnz({i, j}));
      if (deep) {
        const CsrBlock be = e.read_block({i, j}), ba = a.read_block({i, j});  // validates both
        EXPECT_EQ(be.offsets, ba.offsets);
        EXPECT_EQ(be.neighbors, ba.neighbors);
        EXPECT_EQ(be.max_degree, ba.max_degree);
      }
    }
  EXPECT_EQ(e.read_vertex_map(), a.read_vertex_map());
  EXPECT_EQ(e.read_task_work(), a.read_task_work());
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + " ";
  return s;
}

}  // namespace tricount::testing
