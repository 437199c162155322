#include "count/per_vertex.hpp"

#include <hdf5.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <exception>
#include <numeric>
#include <optional>
#include <utility>

#include "count/chunked_mpi.hpp"
#include "count/collective.hpp"
#include "count/setup_times.hpp"
#include "src/hdf5_check.hpp"
#include "src/hdf5_datasets.hpp"
#include "src/hdf5_handle.hpp"
#include "src/task_plan.hpp"
#include "src/threads.hpp"

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

FileClassCounts::FileClassCounts(std::uint32_t file_parts, std::uint32_t count_parts, std::uint64_t vertices,
                                 std::function<std::vector<std::uint64_t>(std::uint32_t c)> take_count_class, unsigned threads)
    : file_parts_(file_parts),
      count_parts_(count_parts),
      vertices_(vertices),
      take_count_class_(std::move(take_count_class)),
      threads_(threads) {}

std::vector<std::uint64_t> FileClassCounts::take(std::uint32_t file_class) {
  if (count_parts_ == file_parts_) return take_count_class_(file_class);
  TRICOUNT_EXPECTS(count_parts_ > 0 && file_parts_ % count_parts_ == 0 && file_class < file_parts_,
                   "per-vertex counters: class " + std::to_string(file_class) + " of " + std::to_string(file_parts_) +
                       " parts counted as " + std::to_string(count_parts_));
  const std::uint32_t g = file_parts_ / count_parts_, plan_class = file_class % count_parts_, a = file_class / count_parts_;
  auto it = held_.find(plan_class);
  if (it == held_.end()) {
    it = held_.emplace(plan_class, Held{take_count_class_(plan_class), g}).first;
    TRICOUNT_EXPECTS(it->second.counts.size() == rows_in_class(vertices_, count_parts_, plan_class),
                     "per-vertex counters of class " + std::to_string(plan_class) + ": " + std::to_string(it->second.counts.size()) +
                         " for its " + std::to_string(rows_in_class(vertices_, count_parts_, plan_class)) + " vertices");
  }
  const std::vector<std::uint64_t>& counts = it->second.counts;
  std::vector<std::uint64_t> mine(rows_in_class(vertices_, file_parts_, file_class));
  parallel_ranges(mine.size(), threads_, [&](std::uint64_t first, std::uint64_t last) {
    for (std::uint64_t l = first; l < last; ++l) mine[l] = counts[l * g + a];
  });
  if (--it->second.left == 0) held_.erase(it);
  return mine;
}

double local_clustering(std::uint64_t degree, std::uint64_t triangles) {
  if (degree < 2) return 0.0;
  const long double d = static_cast<long double>(degree);
  return static_cast<double>(2.0L * static_cast<long double>(triangles) / (d * (d - 1.0L)));
}

namespace {

// The rows `degrees` keeps (degree != 0), in order, on t threads: each thread counts its
// range's, size(rows) sizes the columns, then each thread calls fill(x, y) for its kept
// vertices x and their rows y.
template <class Size, class Fill>
void fill_kept_rows(std::span<const std::uint64_t> degrees, unsigned t, Size&& size, Fill&& fill) {
  const std::size_t n = degrees.size();
  std::vector<std::size_t> at(t + 1, 0);
  parallel_for(t, [&](unsigned k) {
    at[k + 1] = static_cast<std::size_t>(
        std::count_if(degrees.begin() + n * k / t, degrees.begin() + n * (k + 1) / t, [](std::uint64_t d) { return d != 0; }));
  });
  std::partial_sum(at.begin(), at.end(), at.begin());
  size(at[t]);
  parallel_for(t, [&](unsigned k) {
    std::size_t y = at[k];
    for (std::size_t x = n * k / t; x < n * (k + 1) / t; ++x)
      if (degrees[x] != 0) fill(x, y++);
  });
}

}  // namespace

