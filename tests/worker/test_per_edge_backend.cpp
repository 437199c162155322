// Per-edge counting in a backend (CountBackend::start_per_edge and take_edge_counts) against a
// brute-force per-edge reference computed here from the same blocks.
//
// The reference rebuilds the undirected graph from the blocks (vertex = its class and local
// id), lists every triangle by sorted-list intersection and adds 1 to each of its three
// edges; it shares no code with either backend. Its total is also checked against
// reference::count_triangles on the input edges, and its supports sum to 3 x that count.
//
// Built twice: test_cpu_per_edge (label unit) with the CPU backend, its kernel's paths
// forced with CpuTuning; test_cuda_per_edge (TRICOUNT_PER_EDGE_CUDA, label gpu) with the
// CUDA backend, which skips every test, saying so, without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
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
using testing::next_serial_base;

#ifdef TRICOUNT_PER_EDGE_CUDA
#define PerEdgeBackend CudaPerEdge
#define REQUIRE_BACKEND() TRICOUNT_REQUIRE_GPU()
std::unique_ptr<CountBackend> backend(const CpuTuning& = {}, unsigned = 2) { return testing::cuda_backend(); }
#else
#define PerEdgeBackend CpuPerEdge
#define REQUIRE_BACKEND() (void)0
std::unique_ptr<CountBackend> backend(const CpuTuning& tuning = {}, unsigned threads = 2) {
  BackendOptions o;
  o.threads = threads;
  o.cpu_tuning = tuning;
  return make_cpu_backend(o);
}
#endif

std::vector<std::uint64_t> block_sizes(const PartitionedGraph& g) {
  std::vector<std::uint64_t> nnz;
  for (std::uint32_t i = 0; i < g.header.parts; ++i)
    for (std::uint32_t j = 0; j < g.header.parts; ++j) nnz.push_back(g.block(i, j).nnz());
  return nnz;
}

// Per-edge counts of every block, concatenated in block order (row-major), and the total.
struct PerEdge {
  std::vector<edge_count_t> counts;
  count_t triangles = 0;
};

// The brute-force reference from the blocks: vertex (c, l) is offset[c] + l.
PerEdge reference_per_edge(const PartitionedGraph& g) {
  const std::uint32_t n = g.header.parts;
  std::vector<std::uint64_t> offset(n + 1, 0);
  for (std::uint32_t c = 0; c < n; ++c) offset[c + 1] = offset[c] + g.block(c, 0).rows;
  auto ends = [&](std::uint32_t i, std::uint32_t j, std::uint64_t r, eoff_t e) {
    const std::uint64_t a = offset[i] + r, z = offset[j] + g.block(i, j).neighbors[e];
    return std::pair(std::min(a, z), std::max(a, z));
  };
  std::vector<std::vector<std::uint64_t>> higher(offset[n]);  // neighbours with a larger global id
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) {
      const CsrBlock& b = g.block(i, j);
      for (std::uint64_t r = 0; r < b.rows; ++r)
        for (eoff_t e = b.offsets[r]; e < b.offsets[r + 1]; ++e) higher[ends(i, j, r, e).first].push_back(ends(i, j, r, e).second);
    }
  for (auto& list : higher) std::sort(list.begin(), list.end());
  std::map<std::pair<std::uint64_t, std::uint64_t>, edge_count_t> support;
  PerEdge ref;
  for (std::uint64_t a = 0; a < higher.size(); ++a)
    for (std::uint64_t b : higher[a]) {
      const auto& la = higher[a];
      const auto& lb = higher[b];
      std::size_t p = 0, q = 0;
      while (p < la.size() && q < lb.size()) {
        if (la[p] < lb[q]) ++p;
        else if (lb[q] < la[p]) ++q;
        else {
          ++support[{a, b}], ++support[{a, la[p]}], ++support[{b, la[p]}];
          ++ref.triangles;
          ++p, ++q;
        }
      }
    }
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) {
      const CsrBlock& b = g.block(i, j);
      for (std::uint64_t r = 0; r < b.rows; ++r)
        for (eoff_t e = b.offsets[r]; e < b.offsets[r + 1]; ++e) {
          const auto it = support.find(ends(i, j, r, e));
          ref.counts.push_back(it == support.end() ? 0 : it->second);
        }
    }
  return ref;
}

