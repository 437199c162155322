// tricount-count --per-edge: each undirected edge's triangles (its support), reduced across
// workers block by block and written by rank 0.
//
// How the counters travel (no rank holds all edges' counters or rows): every worker's
// backend keeps one 32-bit counter per edge of each block its tasks touched; for each block
// P(a,b) in turn (row-major), in pieces of kPerEdgePieceRows edges, the workers' counters
// are summed at worker 0, which sends them on to rank 0 (4 bytes an edge) and goes on to the
// next piece. Rank 0 has mapped the block's CSR and read its two classes' input ids on a
// thread (the next block's while this one is written; the first block's while the workers
// count: PerEdgeAhead); it builds each piece's rows with several threads while it receives
// the next piece, and hands them to its writer thread (src/table_writer.hpp). Rank 0 holds
// two blocks' input ids (two classes each) and a few pieces of rows (one being built, the
// queued ones, one being written, two written ones kept for their columns); a worker, one
// block's counters (worker 0, two).
//
// Rows: one per undirected edge after cleaning (an edge in no triangle has 0), blocks in
// row-major order, within a block in CSR order (by tricount's degree-ordered ids, not input
// ids); each row's u is the smaller input id of the two.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "src/block_format.hpp"
#include "src/json.hpp"
#include "src/table_writer.hpp"
#include "worker/backend.hpp"

namespace tricount {

// Edges reduced and written at once (4 MiB of counters, 20 MiB of rows): several HDF5 chunks
// and large MPI messages, small enough that rank 0's pieces (kTableQueuedBatches + 2) stay
// at 80 MiB.
inline constexpr std::uint64_t kPerEdgePieceRows = std::uint64_t{1} << 20;

// A piece of rows: input ids u < v and the edge's triangles.
struct EdgeRows {
  std::vector<std::uint64_t> u, v;
  std::vector<edge_count_t> triangles;
  std::size_t size() const { return u.size(); }
};

// Edges [first, last) of `block` (positions in its neighbour array) as rows: row ids from
// `row_ids` (class a's input ids), neighbour ids from `col_ids` (class b's), counts from
// `counts` (those edges', counts[e - first] for edge e); built by up to `threads` threads
// (into `reuse`'s columns: a written piece's, see PerEdgeWriter::spare_rows).
EdgeRows block_edge_rows(const CsrSpan& block, std::span<const raw_id_t> row_ids, std::span<const raw_id_t> col_ids,
                         std::span<const edge_count_t> counts, std::uint64_t first, std::uint64_t last,
                         unsigned threads = 1, EdgeRows reuse = {});

struct TopEdge {
  std::uint64_t u = 0, v = 0, triangles = 0;
  bool operator==(const TopEdge&) const = default;
};

// What the report says about the per-edge counts, accumulated over the written rows.
struct PerEdgeSummary {
  static constexpr std::size_t kTop = 10;
  std::uint64_t edges = 0;               // rows written: every edge after cleaning
  std::uint64_t edges_in_triangles = 0;  // with a count above 0
  unsigned __int128 triangle_sum = 0;    // sum of the counts: 3 x the triangles
  std::vector<TopEdge> top;              // most triangles first, ties by smaller (u, v)

  void add(const EdgeRows& rows, unsigned threads = 1);  // the same sums and top list for any `threads`
  void add_to(JsonObject& report) const;  // edges_in_triangles, top_edges
  std::string summary() const;            // for the summary line
};

// True when `path` gets the text table (it ends in ".tsv"), else HDF5.
bool per_edge_is_text(const std::string& path);
// Throws Error when --per-edge PATH could not be written (before any counting).
void check_per_edge_path(const std::string& path);

// The output file, a TableWriter (src/table_writer.hpp) with the per-edge columns (HDF5: /u,
// /v uint64, /triangles uint32, chunked, unfiltered): rows appended piece by piece and
// written by its thread, on the disk after finish(), complete under its name only after
// commit() (a temporary renamed into place; removed if never committed). `rows_hint`: at
// most this many rows (|E|); `threads` format text.
class PerEdgeWriter {
 public:
  PerEdgeWriter(const std::string& path, const std::string& input, std::uint64_t rows_hint = 0, unsigned threads = 1);
  void append(EdgeRows rows);  // queued; throws Error once a write failed
  EdgeRows spare_rows();       // a written piece's columns to build the next in, or empty ones
  void finish();               // every row written and on the disk; throws Error if not
  void commit(const PerEdgeSummary& summary);
  const TableWriter& table() const { return table_; }

