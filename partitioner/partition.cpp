// In-memory partitioner. Each stage is a function named after its step (see partition.hpp);
// the external-memory pipeline replaces the storage, not the steps or their results.
#include "partitioner/partition.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <thread>

#include "partitioner/external_partition.hpp"
#include "partitioner/run_files.hpp"
#include "src/output_file.hpp"
#include "src/threads.hpp"

namespace tricount {
namespace {

using Clock = std::chrono::steady_clock;

class StageLog {
 public:
  explicit StageLog(bool on) : on_(on), start_(Clock::now()), last_(start_) {}
  void done(const char* stage, std::uint64_t items, const char* what) {
    const auto now = Clock::now();
    if (on_) {
      const double s = std::chrono::duration<double>(now - last_).count();
      std::fprintf(stderr, "[partition] %-10s %12llu %-9s %8.3f s  %10.3g /s\n", stage,
                   static_cast<unsigned long long>(items), what, s, s > 0 ? double(items) / s : 0.0);
    }
    last_ = now;
  }
  double total() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  bool on_;
  Clock::time_point start_, last_;
};

// Sorts with up to `threads` threads: sort slices in parallel, then merge pairwise.
template <class T, class Less = std::less<T>>
void parallel_sort(std::vector<T>& v, unsigned threads, Less less = Less()) {
  const std::size_t n = v.size();
  if (threads <= 1 || n < (1u << 16)) {
    std::sort(v.begin(), v.end(), less);
    return;
  }
  std::vector<std::size_t> cut(threads + 1);
  for (unsigned t = 0; t <= threads; ++t) cut[t] = n * t / threads;
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] { std::sort(v.begin() + cut[t], v.begin() + cut[t + 1], less); });
  }
  for (std::size_t width = 1; width < threads; width *= 2) {
    std::vector<std::jthread> pool;
    for (std::size_t t = 0; t + width < threads; t += 2 * width) {
      const std::size_t lo = cut[t], mid = cut[t + width], hi = cut[std::min<std::size_t>(t + 2 * width, threads)];
      pool.emplace_back([&, lo, mid, hi] { std::inplace_merge(v.begin() + lo, v.begin() + mid, v.begin() + hi, less); });
    }
  }
}

unsigned thread_count(unsigned requested) {
  return requested ? requested : usable_cores();
}

}  // namespace

CleanGraph clean_edges(std::vector<RawEdge> raw) {
  return clean_edges_with_threads(std::move(raw), 0);
}

CleanGraph clean_edges_with_threads(std::vector<RawEdge> raw, unsigned threads) {
  threads = thread_count(threads);
  CleanGraph g;
  g.input_edges = raw.size();
  // Symmetrize by canonical order (min, max); self-loops go; then duplicates go.
  std::size_t kept = 0;
  for (const RawEdge& e : raw) {
    if (e.u == e.v) continue;
    raw[kept++] = e.u < e.v ? RawEdge{e.u, e.v} : RawEdge{e.v, e.u};
  }
  raw.resize(kept);
  parallel_sort(raw, threads, [](const RawEdge& a, const RawEdge& b) { return a.u != b.u ? a.u < b.u : a.v < b.v; });
  raw.erase(std::unique(raw.begin(), raw.end()), raw.end());

  // Vertices that remain are exactly the non-isolated ones; renumber them densely,
  // preserving the input order of ids.
  std::vector<raw_id_t> ids;
  ids.reserve(raw.size() * 2);
  for (const RawEdge& e : raw) {
    ids.push_back(e.u);
    ids.push_back(e.v);
  }
  parallel_sort(ids, threads);
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() > kMaxVertices)
    throw Error("the graph has " + std::to_string(ids.size()) + " non-isolated vertices; at most " +
                std::to_string(kMaxVertices) + " (32-bit ids) are supported");
  g.input_id = std::move(ids);

  const raw_id_t max_id = g.input_id.empty() ? 0 : g.input_id.back();
  const bool dense = max_id < (raw_id_t{1} << 32) && max_id <= 8 * g.input_id.size() + (1u << 20);
  std::vector<vid_t> direct;
  if (dense) {
    direct.assign(max_id + 1, 0);
    for (std::size_t x = 0; x < g.input_id.size(); ++x) direct[g.input_id[x]] = static_cast<vid_t>(x);
  }
  auto compact = [&](raw_id_t id) -> vid_t {
    if (dense) return direct[id];
    return static_cast<vid_t>(std::lower_bound(g.input_id.begin(), g.input_id.end(), id) - g.input_id.begin());
  };
  g.edges.resize(raw.size());
  for (std::size_t e = 0; e < raw.size(); ++e) g.edges[e] = {compact(raw[e].u), compact(raw[e].v)};
  return g;
}

