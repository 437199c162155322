// Independent reference triangle counter for tests. It shares no code with the production
// path (no partitioner, no blocks, no hashing): it normalises the edge list its own way
// (std::set of unordered pairs) and counts by sorted-adjacency intersection over u < v < w
// in plain input-id order.
#pragma once

#include <algorithm>
#include <iterator>
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

// Per vertex, by brute force over each vertex's pairs of neighbours (no orientation): the
// undirected degree after dropping loops and duplicates, and the triangles the vertex is in.
// Only vertices with an edge appear. Meant for small graphs (sum of d^2 work).
struct VertexTriangles {
  std::uint64_t degree = 0;
  std::uint64_t triangles = 0;
  bool operator==(const VertexTriangles&) const = default;
};

inline std::map<std::uint64_t, VertexTriangles> per_vertex_triangles(
    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& edges) {
  std::map<std::uint64_t, std::set<std::uint64_t>> adjacent;
  for (auto [a, b] : edges) {
    if (a == b) continue;
    adjacent[a].insert(b);
    adjacent[b].insert(a);
  }
  std::map<std::uint64_t, VertexTriangles> out;
  for (const auto& [x, nx] : adjacent) {
    VertexTriangles& t = out[x];
    t.degree = nx.size();
    for (auto p = nx.begin(); p != nx.end(); ++p)
      for (auto q = std::next(p); q != nx.end(); ++q) t.triangles += adjacent[*p].count(*q);
  }
  return out;
}

}  // namespace tricount::reference
