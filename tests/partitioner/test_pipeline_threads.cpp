// The pipeline's vertex-sized steps on several threads (issue 30): the degree and collective
// orders, the index over sparse input ids, and the estimate stage's column ranges give what
// one thread gives. Their threads start only past about 2^18 vertices (a thread per MiB of
// array), so the graphs here are larger than the pinned-digest tests' (Kronecker 13).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "input/generators.hpp"
#include "partitioner/id_index.hpp"
#include "partitioner/partition.hpp"
#include "partitioner/reorder.hpp"
#include "tests/partitioner/pipeline_checks.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

// Degrees of a heavy tail: most small, some past any per-thread count table (up to 2^22).
std::vector<vid_t> tailed_degrees(std::uint64_t v, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<vid_t> d(v);
  for (vid_t& x : d) {
    const std::uint64_t r = rng();
    x = static_cast<vid_t>(r % 100 < 90 ? r % 17 : r % 100 < 99 ? r % 5000 : r % (std::uint64_t{1} << 22));
  }
  return d;
}

template <class Array>
std::vector<vid_t> as_vector(const Array& a) {
  return std::vector<vid_t>(a.begin(), a.end());
}

}  // namespace

TEST(PipelineThreads, DegreeOrderIsTheStableSortOnAnyThreads) {
  for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{3} << 20}) {
    const std::vector<vid_t> degree = tailed_degrees(v, 5);
    // Reference: ranks by (degree, x).
    std::vector<vid_t> order(v), want(v);
    std::iota(order.begin(), order.end(), vid_t{0});
    std::stable_sort(order.begin(), order.end(), [&](vid_t a, vid_t b) { return degree[a] < degree[b]; });
    for (std::uint64_t r = 0; r < v; ++r) want[order[r]] = static_cast<vid_t>(r);
    for (unsigned threads : {1u, 2u, 7u}) {
      SCOPED_TRACE(std::to_string(v) + " vertices, threads " + std::to_string(threads));
      EXPECT_TRUE(as_vector(degree_order(degree, threads)) == want);
    }
  }
}

TEST(PipelineThreads, CollectiveOrderIsTheSortOnAnyThreads) {
  const std::uint64_t v = std::uint64_t{1} << 21;
  std::mt19937_64 rng(9);
  std::vector<std::uint64_t> collective(v);
  std::vector<vid_t> out_degree(v);
  for (std::uint64_t x = 0; x < v; ++x) {
    out_degree[x] = static_cast<vid_t>(rng() % 20);  // many ties, broken by the out-degree, then x
    collective[x] = out_degree[x] + rng() % 50;
  }
  std::vector<vid_t> order(v), want(v);
  std::iota(order.begin(), order.end(), vid_t{0});
  std::sort(order.begin(), order.end(), [&](vid_t a, vid_t b) {
    return std::tie(collective[a], out_degree[a], a) < std::tie(collective[b], out_degree[b], b);
  });
  for (std::uint64_t r = 0; r < v; ++r) want[order[r]] = static_cast<vid_t>(r);
  for (unsigned threads : {1u, 8u}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    EXPECT_TRUE(as_vector(collective_order(collective, out_degree, threads)) == want);
  }
}

TEST(PipelineThreads, IdIndexOnAnyThreadsFindsEveryId) {
  // Dense ids (a direct table) and sparse ones (a table over the high bits, then a search).
  for (std::uint64_t stride : {std::uint64_t{3}, std::uint64_t{1000003}}) {
    std::mt19937_64 rng(stride);
    std::vector<raw_id_t> ids;
    for (raw_id_t id = 7; ids.size() < (std::uint64_t{3} << 19); id += 1 + rng() % stride) ids.push_back(id);
    for (unsigned threads : {1u, 6u}) {
      SCOPED_TRACE("stride " + std::to_string(stride) + ", threads " + std::to_string(threads));
      const pipeline::IdIndex index(ids, std::uint64_t{1} << 30, threads);
      EXPECT_EQ(index.direct(), stride == 3);
      std::uint64_t wrong = 0;
      for (std::uint64_t p = 0; p < ids.size(); ++p) wrong += index(ids[p]) != p;
      EXPECT_EQ(wrong, 0u);
    }
  }
}

TEST(PipelineThreads, ManyVerticesGiveOneFileOnAnyThreads) {
  // 400,000 vertices, few edges each: the estimate cuts one block's columns into ranges, the
  // vertex arrays are filled on several threads; a bin64 file (read by index) against the
  // same edges streamed on one thread.
  TempDir dir;
  const std::vector<RawEdge> raw = to_raw(random_graph(400000, 600000, 17));
  const std::string bin = dir.file("g.bin64");
  {
    VectorSource src(raw);
    write_edge_file(src, bin, EdgeFileKind::Bin64);
  }
  for (std::uint32_t n : {1u, 3u}) {
    for (VertexOrder order : {VertexOrder::Degree, VertexOrder::Collective}) {
      SCOPED_TRACE("--parts " + std::to_string(n) + " --order " + std::string(to_string(order)));
      PartitionOptions o;
      o.parts = n;
      o.order = order;
      o.tmpdir = dir.path();
      o.threads = 1;
      write_in_memory(raw, o, dir.file("one.h5"));
      o.threads = 5;
      partition_file(bin, InputFormat::Auto, dir.file("file.h5"), o);
      expect_same_blocks(dir.file("one.h5"), dir.file("file.h5"), true);
    }
  }
}
