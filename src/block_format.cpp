// HDF5 block file: reader and writer. Every HDF5 call is checked; HDF5's own error stack
// printing is switched off so that the user sees one message that names the file and block.
#include "src/block_format.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <utility>

#include "src/hdf5_handle.hpp"
#include "src/output_file.hpp"

namespace tricount {
namespace {

// The fewest bytes a block takes in a block file (its group, attributes and two dataset
// headers; measured about 2.4 KiB each).
constexpr std::uint64_t kMinBlockFileBytes = 512;
// The first bytes of every HDF5 file (a superblock at offset 0; the writer uses no user block).
constexpr std::string_view kHdf5Signature{"\x89HDF\r\n\x1a\n", 8};

// HDF5's library is not thread-safe in Debian's serial build; all calls go through here.
std::mutex& h5_mutex() {
  static std::mutex m;
  return m;
}

void silence_hdf5() {
  static std::once_flag once;
  std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
}

using Handle = Hdf5Handle;

std::string group_name(const BlockId& id) {
  return "/blocks/P_" + std::to_string(id.row_class) + "_" + std::to_string(id.col_class);
}

hid_t check(hid_t id, const std::string& what) {
  if (id < 0) throw Error(what);
  return id;
}
void check_status(herr_t status, const std::string& what) {
  if (status < 0) throw Error(what);
}

// --- attributes ----------------------------------------------------------------------

void write_attr_u64(hid_t obj, const char* name, std::uint64_t value, const std::string& where) {
  Handle space(check(H5Screate(H5S_SCALAR), where + ": H5Screate"), H5Sclose);
  Handle attr(check(H5Acreate2(obj, name, H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                    where + ": cannot create attribute '" + name + "'"),
              H5Aclose);
  check_status(H5Awrite(attr.get(), H5T_NATIVE_UINT64, &value), where + ": cannot write attribute '" + name + "'");
}

void write_attr_str(hid_t obj, const char* name, const std::string& value, const std::string& where) {
  Handle type(check(H5Tcopy(H5T_C_S1), where + ": H5Tcopy"), H5Tclose);
  check_status(H5Tset_size(type.get(), std::max<std::size_t>(value.size(), 1)), where + ": H5Tset_size");
  check_status(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), where + ": H5Tset_strpad");
  Handle space(check(H5Screate(H5S_SCALAR), where + ": H5Screate"), H5Sclose);
  Handle attr(check(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                    where + ": cannot create attribute '" + name + "'"),
              H5Aclose);
  std::string padded = value.empty() ? std::string(1, '\0') : value;
  check_status(H5Awrite(attr.get(), type.get(), padded.data()), where + ": cannot write attribute '" + name + "'");
}

bool has_attr(hid_t obj, const char* name) { return H5Aexists(obj, name) > 0; }

std::uint64_t read_attr_u64(hid_t obj, const char* name, const std::string& where) {
  if (!has_attr(obj, name)) throw Error(where + ": attribute '" + name + "' is missing");
  Handle attr(check(H5Aopen(obj, name, H5P_DEFAULT), where + ": cannot open attribute '" + name + "'"), H5Aclose);
  Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (!type.valid() || H5Tget_class(type.get()) != H5T_INTEGER)
    throw Error(where + ": attribute '" + name + "' is not an integer");
  std::uint64_t value = 0;
  check_status(H5Aread(attr.get(), H5T_NATIVE_UINT64, &value), where + ": cannot read attribute '" + name + "'");
  return value;
}

std::string read_attr_str(hid_t obj, const char* name, const std::string& where) {
  if (!has_attr(obj, name)) throw Error(where + ": attribute '" + name + "' is missing");
  Handle attr(check(H5Aopen(obj, name, H5P_DEFAULT), where + ": cannot open attribute '" + name + "'"), H5Aclose);
  Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING)
    throw Error(where + ": attribute '" + name + "' is not a string");
  if (H5Tis_variable_str(type.get()) > 0) throw Error(where + ": attribute '" + name + "' is a variable-length string");
  const std::size_t size = H5Tget_size(type.get());
  std::string value(size, '\0');
  check_status(H5Aread(attr.get(), type.get(), value.data()), where + ": cannot read attribute '" + name + "'");
  value.resize(std::strlen(value.c_str()));
  return value;
}

// --- datasets ------------------------------------------------------------------------

template <class Array>
void write_dataset(hid_t loc, const char* name, hid_t file_type, hid_t mem_type, const Array& data,
                   const std::string& where) {
  const hsize_t dims[1] = {static_cast<hsize_t>(data.size())};
  Handle space(check(H5Screate_simple(1, dims, nullptr), where + ": H5Screate_simple"), H5Sclose);
  Handle set(check(H5Dcreate2(loc, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   where + ": cannot create dataset '" + name + "'"),
             H5Dclose);
  if (!data.empty())
    check_status(H5Dwrite(set.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
                 where + ": cannot write dataset '" + name + "' (disk full?)");
}

std::uint64_t dataset_length(hid_t loc, const char* name, const std::string& where) {
  if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) throw Error(where + ": dataset '" + name + "' is missing");
  Handle set(check(H5Dopen2(loc, name, H5P_DEFAULT), where + ": cannot open dataset '" + name + "'"), H5Dclose);
  Handle space(check(H5Dget_space(set.get()), where + ": H5Dget_space"), H5Sclose);
  if (H5Sget_simple_extent_ndims(space.get()) != 1) throw Error(where + ": dataset '" + name + "' is not 1-dimensional");
  hsize_t dims[1] = {0};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  return dims[0];
}

// A stored dataset holds at least this share of its data's bytes (deflate stays below
// 1032:1); an unfiltered one holds all of them. Checked before anything is allocated for
// it, so a crafted length cannot make the reader ask for gigabytes the file does not have.
constexpr std::uint64_t kMaxCompressionRatio = 1100;

// dataset_length, after checking that the file really stores `length` entries of `width`
// bytes (HDF5 hands out fill values for storage that was never written).
std::uint64_t stored_dataset_length(hid_t loc, const char* name, std::size_t width, const std::string& where) {
  const std::uint64_t length = dataset_length(loc, name, where);
  if (length == 0) return 0;
  Handle set(check(H5Dopen2(loc, name, H5P_DEFAULT), where + ": cannot open dataset '" + name + "'"), H5Dclose);
  Handle dcpl(H5Dget_create_plist(set.get()), H5Pclose);
  const bool filtered = dcpl.valid() && H5Pget_nfilters(dcpl.get()) > 0;
  const std::uint64_t stored = H5Dget_storage_size(set.get());
  const unsigned __int128 bytes = static_cast<unsigned __int128>(length) * width;
  if (static_cast<unsigned __int128>(stored) * (filtered ? kMaxCompressionRatio : 1) < bytes)
    throw Error(where + ": dataset '" + name + "' claims " + std::to_string(length) + " entries but the file stores only " +
                std::to_string(stored) + " bytes of them: the file is corrupt or was not written by tricount-partition "
                "(re-run tricount-partition)");
  return length;
}

template <class T, class Array = std::vector<T>>
Array read_dataset(hid_t loc, const char* name, hid_t mem_type, std::uint64_t expected, const std::string& where) {
  const std::uint64_t length = stored_dataset_length(loc, name, sizeof(T), where);
  if (length != expected)
    throw Error(where + ": dataset '" + name + "' has " + std::to_string(length) + " entries, expected " +
                std::to_string(expected));
  Array data(length);
  if (length == 0) return data;
  Handle set(check(H5Dopen2(loc, name, H5P_DEFAULT), where + ": cannot open dataset '" + name + "'"), H5Dclose);
  Handle type(H5Dget_type(set.get()), H5Tclose);
  if (!type.valid() || H5Tget_class(type.get()) != H5T_INTEGER || H5Tget_size(type.get()) != sizeof(T))
    throw Error(where + ": dataset '" + name + "' has the wrong element type");
  check_status(H5Dread(set.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
               where + ": cannot read dataset '" + name + "' (file truncated or corrupt?)");
  return data;
}

}  // namespace

std::string block_name(const BlockId& id) {
  return "P(" + std::to_string(id.row_class) + "," + std::to_string(id.col_class) + ")";
}

std::uint64_t CsrBlock::rows_with_two() const {
  std::uint64_t n = 0;
  for (std::uint64_t r = 0; r < rows; ++r) n += offsets[r + 1] - offsets[r] >= 2;
  return n;
}

std::uint64_t CsrBlock::checksum(unsigned threads) const {
  return block_checksum(rows, cols, array_digest(offsets.data(), offsets.size() * sizeof(eoff_t), threads),
                        array_digest(neighbors.data(), neighbors.size() * sizeof(vid_t), threads));
}

namespace {

// The row checks of validate_block over rows [first, last) (offsets already start at 0 and
// end at nnz): the message for the first bad row, if any; `longest` gets the longest row.
std::optional<std::string> check_rows(const CsrSpan& b, std::uint64_t first, std::uint64_t last, std::uint64_t& longest,
                                      const std::string& at) {
  const vid_t* nb = b.neighbors;
  const vid_t cols = static_cast<vid_t>(std::min<std::uint64_t>(b.cols, kMaxVertices));
  for (std::uint64_t r = first; r < last; ++r) {
    const eoff_t lo = b.offsets[r], hi = b.offsets[r + 1];
    if (hi < lo) return at + ": offsets decrease at row " + std::to_string(r);
    if (hi > b.nnz)  // a later row must decrease; do not read past the end
      return at + ": offsets pass the " + std::to_string(b.nnz) + " neighbours at row " + std::to_string(r);
    longest = std::max<std::uint64_t>(longest, hi - lo);
    if (hi == lo) continue;
    // Branch-free over the row (it vectorises); the message is looked for only when bad.
    unsigned bad = nb[lo] >= cols;
    for (eoff_t e = lo + 1; e < hi; ++e) bad |= unsigned(nb[e] >= cols) | unsigned(nb[e] <= nb[e - 1]);
    if (!bad) continue;
    for (eoff_t e = lo; e < hi; ++e) {
      if (nb[e] >= b.cols)
        return at + ": row " + std::to_string(r) + " has neighbour " + std::to_string(nb[e]) + " but the block has " +
               std::to_string(b.cols) + " columns";
      if (e > lo && nb[e] <= nb[e - 1]) return at + ": row " + std::to_string(r) + " is not strictly increasing";
    }
  }
  return std::nullopt;
}

// Row ranges of about equal work (rows plus neighbours) for `parts` threads: rows split
// evenly would give one thread all the long rows of a degree-ordered block. The offsets are
// not yet checked, so the cuts are only forced to increase; any cut gives the same checks.
std::vector<std::uint64_t> balanced_row_cuts(const CsrSpan& b, std::uint64_t parts) {
  std::vector<std::uint64_t> cuts(parts + 1, 0);
  cuts[parts] = b.rows;
  const std::uint64_t total = b.rows + b.nnz;
  for (std::uint64_t k = 1; k < parts; ++k) {
    const std::uint64_t target = total / parts * k;
    std::uint64_t lo = cuts[k - 1], hi = b.rows;  // first row r with r + offsets[r] >= target
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (mid + b.offsets[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    cuts[k] = lo;
  }
  return cuts;
}

}  // namespace

CsrSpan CsrBlock::span() const {
  return {id, rows, cols, max_degree, offsets.data(), neighbors.data(), neighbors.size()};
}

void validate_block(const CsrBlock& b, const std::string& where, unsigned threads) {
  if (b.offsets.size() != b.rows + 1)
    throw Error(where + ": block " + block_name(b.id) + ": offsets has " + std::to_string(b.offsets.size()) +
                " entries, expected rows + 1 = " + std::to_string(b.rows + 1));
  validate_block(b.span(), where, threads);
}

void validate_block(const CsrSpan& b, const std::string& where, unsigned threads) {
  const std::string at = where + ": block " + block_name(b.id);
  if (b.offsets[0] != 0) throw Error(at + ": offsets[0] is not 0");
  if (b.offsets[b.rows] != b.nnz)
    throw Error(at + ": offsets end at " + std::to_string(b.offsets[b.rows]) + " but there are " + std::to_string(b.nnz) +
                " neighbours");
  if (b.cols > kMaxVertices) throw Error(at + ": " + std::to_string(b.cols) + " columns exceed 32-bit ids");
  // Rows in contiguous ranges, in parallel; the first range with a bad row has the first
  // bad row, so the message is the one a serial check gives.
  std::mutex m;
  std::uint64_t longest = 0;
  std::optional<std::pair<std::uint64_t, std::string>> first_error;  // (range start, message)
  const std::uint64_t parts = std::clamp<std::uint64_t>(threads, 1, std::max<std::uint64_t>(b.rows, 1));
  const std::vector<std::uint64_t> cuts = balanced_row_cuts(b, parts);
  parallel_ranges(parts, static_cast<unsigned>(parts), [&](std::uint64_t part, std::uint64_t) {
    const std::uint64_t first = cuts[part], last = cuts[part + 1];
    std::uint64_t mine = 0;
    std::optional<std::string> error = check_rows(b, first, last, mine, at);
    std::lock_guard lock(m);
    longest = std::max(longest, mine);
    if (error && (!first_error || first < first_error->first)) first_error.emplace(first, std::move(*error));
  });
  if (first_error) throw Error(first_error->second);
  if (longest != b.max_degree)
    throw Error(at + ": max_degree attribute is " + std::to_string(b.max_degree) + " but the longest row has " +
                std::to_string(longest));
}

// --- writer --------------------------------------------------------------------------

struct BlockFileWriter::Impl {
  std::string path, temp;
  GraphHeader header;
  std::unique_ptr<output::OutputFile> out;  // the temporary's name; removes it unless committed
  Handle file, blocks;                      // closed before `out` removes the file
  std::vector<bool> written;
  std::vector<std::uint64_t> checksums;
  bool vertex_map_written = false;
  bool committed = false;
};

BlockFileWriter::BlockFileWriter(const std::string& path, const GraphHeader& header) : impl_(std::make_unique<Impl>()) {
  silence_hdf5();
  std::lock_guard lock(h5_mutex());
  auto& s = *impl_;
  s.path = path;
  s.header = header;
  check_parts(header.parts);
  s.written.assign(std::size_t(header.parts) * header.parts, false);
  s.checksums.assign(s.written.size(), 0);
  // Datasets of 4 KiB or more start on a 4 KiB boundary, so that readers can map them
  // (BlockFileReader::map_block needs their elements aligned; pages are the unit of mmap).
  // The 1.10 file format: superblock v3 and v2 object headers carry checksums, so a damaged
  // header is an HDF5 error, not a crash inside the library (v0 headers have none). Both
  // bounds are 1.10 so that a newer library still writes files that HDF5 1.10 reads.
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (!fapl.valid() || H5Pset_alignment(fapl.get(), 4096, 4096) < 0 ||
      H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V110, H5F_LIBVER_V110) < 0)
    throw Error("cannot set up HDF5 file access properties");
  // A killed writer's temporary is removed when provably stale (this host, a dead pid, an
  // HDF5 file); ours is created exclusively (H5F_ACC_EXCL is O_EXCL: no planted symlink).
  output::remove_stale_temps(path, kHdf5Signature);
  s.out = std::make_unique<output::OutputFile>(path, "output", [&](const std::string& temp) {
    errno = 0;
    s.file = Handle(H5Fcreate(temp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()), H5Fclose);
    if (s.file.valid()) return true;
    const int err = errno;
    struct stat st {};
    if (::lstat(temp.c_str(), &st) == 0) return false;  // the name is taken: another one
    throw Error("cannot create '" + temp + "' (for output '" + path + "'): " + std::strerror(err ? err : EIO));
  });
  s.temp = s.out->write_path();
  const std::string where = "'" + s.temp + "'";
  const hid_t f = s.file.get();
  write_attr_str(f, "format", kBlockFormatName, where);
  write_attr_u64(f, "format_version", kBlockFormatVersion, where);
  write_attr_u64(f, "parts", header.parts, where);
  write_attr_u64(f, "vertices", header.vertices, where);
  write_attr_u64(f, "edges", header.edges, where);
  write_attr_u64(f, "input_edges", header.input_edges, where);
  write_attr_u64(f, "max_degree", header.max_degree, where);
  write_attr_str(f, "ordering", header.ordering, where);
  write_attr_str(f, "source_file", header.source_file, where);
  write_attr_u64(f, "source_size", header.source_size, where);
  write_attr_str(f, "creator", std::string("tricount-partition ") + TRICOUNT_VERSION, where);
  if (header.known_triangles) write_attr_u64(f, "known_triangles", *header.known_triangles, where);
  s.blocks = Handle(check(H5Gcreate2(f, "blocks", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), where + ": cannot create /blocks"),
                    H5Gclose);
  // The superblock on disk now: the HDF5 signature at offset 0 marks the temporary as a block
  // file's, which is what lets a later run remove it if this one is killed.
  if (H5Fflush(f, H5F_SCOPE_LOCAL) < 0) throw Error("cannot write '" + s.temp + "' (disk full?)");
}

BlockFileWriter::~BlockFileWriter() {
  if (!impl_ || impl_->committed) return;
  std::lock_guard lock(h5_mutex());
  impl_->blocks.reset();
  impl_->file.reset();
  impl_->out.reset();  // removes the temporary
}

const std::string& BlockFileWriter::temp_path() const { return impl_->temp; }

void BlockFileWriter::write_vertex_map(const std::vector<raw_id_t>& new_to_input) {
  std::lock_guard lock(h5_mutex());
  auto& s = *impl_;
  if (new_to_input.size() != s.header.vertices)
    throw Error("vertex map has " + std::to_string(new_to_input.size()) + " entries for " +
                std::to_string(s.header.vertices) + " vertices");
  write_dataset(s.file.get(), "vertex_map", H5T_STD_U64LE, H5T_NATIVE_UINT64, new_to_input, "'" + s.temp + "'");
  s.vertex_map_written = true;
}

void BlockFileWriter::write_block(const CsrBlock& b) {
  std::lock_guard lock(h5_mutex());
  auto& s = *impl_;
  const std::uint32_t n = s.header.parts;
  if (b.id.row_class >= n || b.id.col_class >= n) throw Error("block " + block_name(b.id) + " outside the n x n grid");
  const std::string where = "'" + s.temp + "' block " + block_name(b.id);
  const std::string name = group_name(b.id);
  Handle g(check(H5Gcreate2(s.file.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), where + ": cannot create group"),
           H5Gclose);
  write_attr_u64(g.get(), "row_class", b.id.row_class, where);
  write_attr_u64(g.get(), "col_class", b.id.col_class, where);
  write_attr_u64(g.get(), "rows", b.rows, where);
  write_attr_u64(g.get(), "cols", b.cols, where);
  write_attr_u64(g.get(), "nnz", b.nnz(), where);
  write_attr_u64(g.get(), "max_degree", b.max_degree, where);
  write_attr_u64(g.get(), "rows_with_two", b.rows_with_two(), where);
  const std::uint64_t checksum = b.checksum();
  write_attr_u64(g.get(), "checksum", checksum, where);
  s.checksums[std::size_t(b.id.row_class) * n + b.id.col_class] = checksum;
  write_dataset(g.get(), "offsets", H5T_STD_U64LE, H5T_NATIVE_UINT64, b.offsets, where);
  write_dataset(g.get(), "neighbors", H5T_STD_U32LE, H5T_NATIVE_UINT32, b.neighbors, where);
  s.written[std::size_t(b.id.row_class) * n + b.id.col_class] = true;
}

void BlockFileWriter::write_task_work(const std::vector<std::uint64_t>& work) {
  std::lock_guard lock(h5_mutex());
  auto& s = *impl_;
  const std::uint64_t n = s.header.parts;
  if (work.size() != n * n * n) throw Error("task work has " + std::to_string(work.size()) + " entries, expected n^3");
  write_dataset(s.file.get(), "task_work", H5T_STD_U64LE, H5T_NATIVE_UINT64, work, "'" + s.temp + "'");
}

void BlockFileWriter::commit() {
  {
    std::lock_guard lock(h5_mutex());
    auto& s = *impl_;
    Checksum64 all;
    for (std::uint64_t c : s.checksums) all.add_u64(c);
    write_attr_u64(s.file.get(), "graph_checksum", all.value(), "'" + s.temp + "'");
    for (std::size_t b = 0; b < s.written.size(); ++b)
      if (!s.written[b])
        throw Error("'" + s.temp + "': block " + block_name({std::uint32_t(b / s.header.parts), std::uint32_t(b % s.header.parts)}) +
                    " was never written");
    if (!s.vertex_map_written) throw Error("'" + s.temp + "': vertex map was never written");
    s.blocks.reset();
    if (H5Fflush(s.file.get(), H5F_SCOPE_GLOBAL) < 0) throw Error("cannot flush '" + s.temp + "' (disk full?)");
    if (H5Fclose(s.file.release()) < 0) throw Error("cannot close '" + s.temp + "' (disk full?)");
  }
  impl_->out->commit();  // fsync, rename over the output, fsync the directory
  impl_->committed = true;
}

// --- streaming block writes (external partitioner) --------------------------------------

namespace {

void select_slab(hid_t space, std::uint64_t first, std::uint64_t count, const std::string& where) {
  const hsize_t start[1] = {static_cast<hsize_t>(first)};
  const hsize_t n[1] = {static_cast<hsize_t>(count)};
  check_status(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, n, nullptr), where + ": H5Sselect_hyperslab");
}

// The file and memory dataspaces of elements [first, first + count) of a 1-D dataset.
std::pair<Handle, Handle> slab_spaces(hid_t set, std::uint64_t first, std::uint64_t count, const std::string& where) {
  Handle fspace(check(H5Dget_space(set), where + ": H5Dget_space"), H5Sclose);
  select_slab(fspace.get(), first, count, where);
  const hsize_t dims[1] = {static_cast<hsize_t>(count)};
  Handle mspace(check(H5Screate_simple(1, dims, nullptr), where + ": H5Screate_simple"), H5Sclose);
  return {std::move(fspace), std::move(mspace)};
}

void write_slab(hid_t set, hid_t mem_type, std::uint64_t first, const void* data, std::uint64_t count,
                const std::string& where, const char* name) {
  if (count == 0) return;
  const auto [fspace, mspace] = slab_spaces(set, first, count, where);
  check_status(H5Dwrite(set, mem_type, mspace.get(), fspace.get(), H5P_DEFAULT, data),
               where + ": cannot write dataset '" + name + "' (disk full?)");
}

void read_slab(hid_t set, hid_t mem_type, std::uint64_t first, void* data, std::uint64_t count, const std::string& where,
               const char* name) {
  if (count == 0) return;
  const auto [fspace, mspace] = slab_spaces(set, first, count, where);
  check_status(H5Dread(set, mem_type, mspace.get(), fspace.get(), H5P_DEFAULT, data),
               where + ": cannot read back dataset '" + name + "'");
}

Handle create_sized_dataset(hid_t loc, const char* name, hid_t file_type, std::uint64_t length, const std::string& where) {
  const hsize_t dims[1] = {static_cast<hsize_t>(length)};
  Handle space(check(H5Screate_simple(1, dims, nullptr), where + ": H5Screate_simple"), H5Sclose);
  return Handle(check(H5Dcreate2(loc, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                      where + ": cannot create dataset '" + name + "'"),
                H5Dclose);
}

}  // namespace

struct BlockFileWriter::BlockStream::Impl {
  BlockFileWriter::Impl* writer = nullptr;
  BlockId id;
  std::uint64_t rows = 0, cols = 0, nnz = 0;
  std::string where;
  Handle group, offsets, neighbors;
  bool finished = false;
};

BlockFileWriter::BlockStream::BlockStream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BlockFileWriter::BlockStream::BlockStream(BlockStream&&) noexcept = default;
BlockFileWriter::BlockStream& BlockFileWriter::BlockStream::operator=(BlockStream&&) noexcept = default;
BlockFileWriter::BlockStream::~BlockStream() {
  if (!impl_) return;
  std::lock_guard lock(h5_mutex());
  impl_->offsets.reset();
  impl_->neighbors.reset();
  impl_->group.reset();
}

BlockFileWriter::BlockStream BlockFileWriter::begin_block(const BlockId& id, std::uint64_t rows, std::uint64_t cols,
                                                          std::uint64_t nnz) {
  std::lock_guard lock(h5_mutex());
  auto& s = *impl_;
  const std::uint32_t n = s.header.parts;
  if (id.row_class >= n || id.col_class >= n) throw Error("block " + block_name(id) + " outside the n x n grid");
  if (cols > kMaxVertices) throw Error("block " + block_name(id) + ": " + std::to_string(cols) + " columns exceed 32-bit ids");
  auto b = std::make_unique<BlockStream::Impl>();
  b->writer = impl_.get();
  b->id = id;
  b->rows = rows;
  b->cols = cols;
  b->nnz = nnz;
  b->where = "'" + s.temp + "' block " + block_name(id);
  b->group = Handle(check(H5Gcreate2(s.file.get(), group_name(id).c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          b->where + ": cannot create group"),
                    H5Gclose);
  b->offsets = create_sized_dataset(b->group.get(), "offsets", H5T_STD_U64LE, rows + 1, b->where);
  b->neighbors = create_sized_dataset(b->group.get(), "neighbors", H5T_STD_U32LE, nnz, b->where);
  return BlockStream(std::move(b));
}

void BlockFileWriter::BlockStream::write_offsets(std::uint64_t first, const eoff_t* data, std::size_t count) {
  std::lock_guard lock(h5_mutex());
  auto& b = *impl_;
  if (b.finished || first > b.rows + 1 || count > b.rows + 1 - first)
    throw Error(b.where + ": offsets piece [" + std::to_string(first) + ", +" + std::to_string(count) + ") out of range");
  write_slab(b.offsets.get(), H5T_NATIVE_UINT64, first, data, count, b.where, "offsets");
}

void BlockFileWriter::BlockStream::write_neighbors(std::uint64_t first, const vid_t* data, std::size_t count) {
  std::lock_guard lock(h5_mutex());
  auto& b = *impl_;
  if (b.finished || first > b.nnz || count > b.nnz - first)
    throw Error(b.where + ": neighbours piece [" + std::to_string(first) + ", +" + std::to_string(count) + ") out of range");
  write_slab(b.neighbors.get(), H5T_NATIVE_UINT32, first, data, count, b.where, "neighbors");
}

BlockFileWriter::StreamedBlockStats BlockFileWriter::BlockStream::finish() {
  std::lock_guard lock(h5_mutex());
  auto& b = *impl_;
  if (b.finished) throw Error(b.where + ": finished twice");
  constexpr std::uint64_t kPiece = std::uint64_t{1} << 20;
  StreamedBlockStats st;
  st.nnz = b.nnz;
  std::uint64_t offsets_digest = 0, neighbors_digest = 0;
  {
    ArrayDigestStream bytes;
    std::vector<eoff_t> piece;
    eoff_t prev = 0;
    std::uint64_t longest = 0;
    for (std::uint64_t at = 0; at < b.rows + 1; at += kPiece) {
      const std::uint64_t n = std::min(kPiece, b.rows + 1 - at);
      piece.resize(n);
      read_slab(b.offsets.get(), H5T_NATIVE_UINT64, at, piece.data(), n, b.where, "offsets");
      for (std::uint64_t k = 0; k < n; ++k) {
        const eoff_t o = piece[k];
        if (at + k == 0) {
          if (o != 0) throw Error(b.where + ": offsets[0] is not 0");
        } else {
          if (o < prev) throw Error(b.where + ": offsets decrease at row " + std::to_string(at + k - 1));
          longest = std::max<std::uint64_t>(longest, o - prev);
          st.rows_with_two += o - prev >= 2;
        }
        prev = o;
      }
      bytes.add(piece.data(), n * sizeof(eoff_t));
    }
    offsets_digest = bytes.value();
    if (prev != b.nnz)
      throw Error(b.where + ": offsets end at " + std::to_string(prev) + " but there are " + std::to_string(b.nnz) +
                  " neighbours");
    st.max_degree = checked_cast<std::uint32_t>(longest, "max_degree");
  }
  {
    ArrayDigestStream bytes;
    std::vector<vid_t> piece;
    for (std::uint64_t at = 0; at < b.nnz; at += kPiece) {
      const std::uint64_t n = std::min(kPiece, b.nnz - at);
      piece.resize(n);
      read_slab(b.neighbors.get(), H5T_NATIVE_UINT32, at, piece.data(), n, b.where, "neighbors");
      for (vid_t v : piece)
        if (v >= b.cols)
          throw Error(b.where + ": neighbour " + std::to_string(v) + " but the block has " + std::to_string(b.cols) +
                      " columns");
      bytes.add(piece.data(), n * sizeof(vid_t));
    }
    neighbors_digest = bytes.value();
  }
  st.checksum = block_checksum(b.rows, b.cols, offsets_digest, neighbors_digest);
  const hid_t g = b.group.get();
  write_attr_u64(g, "row_class", b.id.row_class, b.where);
  write_attr_u64(g, "col_class", b.id.col_class, b.where);
  write_attr_u64(g, "rows", b.rows, b.where);
  write_attr_u64(g, "cols", b.cols, b.where);
  write_attr_u64(g, "nnz", b.nnz, b.where);
  write_attr_u64(g, "max_degree", st.max_degree, b.where);
  write_attr_u64(g, "rows_with_two", st.rows_with_two, b.where);
  write_attr_u64(g, "checksum", st.checksum, b.where);
  auto& s = *b.writer;
  const std::size_t index = std::size_t(b.id.row_class) * s.header.parts + b.id.col_class;
  s.checksums[index] = st.checksum;
  s.written[index] = true;
  b.finished = true;
  b.offsets.reset();
  b.neighbors.reset();
  b.group.reset();
  return st;
}

void BlockFileWriter::set_max_degree(std::uint64_t max_degree) {
  std::lock_guard lock(h5_mutex());
  auto& s = *impl_;
  const std::string where = "'" + s.temp + "'";
  Handle attr(check(H5Aopen(s.file.get(), "max_degree", H5P_DEFAULT), where + ": cannot open attribute 'max_degree'"),
              H5Aclose);
  check_status(H5Awrite(attr.get(), H5T_NATIVE_UINT64, &max_degree), where + ": cannot write attribute 'max_degree'");
  s.header.max_degree = max_degree;
}

// --- reader --------------------------------------------------------------------------

struct BlockFileReader::Impl {
  std::string path;
  GraphHeader header;
  Handle file;
  std::vector<std::uint64_t> nnz;        // per block, from attributes
  std::vector<std::uint64_t> checksums;  // per block, from attributes
  int raw_fd = -1;                       // the same file, for parallel reads of contiguous datasets
  ~Impl() {
    if (raw_fd >= 0) ::close(raw_fd);
  }
};

namespace {

// Where a dataset's elements lie in the file when HDF5 would only copy them: contiguous
// layout, no filters, the file type identical to the memory type, no user block. Then
// threads read the bytes with pread() in parallel (HDF5 is serialized by h5_mutex); any
// other layout goes through H5Dread. Either way the block checksum is verified afterwards.
struct RawExtent {
  bool direct = false;
  std::uint64_t offset = 0;
};

RawExtent raw_extent(hid_t file, hid_t set, hid_t mem_type, std::uint64_t bytes) {
  RawExtent r;
  Handle fcpl(H5Fget_create_plist(file), H5Pclose);
  hsize_t userblock = 1;
  if (!fcpl.valid() || H5Pget_userblock(fcpl.get(), &userblock) < 0 || userblock != 0) return r;
  Handle dcpl(H5Dget_create_plist(set), H5Pclose);
  if (!dcpl.valid() || H5Pget_layout(dcpl.get()) != H5D_CONTIGUOUS || H5Pget_nfilters(dcpl.get()) != 0) return r;
  Handle type(H5Dget_type(set), H5Tclose);
  if (!type.valid() || H5Tequal(type.get(), mem_type) <= 0) return r;
  if (H5Dget_storage_size(set) != bytes) return r;
  const haddr_t at = H5Dget_offset(set);
  if (at == HADDR_UNDEF) return r;
  r.direct = true;
  r.offset = at;
  return r;
}

// Reads `bytes` at `offset` of fd into `out` with up to `threads` threads and returns their
// array_digest. Each thread reads whole checksum pieces and hashes each one while it is still
// in cache, so the bytes cross memory once instead of twice; the first touch of `out`'s pages
// happens here too, on all threads.
std::uint64_t pread_digest(int fd, std::uint64_t offset, void* out, std::uint64_t bytes, unsigned threads,
                           const std::string& where) {
  const std::uint64_t pieces = (bytes + kChecksumPieceBytes - 1) / kChecksumPieceBytes;
  std::vector<std::uint64_t> digests(pieces);
  std::atomic<int> error{0};
  std::atomic<bool> short_read{false};
  parallel_ranges(pieces, std::max(1u, threads), [&](std::uint64_t first_piece, std::uint64_t last_piece) {
    auto* base = static_cast<unsigned char*>(out);
    for (std::uint64_t piece = first_piece; piece < last_piece && !error && !short_read; ++piece) {
      const std::uint64_t begin = piece * kChecksumPieceBytes;
      const std::uint64_t length = std::min<std::uint64_t>(kChecksumPieceBytes, bytes - begin);
      std::uint64_t done = 0;
      while (done < length) {
        const ssize_t got = ::pread(fd, base + begin + done, length - done, static_cast<off_t>(offset + begin + done));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
          error = errno;
          return;
        }
        if (got == 0) {
          short_read = true;
          return;
        }
        done += static_cast<std::uint64_t>(got);
      }
      digests[piece] = checksum_piece(base + begin, length, piece);
    }
  });
  if (error) throw Error(where + ": read failed: " + std::strerror(error));
  if (short_read) throw Error(where + ": the file ends early (truncated?)");
  return combine_pieces(bytes, digests);
}

// Adds the time since the previous lap to one step of a BlockReadTimes.
class StepTimer {
 public:
  void lap(double& into) {
    const auto now = std::chrono::steady_clock::now();
    into += std::chrono::duration<double>(now - mark_).count();
    mark_ = now;
  }

 private:
  std::chrono::steady_clock::time_point mark_ = std::chrono::steady_clock::now();
};

}  // namespace

BlockFileReader::BlockFileReader(const std::string& path) : impl_(std::make_unique<Impl>()) {
  silence_hdf5();
  std::lock_guard lock(h5_mutex());
  auto& s = *impl_;
  s.path = path;
  const std::string where = "'" + printable(path) + "'";
  if (!std::filesystem::exists(path)) throw Error("cannot open " + where + ": No such file or directory");
  if (::access(path.c_str(), R_OK) != 0) throw Error("cannot open " + where + ": " + std::strerror(errno));
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw Error(where + " is not an HDF5 file (or is truncated): expected a block file written by tricount-partition");
  s.file = Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!s.file.valid()) throw Error("cannot open " + where + " as HDF5: the file is truncated or corrupt");
  const hid_t f = s.file.get();
  if (!has_attr(f, "format"))
    throw Error(where + " is an HDF5 file but not a tricount block file (no 'format' attribute; written by another program?)");
  const std::string format = read_attr_str(f, "format", where);
  if (format != kBlockFormatName)
    throw Error(where + " has format '" + format + "', expected '" + kBlockFormatName + "'");
  const std::uint64_t version = read_attr_u64(f, "format_version", where);
  if (version != kBlockFormatVersion)
    throw Error(where + " is block format version " + std::to_string(version) + "; this tricount reads version " +
                std::to_string(kBlockFormatVersion) + " (re-run tricount-partition)");
  auto& h = s.header;
  const std::uint64_t parts = read_attr_u64(f, "parts", where);
  if (parts == 0 || parts > kMaxParts)
    throw Error(where + ": the parts attribute says " + std::to_string(parts) + " parts, but a block file has 1 to " +
                std::to_string(kMaxParts) + ": the file is corrupt (re-run tricount-partition)");
  h.parts = static_cast<std::uint32_t>(parts);
  // n^2 blocks take at least kMinBlockFileBytes each: a larger n is a corrupt attribute, found
  // before the per-block tables (and the loop over n^2 groups) are sized by it.
  std::error_code size_error;
  const std::uint64_t file_bytes = std::filesystem::file_size(path, size_error);
  if (!size_error && parts * parts * kMinBlockFileBytes > file_bytes)
    throw Error(where + ": the parts attribute says " + std::to_string(parts) + " parts (" + std::to_string(parts * parts) +
                " blocks) but the file has only " + std::to_string(file_bytes) +
                " bytes: the file is corrupt or truncated (re-run tricount-partition)");
  h.vertices = read_attr_u64(f, "vertices", where);
  if (h.vertices > kMaxVertices) throw Error(where + ": " + std::to_string(h.vertices) + " vertices exceed 32-bit ids");
  h.edges = read_attr_u64(f, "edges", where);
  h.input_edges = read_attr_u64(f, "input_edges", where);
  h.max_degree = read_attr_u64(f, "max_degree", where);
  h.ordering = read_attr_str(f, "ordering", where);
  h.source_file = read_attr_str(f, "source_file", where);
  h.source_size = read_attr_u64(f, "source_size", where);
  h.graph_checksum = read_attr_u64(f, "graph_checksum", where);
  if (has_attr(f, "known_triangles")) h.known_triangles = read_attr_u64(f, "known_triangles", where);
  // Every block present, with sizes consistent with n and |V|; data is checked on read.
  const std::uint32_t n = h.parts;
  s.nnz.assign(std::size_t(n) * n, 0);
  s.checksums.assign(std::size_t(n) * n, 0);
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = 0; j < n; ++j) {
      const BlockId id{i, j};
      const std::string name = group_name(id);
      const std::string at = where + " block " + block_name(id);
      if (H5Lexists(f, "blocks", H5P_DEFAULT) <= 0 || H5Lexists(f, name.c_str(), H5P_DEFAULT) <= 0)
        throw Error(at + " is missing (file incomplete?)");
      Handle g(check(H5Gopen2(f, name.c_str(), H5P_DEFAULT), at + ": cannot open group"), H5Gclose);
      const std::uint64_t rows = read_attr_u64(g.get(), "rows", at);
      const std::uint64_t cols = read_attr_u64(g.get(), "cols", at);
      if (rows != rows_in_class(h.vertices, n, i) || cols != rows_in_class(h.vertices, n, j))
        throw Error(at + ": " + std::to_string(rows) + " x " + std::to_string(cols) + " does not fit " +
                    std::to_string(h.vertices) + " vertices in " + std::to_string(n) + " parts");
      const std::uint64_t nnz = read_attr_u64(g.get(), "nnz", at);
      if (stored_dataset_length(g.get(), "offsets", sizeof(eoff_t), at) != rows + 1 ||
          stored_dataset_length(g.get(), "neighbors", sizeof(vid_t), at) != nnz)
        throw Error(at + ": dataset sizes do not match its rows and nnz attributes");
      s.nnz[std::size_t(i) * n + j] = nnz;
      s.checksums[std::size_t(i) * n + j] = read_attr_u64(g.get(), "checksum", at);
      total += nnz;
    }
  }
  if (total != h.edges)
    throw Error(where + ": blocks hold " + std::to_string(total) + " edges but the file says " + std::to_string(h.edges));
  if (stored_dataset_length(f, "vertex_map", sizeof(raw_id_t), where) != h.vertices)
    throw Error(where + ": vertex_map does not have one entry per vertex");
}