// Every task of TaskPlan(n, splits) with per-edge (and, if asked, per-vertex) counting on.
PerEdge count_per_edge(const PartitionedGraph& g, std::uint32_t splits, CountBackend& be, bool per_vertex = false) {
  const std::uint32_t n = g.header.parts;
  const std::uint64_t base = next_serial_base();
  be.start_per_edge(n, block_sizes(g));
  if (per_vertex) {
    std::vector<std::uint64_t> sizes;
    for (std::uint32_t c = 0; c < n; ++c) sizes.push_back(g.block(c, 0).rows);
    be.start_per_vertex(sizes);
  }
  const TaskPlan plan(n, splits);
  PerEdge got;
  CountStats stats;
  for (std::uint64_t id = 0; id < plan.num_tasks(); ++id) {
    const Task t = plan.decode(id);
    auto v = [&](std::uint32_t i, std::uint32_t j) { return make_block_view(g.block(i, j), base + std::uint64_t(i) * n + j); };
    got.triangles += be.count(TaskBlocks{v(t.i, t.k), v(t.i, t.j), v(t.j, t.k), t.split, splits}, stats);
  }
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) {
      const std::vector<edge_count_t> part = be.take_edge_counts({i, j});
      EXPECT_EQ(part.size(), g.block(i, j).nnz()) << "P(" << i << "," << j << ")";
      got.counts.insert(got.counts.end(), part.begin(), part.end());
    }
  if (per_vertex) {
    // Each vertex's triangles are half the supports of its edges (the supports themselves are
    // checked against the reference by the caller), and they sum to 3 x the count.
    std::vector<std::vector<count_t>> twice(n);
    for (std::uint32_t c = 0; c < n; ++c) twice[c].assign(g.block(c, 0).rows, 0);
    std::size_t at = 0;
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = 0; j < n; ++j) {
        const CsrBlock& b = g.block(i, j);
        for (std::uint64_t r = 0; r < b.rows; ++r)
          for (eoff_t e = b.offsets[r]; e < b.offsets[r + 1]; ++e, ++at) {
            twice[i][r] += got.counts[at];
            twice[j][b.neighbors[e]] += got.counts[at];
          }
      }
    count_t sum = 0;
    for (std::uint32_t c = 0; c < n; ++c) {
      const std::vector<count_t> counts = be.take_vertex_counts(c);
      EXPECT_EQ(counts.size(), twice[c].size()) << "class " << c;
      if (counts.size() != twice[c].size()) continue;
      std::uint64_t wrong = 0;
      for (std::size_t x = 0; x < counts.size(); ++x) {
        sum += counts[x];
        if (2 * counts[x] != twice[c][x] && ++wrong <= 3)
          ADD_FAILURE() << "class " << c << " vertex " << x << ": " << counts[x] << " triangles, its edges say " << twice[c][x] / 2;
      }
    }
    EXPECT_EQ(sum, 3 * got.triangles) << "per-vertex counts beside per-edge";
  }
  return got;
}

void expect_same(const PerEdge& got, const PerEdge& want, const std::string& what) {
  EXPECT_EQ(got.triangles, want.triangles) << what << ": the count itself";
  ASSERT_EQ(got.counts.size(), want.counts.size()) << what;
  std::uint64_t wrong = 0;
  std::string first;
  for (std::size_t x = 0; x < want.counts.size(); ++x)
    if (got.counts[x] != want.counts[x] && ++wrong <= 5)
      first += " edge " + std::to_string(x) + ": " + std::to_string(got.counts[x]) + " want " + std::to_string(want.counts[x]) + ";";
  EXPECT_EQ(wrong, 0u) << what << ":" << first;
}

