// Stage write: per block, its segments are merged (threads split the rows) into the CSR,
// built whole in memory and handed to the writer thread when it fits, else written to the
// HDF5 datasets in pieces (BlockFileWriter::begin_block), or, for packed blocks, built in
// scratch files and packed from them (the same file as built whole). Per-row degrees and per-column
// counts go to small files for the estimate stage.
#include "partitioner/pipeline_state.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>

#include "partitioner/block_writer_thread.hpp"
#include "partitioner/count_cache.hpp"
#include "partitioner/csr_range_builder.hpp"
#include "src/checksum.hpp"
#include "src/packed_block.hpp"

namespace tricount::pipeline {

namespace {

struct BlockSink : CsrRangeBuilder::Sink {
  std::unique_ptr<CountCache> col_count;  // per thread, onto the block's column counts
  // The range's row degrees go to the block's row-degree file at their rows' places, from
  // every range's thread at once.
  int degree_fd = -1;
  std::string degree_path;
  eoff_t previous = 0;  // offset before the first piece: the range's base
  std::vector<std::uint32_t> degrees;
  void count_columns(const vid_t* data, std::size_t count) {
    for (std::size_t k = 0; k < count; ++k) col_count->inc(data[k]);
  }
  void row_degrees(std::uint64_t first, const eoff_t* data, std::size_t count) {
    degrees.resize(count);
    for (std::size_t k = 0; k < count; ++k) {
      degrees[k] = static_cast<std::uint32_t>(data[k] - previous);
      previous = data[k];
    }
    runs::pwrite_all(degree_fd, degrees.data(), count * 4, (first - 1) * 4, degree_path);
  }
};
struct ArraySink : BlockSink {
  CsrBlock* block = nullptr;
  void offsets(std::uint64_t first, const eoff_t* data, std::size_t count) override {
    std::copy(data, data + count, block->offsets.begin() + first);
    row_degrees(first, data, count);
  }
  void neighbors(std::uint64_t first, const vid_t* data, std::size_t count) override {
    std::copy(data, data + count, block->neighbors.begin() + first);
    count_columns(data, count);
  }
};
// A block too large for memory, packed: its CSR built in two scratch files (on disk, or memory
// files when the runs are held in memory), then mapped and packed by the writer.
struct ScratchSink : BlockSink {
  int offsets_fd = -1, neighbors_fd = -1;
  std::string offsets_path, neighbors_path;
  void offsets(std::uint64_t first, const eoff_t* data, std::size_t count) override {
    runs::pwrite_all(offsets_fd, data, count * sizeof(eoff_t), first * sizeof(eoff_t), offsets_path);
    row_degrees(first, data, count);
  }
  void neighbors(std::uint64_t first, const vid_t* data, std::size_t count) override {
    runs::pwrite_all(neighbors_fd, data, count * sizeof(vid_t), first * sizeof(vid_t), neighbors_path);
    count_columns(data, count);
  }
};
// A scratch file mapped read-only, unmapped and removed at the end of its scope.
struct MappedScratch {
  std::string path;
  int fd = -1;
  void* data = nullptr;
  std::size_t bytes = 0;
  MappedScratch(std::string p, std::size_t size) : path(std::move(p)), fd(runs::create_scratch_file(path)), bytes(size) {
    if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) runs::throw_write_error(path, errno);
  }
  const void* map() {
    if (bytes == 0) return nullptr;
    // Opened for writing only (a memory file for both): mapped through a reading descriptor.
    const int reader = ::open(("/proc/self/fd/" + std::to_string(fd)).c_str(), O_RDONLY | O_CLOEXEC);
    if (reader < 0) throw Error("cannot read back scratch file '" + path + "': " + std::strerror(errno));
    data = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, reader, 0);
    const int err = errno;
    ::close(reader);
    if (data == MAP_FAILED) {
      data = nullptr;
      throw Error("cannot map scratch file '" + path + "': " + std::strerror(err));
    }
    return data;
  }
  ~MappedScratch() {
    if (data) ::munmap(data, bytes);
    if (fd >= 0) ::close(fd);
    runs::remove_scratch_file(path);
  }
  MappedScratch(const MappedScratch&) = delete;
  MappedScratch& operator=(const MappedScratch&) = delete;
};

