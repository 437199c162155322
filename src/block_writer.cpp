// The block file's writer (BlockFileWriter): whole blocks or streamed ones, into a temporary
// that commit() renames over the output. Every HDF5 call is checked and made under
// hdf5_lock().
#include "src/block_format.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <thread>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <string_view>
#include <utility>

#include "src/hdf5_attributes.hpp"
#include "src/hdf5_check.hpp"
#include "src/hdf5_datasets.hpp"
#include "src/hdf5_handle.hpp"
#include "src/output_file.hpp"
#include "src/packed_block.hpp"
#include "src/threads.hpp"

namespace tricount {
namespace {

using Handle = Hdf5Handle;

// Starts the disk's writes of the file's dirty pages now, without waiting for them, so that
// commit()'s fsync finds most of them written: the disk works while the rest of the file is
// made, not after it (commit was the fsync of the whole output). On a thread of its own:
// sync_file_range can be held back by the block layer (writeback throttling), and the
// writer, whose next block waits, would be held with it. Best effort: the fsync checks.
class Writeback {
 public:
  Writeback() = default;
  Writeback(const Writeback&) = delete;
  Writeback& operator=(const Writeback&) = delete;
  ~Writeback() { stop(); }
  // The writer's files use HDF5's default (sec2) driver, whose handle is the descriptor.
  void start(hid_t file) {
    void* handle = nullptr;
    if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || handle == nullptr) return;
    {
      std::lock_guard lock(m_);
      if (stop_) return;
      fd_ = *static_cast<int*>(handle);
      pending_ = true;
      if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    }
    cv_.notify_one();
  }
  // Before the descriptor is closed.
  void stop() {
    {
      std::lock_guard lock(m_);
      stop_ = true;
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
  }
  double seconds() {
    std::lock_guard lock(m_);
    return seconds_;
  }

 private:
  void loop() {
    std::unique_lock lock(m_);
    while (true) {
      cv_.wait(lock, [&] { return stop_ || pending_; });
      if (stop_) return;
      pending_ = false;
      const int fd = fd_;
      lock.unlock();
      const auto start = std::chrono::steady_clock::now();
      ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
      const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      lock.lock();
      seconds_ += took;
    }
  }
  std::mutex m_;
  std::condition_variable cv_;
  int fd_ = -1;
  bool pending_ = false, stop_ = false;
  double seconds_ = 0;
  std::thread thread_;
};

// write_dataset of `count` entries at `data`, in slabs of 64 MiB with the file's writeback
// started after each, so that a block of GBs reaches the disk while it is copied.
void write_dataset_in_slabs(hid_t file, hid_t loc, const char* name, hid_t file_type, hid_t mem_type, const void* data,
                            std::uint64_t count, std::size_t width, const std::string& where, Writeback& writeback) {
  const Handle set = create_sized_dataset(loc, name, file_type, count, where);
  const std::uint64_t slab = (std::uint64_t{64} << 20) / width;
  for (std::uint64_t at = 0; at < count; at += slab) {
    write_slab(set.get(), mem_type, at, static_cast<const char*>(data) + at * width, std::min(slab, count - at), where, name);
    writeback.start(file);
  }
}

}  // namespace

// A block's attributes, written at commit.
struct BlockAttributes {
  std::uint64_t rows = 0, cols = 0, nnz = 0, max_degree = 0, rows_with_two = 0, checksum = 0;
  bool packed = false;
};

struct BlockFileWriter::Impl {
  std::string path, temp;
  std::string where;  // the output as messages name it: the temporary is gone when they are read
  GraphHeader header;
  std::unique_ptr<output::OutputFile> out;  // the temporary's name; removes it unless committed
  Handle file, blocks;                      // closed before `out` removes the file
  std::vector<bool> written;
  std::vector<std::uint64_t> checksums;
  std::vector<BlockAttributes> attributes;  // row-major, by block
  bool vertex_map_written = false;
  bool committed = false;
  double write_seconds = 0;  // in write_block (under the library's lock)
  Writeback writeback;       // stopped before the file is closed
  std::uint64_t version() const { return header.encoding == BlockEncoding::csr ? kCsrBlockFormatVersion : kBlockFormatVersion; }
};

BlockFileWriter::BlockFileWriter(const std::string& path, const GraphHeader& header) : impl_(std::make_unique<Impl>()) {
  const auto lock = hdf5_lock();
  auto& s = *impl_;
  s.path = path;
  s.header = header;
  check_parts(header.parts);
  s.written.assign(std::size_t(header.parts) * header.parts, false);
  s.checksums.assign(s.written.size(), 0);
  s.attributes.assign(s.written.size(), {});
  // Datasets of 4 KiB or more start on a 4 KiB boundary, so that readers can map them
  // (BlockFileReader::map_block needs their elements aligned; pages are the unit of mmap).
  // The 1.10 file format: superblock v3 and v2 object headers carry checksums, so a damaged
  // header is an HDF5 error, not a crash inside the library (v0 headers have none). Both
  // bounds are 1.10 so that a newer library still writes files that HDF5 1.10 reads.
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (!fapl.valid() || H5Pset_alignment(fapl.get(), 4096, 4096) < 0 ||
      H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V110, H5F_LIBVER_V110) < 0)
    throw Error("cannot set up HDF5 file access properties");
  const Handle fcpl = untimed(H5P_FILE_CREATE, "'" + path + "'");
  // A killed writer's temporary is removed when provably stale (this host, a dead pid, an
  // HDF5 file); ours is created exclusively (H5F_ACC_EXCL is O_EXCL: no planted symlink).
  output::remove_stale_temps(path, output::kHdf5Signature);
  s.out = std::make_unique<output::OutputFile>(path, "output", [&](const std::string& temp) {
    errno = 0;
    s.file = Handle(H5Fcreate(temp.c_str(), H5F_ACC_EXCL, fcpl.get(), fapl.get()), H5Fclose);
    if (s.file.valid()) return true;
    const int err = errno;
    struct stat st {};
    if (::lstat(temp.c_str(), &st) == 0) return false;  // the name is taken: another one
    throw Error("cannot create '" + temp + "' (for output '" + path + "'): " + std::strerror(err ? err : EIO));
  });
  s.temp = s.out->write_path();
  s.where = "'" + printable(path) + "'";
  const std::string& where = s.where;
  const hid_t f = s.file.get();
  write_attribute_string(f, "format", kBlockFormatName, where);
  write_attribute_u64(f, "format_version", s.version(), where);
  write_attribute_u64(f, "parts", header.parts, where);
  write_attribute_u64(f, "vertices", header.vertices, where);
  write_attribute_u64(f, "edges", header.edges, where);
  write_attribute_u64(f, "input_edges", header.input_edges, where);
  write_attribute_u64(f, "max_degree", header.max_degree, where);
  write_attribute_string(f, "ordering", header.ordering, where);
  write_attribute_string(f, "source_file", header.source_file, where);
  write_attribute_u64(f, "source_size", header.source_size, where);
  if (!header.source_md5.empty()) write_attribute_string(f, "source_md5", header.source_md5, where);
  write_attribute_string(f, "creator", std::string("tricount-partition ") + TRICOUNT_VERSION, where);
  if (header.known_triangles) write_attribute_u64(f, "known_triangles", *header.known_triangles, where);
  s.blocks = Handle(h5_check(H5Gcreate2(f, "blocks", H5P_DEFAULT, untimed(H5P_GROUP_CREATE, where).get(), H5P_DEFAULT), where + ": cannot create /blocks"),
                    H5Gclose);
  // The superblock on disk now: the HDF5 signature at offset 0 marks the temporary as a block
  // file's, which is what lets a later run remove it if this one is killed.
  if (H5Fflush(f, H5F_SCOPE_LOCAL) < 0) throw Error("cannot write " + where + " (disk full?)");
}

