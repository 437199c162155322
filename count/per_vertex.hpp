// tricount-count --per-vertex: each vertex's triangles, degree and local clustering
// coefficient, reduced across workers piece by piece and written by rank 0.
//
// How the counters travel (no rank holds all |V| of them): every worker's backend keeps one
// counter array per vertex class it touched. The degrees are stored in the block file
// (BlockFileWriter::write_degrees), and rank 0 reads a class's beside its input ids; in a file
// without them, every worker reads its share of the blocks once for the degrees
// (degree_shares), on a thread while it counts (PerVertexAhead). After counting, class by
// class and within a class in pieces of kPerVertexPieceRows vertices, the workers' counters
// (and any degree shares) are summed at worker 0, which sends them on to rank 0 and goes on
// to the next piece; rank 0, which read the class's input ids (and stored degrees) on a
// thread meanwhile, builds the rows with several threads while it receives the next piece and
// hands them to its writer thread (src/table_writer.hpp). Rank 0 holds two classes' input ids
// and a few pieces of rows at a time; a worker, one class's counters and its degree shares
// (worker 0, two classes').
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "src/block_format.hpp"
#include "src/json.hpp"
#include "src/table_writer.hpp"

namespace tricount {

// One class's vertices with at least one edge, in class order (local id ascending).
struct VertexRows {
  std::vector<std::uint64_t> vertex;     // input ids
  std::vector<std::uint64_t> degree;     // undirected, after cleaning
  std::vector<std::uint64_t> triangles;
  std::vector<double> clustering;        // local_clustering(degree, triangles)
  std::size_t size() const { return vertex.size(); }
};

// 2 t / (d (d - 1)); 0 for d < 2. Exact inputs up to 2^64 (computed in long double).
double local_clustering(std::uint64_t degree, std::uint64_t triangles);

// Vertices a piece of the per-vertex step has at most (16 MiB of counters and degrees
// reduced, 32 MiB of rows): rank 0 builds and writes one while the next is reduced.
inline constexpr std::uint64_t kPerVertexPieceRows = std::uint64_t{1} << 20;

// The rows of one class (or a piece of one) from its input ids, degrees and triangle counts
// (all of one length), built by up to `threads` threads (into `reuse`'s columns: a written
// piece's, see PerVertexWriter::spare_rows); vertices of degree 0 are left out.
VertexRows class_rows(std::span<const raw_id_t> ids, std::span<const std::uint64_t> degrees,
                      std::span<const std::uint64_t> triangles, unsigned threads = 1, VertexRows reuse = {});

// This worker's share of the undirected degrees after cleaning. Every edge is stored once,
// oriented, so a vertex's degree is its row length summed over the blocks P(c, j) plus its
// occurrences as a neighbour in the blocks P(i, c). The blocks are dealt out over the workers
// (largest first, each to the least loaded) and each block is read once, by one worker, for
// both: one vector per class (empty where this worker read nothing of the class); summed over
// the workers, the shares are the degrees. `threads` check each block and count its
// neighbours (each into its own counters where the block has at least as many edges as
// those counters take, else one thread). Once `stop` is requested it returns what it has.
std::vector<std::vector<std::uint64_t>> degree_shares(const BlockFileReader& file, int worker, int workers,
                                                      unsigned threads = 1, std::stop_token stop = {});

// What the per-vertex step reads before the counts exist, each on a thread of its own from
// construction on (while the workers count: neither depends on the counts): a worker's
// degree_shares (`degrees`) and rank 0's input ids of class 0 (`first_ids`, and its stored
// degrees where the file has them). The take
// functions wait and rethrow the read's error (a corrupt block, named); destroyed untaken,
// it stops the degree read and waits for both. `file` must outlive it.
//
// With `early_table` (rank 0, an HDF5 output, a file that stores degrees), it also creates
// that output and writes its vertex and degree columns on a thread of their own while the
// workers count (PerVertexWriter::append_vertices): after the count only the triangles and
// clustering columns remain to be written.
class PerVertexWriter;
class PerVertexAhead {
 public:
  PerVertexAhead(const BlockFileReader& file, bool degrees, bool first_ids, int worker, int workers, unsigned threads,
                 const std::string& early_table = "");
  ~PerVertexAhead();
  PerVertexAhead(const PerVertexAhead&) = delete;
  PerVertexAhead& operator=(const PerVertexAhead&) = delete;
  std::vector<std::vector<std::uint64_t>> take_degrees();
  std::vector<raw_id_t> take_first_ids();
  std::vector<std::uint64_t> take_first_degrees();  // class 0's, with first_ids where the file stores degrees
  // The early table with its vertex and degree columns whole, or null where it could not be
  // made (the step then makes the table itself, and meets any error again, named, there).
  std::unique_ptr<PerVertexWriter> take_early_writer();
  double degree_seconds() const { return degree_seconds_; }  // the degree read's own time (after take_degrees())

