// The entry points of partition.hpp: the pipeline (pipeline_state.hpp) into any output
// (run_pipeline), into a block file (partition_source, partition_file) or into a graph in
// memory (partition_edges), and its first stages alone (clean_pipeline, clean_edges).
#include "partitioner/partition.hpp"

#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <optional>

#include "input/edge_source.hpp"
#include "input/kronecker_product.hpp"
#include "partitioner/pipeline_state.hpp"
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
  void degrees(std::vector<std::uint32_t> degrees) override { graph_.degrees = std::move(degrees); }
  void block(CsrBlock& block) override { graph_.blocks.push_back(std::move(block)); }
  BlockFileWriter* file() override { return nullptr; }
  void task_work(std::vector<std::uint64_t> work) override { graph_.task_work = std::move(work); }
  void commit(std::uint64_t max_degree) override { graph_.header.max_degree = max_degree; }

 private:
  PartitionedGraph& graph_;
};

// Buffers of 64 KiB and more come from mmap and go back to the system when freed, so that
// the resident set follows the memory in use (glibc otherwise raises its mmap threshold up
// to 32 MiB, and memory freed in a worker thread's arena stays there).
void bound_malloc_retention() {
  static std::once_flag once;
  std::call_once(once, [] {
    ::mallopt(M_MMAP_THRESHOLD, 64 << 10);
    ::mallopt(M_TRIM_THRESHOLD, 1 << 20);
  });
}

void raise_open_file_limit() {
  struct rlimit r {};
  if (::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &r);
  }
}

// An HDF5 block file (temporary name + rename at commit); a block's checksum is computed on
// `threads` threads.
class FileOutput final : public BlockOutput {
 public:
  FileOutput(std::string path, unsigned threads) : path_(std::move(path)), threads_(threads) {}
  void open(const GraphHeader& header) override { writer_.emplace(path_, header); }
  void vertex_map(std::vector<raw_id_t> map) override { writer_->write_vertex_map(map); }
  void degrees(std::vector<std::uint32_t> degrees) override { writer_->write_degrees(degrees); }
  void block(CsrBlock& block) override { writer_->write_block(block, threads_); }
  BlockFileWriter* file() override { return &*writer_; }
  void task_work(std::vector<std::uint64_t> work) override { writer_->write_task_work(work); }
  void commit(std::uint64_t max_degree) override {
    writer_->set_max_degree(max_degree);
    writer_->commit();
  }

 private:
  std::string path_;
  unsigned threads_;
  std::optional<BlockFileWriter> writer_;
};

}  // namespace

PipelineReport run_pipeline(EdgeSource& source, BlockOutput& out, const PartitionOptions& options, bool runs_in_memory,
                            const std::string& source_file, std::uint64_t source_size, const PipelineTuning& tuning) {
  check_parts(options.parts);
  bound_malloc_retention();
  raise_open_file_limit();
  Progress progress(Progress::mode_for(options.progress), "[partition]", options.debug_memory);
  pipeline::Pipeline pipeline(options, tuning, progress, runs_in_memory);
  PipelineReport report = pipeline.run(source, out, source_file, source_size);
  if (options.progress) {
    const std::string where =
        runs_in_memory ? mib(report.scratch_bytes) + " of sorted runs written to memory (at most " +
                             mib(report.peak_memory_run_bytes) + " held at once)"
                       : mib(report.scratch_bytes) + " written to the temporary directory";
    progress.message(std::string("[partition] ") + (runs_in_memory ? "runs in memory" : "runs on disk") +
                     ": budget " + mib(report.memory_budget) + ", " + std::to_string(report.runs) + " sorted runs, " +
                     std::to_string(report.merge_passes) + " extra merge passes, ids by " + report.id_collection + ", " +
                     std::to_string(report.streamed_blocks) + " blocks written in pieces, " + where + ", " +
                     std::to_string(progress.seconds_total()).substr(0, 8) + " s in all");
  }
  return report;
}

PipelineReport partition_source(EdgeSource& source, const std::string& output, const PartitionOptions& options,
                                const std::string& source_file, std::uint64_t source_size,
                                const PipelineTuning& tuning, bool runs_in_memory) {
  FileOutput out(output, options.threads ? options.threads : usable_cores());
  return run_pipeline(source, out, options, runs_in_memory && !options.runs_on_disk, source_file, source_size, tuning);
}

CleanGraph clean_pipeline(EdgeSource& source, const PartitionOptions& options) {
  bound_malloc_retention();
  Progress progress(Progress::mode_for(false));
  const PipelineTuning tuning;
  pipeline::Pipeline pipeline(options, tuning, progress, /*runs_in_memory=*/true);
  return pipeline.clean_only(source);
}

CleanGraph clean_edges(std::vector<RawEdge> raw) {
  return clean_edges_with_threads(std::move(raw), 0);
}

