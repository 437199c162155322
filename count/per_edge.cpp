#include "count/per_edge.hpp"

#include <hdf5.h>

#include <algorithm>
#include <exception>
#include <future>
#include <optional>
#include <type_traits>
#include <utility>

#include "count/chunked_mpi.hpp"
#include "count/collective.hpp"
#include "count/setup_times.hpp"
#include "src/hdf5_check.hpp"
#include "src/hdf5_datasets.hpp"
#include "src/hdf5_handle.hpp"
#include "src/threads.hpp"

namespace tricount {

namespace {

constexpr const char* kPerEdgeFormat = "tricount-per-edge";
constexpr std::uint64_t kPerEdgeVersion = 1;

bool ranks_before(const TopEdge& a, const TopEdge& b) {
  if (a.triangles != b.triangles) return a.triangles > b.triangles;
  return a.u != b.u ? a.u < b.u : a.v < b.v;
}

}  // namespace

EdgeRows block_edge_rows(const CsrSpan& block, std::span<const raw_id_t> row_ids, std::span<const raw_id_t> col_ids,
                         std::span<const edge_count_t> counts, std::uint64_t first, std::uint64_t last, unsigned threads,
                         EdgeRows reuse) {
  TRICOUNT_EXPECTS(row_ids.size() == block.rows && col_ids.size() == block.cols && first <= last && last <= block.nnz &&
                       counts.size() == last - first,
                   "per-edge rows of " + block_name(block.id) + ": " + std::to_string(counts.size()) + " counts for edges " +
                       std::to_string(first) + " to " + std::to_string(last) + ", " + std::to_string(row_ids.size()) +
                       " and " + std::to_string(col_ids.size()) + " ids for " + std::to_string(block.nnz) + " edges, " +
                       std::to_string(block.rows) + " rows and " + std::to_string(block.cols) + " columns");
  const std::uint64_t n = last - first;
  const unsigned t = table_threads(n, threads);
  EdgeRows rows = std::move(reuse);
  parallel_for(t > 1 ? 3u : 1u, [&](unsigned k) {  // one thread a column: growing them zero-fills
    if (k == 0 || t == 1) rows.u.resize(n);
    if (k == 1 || t == 1) rows.v.resize(n);
    if (k == 2 || t == 1) rows.triangles.resize(n);
  });
  const eoff_t* offsets = block.offsets;
  parallel_for(t, [&](unsigned k) {
    const std::uint64_t from = first + n * k / t, to = first + n * (k + 1) / t;
    if (from == to) return;
    std::uint64_t r = static_cast<std::uint64_t>(std::upper_bound(offsets, offsets + block.rows + 1, from) - offsets) - 1;
    for (std::uint64_t e = from; e < to; ++e) {
      while (offsets[r + 1] <= e) ++r;
      const raw_id_t x = row_ids[r], y = col_ids[block.neighbors[e]];
      rows.u[e - first] = std::min(x, y);
      rows.v[e - first] = std::max(x, y);
      rows.triangles[e - first] = counts[e - first];
    }
  });
  return rows;
}

void PerEdgeSummary::add(const EdgeRows& rows, unsigned threads) {
  // Each range's sums and top list, merged: integers, and a top list ordered by (triangles,
  // u, v), are the same in any grouping.
  const std::size_t n = rows.size();
  const unsigned t = table_threads(n, threads);
  std::vector<PerEdgeSummary> part(t);
  parallel_for(t, [&](unsigned k) {
    // Summed in locals, stored once (as PerVertexSummary::add: the parts share cache lines).
    const auto* triangles = rows.triangles.data();
    const std::size_t first = n * k / t, last = n * (k + 1) / t;
    std::uint64_t in_triangles = 0;
    unsigned __int128 triangle_sum = 0;
    std::vector<TopEdge> top;
    top.reserve(kTop + 1);
    for (std::size_t x = first; x < last; ++x) {
      const std::uint64_t tri = triangles[x];
      triangle_sum += tri;
      if (tri == 0) continue;
      ++in_triangles;
      const TopEdge e{rows.u[x], rows.v[x], tri};
      if (top.size() == kTop && !ranks_before(e, top.back())) continue;
      top.insert(std::upper_bound(top.begin(), top.end(), e, ranks_before), e);
      if (top.size() > kTop) top.pop_back();
    }
    PerEdgeSummary& s = part[k];
    s.edges = last - first;
    s.edges_in_triangles = in_triangles;
    s.triangle_sum = triangle_sum;
    s.top = std::move(top);
  });
  for (const PerEdgeSummary& s : part) {
    edges += s.edges;
    edges_in_triangles += s.edges_in_triangles;
    triangle_sum += s.triangle_sum;
    for (const TopEdge& e : s.top) {
      if (top.size() == kTop && !ranks_before(e, top.back())) break;
      top.insert(std::upper_bound(top.begin(), top.end(), e, ranks_before), e);
      if (top.size() > kTop) top.pop_back();
    }
  }
}

void PerEdgeSummary::add_to(JsonObject& j) const {
  std::vector<JsonObject> tops;
  for (const TopEdge& e : top) {
    JsonObject o;
    o.add("u", e.u).add("v", e.v).add("triangles", e.triangles);
    tops.push_back(o);
  }
  j.add("edges_in_triangles", edges_in_triangles).add("top_edges", tops);
}

std::string PerEdgeSummary::summary() const {
  std::string s = std::to_string(edges_in_triangles) + " of " + std::to_string(edges) +
                  " edges in a triangle | top edges (u-v:triangles)";
  for (std::size_t x = 0; x < top.size(); ++x)
    s += (x ? ", " : " ") + std::to_string(top[x].u) + "-" + std::to_string(top[x].v) + ":" + std::to_string(top[x].triangles);
  if (top.empty()) s += " none";
  return s;
}

bool per_edge_is_text(const std::string& path) { return table_is_text(path); }

void check_per_edge_path(const std::string& path) { check_table_path(path, "--per-edge"); }

// --- writer ------------------------------------------------------------------------------

namespace {

TableLayout per_edge_layout(const std::string& input, std::uint64_t rows_hint) {
  TableLayout layout;
  layout.option = "--per-edge";
  layout.columns = {{"u"}, {"v"}, {"triangles", TableType::u32}};
  layout.text_header = "# tricount per-edge triangle counts of '" + printable(input) +
                       "'\n# every undirected edge after cleaning, once, u < v (input ids), by block\n"
                       "# u\tv\ttriangles\n";
  layout.attributes = {{"format", kPerEdgeFormat}, {"input", input}};
  layout.u64_attributes = {{"format_version", kPerEdgeVersion}};
  layout.rows_hint = rows_hint;
  return layout;
}

}  // namespace

PerEdgeWriter::PerEdgeWriter(const std::string& path, const std::string& input, std::uint64_t rows_hint, unsigned threads)
    : table_(path, per_edge_layout(input, rows_hint), threads) {}

void PerEdgeWriter::append(EdgeRows rows) {
  static_assert(std::is_same_v<edge_count_t, std::uint32_t>, "the triangles column is uint32");
  TableBatch batch;  // moved in (a braced list would copy every column)
  batch.reserve(3);
  batch.emplace_back(std::move(rows.u)), batch.emplace_back(std::move(rows.v)), batch.emplace_back(std::move(rows.triangles));
  table_.append(std::move(batch));
}

EdgeRows PerEdgeWriter::spare_rows() {
  TableBatch spare = table_.take_spare();
  EdgeRows rows;
  if (spare.size() != 3) return rows;
  rows.u = std::move(std::get<std::vector<std::uint64_t>>(spare[0]));
  rows.v = std::move(std::get<std::vector<std::uint64_t>>(spare[1]));
  rows.triangles = std::move(std::get<std::vector<edge_count_t>>(spare[2]));
  return rows;
}

void PerEdgeWriter::finish() { table_.finish(); }

void PerEdgeWriter::commit(const PerEdgeSummary& summary) {
  TableAttributes end;
  end.u64 = {{"edges", table_.rows()}, {"triangles", static_cast<std::uint64_t>(summary.triangle_sum / 3)}};
  table_.commit(end);
}

EdgeRows read_per_edge_hdf5(const std::string& path) {
  silence_hdf5();
  const std::string where = "'" + path + "'";
  Hdf5Handle file(h5_check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "cannot open " + where), H5Fclose);
  EdgeRows rows;
  rows.u = read_whole_dataset<std::uint64_t>(file.get(), "u", H5T_NATIVE_UINT64, where);
  rows.v = read_whole_dataset<std::uint64_t>(file.get(), "v", H5T_NATIVE_UINT64, where);
  rows.triangles = read_whole_dataset<edge_count_t>(file.get(), "triangles", H5T_NATIVE_UINT32, where);
  if (rows.v.size() != rows.u.size() || rows.triangles.size() != rows.u.size())
    throw Error(where + ": datasets u, v and triangles differ in length");
  return rows;
}