BlockFileReader::~BlockFileReader() {
  if (!impl_) return;
  std::lock_guard lock(h5_mutex());
  impl_->file.reset();
}

const GraphHeader& BlockFileReader::header() const { return impl_->header; }
const std::string& BlockFileReader::path() const { return impl_->path; }

std::uint64_t BlockFileReader::block_nnz(const BlockId& id) const {
  const std::uint32_t n = impl_->header.parts;
  if (id.row_class >= n || id.col_class >= n) throw Error("block " + block_name(id) + " outside the n x n grid");
  return impl_->nnz[std::size_t(id.row_class) * n + id.col_class];
}

std::uint64_t BlockFileReader::block_checksum(const BlockId& id) const {
  block_nnz(id);  // range check
  return impl_->checksums[std::size_t(id.row_class) * impl_->header.parts + id.col_class];
}

std::vector<std::uint64_t> BlockFileReader::read_task_work() const {
  std::lock_guard lock(h5_mutex());
  const hid_t f = impl_->file.get();
  if (H5Lexists(f, "task_work", H5P_DEFAULT) <= 0) return {};
  const std::uint64_t n = impl_->header.parts;
  return read_dataset<std::uint64_t>(f, "task_work", H5T_NATIVE_UINT64, n * n * n, "'" + impl_->path + "'");
}