// A packed block from its CSR in mapped scratch files, in windows of row groups of about
// `window_bytes` of CSR, so that the process holds one window's words and pages at a time
// (packing it whole held all its pages and words: over --memory-budget). Pass 1 packs each
// window for its groups' sizes, the block's datasets are then placed at their sizes, and
// pass 2 packs each window again and writes its words in place; the file is byte for byte
// what write_block writes. A window's pages are dropped from the mapping once packed
// (MADV_DONTNEED: the scratch file keeps them).
void write_packed_in_windows(BlockFileWriter& file, const CsrSpan& b, const MappedScratch& offsets,
                             const MappedScratch& neighbors, std::uint64_t window_bytes, unsigned threads) {
  const std::uint64_t groups = packed_groups(b.rows);
  const auto first_row = [&](std::uint64_t g) { return std::min(b.rows, g * kPackedGroupRows); };
  const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const auto drop = [&](const MappedScratch& m, std::uint64_t from, std::uint64_t to) {  // bytes [from, to) of m
    const std::uint64_t lo = (from + page - 1) / page * page, hi = to / page * page;
    if (m.data && lo < hi) ::madvise(static_cast<char*>(m.data) + lo, hi - lo, MADV_DONTNEED);
  };
  std::vector<std::uint64_t> windows{0};  // each window's first group, then `groups`
  for (std::uint64_t g = 1; g <= groups; ++g) {
    const std::uint64_t lo = first_row(windows.back()), hi = first_row(g);
    if (g == groups || (hi - lo) * sizeof(eoff_t) + (b.offsets[hi] - b.offsets[lo]) * sizeof(vid_t) >= window_bytes) {
      windows.push_back(g);
      drop(offsets, lo * sizeof(eoff_t), hi * sizeof(eoff_t));  // read one offset per group: every page
    }
  }
  const auto release = [&](std::uint64_t g0, std::uint64_t g1) {
    const std::uint64_t lo = first_row(g0), hi = first_row(g1);
    drop(neighbors, b.offsets[lo] * sizeof(vid_t), b.offsets[hi] * sizeof(vid_t));
    drop(offsets, lo * sizeof(eoff_t), hi * sizeof(eoff_t));
  };
  // 1. The group index and the rows of two or more, window by window.
  std::vector<std::uint64_t> index(packed_index_entries(b.rows), 0);
  std::uint64_t words = 0, rows_with_two = 0;
  for (std::size_t w = 0; w + 1 < windows.size(); ++w) {
    const std::uint64_t g0 = windows[w], g1 = windows[w + 1];
    const PackedBlock p = pack_groups(b, g0, g1, threads);
    for (std::uint64_t g = g0; g < g1; ++g) {
      index[2 * g] = words + p.index[2 * (g - g0)];
      index[2 * g + 1] = p.index[2 * (g - g0) + 1];
    }
    words += p.index[2 * (g1 - g0)];
    CsrSpan rows = b;
    rows.offsets = b.offsets + first_row(g0);
    rows.rows = first_row(g1) - first_row(g0);
    rows_with_two += rows.rows_with_two(threads);
    release(g0, g1);
  }
  index[2 * groups] = words;
  index[2 * groups + 1] = b.nnz;
  // 2. The datasets placed, then each window's words at its place.
  const auto [index_at, words_at] = file.allocate_packed_block(b.id, b.rows, b.cols, b.nnz, words);
  const std::string& path = file.temp_path();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open '" + path + "' to write block " + block_name(b.id) + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  runs::pwrite_output(fd, index.data(), index.size() * sizeof(std::uint64_t), index_at, file.path());
  ArrayDigestStream digest;
  for (std::size_t w = 0; w + 1 < windows.size(); ++w) {
    const std::uint64_t g0 = windows[w], g1 = windows[w + 1];
    const PackedBlock p = pack_groups(b, g0, g1, threads);
    runs::pwrite_output(fd, p.words.data(), p.words.size() * sizeof(std::uint32_t),
                        words_at + index[2 * g0] * sizeof(std::uint32_t), file.path());
    digest.add(p.words.data(), p.words.size() * sizeof(std::uint32_t));
    release(g0, g1);
  }
  const std::uint64_t checksum =
      block_checksum(b.rows, b.cols, array_digest(index.data(), index.size() * sizeof(std::uint64_t), threads), digest.value());
  file.block_written(b.id, static_cast<std::uint32_t>(b.max_degree), rows_with_two, checksum);
}

