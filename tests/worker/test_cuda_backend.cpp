// The CUDA backend against the CPU backend and closed forms (label gpu: every test is
// reported as skipped on a machine without a GPU).
//
// Paths that ordinary graphs rarely take are forced with the backend's tuning
// (BackendOptions::cuda_tuning, CudaTuning in worker/backend.hpp): tiny shared tables
// (levels in global memory, linear probing across buckets), every key in one bucket,
// binary search instead of a table, CTA-row key bitmaps of every size (or none), the
// reverse search of long 2-hop lists on the warp path (or none), the transposed v side
// (every subtask, any ratio, none), and a device memory cap (eviction, and the error for a
// block triple that does not fit). The benchmark driver is bench/cuda_bench.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "partitioner/partition.hpp"
#include "src/block_format.hpp"
#include "input/generators.hpp"
#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"
#include "tests/worker/cuda_paths.hpp"
#include "worker/block_cache.hpp"
#include "worker/backend.hpp"

namespace tricount {
namespace {

using testing::EdgePairs;
using testing::cuda_backend;
using testing::mixed_graph;
using testing::next_serial_base;

std::unique_ptr<CountBackend> cpu_backend() {
  BackendOptions o;
  o.threads = 0;
  return make_cpu_backend(o);
}

BlockView view_of(const CsrBlock& b, std::uint64_t serial) { return make_block_view(b, serial); }

struct Counted {
  count_t triangles = 0;
  CountStats stats;
};

// Every task of TaskPlan(n, splits), in task order, with one backend.
Counted count_graph(const PartitionedGraph& g, std::uint32_t splits, CountBackend& backend) {
  const std::uint32_t n = g.header.parts;
  const std::uint64_t base = next_serial_base();
  const TaskPlan plan(n, splits);
  Counted c;
  for (std::uint64_t id = 0; id < plan.num_tasks(); ++id) {
    const Task t = plan.decode(id);
    auto v = [&](std::uint32_t i, std::uint32_t j) { return view_of(g.block(i, j), base + std::uint64_t(i) * n + j); };
    const TaskBlocks blocks{v(t.i, t.k), v(t.i, t.j), v(t.j, t.k), t.split, splits};
    c.triangles += backend.count(blocks, c.stats);
  }
  return c;
}

count_t cpu_count(const PartitionedGraph& g, std::uint32_t splits) {
  auto cpu = cpu_backend();
  return count_graph(g, splits, *cpu).triangles;
}

std::uint64_t choose3(std::uint64_t n) { return n * (n - 1) * (n - 2) / 6; }

// Checks CUDA == CPU == expected for n = 1..4 and m = 1..3.
void expect_all_layouts(const EdgePairs& edges, std::optional<count_t> expected, CountBackend& gpu,
                        std::uint32_t max_parts = 4, std::uint32_t max_splits = 3) {
  for (std::uint32_t n = 1; n <= max_parts; ++n) {
    const PartitionedGraph g = testing::partition_graph(edges, n);
    for (std::uint32_t m = 1; m <= max_splits; ++m) {
      const count_t cpu = cpu_count(g, m);
      const count_t got = count_graph(g, m, gpu).triangles;
      EXPECT_EQ(got, cpu) << "n=" << n << " m=" << m;
      if (expected) {
        EXPECT_EQ(got, *expected) << "n=" << n << " m=" << m;
      }
    }
  }
}

EdgePairs hub_with_cycle(std::uint64_t leaves) {
  EdgePairs e;
  for (std::uint64_t k = 1; k <= leaves; ++k) {
    e.emplace_back(0, k);
    e.emplace_back(k, k == leaves ? 1 : k + 1);
  }
  return e;
}

EdgePairs disjoint_triangles(std::uint64_t count) {
  EdgePairs e;
  for (std::uint64_t t = 0; t < count; ++t) {
    const std::uint64_t a = 3 * t;
    e.emplace_back(a, a + 1);
    e.emplace_back(a + 1, a + 2);
    e.emplace_back(a, a + 2);
  }
  return e;
}

TEST(CudaBackend, NameAndDevice) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend();
  EXPECT_EQ(gpu->name(), "cuda");
  EXPECT_FALSE(gpu->device_name().empty());
  std::printf("device: %s\n", gpu->device_name().c_str());
}

TEST(CudaBackend, CompleteGraphs) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend();
  for (std::uint64_t n : {3, 4, 5, 17, 101, 260}) expect_all_layouts(testing::complete_graph(n), choose3(n), *gpu);
}