VertexRows class_rows(std::span<const raw_id_t> ids, std::span<const std::uint64_t> degrees,
                      std::span<const std::uint64_t> triangles, unsigned threads, VertexRows reuse) {
  TRICOUNT_EXPECTS(ids.size() == degrees.size() && ids.size() == triangles.size(),
                   "per-vertex rows: " + std::to_string(ids.size()) + " ids, " + std::to_string(degrees.size()) +
                       " degrees and " + std::to_string(triangles.size()) + " counts");
  const std::size_t n = ids.size();
  const unsigned t = table_threads(n, threads);
  VertexRows rows = std::move(reuse);
  fill_kept_rows(
      degrees, t,
      [&](std::size_t kept) {  // one thread a column: growing them zero-fills
        parallel_for(t > 1 ? 4u : 1u, [&](unsigned k) {
          if (k == 0 || t == 1) rows.vertex.resize(kept);
          if (k == 1 || t == 1) rows.degree.resize(kept);
          if (k == 2 || t == 1) rows.triangles.resize(kept);
          if (k == 3 || t == 1) rows.clustering.resize(kept);
        });
      },
      [&](std::size_t x, std::size_t y) {
        rows.vertex[y] = ids[x];
        rows.degree[y] = degrees[x];
        rows.triangles[y] = triangles[x];
        rows.clustering[y] = local_clustering(degrees[x], triangles[x]);
      });
  return rows;
}

std::vector<std::vector<std::uint64_t>> degree_shares(const BlockFileReader& file, int worker, int workers,
                                                      unsigned threads, std::stop_token stop) {
  const std::uint32_t n = file.header().parts;
  threads = std::max(1u, threads);
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
    if (stop.stop_requested()) return share;
    // 2. One read of the block, for both: row lengths to class i, neighbours to class j.
    const BlockId id = blocks[b];
    std::optional<MappedBlock> mapped = file.map_block(id, threads);
    CsrBlock copy;
    if (!mapped) copy = file.read_block(id, threads);
    const CsrSpan block = mapped ? mapped->span() : copy.span();
    for (const std::uint32_t c : {id.row_class, id.col_class})
      if (share[c].empty()) share[c].assign(rows_in_class(file.header().vertices, n, c), 0);
    std::uint64_t* out = share[id.row_class].data();
    parallel_ranges(block.rows, table_threads(block.rows, threads), [&](std::uint64_t first, std::uint64_t last) {
      for (std::uint64_t r = first; r < last; ++r) out[r] += block.offsets[r + 1] - block.offsets[r];
    });
    // 3. The neighbours: each thread counts its range into counters of its own (no atomics:
    //    the hubs are in most lists), where they take no more memory than the block's edges;
    //    a count fits 32 bits, as a vertex is in at most one list per row.
    std::uint64_t* in = share[id.col_class].data();
    const unsigned t = block.rows <= UINT32_MAX && block.cols > 0
                           ? static_cast<unsigned>(std::clamp<std::uint64_t>(block.nnz / block.cols, 1, threads))
                           : 1u;
    constexpr std::uint64_t kStopCheck = std::uint64_t{1} << 22;  // edges between looks at `stop`
    if (t == 1) {
      for (std::uint64_t e = 0; e < block.nnz; ++e) {
        if (e % kStopCheck == 0 && stop.stop_requested()) return share;
        ++in[block.neighbors[e]];
      }
      continue;
    }
    std::vector<std::vector<std::uint32_t>> mine(t);
    parallel_for(t, [&](unsigned k) {
      mine[k].assign(block.cols, 0);
      std::uint32_t* into = mine[k].data();
      for (std::uint64_t e = block.nnz * k / t; e < block.nnz * (k + 1) / t; ++e) {
        if (e % kStopCheck == 0 && stop.stop_requested()) return;
        ++into[block.neighbors[e]];
      }
    });
    if (stop.stop_requested()) return share;
    parallel_ranges(block.cols, t, [&](std::uint64_t first, std::uint64_t last) {
      for (const std::vector<std::uint32_t>& counts : mine)
        for (std::uint64_t v = first; v < last; ++v) in[v] += counts[v];
    });
  }
  return share;
}

