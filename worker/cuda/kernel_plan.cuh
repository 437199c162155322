// Planning one task of the CUDA backend: which kernels run, with which tables, grids and
// working memory. plan_kernels is a pure function of the block triple's sizes, the tuning
// and the device's limits (it asks the runtime only for kernel occupancies and CUB's
// temporary sizes); the backend then allocates and launches what the plan says.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_scan.cuh>
#include <optional>
#include <type_traits>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>

#include "worker/backend.hpp"
#include "worker/cuda/batch_rows.cuh"
#include "worker/cuda/bucket_table.cuh"
#include "worker/cuda/count_kernels.cuh"
#include "worker/cuda/cuda_check.cuh"
#include "worker/cuda/device_block_cache.hpp"
#include "worker/cuda/v_side.cuh"

namespace tricount::cuda {

inline constexpr std::uint64_t kCtaScratchBudget = std::uint64_t{512} << 20;  // global table levels, all CTAs
inline constexpr std::uint32_t kCtaSharedBudgetWords = 16384;               // 64 KiB: most a CTA table may take
inline constexpr std::uint32_t kTileBlockSharedWords = 12288;               // 48 KiB per warp-kernel CTA
inline constexpr std::uint64_t kMaxTileChunk = 16;
// Register caps: the warp kernel of 32 lanes for 5 CTAs per SM (fewer spills), the CTA
// kernel for 6 (bench/notes/cuda-code-figures.md). The other caps, the uncapped kernels and
// 16-lane tiles were measured and not kept (bench/RESULTS.md#measured-and-not-kept).
inline constexpr int kWarpMinBlocks = 5;
inline constexpr int kCtaMinBlocks = 6;

// Calls f(std::bool_constant<b>{}...) for the run-time bools b...: one instance of f per
// combination, picked without a hand-written if tree.
template <class F>
void dispatch_bools(F&& f) {
  f();
}
template <class F, class... Rest>
void dispatch_bools(F&& f, bool first, Rest... rest) {
  if (first) dispatch_bools([&](auto... b) { f(std::true_type{}, b...); }, rest...);
  else dispatch_bools([&](auto... b) { f(std::false_type{}, b...); }, rest...);
}

// The kernels' kDefer for a side: defer, the u side that gives edges to the transposed v
// side; places, keeping each one's place in T.
template <class D, class Pl>
inline constexpr int defer_mode(D, Pl) {
  return D::value ? (Pl::value ? kDeferPlaces : 1) : 0;
}

// The warp kernel of `lanes` (8 or 32) lanes per row; reverse: with the reverse search
// (ReverseSearch); defer, places: as defer_mode; per_vertex: the per-vertex counting variant
// (per_vertex.cuh); per_edge: its per-edge form.
template <class F>
void with_warp_kernel(std::uint32_t lanes, bool reverse, bool defer, bool places, F&& f, bool per_vertex = false,
                      bool per_edge = false) {
  dispatch_bools(
      [&](auto r, auto d, auto pl, auto pv, auto pe) {
        constexpr bool kReverse = decltype(r)::value, kPerEdge = decltype(pe)::value;
        constexpr int kDefer = defer_mode(d, pl);
        constexpr bool kPerVertex = decltype(pv)::value || kPerEdge;
        if (lanes == 8) f(count_tile_rows<8, 1, kReverse, kDefer, kPerVertex, kPerEdge>);
        else f(count_tile_rows<32, kWarpMinBlocks, kReverse, kDefer, kPerVertex, kPerEdge>);
      },
      reverse, defer, places, per_vertex, per_edge);
}
template <class F>
void with_thread_kernel(std::uint32_t width, F&& f, bool per_vertex = false, bool per_edge = false) {
  dispatch_bools([&](auto rows_of_4, auto pv, auto pe) {
    constexpr std::uint32_t kRow = decltype(rows_of_4)::value ? 4 : kThreadMaxRow;
    f(count_thread_rows<kRow, decltype(pv)::value || decltype(pe)::value, decltype(pe)::value>);
  }, width <= 4, per_vertex, per_edge);
}
template <class F>
void with_tiny_kernel(bool defer, bool places, F&& f, bool per_vertex = false, bool per_edge = false) {
  dispatch_bools([&](auto d, auto pl, auto pv, auto pe) {
    f(count_tiny_rows<defer_mode(d, pl), decltype(pv)::value || decltype(pe)::value, decltype(pe)::value>);
  }, defer, places, per_vertex, per_edge);
}
template <class F>
void with_filter_kernel(F&& f, bool per_vertex = false, bool per_edge = false) {
  dispatch_bools([&](auto pv, auto pe) {
    f(count_filter_rows<decltype(pv)::value || decltype(pe)::value, decltype(pe)::value>);
  }, per_vertex, per_edge);
}
template <class F>
void with_batch_kernel(F&& f, bool per_vertex = false, bool per_edge = false) {
  dispatch_bools([&](auto pv, auto pe) {
    f(count_batch_rows<decltype(pv)::value || decltype(pe)::value, decltype(pe)::value>);
  }, per_vertex, per_edge);
}
template <class F>
void with_cta_kernel(bool defer, bool places, F&& f, bool per_vertex = false, bool per_edge = false) {
  dispatch_bools([&](auto d, auto pl, auto pv, auto pe) {
    f(count_cta_rows<kCtaMinBlocks, defer_mode(d, pl), decltype(pv)::value || decltype(pe)::value, decltype(pe)::value>);
  }, defer, places, per_vertex, per_edge);
}

// T's row bounds from the u side's counts per v: with places (the u side's atomics returned
// each edge's place in its row), row starts, an exclusive sum; without, row ends, an inclusive
// one (scatter_deferred_edges counts down from them). temp == nullptr: only the bytes it needs.
inline void sum_t_rows(bool places, void* temp, std::size_t& temp_bytes, const unsigned long long* counts, eoff_t* offsets,
                       std::uint64_t t_rows, cudaStream_t s) {
  const auto n = static_cast<std::int64_t>(t_rows + 1);
  if (places) TRICOUNT_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, offsets, n, s));
  else TRICOUNT_CUDA_TRY(cub::DeviceScan::InclusiveSum(temp, temp_bytes, counts, offsets, n, s));
}