// Per-edge counts equal the reference for n = 1..max_parts and m = 1..max_splits; the
// reference's total equals the input edges' independent count and its supports sum to 3 x it.
void expect_all_layouts(const EdgePairs& edges, CountBackend& be, const std::string& what, std::uint32_t max_parts = 4,
                        std::uint32_t max_splits = 3) {
  const count_t total = reference::count_triangles(edges);
  for (std::uint32_t n = 1; n <= max_parts; ++n) {
    const PartitionedGraph g = testing::partition_graph(edges, n);
    const PerEdge want = reference_per_edge(g);
    ASSERT_EQ(want.triangles, total) << what << ": the per-edge reference disagrees with reference::count_triangles";
    count_t sum = 0;
    for (edge_count_t x : want.counts) sum += x;
    ASSERT_EQ(sum, 3 * total) << what;
    for (std::uint32_t m = 1; m <= max_splits; ++m)
      expect_same(count_per_edge(g, m, be), want, what + ", n=" + std::to_string(n) + " m=" + std::to_string(m));
  }
}

EdgePairs wheel(std::uint64_t rim) {  // hub 0 and a cycle 1..rim: spokes in 2 triangles, rim edges in 1
  EdgePairs e;
  for (std::uint64_t k = 1; k <= rim; ++k) {
    e.emplace_back(0, k);
    e.emplace_back(k, k == rim ? 1 : k + 1);
  }
  return e;
}

TEST(PerEdgeBackend, HandMadeGraphs) {
  REQUIRE_BACKEND();
  auto be = backend();
  for (std::uint64_t n : {3, 4, 5, 17, 101}) expect_all_layouts(testing::complete_graph(n), *be, "K_" + std::to_string(n));
  expect_all_layouts(testing::star(300), *be, "star");
  expect_all_layouts(wheel(5), *be, "wheel 5");
  expect_all_layouts(wheel(2000), *be, "wheel 2000", 3, 2);
  expect_all_layouts({{0, 1}, {1, 2}, {0, 2}, {1, 3}, {2, 3}}, *be, "two triangles sharing an edge");
  expect_all_layouts({{0, 1}, {1, 2}, {0, 2}, {7, 8}, {20, 21}, {21, 22}}, *be, "triangle, lone edge, path");
}

TEST(PerEdgeBackend, ClosedForms) {
  REQUIRE_BACKEND();
  auto be = backend();
  // K_n: every edge in n - 2 triangles.
  for (std::uint64_t n : {4ull, 260ull, 700ull})
    for (std::uint32_t parts : {1u, 3u}) {
      const PartitionedGraph g = testing::partition_graph(testing::complete_graph(n), parts);
      const PerEdge got = count_per_edge(g, 2, *be);
      EXPECT_EQ(got.triangles, n * (n - 1) * (n - 2) / 6) << "K_" << n;
      ASSERT_EQ(got.counts.size(), n * (n - 1) / 2);
      EXPECT_EQ(std::count(got.counts.begin(), got.counts.end(), edge_count_t(n - 2)), std::ptrdiff_t(got.counts.size()))
          << "K_" << n << " parts " << parts;
    }
  // Wheel: every spoke in 2 triangles, every rim edge in 1.
  const std::uint64_t rim = 50000;
  const PartitionedGraph g = testing::partition_graph(wheel(rim), 2);
  const PerEdge got = count_per_edge(g, 2, *be);
  EXPECT_EQ(got.triangles, rim);
  EXPECT_EQ(std::count(got.counts.begin(), got.counts.end(), edge_count_t{2}), std::ptrdiff_t(rim));
  EXPECT_EQ(std::count(got.counts.begin(), got.counts.end(), edge_count_t{1}), std::ptrdiff_t(rim));
}

TEST(PerEdgeBackend, RandomAndSkewedGraphs) {
  REQUIRE_BACKEND();
  auto be = backend();
  for (std::uint64_t seed : {1, 2}) expect_all_layouts(testing::random_graph(800, 12000, seed), *be, "random " + std::to_string(seed));
  expect_all_layouts(testing::mixed_graph(3), *be, "mixed", 3, 2);
  KroneckerSpec k;
  k.scale = 12;
  for (std::uint32_t n : {1u, 2u}) {
    auto src = make_kronecker_source(k);
    PartitionOptions o;
    o.parts = n;
    const PartitionedGraph g = partition_edges(*src, o);
    expect_same(count_per_edge(g, 2, *be), reference_per_edge(g), "kronecker 12, n=" + std::to_string(n));
  }
}