TEST(CudaBackend, RandomGraphsMatchCpuAndReference) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend();
  for (std::uint64_t seed : {1, 2}) {
    const EdgePairs e = testing::random_graph(800, 12000, seed);
    expect_all_layouts(e, reference::count_triangles(e), *gpu);
  }
  const EdgePairs m = mixed_graph(3);
  expect_all_layouts(m, reference::count_triangles(m), *gpu);
}

TEST(CudaBackend, ThresholdsAndChunkSizes) {
  TRICOUNT_REQUIRE_GPU();
  const EdgePairs e = mixed_graph(4);
  const count_t want = reference::count_triangles(e);
  for (std::uint32_t threshold : {0u, 1u, 2u, 5u, 100u, 1000000u})
    for (std::uint32_t chunk : {0u, 1u, 3u, 64u}) {
      SCOPED_TRACE("threshold " + std::to_string(threshold) + " chunk " + std::to_string(chunk));
      auto gpu = cuda_backend(threshold, chunk);
      for (std::uint32_t n : {1u, 3u}) EXPECT_EQ(count_graph(testing::partition_graph(e, n), 2, *gpu).triangles, want) << "n=" << n;
    }
}

// A block of at least 2^19 rows takes the wider CTA threshold by default (cta_threshold_for):
// rows of 100-127 neighbours (here a K120's) then count as warp rows, with warp tables sized
// for them; exact by default and with either threshold given.
TEST(CudaBackend, LargeBlocksTakeTheWiderCtaThreshold) {
  TRICOUNT_REQUIRE_GPU();
  const std::uint64_t n = kWideCtaThresholdRows + 64;
  EdgePairs e;
  for (std::uint64_t v = 0; v < n; ++v) e.emplace_back(v, (v + 1) % n);  // every vertex a row
  for (std::uint64_t a = 0; a < 120; ++a)
    for (std::uint64_t b = a + 2; b < 120; ++b) e.emplace_back(a, b);
  const count_t want = reference::count_triangles(e);
  ASSERT_EQ(want, choose3(120));
  for (std::uint32_t threshold : {0u, 100u, 128u}) {
    SCOPED_TRACE("threshold " + std::to_string(threshold));
    auto gpu = cuda_backend(threshold);
    expect_all_layouts(e, want, *gpu, 2, 2);
  }
}

TEST(CudaBackend, HubOfDegree100000WithCycle) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend();
  const std::uint64_t leaves = 100000;
  expect_all_layouts(hub_with_cycle(leaves), leaves, *gpu, 3, 2);
}

TEST(CudaBackend, DegreeZeroAndOneAndNoTriangles) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend();
  expect_all_layouts(testing::star(5000), 0, *gpu);         // leaves of degree 1
  expect_all_layouts(testing::grid_2d(60, 40), 0, *gpu);     // bipartite
  expect_all_layouts({{0, 1}}, 0, *gpu);                      // a single edge
  expect_all_layouts({{0, 1}, {1, 2}, {0, 2}}, 1, *gpu);      // a single triangle
  EdgePairs e = {{0, 1}, {1, 2}, {0, 2}, {7, 8}, {20, 21}, {21, 22}};  // triangle, lone edge, path
  expect_all_layouts(e, 1, *gpu);
}

TEST(CudaBackend, ManyTinyComponents) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend();
  expect_all_layouts(disjoint_triangles(100000), 100000, *gpu, 4, 2);
}

TEST(CudaBackend, CountPastTwoToThe32) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend();
  const std::uint64_t n = 3000;
  const count_t want = choose3(n);  // 4,495,501,000 > 2^32
  ASSERT_GT(want, std::uint64_t{1} << 32);
  for (std::uint32_t parts : {1u, 2u}) {
    const PartitionedGraph g = testing::partition_graph(testing::complete_graph(n), parts);
    const Counted c = count_graph(g, 1, *gpu);
    EXPECT_EQ(c.triangles, want) << "parts " << parts;
    std::printf("K_%llu, %u parts: %llu triangles, count %.3f ms, transfer %.3f ms\n", (unsigned long long)n, parts,
                (unsigned long long)c.triangles, c.stats.count_seconds * 1e3, c.stats.transfer_seconds * 1e3);
  }
}