// What planning needs of the device.
struct DeviceLimits {
  int multiprocessors = 1;
  std::uint32_t cta_dynamic_words = 0;  // dynamic shared words a CTA-kernel CTA may take
  std::uint64_t l2_bytes = 0;           // the L2 cache (T's entries placed by the u side where they fit)
};

// Shared words of a CTA table, at most, and of a CTA row's key bitmap (0: none).
inline std::uint32_t cta_table_budget_words(const CudaTuning& t, const DeviceLimits& d) {
  return std::min({kCtaSharedBudgetWords, d.cta_dynamic_words, t.shared_words_cap});
}
inline std::uint32_t cta_bitmap_words(const CudaTuning& t, const DeviceLimits& d) {
  // A bitmap may take more than a table, up to what the device lets a CTA have.
  return std::min({t.bitmap_words, d.cta_dynamic_words, t.shared_words_cap});
}

// What planning a side needs of a block.
struct BlockMeta {
  std::uint64_t rows = 0, nnz = 0;
  std::uint32_t max_degree = 0;
  std::uint64_t nonempty_rows = 0;  // 0: not counted
  // Neighbours per row that has any: more parts leave most rows empty, and an average over
  // all of them would call the rows that do count short.
  double average_degree() const { return double(nnz) / double(std::max<std::uint64_t>(1, nonempty_rows ? nonempty_rows : rows)); }
};
inline BlockMeta meta(const BlockView& v) { return {v.rows, v.nnz, v.max_degree, v.nonempty_rows}; }

