#include "count/per_vertex.hpp"

#include <hdf5.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>
#include <utility>

#include "count/collective.hpp"
#include "src/hdf5_attributes.hpp"
#include "src/hdf5_check.hpp"
#include "src/hdf5_datasets.hpp"
#include "src/hdf5_handle.hpp"
#include "src/output_file.hpp"

namespace tricount {

namespace {

constexpr const char* kPerVertexFormat = "tricount-per-vertex";
constexpr std::uint64_t kPerVertexVersion = 1;
// Rows per HDF5 chunk (512 KiB of uint64): large enough for deflate, small enough for a small graph.
constexpr hsize_t kChunkRows = hsize_t{1} << 16;
// Entries per MPI message: counts are int.
constexpr std::uint64_t kMessageEntries = std::uint64_t{1} << 26;

std::string to_string_u128(unsigned __int128 x) {
  if (x == 0) return "0";
  std::string s;
  for (; x; x /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(x % 10)));
  return s;
}

bool ranks_before(const TopVertex& a, const TopVertex& b) {
  return a.triangles != b.triangles ? a.triangles > b.triangles : a.vertex < b.vertex;
}

// --- HDF5 --------------------------------------------------------------------------------

using H5Id = Hdf5Handle;

// --- MPI ---------------------------------------------------------------------------------

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else return MPI_UINT64_T;
}

template <class T>
void send_array(const std::vector<T>& data, int to, MPI_Comm comm) {
  for (std::uint64_t at = 0; at < data.size(); at += kMessageEntries) {
    const int count = static_cast<int>(std::min<std::uint64_t>(kMessageEntries, data.size() - at));
    MPI_Send(data.data() + at, count, mpi_type<T>(), to, 0, comm);
  }
}

template <class T>
void receive_array(std::vector<T>& data, std::uint64_t size, int from, MPI_Comm comm) {
  data.resize(size);
  for (std::uint64_t at = 0; at < size; at += kMessageEntries) {
    const int count = static_cast<int>(std::min<std::uint64_t>(kMessageEntries, size - at));
    MPI_Recv(data.data() + at, count, mpi_type<T>(), from, 0, comm, MPI_STATUS_IGNORE);
  }
}

// Sums every worker's `counts` into the owner's, in place, in pieces an int can count.
void reduce_to_owner(std::vector<std::uint64_t>& counts, int owner, MPI_Comm workers) {
  int me = 0;
  MPI_Comm_rank(workers, &me);
  for (std::uint64_t at = 0; at < counts.size(); at += kMessageEntries) {
    const int count = static_cast<int>(std::min<std::uint64_t>(kMessageEntries, counts.size() - at));
    if (me == owner) MPI_Reduce(MPI_IN_PLACE, counts.data() + at, count, MPI_UINT64_T, MPI_SUM, owner, workers);
    else MPI_Reduce(counts.data() + at, nullptr, count, MPI_UINT64_T, MPI_SUM, owner, workers);
  }
}

}  // namespace

double local_clustering(std::uint64_t degree, std::uint64_t triangles) {
  if (degree < 2) return 0.0;
  const long double d = static_cast<long double>(degree);
  return static_cast<double>(2.0L * static_cast<long double>(triangles) / (d * (d - 1.0L)));
}

VertexRows class_rows(const std::vector<raw_id_t>& ids, const std::vector<std::uint64_t>& degrees,
                      const std::vector<std::uint64_t>& triangles) {
  TRICOUNT_EXPECTS(ids.size() == degrees.size() && ids.size() == triangles.size(),
                   "per-vertex rows: " + std::to_string(ids.size()) + " ids, " + std::to_string(degrees.size()) +
                       " degrees and " + std::to_string(triangles.size()) + " counts");
  VertexRows rows;
  for (std::size_t x = 0; x < ids.size(); ++x) {
    if (degrees[x] == 0) continue;
    rows.vertex.push_back(ids[x]);
    rows.degree.push_back(degrees[x]);
    rows.triangles.push_back(triangles[x]);
    rows.clustering.push_back(local_clustering(degrees[x], triangles[x]));
  }
  return rows;
}

