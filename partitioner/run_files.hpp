// Sorted runs for the partition pipeline (partitioner/pipeline.hpp): fixed-size
// records written and read sequentially through bounded buffers, in files on disk or, when
// the pipeline keeps its runs in memory, in anonymous memory files (memfd) behind the same
// names and calls, k-way merges cut
// into key ranges so that every thread merges its own range, the scratch directory (removed
// on exit, on error and on SIGTERM/SIGINT/SIGHUP; a dead process's is removed by the next
// run), and a parallel-for that passes exceptions on.
//
// Every count and offset here is 64-bit: a run may hold more than 2^32 records.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "src/output_file.hpp"
#include "src/threads.hpp"
#include "src/types.hpp"

namespace tricount::runs {

// ---- threads --------------------------------------------------------------------------

// The fork-join helper of src/threads.hpp (exceptions carried to the caller).
using tricount::parallel_for;

// Ranges [cut[t], cut[t+1]) of `size` records, one for each of `parts` threads.
inline std::vector<std::uint64_t> even_cuts(std::uint64_t size, unsigned parts) {
  std::vector<std::uint64_t> cut(parts + 1);
  for (unsigned t = 0; t <= parts; ++t) cut[t] = static_cast<std::uint64_t>((static_cast<unsigned __int128>(size) * t) / parts);
  return cut;
}

// ---- files ----------------------------------------------------------------------------

// Bytes written to scratch files by this process so far (for statistics).
std::uint64_t scratch_bytes_written();

// "cannot write temporary file 'P': No space left on device (disk full? ...)", the advice for
// a scratch file (free space, or a larger --tmpdir).
[[noreturn]] void throw_write_error(const std::string& path, int err);
// The same for the block file being written beside `output` under a temporary name: the
// message names the output and its folder, where the space is missing (not --tmpdir); one
// definition for every output (src/output_file.hpp).
using output::throw_output_write_error;
[[noreturn]] void throw_read_error(const std::string& path, int err);

void write_all(int fd, const void* data, std::size_t bytes, const std::string& path);
void pwrite_all(int fd, const void* data, std::size_t bytes, std::uint64_t offset, const std::string& path);
// pwrite_all into the temporary of `output` (fd); its errors are throw_output_write_error's.
void pwrite_output(int fd, const void* data, std::size_t bytes, std::uint64_t offset, const std::string& output);
void pread_all(int fd, void* data, std::size_t bytes, std::uint64_t offset, const std::string& path);

// Page-aligned memory of its own mapping (map_pages), freed with unmap_pages; a thread fills
// in its part's pages with one call (populate_pages) and gives them back with another
// (release_pages). 64 threads touching fresh buffers page by page waited on the process's
// memory-map lock at every fault, behind every other thread's mmap and munmap
// (bench/notes/partitioner-passes.md); a merge now maps once, before its threads start.
// No huge pages asked for: see src/block_memory.hpp.
inline constexpr std::size_t kPageBytes = 4096;
void* map_pages(std::size_t bytes);
void unmap_pages(void* data, std::size_t bytes) noexcept;
void populate_pages(void* data, std::size_t bytes);       // data page-aligned
void release_pages(void* data, std::size_t bytes) noexcept;  // data page-aligned

// An I/O buffer whose records are not zero-filled: a writer or cursor touches only the pages
// it fills (zero-filling 4 MB per writer and cursor took 80% of a 4-edge partition's 1.1 CPU
// seconds at --parts 4). `mapped`: a mapping of its own (map_pages), page-aligned, its pages
// filled in by whoever uses them (populate_pages).
template <class T>
class IoBuffer {
  static_assert(std::is_trivially_copyable_v<T>);
  struct Free {
    std::size_t mapped_bytes = 0;  // 0: from new[]
    void operator()(T* p) const noexcept {
      if (mapped_bytes) unmap_pages(p, mapped_bytes);
      else delete[] p;
    }
  };

