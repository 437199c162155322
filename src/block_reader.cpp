// The block file's reader (BlockFileReader): the header and every block's presence and sizes
// checked on opening; blocks read (HDF5, or parallel pread of contiguous datasets) or mapped,
// then validated and checksummed. Every HDF5 call is checked and made under hdf5_lock().
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
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <utility>

#include "src/hdf5_attributes.hpp"
#include "src/hdf5_check.hpp"
#include "src/hdf5_datasets.hpp"
#include "src/hdf5_handle.hpp"
#include "src/output_file.hpp"
#include "src/packed_block.hpp"

namespace tricount {
namespace {

using Handle = Hdf5Handle;

// The fewest bytes a block takes in a block file (its group, attributes and two dataset
// headers; measured about 2.4 KiB each).
constexpr std::uint64_t kMinBlockFileBytes = 512;

}  // namespace

struct BlockFileReader::Impl {
  std::string path;
  GraphHeader header;
  Handle file;
  std::vector<std::uint64_t> nnz;        // per block, from attributes
  std::vector<std::uint64_t> checksums;  // per block, from attributes
  std::vector<std::uint64_t> words;      // per block: a packed block's words (empty: CSR)
  std::vector<bool> packed;              // per block: encoding "packed"
  std::vector<std::uint64_t> degree_checksums;  // per class; empty: the file stores no degrees
  std::vector<std::uint64_t> vertex_map_checksums;  // per class; empty: a file written before them
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
  const auto lock = hdf5_lock();
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
  if (!has_attribute(f, "format"))
    throw Error(where + " is an HDF5 file but not a tricount block file (no 'format' attribute; written by another program?)");
  const std::string format = read_attribute_string(f, "format", where);
  if (format != kBlockFormatName)
    throw Error(where + " has format '" + format + "', expected '" + kBlockFormatName + "'");
  const std::uint64_t version = read_attribute_u64(f, "format_version", where);
  if (version < kCsrBlockFormatVersion || version > kBlockFormatVersion)
    throw Error(where + " is block format version " + std::to_string(version) + "; this tricount reads versions " +
                std::to_string(kCsrBlockFormatVersion) + " to " + std::to_string(kBlockFormatVersion) +
                (version > kBlockFormatVersion ? " (written by a newer tricount: use that one, or re-run this tricount-partition)"
                                               : " (re-run tricount-partition)"));
  auto& h = s.header;
  const std::uint64_t parts = read_attribute_u64(f, "parts", where);
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
  h.vertices = read_attribute_u64(f, "vertices", where);
  if (h.vertices > kMaxVertices) throw Error(where + ": " + std::to_string(h.vertices) + " vertices exceed 32-bit ids");
  h.edges = read_attribute_u64(f, "edges", where);
  h.input_edges = read_attribute_u64(f, "input_edges", where);
  h.max_degree = read_attribute_u64(f, "max_degree", where);
  h.ordering = read_attribute_string(f, "ordering", where);
  h.source_file = read_attribute_string(f, "source_file", where);
  h.source_size = read_attribute_u64(f, "source_size", where);
  if (H5Aexists(f, "source_md5") > 0) h.source_md5 = read_attribute_string(f, "source_md5", where);
  h.graph_checksum = read_attribute_u64(f, "graph_checksum", where);
  if (has_attribute(f, "known_triangles")) h.known_triangles = read_attribute_u64(f, "known_triangles", where);
  // Every block present, with sizes consistent with n and |V|; data is checked on read.
  const std::uint32_t n = h.parts;
  s.nnz.assign(std::size_t(n) * n, 0);
  s.checksums.assign(std::size_t(n) * n, 0);
  s.words.assign(std::size_t(n) * n, 0);
  s.packed.assign(std::size_t(n) * n, false);
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = 0; j < n; ++j) {
      const BlockId id{i, j};
      const std::string name = block_group_path(id);
      const std::string at = where + " block " + block_name(id);
      if (H5Lexists(f, "blocks", H5P_DEFAULT) <= 0 || H5Lexists(f, name.c_str(), H5P_DEFAULT) <= 0)
        throw Error(at + " is missing (file incomplete?)");
      Handle g(h5_check(H5Gopen2(f, name.c_str(), H5P_DEFAULT), at + ": cannot open group"), H5Gclose);
      // A group renamed or swapped keeps its own classes: counted under its name, its edges
      // would join other vertices and the count would be wrong without any other error.
      const std::uint64_t row_class = read_attribute_u64(g.get(), "row_class", at);
      const std::uint64_t col_class = read_attribute_u64(g.get(), "col_class", at);
      if (row_class != i || col_class != j)
        throw Error(at + " says row_class " + std::to_string(row_class) + ", col_class " + std::to_string(col_class) +
                    ": the file is damaged or was edited (re-run tricount-partition)");
      const std::uint64_t rows = read_attribute_u64(g.get(), "rows", at);
      const std::uint64_t cols = read_attribute_u64(g.get(), "cols", at);
      if (rows != rows_in_class(h.vertices, n, i) || cols != rows_in_class(h.vertices, n, j))
        throw Error(at + ": " + std::to_string(rows) + " x " + std::to_string(cols) + " does not fit " +
                    std::to_string(h.vertices) + " vertices in " + std::to_string(n) + " parts");
      const std::uint64_t nnz = read_attribute_u64(g.get(), "nnz", at);
      std::string encoding = "csr";
      if (version >= 3) encoding = read_attribute_string(g.get(), "encoding", at);
      if (encoding == "packed") {
        s.packed[std::size_t(i) * n + j] = true;
        if (stored_dataset_length(g.get(), "group_index", sizeof(std::uint64_t), at) != packed_index_entries(rows))
          throw Error(at + ": dataset sizes do not match its rows attribute");
        s.words[std::size_t(i) * n + j] = stored_dataset_length(g.get(), "words", sizeof(std::uint32_t), at);
      } else if (encoding == "csr") {
        if (stored_dataset_length(g.get(), "offsets", sizeof(eoff_t), at) != rows + 1 ||
            stored_dataset_length(g.get(), "neighbors", sizeof(vid_t), at) != nnz)
          throw Error(at + ": dataset sizes do not match its rows and nnz attributes");
      } else {
        throw Error(at + " has encoding '" + encoding + "', expected 'csr' or 'packed' (re-run tricount-partition)");
      }
      s.nnz[std::size_t(i) * n + j] = nnz;
      s.checksums[std::size_t(i) * n + j] = read_attribute_u64(g.get(), "checksum", at);
      total += nnz;
    }
  }
  if (total != h.edges)
    throw Error(where + ": blocks hold " + std::to_string(total) + " edges but the file says " + std::to_string(h.edges));
  // The journal trusts graph_checksum to name the graph; it is the digest of the blocks'
  // checksums in row-major order (BlockFileWriter::commit), each checked when its block is read.
  if (graph_checksum(s.checksums) != h.graph_checksum)
    throw Error(where + ": graph_checksum " + std::to_string(h.graph_checksum) +
                " is not the digest of the blocks' checksums: the file is damaged or was edited (re-run tricount-partition)");
  if (stored_dataset_length(f, "vertex_map", sizeof(raw_id_t), where) != h.vertices)
    throw Error(where + ": vertex_map does not have one entry per vertex");
  s.vertex_map_checksums.clear();
  if (H5Lexists(f, "vertex_map_checksums", H5P_DEFAULT) > 0)
    s.vertex_map_checksums = read_dataset<std::uint64_t>(f, "vertex_map_checksums", H5T_NATIVE_UINT64, n, where);
  s.degree_checksums.clear();
  if (H5Lexists(f, "degrees", H5P_DEFAULT) > 0) {
    if (stored_dataset_length(f, "degrees", sizeof(std::uint32_t), where) != h.vertices)
      throw Error(where + ": degrees does not have one entry per vertex (re-run tricount-partition)");
    s.degree_checksums = read_dataset<std::uint64_t>(f, "degree_checksums", H5T_NATIVE_UINT64, n, where);
  }
}

