// The CUDA backend's kernel paths a test forces through CudaTuning, shared by the tests that
// check what the kernels count beside the total (per vertex, per edge): every hit site of
// every path must reach the right counters.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "worker/backend.hpp"

namespace tricount::testing {

// A path: its name, the tuning that forces it, and the CTA degree threshold (1: every row
// with keys is a CTA row).
struct ForcedPath {
  const char* name;
  CudaTuning tuning;
  std::uint32_t threshold = 100;
};

// The paths below, other than the defaults and those named for the filter or the batch
// kernel, each force one of the other kernels: the filter and batch kernels (which take short
// rows by default) stay off for them.
inline std::vector<ForcedPath> without_short_row_kernels(std::vector<ForcedPath> paths) {
  for (ForcedPath& path : paths) {
    const std::string_view name(path.name);
    if (name == "defaults") continue;
    if (name.find("filter") == std::string_view::npos) path.tuning.filter_rows = 0;
    if (name.find("batch") == std::string_view::npos) path.tuning.batch_rows = 0;
  }
  return paths;
}

// Every path of the per-vertex code (and of its per-edge form).
inline std::vector<ForcedPath> per_element_paths() {
  return without_short_row_kernels({
      {"defaults", {}},
      {"filter rows of every size (no CTA rows)", {.thread_rows = false, .filter_rows = 2}, 1000000},
      {"filter rows by the task, any average row", {.thread_rows = false, .filter_row_average = 1e9}},
      {"batch rows wherever every row is direct", {.thread_rows = false, .filter_rows = 0, .batch_rows = 2}, 1000000},
      {"batch rows by the task", {.thread_rows = false, .filter_rows = 0}},
      {"CTA path with bitmaps", {}, 1},
      {"CTA path with bitmaps, w hits in the hashed tally", {.rank_counts = false}, 1},
      {"CTA path, small bitmaps whose rank counters lie over the tally", {.cta_table_words = 64, .bitmap_words = 16}, 1},
      {"CTA path, tables", {.bitmap_words = 0}, 1},
      {"CTA path, 64-word tables (global levels)", {.shared_words_cap = 64, .bitmap_words = 0}, 1},
      {"CTA path, binary search", {.table_limit = 0, .bitmap_words = 0}, 1},
      {"CTA path, colliding tables", {.collide = true, .bitmap_words = 0}, 2},
      {"warp rows of every size (tallies overflow)", {}, 1000000},
      {"warp rows, colliding tables (keys at and below the bucket heads)", {.collide = true}},
      {"binary search above 20 keys", {.table_limit = 20}},
      {"8-lane tiles", {.warp_lanes = 8}},
      {"32-lane tiles", {.warp_lanes = 32, .thread_rows = false}},
      {"no thread rows", {.thread_rows = false}},
      {"rows always classified", {.direct_warp_rows = false}},
      {"rows always classified, no tiny rows", {.direct_warp_rows = false, .tiny_rows = 0}},
      {"tiny rows, v side everywhere", {.direct_warp_rows = false, .v_side = 2}},
      {"tiny rows, v side everywhere, T's slots by atomics", {.direct_warp_rows = false, .v_side = 2, .t_places = 0}},
      {"reverse search", {.search_ratio = 1, .search_min_list = 0}},
      {"reverse search, 8-lane tiles", {.warp_lanes = 8, .search_ratio = 1, .search_min_list = 0}},
      {"v side in every subtask", {.v_side = 2}},
      {"v side, every edge with a 2-hop list", {.v_side = 2, .v_side_quarters = 0}},
      {"v side, CTA path", {.v_side = 2, .v_side_quarters = 1}, 1},
      {"v side, CTA path, T's slots by atomics", {.v_side = 2, .v_side_quarters = 1, .t_places = 0}, 1},
      {"v side, trimmed, colliding CTA tables", {.collide = true, .bitmap_words = 0, .v_side = 2, .v_side_trim = 1}, 2},
      {"v side with the reverse search", {.search_ratio = 1, .search_min_list = 0, .v_side = 2, .v_side_quarters = 16}},
      {"profiling", {.profile = true, .v_side = 2}, 30},
      {"filter rows, profiling, 2-hop bounds from the 64-bit offsets", {.profile = true, .filter_rows = 2, .narrow_offsets = false}, 30},
  });
}

// The kernels that take a graph of short rows (a lattice): one thread per row with the keys
// in registers, one thread per row with a key filter, a warp per 32 rows, and the warp kernel.
inline std::vector<std::pair<const char*, CudaTuning>> short_row_kernels() {
  return {{"thread rows", {}},
          {"filter rows", {.thread_rows = false}},
          {"filter rows, 64-bit bounds", {.thread_rows = false, .narrow_offsets = false}},
          {"batch rows", {.thread_rows = false, .filter_rows = 0, .batch_rows = 2}},
          {"warp rows", {.thread_rows = false, .filter_rows = 0, .batch_rows = 0}}};
}

// Settings for a skewed graph (Kronecker), each run at CTA thresholds 100 and 20: CTA rows
// with bitmaps and tables, the v side, the reverse search.
inline std::vector<CudaTuning> per_element_kronecker_settings() {
  return {
      {},
      {.bitmap_words = 0, .search_ratio = 0},
      {.bitmap_words = 16384, .search_ratio = 1, .search_min_list = 0},
      {.bitmap_words = 8, .search_ratio = 4, .search_min_list = 0},
      {.v_side = 0},
      {.v_side = 2, .v_side_quarters = 0},
      {.bitmap_words = 0, .v_side = 2, .v_side_quarters = 2},
      {.search_ratio = 2, .search_min_list = 0, .v_side = 2, .v_side_quarters = 32},
      {.v_side = 2, .v_side_quarters = 0, .t_places = 0},
      {.shared_words_cap = 64, .v_side = 2},
      {.warp_lanes = 8, .v_side = 2},
      {.direct_warp_rows = false, .v_side_trim = 0},
      {.rank_counts = false},
      {.cta_table_words = 64, .bitmap_words = 16, .v_side = 2},
  };
}

}  // namespace tricount::testing
