// Re-blocking (tricount-count --count-parts): an n-part graph's blocks re-blocked into n_c
// parts on the host (worker/reblock.hpp) are exactly the blocks of the same graph partitioned
// into n_c parts, on graphs with hubs, empty rows and classes of unequal sizes.
#include <gtest/gtest.h>

#include "src/task_plan.hpp"
#include "tests/test_support.hpp"
#include "worker/reblock.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

void expect_same(const CsrBlock& got, const CsrBlock& want, const std::string& what) {
  ASSERT_EQ(got.rows, want.rows) << what;
  EXPECT_EQ(got.cols, want.cols) << what;
  EXPECT_EQ(got.max_degree, want.max_degree) << what;
  EXPECT_TRUE(std::equal(got.offsets.begin(), got.offsets.end(), want.offsets.begin(), want.offsets.end())) << what;
  EXPECT_TRUE(std::equal(got.neighbors.begin(), got.neighbors.end(), want.neighbors.begin(), want.neighbors.end())) << what;
}

TEST(Reblock, EqualsTheBlocksOfFewerParts) {
  for (const EdgePairs& edges : {mixed_graph(5), random_graph(301, 4000, 9), star(50)}) {
    const PartitionedGraph fine = partition_graph(edges, 6);
    for (std::uint32_t c : {1u, 2u, 3u, 6u}) {
      const PartitionedGraph coarse = partition_graph(edges, c);
      const std::uint32_t g = 6 / c;
      for (std::uint32_t i = 0; i < c; ++i)
        for (std::uint32_t k = 0; k < c; ++k) {
          std::vector<CsrSpan> parts;
          for (const BlockId& f : file_blocks_of({i, k}, c, g)) parts.push_back(fine.block(f.row_class, f.col_class).span());
          const CsrBlock& want = coarse.block(i, k);
          for (unsigned threads : {1u, 3u})
            expect_same(reblock(parts, {i, k}, want.rows, want.cols, g, threads), want,
                        "P'(" + std::to_string(i) + "," + std::to_string(k) + ") of " + std::to_string(c) + " parts");
        }
    }
  }
}

TEST(Reblock, WrongNumberOfBlocksIsAnError) {
  const PartitionedGraph fine = partition_graph(random_graph(50, 200, 1), 2);
  EXPECT_THROW(reblock({fine.block(0, 0).span()}, {0, 0}, 50, 50, 2, 1), Error);
}

}  // namespace