PerVertexAhead::PerVertexAhead(const BlockFileReader& file, bool degrees, bool first_ids, int worker, int workers,
                               unsigned threads, const std::string& early_table) {
  if (degrees)
    degrees_ = std::async(std::launch::async, [this, &file, worker, workers, threads, stop = stop_.get_token()] {
      return timed(degree_seconds_, [&] { return degree_shares(file, worker, workers, threads, stop); });
    });
  if (first_ids && file.header().parts > 0)
    first_ids_ = std::async(std::launch::async, [&file, threads] { return file.read_vertex_map_class(0, threads); });
  if (first_ids && file.header().parts > 0 && file.has_degrees())
    first_degrees_ = std::async(std::launch::async, [&file, threads] { return file.read_degrees_class(0, threads); });
  if (!early_table.empty() && file.has_degrees())
    early_ = std::async(std::launch::async, [&file, early_table, threads, stop = stop_.get_token()] {
      // Any failure (a corrupt class, a full disk) leaves the table to the step, which meets
      // it again and reports it as it does without this.
      std::unique_ptr<PerVertexWriter> writer;
      try {
        writer = std::make_unique<PerVertexWriter>(early_table, file.path(), file.header().vertices, threads);
        for (std::uint32_t c = 0; c < file.header().parts; ++c) {
          const std::vector<raw_id_t> ids = file.read_vertex_map_class(c, threads);
          const std::vector<std::uint64_t> degrees = file.read_degrees_class(c, threads);
          if (ids.size() != degrees.size()) return std::unique_ptr<PerVertexWriter>();
          for (std::uint64_t first = 0; first < ids.size(); first += kPerVertexPieceRows) {
            if (stop.stop_requested()) return std::unique_ptr<PerVertexWriter>();
            const std::uint64_t m = std::min<std::uint64_t>(kPerVertexPieceRows, ids.size() - first);
            writer->append_vertices(std::span<const raw_id_t>(ids).subspan(first, m),
                                    std::span<const std::uint64_t>(degrees).subspan(first, m), threads);
          }
        }
      } catch (const std::exception&) {
        return std::unique_ptr<PerVertexWriter>();
      }
      writer->vertices_written();
      return writer;
    });
}

PerVertexAhead::~PerVertexAhead() {
  stop_.request_stop();
  // Their errors, if any, go with them: nobody asked for what they read.
  if (degrees_.valid()) degrees_.wait();
  if (first_ids_.valid()) first_ids_.wait();
  if (first_degrees_.valid()) first_degrees_.wait();
  if (early_.valid()) early_.wait();
}

std::unique_ptr<PerVertexWriter> PerVertexAhead::take_early_writer() {
  return early_.valid() ? early_.get() : nullptr;
}

std::vector<std::vector<std::uint64_t>> PerVertexAhead::take_degrees() {
  TRICOUNT_EXPECTS(degrees_.valid(), "the degree shares were not read ahead, or taken twice");
  return degrees_.get();
}

std::vector<std::uint64_t> PerVertexAhead::take_first_degrees() {
  TRICOUNT_EXPECTS(first_degrees_.valid(), "class 0's stored degrees were not read ahead, or taken twice");
  return first_degrees_.get();
}

std::vector<raw_id_t> PerVertexAhead::take_first_ids() {
  TRICOUNT_EXPECTS(first_ids_.valid(), "class 0's input ids were not read ahead, or taken twice");
  return first_ids_.get();
}