// One pass of the counting kernels over a (hash, 1-hop, 2-hop) triple: the u side (the
// task's own blocks) or the transposed v side (P(j,k), T, P(i,k)).
struct SidePlan {
  std::uint64_t rows = 0;
  TableConfig tile_cfg, cta_cfg;
  std::uint32_t tile_max_keys = 0;
  std::uint32_t G = 32;      // lanes per warp row
  bool reverse = false;      // the warp kernel with the reverse search
  bool defers = false;       // the u side giving edges to the v side: the kernels with kDefer
  bool places = false;       // ... keeping each one's place in T (kDefer == kDeferPlaces)
  bool per_vertex = false;   // the kernels with kPerVertex (their words after the tables)
  bool per_edge = false;     // ... in their per-edge form (kPerEdge; per_vertex is set too)
  std::uint32_t bitmap_words = 0, cta_smem_words = 0;
  std::size_t tile_smem = 0;
  std::uint64_t cta_grid = 1, tile_grid = 1, scratch_words = 0;
  std::uint32_t tile_chunk = 1;
  std::uint32_t trim_min = 0;
  bool direct = false;  // no row can be a CTA row: the warp kernel takes every row, unclassified
  std::uint32_t tiny_max = 0;  // classified rows this small go to count_tiny_rows (0: none)
  unsigned tiny_grid = 1;
  RowClassifier classifier{};
  std::size_t cub_bytes = 0;
};

// Everything one task runs, and the working memory it needs.
struct KernelPlan {
  std::uint64_t rows = 0;      // class i: rows of the u side
  bool thread_rows = false;    // every row tiny: count_thread_rows and nothing else
  std::uint32_t thread_width = kThreadMaxRow;  // ... for rows of at most this many entries (4 or 8)
  unsigned thread_grid = 1;
  bool filter_rows = false;    // short rows and lists: count_filter_rows and nothing else
  unsigned filter_grid = 1;
  bool batch_rows = false;     // every row direct and small: count_batch_rows instead of the warp kernel
  unsigned batch_grid = 1;
  SidePlan u;
  std::optional<SidePlan> v;   // the transposed v side, where it pays
  std::uint32_t defer_quarters = 0;
  std::uint64_t t_rows = 0;        // class j: rows of T
  std::uint64_t t_entries = 0;     // at most P(i,j)'s entries
  std::uint64_t deferred_words = 0;  // a bit per edge of P(i,j)
  bool t_places = false;             // the u side keeps each deferred edge's place in T (T fits the L2; v_side.cuh)
  unsigned transpose_grid = 1;
  std::size_t cub_bytes = 0;
  std::uint64_t cta_levels_words = 0;  // global table levels of all CTAs (the larger side)
  bool per_edge = false;               // the kPerEdge kernels: T keeps each entry's P(i,j) position (32 bits)
  std::uint64_t narrow_rows = 0;       // the 2-hop block's rows whose offsets are narrowed (0: none)
  unsigned narrow_grid = 1;

  // Bytes of working memory (KernelScratch) the plan needs.
  std::uint64_t working_bytes() const {
    std::uint64_t bytes = 2 * rows * sizeof(vid_t) + cub_bytes + cta_levels_words * sizeof(vid_t);
    if (narrow_rows) bytes += (narrow_rows + 1) * sizeof(std::uint32_t);
    if (v)
      bytes += 2 * t_rows * sizeof(vid_t) + 2 * (t_rows + 1) * sizeof(eoff_t) + t_entries * sizeof(vid_t) +
               deferred_words * sizeof(std::uint32_t) + (t_places ? t_entries * sizeof(std::uint32_t) : 0) +
               (per_edge ? t_entries * sizeof(std::uint32_t) : 0);
    return bytes;
  }
};