BlockFileReader::~BlockFileReader() {
  if (!impl_) return;
  const auto lock = hdf5_lock();
  impl_->file.reset();
}

const GraphHeader& BlockFileReader::header() const { return impl_->header; }
const std::string& BlockFileReader::path() const { return impl_->path; }

std::uint64_t BlockFileReader::block_nnz(const BlockId& id) const {
  const std::uint32_t n = impl_->header.parts;
  if (id.row_class >= n || id.col_class >= n) throw Error("block " + block_name(id) + " outside the n x n grid");
  return impl_->nnz[std::size_t(id.row_class) * n + id.col_class];
}

std::uint64_t BlockFileReader::block_csr_bytes(const BlockId& id) const {
  return csr_bytes(rows_in_class(impl_->header.vertices, impl_->header.parts, id.row_class), block_nnz(id));
}

std::uint64_t BlockFileReader::block_checksum(const BlockId& id) const {
  block_nnz(id);  // range check
  return impl_->checksums[std::size_t(id.row_class) * impl_->header.parts + id.col_class];
}

std::vector<std::uint64_t> BlockFileReader::read_task_work() const {
  const auto lock = hdf5_lock();
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
  bool packed = false;           // then offsets is the group index's extent, neighbors the words'
  std::uint64_t words = 0;       // a packed block's words
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
  const auto lock = hdf5_lock();
  Handle g(h5_check(H5Gopen2(impl_->file.get(), block_group_path(id).c_str(), H5P_DEFAULT), p.at + ": cannot open group"), H5Gclose);
  const std::uint64_t max_degree = read_attribute_u64(g.get(), "max_degree", p.at);
  if (max_degree > b.cols)
    throw Error(p.at + ": the max_degree attribute " + std::to_string(max_degree) + " exceeds the block's " +
                std::to_string(b.cols) + " columns: the file is corrupt (re-run tricount-partition)");
  b.max_degree = static_cast<std::uint32_t>(max_degree);
  if (raw) raw_fd_locked();
  // Sizes and types are checked here; a dataset of another length is left to read_dataset,
  // which gives the message.
  auto extent = [&](const char* name, hid_t mem_type, std::uint64_t length, std::size_t width) {
    RawExtent r;
    if (!raw || impl_->raw_fd < 0 || length == 0 || dataset_length(g.get(), name, p.at) != length) return r;
    Handle set(H5Dopen2(g.get(), name, H5P_DEFAULT), H5Dclose);
    if (set.valid()) r = raw_extent(impl_->file.get(), set.get(), mem_type, length * width);
    return r;
  };
  const std::size_t index = std::size_t(id.row_class) * h.parts + id.col_class;
  p.packed = impl_->packed[index];
  if (p.packed) {
    p.words = impl_->words[index];
    p.offsets = extent("group_index", H5T_NATIVE_UINT64, packed_index_entries(b.rows), sizeof(std::uint64_t));
    p.neighbors = extent("words", H5T_NATIVE_UINT32, p.words, sizeof(std::uint32_t));
    return p;
  }
  p.offsets = extent("offsets", H5T_NATIVE_UINT64, b.rows + 1, sizeof(eoff_t));
  p.neighbors = extent("neighbors", H5T_NATIVE_UINT32, b.nnz, sizeof(vid_t));
  return p;
}