// A block's shape and where its datasets lie (read_block and map_block share it).
struct BlockFileReader::Placement {
  CsrSpan shape;  // id, rows, cols, nnz, max_degree; no arrays yet
  std::string where, at;
  RawExtent offsets, neighbors;  // direct: plain contiguous bytes at .offset of the file
};

// Under the HDF5 lock: the shape and max_degree attribute, and with `raw` (opening the file
// for pread and mmap) where each dataset's bytes lie, if they can be read directly.
BlockFileReader::Placement BlockFileReader::place_block(const BlockId& id, bool raw) const {
  const auto& h = impl_->header;
  Placement p;
  CsrSpan& b = p.shape;
  b.id = id;
  b.nnz = block_nnz(id);
  b.rows = rows_in_class(h.vertices, h.parts, id.row_class);
  b.cols = rows_in_class(h.vertices, h.parts, id.col_class);
  p.where = "'" + printable(impl_->path) + "'";
  p.at = p.where + " block " + block_name(id);
  std::lock_guard lock(h5_mutex());
  Handle g(check(H5Gopen2(impl_->file.get(), group_name(id).c_str(), H5P_DEFAULT), p.at + ": cannot open group"), H5Gclose);
  const std::uint64_t max_degree = read_attr_u64(g.get(), "max_degree", p.at);
  if (max_degree > b.cols)
    throw Error(p.at + ": the max_degree attribute " + std::to_string(max_degree) + " exceeds the block's " +
                std::to_string(b.cols) + " columns: the file is corrupt (re-run tricount-partition)");
  b.max_degree = static_cast<std::uint32_t>(max_degree);
  // The raw descriptor is HDF5's own, duplicated: opening the path again could give another
  // file if it was replaced since (the count must read the file whose header it checked).
  void* h5_handle = nullptr;
  if (raw && impl_->raw_fd < 0 && H5Fget_vfd_handle(impl_->file.get(), H5P_DEFAULT, &h5_handle) >= 0 && h5_handle)
    impl_->raw_fd = ::fcntl(*static_cast<int*>(h5_handle), F_DUPFD_CLOEXEC, 0);
  // Sizes and types are checked here; a dataset of another length is left to read_dataset,
  // which gives the message.
  auto extent = [&](const char* name, hid_t mem_type, std::uint64_t length, std::size_t width) {
    RawExtent r;
    if (!raw || impl_->raw_fd < 0 || length == 0 || dataset_length(g.get(), name, p.at) != length) return r;
    Handle set(H5Dopen2(g.get(), name, H5P_DEFAULT), H5Dclose);
    if (set.valid()) r = raw_extent(impl_->file.get(), set.get(), mem_type, length * width);
    return r;
  };
  p.offsets = extent("offsets", H5T_NATIVE_UINT64, b.rows + 1, sizeof(eoff_t));
  p.neighbors = extent("neighbors", H5T_NATIVE_UINT32, b.nnz, sizeof(vid_t));
  return p;
}