// A triangular lattice (a w x h grid with one diagonal per cell): every degree at most 6,
// so every subtask takes the thread-per-row kernel (rows of at most 4 entries), with
// 2 (w - 1)(h - 1) triangles; without it, the filter kernel, and without both the warp
// kernel. A circulant graph of degree 8 has a row of 8 at n = 1 (the kernel for 8 entries).
TEST(CudaBackend, TinyRowsOneThreadPerRow) {
  TRICOUNT_REQUIRE_GPU();
  const std::uint64_t w = 300, h = 200;
  const EdgePairs e = testing::triangular_lattice(w, h);
  const count_t want = 2 * (w - 1) * (h - 1);
  const EdgePairs c = testing::circulant(3000, 4);
  for (const auto& [what, tuning] : testing::short_row_kernels()) {
    SCOPED_TRACE(what);
    auto gpu = cuda_backend(tuning);
    expect_all_layouts(e, want, *gpu, 3, 2);
    expect_all_layouts(c, count_t{3000 * 6}, *gpu, 3, 2);
  }
}

// Hand-made blocks: u's keys are multiples of 2^shift (congruent modulo a large power of
// two), 2-hop lists mix keys and near misses. Exercises the hash with keys a modulo hash
// would put in one bucket.
struct HandBlocks {
  std::vector<eoff_t> h_off, o_off, t_off;
  std::vector<vid_t> h_nbr, o_nbr, t_nbr;
  std::uint64_t cols = 0, mid = 0;
  count_t expected = 0;
  TaskBlocks blocks(std::uint64_t serial) const {
    auto mk = [](std::uint64_t rows, std::uint64_t cols, const std::vector<eoff_t>& off, const std::vector<vid_t>& nbr,
                 std::uint64_t s) {
      BlockView v;
      v.serial = s;
      v.rows = rows;
      v.cols = cols;
      v.nnz = nbr.size();
      for (std::size_t r = 0; r + 1 < off.size(); ++r) v.max_degree = std::max<std::uint32_t>(v.max_degree, off[r + 1] - off[r]);
      v.offsets = off.data();
      v.neighbors = nbr.data();
      return v;
    };
    const std::uint64_t rows = h_off.size() - 1;
    return TaskBlocks{mk(rows, cols, h_off, h_nbr, serial), mk(rows, mid, o_off, o_nbr, serial + 1),
                         mk(mid, cols, t_off, t_nbr, serial + 2), 0, 1};
  }
};

HandBlocks congruent_keys(std::uint32_t rows, std::uint32_t keys, std::uint32_t shift, std::uint32_t mid) {
  HandBlocks h;
  h.cols = (std::uint64_t(keys) << shift) + 8;
  h.mid = mid;
  std::vector<std::set<vid_t>> table(rows);
  h.h_off = {0};
  for (std::uint32_t r = 0; r < rows; ++r) {
    for (std::uint32_t j = r % 2; j < keys; ++j) {  // odd rows drop key 0
      h.h_nbr.push_back(vid_t(j) << shift);
      table[r].insert(vid_t(j) << shift);
    }
    h.h_off.push_back(h.h_nbr.size());
  }
  h.o_off = {0};
  for (std::uint32_t r = 0; r < rows; ++r) {
    for (std::uint32_t v = r % 3; v < mid; v += 1 + r % 2) h.o_nbr.push_back(v);
    h.o_off.push_back(h.o_nbr.size());
  }
  h.t_off = {0};
  for (std::uint32_t v = 0; v < mid; ++v) {
    std::set<vid_t> list;
    for (std::uint32_t j = v % 5; j < keys; j += 1 + v % 4) {
      list.insert(vid_t(j) << shift);                      // a key
      if (j % 3 == 0) list.insert((vid_t(j) << shift) + 1);  // a near miss
      if (j % 7 == 0) list.insert((vid_t(j) << shift) + (vid_t(1) << (shift - 1)));
    }
    h.t_nbr.insert(h.t_nbr.end(), list.begin(), list.end());
    h.t_off.push_back(h.t_nbr.size());
  }
  for (std::uint32_t r = 0; r < rows; ++r)
    for (eoff_t e = h.o_off[r]; e < h.o_off[r + 1]; ++e) {
      const vid_t v = h.o_nbr[e];
      for (eoff_t f = h.t_off[v]; f < h.t_off[v + 1]; ++f) h.expected += table[r].count(h.t_nbr[f]);
    }
  return h;
}