CsrBlock BlockFileReader::read_block(const BlockId& id, unsigned threads, BlockReadTimes* times) const {
  StepTimer timer;
  BlockReadTimes spent;
  if (is_packed(id)) {
    // Its stored arrays as map_packed has them (checksum and index checked), decoded here.
    const MappedPackedBlock m = *map_packed(id, threads, &spent);
    StepTimer decode_timer;
    CsrBlock b;
    b.id = id;
    b.rows = m.shape().rows;
    b.cols = m.shape().cols;
    b.max_degree = m.shape().max_degree;
    const std::string where = "'" + printable(impl_->path) + "'";
    unpack_block(m.index(), m.words(), m.word_count(), m.shape().nnz, b, where, threads);
    decode_timer.lap(spent.decode);
    validate_block(b, where, threads);
    decode_timer.lap(spent.validate);
    if (times) *times += spent;
    return b;
  }
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
    const auto lock = hdf5_lock();
    Handle g(h5_check(H5Gopen2(impl_->file.get(), block_group_path(id).c_str(), H5P_DEFAULT), at + ": cannot open group"), H5Gclose);
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
  if (p.packed) return std::nullopt;
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

std::uint64_t MappedPackedBlock::stored_bytes() const {
  return packed_stored_bytes(shape_.rows, word_count_);
}

bool BlockFileReader::is_packed(const BlockId& id) const {
  block_nnz(id);  // range check
  return impl_->packed[std::size_t(id.row_class) * impl_->header.parts + id.col_class];
}

std::uint64_t BlockFileReader::block_stored_bytes(const BlockId& id) const {
  const auto& h = impl_->header;
  const std::uint64_t rows = rows_in_class(h.vertices, h.parts, id.row_class);
  if (!is_packed(id)) return csr_bytes(rows, block_nnz(id));
  return packed_stored_bytes(rows, impl_->words[std::size_t(id.row_class) * h.parts + id.col_class]);
}

std::optional<MappedPackedBlock> BlockFileReader::map_packed(const BlockId& id, unsigned threads, BlockReadTimes* times) const {
  StepTimer timer;
  BlockReadTimes spent;
  if (!is_packed(id)) return std::nullopt;
  const Placement p = place_block(id, /*raw=*/true);
  const std::string& at = p.at;
  const std::uint64_t groups = packed_groups(p.shape.rows), index_entries = packed_index_entries(p.shape.rows),
                      index_bytes = index_entries * sizeof(std::uint64_t), words_bytes = p.words * sizeof(std::uint32_t);
  MappedPackedBlock m;
  m.shape_ = p.shape;
  m.word_count_ = p.words;
  const bool map_words = p.words > 0 && p.neighbors.direct && p.neighbors.offset % alignof(std::uint32_t) == 0;
  if (map_words) {
    struct stat st {};
    if (::fstat(impl_->raw_fd, &st) != 0) throw Error(at + ": cannot stat the file: " + std::strerror(errno));
    if (p.neighbors.offset + words_bytes > static_cast<std::uint64_t>(st.st_size)) throw Error(at + ": the file ends early (truncated?)");
    const void* data = nullptr;
    m.words_map_ = map_range(impl_->raw_fd, p.neighbors.offset, words_bytes, &data, at + " words");
    m.words_ = static_cast<const std::uint32_t*>(data);
  }
  {
    const auto lock = hdf5_lock();
    Handle g(h5_check(H5Gopen2(impl_->file.get(), block_group_path(id).c_str(), H5P_DEFAULT), at + ": cannot open group"), H5Gclose);
    m.index_copy_ = std::make_shared<std::vector<std::uint64_t>>(
        read_dataset<std::uint64_t>(g.get(), "group_index", H5T_NATIVE_UINT64, index_entries, at));
    if (!map_words && p.words > 0)
      m.words_copy_ = std::make_shared<BlockArray<std::uint32_t>>(
          read_dataset<std::uint32_t, BlockArray<std::uint32_t>>(g.get(), "words", H5T_NATIVE_UINT32, p.words, at));
  }
  m.index_ = m.index_copy_->data();
  if (m.words_copy_) m.words_ = m.words_copy_->data();
  timer.lap(spent.metadata);
  const std::uint64_t digest = tricount::block_checksum(p.shape.rows, p.shape.cols, array_digest(m.index_, index_bytes, threads),
                                                        p.words ? array_digest(m.words_, words_bytes, threads) : array_digest(nullptr, 0));
  timer.lap(spent.read);
  if (digest != block_checksum(id)) throw Error(at + ": checksum mismatch (the file is corrupt)");
  timer.lap(spent.checksum);
  // The index in order and inside the arrays (what the decoders rely on), and the non-empty
  // rows: each group's first word.
  check_packed_index(m.index_, p.shape.rows, p.words, p.shape.nnz, at);
  for (std::uint64_t g = 0; g < groups; ++g) m.nonempty_rows_ += m.words_[m.index_[2 * g]];
  timer.lap(spent.validate);
  if (times) *times += spent;
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
  const auto lock = hdf5_lock();
  void* h5_handle = nullptr;
  struct stat st {};
  if (H5Fget_vfd_handle(impl_->file.get(), H5P_DEFAULT, &h5_handle) < 0 || !h5_handle ||
      ::fstat(*static_cast<int*>(h5_handle), &st) != 0)
    throw Error("'" + printable(impl_->path) + "': cannot identify the opened file: " + std::strerror(errno));
  return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}


namespace {
// The error for a vertex class whose input ids differ from their checksum.
Error vertex_map_damaged(const std::string& path, std::uint32_t c) {
  return Error("'" + printable(path) + "': the input ids (vertex_map) of vertex class " + std::to_string(c) +
               " do not match their checksum (the file is corrupt: re-run tricount-partition)");
}
}  // namespace

std::vector<raw_id_t> BlockFileReader::read_vertex_map() const {
  std::vector<raw_id_t> map;
  {
    const auto lock = hdf5_lock();
    map = read_dataset<raw_id_t>(impl_->file.get(), "vertex_map", H5T_NATIVE_UINT64, impl_->header.vertices,
                                 "'" + impl_->path + "'");
  }
  if (!impl_->vertex_map_checksums.empty()) {
    const std::vector<std::uint64_t> found = class_digests(map, impl_->header.parts);
    for (std::uint32_t c = 0; c < impl_->header.parts; ++c)
      if (found[c] != impl_->vertex_map_checksums[c]) throw vertex_map_damaged(impl_->path, c);
  }
  return map;
}

namespace {

// Entries c, c + n, c + 2n, ... of a 1-D dataset of `length` entries (class c's vertices), as
// mem_type, through HDF5 (under the caller's lock).
template <class T>
std::vector<T> read_class_entries(hid_t f, const char* name, hid_t mem_type, std::uint64_t length, std::uint32_t n,
                                  std::uint32_t c, const std::string& where) {
  std::vector<T> out(rows_in_class(length, n, c));
  if (out.empty()) return out;
  Handle set(h5_check(H5Dopen2(f, name, H5P_DEFAULT), where + ": cannot open dataset '" + name + "'"), H5Dclose);
  Handle fspace(h5_check(H5Dget_space(set.get()), where + ": H5Dget_space"), H5Sclose);
  const hsize_t start[1] = {c}, stride[1] = {n}, count[1] = {static_cast<hsize_t>(out.size())};
  h5_check_status(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, stride, count, nullptr),
                  where + ": H5Sselect_hyperslab");
  Handle mspace(h5_check(H5Screate_simple(1, count, nullptr), where + ": H5Screate_simple"), H5Sclose);
  h5_check_status(H5Dread(set.get(), mem_type, mspace.get(), fspace.get(), H5P_DEFAULT, out.data()),
                  where + ": cannot read dataset '" + name + "' (file truncated or corrupt?)");
  return out;
}

}  // namespace

