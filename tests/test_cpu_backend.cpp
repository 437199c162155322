#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

TEST(CpuBackend, HandMadeGraphs) {
  for (std::uint32_t n : {1u, 2u, 3u}) {
    EXPECT_EQ(count_with_cpu({{0, 1}, {1, 2}, {2, 0}}, n), 1u) << n;
    EXPECT_EQ(count_with_cpu(complete_graph(4), n), 4u);
    EXPECT_EQ(count_with_cpu(complete_graph(5), n), 10u);
    EXPECT_EQ(count_with_cpu(grid_2d(20, 30), n), 0u);
    EXPECT_EQ(count_with_cpu(star(500), n), 0u);
    EXPECT_EQ(count_with_cpu({{0, 1}, {1, 2}, {2, 0}, {1, 3}, {3, 2}}, n), 2u);  // sharing edge 1-2
    EXPECT_EQ(count_with_cpu({}, n), 0u);
  }
}

TEST(CpuBackend, CompleteGraphsMatchTheClosedForm) {
  for (std::uint64_t k : {3u, 6u, 17u, 64u, 150u}) {
    const std::uint64_t expected = k * (k - 1) * (k - 2) / 6;
    for (std::uint32_t n : {1u, 2u, 4u}) EXPECT_EQ(count_with_cpu(complete_graph(k, 1000), n, 2), expected);
  }
}

TEST(CpuBackend, RandomGraphsMatchTheReferenceForEveryPartsAndSplits) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const EdgePairs g = random_graph(400 * seed, 6000 * seed, seed);
    const std::uint64_t expected = reference::count_triangles(g);
    ASSERT_GT(expected, 0u);
    for (std::uint32_t n = 1; n <= 4; ++n)
      for (std::uint32_t m = 1; m <= 3; ++m) EXPECT_EQ(count_with_cpu(g, n, m), expected) << "n=" << n << " m=" << m;
    EXPECT_EQ(count_with_cpu(g, 3, 2, VertexOrder::Collective), expected);
  }
}

TEST(CpuBackend, PermutedIdsGiveTheSameCount) {
  const EdgePairs g = random_graph(1000, 20000, 9);
  std::vector<std::uint64_t> perm(1000);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(42));
  EdgePairs permuted;
  for (auto [a, b] : g) permuted.emplace_back(perm[a] * 7919 + 3, perm[b] * 7919 + 3);
  const count_t base = count_with_cpu(g, 2);
  EXPECT_EQ(base, reference::count_triangles(g));
  EXPECT_EQ(count_with_cpu(permuted, 2), base);
  EXPECT_EQ(count_with_cpu(permuted, 3, 3), base);
}

TEST(CpuBackend, SkewedGraphWithHubs) {
  // A few hubs joined to everything plus a random background: long rows, unequal work.
  EdgePairs g = random_graph(3000, 15000, 5);
  for (std::uint64_t hub = 0; hub < 4; ++hub)
    for (std::uint64_t x = 4; x < 3000; x += 1 + hub) g.emplace_back(hub, x);
  const std::uint64_t expected = reference::count_triangles(g);
  for (std::uint32_t n : {1u, 2u, 3u}) EXPECT_EQ(count_with_cpu(g, n, 2), expected);
}
