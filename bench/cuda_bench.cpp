// The CUDA backend's benchmark drivers (bench/bench_cuda.sh runs them; built beside the tests
// as build*/tests/cuda_bench). Both read the graph into memory and count it in this process,
// task by task with TaskPlan(n, 1), blocks already on the GPU after a warm-up run.
//
//   cuda_bench count       the count time: the median and best of REPS runs (CUDA events
//                          around the classification, hash builds and counting kernels), the
//                          first run's transfer, and the work (probes = sum over rows u and
//                          v in N1(u) of |N2(v)|). Prints one line "BENCH {json}".
//   cuda_bench per-vertex  per-vertex counting off and on: two backends on the same blocks,
//                          REPS runs of each alternating, every per-vertex run's counts taken
//                          and summed to 3 x triangles. Prints one line "BENCHPV {json}".
//   cuda_bench per-edge    per-edge counting off, on (the counting kernels' kPerEdge form) and
//                          on with the sorted-list kernel (edge-lists=1): three backends, REPS
//                          runs of each alternating; every run's supports sum to 3 x triangles
//                          and both kernels' supports are equal edge by edge. One line
//                          "BENCHPE {json}".
//
// The graph and settings come from the environment, so that bench_cuda.sh's VARIANTS can set
// them per run: TRICOUNT_BENCH_FILE (an HDF5 block file) or, for count only,
// TRICOUNT_BENCH_GRAPH (kronecker:SCALE | uniform:LOG2V:LOG2E | grid:SIDE, generated and
// partitioned in memory into TRICOUNT_BENCH_PARTS parts); TRICOUNT_BENCH_REPS (10);
// TRICOUNT_BENCH_TUNING (the backend's tuning as tricount-count --cuda-tuning takes it),
// TRICOUNT_BENCH_CTA_THRESHOLD (0: by the task) and TRICOUNT_BENCH_CHUNK (0); count only:
// TRICOUNT_BENCH_CPU=1 (check the count against the CPU backend).
//
// Exit 0 with the line printed; 1 when a check fails (no line) or there is no CUDA GPU;
// 2 on a usage error.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "input/generators.hpp"
#include "partitioner/partition.hpp"
#include "src/block_format.hpp"
#include "src/task_plan.hpp"
#include "worker/backend.hpp"
#include "worker/block_cache.hpp"