// The HDF5 lock is held only to find where a contiguous dataset lies; its class entries are
// then gathered from a mapping on threads. These reads run ahead on threads of their own
// (PerVertexAhead) while the count opens, checks and loads blocks through the same lock.
template <class T>
std::vector<T> BlockFileReader::read_class(const char* name, std::uint32_t c, unsigned threads) const {
  static_assert(sizeof(T) == 8 || sizeof(T) == 4);
  const std::string where = "'" + printable(impl_->path) + "'";
  const std::uint32_t n = impl_->header.parts;
  const std::uint64_t length = impl_->header.vertices;
  if (c >= n) throw Error(where + ": no vertex class " + std::to_string(c) + " among " + std::to_string(n));
  RawExtent raw;
  {
    const auto lock = hdf5_lock();
    const hid_t mem_type = sizeof(T) == 8 ? H5T_NATIVE_UINT64 : H5T_NATIVE_UINT32;
    if (rows_in_class(length, n, c) == 0 || dataset_length(impl_->file.get(), name, where) != length)
      return read_class_entries<T>(impl_->file.get(), name, mem_type, length, n, c, where);  // its message
    Handle set(h5_check(H5Dopen2(impl_->file.get(), name, H5P_DEFAULT), where + ": cannot open dataset '" + name + "'"),
               H5Dclose);
    if (raw_fd_locked() >= 0) raw = raw_extent(impl_->file.get(), set.get(), mem_type, length * sizeof(T));
    if (!raw.direct) return read_class_entries<T>(impl_->file.get(), name, mem_type, length, n, c, where);
  }
  const std::string at = where + " dataset '" + name + "'";
  struct stat st {};
  if (::fstat(impl_->raw_fd, &st) != 0) throw Error(at + ": cannot stat the file: " + std::strerror(errno));
  if (raw.offset + length * sizeof(T) > static_cast<std::uint64_t>(st.st_size))
    throw Error(at + ": the file ends early (truncated?)");
  const void* data = nullptr;
  const std::shared_ptr<void> mapping = map_range(impl_->raw_fd, raw.offset, length * sizeof(T), &data, at);
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::vector<T> out(rows_in_class(length, n, c));
  parallel_ranges(out.size(), std::max(1u, threads), [&](std::uint64_t first, std::uint64_t last) {
    for (std::uint64_t k = first; k < last; ++k) std::memcpy(&out[k], bytes + (c + k * n) * sizeof(T), sizeof(T));
  });
  return out;
}