CleanGraph clean_edges_with_threads(std::vector<RawEdge> raw, unsigned threads) {
  PartitionOptions o;
  o.threads = threads;
  VectorEdgeSource source(std::move(raw));
  return clean_pipeline(source, o);
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

std::vector<std::uint32_t> degrees_of_blocks(const PartitionedGraph& graph) {
  const std::uint64_t n = graph.header.parts;
  std::vector<std::uint32_t> degrees(graph.header.vertices, 0);
  for (const CsrBlock& b : graph.blocks) {
    for (std::uint64_t r = 0; r < b.rows; ++r) degrees[r * n + b.id.row_class] += b.offsets[r + 1] - b.offsets[r];
    for (const vid_t c : b.neighbors) ++degrees[std::uint64_t(c) * n + b.id.col_class];
  }
  return degrees;
}

void write_block_file(const PartitionedGraph& graph, const std::string& output) {
  BlockFileWriter writer(output, graph.header);
  writer.write_vertex_map(graph.vertex_map);
  writer.write_degrees(graph.degrees.empty() ? degrees_of_blocks(graph) : graph.degrees);
  for (const CsrBlock& b : graph.blocks) writer.write_block(b);
  writer.write_task_work(graph.task_work.empty() ? estimate_task_work(graph.blocks, graph.header.parts) : graph.task_work);
  writer.commit();
}

void carry_known_counts(const PartitionOptions& options, GraphHeader& header) {
  if (!options.known) return;
  const KnownCounts& k = *options.known;
  if ((header.vertices != k.vertices || header.edges != k.edges) && k.sidecar.empty())  // partition_generated's
    throw Error("the cleaned graph has " + std::to_string(header.vertices) + " vertices and " + std::to_string(header.edges) +
                " edges, but the generator (" + printable(k.generator) + ") gives " + std::to_string(k.vertices) + " and " +
                std::to_string(k.edges) + " in closed form: the generator is wrong (report it); no block file was written");
  if (header.vertices != k.vertices || header.edges != k.edges)
    throw Error("the cleaned graph has " + std::to_string(header.vertices) + " vertices and " + std::to_string(header.edges) +
                " edges, but '" + printable(k.sidecar) + "' (" + printable(k.generator) + ") says " + std::to_string(k.vertices) +
                " and " + std::to_string(k.edges) + ": the input is not the graph those counts describe (delete the sidecar), "
                "or the generator is wrong (report it); no block file was written");
  header.known_triangles = k.triangles;
}

std::optional<KnownCounts> generator_known_counts(const Generator& g) {
  if (!g.product) return std::nullopt;
  const ProductCounts& c = g.product->counts();
  return KnownCounts{.vertex_ids = c.vertex_ids, .vertices = c.vertices, .edges = c.edges, .triangles = c.triangles,
                     .generator = g.product->description()};
}

GraphHeader partition_generated(const GeneratorArgs& generator, const std::string& output,
                                const PartitionOptions& options) {
  check_parts(options.parts);
  const Generator g = make_generator(generator, options.threads);  // bad values before any work
  output::check_writable(output, options.output_option, /*needs_regular_file=*/true);
  PartitionOptions o = options;
  o.memory_budget = options.memory_budget ? options.memory_budget : default_memory_budget();
  const bool runs_in_memory = !options.runs_on_disk && runs_fit_in_memory(g.source->indexed()->edge_count(), o.memory_budget);
  o.known = generator_known_counts(g);
  return partition_source(*g.source, output, o, g.spec, 0, {}, runs_in_memory).header;
}

std::vector<output::NamedPath> input_paths(const std::string& input, std::string_view option, std::string_view companion) {
  std::vector<output::NamedPath> paths = {{input, option}};
  for (std::string& f : input_companion_files(input)) paths.push_back({std::move(f), companion});
  return paths;
}

GraphHeader partition_file(const std::string& input, InputFormat format, const std::string& output,
                           const PartitionOptions& options) {
  check_parts(options.parts);
  std::error_code ec;
  output::refuse_same_file(output, options.output_option, input_paths(input, "--input", "a file --input reads"));
  // An output that cannot be written is reported before the work, not after it.
  output::check_writable(output, options.output_option, /*needs_regular_file=*/true);

  std::uint64_t source_size = std::filesystem::file_size(input, ec);
  if (ec) source_size = 0;
  PartitionOptions o = options;
  o.memory_budget = options.memory_budget ? options.memory_budget : default_memory_budget();
  o.expected_input_edges = estimated_input_edges(input, format);
  const bool runs_in_memory = !options.runs_on_disk && runs_fit_in_memory(o.expected_input_edges, o.memory_budget);
  // Text is parsed on as many threads as sorting uses.
  EdgeFileOptions read_options{.threads = options.threads ? options.threads : usable_cores(), .progress = options.progress};
  // Parallel parsing holds about four blocks of text and their edges: under a small budget,
  // smaller blocks keep that a small part of it (the default is 2 to 16 MiB per block).
  if (o.memory_budget < (std::uint64_t{256} << 20))
    read_options.block_bytes = static_cast<std::size_t>(std::max<std::uint64_t>(std::uint64_t{128} << 10, o.memory_budget / 128));
  o.known = read_known_sidecar(input);  // before the work: a stale one is an error
  auto source = open_edge_file(input, format, read_options);
  return partition_source(*source, output, o, input, source_size, {}, runs_in_memory).header;
}

}  // namespace tricount