void expect_hand_blocks(CountBackend& gpu, const std::string& what) {
  auto cpu = cpu_backend();
  for (std::uint32_t shift : {8u, 16u, 20u})
    for (std::uint32_t keys : {5u, 40u, 99u, 100u, 700u, 3000u}) {
      if ((std::uint64_t(keys) << shift) + 8 >= (std::uint64_t{1} << 32) - 1) continue;
      const HandBlocks h = congruent_keys(6, keys, shift, 48);
      const TaskBlocks b = h.blocks(next_serial_base());
      CountStats s;
      const count_t got = gpu.count(b, s);
      EXPECT_EQ(got, h.expected) << what << ": shift " << shift << " keys " << keys;
      EXPECT_EQ(cpu->count(b, s), h.expected) << what << " (cpu): shift " << shift << " keys " << keys;
    }
}

TEST(CudaBackend, KeysCongruentModuloLargePowersOfTwo) {
  TRICOUNT_REQUIRE_GPU();
  for (std::uint32_t threshold : {100u, 1u}) {
    auto gpu = cuda_backend(threshold);
    expect_hand_blocks(*gpu, "threshold " + std::to_string(threshold));
  }
}

// Every forced path: the count must not change.
using testing::ForcedPath;

const std::vector<ForcedPath>& forced_paths() {
  static const std::vector<ForcedPath> paths = testing::without_short_row_kernels({
      {"filter rows wherever no row is a CTA row", {.thread_rows = false, .filter_rows = 2}},
      {"filter rows, colliding hash elsewhere", {.collide = true, .thread_rows = false, .filter_rows = 2}},
      {"filter rows, 2-hop bounds from the 64-bit offsets", {.thread_rows = false, .filter_rows = 2, .narrow_offsets = false}},
      {"batch rows wherever every row is direct", {.thread_rows = false, .filter_rows = 0, .batch_rows = 2}},
      {"batch rows by the task", {.thread_rows = false, .filter_rows = 0}},
      {"batch rows, profiling", {.profile = true, .thread_rows = false, .filter_rows = 0, .batch_rows = 2}, 1000000},
      {"all keys in bucket 0 (linear probing only)", {.collide = true}},
      {"all keys in bucket 0, CTA path", {.collide = true, .bitmap_words = 0}, 1},
      {"64-word tables: global levels and overflowing buckets", {.shared_words_cap = 64}},
      {"64-word tables, colliding", {.shared_words_cap = 64, .collide = true, .bitmap_words = 0}, 1},
      {"256-word tables, CTA path", {.shared_words_cap = 256, .bitmap_words = 0}, 2},
      {"binary search above 20 keys", {.table_limit = 20}},
      {"binary search for every row", {.table_limit = 0, .bitmap_words = 0}, 1},
      {"more buckets", {.buckets_log2 = 3}},
      {"2 buckets per key, 2-level warp tables", {.buckets_log2 = 1, .warp_table_levels = 2}},
      {"fewer buckets", {.buckets_log2 = 0}},
      {"warp tables of 2 levels", {.warp_table_levels = 2}},
      {"warp tables of 1 level, colliding", {.collide = true, .warp_table_levels = 1}},
      {"warp tables of 6 levels, fewer buckets", {.buckets_log2 = 0, .warp_table_levels = 6}},
      {"128-word CTA tables (global levels)", {.cta_table_words = 128, .bitmap_words = 0}, 3},
      {"profiling (kernels in sequence)", {.profile = true}, 30},
      {"tables for every CTA row, CTA path", {.bitmap_words = 0}, 1},
      {"CTA path with the default bitmaps", {}, 1},
      {"no bitmaps (tables for every CTA row)", {.bitmap_words = 0}},
      {"1-word bitmaps, tables otherwise, CTA path", {.bitmap_words = 1}, 1},
      {"2-word bitmaps, colliding tables otherwise", {.collide = true, .bitmap_words = 2}, 1},
      {"4-word bitmaps, binary search otherwise", {.table_limit = 0, .bitmap_words = 4}, 1},
      {"64 KiB bitmaps, CTA path", {.bitmap_words = 16384}, 1},
      {"no reverse search (warp rows probe every 2-hop list)", {.search_ratio = 0}},
      {"reverse search for lists longer than u's keys", {.search_ratio = 1, .search_min_list = 0}},
      {"reverse search kernel, search never taken", {.search_ratio = 1000000, .search_min_list = 0}},
      {"reverse search, ratio 2", {.search_ratio = 2, .search_min_list = 0}},
      {"reverse search, 8-lane tiles", {.warp_lanes = 8, .search_ratio = 1, .search_min_list = 0}},
      {"reverse search, colliding", {.collide = true, .search_ratio = 1, .search_min_list = 0}},
      {"8-lane tiles", {.warp_lanes = 8}},
      {"32-lane tiles (whatever the rows' work)", {.warp_lanes = 32}},
      {"no thread-per-row kernel", {.thread_rows = false}},
      {"no v side", {.v_side = 0}},
      {"v side in every subtask", {.v_side = 2}},
      {"v side, T's slots by atomics (no places)", {.v_side = 2, .t_places = 0}},
      {"v side, T's slots by atomics, CTA path", {.v_side = 2, .v_side_quarters = 1, .t_places = 0}, 1},
      {"v side, every edge with a 2-hop list on v's side", {.v_side = 2, .v_side_quarters = 0}},
      {"v side, quarter ratio, CTA path", {.v_side = 2, .v_side_quarters = 1}, 1},
      {"v side, CTA tables, colliding", {.collide = true, .bitmap_words = 0, .v_side = 2}, 2},
      {"v side, 64-word tables", {.shared_words_cap = 64, .v_side = 2, .v_side_quarters = 2}},
      {"v side, 8-lane tiles", {.warp_lanes = 8, .v_side = 2}},
      {"v side with the reverse search", {.search_ratio = 1, .search_min_list = 0, .v_side = 2, .v_side_quarters = 16}},
      {"v side, profiling", {.profile = true, .v_side = 2}, 30},
      {"v side, v's side untrimmed", {.v_side = 2, .v_side_trim = 0}},
      {"v side, every list of v's side trimmed, CTA path", {.v_side = 2, .v_side_trim = 1}, 1},
      {"v side, v's lists trimmed, colliding tables", {.collide = true, .bitmap_words = 0, .v_side = 2, .v_side_trim = 2}, 2},
      {"2-hop bounds from the 64-bit offsets", {.narrow_offsets = false}},
      {"v side, 2-hop bounds from the 64-bit offsets, CTA path", {.v_side = 2, .narrow_offsets = false}, 1},
      {"rows always classified (no unclassified warp path)", {.direct_warp_rows = false}},
      {"rows always classified, 8-lane tiles", {.warp_lanes = 8, .thread_rows = false, .direct_warp_rows = false}},
      {"rows always classified, no tiny rows", {.direct_warp_rows = false, .tiny_rows = 0}},
      {"rows always classified, tiny rows of one entry", {.direct_warp_rows = false, .tiny_rows = 1}},
      {"rows always classified, tiny rows, v side everywhere", {.direct_warp_rows = false, .v_side = 2}},
      {"tiny rows, v side everywhere, T's slots by atomics", {.direct_warp_rows = false, .v_side = 2, .t_places = 0}},
      {"tiny rows searching every 2-hop list", {.direct_warp_rows = false, .v_side = 0}},
  });
  return paths;
}

