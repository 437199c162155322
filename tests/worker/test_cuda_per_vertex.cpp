// Per-vertex counting on the CUDA backend (CountBackend::start_per_vertex and
// take_vertex_counts) against a brute-force per-vertex reference computed here from the same
// blocks (label gpu: every test is reported as skipped on a machine without a GPU).
//
// The reference rebuilds the undirected graph from the blocks (vertex = its class and local
// id) and lists every triangle by sorted-list intersection, adding 1 to each of its three
// vertices; it shares no code with either backend. Its total is also checked against
// reference::count_triangles on the input edges. Every kernel path is forced with
// CudaTuning fields and the CTA threshold, as test_cuda_backend.cpp does for the count.
// The per-vertex benchmark driver is bench/cuda_bench.cpp (cuda_bench per-vertex).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "input/generators.hpp"
#include "partitioner/partition.hpp"
#include "src/block_format.hpp"
#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"
#include "tests/worker/cuda_paths.hpp"
#include "worker/backend.hpp"
#include "worker/block_cache.hpp"

namespace tricount {
namespace {

using testing::EdgePairs;
using testing::cuda_backend;
using testing::mixed_graph;
using testing::next_serial_base;

std::vector<std::uint64_t> class_sizes(const PartitionedGraph& g) {
  std::vector<std::uint64_t> sizes;
  for (std::uint32_t c = 0; c < g.header.parts; ++c) sizes.push_back(g.block(c, 0).rows);
  return sizes;
}

// Per-vertex counts of every class, concatenated in class order, and the total.
struct PerVertex {
  std::vector<count_t> counts;
  count_t triangles = 0;
};

// The brute-force reference from the blocks: vertex (c, l) is offset[c] + l.
PerVertex reference_per_vertex(const PartitionedGraph& g) {
  const std::uint32_t n = g.header.parts;
  const std::vector<std::uint64_t> sizes = class_sizes(g);
  std::vector<std::uint64_t> offset(n + 1, 0);
  for (std::uint32_t c = 0; c < n; ++c) offset[c + 1] = offset[c] + sizes[c];
  std::vector<std::vector<std::uint64_t>> higher(offset[n]);  // neighbours with a larger global id
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) {
      const CsrBlock& b = g.block(i, j);
      for (std::uint64_t r = 0; r < b.rows; ++r)
        for (eoff_t e = b.offsets[r]; e < b.offsets[r + 1]; ++e) {
          const std::uint64_t a = offset[i] + r, z = offset[j] + b.neighbors[e];
          higher[std::min(a, z)].push_back(std::max(a, z));
        }
    }
  for (auto& list : higher) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  PerVertex ref;
  ref.counts.assign(offset[n], 0);
  for (std::uint64_t a = 0; a < higher.size(); ++a)
    for (std::uint64_t b : higher[a]) {
      const auto& la = higher[a];
      const auto& lb = higher[b];
      std::size_t p = 0, q = 0;
      while (p < la.size() && q < lb.size()) {
        if (la[p] < lb[q]) ++p;
        else if (lb[q] < la[p]) ++q;
        else {
          ++ref.counts[a];
          ++ref.counts[b];
          ++ref.counts[la[p]];
          ++ref.triangles;
          ++p;
          ++q;
        }
      }
    }
  return ref;
}

// Every task of TaskPlan(n, splits) with per-vertex counting on.
PerVertex count_per_vertex(const PartitionedGraph& g, std::uint32_t splits, CountBackend& gpu) {
  const std::uint32_t n = g.header.parts;
  const std::uint64_t base = next_serial_base();
  gpu.start_per_vertex(class_sizes(g));
  const TaskPlan plan(n, splits);
  PerVertex got;
  CountStats stats;
  for (std::uint64_t id = 0; id < plan.num_tasks(); ++id) {
    const Task t = plan.decode(id);
    auto v = [&](std::uint32_t i, std::uint32_t j) { return make_block_view(g.block(i, j), base + std::uint64_t(i) * n + j); };
    got.triangles += gpu.count(TaskBlocks{v(t.i, t.k), v(t.i, t.j), v(t.j, t.k), t.split, splits}, stats);
  }
  for (std::uint32_t c = 0; c < n; ++c) {
    const std::vector<count_t> part = gpu.take_vertex_counts(c);
    got.counts.insert(got.counts.end(), part.begin(), part.end());
  }
  return got;
}

// Equal per-vertex counts; on a difference, how many and the first few.
void expect_same(const PerVertex& got, const PerVertex& want, const std::string& what) {
  EXPECT_EQ(got.triangles, want.triangles) << what << ": the count itself";
  ASSERT_EQ(got.counts.size(), want.counts.size()) << what;
  std::uint64_t wrong = 0;
  std::string first;
  for (std::size_t x = 0; x < want.counts.size(); ++x)
    if (got.counts[x] != want.counts[x] && ++wrong <= 5)
      first += " vertex " + std::to_string(x) + ": " + std::to_string(got.counts[x]) + " want " + std::to_string(want.counts[x]) + ";";
  EXPECT_EQ(wrong, 0u) << what << ":" << first;
}

// Per-vertex counts equal the reference for n = 1..max_parts and m = 1..max_splits, and the
// reference's total equals the input edges' independent count.
void expect_all_layouts(const EdgePairs& edges, CountBackend& gpu, const std::string& what, std::uint32_t max_parts = 4,
                        std::uint32_t max_splits = 3) {
  const count_t total = reference::count_triangles(edges);
  for (std::uint32_t n = 1; n <= max_parts; ++n) {
    const PartitionedGraph g = testing::partition_graph(edges, n);
    const PerVertex want = reference_per_vertex(g);
    ASSERT_EQ(want.triangles, total) << what << ": the per-vertex reference disagrees with reference::count_triangles";
    for (std::uint32_t m = 1; m <= max_splits; ++m)
      expect_same(count_per_vertex(g, m, gpu), want, what + ", n=" + std::to_string(n) + " m=" + std::to_string(m));
  }
}

EdgePairs wheel(std::uint64_t rim) {  // hub 0 and a cycle 1..rim: the hub in rim triangles, each rim vertex in 2
  EdgePairs e;
  for (std::uint64_t k = 1; k <= rim; ++k) {
    e.emplace_back(0, k);
    e.emplace_back(k, k == rim ? 1 : k + 1);
  }
  return e;
}

TEST(CudaPerVertex, HandMadeGraphs) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend();
  for (std::uint64_t n : {3, 4, 5, 17, 101, 260}) expect_all_layouts(testing::complete_graph(n), *gpu, "K_" + std::to_string(n));
  expect_all_layouts(testing::star(300), *gpu, "star");
  expect_all_layouts(wheel(5), *gpu, "wheel 5");
  expect_all_layouts(wheel(2000), *gpu, "wheel 2000");
  expect_all_layouts({{0, 1}, {1, 2}, {0, 2}, {1, 3}, {2, 3}}, *gpu, "two triangles sharing an edge");
  expect_all_layouts({{0, 1}, {1, 2}, {0, 2}, {7, 8}, {20, 21}, {21, 22}}, *gpu, "triangle, lone edge, path");
}

