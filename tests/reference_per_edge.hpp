// Independent per-edge reference for tests (as reference_counter.hpp: no partitioner, no
// blocks, no orientation): each undirected edge after dropping loops and duplicates, keyed
// (smaller input id, larger), with the number of common neighbours of its two ends, by
// std::set intersection. Meant for small graphs (sum over edges of the two degrees).
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace tricount::reference {

inline std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> per_edge_triangles(
    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& edges) {
  std::map<std::uint64_t, std::set<std::uint64_t>> adjacent;
  for (auto [a, b] : edges) {
    if (a == b) continue;
    adjacent[a].insert(b);
    adjacent[b].insert(a);
  }
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> out;
  for (const auto& [a, na] : adjacent)
    for (std::uint64_t b : na) {
      if (b < a) continue;
      const std::set<std::uint64_t>& nb = adjacent[b];
      std::uint64_t common = 0;
      auto p = na.begin(), q = nb.begin();
      while (p != na.end() && q != nb.end()) {
        if (*p < *q) ++p;
        else if (*q < *p) ++q;
        else ++common, ++p, ++q;
      }
      out[{a, b}] = common;
    }
  return out;
}

}  // namespace tricount::reference