 public:
  IoBuffer() = default;
  explicit IoBuffer(std::size_t records, bool mapped = false) : size_(records) {
    const std::size_t bytes = std::max<std::size_t>(1, records) * sizeof(T);
    if (mapped) data_ = {static_cast<T*>(map_pages(bytes)), Free{bytes}};
    else data_ = {new T[records], Free{}};
  }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  void release() {
    data_.reset();
    size_ = 0;
  }

 private:
  std::unique_ptr<T[], Free> data_;
  std::size_t size_ = 0;
};

// A file written sequentially through a buffer. close() flushes and reports errors; the
// destructor closes without reporting (an exception is already on its way).
class FileWriter {
 public:
  FileWriter() = default;
  FileWriter(const std::string& path, std::size_t buffer_bytes);
  ~FileWriter();
  FileWriter(FileWriter&& o) noexcept { *this = std::move(o); }
  FileWriter& operator=(FileWriter&& o) noexcept;
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  void write(const void* data, std::size_t bytes);
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (used_ + sizeof(T) > buf_.size()) flush();
    std::memcpy(buf_.data() + used_, &value, sizeof(T));
    used_ += sizeof(T);
    total_ += sizeof(T);
  }
  std::uint64_t bytes() const { return total_; }
  const std::string& path() const { return path_; }
  void close();

 private:
  void flush();
  int fd_ = -1;
  std::string path_;
  IoBuffer<char> buf_;
  std::size_t used_ = 0;
  std::uint64_t total_ = 0;
};

// Writes a whole array to a new file (no extra buffer).
void write_file(const std::string& path, const void* data, std::size_t bytes);

// Creates (or truncates) a scratch file for writing and returns its descriptor: a file on
// disk, or a memory file when `path` is inside a ScratchDir held in memory.
int create_scratch_file(const std::string& path);
// Closes a descriptor of create_scratch_file once written (a memory file's bytes are counted
// then, as FileWriter::close counts them); throws naming `path` when the close fails.
void close_scratch_file(const std::string& path, int fd);
// Deletes a scratch file (on disk or in memory); a missing one is ignored.
void remove_scratch_file(const std::string& path);
// Bytes held in memory files now, and the most held at once so far (for statistics).
std::uint64_t memory_run_bytes();
std::uint64_t peak_memory_run_bytes();

// Descriptors shared by readers (pread on one descriptor is safe from several threads).
class FilePool {
 public:
  FilePool() = default;
  ~FilePool();
  FilePool(const FilePool&) = delete;
  FilePool& operator=(const FilePool&) = delete;
  int fd(const std::string& path);
  void forget(const std::string& path);  // closes it (before the file is deleted)

 private:
  std::shared_mutex m_;
  std::unordered_map<std::string, int> fds_;
};

// ---- sorted runs ----------------------------------------------------------------------

// `count` records of a record file, starting at record `first`.
struct Span {
  std::string path;
  std::uint64_t first = 0;
  std::uint64_t count = 0;
};

// Frees a vector's memory. `v = {}` does not: it picks the initializer-list assignment,
// which empties the vector and keeps its capacity (the pipeline held 12 bytes a
// vertex past their use that way, 24 MB over --memory-budget for 2 million vertices).
template <class T, class Allocator>
void release(std::vector<T, Allocator>& v) {
  std::vector<T, Allocator>().swap(v);
}

// A sorted (non-decreasing) sequence of records stored as a concatenation of spans.
struct Run {
  std::vector<Span> spans;
  std::uint64_t size() const {
    std::uint64_t s = 0;
    for (const Span& p : spans) s += p.count;
    return s;
  }
  void append(Span s) {
    if (s.count) spans.push_back(std::move(s));
  }
};

// Deletes the files of the runs (closing them in the pool first), on up to `threads`
// threads; ignores missing files.
void remove_run_files(const std::vector<Run>& runs, FilePool& pool, unsigned threads = 1);

// Records [index, index + count) of a run into `out`, with pread (for sampling and search).
template <class T>
void read_records(FilePool& pool, const Run& run, std::uint64_t index, std::uint64_t count, T* out) {
  for (const Span& s : run.spans) {
    if (count == 0) return;
    if (index >= s.count) {
      index -= s.count;
      continue;
    }
    const std::uint64_t n = std::min(count, s.count - index);
    pread_all(pool.fd(s.path), out, n * sizeof(T), (s.first + index) * sizeof(T), s.path);
    out += n;
    count -= n;
    index = 0;
  }
  if (count) throw Error("read_records: index past the end of a run");
}

