// bench tool, not a product feature: makes BV graphs for benchmarks and measures decoding.
//   webgraph_tool encode IN.bin64 OUT_BASENAME   BV graph of a bin64 edge list (directed
//                                                arcs as given; duplicates dropped), checked by
//                                                decoding it back
//   webgraph_tool decode BASENAME [THREADS [sequential]]   decode rate in arcs/s
//   webgraph_tool bin64 BASENAME OUT.bin64       the arcs of a BV graph as bin64 (to compare)
// The encoder is plain greedy BVGraph compression (window 7, maxrefcount 3, minimum interval
// 4, zeta_3 residuals, default codes): each list takes the reference in the window that
// costs the fewest bits.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "input/webgraph.hpp"
#include "input/webgraph_bits.hpp"

namespace {

using namespace tricount;
using List = std::vector<std::uint64_t>;

constexpr unsigned kWindow = 7, kMaxRef = 3, kMinInterval = 4, kZeta = 3;

// The BV encoding of list `succ` of node x against reference list `ref` (ref_delta 0: none).
void encode_list(bv::BitWriter& w, std::uint64_t x, const List& succ, std::uint64_t ref_delta, const List& ref) {
  // 1. Outdegree and reference.
  w.write_gamma(succ.size());
  if (succ.empty()) return;
  w.write_unary(ref_delta);
  // 2. Copy blocks: runs of copied / skipped elements of the reference list; the last run is
  // implied by the parity of the count.
  List extra;
  if (ref_delta > 0) {
    std::vector<std::uint64_t> runs;
    bool copying = true;
    std::uint64_t run = 0;
    for (std::uint64_t v : ref) {
      const bool in = std::binary_search(succ.begin(), succ.end(), v);
      if (in != copying) {
        runs.push_back(run);
        copying = in;
        run = 0;
      }
      ++run;
    }
    runs.push_back(run);
    runs.pop_back();
    w.write_gamma(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) w.write_gamma(i == 0 ? runs[i] : runs[i] - 1);
    for (std::uint64_t v : succ)
      if (!std::binary_search(ref.begin(), ref.end(), v)) extra.push_back(v);
  } else {
    extra = succ;
  }
  if (extra.empty()) return;
  // 3. Intervals: maximal runs of consecutive ids at least kMinInterval long.
  List residuals;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> intervals;
  for (std::size_t i = 0; i < extra.size();) {
    std::size_t j = i + 1;
    while (j < extra.size() && extra[j] == extra[j - 1] + 1) ++j;
    if (j - i >= kMinInterval) intervals.emplace_back(extra[i], j - i);
    else residuals.insert(residuals.end(), extra.begin() + static_cast<std::ptrdiff_t>(i), extra.begin() + static_cast<std::ptrdiff_t>(j));
    i = j;
  }
  w.write_gamma(intervals.size());
  std::uint64_t next_min = 0;
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    const auto [left, len] = intervals[i];
    w.write_gamma(i == 0 ? bv::int_to_nat(static_cast<std::int64_t>(left) - static_cast<std::int64_t>(x)) : left - next_min);
    w.write_gamma(len - kMinInterval);
    next_min = left + len + 1;
  }
  // 4. Residuals: the first relative to x, then gaps minus one.
  for (std::size_t i = 0; i < residuals.size(); ++i)
    w.write_zeta(i == 0 ? bv::int_to_nat(static_cast<std::int64_t>(residuals[0]) - static_cast<std::int64_t>(x))
                        : residuals[i] - residuals[i - 1] - 1,
                 kZeta);
}

std::vector<RawEdge> read_bin64(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open");
  std::vector<RawEdge> edges;
  std::uint64_t pair[2];
  while (in.read(reinterpret_cast<char*>(pair), sizeof pair)) edges.push_back(RawEdge{pair[0], pair[1]});
  return edges;
}

void write_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw Error(path + ": cannot write");
}

