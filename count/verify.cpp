#include "count/verify.hpp"

#include <algorithm>

namespace tricount {

count_t verify_count(const BlockFileReader& file) {
  const GraphHeader& h = file.header();
  const std::uint64_t n = h.parts, V = h.vertices;
  std::vector<eoff_t> offsets(V + 1, 0);
  std::vector<vid_t> targets(h.edges);
  // Two passes over the blocks: out-degrees, then placement.
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<eoff_t> cursor;
    if (pass == 1) cursor.assign(offsets.begin(), offsets.end() - 1);
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = 0; j < n; ++j) {
        const CsrBlock b = file.read_block({i, j});
        for (std::uint64_t r = 0; r < b.rows; ++r) {
          const std::uint64_t u = r * n + i;
          for (eoff_t e = b.offsets[r]; e < b.offsets[r + 1]; ++e) {
            if (pass == 0) ++offsets[u + 1];
            else targets[cursor[u]++] = static_cast<vid_t>(std::uint64_t(b.neighbors[e]) * n + j);
          }
        }
      }
    if (pass == 0)
      for (std::uint64_t x = 0; x < V; ++x) offsets[x + 1] += offsets[x];
  }
  for (std::uint64_t x = 0; x < V; ++x) std::sort(targets.begin() + offsets[x], targets.begin() + offsets[x + 1]);
  count_t total = 0;
  for (std::uint64_t u = 0; u < V; ++u)
    for (eoff_t e = offsets[u]; e < offsets[u + 1]; ++e) {
      const vid_t v = targets[e];
      auto a = targets.begin() + offsets[u], a_end = targets.begin() + offsets[u + 1];
      auto b = targets.begin() + offsets[v], b_end = targets.begin() + offsets[v + 1];
      while (a != a_end && b != b_end) {
        if (*a < *b) ++a;
        else if (*b < *a) ++b;
        else ++total, ++a, ++b;
      }
    }
  return total;
}

}  // namespace tricount