BlockFileWriter::~BlockFileWriter() {
  if (!impl_ || impl_->committed) return;
  impl_->writeback.stop();
  const auto lock = hdf5_lock();
  impl_->blocks.reset();
  impl_->file.reset();
  impl_->out.reset();  // removes the temporary
}

const std::string& BlockFileWriter::path() const { return impl_->path; }
const std::string& BlockFileWriter::temp_path() const { return impl_->temp; }

std::pair<double, double> BlockFileWriter::block_write_seconds() const {
  const auto lock = hdf5_lock();
  return {impl_->write_seconds, impl_->writeback.seconds()};
}

void BlockFileWriter::write_vertex_map(const std::vector<raw_id_t>& new_to_input) {
  auto& s = *impl_;
  if (new_to_input.size() != s.header.vertices)
    throw Error("vertex map has " + std::to_string(new_to_input.size()) + " entries for " +
                std::to_string(s.header.vertices) + " vertices");
  // Class c's checksum: the digest of its input ids in class order (read_vertex_map_class).
  const std::vector<std::uint64_t> digests = class_digests(new_to_input, s.header.parts);
  const auto lock = hdf5_lock();  // the checksums above need no HDF5 call
  const std::string& where = s.where;
  write_dataset(s.file.get(), "vertex_map", H5T_STD_U64LE, H5T_NATIVE_UINT64, new_to_input, where);
  write_dataset(s.file.get(), "vertex_map_checksums", H5T_STD_U64LE, H5T_NATIVE_UINT64, digests, where);
  s.vertex_map_written = true;
}