// Table configurations, kernel variants and grids for one side. defers: the u side leaves
// the edges defers_edge() gives away (so its reverse search may never be taken); places: and
// keeps their places in T.
inline SidePlan plan_side(const BlockMeta& hash, const BlockMeta& one_hop, const BlockMeta& two_hop, std::uint32_t split,
                          std::uint32_t splits, bool defers, bool places, std::uint32_t quarters, const BackendOptions& options,
                          const DeviceLimits& limits, bool per_vertex = false, bool per_edge = false) {
  const CudaTuning& t = options.cuda_tuning;
  SidePlan sp;
  sp.rows = one_hop.rows;
  sp.defers = defers;
  sp.places = defers && places;
  per_vertex = per_vertex || per_edge;  // per-edge counting is the per-vertex code's other form
  sp.per_vertex = per_vertex;
  sp.per_edge = per_edge;
  const std::uint64_t rows = one_hop.rows;
  const std::uint32_t max_keys = std::min<std::uint32_t>(hash.max_degree, t.table_limit);
  const std::uint32_t threshold = options.cta_degree_threshold;
  // Lanes per warp row: 8 when the average row has almost no 2-hop work (a 3D grid: about
  // 3 x 3 elements per row; 32 lanes leave most idle and each warp waits on one row's
  // chain of loads), else 32 (figures: bench/notes/cuda-code-figures.md). Also 32 where a
  // 2-hop list is long: a skewed block's few long lists are most of its work, whatever its
  // average row says (a Kronecker graph cut into 8 parts; bench/RESULTS.md, issue 34).
  const double work_per_row = one_hop.average_degree() * two_hop.average_degree();
  // No 2-hop list longer than a thread row walks (uniform-like blocks): the warp rows may take
  // 8 lanes and the tiny rows a thread each.
  const bool short_lists = two_hop.max_degree <= kThreadMaxList;
  sp.G = t.warp_lanes ? t.warp_lanes : work_per_row < t.small_row_work && short_lists ? 8 : 32;
  TRICOUNT_EXPECTS(sp.G == 8 || sp.G == 32, "CudaTuning::warp_lanes must be 0, 8 or 32, not " + std::to_string(sp.G));
  const std::uint32_t tiny_max = std::min(t.tiny_rows, kThreadMaxRow);
  // The warp kernel with the reverse search only where a 2-hop list is long enough for it
  // to pay: Kronecker graphs have lists of hundreds to thousands, uniform and grid graphs
  // of tens, where the search would never be taken and its register spills would cost.
  // On the u side of the v side, lists longer than quarters/4 times u's keys are v's side's,
  // so a ratio at least that large is never reached.
  const bool search_reachable = !defers || std::uint64_t(t.search_ratio) * 4 < quarters;
  sp.reverse = t.search_ratio != 0 && search_reachable && two_hop.max_degree >= t.search_min_list &&
               two_hop.max_degree > t.search_ratio;
  TableConfig unbounded;
  unbounded.shared_words = 0xFFFFFFFFu;
  unbounded.log2_buckets_per_key = t.buckets_log2;
  sp.tile_cfg = unbounded;
  sp.tile_cfg.max_shared_levels = t.warp_table_levels;
  sp.cta_cfg = unbounded;
  const std::uint32_t cta_words = std::min(cta_table_budget_words(t, limits), t.cta_table_words);
  sp.cta_cfg.shared_words = static_cast<std::uint32_t>(
      std::clamp<std::uint64_t>(make_table_shape(max_keys, unbounded).shared_words(), 64, std::max<std::uint32_t>(64, cta_words)));
  if (t.collide) sp.tile_cfg.hash_multiplier = sp.cta_cfg.hash_multiplier = 0;
  const std::uint32_t tile_keys = threshold > 0 ? std::min<std::uint32_t>(threshold - 1, hash.max_degree) : 0;
  // A warp table's shared words and the largest table a warp takes (every level in shared
  // memory), for G lanes per row.
  auto shape_tiles = [&](std::uint32_t G) {
    sp.G = G;
    const std::uint32_t tile_budget = std::min<std::uint32_t>(kTileBlockSharedWords / (kTileBlockThreads / G), t.shared_words_cap);
    sp.tile_cfg.shared_words = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(
        make_table_shape(tile_keys, sp.tile_cfg).shared_words(), 64, std::max<std::uint32_t>(64, tile_budget)));
    sp.tile_max_keys = 0;
    while (sp.tile_max_keys < std::min(tile_keys, t.table_limit) && make_table_shape(sp.tile_max_keys + 1, sp.tile_cfg).all_shared())
      ++sp.tile_max_keys;
  };
  shape_tiles(sp.G);

  // Global levels for the CTA path: sized for the largest row, as many CTAs as fit.
  const std::uint64_t need_words = make_table_shape(max_keys, sp.cta_cfg).global_words();
  // The CTA kernel's dynamic shared memory: its table or its bitmap, whichever is larger.
  // No bitmap where no row can be a CTA row (the classifier's test on the blocks' largest
  // degrees): a CTA kernel with nothing to do then takes no more shared memory than
  // before beside the warp kernel (measured: 1% on uniform 2^24 otherwise).
  auto cta_rows_possible = [&] {
    return hash.max_degree >= threshold || one_hop.max_degree >= threshold || hash.max_degree > sp.tile_max_keys;
  };
  // A classified side gives its tiny rows to count_tiny_rows (unless a threshold that low
  // asks for CTA rows there).
  const bool tiny_possible = tiny_max > 0 && threshold > tiny_max;
  const bool many_tiny = tiny_possible && short_lists && 2 * one_hop.average_degree() <= 3 * tiny_max;
  // Nor a classification where no row can be a CTA row: the warp kernel walks the rows
  // themselves, skipping the empty ones (the partition costs time, and each row's id is one
  // more dependent load; bench/notes/cuda-code-figures.md); unless many rows are tiny (an
  // average row of at most 1.5 x tiny_max, with short lists: a uniform graph cut into 2 or
  // more parts): a thread each pays for the classification then (bench/RESULTS.md, issue 34).
  auto direct = [&] { return t.direct_warp_rows && !cta_rows_possible() && splits == 1 && !many_tiny; };
  // A classified side's warp rows are the larger ones, and the averages that chose 8 lanes
  // were those of the tiny and empty rows: 32 lanes (bench/RESULTS.md, issue 28), unless
  // that makes the side unclassified.
  if (!t.warp_lanes && sp.G == 8 && tiny_possible && !direct()) {
    shape_tiles(32);
    if (direct()) shape_tiles(8);
  }
  sp.direct = direct();
  sp.tiny_max = !sp.direct && tiny_possible ? tiny_max : 0;
  sp.bitmap_words = cta_rows_possible() ? cta_bitmap_words(t, limits) : 0;
  if (per_vertex)  // the per-vertex words must fit beside the bitmap
    sp.bitmap_words = std::min(sp.bitmap_words, limits.cta_dynamic_words - kCtaPerVertexWords - 2);
  sp.cta_smem_words = std::max(sp.cta_cfg.shared_words, sp.bitmap_words);
  if (per_vertex) sp.cta_smem_words = (sp.cta_smem_words + 1) / 2 * 2 + kCtaPerVertexWords;
  int cta_per_sm = 0, tile_per_sm = 0;
  with_cta_kernel(defers, sp.places, [&](auto kernel) {
    TRICOUNT_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cta_per_sm, kernel, kCtaThreads, std::size_t{sp.cta_smem_words} * 4));
  }, per_vertex, per_edge);
  sp.tile_smem = std::size_t{sp.tile_cfg.shared_words} * 4 * (kTileBlockThreads / sp.G);
  if (per_vertex) sp.tile_smem = (sp.tile_smem + 7) / 8 * 8 + std::size_t{kTilePerVertexWords} * 4;
  with_warp_kernel(sp.G, sp.reverse, defers, sp.places, [&](auto kernel) {
    TRICOUNT_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&tile_per_sm, kernel, kTileBlockThreads, sp.tile_smem));
  }, per_vertex, per_edge);
  sp.cta_grid = std::uint64_t(std::max(1, cta_per_sm)) * limits.multiprocessors;
  if (need_words > 0) {
    const std::uint64_t budget_words = kCtaScratchBudget / sizeof(vid_t);
    sp.cta_grid = std::clamp<std::uint64_t>(budget_words / need_words, 1, sp.cta_grid);
    sp.scratch_words = std::min(need_words, budget_words);  // rows needing more use binary search
  }
  sp.tile_grid = std::uint64_t(std::max(1, tile_per_sm)) * limits.multiprocessors;
  // Rows per grab: 1 for small row counts (hubs make rows uneven), more for many rows
  // (one atomic counter shared by every warp would be the bottleneck).
  const std::uint64_t tile_warps = sp.tile_grid * (kTileBlockThreads / sp.G);
  sp.tile_chunk = options.chunk_size ? options.chunk_size
                                     : static_cast<std::uint32_t>(std::clamp<std::uint64_t>(rows / (tile_warps * 64), 1, kMaxTileChunk));

  sp.tiny_grid = static_cast<unsigned>(
      std::clamp<std::uint64_t>((rows + kThreadBlockThreads - 1) / kThreadBlockThreads, 1, std::uint64_t(limits.multiprocessors) * 8));
  sp.classifier = RowClassifier{nullptr, nullptr, split, splits, threshold, sp.tile_max_keys, sp.tiny_max};
  TRICOUNT_CUDA_TRY(cub::DevicePartition::If(nullptr, sp.cub_bytes, thrust::counting_iterator<vid_t>(0), (vid_t*)nullptr,
                                             (vid_t*)nullptr, thrust::make_discard_iterator(), (std::uint32_t*)nullptr,
                                             static_cast<std::int64_t>(rows), IsCtaRow{sp.classifier},
                                             IsTileRow{sp.classifier}, cudaStream_t{}));
  return sp;
}