// --- the collective ----------------------------------------------------------------------

void PerEdgeOutput::commit() {
  if (!write_error.empty()) throw Error(write_error);
  if (writer) writer->commit(summary);
}

BlockForRows read_block_for_rows(const BlockFileReader& file, BlockId id, const BlockForRows* before, unsigned threads) {
  BlockForRows b;
  b.mapped = file.map_block(id, threads);
  if (!b.mapped) b.copy = file.read_block(id, threads);
  b.span = b.mapped ? b.mapped->span() : b.copy.span();
  const auto ids = [&](std::uint32_t c) -> std::shared_ptr<const std::vector<raw_id_t>> {
    if (before && before->span.id.row_class == c) return before->row_ids;
    if (before && before->span.id.col_class == c) return before->col_ids;
    return std::make_shared<const std::vector<raw_id_t>>(file.read_vertex_map_class(c, threads));
  };
  b.row_ids = ids(id.row_class);
  b.col_ids = id.col_class == id.row_class ? b.row_ids : ids(id.col_class);
  return b;
}

PerEdgeAhead::PerEdgeAhead(const BlockFileReader& file, unsigned threads)
    : first_(std::async(std::launch::async, [&file, threads] { return read_block_for_rows(file, {0, 0}, nullptr, threads); })) {}