// The filter kernel (one thread per row, u's keys in a 128-bit filter, searched where an
// element passes) on rows of any length: a CTA threshold nothing reaches sends every row to
// it, so rows of hundreds of keys fill the filter and most elements are searched for.
TEST(CudaBackend, FilterRowsOfAnyLength) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend(CudaTuning{.thread_rows = false, .filter_rows = 2}, 1000000);
  for (std::uint64_t seed : {1, 2}) {
    const EdgePairs e = testing::random_graph(800, 12000, seed);
    expect_all_layouts(e, reference::count_triangles(e), *gpu);
  }
  for (std::uint64_t n : {3, 4, 17, 101, 260}) expect_all_layouts(testing::complete_graph(n), choose3(n), *gpu, 3, 2);
  const EdgePairs m = mixed_graph(3);
  expect_all_layouts(m, reference::count_triangles(m), *gpu);
  expect_hand_blocks(*gpu, "filter rows of any length");
}

// The batch kernel (a warp per 32 consecutive rows, their keys and 1-hop bounds staged in
// shared memory) wherever every row is direct: a CTA threshold nothing reaches; rows of up to
// 256 keys and entries fill a stage alone, longer ones leave the task to the warp kernel.
TEST(CudaBackend, BatchRowsOfAnyLength) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend(CudaTuning{.thread_rows = false, .filter_rows = 0, .batch_rows = 2}, 1000000);
  for (std::uint64_t seed : {1, 2}) {
    const EdgePairs e = testing::random_graph(800, 12000, seed);
    expect_all_layouts(e, reference::count_triangles(e), *gpu);
  }
  for (std::uint64_t n : {3, 4, 17, 101, 255, 258}) expect_all_layouts(testing::complete_graph(n), choose3(n), *gpu, 3, 2);
  const EdgePairs m = mixed_graph(3);
  expect_all_layouts(m, reference::count_triangles(m), *gpu);
  expect_hand_blocks(*gpu, "batch rows of any length");
}