int encode(const std::string& input, const std::string& base) {
  // 1. Sorted, duplicate-free arcs.
  std::vector<RawEdge> arcs = read_bin64(input);
  std::sort(arcs.begin(), arcs.end(), [](const RawEdge& a, const RawEdge& b) { return a.u != b.u ? a.u < b.u : a.v < b.v; });
  arcs.erase(std::unique(arcs.begin(), arcs.end()), arcs.end());
  std::uint64_t nodes = 0;
  for (const RawEdge& e : arcs) nodes = std::max({nodes, e.u + 1, e.v + 1});
  // 2. Lists in node order, each against the cheapest reference of the window.
  bv::BitWriter graph, offsets;
  offsets.write_gamma(0);
  std::vector<List> window(kWindow + 1);
  std::vector<unsigned> chain(kWindow + 1, 0);
  std::size_t a = 0;
  for (std::uint64_t x = 0; x < nodes; ++x) {
    List& succ = window[x % (kWindow + 1)];
    succ.clear();
    while (a < arcs.size() && arcs[a].u == x) succ.push_back(arcs[a++].v);
    std::uint64_t best_delta = 0;
    std::uint64_t best_bits = ~std::uint64_t{0};
    for (std::uint64_t d = 0; d <= std::min<std::uint64_t>(kWindow, x); ++d) {
      if (d > 0 && chain[(x - d) % (kWindow + 1)] >= kMaxRef) continue;
      bv::BitWriter trial;
      encode_list(trial, x, succ, d, window[(x - d) % (kWindow + 1)]);
      if (trial.bits() < best_bits) best_bits = trial.bits(), best_delta = d;
    }
    const std::uint64_t before = graph.bits();
    encode_list(graph, x, succ, best_delta, window[(x - best_delta) % (kWindow + 1)]);
    chain[x % (kWindow + 1)] = (best_delta && !succ.empty()) ? chain[(x - best_delta) % (kWindow + 1)] + 1 : 0;
    offsets.write_gamma(graph.bits() - before);
  }
  write_file(base + ".graph", graph.bytes());
  write_file(base + ".offsets", offsets.bytes());
  std::ofstream props(base + ".properties");
  props << "#BVGraph properties (bench/webgraph_tool)\ngraphclass=it.unimi.dsi.webgraph.BVGraph\nversion=0\nnodes=" << nodes
        << "\narcs=" << arcs.size() << "\nwindowsize=" << kWindow << "\nmaxrefcount=" << kMaxRef
        << "\nminintervallength=" << kMinInterval << "\nzetak=" << kZeta << "\ncompressionflags=\n";
  props.close();
  // 3. Decoded back (on two threads, by the offsets) it must give the same arcs.
  BvDecodeOptions o;
  o.threads = 2;
  auto source = open_webgraph(base, o);
  std::vector<RawEdge> batch;
  std::size_t i = 0;
  while (source->next_batch(batch, 1 << 16))
    for (const RawEdge& e : batch) {
      if (i >= arcs.size() || !(arcs[i] == e)) {
        std::fprintf(stderr, "webgraph_tool: decoded arc %zu differs from the input\n", i);
        return 1;
      }
      ++i;
    }
  if (i != arcs.size()) {
    std::fprintf(stderr, "webgraph_tool: decoded %zu of %zu arcs\n", i, arcs.size());
    return 1;
  }
  std::printf("encoded %s: %llu nodes, %zu arcs, %.3f bits/arc -> %s.graph; decoded back: same arcs\n", input.c_str(),
              static_cast<unsigned long long>(nodes), arcs.size(), double(graph.bits()) / double(std::max<std::size_t>(arcs.size(), 1)),
              base.c_str());
  return 0;
}

// User + system CPU seconds of this process (the development machine is shared: wall time
// there says more about the other users than about the decoder).
double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

int decode(const std::string& base, unsigned threads, bool sequential) {
  BvDecodeOptions o;
  o.threads = threads;
  o.use_offsets = !sequential;
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds();
  auto source = open_webgraph(base, o);
  std::vector<RawEdge> batch;
  std::uint64_t arcs = 0, check = 0;
  while (source->next_batch(batch, 1 << 18)) {
    arcs += batch.size();
    for (const RawEdge& e : batch) check += e.v;  // touch every arc
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = cpu_seconds() - cpu0;
  std::printf("decoded %s: %llu arcs in %.3f s on %u threads%s: %.3g arcs/s; %.3f CPU s, %.3g arcs per CPU s (checksum %llu)\n",
              base.c_str(), static_cast<unsigned long long>(arcs), s, source->parallel() ? threads : 1u,
              source->parallel() ? "" : " (sequential)", double(arcs) / s, cpu, double(arcs) / cpu, static_cast<unsigned long long>(check));
  return 0;
}

int to_bin64(const std::string& base, const std::string& output) {
  auto source = open_webgraph(base, BvDecodeOptions{});
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  std::vector<RawEdge> batch;
  std::vector<std::uint64_t> words;
  while (source->next_batch(batch, 1 << 18)) {
    words.clear();
    for (const RawEdge& e : batch) words.push_back(e.u), words.push_back(e.v);
    out.write(reinterpret_cast<const char*>(words.data()), static_cast<std::streamsize>(words.size() * 8));
  }
  if (!out) throw Error(output + ": cannot write");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "encode" && argc == 4) return encode(argv[2], argv[3]);
    if (mode == "bin64" && argc == 4) return to_bin64(argv[2], argv[3]);
    if (mode == "decode" && argc >= 3)
      return decode(argv[2], argc > 3 ? static_cast<unsigned>(std::stoul(argv[3])) : 1, argc > 4 && std::string(argv[4]) == "sequential");
    std::fprintf(stderr, "usage: webgraph_tool encode IN.bin64 OUT_BASENAME | decode BASENAME [THREADS [sequential]] | bin64 BASENAME OUT.bin64\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "webgraph_tool: error: %s\n", e.what());
    return 1;
  }
}