namespace tricount {
namespace {

using Clock = std::chrono::steady_clock;

std::string env_str(const char* name, const char* fallback = "") {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

struct UsageFailure {
  std::string what;
};

// A check of the benchmark's own results: reported, and the run ends with exit 1.
bool checks_failed = false;
void check(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "cuda_bench: check failed: %s\n", what.c_str());
  checks_failed = true;
}

PartitionedGraph read_graph(const std::string& file) {
  PartitionedGraph g;
  BlockFileReader r(file);
  g.header = r.header();
  for (std::uint32_t i = 0; i < g.header.parts; ++i)
    for (std::uint32_t j = 0; j < g.header.parts; ++j) g.blocks.push_back(r.read_block({i, j}));
  return g;
}

PartitionedGraph generate_graph(const std::string& spec, std::uint32_t parts) {
  std::unique_ptr<EdgeSource> src;
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  std::vector<std::uint64_t> args;
  for (std::size_t p = colon; p != std::string::npos;) {
    const std::size_t q = spec.find(':', p + 1);
    args.push_back(std::stoull(spec.substr(p + 1, q == std::string::npos ? std::string::npos : q - p - 1)));
    p = q;
  }
  if (kind == "kronecker") {
    KroneckerSpec k;
    k.scale = static_cast<unsigned>(args.at(0));
    src = make_kronecker_source(k);
  } else if (kind == "uniform") {
    UniformSpec u;
    u.vertices = std::uint64_t{1} << args.at(0);
    u.edges = std::uint64_t{1} << args.at(1);
    src = make_uniform_source(u);
  } else if (kind == "grid") {
    Grid3dSpec d;
    d.nx = d.ny = d.nz = args.at(0);
    src = make_grid3d_source(d);
  } else {
    throw UsageFailure{"TRICOUNT_BENCH_GRAPH: unknown graph kind '" + kind + "' (kronecker, uniform or grid)"};
  }
  PartitionOptions o;
  o.parts = parts;
  return partition_edges(*src, o);
}

// Every task of TaskPlan(n, 1) with `backend`; block serials 1 + i * n + j.
count_t count_all(const PartitionedGraph& g, CountBackend& backend, CountStats& stats) {
  const std::uint32_t n = g.header.parts;
  const TaskPlan plan(n, 1);
  count_t total = 0;
  for (std::uint64_t id = 0; id < plan.num_tasks(); ++id) {
    const Task t = plan.decode(id);
    auto v = [&](std::uint32_t i, std::uint32_t j) { return make_block_view(g.block(i, j), 1 + std::uint64_t(i) * n + j); };
    total += backend.count(TaskBlocks{v(t.i, t.k), v(t.i, t.j), v(t.j, t.k), 0, 1}, stats);
  }
  return total;
}

double median_of(std::vector<double> times, double fallback) {
  std::sort(times.begin(), times.end());
  return times.empty() ? fallback : times[times.size() / 2];
}

int bench_count() {
  const std::string spec = env_str("TRICOUNT_BENCH_GRAPH");
  const std::string file = env_str("TRICOUNT_BENCH_FILE");
  const int reps = std::atoi(env_str("TRICOUNT_BENCH_REPS", "10").c_str());
  const std::uint32_t parts = std::atoi(env_str("TRICOUNT_BENCH_PARTS", "1").c_str());
  if (spec.empty() && file.empty()) throw UsageFailure{"set TRICOUNT_BENCH_GRAPH or TRICOUNT_BENCH_FILE"};
  const auto t0 = Clock::now();
  const PartitionedGraph g = file.empty() ? generate_graph(spec, parts) : read_graph(file);
  const double load_s = std::chrono::duration<double>(Clock::now() - t0).count();
  BackendOptions bo;
  bo.cta_degree_threshold = std::atoi(env_str("TRICOUNT_BENCH_CTA_THRESHOLD", "0").c_str());
  bo.chunk_size = std::atoi(env_str("TRICOUNT_BENCH_CHUNK", "0").c_str());
  bo.cuda_tuning = parse_cuda_tuning(env_str("TRICOUNT_BENCH_TUNING"));
  auto gpu = make_backend(BackendKind::Cuda, bo);
  const std::uint32_t n = g.header.parts;
  CountStats warm;
  const auto w0 = Clock::now();
  const count_t triangles = count_all(g, *gpu, warm);  // first run: transfers included
  const double first_wall = std::chrono::duration<double>(Clock::now() - w0).count();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    CountStats st;
    check(count_all(g, *gpu, st) == triangles, "run " + std::to_string(r) + " counted other triangles than the first");
    times.push_back(st.count_seconds);
  }
  // Work: 2-hop elements walked, sum over rows u and v in N1(u) of |N2(v)|.
  std::uint64_t probes = 0;
  const TaskPlan plan(n, 1);
  for (std::uint64_t id = 0; id < plan.num_tasks(); ++id) {
    const Task t = plan.decode(id);
    const CsrBlock& one = g.block(t.i, t.j);
    const CsrBlock& two = g.block(t.j, t.k);
    const CsrBlock& hash = g.block(t.i, t.k);
    for (std::uint64_t u = 0; u < one.rows; ++u) {
      if (hash.offsets[u] == hash.offsets[u + 1]) continue;
      for (eoff_t e = one.offsets[u]; e < one.offsets[u + 1]; ++e)
        probes += two.offsets[one.neighbors[e] + 1] - two.offsets[one.neighbors[e]];
    }
  }
  const double median = median_of(times, warm.count_seconds);
  const double best = times.empty() ? warm.count_seconds : *std::min_element(times.begin(), times.end());
  if (env_str("TRICOUNT_BENCH_CPU") == "1") {
    BackendOptions co;
    co.threads = 0;
    CountStats unused;
    check(count_all(g, *make_cpu_backend(co), unused) == triangles, "the CPU backend counts other triangles");
  }
  if (checks_failed) return 1;
  std::printf("BENCH {\"graph\": \"%s\", \"parts\": %u, \"vertices\": %llu, \"edges\": %llu, \"triangles\": %llu, "
              "\"count_ms_median\": %.4f, \"count_ms_best\": %.4f, \"first_count_ms\": %.4f, \"transfer_ms\": %.3f, "
              "\"bytes\": %llu, \"first_wall_ms\": %.3f, \"build_s\": %.3f, \"probes\": %llu, \"device\": \"%s\"}\n",
              (file.empty() ? spec : file).c_str(), n, (unsigned long long)g.header.vertices,
              (unsigned long long)g.header.edges, (unsigned long long)triangles, median * 1e3, best * 1e3,
              warm.count_seconds * 1e3, warm.transfer_seconds * 1e3, (unsigned long long)warm.bytes_transferred,
              first_wall * 1e3, load_s, (unsigned long long)probes, gpu->device_name().c_str());
  return 0;
}

// What the off/on drivers (per-vertex, per-edge) read from the environment.
struct OnOffSetup {
  std::string file;
  int reps = 10;
  PartitionedGraph g;
  BackendOptions bo;
};
OnOffSetup on_off_setup() {
  OnOffSetup s;
  s.file = env_str("TRICOUNT_BENCH_FILE");
  s.reps = std::atoi(env_str("TRICOUNT_BENCH_REPS", "10").c_str());
  if (s.file.empty()) throw UsageFailure{"set TRICOUNT_BENCH_FILE"};
  s.g = read_graph(s.file);
  s.bo.cta_degree_threshold = std::atoi(env_str("TRICOUNT_BENCH_CTA_THRESHOLD", "0").c_str());
  s.bo.chunk_size = std::atoi(env_str("TRICOUNT_BENCH_CHUNK", "0").c_str());
  s.bo.cuda_tuning = parse_cuda_tuning(env_str("TRICOUNT_BENCH_TUNING"));
  return s;
}

int bench_per_edge() {
  const OnOffSetup setup = on_off_setup();
  const std::string& file = setup.file;
  const int reps = setup.reps;
  const PartitionedGraph& g = setup.g;
  const BackendOptions& bo = setup.bo;
  BackendOptions lo = bo;
  lo.cuda_tuning.edge_lists = true;
  auto off = make_backend(BackendKind::Cuda, bo);
  auto on = make_backend(BackendKind::Cuda, bo);
  auto lists = make_backend(BackendKind::Cuda, lo);
  const std::uint32_t n = g.header.parts;
  std::vector<std::uint64_t> nnz;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) nnz.push_back(g.block(i, j).nnz());
  auto run = [&](CountBackend& be, bool edges, double& seconds, std::vector<edge_count_t>* keep) {
    if (edges) be.start_per_edge(n, nnz);
    CountStats st;
    const count_t total = count_all(g, be, st);
    seconds = st.count_seconds;
    if (!edges) return total;
    count_t sum = 0;
    if (keep) keep->clear();
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = 0; j < n; ++j) {
        const std::vector<edge_count_t> c = be.take_edge_counts({i, j});
        for (edge_count_t x : c) sum += x;
        if (keep) keep->insert(keep->end(), c.begin(), c.end());
      }
    check(sum == 3 * total, "per-edge supports do not sum to 3 x triangles");
    return total;
  };
  double w = 0;
  std::vector<edge_count_t> by_kernels, by_lists;
  const count_t triangles = run(*off, false, w, nullptr);
  check(run(*on, true, w, &by_kernels) == triangles, "per-edge counting counts other triangles");
  check(run(*lists, true, w, &by_lists) == triangles, "per-edge counting (sorted lists) counts other triangles");
  check(by_kernels == by_lists, "the two per-edge kernels give different supports");
  std::vector<double> t_off, t_on, t_lists;
  for (int rep = 0; rep < reps; ++rep) {
    double s = 0;
    check(run(*off, false, s, nullptr) == triangles, "run " + std::to_string(rep) + " counted other triangles than the first");
    t_off.push_back(s);
    check(run(*on, true, s, nullptr) == triangles, "per-edge run " + std::to_string(rep) + " counted other triangles");
    t_on.push_back(s);
    check(run(*lists, true, s, nullptr) == triangles, "per-edge (lists) run " + std::to_string(rep) + " counted other triangles");
    t_lists.push_back(s);
  }
  if (checks_failed) return 1;
  const double m_off = median_of(t_off, 0), m_on = median_of(t_on, 0), m_lists = median_of(t_lists, 0);
  std::printf("BENCHPE {\"graph\": \"%s\", \"parts\": %u, \"edges\": %llu, \"triangles\": %llu, \"off_ms_median\": %.4f, "
              "\"on_ms_median\": %.4f, \"lists_ms_median\": %.4f, \"ratio\": %.3f, \"lists_ratio\": %.3f, \"device\": \"%s\"}\n",
              file.c_str(), n, (unsigned long long)g.header.edges, (unsigned long long)triangles, m_off * 1e3, m_on * 1e3,
              m_lists * 1e3, m_on / m_off, m_lists / m_off, on->device_name().c_str());
  return 0;
}