TEST(PerEdgeBackend, BesidePerVertex) {
  REQUIRE_BACKEND();
  auto be = backend();
  for (std::uint32_t n : {1u, 2u, 3u}) {
    const PartitionedGraph g = testing::partition_graph(testing::mixed_graph(7), n);
    expect_same(count_per_edge(g, 2, *be, /*per_vertex=*/true), reference_per_edge(g), "mixed with per-vertex, n=" + std::to_string(n));
  }
#ifdef TRICOUNT_PER_EDGE_CUDA
  // The kernels twice per task (per vertex, then per edge), and the sorted-list kernel beside.
  KroneckerSpec k;
  k.scale = 12;
  auto src = make_kronecker_source(k);
  PartitionOptions o;
  o.parts = 2;
  const PartitionedGraph g = partition_edges(*src, o);
  const PerEdge want = reference_per_edge(g);
  expect_same(count_per_edge(g, 2, *be, /*per_vertex=*/true), want, "kronecker 12 with per-vertex");
  auto lists = testing::cuda_backend(CudaTuning{.edge_lists = true});
  expect_same(count_per_edge(g, 2, *lists, /*per_vertex=*/true), want, "kronecker 12 with per-vertex, sorted lists");
#endif
}

#ifdef TRICOUNT_PER_EDGE_CUDA
// Every path of the counting kernels' per-edge form (and the sorted-list kernel), as the
// per-vertex tests force them: each hit site must name the right three edges.
TEST(PerEdgeBackend, EveryCudaPath) {
  REQUIRE_BACKEND();
  std::vector<testing::ForcedPath> paths = testing::per_element_paths();
  paths.push_back({"sorted-list kernel", {.edge_lists = true}});
  paths.push_back({"sorted-list kernel, CTA threshold 1", {.edge_lists = true}, 1});
  const EdgePairs mixed = testing::mixed_graph(5);
  const EdgePairs k = testing::complete_graph(400);
  for (const testing::ForcedPath& path : paths) {
    SCOPED_TRACE(path.name);
    auto be = testing::cuda_backend(path.tuning, path.threshold);
    expect_all_layouts(mixed, *be, std::string(path.name) + ", mixed", 2, 2);
    expect_all_layouts(k, *be, std::string(path.name) + ", K_400", 2, 1);
  }
  // Short rows: the thread-per-row kernel, the filter kernel and the warp kernel (a
  // triangular lattice, degrees at most 6; a circulant graph with a row of 8 at n = 1).
  const EdgePairs lattice = testing::triangular_lattice(120, 80);
  const EdgePairs ring = testing::circulant(1000, 4);
  for (const auto& [what, tuning] : testing::short_row_kernels()) {
    auto be = testing::cuda_backend(tuning);
    expect_all_layouts(lattice, *be, std::string("lattice, ") + what, 3, 3);
    expect_all_layouts(ring, *be, std::string("circulant, ") + what, 3, 2);
  }
}

// A skewed graph through every probe path: CTA rows with bitmaps and tables, the v side
// (T's entries mapped back to P(i,j)), the reverse search, at n = 1, 2 and 3.
TEST(PerEdgeBackend, KroneckerWithEveryCudaProbePath) {
  REQUIRE_BACKEND();
  KroneckerSpec k;
  k.scale = 14;
  std::vector<PartitionedGraph> graphs;
  std::vector<PerEdge> want;
  for (std::uint32_t n : {1u, 2u, 3u}) {
    auto src = make_kronecker_source(k);
    PartitionOptions o;
    o.parts = n;
    graphs.push_back(partition_edges(*src, o));
    want.push_back(reference_per_edge(graphs.back()));
  }
  const std::vector<CudaTuning> settings = testing::per_element_kronecker_settings();
  for (std::size_t s = 0; s < settings.size(); ++s)
    for (std::uint32_t threshold : {100u, 20u}) {
      auto be = testing::cuda_backend(settings[s], threshold);
      for (std::size_t g = 0; g < graphs.size(); ++g)
        expect_same(count_per_edge(graphs[g], g == 1 ? 3 : 2, *be), want[g],
                    "setting " + std::to_string(s) + " threshold " + std::to_string(threshold) + " n=" +
                        std::to_string(graphs[g].header.parts));
    }
}
#endif

