// The entry points of partition.hpp over the one pipeline (external_partition.cpp): into a
// graph in memory (partition_edges, clean_edges) or into a block file (partition_file).
#include "partitioner/partition.hpp"

#include <algorithm>
#include <filesystem>

#include "partitioner/external_partition.hpp"
#include "partitioner/run_files.hpp"
#include "src/output_file.hpp"
#include "src/threads.hpp"

namespace tricount {
namespace {

// An edge stream over a vector (partition_edges and clean_edges of an edge list).
class VectorEdgeSource final : public EdgeSource {
 public:
  explicit VectorEdgeSource(std::vector<RawEdge> edges) : edges_(std::move(edges)) {}
  bool next_batch(std::vector<RawEdge>& out, std::size_t max_edges) override {
    const std::size_t n = std::min(max_edges, edges_.size() - next_);
    out.assign(edges_.begin() + static_cast<std::ptrdiff_t>(next_), edges_.begin() + static_cast<std::ptrdiff_t>(next_ + n));
    next_ += n;
    return n > 0;
  }
  std::string description() const override { return "edge list in memory"; }

 private:
  std::vector<RawEdge> edges_;
  std::size_t next_ = 0;
};

// The pipeline's blocks kept as a PartitionedGraph.
class GraphOutput final : public BlockOutput {
 public:
  explicit GraphOutput(PartitionedGraph& graph) : graph_(graph) {}
  void open(const GraphHeader& header) override {
    graph_.header = header;
    graph_.blocks.reserve(std::size_t(header.parts) * header.parts);
  }
  void vertex_map(std::vector<raw_id_t> map) override { graph_.vertex_map = std::move(map); }
  void block(CsrBlock block) override { graph_.blocks.push_back(std::move(block)); }
  BlockFileWriter* file() override { return nullptr; }
  void task_work(std::vector<std::uint64_t> work) override { graph_.task_work = std::move(work); }
  void commit(std::uint64_t max_degree) override { graph_.header.max_degree = max_degree; }

 private:
  PartitionedGraph& graph_;
};

}  // namespace

CleanGraph clean_edges(std::vector<RawEdge> raw) {
  return clean_edges_with_threads(std::move(raw), 0);
}

CleanGraph clean_edges_with_threads(std::vector<RawEdge> raw, unsigned threads) {
  PartitionOptions o;
  o.threads = threads;
  VectorEdgeSource source(std::move(raw));
  return clean_pipeline(source, o);
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

PartitionedGraph partition_edges(std::vector<RawEdge> edges, const PartitionOptions& options) {
  VectorEdgeSource source(std::move(edges));
  return partition_edges(source, options);
}

PartitionedGraph partition_edges(EdgeSource& source, const PartitionOptions& options) {
  PartitionedGraph graph;
  GraphOutput out(graph);
  run_pipeline(source, out, options, /*runs_in_memory=*/true);
  return graph;
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

void carry_known_counts(const PartitionOptions& options, GraphHeader& header) {
  if (!options.known) return;
  const KnownCounts& k = *options.known;
  if (header.vertices != k.vertices || header.edges != k.edges)
    throw Error("the cleaned graph has " + std::to_string(header.vertices) + " vertices and " + std::to_string(header.edges) +
                " edges, but '" + printable(k.sidecar) + "' (" + printable(k.generator) + ") says " + std::to_string(k.vertices) +
                " and " + std::to_string(k.edges) + ": the input is not the graph those counts describe (delete the sidecar), "
                "or the generator is wrong (report it); no block file was written");
  header.known_triangles = k.triangles;
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
  PartitionOptions o = options;
  o.memory_budget = options.memory_budget ? options.memory_budget : default_memory_budget();
  const bool runs_in_memory = !options.force_external && runs_fit_in_memory(estimated_input_edges(input, format), o.memory_budget);
  // Text is parsed on as many threads as sorting uses.
  EdgeFileOptions read_options{.threads = options.threads ? options.threads : usable_cores(), .progress = options.progress};
  // Parallel parsing holds about four blocks of text and their edges: under a small budget,
  // smaller blocks keep that a small part of it (the default is 2 to 16 MiB per block).
  if (o.memory_budget < (std::uint64_t{256} << 20))
    read_options.block_bytes = static_cast<std::size_t>(std::max<std::uint64_t>(std::uint64_t{128} << 10, o.memory_budget / 128));
  o.known = read_known_sidecar(input);  // before the work: a stale one is an error
  auto source = open_edge_file(input, format, read_options);
  return partition_external(*source, output, o, input, source_size, {}, runs_in_memory).header;
}

}  // namespace tricount
