// A table of output rows (tricount-count --per-vertex, --per-edge; any table of integer and
// floating columns) written as it streams: the caller appends batches of rows and goes on preparing
// the next one while a writer thread formats and writes this one in large pieces.
//  - text (a path ending in ".tsv"): the layout's '#' header lines, then one line per row,
//    tab-separated, numbers formatted with std::to_chars (doubles: the shortest text that
//    reads back as the same double) by several threads into large buffers;
//  - HDF5 (any other path): one 1-D dataset per column, chunked (big chunks) so that it can
//    grow, unfiltered: deflate ran far below disk speed (bench/RESULTS.md, per-vertex);
//  - the file is complete under its name only after commit() (src/output_file: a temporary
//    renamed into place; a writer destroyed uncommitted removes its temporary). finish()
//    puts every row on the disk (fsync) first, so commit() is the rename alone.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tricount {

// A column's values: unsigned 64- or 32-bit integers, or doubles (HDF5: uint64, uint32, float64).
enum class TableType { u64, u32, f64 };

struct TableColumn {
  std::string name;
  TableType type = TableType::u64;
};

// What a table looks like: its columns and the text that names it.
struct TableLayout {
  std::string option;                    // the option that named the path, for messages ("--per-vertex")
  std::vector<TableColumn> columns;
  std::string text_header;               // text: written first ('#' lines, each ending in '\n')
  std::vector<std::pair<std::string, std::string>> attributes;  // HDF5: file attributes written at creation
  std::vector<std::pair<std::string, std::uint64_t>> u64_attributes;
  std::uint64_t rows_hint = 0;           // an upper bound on the rows if known (HDF5: no chunk larger than the table)
};

// The values an HDF5 table learns only at the end (its totals), written by commit().
struct TableAttributes {
  std::vector<std::pair<std::string, std::uint64_t>> u64;
  std::vector<std::pair<std::string, double>> f64;
};

// One batch of rows: one vector per column, in the layout's order and of its type, all of
// one length (the variant's index is the column's TableType).
using TableColumnData = std::variant<std::vector<std::uint64_t>, std::vector<std::uint32_t>, std::vector<double>>;
using TableBatch = std::vector<TableColumnData>;

// Batches queued for the writer thread at most: the caller prepares the next meanwhile.
inline constexpr std::size_t kTableQueuedBatches = 2;

// Threads worth starting for work over `rows` table rows (building, summing, formatting
// them): one per kTableRowsPerThread rows, at most `threads`, at least 1.
inline constexpr std::uint64_t kTableRowsPerThread = std::uint64_t{1} << 15;
inline unsigned table_threads(std::uint64_t rows, unsigned threads) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>(rows / kTableRowsPerThread, 1, std::max(1u, threads)));
}

// True when `path` gets the text format (it ends in ".tsv"), else HDF5.
bool table_is_text(const std::string& path);
// Throws Error when `path` could not be written as a table (before any work).
void check_table_path(const std::string& path, const std::string& option);

class TableWriter {
 public:
  // Creates the output (its temporary) and the writer thread; `threads` format text.
  TableWriter(const std::string& path, const TableLayout& layout, unsigned threads);
  ~TableWriter();
  TableWriter(const TableWriter&) = delete;
  TableWriter& operator=(const TableWriter&) = delete;

  // Queues a batch for the writer thread (waits while kTableQueuedBatches are queued, so
  // that the caller, the queue and the thread hold at most kTableQueuedBatches + 2 batches). Throws Error with the reason once a write has failed (a full disk): the
  // table is then lost and its temporary removed.
  void append(TableBatch batch);
  // HDF5 only: a batch of the columns first_column, first_column + 1, ... alone, appended to
  // those columns (each column grows by itself: a column known early is written while the
  // others are still being computed). Queued and thrown as append.
  void append_columns(std::size_t first_column, TableBatch batch);
  // A batch already written (of the columns from first_column on, as appended), to build
  // the next one in (its columns keep their size and values: resizing them down costs
  // nothing, where fresh columns are zero-filled and faulted in), or an empty batch. The
  // writer keeps the newest kTableQueuedBatches of them.
  TableBatch take_spare(std::size_t first_column = 0);
  // Waits until every queued row is written and on the disk (fsync); throws Error as append,
  // or when the columns were left of unequal lengths.
  void finish();
  // After finish(): the end attributes (HDF5), then the file under its name.
  void commit(const TableAttributes& attributes = {});

  std::uint64_t rows() const;          // rows written (after finish(): every column's)
  std::uint64_t bytes() const;         // bytes written: text, or the datasets' values
  double write_seconds() const;        // the writer thread's formatting and writing, and the fsync
  const std::string& path() const;
  const std::string& write_path() const;  // the temporary until committed

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tricount
