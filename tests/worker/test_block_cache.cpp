// The block cache's share of the node's checks (NodeBlockChecks), in one process: two
// caches over one record stand for two workers of a node.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "partitioner/partition.hpp"
#include "tests/test_support.hpp"
#include "worker/block_cache.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

std::string write_graph(const TempDir& dir, std::uint32_t parts) {
  PartitionOptions o;
  o.parts = parts;
  const std::string path = dir.file("g.h5");
  write_block_file(partition_edges(to_raw(random_graph(3000, 60000, 5)), o), path);  // blocks large enough to map
  BlockFileReader reader(path);
  for (std::uint32_t i = 0; i < parts; ++i)
    for (std::uint32_t j = 0; j < parts; ++j) EXPECT_TRUE(reader.map_block({i, j}).has_value());
  return path;
}

}  // namespace

TEST(NodeBlockChecks, TheSecondWorkerOfANodeUsesTheBlocksTheFirstChecked) {
  TempDir dir;
  const std::string path = write_graph(dir, 2);
  BlockFileReader first_file(path), second_file(path);
  std::vector<std::uint32_t> states(4, 0);
  NodeBlockChecks record(states.data(), 2);
  BlockCache first(first_file, 1u << 30, 1, true, &record), second(second_file, 1u << 30, 2, true, &record);
  double seconds = 0;
  std::uint64_t bytes = 0;
  for (std::uint32_t i = 0; i < 2; ++i)
    for (std::uint32_t j = 0; j < 2; ++j) first.get({i, j}, seconds, bytes);
  EXPECT_EQ(first.checks().blocks, 4u);
  EXPECT_EQ(first.checks().bytes, bytes);
  for (std::uint32_t i = 0; i < 2; ++i)
    for (std::uint32_t j = 0; j < 2; ++j) {
      const auto mine = second.get({i, j}, seconds, bytes);
      const CsrBlock read = second_file.read_block({i, j});
      EXPECT_EQ(std::vector<vid_t>(mine->span().neighbors, mine->span().neighbors + mine->span().nnz),
                std::vector<vid_t>(read.neighbors.begin(), read.neighbors.end()));
    }
  EXPECT_EQ(second.checks().blocks, 0u);
  EXPECT_EQ(second.checks().bytes, 0u);
}

// A bad block is refused by the worker that checks it and by every other that needs it
// (each checks it itself, for the message); the record never says good.
TEST(NodeBlockChecks, ACorruptBlockIsRefusedByEveryWorkerOfTheNode) {
  TempDir dir;
  const std::string path = write_graph(dir, 2);
  corrupt_block_neighbors(path, {1, 0});
  BlockFileReader first_file(path), second_file(path);
  std::vector<std::uint32_t> states(4, 0);
  NodeBlockChecks record(states.data(), 2);
  for (BlockFileReader* file : {&first_file, &second_file}) {
    BlockCache cache(*file, 1u << 30, 1, true, &record);
    double seconds = 0;
    std::uint64_t bytes = 0;
    try {
      cache.get({1, 0}, seconds, bytes);
      FAIL() << "expected a checksum mismatch";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path + "' block P(1,0): checksum mismatch"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(cache.get({0, 1}, seconds, bytes));  // the others are still good
  }
}

// Every loaded block knows its rows with a neighbour (the CUDA backend's plans average
// over those): the same count as a walk over the read block's offsets.
TEST(BlockCache, ALoadedBlockCountsItsNonEmptyRows) {
  TempDir dir;
  const std::string path = write_graph(dir, 2);
  BlockFileReader file(path);
  BlockCache cache(file, 1u << 30, 2);
  double seconds = 0;
  std::uint64_t bytes = 0;
  for (std::uint32_t i = 0; i < 2; ++i)
    for (std::uint32_t j = 0; j < 2; ++j) {
      const CsrBlock read = file.read_block({i, j});
      std::uint64_t want = 0;
      for (std::uint64_t r = 0; r < read.rows; ++r) want += read.offsets[r + 1] != read.offsets[r];
      const auto loaded = cache.get({i, j}, seconds, bytes);
      EXPECT_EQ(loaded->nonempty_rows, want) << block_name({i, j});
      EXPECT_EQ(loaded->view().nonempty_rows, want);
      EXPECT_EQ(count_nonempty_rows(read.span(), 3), want);
      EXPECT_GT(want, 0u);
      EXPECT_LT(want, read.rows + 1);
    }
}