 private:
  std::stop_source stop_;
  double degree_seconds_ = 0;
  std::future<std::vector<std::vector<std::uint64_t>>> degrees_;
  std::future<std::vector<raw_id_t>> first_ids_;
  std::future<std::vector<std::uint64_t>> first_degrees_;
  std::future<std::unique_ptr<PerVertexWriter>> early_;
};

struct TopVertex {
  std::uint64_t vertex = 0, degree = 0, triangles = 0;
  bool operator==(const TopVertex&) const = default;
};

// What the report says about the per-vertex counts, accumulated over the written rows.
struct PerVertexSummary {
  static constexpr std::size_t kTop = 10;
  std::uint64_t vertices = 0;          // with at least one edge
  unsigned __int128 triangle_sum = 0;  // sum of the per-vertex counts: 3 x the triangles
  unsigned __int128 wedges = 0;        // sum of d (d - 1) / 2
  long double clustering_sum = 0;
  std::vector<TopVertex> top;          // most triangles first, ties by smaller input id

  void add(const VertexRows& rows, unsigned threads = 1);  // the same sums and top list for any `threads`
  double global_clustering() const;   // 3 x triangles / wedges (triangle_sum / wedges); 0 without wedges
  double average_clustering() const;  // mean local coefficient over `vertices` (networkx); 0 without vertices
  void add_to(JsonObject& report) const;  // global_clustering, average_clustering, wedges, top_vertices
  std::string summary() const;        // for the summary line
};

// True when `path` gets the text table (it ends in ".tsv"), else HDF5.
bool per_vertex_is_text(const std::string& path);
// Throws Error when --per-vertex PATH could not be written (before any counting).
void check_per_vertex_path(const std::string& path);

// The output file, a TableWriter (src/table_writer.hpp) with the per-vertex columns: rows
// appended piece by piece and written by its thread, on the disk after finish(), complete
// under its name only after commit() (a temporary renamed into place; removed if never
// committed). `rows_hint`: at most this many rows (|V|); `threads` format text.
class PerVertexWriter {
 public:
  PerVertexWriter(const std::string& path, const std::string& input, std::uint64_t rows_hint = 0, unsigned threads = 1);
  // HDF5, before any append: the vertex and degree columns of the rows `degrees` keeps
  // (degree != 0, as class_rows), in row order; once every class's are in,
  // vertices_written() makes append() write only the triangles and clustering columns.
  void append_vertices(std::span<const raw_id_t> ids, std::span<const std::uint64_t> degrees, unsigned threads = 1);
  void vertices_written() { early_ = true; }
  void append(VertexRows rows);  // queued; throws Error once a write failed
  VertexRows spare_rows();       // a written piece's columns to build the next in, or empty ones
  void finish();                 // every row written and on the disk; throws Error if not
  void commit(const PerVertexSummary& summary);
  const TableWriter& table() const { return table_; }

 private:
  TableWriter table_;
  bool early_ = false;  // the vertex and degree columns were written ahead
  std::vector<std::uint64_t> kept_vertex_, kept_degree_;  // early: the last piece's, to build the next in
};

// Reads an HDF5 per-vertex file back (for tests and tools): all rows in file order.
VertexRows read_per_vertex_hdf5(const std::string& path);

// The collective step after counting, on every rank of `comm`: for each class, the workers'
// counters (take_counts(c) on a worker: that class's array, one counter per vertex of the
// class) and, where `file` stores no degrees, degree shares (degree_shares(), on every worker
// before the first class) are summed at rank 0 piece by piece; rank 0 adds input ids (and
// stored degrees) from `file` and writes the rows to `path`. Returns the summary on rank 0. Workers and rank 0 need `file`. Any rank's error
// ends the call on every rank (collective_step): a rank that fails goes on taking part in
// the reductions (with zeros), so that no rank waits for it, and the error ends the call
// after the last piece.
// A worker's counters by the file's vertex classes, from a backend that counted the plan's
// n_c = n / g classes (tricount-count --count-parts): plan class C holds the g file classes
// C + a n_c, interleaved (the vertex of file-local id l has the plan-local id l g + a). A plan
// class is taken from the backend when the first of its file classes is asked for and kept
// until the last is; each file class is gathered from it on `threads` threads when asked for.
class FileClassCounts {
 public:
  FileClassCounts(std::uint32_t file_parts, std::uint32_t count_parts, std::uint64_t vertices,
                  std::function<std::vector<std::uint64_t>(std::uint32_t c)> take_count_class, unsigned threads = 1);
  std::vector<std::uint64_t> take(std::uint32_t file_class);

