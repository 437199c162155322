#include "count/per_edge.hpp"

#include <hdf5.h>

#include <algorithm>
#include <type_traits>
#include <utility>

#include "count/chunked_mpi.hpp"
#include "count/collective.hpp"
#include "src/hdf5_check.hpp"
#include "src/hdf5_datasets.hpp"
#include "src/hdf5_handle.hpp"

namespace tricount {

namespace {

constexpr const char* kPerEdgeFormat = "tricount-per-edge";
constexpr std::uint64_t kPerEdgeVersion = 1;

bool ranks_before(const TopEdge& a, const TopEdge& b) {
  if (a.triangles != b.triangles) return a.triangles > b.triangles;
  return a.u != b.u ? a.u < b.u : a.v < b.v;
}

}  // namespace

EdgeRows block_edge_rows(const CsrBlock& block, const std::vector<raw_id_t>& row_ids, const std::vector<raw_id_t>& col_ids,
                         const std::vector<edge_count_t>& counts, std::uint64_t first, std::uint64_t last) {
  TRICOUNT_EXPECTS(counts.size() == block.nnz() && row_ids.size() == block.rows && col_ids.size() == block.cols &&
                       first <= last && last <= block.nnz(),
                   "per-edge rows of " + block_name(block.id) + ": " + std::to_string(counts.size()) + " counts, " +
                       std::to_string(row_ids.size()) + " and " + std::to_string(col_ids.size()) + " ids for " +
                       std::to_string(block.nnz()) + " edges, " + std::to_string(block.rows) + " rows and " +
                       std::to_string(block.cols) + " columns");
  EdgeRows rows;
  rows.u.reserve(last - first), rows.v.reserve(last - first), rows.triangles.reserve(last - first);
  if (first == last) return rows;
  const eoff_t* offsets = block.offsets.data();
  std::uint64_t r = static_cast<std::uint64_t>(std::upper_bound(offsets, offsets + block.rows + 1, first) - offsets) - 1;
  for (std::uint64_t e = first; e < last; ++e) {
    while (offsets[r + 1] <= e) ++r;
    const raw_id_t a = row_ids[r], b = col_ids[block.neighbors[e]];
    rows.u.push_back(std::min(a, b));
    rows.v.push_back(std::max(a, b));
    rows.triangles.push_back(counts[e]);
  }
  return rows;
}

void PerEdgeSummary::add(const EdgeRows& rows) {
  for (std::size_t x = 0; x < rows.size(); ++x) {
    const std::uint64_t t = rows.triangles[x];
    ++edges;
    triangle_sum += t;
    if (t == 0) continue;
    ++edges_in_triangles;
    const TopEdge e{rows.u[x], rows.v[x], t};
    if (top.size() == kTop && !ranks_before(e, top.back())) continue;
    top.insert(std::upper_bound(top.begin(), top.end(), e, ranks_before), e);
    if (top.size() > kTop) top.pop_back();
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
  table_.append({std::move(rows.u), std::move(rows.v), std::move(rows.triangles)});
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

PerEdgeOutput reduce_per_edge(MPI_Comm parent, bool is_worker, const BlockFileReader* file, const std::string& path,
                              const std::function<std::vector<edge_count_t>(BlockId)>& take_counts, std::uint64_t triangles,
                              unsigned threads, unsigned write_threads) {
  MPI_Comm comm;
  MPI_Comm_dup(parent, &comm);
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Comm workers = MPI_COMM_NULL;
  MPI_Comm_split(comm, is_worker ? 1 : MPI_UNDEFINED, rank, &workers);
  const int worker_count = size == 1 ? 1 : size - 1;
  std::uint32_t n = file ? file->header().parts : 0;
  MPI_Bcast(&n, 1, MPI_UINT32_T, 0, comm);
  const auto owner_worker = [&](std::uint64_t b) { return static_cast<int>(b % static_cast<std::uint64_t>(worker_count)); };
  const auto owner_rank = [&](std::uint64_t b) { return size == 1 ? 0 : 1 + owner_worker(b); };
  PerEdgeOutput out;
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
  const auto finish = [&] {
    if (workers != MPI_COMM_NULL) MPI_Comm_free(&workers);
    MPI_Comm_free(&comm);
  };
  try {
    // 1. Rank 0 opens the output.
    collective_step(comm, [&] {
      if (rank != 0) return;
      try {
        out.writer = std::make_unique<PerEdgeWriter>(path, file->path(), file->header().edges, write_threads);
      } catch (const Error& e) {
        out.write_error = e.what();  // reported after the count (a full disk, a FIFO nobody reads)
      }
    });
    // 2. Block by block: counters summed at the owner, rows built there in pieces, each
    //    handed by rank 0 to its writer thread (which writes it while the next is built).
    for (std::uint64_t b = 0; b < std::uint64_t{n} * n; ++b) {
      const BlockId id{static_cast<std::uint32_t>(b / n), static_cast<std::uint32_t>(b % n)};
      const int owner = owner_rank(b);
      std::vector<edge_count_t> counts;
      collective_step(comm, [&] {
        if (is_worker) counts = take_counts(id);
      });
      if (is_worker) chunked_mpi::reduce_to_owner(counts, owner_worker(b), workers);
      CsrBlock block;
      std::vector<raw_id_t> row_ids, col_ids;
      std::uint64_t nnz = 0;
      collective_step(comm, [&] {
        if (rank == 0) nnz = file->block_nnz(id);
        if (rank != owner) return;
        block = file->read_block(id, threads);
        row_ids = file->read_vertex_map_class(id.row_class);
        col_ids = file->read_vertex_map_class(id.col_class);
        nnz = block.nnz();
        if (counts.size() != nnz)
          throw Error("internal error: " + std::to_string(counts.size()) + " per-edge counters for " + block_name(id) + " of " +
                      std::to_string(nnz) + " edges");
      });
      MPI_Bcast(&nnz, 1, MPI_UINT64_T, 0, comm);  // every rank takes part in every piece's steps
      for (std::uint64_t first = 0; first < nnz; first += kPerEdgePieceRows) {
        const std::uint64_t last = std::min(nnz, first + kPerEdgePieceRows);
        EdgeRows rows;
        collective_step(comm, [&] {
          if (rank == owner) rows = block_edge_rows(block, row_ids, col_ids, counts, first, last);
        });
        if (owner != 0 && rank == owner) {
          chunked_mpi::send(rows.u, 0, comm), chunked_mpi::send(rows.v, 0, comm), chunked_mpi::send(rows.triangles, 0, comm);
        } else if (owner != 0 && rank == 0) {
          chunked_mpi::receive(rows.u, last - first, owner, comm), chunked_mpi::receive(rows.v, last - first, owner, comm);
          chunked_mpi::receive(rows.triangles, last - first, owner, comm);
        }
        collective_step(comm, [&] {
          if (rank != 0) return;
          out.summary.add(rows);
          writing([&] { out.writer->append(std::move(rows)); });
        });
      }
    }
    // 3. Rank 0: the rows on the disk; then it checks the sums. The caller commits the output.
    collective_step(comm, [&] {
      if (rank != 0) return;
      writing([&] {
        out.writer->finish();
        out.write_seconds = out.writer->table().write_seconds();
        out.write_bytes = out.writer->table().bytes();
      });
      if (out.summary.triangle_sum != static_cast<unsigned __int128>(triangles) * 3)
        throw Error("internal error: the per-edge counts sum to " + to_string_u128(out.summary.triangle_sum) + ", not 3 x " +
                    std::to_string(triangles) + " triangles; --per-edge '" + path + "' was not written");
    });
  } catch (...) {
    out.writer.reset();  // removes the temporary
    finish();
    throw;
  }
  finish();
  return out;
}

}  // namespace tricount
