// bench tool, not a product feature: the least a count of a block file must cost on a GPU
// (issue 20), computed from the blocks themselves, to set a measured count time against.
//
//   roofline_tool FILE.h5 [MEASURED_MS [SMS [CLOCK_GHZ [BANDWIDTH_TBS]]]]
//
// (defaults: one H200: 132 SMs, 1.98 GHz, 4.8 TB/s). Prints one JSON line:
//  * csr_bytes: every block a subtask reads (hash P(i,k), 1-hop P(i,j), 2-hop P(j,k); a
//    block serving two roles once), read once: offsets and neighbours. t_dram_ms = that
//    over the bandwidth: no count can move less.
//  * elements: the 2-hop elements TRUST walks, sum over edges (u, v) of |N2(v)| (what the
//    bench driver reports as probes); in_range: those inside [min H(u), max H(u)], what a
//    u-side-only kernel probes.
//  * fewest_probes: every edge (u, v) intersected from its shorter side, H(u) or N2(v),
//    probing only the elements inside the other side's key range: the fewest probes a
//    hash or bitmap intersection makes. t_smem_ms = that over the shared-memory rate at
//    one 4-byte shared load per probe (32 lanes a cycle per SM, no bank conflicts).
//  * gather_bytes: the 32-byte sectors of the shorter side's lists (the part in range) plus
//    a sector for v's offsets, per edge, with no reuse through L2: what the gathers cost
//    where the blocks dwarf L2 (uniform 2^24); an estimate, not a bound.
//  * bound_ms = max(t_dram_ms, t_smem_ms), and fraction = bound_ms / MEASURED_MS.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "src/block_format.hpp"
#include "src/task_plan.hpp"

namespace {

using namespace tricount;

struct Work {
  std::uint64_t elements = 0, in_range = 0, fewest = 0, gather_bytes = 0;
  void add(const Work& o) {
    elements += o.elements;
    in_range += o.in_range;
    fewest += o.fewest;
    gather_bytes += o.gather_bytes;
  }
};

// Elements of the sorted list [b, e) inside [lo, hi], and where they start.
std::pair<const vid_t*, std::uint64_t> in_range(const vid_t* b, const vid_t* e, vid_t lo, vid_t hi) {
  const vid_t* first = std::lower_bound(b, e, lo);
  const vid_t* last = std::upper_bound(first, e, hi);
  return {first, static_cast<std::uint64_t>(last - first)};
}

std::uint64_t sectors(const vid_t* first, std::uint64_t count) {
  if (count == 0) return 0;
  const auto a = reinterpret_cast<std::uintptr_t>(first) / 32;
  const auto z = (reinterpret_cast<std::uintptr_t>(first + count) - 1) / 32;
  return z - a + 1;
}

// Rows [r0, r1) of one subtask.
Work subtask_rows(const CsrBlock& hash, const CsrBlock& one, const CsrBlock& two, std::uint64_t r0, std::uint64_t r1) {
  Work w;
  for (std::uint64_t u = r0; u < r1; ++u) {
    const vid_t* hb = hash.neighbors.data() + hash.offsets[u];
    const vid_t* he = hash.neighbors.data() + hash.offsets[u + 1];
    if (hb == he) continue;
    const std::uint64_t keys = static_cast<std::uint64_t>(he - hb);
    for (eoff_t e = one.offsets[u]; e < one.offsets[u + 1]; ++e) {
      const vid_t v = one.neighbors[e];
      const vid_t* lb = two.neighbors.data() + two.offsets[v];
      const vid_t* le = two.neighbors.data() + two.offsets[v + 1];
      const std::uint64_t len = static_cast<std::uint64_t>(le - lb);
      w.elements += len;
      if (len == 0) continue;
      const auto two_in = in_range(lb, le, hb[0], he[-1]);
      w.in_range += two_in.second;
      const auto shorter = len <= keys ? two_in : in_range(hb, he, lb[0], le[-1]);
      w.fewest += shorter.second;
      w.gather_bytes += 32 * (sectors(shorter.first, shorter.second) + 1);
    }
  }
  return w;
}

// Argument i as a number >= 0 (fallback when absent).
double arg_or(int argc, char** argv, int i, double fallback) {
  if (argc <= i) return fallback;
  char* end = nullptr;
  const double x = std::strtod(argv[i], &end);
  if (end == argv[i] || *end != '\0' || !(x >= 0)) throw UsageError(std::string("'") + argv[i] + "' is not a number >= 0");
  return x;
}

}  // namespace

