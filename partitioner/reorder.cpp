#include "partitioner/reorder.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include "partitioner/run_files.hpp"
#include "src/threads.hpp"

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

VertexArray<vid_t> degree_order(std::span<const vid_t> degree, unsigned threads) {
  const std::uint64_t V = degree.size();
  const unsigned T = fill_threads(V * sizeof(vid_t), threads);
  const auto cut = runs::even_cuts(V, T);
  std::vector<vid_t> max_of(T, 0);
  parallel_for(T, [&](unsigned t) {
    for (std::uint64_t x = cut[t]; x < cut[t + 1]; ++x) max_of[t] = std::max(max_of[t], degree[x]);
  });
  const std::uint64_t max_degree = V ? *std::max_element(max_of.begin(), max_of.end()) : 0;
  // 1. Degrees below D are counted per thread and degree; the vertices of degree D and more
  //    (at most 2|E| / D <= 2|E| T / V of them) wait for a sort of their own.
  const std::uint64_t D = std::min<std::uint64_t>(max_degree + 1, std::max<std::uint64_t>(4096, V / T));
  std::vector<std::vector<vid_t>> count(T);
  std::vector<std::vector<std::pair<vid_t, vid_t>>> large(T);  // (degree, x), x ascending
  parallel_for(T, [&](unsigned t) {
    count[t].assign(D, 0);
    for (std::uint64_t x = cut[t]; x < cut[t + 1]; ++x) {
      if (degree[x] < D) ++count[t][degree[x]];
      else large[t].emplace_back(degree[x], static_cast<vid_t>(x));
    }
  });
  // 2. The first rank of each (degree, thread), degree-major and thread-minor: equal degrees
  //    keep the order of x, as a stable sort.
  std::vector<std::uint64_t> base(D + 1, 0);
  parallel_ranges(D, fill_threads(D * T * sizeof(vid_t), T), [&](std::uint64_t a, std::uint64_t b) {
    for (std::uint64_t d = a; d < b; ++d)
      for (unsigned t = 0; t < T; ++t) base[d + 1] += count[t][d];
  });
  for (std::uint64_t d = 0; d < D; ++d) base[d + 1] += base[d];
  parallel_ranges(D, fill_threads(D * T * sizeof(vid_t), T), [&](std::uint64_t a, std::uint64_t b) {
    for (std::uint64_t d = a; d < b; ++d) {
      std::uint64_t at = base[d];
      for (unsigned t = 0; t < T; ++t) at += std::exchange(count[t][d], static_cast<vid_t>(at));
    }
  });
  // 3. Each thread hands out the ranks of its own vertices.
  VertexArray<vid_t> new_id(V);
  parallel_for(T, [&](unsigned t) {
    for (std::uint64_t x = cut[t]; x < cut[t + 1]; ++x)
      if (degree[x] < D) new_id[x] = count[t][degree[x]]++;
  });
  // 4. The large degrees after all the others, by (degree, x).
  std::vector<std::pair<vid_t, vid_t>> rest;
  for (const auto& l : large) rest.insert(rest.end(), l.begin(), l.end());
  std::sort(rest.begin(), rest.end());
  for (std::uint64_t k = 0; k < rest.size(); ++k) new_id[rest[k].second] = static_cast<vid_t>(base[D] + k);
  return new_id;
}

VertexArray<vid_t> collective_order(std::span<const std::uint64_t> collective, std::span<const vid_t> out_degree,
                                    unsigned threads) {
  const std::uint64_t V = collective.size();
  auto less = [&](vid_t a, vid_t b) {
    if (collective[a] != collective[b]) return collective[a] < collective[b];
    if (out_degree[a] != out_degree[b]) return out_degree[a] < out_degree[b];
    return a < b;
  };
  const unsigned T = fill_threads(V * sizeof(vid_t), threads);
  // 1. Slices of the vertices sorted on their threads.
  VertexArray<vid_t> perm(V);
  const auto cut = runs::even_cuts(V, T);
  parallel_for(T, [&](unsigned t) {
    std::iota(perm.begin() + cut[t], perm.begin() + cut[t + 1], static_cast<vid_t>(cut[t]));
    std::sort(perm.begin() + cut[t], perm.begin() + cut[t + 1], less);
  });
  // 2. Key ranges of about V / T vertices: splitters from evenly spaced samples of every slice
  //    (the keys are distinct, so a range's bounds in each slice are exact).
  std::vector<vid_t> samples;
  for (unsigned t = 0; t < T; ++t)
    for (unsigned k = 1; k <= 32 && cut[t + 1] > cut[t]; ++k)
      samples.push_back(perm[cut[t] + (cut[t + 1] - cut[t]) * k / 33]);
  std::sort(samples.begin(), samples.end(), less);
  std::vector<std::vector<std::uint64_t>> bound(T + 1, std::vector<std::uint64_t>(T));
  for (unsigned s = 0; s < T; ++s) {
    bound[0][s] = cut[s];
    bound[T][s] = cut[s + 1];
  }
  parallel_for(T, [&](unsigned s) {
    for (unsigned r = 1; r < T; ++r) {
      const vid_t key = samples[samples.size() * r / T];
      bound[r][s] = static_cast<std::uint64_t>(
          std::lower_bound(perm.begin() + bound[r - 1][s], perm.begin() + cut[s + 1], key, less) - perm.begin());
    }
  });
  // 3. Each thread merges its key range from every slice and hands out the ranks from the
  //    range's first: the number of vertices of all earlier ranges.
  VertexArray<vid_t> new_id(V);
  parallel_for(T, [&](unsigned r) {
    std::uint64_t rank = 0;
    for (unsigned q = 0; q < r; ++q)
      for (unsigned s = 0; s < T; ++s) rank += bound[q + 1][s] - bound[q][s];
    std::vector<std::uint64_t> head(T), end(T);
    for (unsigned s = 0; s < T; ++s) head[s] = bound[r][s], end[s] = bound[r + 1][s];
    auto later = [&](unsigned a, unsigned b) { return less(perm[head[b]], perm[head[a]]); };
    std::vector<unsigned> heap;
    for (unsigned s = 0; s < T; ++s)
      if (head[s] < end[s]) heap.push_back(s);
    std::make_heap(heap.begin(), heap.end(), later);
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      const unsigned s = heap.back();
      new_id[perm[head[s]++]] = static_cast<vid_t>(rank++);
      if (head[s] < end[s]) std::push_heap(heap.begin(), heap.end(), later);
      else heap.pop_back();
    }
  });
  return new_id;
}

}  // namespace tricount
