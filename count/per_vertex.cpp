#include "count/per_vertex.hpp"

#include <hdf5.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <numeric>
#include <optional>
#include <utility>

#include "count/chunked_mpi.hpp"
#include "count/collective.hpp"
#include "src/hdf5_check.hpp"
#include "src/hdf5_datasets.hpp"
#include "src/hdf5_handle.hpp"

namespace tricount {

namespace {

constexpr const char* kPerVertexFormat = "tricount-per-vertex";
constexpr std::uint64_t kPerVertexVersion = 1;

bool ranks_before(const TopVertex& a, const TopVertex& b) {
  return a.triangles != b.triangles ? a.triangles > b.triangles : a.vertex < b.vertex;
}

// --- HDF5 --------------------------------------------------------------------------------

using H5Id = Hdf5Handle;

}  // namespace

double local_clustering(std::uint64_t degree, std::uint64_t triangles) {
  if (degree < 2) return 0.0;
  const long double d = static_cast<long double>(degree);
  return static_cast<double>(2.0L * static_cast<long double>(triangles) / (d * (d - 1.0L)));
}

VertexRows class_rows(std::span<const raw_id_t> ids, std::span<const std::uint64_t> degrees,
                      std::span<const std::uint64_t> triangles) {
  TRICOUNT_EXPECTS(ids.size() == degrees.size() && ids.size() == triangles.size(),
                   "per-vertex rows: " + std::to_string(ids.size()) + " ids, " + std::to_string(degrees.size()) +
                       " degrees and " + std::to_string(triangles.size()) + " counts");
  VertexRows rows;
  const std::size_t kept = ids.size() - static_cast<std::size_t>(std::count(degrees.begin(), degrees.end(), 0));
  rows.vertex.reserve(kept), rows.degree.reserve(kept), rows.triangles.reserve(kept), rows.clustering.reserve(kept);
  for (std::size_t x = 0; x < ids.size(); ++x) {
    if (degrees[x] == 0) continue;
    rows.vertex.push_back(ids[x]);
    rows.degree.push_back(degrees[x]);
    rows.triangles.push_back(triangles[x]);
    rows.clustering.push_back(local_clustering(degrees[x], triangles[x]));
  }
  return rows;
}

std::vector<std::vector<std::uint64_t>> degree_shares(const BlockFileReader& file, int worker, int workers,
                                                      unsigned threads) {
  const std::uint32_t n = file.header().parts;
  // 1. The blocks dealt out by size, the same way on every worker: largest first, each to
  //    the worker with the fewest edges so far (ties: the lower worker, then the lower block).
  std::vector<BlockId> blocks;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) blocks.push_back({i, j});
  std::vector<std::uint64_t> nnz(blocks.size());
  for (std::size_t b = 0; b < blocks.size(); ++b) nnz[b] = file.block_nnz(blocks[b]);
  std::vector<std::size_t> order(blocks.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return nnz[a] > nnz[b]; });
  std::vector<std::uint64_t> load(static_cast<std::size_t>(workers), 0);
  std::vector<std::vector<std::uint64_t>> share(n);
  for (const std::size_t b : order) {
    const auto least = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    load[static_cast<std::size_t>(least)] += nnz[b] + 1;
    if (least != worker) continue;
    // 2. One read of the block, for both: row lengths to class i, neighbours to class j.
    const BlockId id = blocks[b];
    std::optional<MappedBlock> mapped = file.map_block(id, threads);
    CsrBlock copy;
    if (!mapped) copy = file.read_block(id, threads);
    const CsrSpan block = mapped ? mapped->span() : copy.span();
    for (const std::uint32_t c : {id.row_class, id.col_class})
      if (share[c].empty()) share[c].assign(rows_in_class(file.header().vertices, n, c), 0);
    std::uint64_t* out = share[id.row_class].data();
    for (std::uint64_t r = 0; r < block.rows; ++r) out[r] += block.offsets[r + 1] - block.offsets[r];
    std::uint64_t* in = share[id.col_class].data();
    for (std::uint64_t e = 0; e < block.nnz; ++e) ++in[block.neighbors[e]];
  }
  return share;
}

void PerVertexSummary::add(const VertexRows& rows) {
  for (std::size_t x = 0; x < rows.size(); ++x) {
    const std::uint64_t d = rows.degree[x], t = rows.triangles[x];
    ++vertices;
    triangle_sum += t;
    if (d >= 2) wedges += static_cast<unsigned __int128>(d) * (d - 1) / 2;
    clustering_sum += rows.clustering[x];
    const TopVertex v{rows.vertex[x], d, t};
    if (t == 0 || (top.size() == kTop && !ranks_before(v, top.back()))) continue;
    top.insert(std::upper_bound(top.begin(), top.end(), v, ranks_before), v);
    if (top.size() > kTop) top.pop_back();
  }
}