TEST(CudaPerVertex, ClosedForms) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend();
  // K_n: every vertex in C(n-1, 2) triangles (K_3000: rows of 2999 keys overflow the CTA tally).
  for (std::uint64_t n : {4ull, 260ull, 3000ull})
    for (std::uint32_t parts : {1u, 2u}) {
      const PartitionedGraph g = testing::partition_graph(testing::complete_graph(n), parts);
      const PerVertex got = count_per_vertex(g, 1, *gpu);
      EXPECT_EQ(got.triangles, n * (n - 1) * (n - 2) / 6) << "K_" << n;
      ASSERT_EQ(got.counts.size(), n);
      for (std::uint64_t x = 0; x < n; ++x) ASSERT_EQ(got.counts[x], (n - 1) * (n - 2) / 2) << "K_" << n << " vertex " << x;
    }
  // Wheel: the hub in rim triangles, every rim vertex in 2.
  const std::uint64_t rim = 100000;
  const PartitionedGraph g = testing::partition_graph(wheel(rim), 3);
  const PerVertex got = count_per_vertex(g, 2, *gpu);
  EXPECT_EQ(got.triangles, rim);
  std::vector<count_t> sorted = got.counts;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted.back(), rim);
  EXPECT_EQ(std::count(sorted.begin(), sorted.end(), count_t{2}), std::ptrdiff_t(rim));
}

TEST(CudaPerVertex, RandomGraphs) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend();
  for (std::uint64_t seed : {1, 2}) expect_all_layouts(testing::random_graph(800, 12000, seed), *gpu, "random " + std::to_string(seed));
  expect_all_layouts(mixed_graph(3), *gpu, "mixed");
}

TEST(CudaPerVertex, ForcedPaths) {
  TRICOUNT_REQUIRE_GPU();
  const std::vector<testing::ForcedPath> paths = testing::per_element_paths();
  const EdgePairs mixed = mixed_graph(5);
  const EdgePairs k = testing::complete_graph(400);
  for (const testing::ForcedPath& path : paths) {
    SCOPED_TRACE(path.name);
    auto gpu = cuda_backend(path.tuning, path.threshold);
    expect_all_layouts(mixed, *gpu, std::string(path.name) + ", mixed", 2, 2);
    expect_all_layouts(k, *gpu, std::string(path.name) + ", K_400", 2, 1);
  }
  // Short rows: the thread-per-row kernel, the filter kernel and the warp kernel (a
  // triangular lattice, degrees at most 6; a circulant graph with a row of 8 at n = 1).
  const EdgePairs lattice = testing::triangular_lattice(120, 80);
  const EdgePairs ring = testing::circulant(1000, 4);
  for (const auto& [what, tuning] : testing::short_row_kernels()) {
    auto gpu = cuda_backend(tuning);
    expect_all_layouts(lattice, *gpu, std::string("lattice, ") + what, 3, 3);
    expect_all_layouts(ring, *gpu, std::string("circulant, ") + what, 3, 2);
  }
}