TEST(CudaBackend, ForcedOverflowAndFallbackPaths) {
  TRICOUNT_REQUIRE_GPU();
  const EdgePairs mixed = mixed_graph(5);
  const count_t mixed_want = reference::count_triangles(mixed);
  const EdgePairs k = testing::complete_graph(400);
  for (const ForcedPath& path : forced_paths()) {
    SCOPED_TRACE(path.name);
    auto gpu = cuda_backend(path.tuning, path.threshold);
    for (std::uint32_t n : {1u, 2u}) {
      EXPECT_EQ(count_graph(testing::partition_graph(mixed, n), 2, *gpu).triangles, mixed_want) << "mixed, n=" << n;
      EXPECT_EQ(count_graph(testing::partition_graph(k, n), 1, *gpu).triangles, choose3(400)) << "K_400, n=" << n;
    }
    expect_hand_blocks(*gpu, path.name);
  }
}

// One CTA row u whose keys span exactly `span` ids from `kmin`, against 2-hop lists that
// hold keys, ids between them, and ids just outside [kmin, kmax]: the bitmap path's edges
// (span of 32 * words and one more, kmin near the top of the id range, where w - kmin wraps).
HandBlocks span_blocks(std::uint64_t kmin, std::uint64_t span) {
  HandBlocks h;
  const std::uint64_t kmax = kmin + span - 1;
  h.cols = kmax + 3;
  std::set<std::uint64_t> keys = {kmin, kmax};
  for (std::uint64_t x = kmin; x <= kmax; x += 1 + (x * 7919) % 13) keys.insert(x);
  h.h_off = {0};
  for (std::uint64_t k : keys) h.h_nbr.push_back(static_cast<vid_t>(k));
  h.h_off.push_back(h.h_nbr.size());
  h.mid = 40;
  h.o_off = {0};
  for (std::uint32_t v = 0; v < h.mid; ++v) h.o_nbr.push_back(v);
  h.o_off.push_back(h.o_nbr.size());
  h.t_off = {0};
  for (std::uint32_t v = 0; v < h.mid; ++v) {
    std::set<std::uint64_t> list;
    if (kmin > 0) list.insert(kmin - 1 - v % std::min<std::uint64_t>(kmin, 3));
    list.insert(kmax + 1 + v % 2);
    if (v % 2 == 0) list.insert(0);
    for (std::uint64_t x = kmin + v % 5; x <= kmax; x += 1 + v % 9) list.insert(x);
    for (std::uint64_t x : list) {
      if (x >= h.cols) continue;
      h.t_nbr.push_back(static_cast<vid_t>(x));
      h.expected += keys.count(x);
    }
    h.t_off.push_back(h.t_nbr.size());
  }
  return h;
}

