#include "src/table_writer.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <type_traits>

#include "src/hdf5_attributes.hpp"
#include "src/hdf5_check.hpp"
#include "src/hdf5_handle.hpp"
#include "src/output_file.hpp"
#include "src/threads.hpp"
#include "src/types.hpp"

namespace tricount {

namespace {

// HDF5: rows per chunk at most (2 MiB of 8-byte values, 1 MiB of 4-byte ones): whole chunks
// go to the file as one write each, and the last, partly filled chunk of a column wastes at
// most this much.
constexpr std::uint64_t kMaxChunkRows = std::uint64_t{1} << 18;
// Text: rows one formatting thread formats at a time, into a buffer it keeps (a buffer per
// batch was zero-filled and faulted in anew: that, not the formatting, took the time).
constexpr std::size_t kRowsPerPiece = std::size_t{1} << 16;
// Characters a value takes at most: 20 digits of a uint64, 24 of a shortest double; and a
// tab or a newline.
constexpr std::size_t kMaxValueChars = 25;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::size_t batch_rows(const TableBatch& batch) {
  return batch.empty() ? 0 : std::visit([](const auto& v) { return v.size(); }, batch.front());
}

// A formatting thread's buffer, allocated once (uninitialised) and reused.
struct TextPiece {
  std::unique_ptr<char[]> data;
  std::size_t capacity = 0, size = 0;
};

// The variant's index is the column's type.
static_assert(std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(TableType::u32), TableColumnData>,
                             std::vector<std::uint32_t>> &&
              std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(TableType::f64), TableColumnData>,
                             std::vector<double>>);
TableType type_of(const TableColumnData& column) { return static_cast<TableType>(column.index()); }

// The HDF5 types of a column: in memory, and in the file (little-endian, as written).
hid_t memory_type(TableType t) {
  return t == TableType::u64 ? H5T_NATIVE_UINT64 : t == TableType::u32 ? H5T_NATIVE_UINT32 : H5T_NATIVE_DOUBLE;
}
hid_t file_type(TableType t) { return t == TableType::u64 ? H5T_STD_U64LE : t == TableType::u32 ? H5T_STD_U32LE : H5T_IEEE_F64LE; }
std::size_t value_bytes(TableType t) { return t == TableType::u32 ? 4 : 8; }

// Rows [first, last) of `batch` as text lines into `piece`.
void format_rows(const TableBatch& batch, std::size_t first, std::size_t last, TextPiece& piece) {
  const std::size_t need = (last - first) * batch.size() * kMaxValueChars;
  if (piece.capacity < need) piece.data.reset(new char[need]), piece.capacity = need;
  // The columns' types and values looked up once, not per value.
  struct Column {
    TableType type;
    const void* values;
  };
  std::vector<Column> columns;
  for (const TableColumnData& c : batch)
    columns.push_back({type_of(c), std::visit([](const auto& v) { return static_cast<const void*>(v.data()); }, c)});
  char* p = piece.data.get();
  char* const end = p + piece.capacity;
  for (std::size_t r = first; r < last; ++r) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      switch (columns[c].type) {
        case TableType::u64: p = std::to_chars(p, end, static_cast<const std::uint64_t*>(columns[c].values)[r]).ptr; break;
        case TableType::u32: p = std::to_chars(p, end, static_cast<const std::uint32_t*>(columns[c].values)[r]).ptr; break;
        case TableType::f64: p = std::to_chars(p, end, static_cast<const double*>(columns[c].values)[r]).ptr; break;
      }
      *p++ = c + 1 == columns.size() ? '\n' : '\t';
    }
  }
  piece.size = static_cast<std::size_t>(p - piece.data.get());
}

}  // namespace

bool table_is_text(const std::string& path) {
  return path.size() >= 4 && path.compare(path.size() - 4, 4, ".tsv") == 0;
}

void check_table_path(const std::string& path, const std::string& option) {
  output::check_writable(path, option, !table_is_text(path));
}

struct TableWriter::Impl {
  TableLayout layout;
  bool text = false;
  unsigned threads = 1;
  std::string where;  // "--per-vertex 'PATH'" for messages: the user's path, never the temporary
  std::unique_ptr<output::OutputFile> out;
  int writeback_fd = -1;  // the temporary's descriptor (HDF5: the library's), for early writeback; -1 in place
  Hdf5Handle file;
  std::vector<Hdf5Handle> sets;  // HDF5: one dataset per column

