#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <numeric>
#include <random>

#include "tests/reference_counter.hpp"
#include "worker/cpu_kernel.hpp"
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

// ---- The kernel's paths, each checked on its own (worker/cpu_kernel.hpp) ----

namespace {

std::vector<vid_t> sorted_sample(std::uint64_t count, vid_t range, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<vid_t> v;
  for (std::uint64_t x = 0; x < count; ++x) v.push_back(static_cast<vid_t>(rng() % range));
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::uint64_t common_by_std(const std::vector<vid_t>& a, const std::vector<vid_t>& b) {
  std::vector<vid_t> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out.size();
}

// Counts g with the CPU backend under `tuning`, one block per class, 2 threads.
count_t count_tuned(const EdgePairs& g, std::uint32_t parts, std::uint32_t splits, const CpuTuning& tuning) {
  PartitionOptions options;
  options.parts = parts;
  const PartitionedGraph graph = partition_edges(to_raw(g), options);
  BackendOptions bo;
  bo.threads = 2;
  bo.cpu_tuning = tuning;
  auto backend = make_cpu_backend(bo);
  return count_partitioned(graph, splits, *backend);
}

}  // namespace

// The CUDA backend's CTA threshold (a policy of the backend options, checked here without a GPU).
TEST(BackendOptions, CtaThresholdByTheTaskUnlessGiven) {
  EXPECT_EQ(BackendOptions{}.cta_degree_threshold, 0u);  // by the task
  EXPECT_EQ(cta_threshold_for(0, 0), 100u);
  EXPECT_EQ(cta_threshold_for(0, kWideCtaThresholdRows - 1), 100u);
  EXPECT_EQ(cta_threshold_for(0, kWideCtaThresholdRows), 128u);
  EXPECT_EQ(cta_threshold_for(0, std::uint64_t{1} << 40), 128u);
  for (std::uint32_t given : {1u, 100u, 128u, 1u << 30}) {
    EXPECT_EQ(cta_threshold_for(given, 10), given);
    EXPECT_EQ(cta_threshold_for(given, kWideCtaThresholdRows), given);
  }
}

TEST(CpuKernel, IntersectionsAgreeWithStdOnBalancedAndSkewedPairs) {
  // Lengths from empty to long, equal and far apart (the gallop's case), dense and sparse ranges.
  const std::uint64_t lengths[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 63, 100, 1000, 20000};
  std::uint64_t seed = 1;
  for (std::uint64_t la : lengths)
    for (std::uint64_t lb : lengths)
      for (vid_t range : {vid_t{64}, vid_t{5000}, vid_t{4000000000u}}) {
        const auto a = sorted_sample(la, range, seed++), b = sorted_sample(lb, range, seed++);
        const std::uint64_t expected = common_by_std(a, b);
        const std::string where = "la=" + std::to_string(a.size()) + " lb=" + std::to_string(b.size()) +
                                  " range=" + std::to_string(range);
        EXPECT_EQ(intersect_merge(a.data(), a.size(), b.data(), b.size()), expected) << where;
        EXPECT_EQ(intersect_gallop(a.data(), a.size(), b.data(), b.size()), expected) << where;
        EXPECT_EQ(intersect_gallop(b.data(), b.size(), a.data(), a.size()), expected) << where;
        if (cpu_has_avx2()) {
          EXPECT_EQ(intersect_merge_avx2(a.data(), a.size(), b.data(), b.size()), expected) << where;
        }
      }
}

TEST(CpuKernel, IntersectionsAtTheEndsOfTheIdRange) {
  // The largest local ids (the AVX2 compare is on 32-bit lanes, signed or not must not matter).
  std::vector<vid_t> a, b;
  for (vid_t x = 0; x < 40; ++x) a.push_back(0xFFFFFF00u + 3 * x);
  for (vid_t x = 0; x < 60; ++x) b.push_back(0xFFFFFF00u + 2 * x);
  a.insert(a.begin(), {0u, 1u, 0x7FFFFFFFu, 0x80000000u});
  b.insert(b.begin(), {0u, 2u, 0x7FFFFFFFu, 0x80000000u});
  const std::uint64_t expected = common_by_std(a, b);
  EXPECT_EQ(intersect_merge(a.data(), a.size(), b.data(), b.size()), expected);
  EXPECT_EQ(intersect_gallop(a.data(), a.size(), b.data(), b.size()), expected);
  if (cpu_has_avx2()) {
    EXPECT_EQ(intersect_merge_avx2(a.data(), a.size(), b.data(), b.size()), expected);
  }
}

TEST(CpuKernel, EveryPathCountsExactlyOnRandomAndHandMadeGraphs) {
  // Each tuning forces one path everywhere: all rows by bitmap, every pair galloping, the
  // portable merge, AVX2 merge, one-edge chunks over many threads' grabs.
  EdgePairs hubs = random_graph(2000, 12000, 11);
  for (std::uint64_t hub = 0; hub < 3; ++hub)
    for (std::uint64_t x = 3; x < 2000; x += 1 + hub) hubs.emplace_back(hub, x);
  const std::vector<EdgePairs> graphs = {random_graph(500, 8000, 4), hubs, complete_graph(40), grid_2d(15, 15),
                                         {{0, 1}, {1, 2}, {2, 0}, {1, 3}, {3, 2}}};
  std::vector<CpuTuning> tunings(6);
  tunings[0].bitmap_min_degree = 1;
  tunings[1].gallop_ratio = 0;  // every pair gallops
  tunings[2].simd = false;
  tunings[3].bitmap_min_degree = ~std::uint64_t{0};
  tunings[4].chunk_edges = 1;
  tunings[4].chunks_per_thread = ~std::uint64_t{0};  // chunks of chunk_edges, however many
  tunings[4].min_parallel_entries = 0;  // threads even on tiny tasks
  tunings[5].chunk_edges = 7;
  tunings[5].chunks_per_thread = ~std::uint64_t{0};
  tunings[5].min_parallel_entries = 0;
  tunings[5].bitmap_min_degree = 4;
  for (std::size_t g = 0; g < graphs.size(); ++g) {
    const std::uint64_t expected = reference::count_triangles(graphs[g]);
    for (std::size_t t = 0; t < tunings.size(); ++t)
      for (std::uint32_t n : {1u, 3u})
        for (std::uint32_t m : {1u, 2u})
          EXPECT_EQ(count_tuned(graphs[g], n, m, tunings[t]), expected) << "graph " << g << " tuning " << t << " n=" << n
                                                                         << " m=" << m;
  }
}

TEST(CpuKernel, HubRowsSplitOverChunksAndThreads) {
  // A clique of 300 hubs: every hub row is long (bitmap path) and its edges span many chunks,
  // so one row is counted in pieces by different threads.
  EdgePairs g = complete_graph(300);
  for (std::uint64_t x = 300; x < 3300; ++x) g.emplace_back(x % 300, x);
  const std::uint64_t expected = reference::count_triangles(g);
  EXPECT_EQ(expected, 300ull * 299 * 298 / 6);
  CpuTuning tuning;
  tuning.bitmap_min_degree = 64;
  tuning.chunk_edges = 5;
  tuning.chunks_per_thread = ~std::uint64_t{0};
  tuning.min_parallel_entries = 0;
  for (std::uint32_t n : {1u, 2u}) EXPECT_EQ(count_tuned(g, n, 1, tuning), expected) << n;
}

// ---- Per-vertex counting (start_per_vertex / take_vertex_counts) ----

namespace {

EdgePairs wheel(std::uint64_t rim) {  // hub 0 joined to a cycle 1..rim
  EdgePairs g;
  for (std::uint64_t x = 1; x <= rim; ++x) {
    g.emplace_back(0, x);
    g.emplace_back(x, x % rim + 1);
  }
  return g;
}

// The reference's triangles per input id.
std::map<std::uint64_t, count_t> reference_triangles(const EdgePairs& g) {
  std::map<std::uint64_t, count_t> out;
  for (const auto& [id, t] : reference::per_vertex_triangles(g)) out[id] = t.triangles;
  return out;
}

std::map<std::uint64_t, count_t> per_vertex_tuned(const EdgePairs& g, std::uint32_t parts, std::uint32_t splits,
                                                  const CpuTuning& tuning, unsigned threads = 2) {
  PartitionOptions options;
  options.parts = parts;
  const PartitionedGraph graph = partition_edges(to_raw(g), options);
  BackendOptions bo;
  bo.threads = threads;
  bo.cpu_tuning = tuning;
  auto backend = make_cpu_backend(bo);
  return count_partitioned_per_vertex(graph, splits, *backend);
}

}  // namespace

TEST(CpuPerVertex, HandMadeGraphsMatchTheReferenceForEveryPartsAndSplits) {
  const std::vector<std::pair<std::string, EdgePairs>> graphs = {
      {"K3", complete_graph(3)},          {"K5", complete_graph(5, 1)},  {"K40", complete_graph(40, 7)},
      {"star", star(50)},                 {"wheel", wheel(12)},          {"wheel3", wheel(3)},
      {"two triangles sharing an edge", {{0, 1}, {1, 2}, {2, 0}, {1, 3}, {3, 2}}},
      {"grid", grid_2d(6, 7)}};
  for (const auto& [name, g] : graphs) {
    const auto expected = reference_triangles(g);
    for (std::uint32_t n = 1; n <= 4; ++n)
      for (std::uint32_t m = 1; m <= 3; ++m)
        EXPECT_EQ(per_vertex_tuned(g, n, m, CpuTuning{}), expected) << name << " n=" << n << " m=" << m;
  }
  // Closed forms: every vertex of K_k is in C(k-1, 2) triangles; a wheel's hub in rim, each rim vertex in 2.
  for (const auto& [id, t] : per_vertex_tuned(complete_graph(40, 7), 3, 2, CpuTuning{})) EXPECT_EQ(t, 39u * 38 / 2) << id;
  const auto w = per_vertex_tuned(wheel(12), 2, 1, CpuTuning{});
  EXPECT_EQ(w.at(0), 12u);
  for (std::uint64_t x = 1; x <= 12; ++x) EXPECT_EQ(w.at(x), 2u) << x;
}

TEST(CpuPerVertex, EveryKernelPathAddsToAllThreeVertices) {
  EdgePairs hubs = random_graph(1500, 9000, 21);
  for (std::uint64_t hub = 0; hub < 3; ++hub)
    for (std::uint64_t x = 3; x < 1500; x += 1 + hub) hubs.emplace_back(hub, x);
  const std::vector<EdgePairs> graphs = {random_graph(400, 6000, 4), random_graph(900, 3000, 8), hubs};
  std::vector<CpuTuning> tunings(6);
  tunings[0].bitmap_min_degree = 1;  // every row by bitmap
  tunings[1].gallop_ratio = 0;       // every pair gallops
  tunings[2].simd = false;
  tunings[3].bitmap_min_degree = ~std::uint64_t{0};
  tunings[4].chunk_edges = 1;  // one-edge grabs over threads, even on tiny tasks
  tunings[4].chunks_per_thread = ~std::uint64_t{0};
  tunings[4].min_parallel_entries = 0;
  tunings[5].chunk_edges = 7;
  tunings[5].chunks_per_thread = ~std::uint64_t{0};
  tunings[5].min_parallel_entries = 0;
  tunings[5].bitmap_min_degree = 4;
  for (std::size_t g = 0; g < graphs.size(); ++g) {
    const auto expected = reference_triangles(graphs[g]);
    for (std::size_t t = 0; t < tunings.size(); ++t)
      for (std::uint32_t n : {1u, 3u})
        for (std::uint32_t m : {1u, 2u})
          EXPECT_EQ(per_vertex_tuned(graphs[g], n, m, tunings[t], 4), expected)
              << "graph " << g << " tuning " << t << " n=" << n << " m=" << m;
  }
}

TEST(CpuPerVertex, PlainCountIsUnchangedAndCountersAreHandedOutOnce) {
  const EdgePairs g = random_graph(300, 3000, 5);
  PartitionOptions options;
  options.parts = 3;
  const PartitionedGraph graph = partition_edges(to_raw(g), options);
  auto backend = make_cpu_backend(BackendOptions{});
  // Without start_per_vertex there are no counters to take.
  EXPECT_THROW(backend->take_vertex_counts(0), Error);
  const count_t total = count_partitioned(graph, 1, *backend);
  EXPECT_EQ(total, reference::count_triangles(g));
  // Per vertex, then a second take of the same class: zeros (the counters were handed out).
  const auto per_vertex = count_partitioned_per_vertex(graph, 2, *backend);
  EXPECT_EQ(per_vertex, reference_triangles(g));
  const std::vector<count_t> again = backend->take_vertex_counts(1);
  EXPECT_EQ(again.size(), rows_in_class(graph.header.vertices, 3, 1));
  for (count_t t : again) EXPECT_EQ(t, 0u);
}
