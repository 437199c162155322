// The partitioner's pipeline, one named step each:
//   read -> clean (drop self-loops, symmetrize, drop duplicates, drop isolated vertices and
//   renumber densely) -> degrees -> orient (lower to higher (degree, id)) -> reorder
//   (partitioner/reorder.hpp) -> hash into n x n blocks (u mod n, v mod n; local ids id / n)
//   -> CSR per block -> HDF5 (src/block_format.hpp).
// Every entry point below runs the one pipeline of partitioner/external_partition.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "partitioner/reorder.hpp"
#include "src/block_format.hpp"
#include "input/edge_source.hpp"
#include "input/known_counts.hpp"

namespace tricount {

struct PartitionedGraph {
  GraphHeader header;
  std::vector<raw_id_t> vertex_map;  // new id -> input id
  std::vector<CsrBlock> blocks;      // row-major: blocks[i * n + j] is P(i,j)
  std::vector<std::uint64_t> task_work;  // per subtask (i,j,k): see estimate_task_work
  const CsrBlock& block(std::uint32_t i, std::uint32_t j) const { return blocks[std::size_t(i) * header.parts + j]; }
};

struct PartitionOptions {
  std::uint32_t parts = 1;
  VertexOrder order = VertexOrder::Degree;
  unsigned threads = 0;  // 0 = all
  bool progress = false; // one line per stage on stderr (a progress bar on a terminal)
  // The budget bounds the memory in use; partition_file keeps the sorted runs in memory
  // when they fit in half of it (partitioner/external_partition.hpp), else in tmpdir.
  std::uint64_t memory_budget = 0;  // bytes; 0 = half of the machine's memory
  std::string tmpdir;               // sorted runs go here when on disk; empty = $TMPDIR or /tmp
  bool force_external = false;      // runs on disk even when they fit in memory
  bool debug_memory = false;        // progress lines also show VmRSS and VmHWM (--debug-memory)
  // The input's counts known in advance (its FILE.known; partition_file reads it): the
  // cleaned graph must have these vertices and edges, and the block file gets the triangles.
  std::optional<KnownCounts> known;
};

// Checks the cleaned graph's vertices and edges in `header` against options.known, if any,
// and gives the header its known triangle count; throws Error naming the sidecar otherwise.
// Called before the block file is opened, so that no file with a wrong known count exists.
void carry_known_counts(const PartitionOptions& options, GraphHeader& header);

// The most parts worth making for a graph of `edges` edges: the larger of 32 and sqrt(edges)
// (more blocks than edges are mostly empty and only cost file space, about 2.4 KiB each, and
// empty tasks). Throws UsageError saying what to use when parts is larger.
void check_parts_for_graph(std::uint32_t parts, std::uint64_t edges);

// The clean step's result (read, clean and degrees stages of the pipeline), for tests.
struct CleanGraph {
  std::vector<raw_id_t> input_id;          // compact id -> input id (ascending)
  std::vector<std::pair<vid_t, vid_t>> edges;  // undirected, a < b, sorted, unique (compact ids)
  std::uint64_t input_edges = 0;
};
CleanGraph clean_edges(std::vector<RawEdge> raw);
CleanGraph clean_edges_with_threads(std::vector<RawEdge> raw, unsigned threads);

// The whole pipeline over an edge stream into a graph in memory (runs in memory).
PartitionedGraph partition_edges(EdgeSource& source, const PartitionOptions& options);
PartitionedGraph partition_edges(std::vector<RawEdge> edges, const PartitionOptions& options);

// Estimated work of every subtask (i, j, k), indexed (i * n + j) * n + k: for each row u of
// class i, the 2-hop probes sum over v in P(i,j)[u] of |P(j,k)[v]|, plus the |P(i,k)[u]|
// table insertions. O(n |E|).
std::vector<std::uint64_t> estimate_task_work(const std::vector<CsrBlock>& blocks, std::uint32_t parts);

// Writes a partitioned graph as an HDF5 block file (temp name + rename).
void write_block_file(const PartitionedGraph& graph, const std::string& output);

// Partition a file into an HDF5 block file (temp name + rename). Returns the header written.
GraphHeader partition_file(const std::string& input, InputFormat format, const std::string& output,
                           const PartitionOptions& options);

}  // namespace tricount