void BlockFileWriter::write_degrees(const std::vector<std::uint32_t>& degrees) {
  auto& s = *impl_;
  const std::uint32_t n = s.header.parts;
  if (degrees.size() != s.header.vertices)
    throw Error("degrees have " + std::to_string(degrees.size()) + " entries for " + std::to_string(s.header.vertices) +
                " vertices");
  // Class c's checksum is the digest of its degrees as 32-bit values in class order: what
  // BlockFileReader::read_degrees_class reads.
  const std::vector<std::uint64_t> digests = class_digests(degrees, n);
  const auto lock = hdf5_lock();  // the checksums above need no HDF5 call
  const std::string& where = s.where;
  write_dataset(s.file.get(), "degrees", H5T_STD_U32LE, H5T_NATIVE_UINT32, degrees, where);
  write_dataset(s.file.get(), "degree_checksums", H5T_STD_U64LE, H5T_NATIVE_UINT64, digests, where);
}

void BlockFileWriter::write_block(const CsrBlock& b, unsigned threads) {
  if (b.offsets.size() != b.rows + 1)
    throw Error("block " + block_name(b.id) + ": offsets has " + std::to_string(b.offsets.size()) +
                " entries, expected rows + 1 = " + std::to_string(b.rows + 1));
  write_block(b.span(), threads);
}

