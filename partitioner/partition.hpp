// The partitioner's entry points, every one running the one pipeline of pipeline.hpp, one
// named step each:
//   read -> clean (drop self-loops, symmetrize, drop duplicates, drop isolated vertices and
//   renumber densely) -> degrees -> orient (lower to higher (degree, id)) -> reorder
//   (partitioner/reorder.hpp) -> hash into n x n blocks (u mod n, v mod n; local ids id / n)
//   -> CSR per block -> HDF5 (src/block_format.hpp).
// An edge file into a block file: partition_file (what tricount-partition runs), a generator
// input into one: partition_generated. An edge
// stream into a block file: partition_source; into a graph in memory: partition_edges; into
// any BlockOutput: run_pipeline.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "input/generator_spec.hpp"
#include "partitioner/pipeline.hpp"
#include "src/output_file.hpp"

namespace tricount {

struct PartitionedGraph {
  GraphHeader header;
  std::vector<raw_id_t> vertex_map;  // new id -> input id
  std::vector<std::uint32_t> degrees;  // by new id, undirected; empty: write_block_file counts them from the blocks
  std::vector<CsrBlock> blocks;      // row-major: blocks[i * n + j] is P(i,j)
  std::vector<std::uint64_t> task_work;  // per subtask (i,j,k): see estimate_task_work
  const CsrBlock& block(std::uint32_t i, std::uint32_t j) const { return blocks[std::size_t(i) * header.parts + j]; }
};

// Partitions a file into an HDF5 block file (temp name + rename); the runs in memory when they
// fit in half of the budget (runs_fit_in_memory) and not options.runs_on_disk, else in
// options.tmpdir. Returns the header written.
// An edge file and the files reading it uses (input_companion_files), named for
// output::refuse_same_file: no output may be any of them. The labels must outlive the list.
std::vector<output::NamedPath> input_paths(const std::string& input, std::string_view option, std::string_view companion);

GraphHeader partition_file(const std::string& input, InputFormat format, const std::string& output,
                           const PartitionOptions& options);

// Partitions a generator input (input/generator_spec.hpp: kronecker:26, ...) into an HDF5
// block file: the read stage computes the edges on every thread, and no edge file is written.
// The file is the one partition_file writes from tricount-generate's file of the same graph,
// but for its source attributes (source_file: the spec with every parameter written out,
// source_size: 0); a Kronecker product's known triangle count goes in as FILE.known's does.
// Throws UsageError for a bad parameter value. Returns the header written.
GraphHeader partition_generated(const GeneratorArgs& generator, const std::string& output,
                                const PartitionOptions& options);
// What tricount-generate would write to FILE.known for this generator: a Kronecker product's
// counts in closed form; nullopt for the other kinds.
std::optional<KnownCounts> generator_known_counts(const Generator& g);

// Partitions `source` into the HDF5 block file `output` (temporary name + rename); the runs
// on disk under options.tmpdir unless `runs_in_memory` (and not options.runs_on_disk).
// source_file / source_size are the provenance attributes (partition_file passes the input's
// path and size).
PipelineReport partition_source(EdgeSource& source, const std::string& output, const PartitionOptions& options,
                                const std::string& source_file = "", std::uint64_t source_size = 0,
                                const PipelineTuning& tuning = {}, bool runs_in_memory = false);

// The whole pipeline over an edge stream into a graph in memory (runs in memory).
PartitionedGraph partition_edges(EdgeSource& source, const PartitionOptions& options);
PartitionedGraph partition_edges(std::vector<RawEdge> edges, const PartitionOptions& options);

// The pipeline: partitions `source` into `out`. Runs are memory files when `runs_in_memory`
// (half the budget is then left for them), else files under options.tmpdir.
PipelineReport run_pipeline(EdgeSource& source, BlockOutput& out, const PartitionOptions& options, bool runs_in_memory,
                            const std::string& source_file = "", std::uint64_t source_size = 0,
                            const PipelineTuning& tuning = {});

// The read, clean and degrees stages alone, runs in memory: over a stream (clean_pipeline)
// or an edge list.
CleanGraph clean_pipeline(EdgeSource& source, const PartitionOptions& options);
CleanGraph clean_edges(std::vector<RawEdge> raw);
CleanGraph clean_edges_with_threads(std::vector<RawEdge> raw, unsigned threads);

// Estimated work of every subtask (i, j, k), indexed (i * n + j) * n + k: for each row u of
// class i, the 2-hop probes sum over v in P(i,j)[u] of |P(j,k)[v]|, plus the |P(i,k)[u]|
// table insertions. O(n |E|).
std::vector<std::uint64_t> estimate_task_work(const std::vector<CsrBlock>& blocks, std::uint32_t parts);

// Each vertex's undirected degree by new id, counted from the blocks: every edge is stored
// once, so a degree is the vertex's row lengths plus its appearances as a neighbour.
std::vector<std::uint32_t> degrees_of_blocks(const PartitionedGraph& graph);

// Writes a partitioned graph as an HDF5 block file (temp name + rename), with its degrees
// (graph.degrees, or degrees_of_blocks when empty).
void write_block_file(const PartitionedGraph& graph, const std::string& output);

}  // namespace tricount
