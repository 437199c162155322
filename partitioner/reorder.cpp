#include "partitioner/reorder.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include "partitioner/run_files.hpp"

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

std::vector<vid_t> degree_order(const std::vector<vid_t>& degree) {
  vid_t max_degree = 0;
  for (vid_t d : degree) max_degree = std::max(max_degree, d);
  std::vector<vid_t> start(std::uint64_t(max_degree) + 1, 0);
  for (vid_t d : degree) ++start[d];
  vid_t sum = 0;
  for (vid_t& c : start) sum += std::exchange(c, sum);
  std::vector<vid_t> new_id(degree.size());
  for (std::uint64_t x = 0; x < degree.size(); ++x) new_id[x] = start[degree[x]]++;
  return new_id;
}

std::vector<vid_t> collective_order(const std::vector<std::uint64_t>& collective, const std::vector<vid_t>& out_degree,
                                    unsigned threads) {
  const std::uint64_t V = collective.size();
  auto less = [&](vid_t a, vid_t b) {
    if (collective[a] != collective[b]) return collective[a] < collective[b];
    if (out_degree[a] != out_degree[b]) return out_degree[a] < out_degree[b];
    return a < b;
  };
  std::vector<vid_t> perm(V);
  std::iota(perm.begin(), perm.end(), vid_t{0});
  const auto cut = runs::even_cuts(V, threads);
  runs::parallel_for(threads, [&](unsigned t) { std::sort(perm.begin() + cut[t], perm.begin() + cut[t + 1], less); });
  std::vector<vid_t> new_id(V);
  std::vector<std::uint64_t> head(cut.begin(), cut.end() - 1);
  for (std::uint64_t r = 0; r < V; ++r) {
    unsigned best = threads;
    for (unsigned t = 0; t < threads; ++t)
      if (head[t] < cut[t + 1] && (best == threads || less(perm[head[t]], perm[head[best]]))) best = t;
    new_id[perm[head[best]++]] = static_cast<vid_t>(r);
  }
  return new_id;
}

}  // namespace tricount