CsrBlock BlockFileReader::read_block(const BlockId& id, unsigned threads, BlockReadTimes* times) const {
  StepTimer timer;
  BlockReadTimes spent;
  const Placement p = place_block(id, threads > 1);
  const std::uint64_t nnz = p.shape.nnz;
  const std::string& at = p.at;
  CsrBlock b;
  b.id = id;
  b.rows = p.shape.rows;
  b.cols = p.shape.cols;
  b.max_degree = p.shape.max_degree;
  timer.lap(spent.metadata);
  if (!p.offsets.direct || !p.neighbors.direct) {
    std::lock_guard lock(h5_mutex());
    Handle g(check(H5Gopen2(impl_->file.get(), group_name(id).c_str(), H5P_DEFAULT), at + ": cannot open group"), H5Gclose);
    if (!p.offsets.direct)
      b.offsets = read_dataset<eoff_t, BlockArray<eoff_t>>(g.get(), "offsets", H5T_NATIVE_UINT64, b.rows + 1, at);
    if (!p.neighbors.direct)
      b.neighbors = read_dataset<vid_t, BlockArray<vid_t>>(g.get(), "neighbors", H5T_NATIVE_UINT32, nnz, at);
  }
  // Contiguous datasets: read and hashed together, in parallel (see pread_digest).
  std::uint64_t offsets_digest = 0, neighbors_digest = 0;
  if (p.offsets.direct) {
    b.offsets.resize(b.rows + 1);
    offsets_digest = pread_digest(impl_->raw_fd, p.offsets.offset, b.offsets.data(), b.offsets.size() * sizeof(eoff_t),
                                  threads, at + " offsets");
  }
  if (p.neighbors.direct) {
    b.neighbors.resize(nnz);
    neighbors_digest =
        pread_digest(impl_->raw_fd, p.neighbors.offset, b.neighbors.data(), nnz * sizeof(vid_t), threads, at + " neighbors");
  }
  timer.lap(spent.read);
  validate_block(b, p.where, threads);
  timer.lap(spent.validate);
  if (!p.offsets.direct) offsets_digest = array_digest(b.offsets.data(), b.offsets.size() * sizeof(eoff_t), threads);
  if (!p.neighbors.direct) neighbors_digest = array_digest(b.neighbors.data(), nnz * sizeof(vid_t), threads);
  if (tricount::block_checksum(b.rows, b.cols, offsets_digest, neighbors_digest) != block_checksum(id))
    throw Error(at + ": checksum mismatch (the file is corrupt)");
  timer.lap(spent.checksum);
  if (times) *times += spent;
  return b;
}