void PerVertexSummary::add(const VertexRows& rows, unsigned threads) {
  // Each range's sums and top list, merged: integers, and a top list ordered by (triangles,
  // vertex), are the same in any grouping. The clustering sum (long double) is added in row
  // order, beside them, so that it is the same for any `threads`.
  const std::size_t n = rows.size();
  const unsigned t = table_threads(n, threads);
  std::vector<PerVertexSummary> part(t);
  long double clustering = clustering_sum;
  parallel_for(t + 1, [&](unsigned k) {
    if (k == t) {
      for (std::size_t x = 0; x < n; ++x) clustering += rows.clustering[x];
      return;
    }
    // Summed in locals, stored once: the parts share cache lines, and a store to them every
    // row made each thread's lines bounce between cores.
    const std::uint64_t* degree = rows.degree.data();
    const std::uint64_t* triangles = rows.triangles.data();
    const std::size_t first = n * k / t, last = n * (k + 1) / t;
    unsigned __int128 triangle_sum = 0, wedges = 0;
    std::vector<TopVertex> top;
    top.reserve(kTop + 1);
    for (std::size_t x = first; x < last; ++x) {
      const std::uint64_t d = degree[x], tri = triangles[x];
      triangle_sum += tri;
      if (d >= 2) wedges += static_cast<unsigned __int128>(d) * (d - 1) / 2;
      if (tri == 0) continue;
      const TopVertex v{rows.vertex[x], d, tri};
      if (top.size() == kTop && !ranks_before(v, top.back())) continue;
      top.insert(std::upper_bound(top.begin(), top.end(), v, ranks_before), v);
      if (top.size() > kTop) top.pop_back();
    }
    PerVertexSummary& s = part[k];
    s.vertices = last - first;
    s.triangle_sum = triangle_sum;
    s.wedges = wedges;
    s.top = std::move(top);
  });
  clustering_sum = clustering;
  for (const PerVertexSummary& s : part) {
    vertices += s.vertices;
    triangle_sum += s.triangle_sum;
    wedges += s.wedges;
    for (const TopVertex& v : s.top) {
      if (top.size() == kTop && !ranks_before(v, top.back())) break;
      top.insert(std::upper_bound(top.begin(), top.end(), v, ranks_before), v);
      if (top.size() > kTop) top.pop_back();
    }
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

void PerVertexWriter::append_vertices(std::span<const raw_id_t> ids, std::span<const std::uint64_t> degrees, unsigned threads) {
  TRICOUNT_EXPECTS(!early_ && ids.size() == degrees.size(), "per-vertex vertex columns: " + std::to_string(ids.size()) +
                                                               " ids and " + std::to_string(degrees.size()) + " degrees");
  TableBatch batch = table_.take_spare(0);
  if (batch.size() != 2) batch = {std::vector<std::uint64_t>(), std::vector<std::uint64_t>()};
  auto& vertex = std::get<std::vector<std::uint64_t>>(batch[0]);
  auto& degree = std::get<std::vector<std::uint64_t>>(batch[1]);
  fill_kept_rows(
      degrees, table_threads(ids.size(), threads), [&](std::size_t kept) { vertex.resize(kept), degree.resize(kept); },
      [&](std::size_t x, std::size_t y) { vertex[y] = ids[x], degree[y] = degrees[x]; });
  table_.append_columns(0, std::move(batch));
}

void PerVertexWriter::append(VertexRows rows) {
  TableBatch batch;  // moved in (a braced list would copy every column)
  batch.reserve(4);
  if (early_) {
    batch.emplace_back(std::move(rows.triangles)), batch.emplace_back(std::move(rows.clustering));
    kept_vertex_ = std::move(rows.vertex), kept_degree_ = std::move(rows.degree);
    return table_.append_columns(2, std::move(batch));
  }
  batch.emplace_back(std::move(rows.vertex)), batch.emplace_back(std::move(rows.degree));
  batch.emplace_back(std::move(rows.triangles)), batch.emplace_back(std::move(rows.clustering));
  table_.append(std::move(batch));
}

VertexRows PerVertexWriter::spare_rows() {
  VertexRows rows;
  if (early_) {
    rows.vertex = std::move(kept_vertex_), rows.degree = std::move(kept_degree_);
    TableBatch spare = table_.take_spare(2);
    if (spare.size() != 2) return rows;
    rows.triangles = std::move(std::get<std::vector<std::uint64_t>>(spare[0]));
    rows.clustering = std::move(std::get<std::vector<double>>(spare[1]));
    return rows;
  }
  TableBatch spare = table_.take_spare();
  if (spare.size() != 4) return rows;
  rows.vertex = std::move(std::get<std::vector<std::uint64_t>>(spare[0]));
  rows.degree = std::move(std::get<std::vector<std::uint64_t>>(spare[1]));
  rows.triangles = std::move(std::get<std::vector<std::uint64_t>>(spare[2]));
  rows.clustering = std::move(std::get<std::vector<double>>(spare[3]));
  return rows;
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
  PerVertexOutput out;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::uint64_t shape[3] = {file ? file->header().parts : 0, file ? file->header().vertices : 0,
                             file && file->has_degrees() ? 1u : 0u};
  MPI_Bcast(shape, 3, MPI_UINT64_T, 0, comm);
  const auto n = static_cast<std::uint32_t>(shape[0]);
  const std::uint64_t vertices = shape[1];
  // Degrees stored in the file are read by rank 0 beside the input ids; else the workers'
  // shares, counted from the blocks, are summed with the counters.
  const bool stored_degrees = shape[2] != 0;
  out.steps.stored_degrees = stored_degrees;
  const unsigned threads = std::max(1u, sources.write_threads);
  const std::uint64_t piece = std::max<std::uint64_t>(1, std::min(sources.piece_rows, kPerVertexPieceRows));
  MPI_Comm workers = MPI_COMM_NULL;
  MPI_Comm_split(comm, is_worker ? 1 : MPI_UNDEFINED, rank, &workers);
  int worker_rank = -1;
  if (workers != MPI_COMM_NULL) MPI_Comm_rank(workers, &worker_rank);
  const auto free_comms = [&] {
    if (workers != MPI_COMM_NULL) MPI_Comm_free(&workers);
    MPI_Comm_free(&comm);
  };
  PerVertexSummary& summary = out.summary;
  PerVertexSteps& steps = out.steps;
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
  // Rank 0: a class's input ids, read on a thread while the class before is written.
  const auto read_ids = [&](std::uint32_t c) {
    return std::async(std::launch::async, [file, c, threads] { return file->read_vertex_map_class(c, threads); });
  };
  const auto read_degrees = [&](std::uint32_t c) {
    return std::async(std::launch::async, [file, c, threads] { return file->read_degrees_class(c, threads); });
  };
  std::future<std::vector<raw_id_t>> next_ids;
  std::future<std::vector<std::uint64_t>> next_degrees;  // rank 0, stored degrees
  try {
    // 1. Rank 0 opens the output and starts reading class 0's ids; the workers take their
    //    degree shares (read while they counted).
    timed(steps.degrees, [&] {
      collective_step(comm, [&] {
        if (rank == 0) {
          if (n > 0 && sources.first_ids)
            next_ids = std::async(std::launch::deferred, [&] { return sources.first_ids(); });  // taken in the loop
          else if (n > 0)
            next_ids = read_ids(0);
          if (n > 0 && stored_degrees && sources.first_degrees)
            next_degrees = std::async(std::launch::deferred, [&] { return sources.first_degrees(); });
          else if (n > 0 && stored_degrees)
            next_degrees = read_degrees(0);
          if (sources.early_writer) {
            writer = timed(steps.early_columns, [&] { return sources.early_writer(); });
            steps.early_columns_written = writer != nullptr;
          }
          if (!writer) {
            try {
              writer = std::make_unique<PerVertexWriter>(path, file->path(), vertices, threads);
            } catch (const Error& e) {
              out.write_error = e.what();  // reported after the count (a full disk, a FIFO nobody reads)
            }
          }
        }
        if (!is_worker) return;
        if (!stored_degrees) degrees = sources.degree_shares();
        degrees.resize(n);
      });
    });
    // 2. Class by class, in pieces: counters and degree shares summed over the workers on
    //    their way to rank 0 (chunked_mpi::sum_piece_to_rank0), the degrees only over the
    //    workers that read blocks of the class. Rank 0 builds a piece's rows and sums on
    //    several threads while it receives the next piece, and hands them to the writer
    //    thread, which writes them while the workers sum the pieces after.
    std::vector<std::uint64_t> count_sums[2], degree_sums[2];  // rank 0: a piece's sums, and the one before's
    std::future<VertexRows> building;                          // rank 0: the piece before's rows
    const auto hand_over = [&] {  // the piece before's rows to the writer
      if (!building.valid()) return;
      guarded([&] {
        VertexRows rows = timed(steps.rows, [&] { return building.get(); });
        timed(steps.queue, [&] { writing([&] { writer->append(std::move(rows)); }); });
      });
      if (building.valid()) building.wait();  // not taken after an error: done before its inputs go
    };
    // Worker 0: the arrays its sends to rank 0 are still reading, kept until the next class is sent.
    struct Sending {
      std::vector<std::uint64_t> counts, degrees;
      std::vector<MPI_Request> sent;
    } sending, sent_before;
    const auto wait_sent = [](Sending& s) {
      MPI_Waitall(static_cast<int>(s.sent.size()), s.sent.data(), MPI_STATUSES_IGNORE);
      s = {};
    };
    std::uint64_t pieces = 0;
    for (std::uint32_t c = 0; c < n; ++c) {
      const std::uint64_t length = rows_in_class(vertices, n, c);
      std::vector<std::uint64_t> counts;  // a worker's counters of class c
      auto ids = std::make_shared<std::vector<raw_id_t>>();  // rank 0: class c's input ids
      auto stored = std::make_shared<std::vector<std::uint64_t>>();  // rank 0: class c's stored degrees
      MPI_Comm holders = MPI_COMM_NULL;  // the workers with degree shares of class c, worker 0 first
      if (is_worker) {
        guarded([&] {
          counts = timed(steps.counters, [&] { return sources.take_counts(c); });
          TRICOUNT_EXPECTS(counts.size() == length && (degrees[c].empty() || degrees[c].size() == length),
                           "class " + std::to_string(c) + " of " + std::to_string(length) + " vertices: " +
                               std::to_string(counts.size()) + " counters and " + std::to_string(degrees[c].size()) +
                               " degrees");
        });
        if (failure) counts.assign(length, 0), degrees[c] = {};  // zeros from here on
        if (size > 1 && !stored_degrees)
          MPI_Comm_split(workers, worker_rank == 0 || !degrees[c].empty() ? 0 : MPI_UNDEFINED, worker_rank, &holders);
        if (!stored_degrees && degrees[c].empty() && (size == 1 || worker_rank == 0))
          degrees[c].assign(length, 0);  // worker 0 sums into it
      }
      if (rank == 0) {
        guarded([&] {
          *ids = timed(steps.ids, [&] { return next_ids.get(); });
          TRICOUNT_EXPECTS(ids->size() == length, "class " + std::to_string(c) + ": " + std::to_string(ids->size()) +
                                                      " input ids for " + std::to_string(length) + " vertices");
          if (!stored_degrees) return;
          *stored = timed(steps.degrees, [&] { return next_degrees.get(); });
          TRICOUNT_EXPECTS(stored->size() == length, "class " + std::to_string(c) + ": " + std::to_string(stored->size()) +
                                                         " stored degrees for " + std::to_string(length) + " vertices");
        });
        if (!failure && c + 1 < n) next_ids = read_ids(c + 1);
        if (!failure && c + 1 < n && stored_degrees) next_degrees = read_degrees(c + 1);
      }
      for (std::uint64_t first = 0; first < length; first += piece, ++pieces) {
        const std::uint64_t m = std::min(length, first + piece) - first;
        std::span<const std::uint64_t> count_sum, degree_sum;  // rank 0: the piece's sums
        if (size == 1) {
          count_sum = std::span<const std::uint64_t>(counts).subspan(first, m);
          if (!stored_degrees) degree_sum = std::span<const std::uint64_t>(degrees[c]).subspan(first, m);
        } else if (is_worker) {
          chunked_mpi::sum_piece_to_rank0(counts.data() + first, m, workers, comm, 0, sending.sent);
          if (holders != MPI_COMM_NULL)
            chunked_mpi::sum_piece_to_rank0(degrees[c].data() + first, m, holders, comm, 1, sending.sent);
        } else {
          std::vector<std::uint64_t>& counted = count_sums[pieces % 2];
          std::vector<std::uint64_t>& degreed = degree_sums[pieces % 2];
          timed(steps.reduce, [&] {
            chunked_mpi::receive_piece_sum(counted, m, comm, 0);
            if (!stored_degrees) chunked_mpi::receive_piece_sum(degreed, m, comm, 1);
          });
          count_sum = counted;
          if (!stored_degrees) degree_sum = degreed;
        }
        if (rank == 0 && stored_degrees && !failure) degree_sum = std::span<const std::uint64_t>(*stored).subspan(first, m);
        if (rank != 0) continue;
        hand_over();
        if (failure) continue;
        building = std::async(std::launch::async, [&, ids, stored, first, m, count_sum, degree_sum] {
          VertexRows rows = class_rows(std::span<const raw_id_t>(*ids).subspan(first, m), degree_sum, count_sum, threads,
                                       writer ? writer->spare_rows() : VertexRows{});
          summary.add(rows, threads);
          return rows;
        });
        if (size == 1) hand_over();  // its counters are this rank's: nothing to receive meanwhile
      }
      if (holders != MPI_COMM_NULL) MPI_Comm_free(&holders);
      if (is_worker) {
        wait_sent(sent_before);
        sending.counts = std::move(counts), sending.degrees = std::move(degrees[c]);
        sent_before = std::move(sending);
        sending = {};
      }
    }
    if (rank == 0) hand_over();
    wait_sent(sent_before);
    // 3. Any rank's error ends the call on every rank; rank 0 has the rows put on the disk,
    //    then checks the sums. The caller commits the output.
    collective_step(comm, [&] {
      if (failure) std::rethrow_exception(failure);
    });
    collective_step(comm, [&] {  // apart: a rank's error above, not its effect on the sums, is the message
      if (rank != 0) return;
      timed(steps.finish, [&] {
        writing([&] {
          writer->finish();
          out.write_seconds = writer->table().write_seconds();
          out.write_bytes = writer->table().bytes();
        });
      });
      if (summary.triangle_sum != static_cast<unsigned __int128>(triangles) * 3)
        throw Error("internal error: the per-vertex counts sum to " + to_string_u128(summary.triangle_sum) + ", not 3 x " +
                    std::to_string(triangles) + " triangles; --per-vertex '" + path + "' was not written");
    });
  } catch (...) {
    writer.reset();  // removes the temporary
    free_comms();
    throw;
  }
  free_comms();
  return out;
}

}  // namespace tricount
