#include "partitioner/id_index.hpp"

#include "partitioner/run_files.hpp"

namespace tricount::pipeline {

IdIndex::IdIndex(std::span<const raw_id_t> ids, std::uint64_t direct_bytes, unsigned threads)
    : ids_(ids.data()), id_count_(ids.size()) {
  const std::uint64_t v = ids.size();
  if (v == 0) return;
  const raw_id_t max = ids.back();
  const unsigned fill = fill_threads(v * sizeof(raw_id_t), threads);
  // Only for dense ids: a few sparse ids up to 2^40 would make a table of terabytes, and
  // 300 ids up to 3e8 one of 1.2 GB, zeroed for nothing.
  const bool dense = max <= 8 * v + (std::uint64_t{1} << 20);
  if (dense && max < direct_bytes / sizeof(vid_t)) {
    // Zeros where no id is: compose() maps every entry.
    assign_zeros(direct_, max + 1, threads);
    parallel_ranges(v, fill, [&](std::uint64_t a, std::uint64_t b) {
      for (std::uint64_t p = a; p < b; ++p) direct_[ids[p]] = static_cast<vid_t>(p);
    });
    return;
  }
  while (shift_ < 63 && (max >> shift_) >= v) ++shift_;
  // table_[b] = the first p with ids[p] >> shift_ >= b: ids [a, b) set the entries from just
  // past their predecessor's high bits to their own, so every entry is set once.
  const std::uint64_t entries = (max >> shift_) + 2;
  table_.resize(entries);
  parallel_ranges(v, fill, [&](std::uint64_t a, std::uint64_t b) {
    for (std::uint64_t p = a; p < b; ++p)
      for (std::uint64_t e = p == 0 ? 0 : (ids[p - 1] >> shift_) + 1; e <= (ids[p] >> shift_); ++e)
        table_[e] = static_cast<std::uint32_t>(p);
  });
  for (std::uint64_t e = (max >> shift_) + 1; e < entries; ++e) table_[e] = static_cast<std::uint32_t>(v);
}

void IdIndex::compose(std::span<const vid_t> new_id, unsigned threads) {
  const auto cut = runs::even_cuts(direct_.size(), threads);
  runs::parallel_for(threads, [&](unsigned t) {
    for (std::uint64_t k = cut[t]; k < cut[t + 1]; ++k) direct_[k] = new_id[direct_[k]];
  });
}

}  // namespace tricount::pipeline