struct StreamSink : BlockSink {
  BlockFileWriter::BlockStream* stream = nullptr;
  void offsets(std::uint64_t first, const eoff_t* data, std::size_t count) override {
    stream->write_offsets(first, data, count);
    row_degrees(first, data, count);
  }
  void neighbors(std::uint64_t first, const vid_t* data, std::size_t count) override {
    stream->write_neighbors(first, data, count);
    count_columns(data, count);
  }
};

// A block's row-degree file, open while its ranges write it; closed (and counted) by close(),
// or without a word when an error is already on its way.
struct DegreeFile {
  std::string path;
  int fd;
  explicit DegreeFile(std::string p) : path(std::move(p)), fd(runs::create_scratch_file(path)) {}
  ~DegreeFile() {
    if (fd >= 0) ::close(fd);
  }
  DegreeFile(const DegreeFile&) = delete;
  DegreeFile& operator=(const DegreeFile&) = delete;
  void close() { runs::close_scratch_file(path, std::exchange(fd, -1)); }
};

}  // namespace

void Pipeline::write_blocks(BlockOutput& out) {
  const std::uint32_t n = o_.parts;
  progress_.begin("write", edges_, "edges");
  row_degree_files_.assign(std::uint64_t(n) * n, "");
  col_count_files_.assign(std::uint64_t(n) * n, "");
  BlockWriterThread writer(out);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) {
      const std::uint64_t b = std::uint64_t(i) * n + j;
      const std::uint64_t rows = rows_in_class(vertices_, n, i), cols = rows_in_class(vertices_, n, j);
      const std::uint64_t nnz = block_nnz_[b];
      auto [segs, mine] = reduce_fanin<std::uint64_t>(std::move(block_segments_[b]), false, false, "merge", KeyLess{});
      block_segments_[b].clear();
      VertexArray<std::uint32_t> col_count;
      assign_zeros(col_count, cols, threads_);
      // A thread per 64 Ki edges, so small blocks take one (at one per Mi edges, a block of
      // 16 M edges, --parts 4 of Kronecker 24, was built on 16 of 64 cores).
      const unsigned threads = static_cast<unsigned>(std::clamp<std::uint64_t>(nnz >> 16, 1, threads_));
      const std::size_t cursors = cursor_bytes(segs.size(), threads);
      // Each cursor's buffer is at most its range: at most the block's keys in all.
      const std::uint64_t merge_bytes = std::min<std::uint64_t>(std::uint64_t(cursors) * segs.size() * threads, nnz * 8);
      const std::uint64_t block_bytes = csr_bytes(rows, nnz) + cols * 4 + merge_bytes;
      // A block is built whole in memory when it fits (always for an in-memory graph).
      BlockFileWriter* file = out.file();
      const bool in_memory = !file || (!tune_.stream_blocks && block_bytes <= work_budget_);
      const std::size_t piece = std::clamp<std::size_t>(io_ / 8, 4096, std::size_t{1} << 20);
      std::mutex m;
      std::uint32_t block_max = 0;
      row_degree_files_[b] = scratch_.new_file("rowdeg");
      DegreeFile degree_file(row_degree_files_[b]);
      // Every range's thread builds its rows' CSR into `sink`'s destination and writes their
      // degrees and counts their columns.
      auto build = [&](const MergeRange<std::uint64_t>& range, runs::MergeStream<std::uint64_t, KeyLess>& stream,
                       BlockSink& sink) {
        sink.col_count = std::make_unique<CountCache>(col_count.data());
        sink.degree_fd = degree_file.fd;
        sink.degree_path = degree_file.path;
        sink.previous = range.first;
        CsrRangeBuilder builder(range.lo_key ? *range.lo_key >> 32 : 0, range.hi_key ? *range.hi_key >> 32 : rows,
                                range.first, piece, sink);
        for (std::uint64_t key; stream.next(key);) builder.add(key);
        builder.finish();
        sink.col_count->flush();
        std::lock_guard lock(m);
        block_max = std::max(block_max, builder.max_degree());
      };
      if (in_memory) {
        // The blocks still being written count against the budget too.
        writer.wait_for_room(block_bytes, work_budget_);
        CsrBlock block = writer.take_spare();
        block.id = {i, j};
        block.rows = rows;
        block.cols = cols;
        // Not zero-filled: the ranges' threads write every offset after the first, and every
        // neighbour, so the pages are first touched on those threads (a spare's are touched
        // already). clear() first: growing keeps nothing of the old contents.
        block.offsets.clear();
        block.neighbors.clear();
        block.offsets.resize(rows + 1);
        block.offsets[0] = 0;
        block.neighbors.resize(nnz);
        runs::parallel_merge<std::uint64_t>(
            pool_, segs, threads, cursors, KeyLess{}, RowStart{},
            [&](const MergeRange<std::uint64_t>& range, runs::MergeStream<std::uint64_t, KeyLess>& stream) {
              ArraySink sink;
              sink.block = &block;
              build(range, stream, sink);
            });
        block.max_degree = block_max;
        degree_file.close();
        writer.push(std::move(block));
      } else if (o_.encoding == BlockEncoding::packed) {
        ++report_.streamed_blocks;
        writer.drain();       // the file is ours alone again
        writer.take_spare();  // and the memory: a block that does not fit is built in scratch files
        MappedScratch offsets(scratch_.new_file("packoff"), (rows + 1) * sizeof(eoff_t)),
            neighbors(scratch_.new_file("packnb"), nnz * sizeof(vid_t));
        const eoff_t zero = 0;
        runs::pwrite_all(offsets.fd, &zero, sizeof zero, 0, offsets.path);
        runs::parallel_merge<std::uint64_t>(
            pool_, segs, threads, cursors, KeyLess{}, RowStart{},
            [&](const MergeRange<std::uint64_t>& range, runs::MergeStream<std::uint64_t, KeyLess>& merged) {
              ScratchSink sink;
              sink.offsets_fd = offsets.fd, sink.neighbors_fd = neighbors.fd;
              sink.offsets_path = offsets.path, sink.neighbors_path = neighbors.path;
              build(range, merged, sink);
            });
        degree_file.close();
        CsrSpan span;
        span.id = {i, j};
        span.rows = rows, span.cols = cols, span.nnz = nnz, span.max_degree = block_max;
        span.offsets = static_cast<const eoff_t*>(offsets.map());
        span.neighbors = static_cast<const vid_t*>(neighbors.map());
        write_packed_in_windows(*file, span, offsets, neighbors, std::max<std::uint64_t>(work_budget_ / 4, 1 << 20), threads_);
      } else {
        ++report_.streamed_blocks;
        writer.drain();       // the file is ours alone again
        writer.take_spare();  // and the memory: a block that does not fit streams
        BlockFileWriter::BlockStream stream = file->begin_block({i, j}, rows, cols, nnz);
        const eoff_t zero = 0;
        stream.write_offsets(0, &zero, 1);
        runs::parallel_merge<std::uint64_t>(
            pool_, segs, threads, cursors, KeyLess{}, RowStart{},
            [&](const MergeRange<std::uint64_t>& range, runs::MergeStream<std::uint64_t, KeyLess>& merged) {
              StreamSink sink;
              sink.stream = &stream;
              build(range, merged, sink);
            });
        degree_file.close();
        block_max = stream.finish(threads_).max_degree;
      }
      max_degree_ = std::max<std::uint64_t>(max_degree_, block_max);
      col_count_files_[b] = scratch_.new_file("colcount");
      runs::write_file(col_count_files_[b], col_count.data(), col_count.size() * 4);
      remove_mine(segs, mine);
      progress_.add(nnz);
    }
  writer.drain();
  // Which side bounded the stage: the writer (and the disk behind it) or the builds.
  char timing[160];
  const auto [write_s, writeback_s] = out.file() ? out.file()->block_write_seconds() : std::pair<double, double>{0, 0};
  std::snprintf(timing, sizeof timing, "writer thread busy %.2f s (HDF5 writes %.2f s), builds waited %.2f s, writeback calls %.2f s",
                writer.busy_seconds(), write_s, writer.waited_seconds(), writeback_s);
  // Every block is written: the bucket files go (their pages freed on the stage's threads).
  std::vector<Run> buckets;
  for (const std::string& p : bucket_files_) buckets.push_back(Run{{Span{p, 0, 0}}});
  runs::remove_run_files(buckets, pool_, threads_);
  bucket_files_.clear();
  std::string detail(timing);
  if (report_.streamed_blocks) detail.insert(0, std::to_string(report_.streamed_blocks) + " blocks written in pieces, ");
  progress_.end(detail);
}

}  // namespace tricount::pipeline