TEST(CudaBackend, BitmapSpanBoundaries) {
  TRICOUNT_REQUIRE_GPU();
  auto cpu = cpu_backend();
  for (std::uint32_t words : {1u, 3u, 4096u, 8192u}) {
    SCOPED_TRACE("bitmap words " + std::to_string(words));
    auto gpu = cuda_backend(CudaTuning{.bitmap_words = words}, 1);
    const std::uint64_t bits = 32 * std::uint64_t{words};
    for (std::uint64_t kmin : {std::uint64_t{0}, std::uint64_t{5}, std::uint64_t{77}, (std::uint64_t{1} << 32) - 3 * bits - 8})
      for (std::uint64_t span : {std::uint64_t{1}, std::uint64_t{2}, bits - 1, bits, bits + 1, 2 * bits + 5}) {
        if (span == 0) continue;
        const HandBlocks h = span_blocks(kmin, span);
        const TaskBlocks b = h.blocks(next_serial_base());
        CountStats s;
        EXPECT_EQ(gpu->count(b, s), h.expected) << "kmin " << kmin << " span " << span;
        EXPECT_EQ(cpu->count(b, s), h.expected) << "cpu: kmin " << kmin << " span " << span;
      }
  }
}

// A skewed graph (hubs whose 2-hop lists dwarf light rows' keys, heavy rows with short key
// spans): every way of probing must give the CPU backend's count.
TEST(CudaBackend, KroneckerWithEveryProbePath) {
  TRICOUNT_REQUIRE_GPU();
  KroneckerSpec k;
  k.scale = 14;
  std::vector<PartitionedGraph> graphs;
  for (std::uint32_t n : {1u, 3u}) {
    auto src = make_kronecker_source(k);
    PartitionOptions o;
    o.parts = n;
    graphs.push_back(partition_edges(*src, o));
  }
  std::vector<count_t> want;
  for (const PartitionedGraph& g : graphs) want.push_back(cpu_count(g, 2));
  const std::vector<CudaTuning> settings = {
      {},
      {.bitmap_words = 0, .search_ratio = 0},
      {.bitmap_words = 16384, .search_ratio = 1, .search_min_list = 0},
      {.bitmap_words = 8, .search_ratio = 4, .search_min_list = 0},
      {.bitmap_words = 8192, .search_ratio = 16, .search_min_list = 0},
      {.v_side = 0},
      {.v_side = 2, .v_side_quarters = 0},
      {.bitmap_words = 0, .v_side = 2, .v_side_quarters = 2},
      {.search_ratio = 2, .search_min_list = 0, .v_side = 2, .v_side_quarters = 32},
      {.v_side_trim = 1},
      {.direct_warp_rows = false, .v_side_trim = 0},
      {.direct_warp_rows = false, .tiny_rows = 3, .v_side = 2, .v_side_quarters = 2},
  };
  for (std::size_t s = 0; s < settings.size(); ++s) {
    for (std::uint32_t threshold : {100u, 20u}) {
      auto gpu = cuda_backend(settings[s], threshold);
      for (std::size_t g = 0; g < graphs.size(); ++g)
        EXPECT_EQ(count_graph(graphs[g], 2, *gpu).triangles, want[g]) << "setting " << s << " threshold " << threshold << " graph " << g;
    }
  }
}

TEST(CudaBackend, BlocksOnTheDeviceAreNotCopiedAgain) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend();
  const PartitionedGraph g = testing::partition_graph(testing::random_graph(5000, 60000, 9), 1);
  const std::uint64_t serial = next_serial_base();
  const BlockView v = view_of(g.block(0, 0), serial);
  const TaskBlocks b{v, v, v, 0, 1};
  CountStats first, second;
  const count_t a = gpu->count(b, first);
  const count_t c = gpu->count(b, second);
  EXPECT_EQ(a, c);
  EXPECT_EQ(first.bytes_transferred, (v.rows + 1) * sizeof(eoff_t) + v.nnz * sizeof(vid_t));  // once, not thrice
  EXPECT_GT(first.transfer_seconds, 0.0);
  EXPECT_EQ(second.bytes_transferred, 0u);
  EXPECT_EQ(second.transfer_seconds, 0.0);
  EXPECT_GT(second.count_seconds, 0.0);
}