// A skewed graph: CTA rows with bitmaps and tables, the v side, the reverse search, all
// with per-vertex counting, at n = 1 and 3 and 2 splits (and 1 and 3 splits at n = 2).
TEST(CudaPerVertex, KroneckerWithEveryProbePath) {
  TRICOUNT_REQUIRE_GPU();
  KroneckerSpec k;
  k.scale = 14;
  std::vector<PartitionedGraph> graphs;
  for (std::uint32_t n : {1u, 2u, 3u}) {
    auto src = make_kronecker_source(k);
    PartitionOptions o;
    o.parts = n;
    graphs.push_back(partition_edges(*src, o));
  }
  std::vector<PerVertex> want;
  for (const PartitionedGraph& g : graphs) want.push_back(reference_per_vertex(g));
  for (std::size_t g = 1; g < graphs.size(); ++g) ASSERT_EQ(want[g].triangles, want[0].triangles);
  const std::vector<CudaTuning> settings = testing::per_element_kronecker_settings();
  for (std::size_t s = 0; s < settings.size(); ++s)
    for (std::uint32_t threshold : {100u, 20u}) {
      auto gpu = cuda_backend(settings[s], threshold);
      for (std::size_t g = 0; g < graphs.size(); ++g)
        for (std::uint32_t m : g == 1 ? std::vector<std::uint32_t>{1, 3} : std::vector<std::uint32_t>{2})
          expect_same(count_per_vertex(graphs[g], m, *gpu), want[g],
                      "setting " + std::to_string(s) + " threshold " + std::to_string(threshold) + " n=" +
                          std::to_string(graphs[g].header.parts) + " m=" + std::to_string(m));
    }
}

TEST(CudaPerVertex, UntouchedClassesAreZeroAndCountsStartAgain) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend();
  const PartitionedGraph g = testing::partition_graph(testing::complete_graph(30), 3);
  const PartitionedGraph two = testing::partition_graph({{0, 2}, {2, 4}, {0, 4}, {1, 3}}, 2);  // triangle 0,2,4; edge 1-3
  const PerVertex want = reference_per_vertex(two);
  expect_same(count_per_vertex(two, 1, *gpu), want, "two classes");
  // No subtask at all: every class all zero, of its size.
  gpu->start_per_vertex(class_sizes(g));
  for (std::uint32_t c = 0; c < 3; ++c) {
    const std::vector<count_t> zero = gpu->take_vertex_counts(c);
    EXPECT_EQ(zero.size(), g.block(c, 0).rows);
    EXPECT_EQ(std::count(zero.begin(), zero.end(), count_t{0}), std::ptrdiff_t(zero.size())) << "class " << c;
  }
  // Started again: the counts of the second run are not added to the first's.
  const PerVertex want30 = reference_per_vertex(g);
  expect_same(count_per_vertex(g, 2, *gpu), want30, "K_30, first");
  expect_same(count_per_vertex(g, 2, *gpu), want30, "K_30, again");
  // The plain count of a backend never started is unaffected.
  auto plain = cuda_backend();
  CountStats s;
  count_t total = 0;
  const TaskPlan plan(3, 1);
  const std::uint64_t base = next_serial_base();
  for (std::uint64_t id = 0; id < plan.num_tasks(); ++id) {
    const Task t = plan.decode(id);
    auto v = [&](std::uint32_t i, std::uint32_t j) { return make_block_view(g.block(i, j), base + i * 3 + j); };
    total += plain->count(TaskBlocks{v(t.i, t.k), v(t.i, t.j), v(t.j, t.k), 0, 1}, s);
  }
  EXPECT_EQ(total, 30u * 29 * 28 / 6);
}

TEST(CudaPerVertex, ClassSizesThatDisagreeWithTheBlocksAreAnError) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend();
  const PartitionedGraph g = testing::partition_graph(testing::complete_graph(10), 2);
  std::vector<std::uint64_t> sizes = class_sizes(g);
  sizes[1] += 1;
  gpu->start_per_vertex(sizes);
  const std::uint64_t base = next_serial_base();
  auto v = [&](std::uint32_t i, std::uint32_t j) { return make_block_view(g.block(i, j), base + i * 2 + j); };
  CountStats s;
  try {
    gpu->count(TaskBlocks{v(0, 1), v(0, 1), v(1, 1), 0, 1}, s);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("class sizes"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gpu->take_vertex_counts(2), Error);
}

}  // namespace
}  // namespace tricount