namespace {

// Maps [offset, offset + bytes) of fd read-only; *data points at offset.
std::shared_ptr<void> map_range(int fd, std::uint64_t offset, std::uint64_t bytes, const void** data, const std::string& where) {
  static const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t start = offset / page * page, length = offset + bytes - start;
  // Pages are mapped in by the checksum's threads on first touch (MAP_POPULATE measured the
  // same: 0.64 s either way for Kronecker 26 on one worker of a 4x H200 host).
  void* p = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(start));
  if (p == MAP_FAILED) throw Error(where + ": cannot map it: " + std::strerror(errno));
  *data = static_cast<const char*>(p) + (offset - start);
  return std::shared_ptr<void>(p, [length](void* q) { ::munmap(q, length); });
}

}  // namespace

std::optional<MappedBlock> BlockFileReader::map_block(const BlockId& id, unsigned threads, BlockReadTimes* times,
                                                      bool check) const {
  StepTimer timer;
  BlockReadTimes spent;
  const Placement p = place_block(id, /*raw=*/true);
  const std::string& at = p.at;
  MappedBlock m;
  CsrSpan& b = m.span_;
  b = p.shape;
  const std::uint64_t offsets_bytes = (b.rows + 1) * sizeof(eoff_t), neighbors_bytes = b.nnz * sizeof(vid_t);
  if (!p.offsets.direct || p.offsets.offset % alignof(eoff_t) != 0) return std::nullopt;
  if (b.nnz > 0 && (!p.neighbors.direct || p.neighbors.offset % alignof(vid_t) != 0)) return std::nullopt;
  // Bytes past the end of the file would be a SIGBUS when touched: refuse them here.
  struct stat st {};
  if (::fstat(impl_->raw_fd, &st) != 0) throw Error(at + ": cannot stat the file: " + std::strerror(errno));
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (p.offsets.offset + offsets_bytes > size || (b.nnz > 0 && p.neighbors.offset + neighbors_bytes > size))
    throw Error(at + ": the file ends early (truncated?)");
  const void* data = nullptr;
  m.offsets_map_ = map_range(impl_->raw_fd, p.offsets.offset, offsets_bytes, &data, at + " offsets");
  b.offsets = static_cast<const eoff_t*>(data);
  if (b.nnz > 0) {
    m.neighbors_map_ = map_range(impl_->raw_fd, p.neighbors.offset, neighbors_bytes, &data, at + " neighbors");
    b.neighbors = static_cast<const vid_t*>(data);
  }
  timer.lap(spent.metadata);
  if (times) *times += spent;
  if (check) check_mapped(m, threads, times);
  return m;
}