TEST(CudaBackend, EvictsUnderAMemoryCapAndStillCounts) {
  TRICOUNT_REQUIRE_GPU();
  const EdgePairs e = testing::random_graph(20000, 400000, 11);
  const count_t want = reference::count_triangles(e);
  const PartitionedGraph g = testing::partition_graph(e, 4);
  std::uint64_t largest = 0;
  for (const CsrBlock& b : g.blocks) largest = std::max(largest, b.bytes());
  // Room for one triple and working memory, far from all 16 blocks.
  auto gpu = cuda_backend(CudaTuning{.device_bytes = 3 * largest + (std::uint64_t{1} << 20)});
  const Counted c = count_graph(g, 1, *gpu);
  EXPECT_EQ(c.triangles, want);
  std::uint64_t all = 0;
  for (const CsrBlock& b : g.blocks) all += b.bytes();
  EXPECT_GT(c.stats.bytes_transferred, all);  // some blocks came back after eviction
}

TEST(CudaBackend, TripleThatDoesNotFitIsAClearError) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend(CudaTuning{.device_bytes = 100000});
  const PartitionedGraph g = testing::partition_graph(testing::random_graph(5000, 60000, 12), 1);
  const BlockView v = view_of(g.block(0, 0), next_serial_base());
  CountStats s;
  try {
    gpu->count(TaskBlocks{v, v, v, 0, 1}, s);
    FAIL() << "expected an Error";
  } catch (const Error& err) {
    const std::string msg = err.what();
    EXPECT_NE(msg.find("P(0,0)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--parts"), std::string::npos) << msg;
    EXPECT_NE(msg.find("times as many parts"), std::string::npos) << msg;
  }
}

// The static schedule's load phase (CountBackend::make_resident): every block uploaded before
// counting, so that counting copies nothing; blocks that do not fit the GPU are a clear error.
TEST(CudaBackend, ResidentBlocksAreUploadedOnceBeforeCounting) {
  TRICOUNT_REQUIRE_GPU();
  auto gpu = cuda_backend();
  const EdgePairs e = testing::random_graph(6000, 80000, 21);
  const PartitionedGraph g = testing::partition_graph(e, 3);
  const std::uint64_t serial = next_serial_base();
  std::vector<BlockView> views;
  std::uint64_t bytes = 0;
  for (std::uint32_t i = 0; i < 3; ++i)
    for (std::uint32_t j = 0; j < 3; ++j) {
      views.push_back(view_of(g.block(i, j), serial + i * 3 + j));
      bytes += (views.back().rows + 1) * sizeof(eoff_t) + views.back().nnz * sizeof(vid_t);
    }
  CountStats load;
  gpu->make_resident(views, load);
  EXPECT_EQ(load.bytes_transferred, bytes);
  EXPECT_GT(load.transfer_seconds, 0.0);
  CountStats again;
  gpu->make_resident(views, again);
  EXPECT_EQ(again.bytes_transferred, 0u) << "already on the device";
  count_t total = 0;
  CountStats counting;
  const TaskPlan plan(3, 2);
  for (std::uint64_t id = 0; id < plan.num_tasks(); ++id) {
    const Task t = plan.decode(id);
    const TaskBlocks b{views[t.i * 3 + t.k], views[t.i * 3 + t.j], views[t.j * 3 + t.k], t.split, 2};
    total += gpu->count(b, counting);
  }
  EXPECT_EQ(total, reference::count_triangles(e));
  EXPECT_EQ(counting.bytes_transferred, 0u) << "the count phase copies no block";

  auto small = cuda_backend(CudaTuning{.device_bytes = bytes / 2});
  CountStats unused;
  try {
    small->make_resident(views, unused);
    ADD_FAILURE() << "expected the does-not-fit error";
  } catch (const Error& err) {
    const std::string what = err.what();
    EXPECT_NE(what.find("--schedule static"), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(bytes) + " bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("run more workers"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace tricount