void BlockFileWriter::write_block(const CsrSpan& b, unsigned threads) {
  // The block's own figures, and its packed words, first, outside the library's lock.
  const bool packed = impl_->header.encoding == BlockEncoding::packed;
  const std::uint64_t rows_with_two = b.rows_with_two(threads);
  PackedBlock p;
  std::uint64_t checksum = 0;
  if (packed) {
    p = pack_block(b, threads);
    checksum = block_checksum(b.rows, b.cols, array_digest(p.index.data(), p.index.size() * sizeof(std::uint64_t)),
                              array_digest(p.words.data(), p.words.size() * sizeof(std::uint32_t), threads));
  } else {
    checksum = b.checksum(threads);
  }
  const auto lock = hdf5_lock();
  auto& s = *impl_;
  const std::uint32_t n = s.header.parts;
  if (b.id.row_class >= n || b.id.col_class >= n) throw Error("block " + block_name(b.id) + " outside the n x n grid");
  const std::string where = s.where + " block " + block_name(b.id);
  const std::string name = block_group_path(b.id);
  Handle g(h5_check(H5Gcreate2(s.file.get(), name.c_str(), H5P_DEFAULT, untimed(H5P_GROUP_CREATE, where).get(), H5P_DEFAULT), where + ": cannot create group"),
           H5Gclose);
  s.attributes[std::size_t(b.id.row_class) * n + b.id.col_class] = {b.rows, b.cols, b.nnz, b.max_degree, rows_with_two, checksum, packed};
  s.checksums[std::size_t(b.id.row_class) * n + b.id.col_class] = checksum;
  const auto start = std::chrono::steady_clock::now();
  if (packed) {
    write_dataset_in_slabs(s.file.get(), g.get(), "group_index", H5T_STD_U64LE, H5T_NATIVE_UINT64, p.index.data(),
                           p.index.size(), sizeof(std::uint64_t), where, s.writeback);
    write_dataset_in_slabs(s.file.get(), g.get(), "words", H5T_STD_U32LE, H5T_NATIVE_UINT32, p.words.data(),
                           p.words.size(), sizeof(std::uint32_t), where, s.writeback);
  } else {
    write_dataset_in_slabs(s.file.get(), g.get(), "offsets", H5T_STD_U64LE, H5T_NATIVE_UINT64, b.offsets, b.rows + 1,
                           sizeof(eoff_t), where, s.writeback);
    write_dataset_in_slabs(s.file.get(), g.get(), "neighbors", H5T_STD_U32LE, H5T_NATIVE_UINT32, b.neighbors, b.nnz,
                           sizeof(vid_t), where, s.writeback);
  }
  s.write_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  s.written[std::size_t(b.id.row_class) * n + b.id.col_class] = true;
}

void BlockFileWriter::write_task_work(const std::vector<std::uint64_t>& work) {
  const auto lock = hdf5_lock();
  auto& s = *impl_;
  const std::uint64_t n = s.header.parts;
  if (work.size() != n * n * n) throw Error("task work has " + std::to_string(work.size()) + " entries, expected n^3");
  write_dataset(s.file.get(), "task_work", H5T_STD_U64LE, H5T_NATIVE_UINT64, work, s.where);
}

void BlockFileWriter::commit() {
  {
    const auto lock = hdf5_lock();
    auto& s = *impl_;
    write_attribute_u64(s.file.get(), "graph_checksum", graph_checksum(s.checksums), s.where);
    for (std::size_t b = 0; b < s.written.size(); ++b) {
      const BlockId id{std::uint32_t(b / s.header.parts), std::uint32_t(b % s.header.parts)};
      if (!s.written[b]) throw Error(s.where + ": block " + block_name(id) + " was never written");
      const std::string where = s.where + " block " + block_name(id);
      Handle g(h5_check(H5Gopen2(s.file.get(), block_group_path(id).c_str(), H5P_DEFAULT), where + ": cannot open group"),
               H5Gclose);
      const BlockAttributes& a = s.attributes[b];
      write_attribute_u64(g.get(), "row_class", id.row_class, where);
      write_attribute_u64(g.get(), "col_class", id.col_class, where);
      write_attribute_u64(g.get(), "rows", a.rows, where);
      write_attribute_u64(g.get(), "cols", a.cols, where);
      write_attribute_u64(g.get(), "nnz", a.nnz, where);
      write_attribute_u64(g.get(), "max_degree", a.max_degree, where);
      write_attribute_u64(g.get(), "rows_with_two", a.rows_with_two, where);
      write_attribute_u64(g.get(), "checksum", a.checksum, where);
      if (s.version() >= 3) write_attribute_string(g.get(), "encoding", a.packed ? "packed" : "csr", where);
    }
    if (!s.vertex_map_written) throw Error(s.where + ": vertex map was never written");
    s.blocks.reset();
    s.writeback.stop();
    if (H5Fflush(s.file.get(), H5F_SCOPE_GLOBAL) < 0) throw Error("cannot flush " + s.where + " (disk full?)");
    if (H5Fclose(s.file.release()) < 0) throw Error("cannot close " + s.where + " (disk full?)");
  }
  impl_->out->commit();  // fsync, rename over the output, fsync the directory
  impl_->committed = true;
}


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
  const auto lock = hdf5_lock();
  impl_->offsets.reset();
  impl_->neighbors.reset();
  impl_->group.reset();
}