void BlockFileReader::check_mapped(const MappedBlock& block, unsigned threads, BlockReadTimes* times) const {
  StepTimer timer;
  BlockReadTimes spent;
  const CsrSpan& b = block.span();
  const std::string where = "'" + printable(impl_->path) + "'";
  // The first pass over the pages (mapping them in) is the checksum's.
  const std::uint64_t digest =
      tricount::block_checksum(b.rows, b.cols, array_digest(b.offsets, (b.rows + 1) * sizeof(eoff_t), threads),
                               array_digest(b.neighbors, b.nnz * sizeof(vid_t), threads));
  timer.lap(spent.read);
  validate_block(b, where, threads);
  timer.lap(spent.validate);
  if (digest != block_checksum(b.id))
    throw Error(where + " block " + block_name(b.id) + ": checksum mismatch (the file is corrupt)");
  if (times) *times += spent;
}

std::pair<std::uint64_t, std::uint64_t> BlockFileReader::opened_inode() const {
  std::lock_guard lock(h5_mutex());
  void* h5_handle = nullptr;
  struct stat st {};
  if (H5Fget_vfd_handle(impl_->file.get(), H5P_DEFAULT, &h5_handle) < 0 || !h5_handle ||
      ::fstat(*static_cast<int*>(h5_handle), &st) != 0)
    throw Error("'" + printable(impl_->path) + "': cannot identify the opened file: " + std::strerror(errno));
  return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}