void check_parts_for_graph(std::uint32_t parts, std::uint64_t edges) {
  std::uint64_t root = 0;
  while ((root + 1) * (root + 1) <= edges) ++root;  // runs once per graph; at most 2^32 steps
  const std::uint64_t most = std::max<std::uint64_t>(32, root);
  if (parts > most)
    throw UsageError("--parts " + std::to_string(parts) + " is too many for " + std::to_string(edges) + " edges: " +
                     std::to_string(std::uint64_t{parts} * parts) + " blocks would be almost all empty (about 2.4 KiB "
                     "of file each); use --parts " + std::to_string(most) + " or fewer");
}

namespace {

PartitionedGraph partition_clean(CleanGraph g, const PartitionOptions& options, StageLog& log) {
  const std::uint32_t n = options.parts;
  check_parts(n);
  const std::uint64_t V = g.input_id.size();
  const std::uint64_t E = g.edges.size();
  check_parts_for_graph(n, E);

  // Degrees (undirected).
  std::vector<vid_t> degree(V, 0);
  for (const auto& [a, b] : g.edges) {
    ++degree[a];
    ++degree[b];
  }
  log.done("degrees", V, "vertices");

  // Orientation: each edge once, from lower to higher (degree, id).
  auto lower = [&](vid_t a, vid_t b) { return degree[a] != degree[b] ? degree[a] < degree[b] : a < b; };
  OrientedCsr oriented;
  oriented.offsets.assign(V + 1, 0);
  for (const auto& [a, b] : g.edges) ++oriented.offsets[(lower(a, b) ? a : b) + 1];
  std::partial_sum(oriented.offsets.begin(), oriented.offsets.end(), oriented.offsets.begin());
  oriented.targets.resize(E);
  {
    std::vector<eoff_t> cursor(oriented.offsets.begin(), oriented.offsets.end() - 1);
    for (const auto& [a, b] : g.edges) {
      const bool ab = lower(a, b);
      oriented.targets[cursor[ab ? a : b]++] = ab ? b : a;
    }
  }
  g.edges.clear();
  g.edges.shrink_to_fit();
  log.done("orient", E, "edges");

  // Reordering: the final ids.
  const std::vector<vid_t> new_id = compute_vertex_order(options.order, degree, oriented);
  log.done("reorder", V, "vertices");

  // Hashed 2D blocks: P(i,j) gets (u, v) with u mod n == i, v mod n == j, as local ids
  // (u / n, v / n). Two passes: count each block row, then place; then sort each row.
  PartitionedGraph out;
  out.blocks.resize(std::size_t(n) * n);
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = 0; j < n; ++j) {
      CsrBlock& b = out.blocks[std::size_t(i) * n + j];
      b.id = {i, j};
      b.rows = rows_in_class(V, n, i);
      b.cols = rows_in_class(V, n, j);
      b.offsets.assign(b.rows + 1, 0);
    }
  }
  for (std::uint64_t x = 0; x < V; ++x) {
    const vid_t u = new_id[x];
    for (eoff_t e = oriented.offsets[x]; e < oriented.offsets[x + 1]; ++e) {
      const vid_t v = new_id[oriented.targets[e]];
      ++out.blocks[std::size_t(u % n) * n + v % n].offsets[u / n + 1];
    }
  }
  for (CsrBlock& b : out.blocks) {
    std::partial_sum(b.offsets.begin(), b.offsets.end(), b.offsets.begin());
    b.neighbors.resize(b.offsets.back());
  }
  {
    std::vector<std::vector<eoff_t>> cursor(out.blocks.size());
    for (std::size_t k = 0; k < out.blocks.size(); ++k)
      cursor[k].assign(out.blocks[k].offsets.begin(), out.blocks[k].offsets.end() - 1);
    for (std::uint64_t x = 0; x < V; ++x) {
      const vid_t u = new_id[x];
      for (eoff_t e = oriented.offsets[x]; e < oriented.offsets[x + 1]; ++e) {
        const vid_t v = new_id[oriented.targets[e]];
        const std::size_t k = std::size_t(u % n) * n + v % n;
        out.blocks[k].neighbors[cursor[k][u / n]++] = v / n;
      }
    }
  }
  std::uint64_t max_degree = 0;
  for (CsrBlock& b : out.blocks) {
    for (std::uint64_t r = 0; r < b.rows; ++r) {
      std::sort(b.neighbors.begin() + b.offsets[r], b.neighbors.begin() + b.offsets[r + 1]);
      b.max_degree = std::max<std::uint32_t>(b.max_degree, static_cast<std::uint32_t>(b.offsets[r + 1] - b.offsets[r]));
    }
    max_degree = std::max<std::uint64_t>(max_degree, b.max_degree);
  }
  log.done("blocks", E, "edges");
  out.task_work = estimate_task_work(out.blocks, n);
  log.done("estimate", E, "edges");

  out.vertex_map.resize(V);
  for (std::uint64_t x = 0; x < V; ++x) out.vertex_map[new_id[x]] = g.input_id[x];
  out.header.parts = n;
  out.header.vertices = V;
  out.header.edges = E;
  out.header.ordering = std::string(to_string(options.order));
  out.header.input_edges = g.input_edges;
  out.header.max_degree = max_degree;
  return out;
}

