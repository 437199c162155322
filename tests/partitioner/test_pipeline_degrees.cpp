// The partitioner stores each vertex's degree (/degrees): for both orders, several parts,
// runs in memory and on disk, and any thread count, the stored degrees are those the blocks
// imply (degrees_of_blocks: row lengths plus appearances as a neighbour).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "partitioner/partition.hpp"
#include "src/block_format.hpp"
#include "src/task_plan.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

TEST(PipelineDegrees, TheStoredDegreesAreThoseOfTheBlocks) {
  TempDir dir;
  EdgePairs edges = random_graph(3000, 20000, 17);
  edges.emplace_back(5, 5);                         // a self-loop, dropped
  edges.emplace_back(edges[0].second, edges[0].first);  // a duplicate, reversed
  write_text_edges(dir.file("g.txt"), edges);
  for (const VertexOrder order : {VertexOrder::Degree, VertexOrder::Collective})
    for (const std::uint32_t n : {1u, 3u})
      for (const bool disk : {false, true}) {
        SCOPED_TRACE("n " + std::to_string(n) + (order == VertexOrder::Degree ? " degree" : " collective") +
                     (disk ? " runs on disk" : " runs in memory"));
        PartitionOptions o;
        o.parts = n;
        o.order = order;
        o.threads = disk ? 2 : 0;
        o.runs_on_disk = disk;
        o.memory_budget = disk ? 4 << 20 : 0;
        o.tmpdir = dir.path();
        const std::string out = dir.file("g.h5");
        partition_file(dir.file("g.txt"), InputFormat::Auto, out, o);
        const BlockFileReader f(out);
        ASSERT_TRUE(f.has_degrees());
        PartitionedGraph g;
        g.header = f.header();
        for (std::uint32_t i = 0; i < n; ++i)
          for (std::uint32_t j = 0; j < n; ++j) g.blocks.push_back(f.read_block({i, j}));
        const std::vector<std::uint32_t> expected = degrees_of_blocks(g);
        for (std::uint32_t c = 0; c < n; ++c) {
          const std::vector<std::uint64_t> got = f.read_degrees_class(c);
          ASSERT_EQ(got.size(), rows_in_class(g.header.vertices, n, c));
          for (std::uint64_t r = 0; r < got.size(); ++r) ASSERT_EQ(got[r], expected[r * n + c]) << "vertex " << r * n + c;
        }
      }
}

}  // namespace
