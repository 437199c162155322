#include "partitioner/id_index.hpp"

#include "partitioner/run_files.hpp"

namespace tricount::pipeline {

IdIndex::IdIndex(const std::vector<raw_id_t>& ids, std::uint64_t direct_bytes)
    : ids_(ids.data()), id_count_(ids.size()) {
  const std::uint64_t v = ids.size();
  if (v == 0) return;
  const raw_id_t max = ids.back();
  // Only for dense ids: a few sparse ids up to 2^40 would make a table of terabytes, and
  // 300 ids up to 3e8 one of 1.2 GB, zeroed for nothing.
  const bool dense = max <= 8 * v + (std::uint64_t{1} << 20);
  if (dense && max < direct_bytes / sizeof(vid_t)) {
    direct_.resize(max + 1);
    for (std::uint64_t p = 0; p < v; ++p) direct_[ids[p]] = static_cast<vid_t>(p);
    return;
  }
  while (shift_ < 63 && (max >> shift_) >= v) ++shift_;
  table_.resize((max >> shift_) + 2);
  std::uint64_t p = 0;
  for (std::uint64_t b = 0; b < table_.size(); ++b) {
    while (p < v && (ids[p] >> shift_) < b) ++p;
    table_[b] = static_cast<std::uint32_t>(p);
  }
}

void IdIndex::compose(const std::vector<vid_t>& new_id, unsigned threads) {
  const auto cut = runs::even_cuts(direct_.size(), threads);
  runs::parallel_for(threads, [&](unsigned t) {
    for (std::uint64_t k = cut[t]; k < cut[t + 1]; ++k) direct_[k] = new_id[direct_[k]];
  });
}

}  // namespace tricount::pipeline