double PerVertexSummary::global_clustering() const {
  return wedges ? static_cast<double>(static_cast<long double>(triangle_sum) / static_cast<long double>(wedges)) : 0.0;
}

double PerVertexSummary::average_clustering() const {
  return vertices ? static_cast<double>(clustering_sum / static_cast<long double>(vertices)) : 0.0;
}

void PerVertexSummary::add_to(JsonObject& j) const {
  std::vector<JsonObject> tops;
  for (const TopVertex& v : top) {
    JsonObject o;
    o.add("vertex", v.vertex).add("degree", v.degree).add("triangles", v.triangles);
    tops.push_back(o);
  }
  j.add("global_clustering", global_clustering())
      .add("average_clustering", average_clustering())
      .add_raw("wedges", to_string_u128(wedges))
      .add("top_vertices", tops);
}

std::string PerVertexSummary::summary() const {
  char buf[128];
  std::snprintf(buf, sizeof buf, "clustering global %.6f, average %.6f", global_clustering(), average_clustering());
  std::string s = buf;
  s += " | top vertices (id:triangles)";
  for (std::size_t x = 0; x < top.size(); ++x)
    s += (x ? ", " : " ") + std::to_string(top[x].vertex) + ":" + std::to_string(top[x].triangles);
  if (top.empty()) s += " none";
  return s;
}

bool per_vertex_is_text(const std::string& path) { return table_is_text(path); }

void check_per_vertex_path(const std::string& path) { check_table_path(path, "--per-vertex"); }

// --- writer ------------------------------------------------------------------------------

namespace {

TableLayout per_vertex_layout(const std::string& input, std::uint64_t rows_hint) {
  TableLayout layout;
  layout.option = "--per-vertex";
  layout.columns = {{"vertex"}, {"degree"}, {"triangles"}, {"clustering", TableType::f64}};
  layout.text_header = "# tricount per-vertex triangle counts of '" + printable(input) +
                       "'\n# every vertex with at least one edge after cleaning, by vertex class (input ids)\n"
                       "# clustering = 2 * triangles / (degree * (degree - 1)), 0 for degree < 2\n"
                       "# vertex\tdegree\ttriangles\tclustering\n";
  layout.attributes = {{"format", kPerVertexFormat}, {"input", input}};
  layout.u64_attributes = {{"format_version", kPerVertexVersion}};
  layout.rows_hint = rows_hint;
  return layout;
}

}  // namespace

PerVertexWriter::PerVertexWriter(const std::string& path, const std::string& input, std::uint64_t rows_hint,
                                 unsigned threads)
    : table_(path, per_vertex_layout(input, rows_hint), threads) {}

void PerVertexWriter::append(VertexRows rows) {
  table_.append({std::move(rows.vertex), std::move(rows.degree), std::move(rows.triangles), std::move(rows.clustering)});
}

void PerVertexWriter::finish() { table_.finish(); }

void PerVertexWriter::commit(const PerVertexSummary& summary) {
  TableAttributes end;
  end.u64 = {{"vertices", table_.rows()}, {"triangles", static_cast<std::uint64_t>(summary.triangle_sum / 3)}};
  end.f64 = {{"global_clustering", summary.global_clustering()}, {"average_clustering", summary.average_clustering()}};
  table_.commit(end);
}

VertexRows read_per_vertex_hdf5(const std::string& path) {
  silence_hdf5();
  const std::string where = "'" + path + "'";
  H5Id file(h5_check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "cannot open " + where), H5Fclose);
  VertexRows rows;
  rows.vertex = read_whole_dataset<std::uint64_t>(file.get(), "vertex", H5T_NATIVE_UINT64, where);
  rows.degree = read_whole_dataset<std::uint64_t>(file.get(), "degree", H5T_NATIVE_UINT64, where);
  rows.triangles = read_whole_dataset<std::uint64_t>(file.get(), "triangles", H5T_NATIVE_UINT64, where);
  rows.clustering = read_whole_dataset<double>(file.get(), "clustering", H5T_NATIVE_DOUBLE, where);
  return rows;
}

// --- the collective ----------------------------------------------------------------------

void PerVertexOutput::commit() {
  if (!write_error.empty()) throw Error(write_error);
  if (writer) writer->commit(summary);
}

PerVertexSummary reduce_and_write_per_vertex(MPI_Comm comm, bool is_worker, const BlockFileReader* file,
                                             const std::string& path, const PerVertexSources& sources,
                                             std::uint64_t triangles) {
  PerVertexOutput out = reduce_per_vertex(comm, is_worker, file, path, sources, triangles);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  collective_step(comm, [&] {
    if (rank == 0) out.commit();
  });
  return std::move(out.summary);
}