template <class T>
T read_record(FilePool& pool, const Run& run, std::uint64_t index) {
  T value;
  read_records(pool, run, index, 1, &value);
  return value;
}

// First index in [lo, hi) of `run` whose record is not less than `key`: a binary search of
// one pread a probe down to a few KiB, then those records in one read.
template <class T, class Less>
std::uint64_t run_lower_bound(FilePool& pool, const Run& run, std::uint64_t lo, std::uint64_t hi, const T& key,
                              Less less) {
  constexpr std::uint64_t kReadAtOnce = std::max<std::uint64_t>(1, 8192 / sizeof(T));
  while (hi - lo > kReadAtOnce) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (less(read_record<T>(pool, run, mid), key)) lo = mid + 1;
    else hi = mid;
  }
  if (lo == hi) return lo;
  T buf[kReadAtOnce];
  read_records(pool, run, lo, hi - lo, buf);
  return lo + static_cast<std::uint64_t>(std::partition_point(buf, buf + (hi - lo), [&](const T& x) { return less(x, key); }) - buf);
}

// Reads records [begin, end) of a run in order through a buffer.
template <class T>
class RunCursor {
 public:
  // A buffer of its own, no larger than the range.
  RunCursor(FilePool& pool, const Run& run, std::uint64_t begin, std::uint64_t end, std::size_t buffer_records)
      : RunCursor(pool, run, begin, end, nullptr, buffer_records) {}
  // Reads through `storage` (records of the caller's, at least one; null: its own).
  RunCursor(FilePool& pool, const Run& run, std::uint64_t begin, std::uint64_t end, T* storage, std::size_t buffer_records)
      : pool_(&pool), run_(&run), left_(end - begin),
        cap_(static_cast<std::size_t>(std::clamp<std::uint64_t>(end - begin, 1, std::max<std::size_t>(1, buffer_records)))) {
    if (storage) buf_ = storage;
    else {
      own_ = IoBuffer<T>(cap_);
      buf_ = own_.data();
    }
    std::uint64_t skip = begin;
    while (span_ < run.spans.size() && skip >= run.spans[span_].count) skip -= run.spans[span_++].count;
    in_span_ = skip;
    fill();
  }
  bool empty() const { return pos_ == len_; }
  const T& head() const { return buf_[pos_]; }
  void pop() {
    if (++pos_ == len_) fill();
  }
  // Hands out up to `max` records at once (for sequential consumers); 0 at the end.
  std::size_t take(const T*& data, std::size_t max) {
    if (pos_ == len_) return 0;
    const std::size_t n = std::min(max, len_ - pos_);
    data = buf_ + pos_;
    pos_ += n;
    if (pos_ == len_) pending_refill_ = true;
    return n;
  }
  // After take() emptied the buffer: refill before the next take (the data handed out stays
  // valid until then).
  void refill_if_needed() {
    if (pending_refill_) {
      pending_refill_ = false;
      fill();
    }
  }

 private:
  void fill() {
    pos_ = len_ = 0;
    while (left_ > 0 && span_ < run_->spans.size()) {
      const Span& s = run_->spans[span_];
      if (in_span_ == s.count) {
        ++span_;
        in_span_ = 0;
        continue;
      }
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>({cap_, s.count - in_span_, left_}));
      pread_all(pool_->fd(s.path), buf_, n * sizeof(T), (s.first + in_span_) * sizeof(T), s.path);
      in_span_ += n;
      left_ -= n;
      len_ = n;
      return;
    }
  }
  FilePool* pool_;
  const Run* run_;
  std::uint64_t left_;
  std::size_t span_ = 0;
  std::uint64_t in_span_ = 0;
  std::size_t cap_;  // records of buf_
  IoBuffer<T> own_;
  T* buf_ = nullptr;  // own_'s, or the caller's
  std::size_t pos_ = 0, len_ = 0;
  bool pending_refill_ = false;
};