 private:
  TableWriter table_;
};

// A block as rank 0 needs it for rows: its CSR (mapped from the file, or read where it is
// not stored contiguously), checked, and its two classes' input ids.
struct BlockForRows {
  std::optional<MappedBlock> mapped;
  CsrBlock copy;
  CsrSpan span;
  std::shared_ptr<const std::vector<raw_id_t>> row_ids, col_ids;
};
// Reads block `id` for rows on up to `threads` threads, reusing `before`'s ids where a class
// is the same (row-major order keeps the row class for a whole row of blocks).
BlockForRows read_block_for_rows(const BlockFileReader& file, BlockId id, const BlockForRows* before, unsigned threads);

// Rank 0's first block for rows (P(0,0)), read on a thread from construction on (while the
// workers count: it does not depend on the counts). take() waits and rethrows the read's
// error (a corrupt block, named); destroyed untaken, it waits for the read. `file` must
// outlive it.
class PerEdgeAhead {
 public:
  PerEdgeAhead(const BlockFileReader& file, unsigned threads);
  ~PerEdgeAhead();
  PerEdgeAhead(const PerEdgeAhead&) = delete;
  PerEdgeAhead& operator=(const PerEdgeAhead&) = delete;
  BlockForRows take();

 private:
  std::future<BlockForRows> first_;
};

// Reads an HDF5 per-edge file back (for tests and tools): all rows in file order.
EdgeRows read_per_edge_hdf5(const std::string& path);

// Where rank 0's per-edge step spends its time (seconds, summed over the pieces; the
// writer's own time is PerEdgeOutput::write_seconds, which overlaps these).
struct PerEdgeSteps {
  double blocks = 0;  // waiting for a block's CSR and input ids (mapped, checked and read on a thread)
  double reduce = 0;  // the pieces' reductions to rank 0
  double rows = 0;    // building the rows and the summary
  double queue = 0;   // waiting for room in the writer's queue
  double finish = 0;  // waiting for the writer to write the last rows, and the fsync
};

// What the collective leaves on rank 0: the summary and the output, written under its
// temporary name but not yet committed, or, when writing failed (a full disk), why.
struct PerEdgeOutput {
  PerEdgeSummary summary;
  std::unique_ptr<PerEdgeWriter> writer;  // null once writing failed (its temporary removed)
  std::string write_error;
  double write_seconds = 0;  // the writer's formatting, writing and fsync (overlapping the reduction)
  std::uint64_t write_bytes = 0;
  PerEdgeSteps steps;
  // Closes and renames the output into place; throws Error (the write error) if it failed.
  void commit();
};

// The collective step after counting, on every rank of `comm`: for each block, the workers'
// counters (take_counts(id) on a worker: that block's array, one counter per edge) are
// summed at rank 0 piece by piece; rank 0 turns them into rows and writes them to `path`.
// Workers and rank 0 need `file`. Rank 0 refuses (Error, no output) counters that do not sum
// to 3 x `triangles`. A write error on rank 0 does not stop the reduction: it is kept in
// `write_error`. Any rank's other error ends the call on every rank, after the last piece (a
// rank that fails goes on taking part in the reductions, with zeros). `threads` map and check
// blocks (rank 0); `write_threads` (rank 0) build and format rows; `piece_rows`: edges
// reduced and written at once (at most kPerEdgePieceRows; tests: a few); `ahead` (rank 0,
// optional): the first block, read while the workers counted.
PerEdgeOutput reduce_per_edge(MPI_Comm comm, bool is_worker, const BlockFileReader* file, const std::string& path,
                              const std::function<std::vector<edge_count_t>(BlockId)>& take_counts, std::uint64_t triangles,
                              unsigned threads = 1, unsigned write_threads = 1,
                              std::uint64_t piece_rows = kPerEdgePieceRows, PerEdgeAhead* ahead = nullptr);

}  // namespace tricount
