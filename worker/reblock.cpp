#include "worker/reblock.hpp"

#include <algorithm>
#include <atomic>

#include "src/threads.hpp"

namespace tricount {

CsrBlock reblock(const std::vector<CsrSpan>& parts, const BlockId& id, std::uint64_t rows, std::uint64_t cols,
                 std::uint32_t group, unsigned threads) {
  const std::uint64_t g = group;
  TRICOUNT_EXPECTS(parts.size() == g * g, "reblock: " + std::to_string(parts.size()) + " blocks for a group of " + std::to_string(g));
  CsrBlock out;
  out.id = id;
  out.rows = rows;
  out.cols = cols;
  out.offsets.resize(rows + 1);
  out.offsets[0] = 0;
  // 1. Degrees: row x = l g + a holds row l of the blocks (a, b) over b.
  auto length = [&](std::uint64_t x) {
    const std::uint64_t a = x % g, l = x / g;
    eoff_t d = 0;
    for (std::uint64_t b = 0; b < g; ++b) {
      const CsrSpan& p = parts[a * g + b];
      TRICOUNT_EXPECTS(l < p.rows, "reblock: block " + block_name(p.id) + " has no row " + std::to_string(l));
      d += p.offsets[l + 1] - p.offsets[l];
    }
    return d;
  };
  parallel_ranges(rows, threads, [&](std::uint64_t first, std::uint64_t last) {
    for (std::uint64_t x = first; x < last; ++x) out.offsets[x + 1] = length(x);
  });
  std::uint32_t max_degree = 0;
  for (std::uint64_t x = 0; x < rows; ++x) {
    max_degree = std::max<std::uint32_t>(max_degree, static_cast<std::uint32_t>(out.offsets[x + 1]));
    out.offsets[x + 1] += out.offsets[x];
  }
  out.max_degree = max_degree;
  // 2. Each row: the g lists renamed (m -> m g + b) and merged.
  out.neighbors.resize(out.offsets[rows]);
  parallel_ranges(rows, threads, [&](std::uint64_t first, std::uint64_t last) {
    for (std::uint64_t x = first; x < last; ++x) {
      const std::uint64_t a = x % g, l = x / g;
      vid_t* row = out.neighbors.data() + out.offsets[x];
      std::uint64_t at = 0;
      for (std::uint64_t b = 0; b < g; ++b) {
        const CsrSpan& p = parts[a * g + b];
        const std::uint64_t before = at;
        for (eoff_t e = p.offsets[l]; e < p.offsets[l + 1]; ++e) row[at++] = static_cast<vid_t>(p.neighbors[e] * g + b);
        if (before > 0) std::inplace_merge(row, row + before, row + at);
      }
    }
  });
  return out;
}

}  // namespace tricount