  // Shared with the writer thread (under m).
  std::mutex m;
  std::condition_variable changed;
  struct Queued {
    std::size_t first = 0;  // the batch's first column
    TableBatch batch;
  };
  std::deque<Queued> queue;
  std::vector<Queued> spares;  // written batches, their buffers for the caller's next ones
  bool busy = false, stop = false;
  std::string error;  // the first write error; the table is lost once set
  std::thread thread;

  // The writer thread's own.
  std::uint64_t rows = 0, bytes = 0;   // rows: text's, or column 0's
  std::vector<std::uint64_t> column_rows;  // HDF5: each column's length
  double seconds = 0;
  std::vector<TextPiece> pieces[2];  // text: two rounds' buffers (one formatted while the other is written)

  void write(std::size_t first_column, const TableBatch& batch) {
    const std::size_t n = batch_rows(batch);
    TRICOUNT_EXPECTS(first_column + batch.size() <= layout.columns.size() &&
                         (!text || (first_column == 0 && batch.size() == layout.columns.size())),
                     where + ": a batch of " + std::to_string(batch.size()) + " columns from column " +
                         std::to_string(first_column) + " for a table of " + std::to_string(layout.columns.size()));
    for (std::size_t c = 0; c < batch.size(); ++c)
      TRICOUNT_EXPECTS(type_of(batch[c]) == layout.columns[first_column + c].type &&
                           std::visit([](const auto& v) { return v.size(); }, batch[c]) == n,
                       where + ": column '" + layout.columns[first_column + c].name + "' of a batch has another type or length");
    if (n == 0) return;
    if (text) {
      // Rounds of up to `threads` pieces formatted at once, written in order by one more
      // thread while the next round is formatted (two sets of buffers, used in turn).
      for (auto& set : pieces) set.resize(threads);
      const std::size_t rounds = (n + threads * kRowsPerPiece - 1) / (threads * kRowsPerPiece);
      unsigned written = 0;  // pieces of the round before, to write
      const auto write_round = [&](const std::vector<TextPiece>& round) {
        for (unsigned t = 0; t < written; ++t) {
          out->write(std::string_view(round[t].data.get(), round[t].size));
          bytes += round[t].size;
        }
      };
      for (std::size_t r = 0; r < rounds; ++r) {
        const std::size_t first = r * threads * kRowsPerPiece;
        const auto use = static_cast<unsigned>(std::min<std::size_t>(threads, (n - first + kRowsPerPiece - 1) / kRowsPerPiece));
        std::vector<TextPiece>& round = pieces[r % 2];
        const std::vector<TextPiece>& before = pieces[(r + 1) % 2];
        parallel_for(use + (written > 0 ? 1 : 0), [&](unsigned t) {
          if (t == use) return write_round(before);
          const std::size_t from = first + t * kRowsPerPiece;
          format_rows(batch, from, std::min(n, from + kRowsPerPiece), round[t]);
        });
        written = use;
      }
      write_round(pieces[(rounds + 1) % 2]);
    } else {
      for (std::size_t b = 0; b < batch.size(); ++b) {
        const auto lock = hdf5_lock();  // a column at a time: the count's own HDF5 calls go in between
        const std::size_t c = first_column + b;
        const hsize_t size[1] = {column_rows[c] + n}, start[1] = {column_rows[c]}, count[1] = {n};
        const char* name = layout.columns[c].name.c_str();
        const hid_t set = sets[c].get();
        h5_check_status(H5Dset_extent(set, size), where + ": cannot extend dataset '" + name + "'");
        Hdf5Handle fspace(h5_check(H5Dget_space(set), where + ": H5Dget_space"), H5Sclose);
        h5_check_status(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
                        where + ": H5Sselect_hyperslab");
        Hdf5Handle mspace(h5_check(H5Screate_simple(1, count, nullptr), where + ": H5Screate_simple"), H5Sclose);
        const TableType type = layout.columns[c].type;
        const void* data = std::visit([](const auto& v) { return static_cast<const void*>(v.data()); }, batch[b]);
        errno = 0;
        check_written(H5Dwrite(set, memory_type(type), mspace.get(), fspace.get(), H5P_DEFAULT, data),
                      "cannot write " + where + ": dataset '" + name + "' (disk full?)");
        bytes += n * value_bytes(type);
        column_rows[c] += n;
      }
    }
    rows = text ? rows + n : column_rows[0];
    // The disk starts on these rows now, while the next batch is prepared, rather than all
    // at the fsync of finish() (the kernel would wait for gigabytes of dirty pages first). A
    // hint: its errors (a file system without it) are the fsync's to report.
    if (writeback_fd >= 0) ::sync_file_range(writeback_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
  }

  void run() {
    std::unique_lock lock(m);
    for (;;) {
      changed.wait(lock, [&] { return stop || !queue.empty(); });
      if (queue.empty()) return;  // stop, and nothing left
      Queued next = std::move(queue.front());
      queue.pop_front();
      if (!error.empty()) continue;  // the table is lost: the rest is dropped
      busy = true;
      lock.unlock();
      std::string failure;
      const auto t0 = std::chrono::steady_clock::now();
      try {
        write(next.first, next.batch);
      } catch (const std::exception& e) {
        failure = e.what();
      }
      seconds += seconds_since(t0);
      lock.lock();
      // The newest kept: batches of other columns (appended earlier) make way for them.
      spares.push_back(std::move(next));
      if (spares.size() > kTableQueuedBatches) spares.erase(spares.begin());
      busy = false;
      if (!failure.empty() && error.empty()) error = failure;
      changed.notify_all();
    }
  }

  // A failed HDF5 write, flush or close (errno cleared before it): the error its POSIX driver
  // met, as every output names it (src/output_file: the user's path, where to free space),
  // else `what`.
  void check_written(herr_t status, const std::string& what) const {
    if (status >= 0) return;
    if (errno != 0) output::throw_output_write_error(out->path(), errno, layout.option);
    throw Error(what);
  }

  // Waits until the writer thread is idle with nothing queued.
  void drain() {
    std::unique_lock lock(m);
    changed.wait(lock, [&] { return queue.empty() && !busy; });
  }

  void end_thread() {
    if (!thread.joinable()) return;
    {
      std::lock_guard lock(m);
      stop = true;
      if (!error.empty()) queue.clear();
    }
    changed.notify_all();
    thread.join();
  }

  void close_hdf5() {
    const auto lock = hdf5_lock();
    sets.clear();
    file.reset();
  }
};

TableWriter::TableWriter(const std::string& path, const TableLayout& layout, unsigned threads)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.layout = layout;
  s.text = table_is_text(path);
  // What an earlier run killed outright (SIGKILL, a lost node) left beside the table: its
  // temporaries, of processes gone, that start as this table does.
  output::remove_stale_temps(path, s.text ? std::string_view(layout.text_header).substr(0, 16) : output::kHdf5Signature);
  s.threads = std::max(1u, threads);
  if (s.text) {
    s.out = std::make_unique<output::OutputFile>(path, layout.option);
    s.where = layout.option + " '" + path + "'";
    s.out->write(layout.text_header);
    s.bytes += layout.text_header.size();
    if (!s.out->in_place()) s.writeback_fd = s.out->fd();
  } else {
    const auto lock = hdf5_lock();
    try {
      s.out = std::make_unique<output::OutputFile>(path, layout.option, [&](const std::string& temp) {
        errno = 0;
        s.file = Hdf5Handle(H5Fcreate(temp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        if (s.file.valid()) return true;
        const int err = errno;
        struct stat st {};
        if (::lstat(temp.c_str(), &st) == 0) return false;  // the name is taken: another one
        throw Error("cannot create '" + temp + "' (for " + layout.option + " '" + path + "'): " + std::strerror(err ? err : EIO));
      });
      s.where = layout.option + " '" + path + "'";
      const hid_t f = s.file.get();
      void* handle = nullptr;  // the POSIX driver's descriptor (HDF5's default driver)
      if (!s.out->in_place() && H5Fget_vfd_handle(f, H5P_DEFAULT, &handle) >= 0 && handle)
        s.writeback_fd = *static_cast<int*>(handle);
      for (const auto& [name, value] : layout.attributes) write_attribute_string(f, name.c_str(), value, s.where);
      for (const auto& [name, value] : layout.u64_attributes) write_attribute_u64(f, name.c_str(), value, s.where);
      // Chunked to grow; no filter; no fill values (every row is written); big chunks, but
      // none larger than the table.
      const hsize_t chunk[1] = {std::clamp<std::uint64_t>(layout.rows_hint, 1, kMaxChunkRows)};
      const hsize_t dims[1] = {0}, max_dims[1] = {H5S_UNLIMITED};
      Hdf5Handle space(h5_check(H5Screate_simple(1, dims, max_dims), s.where + ": H5Screate_simple"), H5Sclose);
      Hdf5Handle dcpl(h5_check(H5Pcreate(H5P_DATASET_CREATE), s.where + ": H5Pcreate"), H5Pclose);
      h5_check_status(H5Pset_chunk(dcpl.get(), 1, chunk), s.where + ": H5Pset_chunk");
      h5_check_status(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), s.where + ": H5Pset_fill_time");
      for (const TableColumn& column : layout.columns)
        s.sets.emplace_back(h5_check(H5Dcreate2(f, column.name.c_str(), file_type(column.type), space.get(), H5P_DEFAULT,
                                                dcpl.get(), H5P_DEFAULT),
                                     s.where + ": cannot create dataset '" + column.name + "'"),
                            H5Dclose);
      s.column_rows.assign(layout.columns.size(), 0);
    } catch (...) {
      // Closed here, under the lock (the destructor would close them without it, beside
      // other threads' HDF5 calls); the OutputFile then removes the temporary.
      s.sets.clear();
      s.file.reset();
      throw;
    }
  }
  s.thread = std::thread([&s] { s.run(); });
}

TableWriter::~TableWriter() {
  Impl& s = *impl_;
  {
    std::lock_guard lock(s.m);
    s.queue.clear();  // uncommitted: nothing more is worth writing
  }
  s.end_thread();
  // HDF5 identifiers close before the OutputFile removes an uncommitted temporary.
  s.close_hdf5();
  s.out.reset();
}

void TableWriter::append(TableBatch batch) { append_columns(0, std::move(batch)); }

void TableWriter::append_columns(std::size_t first_column, TableBatch batch) {
  Impl& s = *impl_;
  TRICOUNT_EXPECTS(!s.text || first_column == 0, s.where + ": a text table takes whole rows");
  std::unique_lock lock(s.m);
  s.changed.wait(lock, [&] { return s.queue.size() < kTableQueuedBatches || !s.error.empty(); });
  if (!s.error.empty()) throw Error(s.error);
  s.queue.push_back({first_column, std::move(batch)});
  s.changed.notify_all();
}

TableBatch TableWriter::take_spare(std::size_t first_column) {
  Impl& s = *impl_;
  std::lock_guard lock(s.m);
  const auto it = std::find_if(s.spares.begin(), s.spares.end(), [&](const Impl::Queued& q) { return q.first == first_column; });
  if (it == s.spares.end()) return {};
  TableBatch spare = std::move(it->batch);
  s.spares.erase(it);
  return spare;
}

void TableWriter::finish() {
  Impl& s = *impl_;
  s.drain();
  s.end_thread();
  if (!s.error.empty()) throw Error(s.error);
  const auto t0 = std::chrono::steady_clock::now();
  if (!s.text) {
    const auto lock = hdf5_lock();
    errno = 0;
    s.check_written(H5Fflush(s.file.get(), H5F_SCOPE_LOCAL), "cannot write " + s.where + " (disk full?)");
  }
  s.out->sync();
  s.seconds += seconds_since(t0);
  for (std::size_t c = 1; c < s.column_rows.size(); ++c)
    if (s.column_rows[c] != s.column_rows[0])
      throw Error(s.where + ": column '" + s.layout.columns[c].name + "' has " + std::to_string(s.column_rows[c]) +
                  " rows where '" + s.layout.columns[0].name + "' has " + std::to_string(s.column_rows[0]) +
                  " (an internal error: please report it)");
}

void TableWriter::commit(const TableAttributes& attributes) {
  Impl& s = *impl_;
  TRICOUNT_EXPECTS(!s.thread.joinable(), s.where + ": commit() before finish()");
  if (!s.text) {
    auto lock = hdf5_lock();
    const hid_t f = s.file.get();
    for (const auto& [name, value] : attributes.u64) write_attribute_u64(f, name.c_str(), value, s.where);
    for (const auto& [name, value] : attributes.f64) write_attribute_double(f, name.c_str(), value, s.where);
    s.sets.clear();
    // The flush finds a full disk while the file is still ours to close (the destructor).
    errno = 0;
    s.check_written(H5Fflush(f, H5F_SCOPE_LOCAL), "cannot write " + s.where + " (disk full?)");
    errno = 0;
    const herr_t closed = H5Fclose(s.file.get());
    s.file.release();  // closed, or left to HDF5 (which keeps a file whose close failed)
    s.check_written(closed, "cannot close " + s.where + " (disk full?)");
  }
  s.out->commit();
}

std::uint64_t TableWriter::rows() const { return impl_->rows; }
std::uint64_t TableWriter::bytes() const { return impl_->bytes; }
double TableWriter::write_seconds() const { return impl_->seconds; }
const std::string& TableWriter::path() const { return impl_->out->path(); }
const std::string& TableWriter::write_path() const { return impl_->out->write_path(); }

}  // namespace tricount
