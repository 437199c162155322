// --load-path forward's plan (count/block_forward.hpp), in process: each block a worker needs
// read by exactly one rank that needs it, reaching each other node that needs it once (from
// the reader), and the node's other workers from within their node; the reads spread over the
// nodes.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "count/block_forward.hpp"
#include "scheduler/task_queue.hpp"

namespace tricount {
namespace {

TEST(ForwardPlan, EachBlockReadOnceAndEnteringEachNodeOnce) {
  const TaskPlan plan(6, 2);
  std::vector<std::uint64_t> work(216);
  for (std::size_t x = 0; x < work.size(); ++x) work[x] = (x * 7919) % 997 + 1;
  const TaskQueue q(plan, work, {});
  const int ranks = 9, per_node = 2;  // rank 0 schedules; nodes {0,1}, {2,3}, {4,5}, {6,7}, {8}
  std::vector<int> node_of_rank;
  for (int r = 0; r < ranks; ++r) node_of_rank.push_back(r / per_node);
  const TaskQueue::StaticAssignment a = q.assign_static_nodes({1, 2, 2, 2, 1});
  std::vector<std::vector<std::uint64_t>> assigned(1);
  assigned.insert(assigned.end(), a.tasks.begin(), a.tasks.end());
  std::vector<std::uint64_t> bytes(36);
  for (std::size_t b = 0; b < bytes.size(); ++b) bytes[b] = 1000 + 37 * b;
  const ForwardPlan p = plan_forwarding(plan, assigned, node_of_rank, bytes);
  ASSERT_EQ(p.triples.size() % 3, 0u);
  // Per block: needer -> source.
  std::map<std::uint64_t, std::map<int, std::int64_t>> by_block;
  for (std::size_t e = 0; e < p.triples.size(); e += 3)
    EXPECT_TRUE(by_block[p.triples[e]].emplace(static_cast<int>(p.triples[e + 1]), static_cast<std::int64_t>(p.triples[e + 2])).second);
  std::vector<std::uint64_t> read_by_node(5, 0);
  for (const auto& [block, sources] : by_block) {
    SCOPED_TRACE("block " + std::to_string(block));
    // The needers are exactly the ranks whose tasks use the block.
    std::set<int> needers;
    for (int r = 0; r < ranks; ++r)
      for (std::uint64_t id : assigned[static_cast<std::size_t>(r)])
        for (const BlockId& b : plan.decode(id).blocks())
          if (std::uint64_t(b.row_class) * 6 + b.col_class == block) needers.insert(r);
    std::set<int> planned;
    for (const auto& [r, s] : sources) planned.insert(r);
    EXPECT_EQ(planned, needers);
    int readers = 0, reader = -1;
    for (const auto& [r, s] : sources)
      if (s == -1) ++readers, reader = r;
    ASSERT_EQ(readers, 1) << "read from the file once";
    read_by_node[static_cast<std::size_t>(node_of_rank[static_cast<std::size_t>(reader)])] += bytes[block];
    std::map<int, int> entering;  // node -> ranks receiving from another node
    for (const auto& [r, s] : sources) {
      if (s < 0) continue;
      EXPECT_TRUE(sources.count(static_cast<int>(s))) << "a source needs the block itself";
      const int node = node_of_rank[static_cast<std::size_t>(r)], from = node_of_rank[static_cast<std::size_t>(s)];
      if (node != from) {
        ++entering[node];
        EXPECT_EQ(s, reader) << "between nodes, from the reader";
      } else {
        EXPECT_TRUE(s == reader || sources.at(static_cast<int>(s)) == reader) << "within a node, from its holder";
      }
    }
    for (const auto& [node, count] : entering) EXPECT_EQ(count, 1) << "node " << node;
  }
  EXPECT_EQ(by_block.size(), 36u);
  for (int node = 0; node < 5; ++node) EXPECT_GT(read_by_node[static_cast<std::size_t>(node)], 0u) << "node " << node << " reads";
}

}  // namespace
}  // namespace tricount