#ifndef TRICOUNT_PER_EDGE_CUDA
// Every intersection of the CPU kernel: merge (portable and AVX2), gallop either way, hub
// rows by bitmap, one thread and several.
TEST(PerEdgeBackend, EveryCpuPath) {
  struct Path {
    const char* name;
    CpuTuning tuning;
    unsigned threads;
  };
  const std::vector<Path> paths = {
      {"defaults, one thread", {}, 1},
      {"portable merge", {.simd = false}, 2},
      {"gallop one way", {.gallop_ratio = 0}, 2},
      {"gallop whichever list is longer", {.gallop_ratio = 1}, 2},
      {"no gallop", {.gallop_ratio = 1u << 30}, 2},
      {"hub rows everywhere", {.bitmap_min_degree = 1}, 2},
      {"hub rows, portable, shared", {.bitmap_min_degree = 2, .chunk_edges = 1, .min_parallel_entries = 0, .simd = false}, 3},
      {"tiny chunks on 4 threads", {.chunk_edges = 1, .chunks_per_thread = 1000, .min_parallel_entries = 0}, 4},
  };
  const EdgePairs mixed = testing::mixed_graph(5);
  const EdgePairs k = testing::complete_graph(120);
  for (const Path& path : paths) {
    SCOPED_TRACE(path.name);
    auto be = backend(path.tuning, path.threads);
    expect_all_layouts(mixed, *be, std::string(path.name) + ", mixed", 3, 2);
    expect_all_layouts(k, *be, std::string(path.name) + ", K_120", 2, 2);
  }
}
#endif

TEST(PerEdgeBackend, UntouchedBlocksAreZeroAndCountsStartAgain) {
  REQUIRE_BACKEND();
  auto be = backend();
  const PartitionedGraph g = testing::partition_graph(testing::complete_graph(30), 3);
  be->start_per_edge(3, block_sizes(g));
  for (std::uint32_t i = 0; i < 3; ++i)
    for (std::uint32_t j = 0; j < 3; ++j) {
      const std::vector<edge_count_t> zero = be->take_edge_counts({i, j});
      EXPECT_EQ(zero.size(), g.block(i, j).nnz());
      EXPECT_EQ(std::count(zero.begin(), zero.end(), edge_count_t{0}), std::ptrdiff_t(zero.size()));
    }
  const PerEdge want = reference_per_edge(g);
  expect_same(count_per_edge(g, 2, *be), want, "K_30, first");
  expect_same(count_per_edge(g, 2, *be), want, "K_30, again");
}

TEST(PerEdgeBackend, BlocksThatDisagreeWithTheSizesAreAnError) {
  REQUIRE_BACKEND();
  auto be = backend();
  const PartitionedGraph g = testing::partition_graph(testing::complete_graph(10), 2);
  std::vector<std::uint64_t> nnz = block_sizes(g);
  nnz[1] += 1;  // P(0,1)
  be->start_per_edge(2, nnz);
  const std::uint64_t base = next_serial_base();
  auto v = [&](std::uint32_t i, std::uint32_t j) { return make_block_view(g.block(i, j), base + i * 2 + j); };
  CountStats s;
  EXPECT_THROW(be->count(TaskBlocks{v(0, 1), v(0, 1), v(1, 1), 0, 1}, s), Error);
  EXPECT_THROW(be->take_edge_counts({2, 0}), Error);
  EXPECT_THROW(be->start_per_edge(2, {1, 2, 3}), Error);
}

}  // namespace
}  // namespace tricount