 private:
  struct Held {
    std::vector<std::uint64_t> counts;
    std::uint32_t left = 0;  // its file classes not yet taken
  };
  std::uint32_t file_parts_, count_parts_;
  std::uint64_t vertices_;
  std::function<std::vector<std::uint64_t>(std::uint32_t)> take_count_class_;
  unsigned threads_;
  std::map<std::uint32_t, Held> held_;  // plan class -> its counters
};

struct PerVertexSources {
  std::function<std::vector<std::uint64_t>(std::uint32_t c)> take_counts;  // workers
  // Workers, once before the first class, for a file without stored degrees: this worker's
  // share of every class's degrees (as degree_shares), summed at rank 0.
  std::function<std::vector<std::vector<std::uint64_t>>()> degree_shares;
  // Rank 0, optional: class 0's input ids, read ahead (else read at the start of the step).
  std::function<std::vector<raw_id_t>()> first_ids;
  // Rank 0, optional: class 0's stored degrees, read ahead (else read at the start of the step).
  std::function<std::vector<std::uint64_t>()> first_degrees;
  // Rank 0, optional: the output with its vertex and degree columns written while counting
  // (PerVertexAhead::take_early_writer), or null (then the step makes it).
  std::function<std::unique_ptr<PerVertexWriter>()> early_writer;
  unsigned write_threads = 1;  // rank 0: threads that build rows and format text rows
  std::uint64_t piece_rows = kPerVertexPieceRows;  // vertices reduced and written at once (tests: a few)
};
// Where rank 0's per-vertex step spends its time (seconds, summed over the pieces; the
// writer's own time is PerVertexOutput::write_seconds, which overlaps these).
struct PerVertexSteps {
  double degree_read = 0;  // the slowest worker's degree_shares, on its thread while it counted
  double degrees = 0;  // waiting for the degrees: the workers' shares (read while they counted) or the stored ones
  double early_columns = 0;  // waiting for the vertex and degree columns written while the workers counted
  double ids = 0;      // waiting for a class's input ids (read on a thread)
  double counters = 0;  // taking a class's counters off this rank's backend (rank 0 when it counts too)
  double reduce = 0;   // the pieces' reductions (counters and degrees) to rank 0
  double rows = 0;     // building the rows and the summary
  double queue = 0;    // waiting for room in the writer's queue
  double finish = 0;   // waiting for the writer to write the last rows, and the fsync
  bool stored_degrees = false;  // the degrees came from the file (else counted from the blocks)
  bool early_columns_written = false;  // the vertex and degree columns were written while counting
};
// What the collective leaves on rank 0: the summary and the output, written under its
// temporary name but not yet committed, or, when writing failed (a full disk), why. The
// summary is whole either way, so the caller puts the count on record first, then commits.
struct PerVertexOutput {
  PerVertexSummary summary;
  std::unique_ptr<PerVertexWriter> writer;  // null once writing failed (its temporary removed)
  std::string write_error;
  double write_seconds = 0;    // the writer's formatting, writing and fsync (overlapping the reduction)
  std::uint64_t write_bytes = 0;
  PerVertexSteps steps;
  // Closes and renames the output into place; throws Error (the write error) if it failed.
  void commit();
};
// Rank 0 refuses (Error, no output) counters that do not sum to 3 x `triangles` (its total).
// A write error on rank 0 does not stop the reduction: it is kept in `write_error`.
PerVertexOutput reduce_per_vertex(MPI_Comm comm, bool is_worker, const BlockFileReader* file, const std::string& path,
                                  const PerVertexSources& sources, std::uint64_t triangles);
// reduce_per_vertex, then the commit on rank 0 (an error there ends the call on every rank).
PerVertexSummary reduce_and_write_per_vertex(MPI_Comm comm, bool is_worker, const BlockFileReader* file,
                                             const std::string& path, const PerVertexSources& sources,
                                             std::uint64_t triangles);

}  // namespace tricount