// Merges cursors into one non-decreasing stream: a tournament (loser) tree over the
// cursors' head records, held in one array, so that each record costs log2(k) comparisons
// on that array (a binary heap took two per level, each through its cursor's buffer: the
// merge was the slowest stage on the GPU host).
template <class T, class Less>
class MergeStream {
 public:
  MergeStream(std::vector<RunCursor<T>> cursors, Less less) : cur_(std::move(cursors)), less_(less) {
    const std::size_t k = cur_.size();
    head_.resize(k);
    done_.assign(k, 0);
    for (std::size_t c = 0; c < k; ++c) {
      if (cur_[c].empty()) done_[c] = 1;
      else head_[c] = cur_[c].head();
    }
    if (k == 0) return;
    // 1. Leaves k..2k-1 are the cursors; node n's winner plays its sibling's, bottom up;
    //    the loser stays in the node, the winner goes up; node 0 holds the overall winner.
    loser_.assign(k, 0);
    std::vector<unsigned> winner(2 * k);
    for (std::size_t c = 0; c < k; ++c) winner[k + c] = static_cast<unsigned>(c);
    for (std::size_t n = k - 1; n >= 1; --n) {
      const unsigned a = winner[2 * n], b = winner[2 * n + 1];
      const bool a_wins = beats(a, b);
      winner[n] = a_wins ? a : b;
      loser_[n] = a_wins ? b : a;
    }
    loser_[0] = winner[1];  // k == 1: the one leaf
  }
  bool next(T& out) {
    if (cur_.empty()) return false;
    unsigned w = loser_[0];
    if (done_[w]) return false;
    out = head_[w];
    // 2. Advance the winner's cursor, then replay its path to the root.
    RunCursor<T>& c = cur_[w];
    c.pop();
    if (c.empty()) done_[w] = 1;
    else head_[w] = c.head();
    const std::size_t k = cur_.size();
    for (std::size_t n = (k + w) >> 1; n >= 1; n >>= 1)
      if (beats(loser_[n], w)) std::swap(loser_[n], w);
    loser_[0] = w;
    return true;
  }

 private:
  // Whether cursor a's head comes before cursor b's (an exhausted cursor comes last; ties go
  // to the lower index, so that the order is that of a stable merge).
  bool beats(unsigned a, unsigned b) const {
    if (done_[a]) return false;
    if (done_[b]) return true;
    if (less_(head_[a], head_[b])) return true;
    if (less_(head_[b], head_[a])) return false;
    return a < b;
  }
  std::vector<RunCursor<T>> cur_;
  std::vector<T> head_;
  std::vector<unsigned char> done_;
  std::vector<unsigned> loser_;
  Less less_;
};

// Cuts the merge of `runs` into `parts` key ranges of similar size by sampling. `adjust`
// maps a sampled key to a cut key (e.g. the start of its row). Returns the cut keys (parts-1)
// and bounds[p][r], p in [0, parts]: range p of run r is [bounds[p][r], bounds[p+1][r]).
// A range starts at the first record not less than its cut key, so equal records never
// straddle two ranges: a merge that drops duplicates sees all copies of a key in one range.
template <class T>
struct MergeCuts {
  std::vector<T> keys;
  std::vector<std::vector<std::uint64_t>> bounds;
};

// fn(r) for every run index r in [0, runs), on up to `threads` threads taking them in turn.
template <class Fn>
void for_each_run(std::size_t runs, unsigned threads, Fn fn) {
  std::atomic<std::size_t> next{0};
  parallel_for(static_cast<unsigned>(std::clamp<std::size_t>(runs, 1, std::max(1u, threads))), [&](unsigned) {
    for (std::size_t r; (r = next.fetch_add(1)) < runs;) fn(r);
  });
}

