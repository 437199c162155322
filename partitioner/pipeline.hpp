// The partition pipeline, the only one: read -> clean -> degrees -> orient -> reorder -> hash
// into blocks -> CSR per block -> HDF5, each stage written once, in passes over sorted runs.
// This header says what it takes (PartitionOptions, PipelineTuning) and gives (PipelineReport,
// a BlockOutput's calls) and plans with (sizes and budget); partition.hpp's entry points run
// it (class Pipeline, pipeline_state.hpp).
//
// The runs live in one run store (partitioner/run_files.hpp): memory files when they fit in
// half of PartitionOptions::memory_budget (kRunBytesPerEdge per input edge; partition_file
// decides from the input's size), else files in --tmpdir, so that the memory in use stays
// within the budget (plus a small constant: code, stacks, the reader's and HDF5's own
// buffers) whatever the number of edges. Where the runs live, the budget and the number of
// threads change the speed, never the file (tests/partitioner/test_pipeline_same_file.cpp).
//
// Only vertex-sized arrays live in memory: the input ids (8 bytes per vertex), an index to
// find them (4), the undirected degrees (4), the new ids (4), and for the collective order
// the out-degrees and collective degrees (12 more). The stages need at most 16 bytes per
// vertex at once (24 with --order collective); when that does not fit the budget the run
// stops with an error saying how much budget it needs (collective falls back to degree order
// first, with a message). Everything proportional to the edges is in the runs.
//
// Stages (threads = PartitionOptions::threads), one file each (see pipeline_state.hpp):
//   read     one reader thread parses the input in batches; producer threads make canonical
//            (min, max) pairs (self-loops dropped); sorter threads write them as sorted runs;
//            a generator input or an uncompressed binary file has no reader: each thread
//            computes or preads, canonicalizes, sorts and writes its own chunks of the edge
//            index range (EdgeSource::indexed);
//   clean    the runs are merged (threads split the key range), dropping duplicates; the
//            distinct input ids are collected (degree counters per input id when the ids are
//            dense and small, a bitmap when they are small, else sorted id runs) and become
//            the compact ids, in ascending input-id order (threads split the table or id run);
//   degrees  the degrees of the compact ids (counted here unless the clean stage did);
//   reorder  orientation from lower to higher (degree, compact id); degree order is a
//            counting sort of the degrees; collective order takes two passes over the edges
//            for the out-degrees and collective degrees (vertex arrays in memory, edges in
//            the runs); reorder.hpp ranks the vertices; then the vertex map is written;
//   blocks   every oriented edge goes to its block's bucket buffer (one per block and thread;
//            a full buffer is sorted and written as a segment);
//   write    per block, its segments are merged (threads split the rows) into the CSR, held
//            in memory and written whole when it fits, else written to the HDF5 datasets in
//            pieces (BlockFileWriter::begin_block); per-row degrees and per-column counts go
//            to small files for the task work estimate;
//   estimate /task_work from those counts: O(n |V|) instead of O(n |E|).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "input/edge_source.hpp"
#include "input/known_counts.hpp"
#include "partitioner/reorder.hpp"
#include "src/block_format.hpp"