PerEdgeAhead::~PerEdgeAhead() {
  if (first_.valid()) first_.wait();  // its error, if any, goes with it: nobody asked for the block
}

BlockForRows PerEdgeAhead::take() {
  TRICOUNT_EXPECTS(first_.valid(), "the first block was taken twice");
  return first_.get();
}

PerEdgeOutput reduce_per_edge(MPI_Comm parent, bool is_worker, const BlockFileReader* file, const std::string& path,
                              const std::function<std::vector<edge_count_t>(BlockId)>& take_counts, std::uint64_t triangles,
                              unsigned threads, unsigned write_threads, std::uint64_t piece_rows, PerEdgeAhead* ahead) {
  MPI_Comm comm;
  MPI_Comm_dup(parent, &comm);
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::uint32_t n = file ? file->header().parts : 0;
  MPI_Bcast(&n, 1, MPI_UINT32_T, 0, comm);
  threads = std::max(1u, threads);
  write_threads = std::max(1u, write_threads);
  const std::uint64_t piece = std::max<std::uint64_t>(1, std::min(piece_rows, kPerEdgePieceRows));
  MPI_Comm workers = MPI_COMM_NULL;
  MPI_Comm_split(comm, is_worker ? 1 : MPI_UNDEFINED, rank, &workers);
  const auto free_comms = [&] {
    if (workers != MPI_COMM_NULL) MPI_Comm_free(&workers);
    MPI_Comm_free(&comm);
  };
  PerEdgeOutput out;
  PerEdgeSteps& steps = out.steps;
  // A failed write (disk full) stops the writing, not the sums: the count and the report
  // still come out, then the error.
  const auto writing = [&](const auto& write) {
    if (!out.writer) return;
    try {
      write();
    } catch (const Error& e) {
      out.write_error = e.what();
      out.writer.reset();  // closes every HDF5 identifier, removes the temporary
    }
  };
  // This rank's first error: the rank goes on taking part in every reduction (with zeros),
  // and the error ends the call on every rank after the last piece.
  std::exception_ptr failure;
  const auto guarded = [&](const auto& work) {
    if (failure) return;
    try {
      work();
    } catch (...) {
      failure = std::current_exception();
    }
  };
  // Rank 0: the next block's CSR and ids, read on a thread while this one is written.
  std::shared_ptr<const BlockForRows> block;
  std::future<BlockForRows> next_block;
  const auto read_next = [&](BlockId id) {
    next_block = std::async(std::launch::async, [file, id, before = block, threads] {
      return read_block_for_rows(*file, id, before.get(), threads);
    });
  };
  const auto block_id = [&](std::uint64_t b) { return BlockId{static_cast<std::uint32_t>(b / n), static_cast<std::uint32_t>(b % n)}; };
  try {
    // 1. Rank 0 opens the output and starts reading the first block.
    collective_step(comm, [&] {
      if (rank != 0) return;
      if (n > 0 && ahead)
        next_block = std::async(std::launch::deferred, [ahead] { return ahead->take(); });  // read while counting
      else if (n > 0)
        read_next(block_id(0));
      try {
        out.writer = std::make_unique<PerEdgeWriter>(path, file->path(), file->header().edges, write_threads);
      } catch (const Error& e) {
        out.write_error = e.what();  // reported after the count (a full disk, a FIFO nobody reads)
      }
    });
    // 2. Block by block, in pieces: counters summed over the workers on their way to rank 0
    //    (chunked_mpi::sum_piece_to_rank0). Rank 0 builds a piece's rows and sums on
    //    several threads while it receives the next piece, and hands them to the writer
    //    thread, which writes them while the workers sum the pieces after.
    std::vector<edge_count_t> sums[2];  // rank 0: a piece's sums, and the one before's
    std::future<EdgeRows> building;     // rank 0: the piece before's rows
    const auto hand_over = [&] {        // the piece before's rows to the writer
      if (!building.valid()) return;
      guarded([&] {
        EdgeRows rows = timed(steps.rows, [&] { return building.get(); });
        timed(steps.queue, [&] { writing([&] { out.writer->append(std::move(rows)); }); });
      });
      if (building.valid()) building.wait();  // not taken after an error: done before its inputs go
    };
    // Worker 0: the counters its sends to rank 0 are still reading, kept until the next block is sent.
    struct Sending {
      std::vector<edge_count_t> counts;
      std::vector<MPI_Request> sent;
    } sending, sent_before;
    const auto wait_sent = [](Sending& s) {
      MPI_Waitall(static_cast<int>(s.sent.size()), s.sent.data(), MPI_STATUSES_IGNORE);
      s = {};
    };
    std::uint64_t pieces = 0;
    for (std::uint64_t b = 0; b < std::uint64_t{n} * n; ++b) {
      const BlockId id = block_id(b);
      const std::uint64_t nnz = file->block_nnz(id);
      std::vector<edge_count_t> counts;  // a worker's counters of the block
      if (is_worker) {
        guarded([&] {
          counts = take_counts(id);
          if (counts.size() != nnz)
            throw Error("internal error: " + std::to_string(counts.size()) + " per-edge counters for " + block_name(id) +
                        " of " + std::to_string(nnz) + " edges");
        });
        if (failure) counts.assign(nnz, 0);  // zeros from here on
      }
      if (rank == 0) {
        guarded([&] {
          block = timed(steps.blocks, [&] { return std::make_shared<const BlockForRows>(next_block.get()); });
          if (block->span.nnz != nnz)
            throw Error("internal error: " + block_name(id) + " has " + std::to_string(block->span.nnz) + " edges, not " +
                        std::to_string(nnz));
        });
        if (!failure && b + 1 < std::uint64_t{n} * n) read_next(block_id(b + 1));
      }
      for (std::uint64_t first = 0; first < nnz; first += piece, ++pieces) {
        const std::uint64_t m = std::min(nnz, first + piece) - first;
        std::span<const edge_count_t> sum;  // rank 0: the piece's counters, summed
        if (size == 1) {
          sum = std::span<const edge_count_t>(counts).subspan(first, m);
        } else if (is_worker) {
          chunked_mpi::sum_piece_to_rank0(counts.data() + first, m, workers, comm, 0, sending.sent);
        } else {
          std::vector<edge_count_t>& summed = sums[pieces % 2];
          timed(steps.reduce, [&] { chunked_mpi::receive_piece_sum(summed, m, comm, 0); });
          sum = summed;
        }
        if (rank != 0) continue;
        hand_over();
        if (failure) continue;
        building = std::async(std::launch::async, [&, block = block, first, m, sum] {
          EdgeRows rows = block_edge_rows(block->span, *block->row_ids, *block->col_ids, sum, first, first + m, write_threads,
                                          out.writer ? out.writer->spare_rows() : EdgeRows{});
          out.summary.add(rows, write_threads);
          return rows;
        });
        if (size == 1) hand_over();  // its counters are this rank's: nothing to receive meanwhile
      }
      if (is_worker) {
        wait_sent(sent_before);
        sending.counts = std::move(counts);
        sent_before = std::move(sending);
        sending = {};
      }
    }
    if (rank == 0) hand_over();
    wait_sent(sent_before);
    block.reset();
    // 3. Any rank's error ends the call on every rank; rank 0 has the rows put on the disk,
    //    then checks the sums. The caller commits the output.
    collective_step(comm, [&] {
      if (failure) std::rethrow_exception(failure);
    });
    collective_step(comm, [&] {  // apart: a rank's error above, not its effect on the sums, is the message
      if (rank != 0) return;
      timed(steps.finish, [&] {
        writing([&] {
          out.writer->finish();
          out.write_seconds = out.writer->table().write_seconds();
          out.write_bytes = out.writer->table().bytes();
        });
      });
      if (out.summary.triangle_sum != static_cast<unsigned __int128>(triangles) * 3)
        throw Error("internal error: the per-edge counts sum to " + to_string_u128(out.summary.triangle_sum) + ", not 3 x " +
                    std::to_string(triangles) + " triangles; --per-edge '" + path + "' was not written");
    });
  } catch (...) {
    out.writer.reset();  // removes the temporary
    free_comms();
    throw;
  }
  free_comms();
  return out;
}

}  // namespace tricount