template <class T, class Less, class Adjust>
MergeCuts<T> cut_runs(FilePool& pool, const std::vector<Run>& runs, unsigned parts, Less less, Adjust adjust) {
  MergeCuts<T> cuts;
  std::vector<std::uint64_t> sizes(runs.size());
  std::uint64_t total = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) total += sizes[r] = runs[r].size();
  cuts.bounds.assign(parts + 1, std::vector<std::uint64_t>(runs.size(), 0));
  cuts.bounds[parts] = sizes;
  if (parts <= 1 || total == 0) {
    // Nothing to cut: every record in part 0, the others empty (all cut keys T{}).
    for (unsigned p = 1; p < parts; ++p) cuts.bounds[p] = sizes;
    if (parts > 1) cuts.keys.assign(parts - 1, T{});
    return cuts;
  }
  // Sample each run at evenly spaced positions; each sample stands for size/m records.
  struct Sample {
    T key;
    double weight;
  };
  // Every sample and every probe of the bounds is a pread (runs x parts of them, serial
  // before: a cost that grew with the threads), so `parts` threads take the runs in turn;
  // the cuts are the same as one thread's.
  const std::uint64_t per_run = std::uint64_t{32} * parts;
  std::vector<std::vector<Sample>> run_samples(runs.size());
  std::vector<std::vector<std::uint64_t>> sample_at(runs.size());  // their positions in the run
  for_each_run(runs.size(), parts, [&](std::size_t r) {
    if (sizes[r] == 0) return;
    const std::uint64_t m = std::min<std::uint64_t>(sizes[r], per_run);
    run_samples[r].reserve(m);
    for (std::uint64_t s = 0; s < m; ++s) {
      const std::uint64_t at = std::min(static_cast<std::uint64_t>((static_cast<long double>(s) + 0.5L) * sizes[r] / m), sizes[r] - 1);
      run_samples[r].push_back({read_record<T>(pool, runs[r], at), double(sizes[r]) / double(m)});
      sample_at[r].push_back(at);
    }
  });
  std::vector<Sample> samples;
  for (const std::vector<Sample>& rs : run_samples) samples.insert(samples.end(), rs.begin(), rs.end());
  std::sort(samples.begin(), samples.end(), [&](const Sample& a, const Sample& b) { return less(a.key, b.key); });
  double acc = 0;
  std::size_t s = 0;
  for (unsigned p = 1; p < parts; ++p) {
    const double want = double(total) * p / parts;
    while (s + 1 < samples.size() && acc + samples[s].weight < want) acc += samples[s++].weight;
    T key = adjust(samples[s].key);
    if (!cuts.keys.empty() && less(key, cuts.keys.back())) key = cuts.keys.back();
    cuts.keys.push_back(key);
  }
  // Each run's bounds, in key order, searched between the run's two samples around the cut
  // key (records up to a sample less than the key are less; from one not less, not less).
  for_each_run(runs.size(), parts, [&](std::size_t r) {
    const std::vector<Sample>& rs = run_samples[r];
    for (unsigned p = 1; p < parts; ++p) {
      const T& key = cuts.keys[p - 1];
      const std::size_t j = static_cast<std::size_t>(
          std::partition_point(rs.begin(), rs.end(), [&](const Sample& x) { return less(x.key, key); }) - rs.begin());
      const std::uint64_t lo = std::max(cuts.bounds[p - 1][r], j > 0 ? sample_at[r][j - 1] + 1 : 0);
      const std::uint64_t hi = std::max(lo, j < rs.size() ? sample_at[r][j] : sizes[r]);
      cuts.bounds[p][r] = run_lower_bound(pool, runs[r], lo, hi, key, less);
    }
  });
  return cuts;
}

// Per-range context handed to a parallel merge's body.
template <class T>
struct MergeRange {
  unsigned part = 0;
  std::uint64_t first = 0;       // records of all runs before this range
  std::uint64_t count = 0;       // records in this range
  const T* lo_key = nullptr;     // range is [lo_key, hi_key); null: unbounded
  const T* hi_key = nullptr;
};