namespace tricount {

struct PartitionOptions {
  std::uint32_t parts = 1;
  VertexOrder order = VertexOrder::Degree;
  unsigned threads = 0;  // 0 = all
  bool progress = false; // one line per stage on stderr (a progress bar on a terminal)
  // The budget bounds the memory in use; partition_file keeps the sorted runs in memory
  // when they fit in half of it, else in tmpdir.
  std::uint64_t memory_budget = 0;  // bytes; 0 = half of the machine's memory
  std::string tmpdir;               // sorted runs go here when on disk; empty = $TMPDIR or /tmp
  bool runs_on_disk = false;        // runs on disk even when they fit in memory (--runs-on-disk)
  bool debug_memory = false;        // progress lines also show VmRSS and VmHWM (--debug-memory)
  std::string_view output_option = "--output";  // the output's option in messages (tricount-count: --save-blocks)
  // How blocks are stored (--block-encoding): packed by default (fewer bytes to read, send and
  // upload; bench/RESULTS.md, issue 28); a packed block too large for memory is built in
  // scratch files and packed from them a window at a time.
  BlockEncoding encoding = BlockEncoding::packed;
  // The input's counts known in advance (its FILE.known; partition_file reads it): the
  // cleaned graph must have these vertices and edges, and the block file gets the triangles.
  std::optional<KnownCounts> known;
  // The input's edges as estimated from its size (partition_file sets it; 0: unknown): a
  // small input is read in smaller sorted runs (stage_read.cpp).
  std::uint64_t expected_input_edges = 0;
};

// Checks the cleaned graph's vertices and edges in `header` against options.known, if any,
// and gives the header its known triangle count; throws Error naming the sidecar otherwise.
// The pipeline calls it before the block file is opened, so no file with a wrong count exists.
void carry_known_counts(const PartitionOptions& options, GraphHeader& header);

// Knobs for tests and experiments; 0 / false: chosen from the budget.
struct PipelineTuning {
  std::uint64_t run_edges = 0;     // edges per sorted run written by the read stage
  std::uint64_t max_fanin = 0;     // most runs merged at once (more: extra merge passes)
  std::uint64_t block_buffer = 0;  // entries per block and thread in the blocks stage
  bool stream_blocks = false;      // write every block in pieces, even when it fits
};

struct PipelineReport {
  GraphHeader header;                // as written (graph_checksum left 0, as partition_file)
  std::uint64_t memory_budget = 0;   // bytes
  std::uint64_t runs = 0;            // sorted runs written by the read stage
  std::uint64_t merge_passes = 0;    // extra merge passes (more runs than the fan-in)
  std::uint64_t streamed_blocks = 0; // blocks written in pieces
  std::uint64_t scratch_bytes = 0;   // bytes written to runs (--tmpdir, or memory)
  std::string id_collection;         // "degree table", "bitmap" or "runs"
  bool ordering_fell_back = false;   // collective asked for, degree used (vertex arrays too large)
  bool runs_in_memory = false;       // the runs were memory files, not files in --tmpdir
  std::uint64_t peak_memory_run_bytes = 0;  // most bytes of runs held in memory at once
};

// Where the pipeline's results go: an HDF5 block file, or a PartitionedGraph in memory
// (partition_edges). Calls come in this order: open, vertex_map, block (row-major) or a
// streamed block through file(), task_work, commit.
class BlockOutput {
 public:
  virtual ~BlockOutput() = default;
  virtual void open(const GraphHeader& header) = 0;
  virtual void vertex_map(std::vector<raw_id_t> map) = 0;
  virtual void degrees(std::vector<std::uint32_t> degrees) = 0;  // by new id, after cleaning
  // A block built in memory. What the output leaves in it (a file's writer leaves its arrays)
  // is storage the pipeline may build the next block in.
  virtual void block(CsrBlock& block) = 0;
  // The file, for blocks written in pieces; null: every block is built whole in memory.
  virtual BlockFileWriter* file() = 0;
  virtual void task_work(std::vector<std::uint64_t> work) = 0;
  virtual void commit(std::uint64_t max_degree) = 0;
};

// The clean step's result (read, clean and degrees stages of the pipeline), for tests.
struct CleanGraph {
  std::vector<raw_id_t> input_id;          // compact id -> input id (ascending)
  std::vector<std::pair<vid_t, vid_t>> edges;  // undirected, a < b, sorted, unique (compact ids)
  std::uint64_t input_edges = 0;
};

// ---- sizes and budget --------------------------------------------------------------------

// Bytes of sorted runs held at once per input edge, at most (16-byte pairs during the
// clean stage: the read stage's runs and their merge; later stages hold less).
inline constexpr std::uint64_t kRunBytesPerEdge = 32;
// Whether the runs of `expected_input_edges` fit in half of `memory_budget` (0: the default).
bool runs_fit_in_memory(std::uint64_t expected_input_edges, std::uint64_t memory_budget);

// Half of the machine's memory (or of the cgroup's limit, when lower).
std::uint64_t default_memory_budget();
// A generous estimate of the number of edges in an input file, from its size and format;
// the largest uint64 for a pipe, FIFO or device (no size: it may hold any number).
std::uint64_t estimated_input_edges(const std::string& path, InputFormat format);

// The most parts worth making for a graph of `edges` edges: the larger of 32 and sqrt(edges)
// (more blocks than edges are mostly empty and only cost file space, about 2.4 KiB each, and
// empty tasks). Throws UsageError saying what to use when parts is larger.
void check_parts_for_graph(std::uint32_t parts, std::uint64_t edges);

}  // namespace tricount