PerVertexOutput reduce_per_vertex(MPI_Comm parent, bool is_worker, const BlockFileReader* file, const std::string& path,
                                  const PerVertexSources& sources, std::uint64_t triangles) {
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
  const auto owner_worker = [&](std::uint32_t c) { return static_cast<int>(c % static_cast<std::uint32_t>(worker_count)); };
  const auto owner_rank = [&](std::uint32_t c) { return size == 1 ? 0 : 1 + owner_worker(c); };
  PerVertexOutput out;
  PerVertexSummary& summary = out.summary;
  std::unique_ptr<PerVertexWriter>& writer = out.writer;
  std::vector<std::vector<std::uint64_t>> degrees;  // this worker's shares, one per class
  // A failed write (disk full) stops the writing, not the sums: the count and the report
  // still come out, then the error.
  const auto writing = [&](const auto& write) {
    if (!writer) return;
    try {
      write();
    } catch (const Error& e) {
      out.write_error = e.what();
      writer.reset();  // closes every HDF5 identifier, removes the temporary
    }
  };
  const auto finish = [&] {
    if (workers != MPI_COMM_NULL) MPI_Comm_free(&workers);
    MPI_Comm_free(&comm);
  };
  try {
    // 1. Workers read their share of the blocks for the degrees; rank 0 opens the output.
    collective_step(comm, [&] {
      if (rank == 0) {
        try {
          writer = std::make_unique<PerVertexWriter>(path, file->path(), file->header().vertices, sources.write_threads);
        } catch (const Error& e) {
          out.write_error = e.what();  // reported after the count (a full disk, a FIFO nobody reads)
        }
      }
      if (!is_worker) return;
      degrees = sources.degree_shares();
      degrees.resize(n);
    });
    // 2. Class by class: counters and degree shares summed at the owner in one reduction,
    //    rows built there, handed by rank 0 to its writer thread (which writes them while
    //    the next class is reduced).
    for (std::uint32_t c = 0; c < n; ++c) {
      std::vector<std::uint64_t> sums;  // counters, then degrees
      collective_step(comm, [&] {
        if (!is_worker) return;
        sums = sources.take_counts(c);
        const std::size_t length = sums.size();
        TRICOUNT_EXPECTS(degrees[c].empty() || degrees[c].size() == length,
                         "class " + std::to_string(c) + ": " + std::to_string(length) + " counters but " +
                             std::to_string(degrees[c].size()) + " degrees");
        sums.resize(2 * length, 0);
        std::copy(degrees[c].begin(), degrees[c].end(), sums.begin() + static_cast<std::ptrdiff_t>(length));
        degrees[c] = {};
      });
      if (is_worker) chunked_mpi::reduce_to_owner(sums, owner_worker(c), workers);
      VertexRows rows;
      collective_step(comm, [&] {
        if (rank != owner_rank(c)) return;
        const std::span<const std::uint64_t> all(sums);
        const std::size_t length = sums.size() / 2;
        rows = class_rows(file->read_vertex_map_class(c), all.subspan(length), all.first(length));
      });
      sums = {};
      if (owner_rank(c) != 0 && rank == owner_rank(c)) {
        std::uint64_t length = rows.size();
        MPI_Send(&length, 1, MPI_UINT64_T, 0, 0, comm);
        chunked_mpi::send(rows.vertex, 0, comm), chunked_mpi::send(rows.degree, 0, comm);
        chunked_mpi::send(rows.triangles, 0, comm), chunked_mpi::send(rows.clustering, 0, comm);
      } else if (owner_rank(c) != 0 && rank == 0) {
        std::uint64_t length = 0;
        MPI_Recv(&length, 1, MPI_UINT64_T, owner_rank(c), 0, comm, MPI_STATUS_IGNORE);
        chunked_mpi::receive(rows.vertex, length, owner_rank(c), comm), chunked_mpi::receive(rows.degree, length, owner_rank(c), comm);
        chunked_mpi::receive(rows.triangles, length, owner_rank(c), comm);
        chunked_mpi::receive(rows.clustering, length, owner_rank(c), comm);
      }
      collective_step(comm, [&] {
        if (rank != 0) return;
        summary.add(rows);
        writing([&] { writer->append(std::move(rows)); });
      });
    }
    // 3. Rank 0: the rows on the disk; then it checks the sums. The caller commits the output.
    collective_step(comm, [&] {
      if (rank != 0) return;
      writing([&] {
        writer->finish();
        out.write_seconds = writer->table().write_seconds();
        out.write_bytes = writer->table().bytes();
      });
      if (summary.triangle_sum != static_cast<unsigned __int128>(triangles) * 3)
        throw Error("internal error: the per-vertex counts sum to " + to_string_u128(summary.triangle_sum) + ", not 3 x " +
                    std::to_string(triangles) + " triangles; --per-vertex '" + path + "' was not written");
    });
  } catch (...) {
    writer.reset();  // removes the temporary
    finish();
    throw;
  }
  finish();
  return out;
}

}  // namespace tricount