std::vector<raw_id_t> BlockFileReader::read_vertex_map() const {
  std::lock_guard lock(h5_mutex());
  return read_dataset<raw_id_t>(impl_->file.get(), "vertex_map", H5T_NATIVE_UINT64, impl_->header.vertices,
                                "'" + impl_->path + "'");
}

std::vector<raw_id_t> BlockFileReader::read_vertex_map_class(std::uint32_t c) const {
  std::lock_guard lock(h5_mutex());
  const std::string where = "'" + impl_->path + "'";
  const std::uint32_t n = impl_->header.parts;
  if (c >= n) throw Error(where + ": no vertex class " + std::to_string(c) + " among " + std::to_string(n));
  std::vector<raw_id_t> ids(rows_in_class(impl_->header.vertices, n, c));
  if (ids.empty()) return ids;
  Handle set(check(H5Dopen2(impl_->file.get(), "vertex_map", H5P_DEFAULT), where + ": cannot open dataset 'vertex_map'"),
             H5Dclose);
  Handle fspace(check(H5Dget_space(set.get()), where + ": H5Dget_space"), H5Sclose);
  const hsize_t start[1] = {c}, stride[1] = {n}, count[1] = {static_cast<hsize_t>(ids.size())};
  check_status(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, stride, count, nullptr),
               where + ": H5Sselect_hyperslab");
  Handle mspace(check(H5Screate_simple(1, count, nullptr), where + ": H5Screate_simple"), H5Sclose);
  check_status(H5Dread(set.get(), H5T_NATIVE_UINT64, mspace.get(), fspace.get(), H5P_DEFAULT, ids.data()),
               where + ": cannot read dataset 'vertex_map' (file truncated or corrupt?)");
  return ids;
}

}  // namespace tricount
