// Rank 0's per-vertex rows (class_rows + PerVertexSummary::add) on 2^20-row pieces at 1 to 16
// threads, columns reused as in the step; beside it, a memcpy of the same bytes on as many
// threads, and the time to start and join that many threads. Medians of 9 pieces, ms.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "count/per_vertex.hpp"
#include "src/threads.hpp"
using namespace tricount;

template <class F>
double median_ms(int reps, F&& f) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  const std::size_t n = std::size_t{1} << 20;
  std::vector<raw_id_t> ids(n);
  std::vector<std::uint64_t> deg(n), tri(n);
  std::mt19937_64 g(1);
  for (std::size_t i = 0; i < n; ++i) ids[i] = g() % (1u << 24), deg[i] = 1 + g() % 50, tri[i] = g() % 100;
  std::vector<char> src(64 << 20, 1), dst(64 << 20, 0);
  for (const unsigned t : {1u, 2u, 4u, 8u, 16u}) {
    VertexRows reuse = class_rows(ids, deg, tri, t);
    const double rows = median_ms(9, [&] { reuse = class_rows(ids, deg, tri, t, std::move(reuse)); });
    const double summary = median_ms(9, [&] { PerVertexSummary s; s.add(reuse, t); });
    const double copy = median_ms(9, [&] {
      parallel_ranges(src.size(), t, [&](std::uint64_t a, std::uint64_t b) { std::memcpy(dst.data() + a, src.data() + a, b - a); });
    });
    const double spawn = median_ms(9, [&] { parallel_for(t, [](unsigned) {}); });
    std::printf("threads %2u  rows %6.2f  summary %6.2f  memcpy 64 MiB %6.2f (%5.1f GB/s)  start+join %5.3f\n", t, rows, summary, copy,
                64.0 * 1.048576 / copy, spawn);
  }
}
