#include "partitioner/reorder.hpp"

#include <algorithm>
#include <numeric>

namespace tricount {

VertexOrder parse_vertex_order(std::string_view name) {
  if (name == "degree") return VertexOrder::Degree;
  if (name == "collective") return VertexOrder::Collective;
  throw UsageError("--order: unknown order '" + std::string(name) + "' (choose degree or collective)");
}

std::string_view to_string(VertexOrder order) {
  switch (order) {
    case VertexOrder::Degree: return "degree";
    case VertexOrder::Collective: return "collective";
  }
  return "?";
}

namespace {

// Rank of each vertex by ascending key, ties by old id: a stable sort of the ids.
template <class Key>
std::vector<vid_t> rank_by(std::uint64_t n, Key key) {
  std::vector<vid_t> by_rank(n);
  std::iota(by_rank.begin(), by_rank.end(), vid_t{0});
  std::stable_sort(by_rank.begin(), by_rank.end(), [&](vid_t a, vid_t b) { return key(a) < key(b); });
  std::vector<vid_t> new_id(n);
  for (std::uint64_t r = 0; r < n; ++r) new_id[by_rank[r]] = static_cast<vid_t>(r);
  return new_id;
}

}  // namespace

std::vector<vid_t> compute_vertex_order(VertexOrder order, const std::vector<vid_t>& degree,
                                        const OrientedCsr& oriented) {
  const std::uint64_t n = degree.size();
  switch (order) {
    case VertexOrder::Degree:
      // Same key as the orientation, so every oriented edge goes from a lower to a higher id.
      return rank_by(n, [&](vid_t x) { return degree[x]; });
    case VertexOrder::Collective: {
      // TRUST (Sec. 4): vertices whose out-neighbourhoods are probed together should not
      // share hash buckets. Order by the collective out-degree (a vertex's own out-degree
      // plus its out-neighbours'), then by out-degree, so heavy probe lists spread.
      std::vector<std::uint64_t> outdeg(n), collective(n);
      for (std::uint64_t x = 0; x < n; ++x) outdeg[x] = oriented.offsets[x + 1] - oriented.offsets[x];
      for (std::uint64_t x = 0; x < n; ++x) {
        std::uint64_t sum = outdeg[x];
        for (eoff_t e = oriented.offsets[x]; e < oriented.offsets[x + 1]; ++e) sum += outdeg[oriented.targets[e]];
        collective[x] = sum;
      }
      return rank_by(n, [&](vid_t x) { return std::pair(collective[x], outdeg[x]); });
    }
  }
  throw Error("unknown vertex order");
}

}  // namespace tricount