BlockFileWriter::BlockStream BlockFileWriter::begin_block(const BlockId& id, std::uint64_t rows, std::uint64_t cols,
                                                          std::uint64_t nnz) {
  const auto lock = hdf5_lock();
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
  b->where = s.where + " block " + block_name(id);
  b->group = Handle(h5_check(H5Gcreate2(s.file.get(), block_group_path(id).c_str(), H5P_DEFAULT,
                                           untimed(H5P_GROUP_CREATE, b->where).get(), H5P_DEFAULT),
                          b->where + ": cannot create group"),
                    H5Gclose);
  b->offsets = create_sized_dataset(b->group.get(), "offsets", H5T_STD_U64LE, rows + 1, b->where);
  b->neighbors = create_sized_dataset(b->group.get(), "neighbors", H5T_STD_U32LE, nnz, b->where);
  return BlockStream(std::move(b));
}

void BlockFileWriter::BlockStream::write_offsets(std::uint64_t first, const eoff_t* data, std::size_t count) {
  const auto lock = hdf5_lock();
  auto& b = *impl_;
  if (b.finished || first > b.rows + 1 || count > b.rows + 1 - first)
    throw Error(b.where + ": offsets piece [" + std::to_string(first) + ", +" + std::to_string(count) + ") out of range");
  write_slab(b.offsets.get(), H5T_NATIVE_UINT64, first, data, count, b.where, "offsets");
}

void BlockFileWriter::BlockStream::write_neighbors(std::uint64_t first, const vid_t* data, std::size_t count) {
  const auto lock = hdf5_lock();
  auto& b = *impl_;
  if (b.finished || first > b.nnz || count > b.nnz - first)
    throw Error(b.where + ": neighbours piece [" + std::to_string(first) + ", +" + std::to_string(count) + ") out of range");
  write_slab(b.neighbors.get(), H5T_NATIVE_UINT32, first, data, count, b.where, "neighbors");
}