std::vector<RawEdge> read_all_edges(EdgeSource& source) {
  std::vector<RawEdge> all, batch;
  while (source.next_batch(batch, 1u << 20)) all.insert(all.end(), batch.begin(), batch.end());
  return all;
}

}  // namespace

PartitionedGraph partition_edges(std::vector<RawEdge> edges, const PartitionOptions& options) {
  StageLog log(options.progress);
  check_parts(options.parts);
  const std::uint64_t n_in = edges.size();
  CleanGraph g = clean_edges_with_threads(std::move(edges), options.threads);
  log.done("clean", n_in, "edges");
  return partition_clean(std::move(g), options, log);
}

PartitionedGraph partition_edges(EdgeSource& source, const PartitionOptions& options) {
  StageLog log(options.progress);
  check_parts(options.parts);
  std::vector<RawEdge> edges = read_all_edges(source);
  log.done("read", edges.size(), "edges");
  const std::uint64_t n_in = edges.size();
  CleanGraph g = clean_edges_with_threads(std::move(edges), options.threads);
  log.done("clean", n_in, "edges");
  return partition_clean(std::move(g), options, log);
}

std::vector<std::uint64_t> estimate_task_work(const std::vector<CsrBlock>& blocks, std::uint32_t parts) {
  const std::size_t n = parts;
  std::vector<std::uint64_t> work(n * n * n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const CsrBlock& one_hop = blocks[i * n + j];
      for (std::size_t k = 0; k < n; ++k) {
        const CsrBlock& two_hop = blocks[j * n + k];
        std::uint64_t probes = 0;
        for (vid_t v : one_hop.neighbors) probes += two_hop.offsets[v + 1] - two_hop.offsets[v];
        work[(i * n + j) * n + k] = probes + blocks[i * n + k].nnz();
      }
    }
  return work;
}

void write_block_file(const PartitionedGraph& graph, const std::string& output) {
  BlockFileWriter writer(output, graph.header);
  writer.write_vertex_map(graph.vertex_map);
  for (const CsrBlock& b : graph.blocks) writer.write_block(b);
  writer.write_task_work(graph.task_work.empty() ? estimate_task_work(graph.blocks, graph.header.parts) : graph.task_work);
  writer.commit();
}

GraphHeader partition_file(const std::string& input, InputFormat format, const std::string& output,
                           const PartitionOptions& options) {
  check_parts(options.parts);
  std::error_code ec;
  output::refuse_same_file(output, "--output", {{input, "--input"}});
  // An output that cannot be written is reported before the work, not after it.
  output::check_writable(output, "--output", /*needs_regular_file=*/true);

  std::uint64_t source_size = std::filesystem::file_size(input, ec);
  if (ec) source_size = 0;
  const std::uint64_t budget = options.memory_budget ? options.memory_budget : default_memory_budget();
  const bool external =
      options.force_external || estimated_input_edges(input, format) > budget / kInMemoryBytesPerEdge;
  // Text is parsed on as many threads as sorting uses.
  EdgeFileOptions read_options{.threads = thread_count(options.threads), .progress = options.progress};
  // Parallel parsing holds about four blocks of text and their edges: under a small budget,
  // smaller blocks keep that a small part of it (the default is 2 to 16 MiB per block).
  if (budget < (std::uint64_t{256} << 20))
    read_options.block_bytes = static_cast<std::size_t>(std::max<std::uint64_t>(std::uint64_t{128} << 10, budget / 128));
  if (external) {
    auto source = open_edge_file(input, format, read_options);
    PartitionOptions o = options;
    o.memory_budget = budget;
    return partition_external(*source, output, o, input, source_size).header;
  }

  auto source = open_edge_file(input, format, read_options);
  PartitionedGraph graph = partition_edges(*source, options);
  graph.header.source_file = input;
  graph.header.source_size = source_size;
  const auto t0 = Clock::now();
  write_block_file(graph, output);
  if (options.progress)
    std::fprintf(stderr, "[partition] %-10s %12llu %-9s %8.3f s\n", "write", static_cast<unsigned long long>(graph.header.edges),
                 "edges", std::chrono::duration<double>(Clock::now() - t0).count());
  return graph.header;
}

}  // namespace tricount