int BlockFileReader::raw_fd_locked() const {
  // HDF5's own descriptor, duplicated: opening the path again could give another file if it
  // was replaced since (the count must read the file whose header it checked).
  void* h5_handle = nullptr;
  if (impl_->raw_fd < 0 && H5Fget_vfd_handle(impl_->file.get(), H5P_DEFAULT, &h5_handle) >= 0 && h5_handle)
    impl_->raw_fd = ::fcntl(*static_cast<int*>(h5_handle), F_DUPFD_CLOEXEC, 0);
  return impl_->raw_fd;
}

std::vector<raw_id_t> BlockFileReader::read_vertex_map_class(std::uint32_t c, unsigned threads) const {
  std::vector<raw_id_t> ids = read_class<raw_id_t>("vertex_map", c, threads);
  if (!impl_->vertex_map_checksums.empty() &&
      array_digest(ids.data(), ids.size() * sizeof(raw_id_t), threads) != impl_->vertex_map_checksums[c])
    throw vertex_map_damaged(impl_->path, c);
  return ids;
}

bool BlockFileReader::has_degrees() const { return !impl_->degree_checksums.empty(); }

std::vector<std::uint64_t> BlockFileReader::read_degrees_class(std::uint32_t c, unsigned threads) const {
  const std::string where = "'" + printable(impl_->path) + "'";
  if (c >= impl_->header.parts)
    throw Error(where + ": no vertex class " + std::to_string(c) + " among " + std::to_string(impl_->header.parts));
  if (!has_degrees()) throw Error(where + " stores no degrees (written before they were stored: re-run tricount-partition)");
  const std::vector<std::uint32_t> stored = read_class<std::uint32_t>("degrees", c, threads);
  if (array_digest(stored.data(), stored.size() * sizeof(std::uint32_t), threads) != impl_->degree_checksums[c])
    throw Error(where + ": the degrees of vertex class " + std::to_string(c) +
                " do not match their checksum (the file is corrupt: re-run tricount-partition)");
  return {stored.begin(), stored.end()};
}

}  // namespace tricount