BlockFileWriter::StreamedBlockStats BlockFileWriter::BlockStream::finish(unsigned threads) {
  auto& b = *impl_;
  {
    const auto lock = hdf5_lock();
    if (b.finished) throw Error(b.where + ": finished twice");
  }
  // Pieces of 2^20 entries are read back under the library's lock one at a time and checked
  // and summed outside it, on up to `threads` threads. A piece is a whole number of the
  // checksum's pieces (8 MiB of offsets, 4 MiB of neighbours), so each is summed alone and the
  // digests come out as one pass's. An error names the first bad entry, as one pass would.
  constexpr std::uint64_t kPiece = std::uint64_t{1} << 20;
  const std::uint64_t entries = b.rows + 1;
  const std::uint64_t offset_pieces = (entries + kPiece - 1) / kPiece, neighbor_pieces = (b.nnz + kPiece - 1) / kPiece;
  std::vector<std::uint64_t> offset_sums((entries * sizeof(eoff_t) + kChecksumPieceBytes - 1) / kChecksumPieceBytes);
  std::vector<std::uint64_t> neighbor_sums((b.nnz * sizeof(vid_t) + kChecksumPieceBytes - 1) / kChecksumPieceBytes);
  struct FirstError {  // the lowest position's message
    std::uint64_t at = std::numeric_limits<std::uint64_t>::max();
    std::string message;
    void offer(std::uint64_t position, std::string text) {
      if (position < at) at = position, message = std::move(text);
    }
  };
  FirstError offsets_error, neighbors_error;
  std::uint64_t longest = 0, rows_with_two = 0;
  eoff_t last_offset = 0;
  std::mutex results;
  auto sum_pieces = [](const void* data, std::uint64_t bytes, std::uint64_t first_piece, std::vector<std::uint64_t>& sums) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::uint64_t at = 0, k = first_piece; at < bytes; at += kChecksumPieceBytes, ++k)
      sums[k] = checksum_piece(p + at, std::min<std::uint64_t>(kChecksumPieceBytes, bytes - at), k);
  };
  const std::uint64_t items = offset_pieces + neighbor_pieces;
  std::atomic<std::uint64_t> next{0};
  parallel_for(static_cast<unsigned>(std::clamp<std::uint64_t>(items, 1, std::max(1u, threads))), [&](unsigned) {
    std::vector<eoff_t> offsets;
    std::vector<vid_t> neighbors;
    FirstError my_offsets_error, my_neighbors_error;
    std::uint64_t my_longest = 0, my_rows_with_two = 0;
    for (std::uint64_t item; (item = next.fetch_add(1)) < items;) {
      if (item < offset_pieces) {
        // Entries [at, at + n), and the one before them for the first row's length.
        const std::uint64_t at = item * kPiece, n = std::min(kPiece, entries - at), before = at ? 1 : 0;
        offsets.resize(n + before);
        {
          const auto lock = hdf5_lock();
          read_slab(b.offsets.get(), H5T_NATIVE_UINT64, at - before, offsets.data(), n + before, b.where, "offsets");
        }
        const eoff_t* o = offsets.data() + before;
        for (std::uint64_t k = 0; k < n; ++k) {
          if (at + k == 0) {
            if (o[0] != 0) my_offsets_error.offer(0, b.where + ": offsets[0] is not 0");
            continue;
          }
          const eoff_t prev = o[std::ptrdiff_t(k) - 1];
          if (o[k] < prev) {
            my_offsets_error.offer(at + k, b.where + ": offsets decrease at row " + std::to_string(at + k - 1));
            break;
          }
          my_longest = std::max<std::uint64_t>(my_longest, o[k] - prev);
          my_rows_with_two += o[k] - prev >= 2;
        }
        sum_pieces(o, n * sizeof(eoff_t), at * sizeof(eoff_t) / kChecksumPieceBytes, offset_sums);
        if (at + n == entries) last_offset = o[n - 1];
      } else {
        const std::uint64_t at = (item - offset_pieces) * kPiece, n = std::min(kPiece, b.nnz - at);
        neighbors.resize(n);
        {
          const auto lock = hdf5_lock();
          read_slab(b.neighbors.get(), H5T_NATIVE_UINT32, at, neighbors.data(), n, b.where, "neighbors");
        }
        for (std::uint64_t k = 0; k < n; ++k)
          if (neighbors[k] >= b.cols) {
            my_neighbors_error.offer(at + k, b.where + ": neighbour " + std::to_string(neighbors[k]) + " but the block has " +
                                                 std::to_string(b.cols) + " columns");
            break;
          }
        sum_pieces(neighbors.data(), n * sizeof(vid_t), at * sizeof(vid_t) / kChecksumPieceBytes, neighbor_sums);
      }
    }
    std::lock_guard lock(results);
    longest = std::max(longest, my_longest);
    rows_with_two += my_rows_with_two;
    offsets_error.offer(my_offsets_error.at, std::move(my_offsets_error.message));
    neighbors_error.offer(my_neighbors_error.at, std::move(my_neighbors_error.message));
  });
  if (!offsets_error.message.empty()) throw Error(offsets_error.message);
  if (last_offset != b.nnz)
    throw Error(b.where + ": offsets end at " + std::to_string(last_offset) + " but there are " + std::to_string(b.nnz) +
                " neighbours");
  if (!neighbors_error.message.empty()) throw Error(neighbors_error.message);
  StreamedBlockStats st;
  st.nnz = b.nnz;
  st.rows_with_two = rows_with_two;
  st.max_degree = checked_cast<std::uint32_t>(longest, "max_degree");
  const std::uint64_t offsets_digest = combine_pieces(entries * sizeof(eoff_t), offset_sums);
  const std::uint64_t neighbors_digest = combine_pieces(b.nnz * sizeof(vid_t), neighbor_sums);
  const auto lock = hdf5_lock();
  st.checksum = block_checksum(b.rows, b.cols, offsets_digest, neighbors_digest);
  auto& s = *b.writer;
  const std::size_t index = std::size_t(b.id.row_class) * s.header.parts + b.id.col_class;
  s.attributes[index] = {b.rows, b.cols, b.nnz, st.max_degree, st.rows_with_two, st.checksum};
  s.checksums[index] = st.checksum;
  s.written[index] = true;
  b.finished = true;
  b.offsets.reset();
  b.neighbors.reset();
  b.group.reset();
  s.writeback.start(s.file.get());
  return st;
}