// Whether the task gives edges to the transposed v side, and at which ratio: where a
// 2-hop list is long enough for the other direction to pay (skewed graphs; uniform and
// grid graphs would pay the transposition for nothing).
inline std::optional<std::uint32_t> v_side_quarters(const TaskBlocks& b, const CudaTuning& t) {
  if (t.v_side == 0) return std::nullopt;
  if (t.v_side == 1 && b.two_hop.max_degree < t.v_side_min_list) return std::nullopt;
  return t.v_side_quarters;
}

// per_vertex: the kernels that also count per vertex (CountBackend::start_per_vertex);
// per_edge: those that count per edge instead (start_per_edge).
inline KernelPlan plan_kernels(const TaskBlocks& b, const BackendOptions& given, const DeviceLimits& limits,
                                bool per_vertex = false, bool per_edge = false) {
  BackendOptions options = given;  // with the task's CTA threshold: both sides use it
  options.cta_degree_threshold = cta_threshold_for(given.cta_degree_threshold, b.one_hop.rows);
  const CudaTuning& t = options.cuda_tuning;
  KernelPlan plan;
  plan.per_edge = per_edge;
  plan.rows = b.one_hop.rows;
  // 1. Every row tiny (hash and 1-hop rows of at most 8, 2-hop of at most 64): one thread
  //    per row and nothing else (count_thread_rows); rows of at most 4 in a kernel of half
  //    the registers, so more threads wait on their loads at once (bench/RESULTS.md, issue 34).
  plan.thread_rows = t.thread_rows && b.hash.max_degree <= kThreadMaxRow && b.one_hop.max_degree <= kThreadMaxRow &&
                     b.two_hop.max_degree <= kThreadMaxList && options.cta_degree_threshold > kThreadMaxRow;
  plan.thread_width = std::max(b.hash.max_degree, b.one_hop.max_degree) <= 4 ? 4 : kThreadMaxRow;
  plan.thread_grid = static_cast<unsigned>(std::clamp<std::uint64_t>(
      (plan.rows + kThreadBlockThreads - 1) / kThreadBlockThreads, 1, std::uint64_t(limits.multiprocessors) * 8));
  // 2. The transposed v side, where it pays.
  // Per-edge: T keeps each entry's P(i,j) position in 32 bits, so a P(i,j) of more than 2^32
  // entries counts without the v side.
  const bool t_positions_fit = !per_edge || b.one_hop.nnz <= (std::uint64_t{1} << 32);
  const std::optional<std::uint32_t> quarters = plan.thread_rows || !t_positions_fit ? std::nullopt : v_side_quarters(b, t);
  if (quarters)
    TRICOUNT_EXPECTS(std::uint64_t(b.hash.max_degree) * kCtaThreads < (std::uint64_t{1} << 32),
                     "block " + block_label(b.hash) + ": a row of " + std::to_string(b.hash.max_degree) +
                         " neighbours is beyond the CUDA backend's 32-bit prefix sums");
  plan.defer_quarters = quarters.value_or(0);
  // T's places kept by the u side where T (at most P(i,j)'s entries) fits the L2.
  plan.t_places = quarters && (t.t_places == 2 || (t.t_places == 1 && b.one_hop.nnz * sizeof(vid_t) <= limits.l2_bytes));
  // 3. The u side.
  plan.u = plan_side(meta(b.hash), meta(b.one_hop), meta(b.two_hop), b.split, b.splits, quarters.has_value(), plan.t_places,
                     plan.defer_quarters, options, limits, per_vertex, per_edge);
  plan.cub_bytes = plan.u.cub_bytes;
  // 3a. Or, where no row can be a CTA row and no edge goes to v's side, one thread per row
  //     with a key filter (count_filter_rows) instead of the warp kernel.
  //     By the task: 2-hop lists of at most kThreadMaxList and short average rows (the warp
  //     kernel keeps rows of more work, where its coalesced loads pay).
  plan.filter_rows = t.filter_rows && !plan.thread_rows && !quarters && b.hash.max_degree < options.cta_degree_threshold &&
                     b.one_hop.max_degree < options.cta_degree_threshold &&
                     (t.filter_rows == 2 || (b.two_hop.max_degree <= kThreadMaxList &&
                                             meta(b.one_hop).average_degree() <= t.filter_row_average));
  if (plan.filter_rows) {
    int per_sm = 0;
    with_filter_kernel([&](auto kernel) {
      TRICOUNT_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreadBlockThreads, 0));
    }, per_vertex, per_edge);
    plan.filter_grid = static_cast<unsigned>(std::clamp<std::uint64_t>(
        (plan.rows + kThreadBlockThreads - 1) / kThreadBlockThreads, 1, std::uint64_t(limits.multiprocessors) * std::max(1, per_sm)));
  }
  if (t.narrow_offsets && !plan.thread_rows && b.two_hop.nnz < (std::uint64_t{1} << 32)) {
    plan.narrow_rows = b.two_hop.rows;
    plan.narrow_grid = static_cast<unsigned>(std::clamp<std::uint64_t>(
        (plan.narrow_rows + kThreadBlockThreads) / kThreadBlockThreads, 1, std::uint64_t(limits.multiprocessors) * 8));
  }
  // 3b. Or, where the warp kernel would take every row unclassified and the rows fit a warp's
  //     stage, a warp per 32 consecutive rows (count_batch_rows): by the task where the 2-hop
  //     lists are short (a uniform graph; bench/RESULTS.md, issue 34).
  plan.batch_rows = t.batch_rows && !plan.thread_rows && !plan.filter_rows && !quarters && plan.u.direct && !plan.u.reverse &&
                    plan.narrow_rows && b.hash.max_degree <= kBatchKeys && b.one_hop.max_degree <= kBatchEntries &&
                    b.two_hop.max_degree < (1u << 24) &&
                    (t.batch_rows == 2 || (plan.u.G == 32 && b.two_hop.max_degree <= kThreadMaxList));
  if (plan.batch_rows) {
    int per_sm = 0;
    with_batch_kernel([&](auto kernel) {
      TRICOUNT_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBatchBlockThreads, 0));
    }, per_vertex, per_edge);
    plan.batch_grid = static_cast<unsigned>(std::max(1, per_sm)) * static_cast<unsigned>(limits.multiprocessors);
  }
  // 4. v's side: hash P(j,k), 1-hop T (at most P(i,j)'s entries; a row at most |class i|
  //    long), 2-hop P(i,k); no workload split (T holds only this split's edges).
  if (quarters) {
    plan.t_rows = b.two_hop.rows;
    plan.t_entries = b.one_hop.nnz;
    plan.deferred_words = b.one_hop.nnz / 32 + 2;
    const BlockMeta t_meta{plan.t_rows, plan.t_entries, static_cast<std::uint32_t>(std::min<std::uint64_t>(plan.rows, 0xFFFFFFFFu))};
    plan.v = plan_side(meta(b.two_hop), t_meta, meta(b.hash), 0, 1, false, false, 0, options, limits, per_vertex, per_edge);
    plan.v->trim_min = t.v_side_trim;
    std::size_t scan_bytes = 0;
    sum_t_rows(plan.t_places, nullptr, scan_bytes, nullptr, nullptr, plan.t_rows, cudaStream_t{});
    plan.cub_bytes = std::max({plan.cub_bytes, plan.v->cub_bytes, scan_bytes});
    const std::uint64_t per_block = std::uint64_t{kTransposeBlockThreads} * kTransposeEdgesPerThread;
    plan.transpose_grid = static_cast<unsigned>(std::clamp<std::uint64_t>(
        (b.one_hop.nnz + per_block - 1) / per_block, 1, std::uint64_t(limits.multiprocessors) * 8));
  }
  plan.cta_levels_words = std::max(plan.u.cta_grid * plan.u.scratch_words, plan.v ? plan.v->cta_grid * plan.v->scratch_words : 0);
  return plan;
}

}  // namespace tricount::cuda