std::vector<std::uint64_t> class_degrees(const BlockFileReader& file, std::uint32_t c, unsigned threads) {
  const std::uint32_t n = file.header().parts;
  std::vector<std::uint64_t> degree(rows_in_class(file.header().vertices, n, c), 0);
  for (std::uint32_t other = 0; other < n; ++other) {
    // 1. Out-edges: class c's rows in P(c, other).
    const CsrBlock rows = file.read_block({c, other}, threads);
    for (std::uint64_t r = 0; r < rows.rows; ++r) degree[r] += rows.offsets[r + 1] - rows.offsets[r];
    // 2. In-edges: class c's vertices as neighbours in P(other, c).
    const CsrBlock cols = file.read_block({other, c}, threads);
    for (std::uint64_t e = 0; e < cols.nnz(); ++e) ++degree[cols.neighbors[e]];
  }
  return degree;
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

bool per_vertex_is_text(const std::string& path) {
  return path.size() >= 4 && path.compare(path.size() - 4, 4, ".tsv") == 0;
}

void check_per_vertex_path(const std::string& path) {
  output::check_writable(path, "--per-vertex", !per_vertex_is_text(path));
}

// --- writer ------------------------------------------------------------------------------

struct PerVertexWriter::Impl {
  bool text = false;
  std::string where;
  std::unique_ptr<output::OutputFile> out;
  H5Id file;
  H5Id vertex, degree, triangles, clustering;
  std::uint64_t rows = 0;
};

PerVertexWriter::PerVertexWriter(const std::string& path, const std::string& input) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.text = per_vertex_is_text(path);
  if (s.text) {
    s.out = std::make_unique<output::OutputFile>(path, "--per-vertex");
    s.out->write("# tricount per-vertex triangle counts of '" + printable(input) +
                 "'\n# every vertex with at least one edge after cleaning, by vertex class (input ids)\n"
                 "# clustering = 2 * triangles / (degree * (degree - 1)), 0 for degree < 2\n"
                 "# vertex\tdegree\ttriangles\tclustering\n");
    return;
  }
  silence_hdf5();
  s.out = std::make_unique<output::OutputFile>(path, "--per-vertex", [&](const std::string& temp) {
    errno = 0;
    s.file = H5Id(H5Fcreate(temp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (s.file.valid()) return true;
    const int err = errno;
    struct stat st {};
    if (::lstat(temp.c_str(), &st) == 0) return false;  // the name is taken: another one
    throw Error("cannot create '" + temp + "' (for --per-vertex '" + path + "'): " + std::strerror(err ? err : EIO));
  });
  s.where = "--per-vertex '" + s.out->write_path() + "'";
  const hid_t f = s.file.get();
  write_attribute_string(f, "format", kPerVertexFormat, s.where);
  write_attribute_u64(f, "format_version", kPerVertexVersion, s.where);
  write_attribute_string(f, "input", input, s.where);
  s.vertex = create_extendible_dataset(f, "vertex", H5T_STD_U64LE, kChunkRows, s.where);
  s.degree = create_extendible_dataset(f, "degree", H5T_STD_U64LE, kChunkRows, s.where);
  s.triangles = create_extendible_dataset(f, "triangles", H5T_STD_U64LE, kChunkRows, s.where);
  s.clustering = create_extendible_dataset(f, "clustering", H5T_IEEE_F64LE, kChunkRows, s.where);
}

PerVertexWriter::~PerVertexWriter() {
  // HDF5 handles close before the OutputFile removes an uncommitted temporary.
  impl_->vertex.reset(), impl_->degree.reset(), impl_->triangles.reset(), impl_->clustering.reset();
  impl_->file.reset();
  impl_->out.reset();
}

void PerVertexWriter::append(const VertexRows& rows) {
  Impl& s = *impl_;
  if (s.text) {
    std::string text;
    char line[160];
    for (std::size_t x = 0; x < rows.size(); ++x) {
      const int len = std::snprintf(line, sizeof line, "%llu\t%llu\t%llu\t%.17g\n",
                                    static_cast<unsigned long long>(rows.vertex[x]),
                                    static_cast<unsigned long long>(rows.degree[x]),
                                    static_cast<unsigned long long>(rows.triangles[x]), rows.clustering[x]);
      text.append(line, static_cast<std::size_t>(len));
      if (text.size() > (std::size_t{1} << 20)) s.out->write(text), text.clear();
    }
    s.out->write(text);
  } else {
    append_to_dataset(s.vertex.get(), H5T_NATIVE_UINT64, s.rows, rows.vertex.data(), rows.size(), s.where, "vertex");
    append_to_dataset(s.degree.get(), H5T_NATIVE_UINT64, s.rows, rows.degree.data(), rows.size(), s.where, "degree");
    append_to_dataset(s.triangles.get(), H5T_NATIVE_UINT64, s.rows, rows.triangles.data(), rows.size(), s.where, "triangles");
    append_to_dataset(s.clustering.get(), H5T_NATIVE_DOUBLE, s.rows, rows.clustering.data(), rows.size(), s.where,
                  "clustering");
  }
  s.rows += rows.size();
}

void PerVertexWriter::commit(const PerVertexSummary& summary) {
  Impl& s = *impl_;
  if (!s.text) {
    const hid_t f = s.file.get();
    write_attribute_u64(f, "vertices", s.rows, s.where);
    write_attribute_u64(f, "triangles", static_cast<std::uint64_t>(summary.triangle_sum / 3), s.where);
    write_attribute_double(f, "global_clustering", summary.global_clustering(), s.where);
    write_attribute_double(f, "average_clustering", summary.average_clustering(), s.where);
    s.vertex.reset(), s.degree.reset(), s.triangles.reset(), s.clustering.reset();
    if (H5Fclose(s.file.release()) < 0) throw Error("cannot close " + s.where + " (disk full?)");
  }
  s.out->commit();
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

PerVertexSummary reduce_and_write_per_vertex(MPI_Comm parent, bool is_worker, const BlockFileReader* file,
                                             const std::string& path, const PerVertexSources& sources,
                                             std::uint64_t triangles) {
  MPI_Comm comm;
  MPI_Comm_dup(parent, &comm);
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Comm workers = MPI_COMM_NULL;
  MPI_Comm_split(comm, is_worker ? 1 : MPI_UNDEFINED, rank, &workers);
  const int worker_count = size == 1 ? 1 : size - 1;
  const int my_worker = size == 1 ? 0 : rank - 1;  // index among the workers (split keeps rank order)
  std::uint32_t n = file ? file->header().parts : 0;
  MPI_Bcast(&n, 1, MPI_UINT32_T, 0, comm);
  const auto owner_worker = [&](std::uint32_t c) { return static_cast<int>(c % static_cast<std::uint32_t>(worker_count)); };
  const auto owner_rank = [&](std::uint32_t c) { return size == 1 ? 0 : 1 + owner_worker(c); };
  PerVertexSummary summary;
  std::unique_ptr<PerVertexWriter> writer;
  std::map<std::uint32_t, std::vector<std::uint64_t>> owned_degrees;
  const auto finish = [&] {
    if (workers != MPI_COMM_NULL) MPI_Comm_free(&workers);
    MPI_Comm_free(&comm);
  };
  try {
    // 1. Owners find their classes' degrees, all at once; rank 0 opens the output.
    collective_step(comm, [&] {
      if (rank == 0) writer = std::make_unique<PerVertexWriter>(path, file->path());
      if (!is_worker) return;
      for (std::uint32_t c = 0; c < n; ++c)
        if (owner_worker(c) == my_worker) owned_degrees[c] = sources.degrees(c);
    });
    // 2. Class by class: counters summed at the owner, rows built there, written by rank 0.
    for (std::uint32_t c = 0; c < n; ++c) {
      std::vector<std::uint64_t> counts;
      collective_step(comm, [&] {
        if (is_worker) counts = sources.take_counts(c);
      });
      if (is_worker) reduce_to_owner(counts, owner_worker(c), workers);
      VertexRows rows;
      collective_step(comm, [&] {
        if (rank != owner_rank(c)) return;
        rows = class_rows(file->read_vertex_map_class(c), owned_degrees.at(c), counts);
        owned_degrees.erase(c);
      });
      counts = {};
      if (owner_rank(c) != 0 && rank == owner_rank(c)) {
        std::uint64_t length = rows.size();
        MPI_Send(&length, 1, MPI_UINT64_T, 0, 0, comm);
        send_array(rows.vertex, 0, comm), send_array(rows.degree, 0, comm);
        send_array(rows.triangles, 0, comm), send_array(rows.clustering, 0, comm);
      } else if (owner_rank(c) != 0 && rank == 0) {
        std::uint64_t length = 0;
        MPI_Recv(&length, 1, MPI_UINT64_T, owner_rank(c), 0, comm, MPI_STATUS_IGNORE);
        receive_array(rows.vertex, length, owner_rank(c), comm), receive_array(rows.degree, length, owner_rank(c), comm);
        receive_array(rows.triangles, length, owner_rank(c), comm);
        receive_array(rows.clustering, length, owner_rank(c), comm);
      }
      collective_step(comm, [&] {
        if (rank != 0) return;
        writer->append(rows);
        summary.add(rows);
      });
    }
    // 3. Rank 0 closes the output; it appears under its name only now.
    collective_step(comm, [&] {
      if (rank != 0) return;
      if (summary.triangle_sum != static_cast<unsigned __int128>(triangles) * 3)
        throw Error("internal error: the per-vertex counts sum to " + to_string_u128(summary.triangle_sum) + ", not 3 x " +
                    std::to_string(triangles) + " triangles; --per-vertex '" + path + "' was not written");
      writer->commit(summary);
    });
  } catch (...) {
    writer.reset();  // removes the temporary
    finish();
    throw;
  }
  finish();
  return summary;
}

}  // namespace tricount
