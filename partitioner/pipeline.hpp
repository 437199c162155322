// The partition pipeline, the only one: the steps of partition.hpp (read -> clean -> degrees
// -> orient -> reorder -> hash into blocks -> CSR per block -> HDF5), each written once, in
// passes over sorted runs. The runs live in one run store (partitioner/run_files.hpp): memory
// files when they fit in half of PartitionOptions::memory_budget (kRunBytesPerEdge per input
// edge; partition_file decides from the input's size), else files in --tmpdir, so that the
// memory in use stays within the budget (plus a small constant: code, stacks, the reader's
// and HDF5's own buffers) whatever the number of edges. Where the runs live, the budget and
// the number of threads change the speed, never the file (tests/test_partition_pipeline.cpp).
//
// Only vertex-sized arrays live in memory: the input ids (8 bytes per vertex), an index to
// find them (4), the undirected degrees (4), the new ids (4), and for the collective order
// the out-degrees and collective degrees (12 more). The stages need at most 16 bytes per
// vertex at once (24 with --order collective); when that does not fit the budget the run
// stops with an error saying how much budget it needs (collective falls back to degree order
// first, with a message). Everything proportional to the edges is in the runs.
//
// Stages (threads = PartitionOptions::threads):
//   read     one reader thread parses the input in batches; sorter threads sort chunks of
//            canonical (min, max) pairs (self-loops dropped) and write them as sorted runs;
//   clean    the runs are merged (threads split the key range), dropping duplicates; the
//            distinct input ids are collected (a bitmap when the ids are small, else sorted
//            id runs) and become the compact ids, in ascending input-id order;
//   degrees  every edge is relabelled to compact ids and the degrees counted;
//   reorder  orientation from lower to higher (degree, compact id); degree order is a
//            counting sort of the degrees; collective order takes two passes over the edges
//            for the out-degrees and collective degrees (semi-external: vertex arrays in
//            memory, edges on disk), then ranks the vertices as reorder.cpp does;
//   blocks   every oriented edge goes to its block's bucket buffer (one per block and thread;
//            a full buffer is sorted and written as a segment);
//   write    per block, its segments are merged (threads split the rows) into the CSR, held
//            in memory and written whole when it fits, else written to the HDF5 datasets in
//            pieces (BlockFileWriter::begin_block); per-row degrees and per-column counts go
//            to small files for the task work estimate;
//   estimate /task_work from those counts: O(n |V|) instead of O(n |E|).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "partitioner/partition.hpp"
#include "partitioner/run_files.hpp"

namespace tricount {

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
  std::string id_collection;         // "bitmap" or "runs"
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
  virtual void block(CsrBlock block) = 0;
  // The file, for blocks written in pieces; null: every block is built whole in memory.
  virtual BlockFileWriter* file() = 0;
  virtual void task_work(std::vector<std::uint64_t> work) = 0;
  virtual void commit(std::uint64_t max_degree) = 0;
};

// The pipeline: partitions `source` into `out`. Runs are memory files when `runs_in_memory`
// (half the budget is then left for them), else files under options.tmpdir. source_file /
// source_size are the provenance attributes (partition_file passes the input's path and size).
PipelineReport run_pipeline(EdgeSource& source, BlockOutput& out, const PartitionOptions& options, bool runs_in_memory,
                            const std::string& source_file = "", std::uint64_t source_size = 0,
                            const PipelineTuning& tuning = {});

// Partitions `source` into the HDF5 block file `output` (temporary name + rename); the runs
// on disk under options.tmpdir unless `runs_in_memory` (and not options.runs_on_disk).
PipelineReport partition_source(EdgeSource& source, const std::string& output, const PartitionOptions& options,
                                const std::string& source_file = "", std::uint64_t source_size = 0,
                                const PipelineTuning& tuning = {}, bool runs_in_memory = false);

// The read, clean and degrees stages alone, runs in memory (clean_edges).
CleanGraph clean_pipeline(EdgeSource& source, const PartitionOptions& options);

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

// --- pieces, exposed for tests ----------------------------------------------------------

// Builds rows [row_lo, row_hi) of a block's CSR from its entries, keys (row << 32 | col) in
// ascending order, the first of them being neighbour number `base` of the block. Hands out
// offsets (entry r + 1 for row r) and neighbours in pieces of up to `piece` entries.
// Positions and counts are 64-bit: a block may hold more than 2^32 neighbours.
class CsrRangeBuilder {
 public:
  struct Sink {
    virtual ~Sink() = default;
    virtual void offsets(std::uint64_t first, const eoff_t* data, std::size_t count) = 0;
    virtual void neighbors(std::uint64_t first, const vid_t* data, std::size_t count) = 0;
  };
  CsrRangeBuilder(std::uint64_t row_lo, std::uint64_t row_hi, std::uint64_t base, std::size_t piece, Sink& sink);
  void add(std::uint64_t key) {
    const std::uint64_t row = key >> 32;
    if (row != row_) advance_to(row);
    nbr_[nn_++] = static_cast<vid_t>(key);
    ++pos_;
    if (nn_ == nbr_.size()) flush_neighbors();
  }
  void finish();                        // closes the rows up to row_hi, hands out the rest
  std::uint64_t position() const { return pos_; }  // base + entries added
  std::uint32_t max_degree() const { return max_degree_; }
  std::uint64_t rows_with_two() const { return rows_with_two_; }

 private:
  void advance_to(std::uint64_t row);
  void close_row();
  void flush_neighbors();
  void flush_offsets();
  std::uint64_t row_lo_, row_hi_, row_, row_start_, pos_, nbr_first_, off_first_;
  Sink& sink_;
  runs::IoBuffer<vid_t> nbr_;  // not zero-filled: a small block touches only what it fills
  runs::IoBuffer<eoff_t> off_;
  std::size_t nn_ = 0, no_ = 0;
  std::uint32_t max_degree_ = 0;
  std::uint64_t rows_with_two_ = 0;
};

}  // namespace tricount