int bench_per_vertex() {
  const OnOffSetup setup = on_off_setup();
  const std::string& file = setup.file;
  const int reps = setup.reps;
  const PartitionedGraph& g = setup.g;
  const BackendOptions& bo = setup.bo;
  auto off = make_backend(BackendKind::Cuda, bo);
  auto on = make_backend(BackendKind::Cuda, bo);
  const std::uint32_t n = g.header.parts;
  std::vector<std::uint64_t> sizes;
  for (std::uint32_t c = 0; c < n; ++c) sizes.push_back(g.block(c, 0).rows);
  auto run_off = [&](double& seconds) {
    CountStats st;
    const count_t total = count_all(g, *off, st);
    seconds = st.count_seconds;
    return total;
  };
  auto run_on = [&](double& seconds) {
    on->start_per_vertex(sizes);
    CountStats st;
    const count_t total = count_all(g, *on, st);
    seconds = st.count_seconds;
    count_t sum = 0;
    for (std::uint32_t c = 0; c < n; ++c) {
      const std::vector<count_t> counts = on->take_vertex_counts(c);
      sum = std::accumulate(counts.begin(), counts.end(), sum);
    }
    check(sum == 3 * total, "per-vertex counts do not sum to 3 x triangles");
    return total;
  };
  double warm_off = 0, warm_on = 0;
  const count_t triangles = run_off(warm_off);
  check(run_on(warm_on) == triangles, "per-vertex counting counts other triangles");
  std::vector<double> t_off, t_on;
  for (int rep = 0; rep < reps; ++rep) {
    double s = 0;
    check(run_off(s) == triangles, "run " + std::to_string(rep) + " counted other triangles than the first");
    t_off.push_back(s);
    check(run_on(s) == triangles, "per-vertex run " + std::to_string(rep) + " counted other triangles");
    t_on.push_back(s);
  }
  if (checks_failed) return 1;
  const double m_off = median_of(t_off, warm_off);
  const double m_on = median_of(t_on, warm_on);
  std::printf("BENCHPV {\"graph\": \"%s\", \"parts\": %u, \"vertices\": %llu, \"edges\": %llu, \"triangles\": %llu, "
              "\"off_ms_median\": %.4f, \"on_ms_median\": %.4f, \"ratio\": %.3f, \"device\": \"%s\"}\n",
              file.c_str(), n, (unsigned long long)g.header.vertices, (unsigned long long)g.header.edges,
              (unsigned long long)triangles, m_off * 1e3, m_on * 1e3, m_on / m_off, on->device_name().c_str());
  return 0;
}

}  // namespace
}  // namespace tricount

int main(int argc, char** argv) {
  const std::string mode = argc == 2 ? argv[1] : "";
  try {
    if (mode != "count" && mode != "per-vertex" && mode != "per-edge")
      throw tricount::UsageFailure{"usage: cuda_bench count | per-vertex | per-edge (settings in TRICOUNT_BENCH_*: see bench/cuda_bench.cpp)"};
    if (!tricount::cuda_available()) {
      std::fprintf(stderr, "cuda_bench: error: no CUDA GPU: this build (TRICOUNT_CUDA=OFF?) or machine has none\n");
      return 1;
    }
    if (mode == "per-edge") return tricount::bench_per_edge();
    return mode == "count" ? tricount::bench_count() : tricount::bench_per_vertex();
  } catch (const tricount::UsageFailure& e) {
    std::fprintf(stderr, "cuda_bench: error: %s\n", e.what.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuda_bench: error: %s\n", e.what());
    return 1;
  }
}
