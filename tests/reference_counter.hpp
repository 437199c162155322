// Independent reference triangle counter for tests. It shares no code with the production
// path (no partitioner, no blocks, no hashing): it normalises the edge list its own way
// (std::set of unordered pairs) and counts by sorted-adjacency intersection over u < v < w
// in plain input-id order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace tricount::reference {

inline std::uint64_t count_triangles(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& edges) {
  std::set<std::pair<std::uint64_t, std::uint64_t>> undirected;
  for (auto [a, b] : edges) {
    if (a == b) continue;
    undirected.insert(a < b ? std::pair(a, b) : std::pair(b, a));
  }
  std::map<std::uint64_t, std::vector<std::uint64_t>> higher;  // neighbours with larger id
  for (auto [a, b] : undirected) higher[a].push_back(b);       // set order keeps lists sorted
  std::uint64_t total = 0;
  for (const auto& [u, nu] : higher) {
    for (std::uint64_t v : nu) {
      auto it = higher.find(v);
      if (it == higher.end()) continue;
      const auto& nv = it->second;
      // |N+(u) ∩ N+(v)|: each w > v > u closes u, v, w once.
      std::size_t p = 0, q = 0;
      while (p < nu.size() && q < nv.size()) {
        if (nu[p] < nv[q]) ++p;
        else if (nv[q] < nu[p]) ++q;
        else { ++total; ++p; ++q; }
      }
    }
  }
  return total;
}

}  // namespace tricount::reference
