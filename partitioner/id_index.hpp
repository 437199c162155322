// Compact id of an input id: a direct table over [0, largest id] when it fits
// `direct_bytes` (one load per lookup), else binary search in the sorted ids, narrowed by a
// table over the ids' high bits (at most one entry per vertex, so at most 4 bytes per vertex).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "partitioner/vertex_array.hpp"
#include "src/types.hpp"

namespace tricount::pipeline {

class IdIndex {
 public:
  // A direct table made elsewhere (the clean stage's degree counters turned into compact ids).
  explicit IdIndex(VertexArray<vid_t> direct) : ids_(nullptr), direct_(std::move(direct)) {}
  // An index over `ids` (sorted, distinct; kept by the caller while the index is in use),
  // built on up to `threads` threads.
  IdIndex(std::span<const raw_id_t> ids, std::uint64_t direct_bytes, unsigned threads);
  vid_t operator()(raw_id_t id) const {
    if (!direct_.empty()) return direct_[id];
    const std::uint64_t b = id >> shift_;
    const raw_id_t* lo = ids_ + table_[b];
    const raw_id_t* hi = ids_ + table_[b + 1];
    return static_cast<vid_t>(std::lower_bound(lo, hi, id) - ids_);
  }
  static std::uint64_t bytes_for(std::uint64_t vertices) { return 4 * (vertices + 2); }
  bool direct() const { return !direct_.empty(); }
  // Its memory, with the sorted ids that a searching index reads.
  std::uint64_t bytes() const {
    return direct() ? direct_.size() * sizeof(vid_t) : table_.size() * 4 + id_count_ * sizeof(raw_id_t);
  }
  // Direct table only: entries become new_id[entry], so that one load gives the new id.
  void compose(std::span<const vid_t> new_id, unsigned threads);

 private:
  const raw_id_t* ids_;
  std::uint64_t id_count_ = 0;
  unsigned shift_ = 0;
  VertexArray<std::uint32_t> table_;
  VertexArray<vid_t> direct_;
};

}  // namespace tricount::pipeline