int main(int argc, char** argv) try {
  // 1. Arguments.
  if (argc < 2 || argc > 6) throw UsageError("usage: roofline_tool FILE.h5 [MEASURED_MS [SMS [CLOCK_GHZ [BANDWIDTH_TBS]]]]");
  const std::string file = argv[1];
  const double measured_ms = arg_or(argc, argv, 2, 0);
  const double sms = arg_or(argc, argv, 3, 132), clock_ghz = arg_or(argc, argv, 4, 1.98), tbs = arg_or(argc, argv, 5, 4.8);
  // 2. The blocks.
  BlockFileReader reader(file);
  const std::uint32_t n = reader.header().parts;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<CsrBlock> blocks;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) blocks.push_back(reader.read_block({i, j}, threads));
  auto block = [&](std::uint32_t i, std::uint32_t j) -> const CsrBlock& { return blocks[std::size_t(i) * n + j]; };
  // 3. Every subtask: its blocks' bytes, and its rows' work over the threads.
  const TaskPlan plan(n, 1);
  std::uint64_t csr_bytes = 0;
  Work total;
  for (std::uint64_t id = 0; id < plan.num_tasks(); ++id) {
    const Task t = plan.decode(id);
    const std::set<std::pair<std::uint32_t, std::uint32_t>> used = {{t.i, t.k}, {t.i, t.j}, {t.j, t.k}};
    for (const auto& [i, j] : used) csr_bytes += block(i, j).bytes();
    const CsrBlock &hash = block(t.i, t.k), &one = block(t.i, t.j), &two = block(t.j, t.k);
    std::vector<Work> parts(threads);
    std::vector<std::thread> pool;
    const std::uint64_t rows = one.rows, step = (rows + threads * 64 - 1) / (threads * 64);
    for (unsigned th = 0; th < threads; ++th)
      pool.emplace_back([&, th] {
        for (std::uint64_t r0 = th * step; r0 < rows; r0 += std::uint64_t(threads) * step)
          parts[th].add(subtask_rows(hash, one, two, r0, std::min(rows, r0 + step)));
      });
    for (auto& p : pool) p.join();
    for (const Work& p : parts) total.add(p);
  }
  // 4. The bounds.
  const double bandwidth = tbs * 1e12, probe_rate = sms * clock_ghz * 1e9 * 32;
  const double t_dram_ms = csr_bytes / bandwidth * 1e3, t_smem_ms = total.fewest / probe_rate * 1e3;
  const double t_gather_ms = total.gather_bytes / bandwidth * 1e3;
  const double bound_ms = std::max(t_dram_ms, t_smem_ms);
  std::printf("ROOFLINE {\"file\": \"%s\", \"parts\": %u, \"csr_bytes\": %llu, \"elements\": %llu, \"in_range\": %llu, "
              "\"fewest_probes\": %llu, \"gather_bytes\": %llu, \"t_dram_ms\": %.4f, \"t_smem_ms\": %.4f, "
              "\"t_gather_ms\": %.4f, \"bound_ms\": %.4f, \"measured_ms\": %.4f, \"fraction\": %.4f}\n",
              file.c_str(), n, (unsigned long long)csr_bytes, (unsigned long long)total.elements,
              (unsigned long long)total.in_range, (unsigned long long)total.fewest, (unsigned long long)total.gather_bytes,
              t_dram_ms, t_smem_ms, t_gather_ms, bound_ms, measured_ms, measured_ms > 0 ? bound_ms / measured_ms : 0.0);
  return 0;
} catch (const UsageError& e) {
  std::fprintf(stderr, "roofline_tool: error: %s\n", e.what());
  return 2;
} catch (const std::exception& e) {
  std::fprintf(stderr, "roofline_tool: error: %s\n", e.what());
  return 1;
}
