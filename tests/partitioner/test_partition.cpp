#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "partitioner/partition.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

std::set<std::pair<std::uint64_t, std::uint64_t>> normalized(const EdgePairs& edges) {
  std::set<std::pair<std::uint64_t, std::uint64_t>> s;
  for (auto [a, b] : edges)
    if (a != b) s.insert({std::min(a, b), std::max(a, b)});
  return s;
}

}  // namespace

TEST(Clean, DropsSelfLoopsDuplicatesAndIsolatedVertices) {
  // 7 is only in a self-loop: isolated after cleaning. (3,1) duplicates (1,3).
  const CleanGraph g = clean_edges(to_raw({{1, 3}, {3, 1}, {1, 3}, {7, 7}, {3, 10}, {10, 1}, {10, 10}}));
  EXPECT_EQ(g.input_edges, 7u);
  EXPECT_EQ(g.input_id, (std::vector<raw_id_t>{1, 3, 10}));
  ASSERT_EQ(g.edges.size(), 3u);
  for (auto [a, b] : g.edges) EXPECT_LT(a, b);
}

TEST(Clean, HugeSparseIdsAreRenumberedDensely) {
  const std::uint64_t big = std::uint64_t{1} << 40;
  const CleanGraph g = clean_edges(to_raw({{big, big + 5}, {big + 5, 0}, {0, big}, {~std::uint64_t{0}, 0}}));
  EXPECT_EQ(g.input_id, (std::vector<raw_id_t>{0, big, big + 5, ~std::uint64_t{0}}));
  EXPECT_EQ(g.edges.size(), 4u);
}

class PartitionRoundTrip : public ::testing::TestWithParam<std::tuple<std::uint32_t, VertexOrder>> {};

TEST_P(PartitionRoundTrip, EveryOrientedEdgeLandsInExactlyOneBlockAndMapsBack) {
  const auto [n, order] = GetParam();
  EdgePairs input = random_graph(300, 2500, 11);
  for (auto& [a, b] : input) a = a * 1000003 + 17, b = b * 1000003 + 17;  // sparse input ids
  input.emplace_back(5, 5);  // self-loop
  PartitionOptions o;
  o.parts = n;
  o.order = order;
  const PartitionedGraph g = partition_edges(to_raw(input), o);
  const auto expected = normalized(input);
  ASSERT_EQ(g.header.edges, expected.size());

  // Undirected degree per new id, to check the orientation.
  std::vector<std::uint64_t> degree(g.header.vertices, 0);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> oriented;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) {
      const CsrBlock& b = g.block(i, j);
      validate_block(b, "memory");
      for (std::uint64_t r = 0; r < b.rows; ++r)
        for (eoff_t e = b.offsets[r]; e < b.offsets[r + 1]; ++e) {
          const std::uint64_t u = r * n + i, v = std::uint64_t(b.neighbors[e]) * n + j;
          ASSERT_LT(u, g.header.vertices);
          ASSERT_LT(v, g.header.vertices);
          oriented.emplace_back(u, v);
          ++degree[u];
          ++degree[v];
        }
    }
  ASSERT_EQ(oriented.size(), expected.size());
  std::set<std::pair<std::uint64_t, std::uint64_t>> back;
  for (auto [u, v] : oriented) {
    const std::uint64_t a = g.vertex_map[u], b = g.vertex_map[v];
    EXPECT_TRUE(back.insert({std::min(a, b), std::max(a, b)}).second) << "edge stored twice";
    // From lower to higher (degree, input id): compact ids preserve input-id order.
    EXPECT_TRUE(degree[u] < degree[v] || (degree[u] == degree[v] && a < b));
    if (order == VertexOrder::Degree) {
      EXPECT_LT(u, v);
    }
  }
  EXPECT_EQ(back, expected);
  // Every vertex appears in some edge: no isolated vertices survive.
  for (std::uint64_t x = 0; x < g.header.vertices; ++x) EXPECT_GT(degree[x], 0u);
  // The vertex map is a bijection onto the non-isolated input ids.
  std::set<std::uint64_t> ids(g.vertex_map.begin(), g.vertex_map.end());
  EXPECT_EQ(ids.size(), g.vertex_map.size());
}

INSTANTIATE_TEST_SUITE_P(Parts, PartitionRoundTrip,
                         ::testing::Combine(::testing::Values(1u, 2u, 3u, 4u),
                                            ::testing::Values(VertexOrder::Degree, VertexOrder::Collective)));

TEST(Partition, ZeroPartsIsAUsageError) {
  PartitionOptions o;
  o.parts = 0;
  EXPECT_THROW(partition_edges(to_raw({{1, 2}}), o), UsageError);
}

TEST(Partition, MorePartsThanVerticesLeavesEmptyBlocks) {
  PartitionOptions o;
  o.parts = 5;
  const PartitionedGraph g = partition_edges(to_raw({{0, 1}, {1, 2}, {2, 0}}), o);
  EXPECT_EQ(g.header.vertices, 3u);
  EXPECT_EQ(g.block(4, 4).rows, 0u);
  EXPECT_EQ(g.block(3, 0).nnz(), 0u);
}