namespace {
// Where a dataset allocated when created starts in the file (UINT64_MAX for an empty one).
std::uint64_t dataset_address(hid_t set) {
  const haddr_t a = H5Dget_offset(set);
  return a == HADDR_UNDEF ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(a);
}
}  // namespace

std::pair<std::uint64_t, std::uint64_t> BlockFileWriter::allocate_block(const BlockId& id, std::uint64_t rows,
                                                                        std::uint64_t cols, std::uint64_t nnz) {
  BlockStream stream = begin_block(id, rows, cols, nnz);
  const auto lock = hdf5_lock();
  const auto where = std::make_pair(dataset_address(stream.impl_->offsets.get()), dataset_address(stream.impl_->neighbors.get()));
  auto& s = *impl_;
  s.attributes[std::size_t(id.row_class) * s.header.parts + id.col_class] = {rows, cols, nnz, 0, 0, 0};
  stream.impl_->finished = true;  // the callers fill it; block_written counts it
  return where;
}

std::pair<std::uint64_t, std::uint64_t> BlockFileWriter::allocate_packed_block(const BlockId& id, std::uint64_t rows,
                                                                               std::uint64_t cols, std::uint64_t nnz,
                                                                               std::uint64_t words) {
  const auto lock = hdf5_lock();
  auto& s = *impl_;
  const std::uint32_t n = s.header.parts;
  if (id.row_class >= n || id.col_class >= n) throw Error("block " + block_name(id) + " outside the n x n grid");
  const std::string where = s.where + " block " + block_name(id);
  Handle g(h5_check(H5Gcreate2(s.file.get(), block_group_path(id).c_str(), H5P_DEFAULT, untimed(H5P_GROUP_CREATE, where).get(),
                               H5P_DEFAULT),
                    where + ": cannot create group"),
           H5Gclose);
  const Handle index = create_sized_dataset(g.get(), "group_index", H5T_STD_U64LE, packed_index_entries(rows), where);
  const Handle data = create_sized_dataset(g.get(), "words", H5T_STD_U32LE, words, where);
  s.attributes[std::size_t(id.row_class) * n + id.col_class] = {rows, cols, nnz, 0, 0, 0, true};
  return {dataset_address(index.get()), dataset_address(data.get())};
}

void BlockFileWriter::block_written(const BlockId& id, std::uint32_t max_degree, std::uint64_t rows_with_two,
                                    std::uint64_t checksum) {
  const auto lock = hdf5_lock();
  auto& s = *impl_;
  const std::size_t index = std::size_t(id.row_class) * s.header.parts + id.col_class;
  BlockAttributes& a = s.attributes[index];
  a.max_degree = max_degree;
  a.rows_with_two = rows_with_two;
  a.checksum = checksum;
  s.checksums[index] = checksum;
  s.written[index] = true;
}

void BlockFileWriter::set_max_degree(std::uint64_t max_degree) {
  const auto lock = hdf5_lock();
  auto& s = *impl_;
  const std::string& where = s.where;
  Handle attr(h5_check(H5Aopen(s.file.get(), "max_degree", H5P_DEFAULT), where + ": cannot open attribute 'max_degree'"),
              H5Aclose);
  h5_check_status(H5Awrite(attr.get(), H5T_NATIVE_UINT64, &max_degree), where + ": cannot write attribute 'max_degree'");
  s.header.max_degree = max_degree;
}

}  // namespace tricount