// Merges `runs` with `threads` threads, each over its own key range: body(range, stream) is
// called once per thread with a MergeStream over that range. Ranges are in key order.
template <class T, class Less, class Adjust, class Body>
void parallel_merge(FilePool& pool, const std::vector<Run>& runs, unsigned threads, std::size_t cursor_bytes, Less less,
                    Adjust adjust, Body body) {
  threads = std::max(1u, threads);
  const MergeCuts<T> cuts = cut_runs<T>(pool, runs, threads, less, adjust);
  const std::size_t cursor_records = std::max<std::size_t>(1, cursor_bytes / sizeof(T));
  // The cursors' buffers, each no larger than its range: one mapping for all threads, mapped
  // before they start; thread t's part starts on a page of its own.
  auto buffer_of = [&](unsigned t, std::size_t r) {
    return static_cast<std::size_t>(std::min<std::uint64_t>(cursor_records, cuts.bounds[t + 1][r] - cuts.bounds[t][r]));
  };
  constexpr std::size_t kPageRecords = std::max<std::size_t>(1, kPageBytes / sizeof(T));
  static_assert(kPageBytes % sizeof(T) == 0, "records must not straddle pages");
  std::vector<std::size_t> arena_first(threads + 1, 0);
  for (unsigned t = 0; t < threads; ++t) {
    std::size_t records = 0;
    for (std::size_t r = 0; r < runs.size(); ++r) records += buffer_of(t, r);
    arena_first[t + 1] = arena_first[t] + (records + kPageRecords - 1) / kPageRecords * kPageRecords;
  }
  IoBuffer<T> arena(arena_first[threads], true);
  parallel_for(threads, [&](unsigned t) {
    MergeRange<T> range;
    range.part = t;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      range.first += cuts.bounds[t][r];
      range.count += cuts.bounds[t + 1][r] - cuts.bounds[t][r];
    }
    range.lo_key = t > 0 ? &cuts.keys[t - 1] : nullptr;
    range.hi_key = t + 1 < threads ? &cuts.keys[t] : nullptr;
    T* const mine = arena.data() + arena_first[t];
    const std::size_t mine_bytes = (arena_first[t + 1] - arena_first[t]) * sizeof(T);
    populate_pages(mine, mine_bytes);
    T* next_buffer = mine;
    std::vector<RunCursor<T>> cursors;
    cursors.reserve(runs.size());
    for (std::size_t r = 0; r < runs.size(); ++r)
      if (const std::size_t records = buffer_of(t, r)) {
        cursors.emplace_back(pool, runs[r], cuts.bounds[t][r], cuts.bounds[t + 1][r], next_buffer, records);
        next_buffer += records;
      }
    MergeStream<T, Less> stream(std::move(cursors), less);
    body(range, stream);
    release_pages(mine, mine_bytes);  // freed on this thread, not by the one munmap after
  });
}

// ---- scratch directory and cleanup ------------------------------------------------------

// $TMPDIR, else /tmp.
std::string default_tmpdir();

// A private directory "tricount-partition-<host>-<pid>-<random>" under `parent`, removed with everything
// in it by the destructor, and by the signal watcher (install_signal_cleanup) on SIGTERM,
// SIGINT or SIGHUP. Creating one first removes stale ones of processes that no longer run.
// `in_memory`: nothing is made on disk; its files are memory files named
// "memory:tricount-partition-<pid>-<k>/...", freed by the destructor (and by the kernel when
// the process ends, however it ends).
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& parent, bool in_memory = false);
  bool in_memory() const { return in_memory_; }
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string new_file(const std::string& stem);  // a fresh name inside (not created)
  std::uint64_t free_bytes() const;               // free space on its filesystem

 private:
  std::string path_;
  bool in_memory_ = false;
  std::atomic<std::uint64_t> counter_{0};
};

// Removes "tricount-partition-<host>-<pid>-*" directories in `parent` that are provably
// stale: made on this host, by our user, by a process that no longer runs. Returns how many.
std::size_t remove_stale_scratch_dirs(const std::string& parent);

// The signal cleanup and the registry of temporary paths live with the output files
// (src/output_file.hpp), shared by every program.
using output::install_signal_cleanup;
using output::interrupted;
using output::process_alive;
using output::register_cleanup_path;
using output::unregister_cleanup_path;
using output::wait_if_interrupted;

}  // namespace tricount::runs
