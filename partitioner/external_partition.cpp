// External-memory partitioner: see external_partition.hpp for the stages. Each stage is a
// member function of Pipeline named after its step; the results are those of partition.cpp
// (same compact ids, orientation, order, blocks, vertex map and task work).
#include "partitioner/external_partition.hpp"

#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <limits>
#include <fstream>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <thread>

#include "input/webgraph.hpp"
#include "partitioner/progress.hpp"
#include "partitioner/radix_sort.hpp"
#include "partitioner/run_files.hpp"
#include "src/threads.hpp"

namespace tricount {

// ---- CsrRangeBuilder -----------------------------------------------------------------

CsrRangeBuilder::CsrRangeBuilder(std::uint64_t row_lo, std::uint64_t row_hi, std::uint64_t base, std::size_t piece,
                                 Sink& sink)
    : row_lo_(row_lo),
      row_hi_(row_hi),
      row_(row_lo),
      row_start_(base),
      pos_(base),
      nbr_first_(base),
      off_first_(row_lo + 1),
      sink_(sink),
      nbr_(std::max<std::size_t>(piece, 1)),
      off_(std::max<std::size_t>(piece, 1)) {
  if (row_hi < row_lo) throw Error("CsrRangeBuilder: empty row range");
}

void CsrRangeBuilder::close_row() {
  const std::uint64_t degree = pos_ - row_start_;
  max_degree_ = std::max<std::uint32_t>(max_degree_, static_cast<std::uint32_t>(degree));
  rows_with_two_ += degree >= 2;
  off_[no_++] = pos_;
  if (no_ == off_.size()) flush_offsets();
  ++row_;
  row_start_ = pos_;
}

void CsrRangeBuilder::advance_to(std::uint64_t row) {
  if (row < row_ || row >= row_hi_)
    throw Error("CsrRangeBuilder: entry of row " + std::to_string(row) + " outside rows [" + std::to_string(row_) + ", " +
                std::to_string(row_hi_) + ") or out of order");
  while (row_ < row) close_row();
}

void CsrRangeBuilder::flush_neighbors() {
  if (nn_ == 0) return;
  sink_.neighbors(nbr_first_, nbr_.data(), nn_);
  nbr_first_ += nn_;
  nn_ = 0;
}

void CsrRangeBuilder::flush_offsets() {
  if (no_ == 0) return;
  sink_.offsets(off_first_, off_.data(), no_);
  off_first_ += no_;
  no_ = 0;
}

void CsrRangeBuilder::finish() {
  while (row_ < row_hi_) close_row();
  flush_neighbors();
  flush_offsets();
}

// ---- sizes and budget -------------------------------------------------------------------

std::uint64_t default_memory_budget() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  std::uint64_t ram = pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : (std::uint64_t{8} << 30);
  for (const char* limit_file : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(limit_file);
    std::uint64_t limit = 0;
    if (in >> limit && limit > 0 && limit < ram) ram = limit;
  }
  return std::max<std::uint64_t>(ram / 2, std::uint64_t{64} << 20);
}

std::uint64_t estimated_input_edges(const std::string& path, InputFormat format) {
  // Only the name: the content is read once, by the reader (the text formats estimate alike).
  if (format == InputFormat::Auto) format = format_from_name(path);
  if (format == InputFormat::WebGraph) return webgraph_arc_count(path);
  // A pipe, FIFO or device (/dev/stdin, <(...), /dev/zero) has no size: it may be any
  // length, so only the external path keeps it within the budget.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return 0;
  const bool gz = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  switch (format) {
    case InputFormat::Bin64: return gz ? size / 4 : size / 16;
    case InputFormat::Bin32: return gz ? size / 2 : size / 8;
    default: return gz ? size / 2 : size / 8;  // text: at least ~8 bytes a line, gzip ~4x
  }
}

namespace {

namespace fs = std::filesystem;
using ext::FilePool;
using ext::FileWriter;
using ext::MergeRange;
using ext::Run;
using ext::RunCursor;
using ext::Span;

constexpr std::size_t kMinIo = std::size_t{64} << 10;
constexpr std::size_t kMaxIo = std::size_t{4} << 20;
// A merge's cursors read at most 512 KiB at a time: Kronecker 26's clean stage (258 runs, 16
// threads) took 15.4 s with 2 MiB per cursor (--memory-budget 16G: 8 GB of cursor buffers)
// and 13.9 s with 0.5 MiB (4G), on the GPU host.
constexpr std::size_t kMaxCursorIo = std::size_t{512} << 10;
// Runs of 2^22 edges: Kronecker 26 makes 256 and a few; with a cap of 256 those took a second
// merge pass over all the edges (17 GB more read and written; measured on the GPU host).
constexpr std::size_t kMaxFanin = 1024;

// Open files this process may have (after raise_open_file_limit); a merge holds one or two per run.
std::size_t open_file_limit() {
  struct rlimit r {};
  if (::getrlimit(RLIMIT_NOFILE, &r) != 0) return 1024;
  return r.rlim_cur == RLIM_INFINITY ? std::size_t{1} << 20 : static_cast<std::size_t>(r.rlim_cur);
}

struct EdgeLess {
  bool operator()(const RawEdge& a, const RawEdge& b) const { return a.u != b.u ? a.u < b.u : a.v < b.v; }
};
struct KeyLess {
  bool operator()(std::uint64_t a, std::uint64_t b) const { return a < b; }
};
struct Same {
  template <class T>
  T operator()(const T& x) const { return x; }
};
struct RowStart {  // a cut between blocks' rows never splits a row
  std::uint64_t operator()(std::uint64_t key) const { return key & ~std::uint64_t{0xFFFFFFFF}; }
};

std::string mib(std::uint64_t bytes) {
  char buf[32];
  const double m = double(bytes) / (1 << 20);
  std::snprintf(buf, sizeof buf, m < 10 && m != std::floor(m) ? "%.1f MiB" : "%.0f MiB", m);
  return buf;
}

// The read position of an input file over its size, found through /proc (Linux); -1 when
// it cannot tell. Works for compressed input too: the position is in the compressed file.
std::function<double()> input_fraction(const std::string& path) {
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(path, ec);
  const std::uint64_t size = fs::file_size(path, ec);
  if (ec || size == 0) return nullptr;
  auto fd = std::make_shared<int>(-1);
  return [target, size, fd]() -> double {
    std::error_code e;
    if (*fd < 0) {
      for (fs::directory_iterator it("/proc/self/fd", e), end; !e && it != end; it.increment(e)) {
        std::error_code e2;
        if (fs::read_symlink(it->path(), e2) == target) {
          *fd = std::atoi(it->path().filename().c_str());
          break;
        }
      }
      if (*fd < 0) return -1;
    }
    std::ifstream info("/proc/self/fdinfo/" + std::to_string(*fd));
    std::string key;
    std::uint64_t pos = 0;
    if (!(info >> key >> pos) || key != "pos:") return -1;
    return std::min(1.0, double(pos) / double(size));
  };
}

// Ranges [cut[t], cut[t+1]) of a run of `size` records, for `parts` threads.
std::vector<std::uint64_t> even_cuts(std::uint64_t size, unsigned parts) {
  std::vector<std::uint64_t> cut(parts + 1);
  for (unsigned t = 0; t <= parts; ++t) cut[t] = static_cast<std::uint64_t>((static_cast<unsigned __int128>(size) * t) / parts);
  return cut;
}

// Edge records of the runs: 64-bit keys u << 32 | v when every id is below 2^32 (8 bytes an
// edge), else 16-byte pairs; both ordered by (u, v).
raw_id_t first_of(const RawEdge& e) { return e.u; }
raw_id_t second_of(const RawEdge& e) { return e.v; }
raw_id_t first_of(std::uint64_t key) { return key >> 32; }
raw_id_t second_of(std::uint64_t key) { return key & 0xFFFFFFFFu; }
template <class T>
using LessOf = std::conditional_t<std::is_same_v<T, RawEdge>, EdgeLess, KeyLess>;

// Compact id of an input id: a direct table over [0, largest id] when it fits
// `direct_bytes` (one load per lookup), else binary search in the sorted ids, narrowed by a
// table over the ids' high bits (at most one entry per vertex, so at most 4 bytes per vertex).
class IdIndex {
 public:
  // A direct table made elsewhere (the clean stage's degree counters turned into compact ids).
  explicit IdIndex(std::vector<vid_t> direct) : ids_(nullptr), direct_(std::move(direct)) {}
  IdIndex(const std::vector<raw_id_t>& ids, std::uint64_t direct_bytes) : ids_(ids.data()), id_count_(ids.size()) {
    const std::uint64_t v = ids.size();
    if (v == 0) return;
    const raw_id_t max = ids.back();
    // Only for dense ids: a few sparse ids up to 2^40 would make a table of terabytes, and
    // 300 ids up to 3e8 one of 1.2 GB, zeroed for nothing.
    const bool dense = max <= 8 * v + (std::uint64_t{1} << 20);
    if (dense && max < direct_bytes / sizeof(vid_t)) {
      direct_.resize(max + 1);
      for (std::uint64_t p = 0; p < v; ++p) direct_[ids[p]] = static_cast<vid_t>(p);
      return;
    }
    while (shift_ < 63 && (max >> shift_) >= v) ++shift_;
    table_.resize((max >> shift_) + 2);
    std::uint64_t p = 0;
    for (std::uint64_t b = 0; b < table_.size(); ++b) {
      while (p < v && (ids[p] >> shift_) < b) ++p;
      table_[b] = static_cast<std::uint32_t>(p);
    }
  }
  vid_t operator()(raw_id_t id) const {
    if (!direct_.empty()) return direct_[id];
    const std::uint64_t b = id >> shift_;
    const raw_id_t* lo = ids_ + table_[b];
    const raw_id_t* hi = ids_ + table_[b + 1];
    return static_cast<vid_t>(std::lower_bound(lo, hi, id) - ids_);
  }
  static std::uint64_t bytes_for(std::uint64_t vertices) { return 4 * (vertices + 2); }
  bool direct() const { return !direct_.empty(); }
  // Its memory, with the sorted ids that a searching index reads.
  std::uint64_t bytes() const {
    return direct() ? direct_.size() * sizeof(vid_t) : table_.size() * 4 + id_count_ * sizeof(raw_id_t);
  }
  // Direct table only: entries become new_id[entry], so that one load gives the new id.
  void compose(const std::vector<vid_t>& new_id, unsigned threads) {
    const auto cut = even_cuts(direct_.size(), threads);
    ext::parallel_for(threads, [&](unsigned t) {
      for (std::uint64_t k = cut[t]; k < cut[t + 1]; ++k) direct_[k] = new_id[direct_[k]];
    });
  }

 private:
  const raw_id_t* ids_;
  std::uint64_t id_count_ = 0;
  unsigned shift_ = 0;
  std::vector<std::uint32_t> table_;
  std::vector<vid_t> direct_;
};

template <class T>
void atomic_inc(T& x) {
  std::atomic_ref<T>(x).fetch_add(1, std::memory_order_relaxed);
}

// Increments of a shared counter array, held back per thread in a small direct-mapped table
// so that hot counters (hubs) are not bounced between cores on every edge.
class CountCache {
 public:
  explicit CountCache(std::vector<std::uint32_t>& counters) : counters_(counters), slots_(kSlots, Slot{kEmpty, 0}) {}
  ~CountCache() { flush(); }
  void inc(std::uint32_t x) {
    Slot& s = slots_[x & (kSlots - 1)];
    if (s.key == x) {
      ++s.count;
      return;
    }
    if (s.count) std::atomic_ref<std::uint32_t>(counters_[s.key]).fetch_add(s.count, std::memory_order_relaxed);
    s = Slot{x, 1};
  }
  void flush() {
    for (Slot& s : slots_) {
      if (s.count) std::atomic_ref<std::uint32_t>(counters_[s.key]).fetch_add(s.count, std::memory_order_relaxed);
      s = Slot{kEmpty, 0};
    }
  }

 private:
  static constexpr std::size_t kSlots = 4096;
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;  // never a vertex (ids < 2^32 - 1)
  struct Slot {
    std::uint32_t key, count;
  };
  std::vector<std::uint32_t>& counters_;
  std::vector<Slot> slots_;
};

// One writer thread for the blocks built in memory: HDF5 is serial, so the write of one
// block overlaps the build of the next (at --parts 4, 16 writes one after another otherwise).
// Blocks wait in a queue bounded in bytes; errors come back on the next call.
class BlockWriterThread {
 public:
  explicit BlockWriterThread(BlockOutput& out) : out_(out), thread_([this] { loop(); }) {}
  ~BlockWriterThread() {
    {
      std::lock_guard lock(m_);
      stop_ = true;
      queue_.clear();
    }
    cv_.notify_all();
    thread_.join();
  }
  // Waits until `bytes` more fit under `limit` beside the blocks not yet written (or none is left).
  void wait_for_room(std::uint64_t bytes, std::uint64_t limit) {
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return error_ || in_flight_ == 0 || in_flight_ + bytes <= limit; });
    rethrow();
  }
  void push(CsrBlock block) {
    const std::uint64_t bytes = block_bytes(block);
    std::lock_guard lock(m_);
    rethrow();
    in_flight_ += bytes;
    queue_.push_back(std::move(block));
    cv_.notify_all();
  }
  // Waits until every block pushed is written (the caller may use the file then).
  void drain() {
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return error_ || in_flight_ == 0; });
    rethrow();
  }

 private:
  static std::uint64_t block_bytes(const CsrBlock& b) {
    return b.offsets.size() * sizeof(eoff_t) + b.neighbors.size() * sizeof(vid_t);
  }
  void rethrow() {
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }
  void loop() {
    std::unique_lock lock(m_);
    while (true) {
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      CsrBlock block = std::move(queue_.front());
      queue_.pop_front();
      const std::uint64_t bytes = block_bytes(block);
      lock.unlock();
      std::exception_ptr error;
      try {
        out_.block(std::move(block));
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      in_flight_ -= bytes;
      if (error && !error_) error_ = error;
      if (error) {
        for (const CsrBlock& b : queue_) in_flight_ -= block_bytes(b);
        queue_.clear();
      }
      cv_.notify_all();
    }
  }
  BlockOutput& out_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<CsrBlock> queue_;
  std::uint64_t in_flight_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

class Pipeline {
 public:
  // `runs_in_memory`: the runs are memory files, and half the budget is left for them.
  Pipeline(const PartitionOptions& options, const ExternalTuning& tuning, Progress& progress, bool runs_in_memory)
      : o_(options),
        tune_(tuning),
        progress_(progress),
        threads_(options.threads ? options.threads : usable_cores()),
        budget_(options.memory_budget ? options.memory_budget : default_memory_budget()),
        work_budget_(runs_in_memory ? std::max<std::uint64_t>(budget_ / 2, 1) : budget_),
        io_(std::clamp<std::size_t>(work_budget_ / (64 * threads_), kMinIo, kMaxIo)),
        scratch_(options.tmpdir, runs_in_memory) {
    report_.memory_budget = budget_;
    report_.runs_in_memory = runs_in_memory;
  }

  ExternalReport run(EdgeSource& source, BlockOutput& out, const std::string& source_file, std::uint64_t source_size) {
    const std::uint64_t start_bytes = ext::scratch_bytes_written();
    read(source, source_file);
    clean();
    degrees();
    reorder();
    GraphHeader header;
    header.parts = o_.parts;
    header.vertices = vertices_;
    header.edges = edges_;
    header.ordering = std::string(to_string(order_));
    header.source_file = source_file;
    header.source_size = source_size;
    header.input_edges = input_edges_;
    carry_known_counts(o_, header);
    out.open(header);
    write_vertex_map(out);
    blocks();
    write_blocks(out);
    estimate(out);
    header.max_degree = max_degree_;
    progress_.begin("commit", 0, "files");
    out.commit(max_degree_);
    progress_.add(1);
    progress_.end();
    report_.header = header;
    report_.scratch_bytes = ext::scratch_bytes_written() - start_bytes;
    report_.peak_memory_run_bytes = ext::peak_memory_run_bytes();
    return report_;
  }

  // The read, clean and degrees stages alone: the cleaned graph (for tests and tools).
  CleanGraph clean_only(EdgeSource& source) {
    read(source, "");
    clean();
    degrees();
    CleanGraph g;
    g.input_edges = input_edges_;
    g.input_id.resize(vertices_);
    if (vertices_) ext::pread_all(pool_.fd(ids_file_), g.input_id.data(), vertices_ * sizeof(raw_id_t), 0, ids_file_);
    g.edges.reserve(edges_);
    ensure_index();
    for_each_unique([&](auto tag) {
      using T = decltype(tag);
      RunCursor<T> cur(pool_, unique_edges_, 0, edges_, io_ / sizeof(T));
      for (; !cur.empty(); cur.pop()) g.edges.emplace_back((*index_)(first_of(cur.head())), (*index_)(second_of(cur.head())));
    });
    return g;
  }

 private:
  // ---- budget helpers
  std::size_t max_fanin() const {
    if (tune_.max_fanin) return std::max<std::size_t>(2, tune_.max_fanin);
    // A memory file is held open twice (its registry and the readers' pool): a quarter of the
    // open-file limit leaves room for everything else.
    const std::size_t most = std::clamp<std::size_t>(open_file_limit() / 4, 2, kMaxFanin);
    return std::clamp<std::size_t>(work_budget_ / 2 / (std::uint64_t(threads_) * kMinIo), 2, most);
  }
  std::size_t cursor_bytes(std::size_t runs, unsigned threads) const {
    return std::clamp<std::size_t>(work_budget_ / 2 / (std::max<std::size_t>(runs, 1) * threads), kMinIo, kMaxCursorIo);
  }
  // Throws when `vertex_bytes` of vertex arrays plus the stage's minimum buffers exceed the budget.
  void require_vertex_memory(std::uint64_t vertex_bytes, const char* what) const {
    const std::uint64_t need = vertex_bytes + std::uint64_t(threads_) * 4 * kMinIo;
    if (need > budget_)
      throw Error("the graph has " + std::to_string(vertices_) + " vertices; " + what + " need " + mib(need) +
                  " of memory, more than --memory-budget " + mib(budget_) + ". Vertex arrays stay in memory in the " +
                  "external partitioner: raise --memory-budget to at least " + mib(need + need / 4) +
                  " (or use fewer --threads)");
  }

  // Merges `group` into one run (one file per thread), dropping duplicates when `dedup`.
  template <class T, class Less>
  Run merge_to_run(const std::vector<Run>& group, bool dedup, const char* stem, Less less) {
    std::vector<Span> parts(threads_);
    ext::parallel_merge<T>(pool_, group, threads_, cursor_bytes(group.size(), threads_), less, Same{},
                           [&](const MergeRange<T>& range, ext::MergeStream<T, Less>& stream) {
                             FileWriter out(scratch_.new_file(stem), io_);
                             std::uint64_t n = 0;
                             T x, last{};
                             bool have = false;
                             while (stream.next(x)) {
                               if (dedup && have && !less(last, x)) continue;
                               out.put(x);
                               last = x;
                               have = true;
                               ++n;
                             }
                             out.close();
                             parts[range.part] = Span{out.path(), 0, n};
                           });
    Run run;
    for (Span& s : parts) run.append(std::move(s));
    return run;
  }

  // Merges groups of runs until at most max_fanin are left. `owned`: the inputs' files may
  // be deleted once merged. Returns the runs and, for each, whether its files are to be
  // deleted by the caller after use.
  template <class T, class Less>
  std::pair<std::vector<Run>, std::vector<bool>> reduce_fanin(std::vector<Run> runs, bool owned, bool dedup,
                                                             const char* stem, Less less) {
    std::vector<bool> mine(runs.size(), owned);
    const std::size_t fanin = max_fanin();
    while (runs.size() > fanin) {
      ++report_.merge_passes;
      std::vector<Run> next;
      std::vector<bool> next_mine;
      for (std::size_t g = 0; g < runs.size(); g += fanin) {
        const std::size_t end = std::min(runs.size(), g + fanin);
        if (end - g == 1) {
          next.push_back(runs[g]);
          next_mine.push_back(mine[g]);
          continue;
        }
        std::vector<Run> group(runs.begin() + g, runs.begin() + end);
        next.push_back(merge_to_run<T>(group, dedup, stem, less));
        next_mine.push_back(true);
        std::vector<Run> done;
        for (std::size_t r = g; r < end; ++r)
          if (mine[r]) done.push_back(runs[r]);
        ext::remove_run_files(done, pool_);
      }
      runs = std::move(next);
      mine = std::move(next_mine);
    }
    return {std::move(runs), std::move(mine)};
  }

  void remove_mine(const std::vector<Run>& runs, const std::vector<bool>& mine) {
    std::vector<Run> done;
    for (std::size_t r = 0; r < runs.size(); ++r)
      if (mine[r]) done.push_back(runs[r]);
    ext::remove_run_files(done, pool_);
  }

  // ---- read: parse, canonical pairs, sorted runs ------------------------------------------
  void read(EdgeSource& source, const std::string& source_file) {
    progress_.begin("read", 0, "edges");
    if (!source_file.empty()) progress_.set_fraction(input_fraction(source_file));
    // Producers take batches from the source (one at a time: the source is sequential, and
    // text is parsed on several threads inside it) and turn them into canonical pairs in
    // their own buffers; sorters sort and write the full buffers as runs. One producer ran
    // at 60-70 M edges/s on binary input, the read stage's limit on a 16-core host. Runs
    // are sorted and merged later, so which producer takes which batch changes nothing.
    const unsigned producers = std::clamp(threads_ / 4, 1u, 4u);
    // One buffer per sorter and per producer, and each sorter's radix scratch. Runs of at
    // most 2^22 edges (64 MiB): with a large budget, all sorters still get work (2^24 left
    // Kronecker 20 in one run, sorted on one thread).
    const std::uint64_t chunk =
        tune_.run_edges ? tune_.run_edges
                        : std::clamp<std::uint64_t>(work_budget_ * 3 / 4 / sizeof(RawEdge) / (2 * threads_ + producers),
                                                    4096, std::uint64_t{1} << 22);
    const std::size_t batch_max = static_cast<std::size_t>(std::clamp<std::uint64_t>(chunk / 4, 1024, 1u << 18));

    std::mutex m;
    std::condition_variable cv;
    std::vector<std::vector<RawEdge>> buffers(threads_ + producers);
    std::vector<std::size_t> free_list;
    for (std::size_t b = 0; b < buffers.size(); ++b) free_list.push_back(b);
    std::deque<std::size_t> full;
    bool done = false, failed = false;
    std::exception_ptr error;
    auto fail = [&](std::exception_ptr e) {
      std::lock_guard lock(m);
      if (!error) error = e;
      failed = true;
      cv.notify_all();
    };

    auto sorter = [&] {
      std::vector<RawEdge> scratch;
      while (true) {
        std::size_t b;
        {
          std::unique_lock lock(m);
          cv.wait(lock, [&] { return failed || done || !full.empty(); });
          if (failed) return;
          if (full.empty()) return;  // done
          b = full.front();
          full.pop_front();
        }
        try {
          std::vector<RawEdge>& v = buffers[b];
          const std::string path = scratch_.new_file("read");
          // Packed 64-bit keys when the chunk's ids are below 2^32 (8 bytes an edge), else pairs.
          const bool packed = sort_edges(v, scratch);
          std::uint64_t count = 0;
          if (packed) {
            std::uint64_t* keys = packed_keys(v);
            count = static_cast<std::uint64_t>(std::unique(keys, keys + v.size()) - keys);
            ext::write_file(path, keys, count * sizeof(std::uint64_t));
          } else {
            v.erase(std::unique(v.begin(), v.end()), v.end());
            count = v.size();
            ext::write_file(path, v.data(), count * sizeof(RawEdge));
          }
          std::lock_guard lock(m);
          (packed ? key_runs_ : edge_runs_).push_back(Run{{Span{path, 0, count}}});
          v.clear();
          free_list.push_back(b);
          cv.notify_all();
        } catch (...) {
          fail(std::current_exception());
          return;
        }
      }
    };
    std::vector<std::jthread> sorters;
    for (unsigned t = 0; t < threads_; ++t) sorters.emplace_back(sorter);

    // A free buffer's index, or nothing once the read has failed.
    auto take_free = [&]() -> std::optional<std::size_t> {
      std::unique_lock lock(m);
      cv.wait(lock, [&] { return failed || !free_list.empty(); });
      if (failed) return std::nullopt;
      const std::size_t b = free_list.back();
      free_list.pop_back();
      return b;
    };
    auto hand_off = [&](std::size_t b) {
      std::lock_guard lock(m);
      full.push_back(b);
      cv.notify_all();
    };

    std::mutex source_mutex;
    raw_id_t max_id = 0;
    auto producer = [&] {
      try {
        std::optional<std::size_t> cur = take_free();
        if (!cur) return;
        if (buffers[*cur].capacity() < chunk) buffers[*cur].reserve(chunk);  // pages are touched as filled
        std::vector<RawEdge> batch;
        raw_id_t my_max = 0;
        for (;;) {
          {
            std::lock_guard lock(source_mutex);
            if (!source.next_batch(batch, batch_max)) break;
            input_edges_ += batch.size();
          }
          progress_.add(batch.size());
          for (const RawEdge& e : batch) {
            if (e.u == e.v) continue;
            const RawEdge c = e.u < e.v ? e : RawEdge{e.v, e.u};
            my_max = std::max(my_max, c.v);
            buffers[*cur].push_back(c);
            if (buffers[*cur].size() == chunk) {
              hand_off(*cur);
              if (!(cur = take_free())) return;
              if (buffers[*cur].capacity() < chunk) buffers[*cur].reserve(chunk);
            }
          }
        }
        std::lock_guard lock(m);
        max_id = std::max(max_id, my_max);
        if (!buffers[*cur].empty()) full.push_back(*cur);
        else free_list.push_back(*cur);
        cv.notify_all();
      } catch (...) {
        fail(std::current_exception());
      }
    };
    {
      std::vector<std::jthread> readers;
      for (unsigned t = 0; t < producers; ++t) readers.emplace_back(producer);
    }
    max_raw_id_ = max_id;
    {
      std::lock_guard lock(m);
      done = true;
    }
    cv.notify_all();
    sorters.clear();
    if (error) std::rethrow_exception(error);
    buffers.clear();
    buffers.shrink_to_fit();
    report_.runs = edge_runs_.size() + key_runs_.size();
    progress_.end(std::to_string(report_.runs) + " sorted runs");
  }

  // ---- clean: merge runs, drop duplicates, collect the distinct ids (and count degrees) ---------
  void clean() {
    // Runs of packed keys when every id is below 2^32 (every chunk then packed); else the
    // packed runs are widened to pairs first (ids of 2^32 and more are rare).
    if (edge_runs_.empty()) {
      packed_ = true;
      clean_as<std::uint64_t>(std::move(key_runs_));
    } else {
      packed_ = false;
      widen_key_runs();
      clean_as<RawEdge>(std::move(edge_runs_));
    }
    key_runs_.clear();
    edge_runs_.clear();
  }

  // Rewrites every run of packed keys as a run of pairs, appended to edge_runs_.
  void widen_key_runs() {
    std::vector<Run> wide(key_runs_.size());
    std::atomic<std::size_t> next{0};
    ext::parallel_for(threads_, [&](unsigned) {
      for (std::size_t r; (r = next.fetch_add(1)) < key_runs_.size();) {
        const std::uint64_t size = key_runs_[r].size();
        RunCursor<std::uint64_t> cur(pool_, key_runs_[r], 0, size, io_ / 8);
        FileWriter out(scratch_.new_file("read"), io_);
        for (; !cur.empty(); cur.pop()) out.put(RawEdge{first_of(cur.head()), second_of(cur.head())});
        out.close();
        wide[r] = Run{{Span{out.path(), 0, size}}};
      }
    });
    ext::remove_run_files(key_runs_, pool_);
    for (Run& r : wide) edge_runs_.push_back(std::move(r));
  }

  template <class T>
  void clean_as(std::vector<Run> input_runs) {
    using Less = LessOf<T>;
    std::uint64_t total = 0;
    for (const Run& r : input_runs) total += r.size();
    progress_.begin("clean", total, "edges");
    auto [runs, mine] = reduce_fanin<T>(std::move(input_runs), true, true, "merge", Less{});

    // Distinct ids and degrees: when the input ids are dense and small, one degree counter per
    // input id, counted during the merge (a nonzero degree marks the id: no degrees pass);
    // else a bitmap over [0, max id] when it is small, else sorted id runs, and the degrees
    // stage counts the degrees in a pass of its own. V <= 2 * total, so "dense" is at most
    // 16 ids per input edge, as IdIndex's table (8 per vertex).
    const std::uint64_t raw_table_bytes = (max_raw_id_ + 1) * sizeof(std::uint32_t);
    const bool count_here = total > 0 && max_raw_id_ <= 16 * total + (std::uint64_t{1} << 20) &&
                            raw_table_bytes <= work_budget_ / 4;
    const std::uint64_t bitmap_words = (max_raw_id_ >> 6) + 1;
    const bool use_bitmap = !count_here && total > 0 && bitmap_words * 8 <= work_budget_ / 4;
    report_.id_collection = count_here ? "degree table" : use_bitmap ? "bitmap" : "runs";
    std::vector<std::uint64_t> bitmap;
    if (use_bitmap) bitmap.assign(bitmap_words, 0);
    if (count_here) raw_degree_.assign(max_raw_id_ + 1, 0);
    const std::size_t id_buffer = std::max<std::size_t>(1024, work_budget_ / 4 / sizeof(raw_id_t) / threads_);
    std::vector<Span> unique_parts(threads_), first_id_parts(threads_);
    std::vector<std::vector<Run>> id_runs(threads_);

    ext::parallel_merge<T>(
        pool_, runs, threads_, cursor_bytes(runs.size(), threads_), Less{}, Same{},
        [&](const MergeRange<T>& range, ext::MergeStream<T, Less>& stream) {
          const unsigned t = range.part;
          FileWriter out(scratch_.new_file("unique"), io_);
          FileWriter firsts;
          std::vector<raw_id_t> seconds;
          if (!use_bitmap && !count_here) {
            firsts = FileWriter(scratch_.new_file("ids"), io_);
            seconds.reserve(id_buffer);
          }
          auto flush_seconds = [&] {
            if (seconds.empty()) return;
            std::sort(seconds.begin(), seconds.end());
            seconds.erase(std::unique(seconds.begin(), seconds.end()), seconds.end());
            const std::string path = scratch_.new_file("ids");
            ext::write_file(path, seconds.data(), seconds.size() * sizeof(raw_id_t));
            id_runs[t].push_back(Run{{Span{path, 0, seconds.size()}}});
            seconds.clear();
          };
          auto set_bit = [&](raw_id_t id) {
            std::uint64_t& w = bitmap[id >> 6];
            const std::uint64_t bit = std::uint64_t{1} << (id & 63);
            if (!(std::atomic_ref<std::uint64_t>(w).load(std::memory_order_relaxed) & bit))
              std::atomic_ref<std::uint64_t>(w).fetch_or(bit, std::memory_order_relaxed);
          };
          // Degrees: the first endpoints come in order (counted locally per run of equal
          // ones), the second through a per-thread cache of counters.
          std::optional<CountCache> second_degree;
          if (count_here) second_degree.emplace(raw_degree_);
          std::uint32_t pending = 0;
          auto flush_pending = [&](raw_id_t u) {
            if (pending) std::atomic_ref<std::uint32_t>(raw_degree_[u]).fetch_add(pending, std::memory_order_relaxed);
            pending = 0;
          };
          T e, last{};
          bool have = false;
          std::uint64_t n = 0, firsts_n = 0, since = 0;
          while (stream.next(e)) {
            if (++since == 65536) {
              progress_.add(since);
              since = 0;
            }
            if (have && e == last) continue;
            out.put(e);
            ++n;
            const raw_id_t u = first_of(e), v = second_of(e);
            const bool new_first = !have || u != first_of(last);
            if (count_here) {
              if (new_first && have) flush_pending(first_of(last));
              ++pending;
              second_degree->inc(static_cast<std::uint32_t>(v));
            } else if (use_bitmap) {
              if (new_first) set_bit(u);
              set_bit(v);
            } else {
              if (new_first) {
                firsts.put(u);
                ++firsts_n;
              }
              seconds.push_back(v);
              if (seconds.size() == id_buffer) flush_seconds();
            }
            last = e;
            have = true;
          }
          if (count_here) {
            if (have) flush_pending(first_of(last));
            second_degree->flush();
          }
          progress_.add(since);
          out.close();
          unique_parts[t] = Span{out.path(), 0, n};
          if (!use_bitmap && !count_here) {
            flush_seconds();
            firsts.close();
            first_id_parts[t] = Span{firsts.path(), 0, firsts_n};
          }
        });
    remove_mine(runs, mine);
    for (Span& s : unique_parts) unique_edges_.append(std::move(s));
    edges_ = unique_edges_.size();
    check_parts_for_graph(o_.parts, edges_);
    progress_.end(std::to_string(edges_) + " undirected edges" +
                  (report_.merge_passes ? ", " + std::to_string(report_.merge_passes) + " extra merge passes" : ""));

    // Compact ids: the distinct ids in ascending order.
    progress_.begin("ids", 0, "vertices");
    if (count_here) {
      std::uint64_t v = 0;
      for (std::uint32_t d : raw_degree_) v += d != 0;
      vertices_ = v;
      check_vertex_count();
      require_vertex_memory(12 * v + raw_table_bytes, "the input ids, the degrees and a table over the input ids");
      input_id_.resize(v);
      std::uint64_t p = 0;
      for (std::uint64_t id = 0; id < raw_degree_.size(); ++id)
        if (raw_degree_[id]) input_id_[p++] = id;
    } else if (use_bitmap) {
      std::uint64_t v = 0;
      for (std::uint64_t w : bitmap) v += std::popcount(w);
      vertices_ = v;
      check_vertex_count();
      require_vertex_memory(16 * v + bitmap.size() * 8, "the input ids, their index and the degrees (16 bytes a vertex)");
      input_id_.resize(v);
      std::uint64_t p = 0;
      for (std::uint64_t k = 0; k < bitmap.size(); ++k)
        for (std::uint64_t w = bitmap[k]; w; w &= w - 1) input_id_[p++] = (k << 6) | std::countr_zero(w);
      bitmap.clear();
      bitmap.shrink_to_fit();
    } else {
      std::vector<Run> ids;
      Run firsts;
      for (Span& s : first_id_parts) firsts.append(std::move(s));
      if (firsts.size()) ids.push_back(std::move(firsts));
      for (auto& rs : id_runs)
        for (Run& r : rs) ids.push_back(std::move(r));
      auto [id_runs_reduced, id_mine] =
          reduce_fanin<raw_id_t>(std::move(ids), true, true, "ids", std::less<raw_id_t>{});
      const Run merged = merge_to_run<raw_id_t>(id_runs_reduced, true, "ids", std::less<raw_id_t>{});
      remove_mine(id_runs_reduced, id_mine);
      vertices_ = merged.size();
      check_vertex_count();
      require_vertex_memory(16 * vertices_, "the input ids, their index and the degrees (16 bytes a vertex)");
      input_id_.resize(vertices_);
      RunCursor<raw_id_t> cur(pool_, merged, 0, vertices_, io_ / sizeof(raw_id_t));
      for (std::uint64_t p = 0; p < vertices_; ++p, cur.pop()) input_id_[p] = cur.head();
      ext::remove_run_files({merged}, pool_);
    }
    progress_.add(vertices_);
    progress_.end("distinct ids by " + report_.id_collection);
  }

  void check_vertex_count() const {
    if (vertices_ > kMaxVertices)
      throw Error("the graph has " + std::to_string(vertices_) + " non-isolated vertices; at most " +
                  std::to_string(kMaxVertices) + " (32-bit ids) are supported");
  }

  // ---- degrees: compact degrees and the index from input ids to compact ids ----------------
  void degrees() {
    if (!raw_degree_.empty()) {
      // Counted during the merge, per input id: pick the vertices' degrees, then the same table
      // becomes the direct index (input id -> compact id).
      progress_.begin("degrees", vertices_, "vertices");
      degree_.resize(vertices_);
      const auto cut = even_cuts(vertices_, threads_);
      ext::parallel_for(threads_, [&](unsigned t) {
        for (std::uint64_t p = cut[t]; p < cut[t + 1]; ++p) {
          degree_[p] = raw_degree_[input_id_[p]];
          raw_degree_[input_id_[p]] = static_cast<vid_t>(p);
        }
      });
      index_.emplace(std::move(raw_degree_));
      ext::release(raw_degree_);
      progress_.add(vertices_);
    } else {
      progress_.begin("degrees", edges_, "edges");
      // The direct table takes at most a quarter of the stage's budget (the bitmap of the
      // clean stage had as much, in bits).
      index_.emplace(input_id_, work_budget_ / 4);
      degree_.assign(vertices_, 0);
      for_each_unique([&](auto tag) {
        using T = decltype(tag);
        const auto cut = even_cuts(edges_, threads_);
        ext::parallel_for(threads_, [&](unsigned t) {
          RunCursor<T> cur(pool_, unique_edges_, cut[t], cut[t + 1], io_ / sizeof(T));
          CountCache second_degree(degree_);
          raw_id_t last_u = 0;
          vid_t cu = 0;
          std::uint32_t pending = 0;  // degree of cu counted locally
          bool have = false;
          std::uint64_t since = 0;
          for (; !cur.empty(); cur.pop()) {
            const raw_id_t u = first_of(cur.head());
            if (!have || u != last_u) {
              if (pending) std::atomic_ref<vid_t>(degree_[cu]).fetch_add(pending, std::memory_order_relaxed);
              pending = 0;
              cu = (*index_)(u);
              last_u = u;
              have = true;
            }
            ++pending;
            second_degree.inc((*index_)(second_of(cur.head())));
            if (++since == 65536) {
              progress_.add(since);
              since = 0;
            }
          }
          if (pending) std::atomic_ref<vid_t>(degree_[cu]).fetch_add(pending, std::memory_order_relaxed);
          second_degree.flush();
          progress_.add(since);
        });
      });
    }
    // The input ids wait on disk until the vertex map is written; an index that searches them
    // is rebuilt when the edges are relabelled (ensure_index), so that the vertex arrays of the
    // reorder stage stay within 16 bytes a vertex.
    ids_file_ = scratch_.new_file("input_ids");
    ext::write_file(ids_file_, input_id_.data(), input_id_.size() * sizeof(raw_id_t));
    if (!index_->direct()) index_.reset();
    ext::release(input_id_);
    progress_.end();
  }

  // Calls fn(T{}) with the record type of the unique edges: packed keys or pairs.
  template <class Fn>
  void for_each_unique(Fn fn) {
    if (packed_) fn(std::uint64_t{});
    else fn(RawEdge{});
  }

  // The index from input ids to compact ids, rebuilt from the input ids on disk when the
  // degrees stage dropped it.
  void ensure_index() {
    if (index_) return;
    input_id_.resize(vertices_);
    if (vertices_) ext::pread_all(pool_.fd(ids_file_), input_id_.data(), vertices_ * sizeof(raw_id_t), 0, ids_file_);
    index_.emplace(input_id_, work_budget_ / 4);
  }
  std::uint64_t index_bytes() const {
    return index_ ? index_->bytes() : vertices_ * sizeof(raw_id_t) + IdIndex::bytes_for(vertices_);
  }

  // ---- orient + reorder -------------------------------------------------------------------
  bool lower(vid_t a, vid_t b) const { return degree_[a] != degree_[b] ? degree_[a] < degree_[b] : a < b; }

  // Calls fn(x, y) for every oriented edge x -> y (compact ids), in parallel.
  template <class Fn>
  void for_each_oriented(Fn fn) {
    ensure_index();
    const auto cut = even_cuts(edges_, threads_);
    for_each_unique([&](auto tag) {
      using T = decltype(tag);
      ext::parallel_for(threads_, [&](unsigned t) {
        RunCursor<T> cur(pool_, unique_edges_, cut[t], cut[t + 1], io_ / sizeof(T));
        std::uint64_t since = 0;
        for (; !cur.empty(); cur.pop()) {
          const vid_t a = (*index_)(first_of(cur.head())), b = (*index_)(second_of(cur.head()));
          if (lower(a, b)) fn(a, b);
          else fn(b, a);
          if (++since == 65536) {
            progress_.add(since);
            since = 0;
          }
        }
        progress_.add(since);
      });
    });
  }

  void reorder() {
    order_ = o_.order;
    const std::uint64_t V = vertices_;
    if (order_ == VertexOrder::Collective) {
      // degree 4 + out-degree 4 + collective 8 + rank 4 + new id 4 bytes a vertex, and the
      // index that relabels the edges in the orientation passes.
      const std::uint64_t need = 24 * V + index_bytes() + std::uint64_t(threads_) * 4 * kMinIo;
      if (need > budget_) {
        order_ = VertexOrder::Degree;
        report_.ordering_fell_back = true;
        const std::string note = "note: --order collective needs " + mib(need) + " for " + std::to_string(V) +
                                 " vertices, more than --memory-budget " + mib(budget_) +
                                 "; using degree order instead (the file says ordering = degree)";
        if (progress_.mode() != Progress::Mode::Off) progress_.message("[partition] " + note);
        else std::fprintf(stderr, "tricount-partition: %s\n", note.c_str());
      }
    }
    if (order_ == VertexOrder::Degree) {
      progress_.begin("reorder", V, "vertices");
      // Rank by (degree, compact id): a stable counting sort. This is also the orientation
      // order, so oriented edges go from the lower new id to the higher. Its counts grow with
      // the largest degree (a hub's), up to 4 bytes a vertex: with the degrees and the new ids
      // 12 bytes a vertex, within the 16 that the ids stage required of the budget.
      vid_t max_degree = 0;
      for (vid_t d : degree_) max_degree = std::max(max_degree, d);
      std::vector<vid_t> start(std::uint64_t(max_degree) + 1, 0);
      for (vid_t d : degree_) ++start[d];
      vid_t sum = 0;
      for (vid_t& c : start) sum += std::exchange(c, sum);
      new_id_.resize(V);
      for (std::uint64_t x = 0; x < V; ++x) new_id_[x] = start[degree_[x]]++;
      progress_.add(V);
      ext::release(degree_);
      progress_.end("degree order");
      return;
    }
    // Collective (TRUST): orientation passes over the edges on disk, vertex arrays in memory.
    progress_.begin("orient", 2 * edges_, "edges");
    std::vector<vid_t> outdeg(V, 0);
    for_each_oriented([&](vid_t x, vid_t) { atomic_inc(outdeg[x]); });
    std::vector<std::uint64_t> collective(outdeg.begin(), outdeg.end());
    for_each_oriented([&](vid_t x, vid_t y) {
      std::atomic_ref<std::uint64_t>(collective[x]).fetch_add(outdeg[y], std::memory_order_relaxed);
    });
    progress_.end("out-degrees and collective degrees");
    progress_.begin("reorder", V, "vertices");
    // Rank by (collective, out-degree, compact id), as reorder.cpp's stable sort: sort
    // slices in parallel, then merge them while handing out the ranks.
    auto less = [&](vid_t a, vid_t b) {
      if (collective[a] != collective[b]) return collective[a] < collective[b];
      if (outdeg[a] != outdeg[b]) return outdeg[a] < outdeg[b];
      return a < b;
    };
    std::vector<vid_t> perm(V);
    std::iota(perm.begin(), perm.end(), vid_t{0});
    const auto cut = even_cuts(V, threads_);
    ext::parallel_for(threads_, [&](unsigned t) { std::sort(perm.begin() + cut[t], perm.begin() + cut[t + 1], less); });
    new_id_.resize(V);
    std::vector<std::uint64_t> head(cut.begin(), cut.end() - 1);
    for (std::uint64_t r = 0; r < V; ++r) {
      unsigned best = threads_;
      for (unsigned t = 0; t < threads_; ++t)
        if (head[t] < cut[t + 1] && (best == threads_ || less(perm[head[t]], perm[head[best]]))) best = t;
      new_id_[perm[head[best]++]] = static_cast<vid_t>(r);
    }
    progress_.add(V);
    progress_.end("collective order");
  }

  // ---- vertex map: new id -> input id ---------------------------------------------------------
  void write_vertex_map(BlockOutput& out) {
    progress_.begin("map", vertices_, "vertices");
    std::vector<raw_id_t> map(vertices_);
    Run ids{{Span{ids_file_, 0, vertices_}}};
    RunCursor<raw_id_t> cur(pool_, ids, 0, vertices_, io_ / sizeof(raw_id_t));
    for (std::uint64_t x = 0; x < vertices_; ++x, cur.pop()) map[new_id_[x]] = cur.head();
    if (index_) ext::remove_run_files({ids}, pool_);  // else ensure_index reads them once more
    out.vertex_map(std::move(map));
    progress_.add(vertices_);
    progress_.end();
  }

  // ---- blocks: hash oriented edges into per-block bucket segments -----------------------------
  void blocks() {
    const std::uint32_t n = o_.parts;
    const std::uint64_t nb = std::uint64_t(n) * n;
    progress_.begin("blocks", edges_, "edges");
    // Relabel while cutting: input id -> compact id (the index) -> new id. In degree order a
    // direct index is composed with the new ids first: one load per endpoint.
    ensure_index();
    ext::remove_run_files({Run{{Span{ids_file_, 0, vertices_}}}}, pool_);
    const bool degree_order = order_ == VertexOrder::Degree;
    const bool composed = degree_order && index_->direct();
    if (composed) {
      index_->compose(new_id_, threads_);
      ext::release(new_id_);
    }
    const std::uint64_t vertex_bytes = (new_id_.size() + degree_.size()) * sizeof(vid_t) + index_->bytes();
    const std::uint64_t io_bytes = std::uint64_t(threads_) * 2 * io_;
    // 85%: the rest of the budget covers the small buffers and allocations around them.
    const std::uint64_t avail =
        work_budget_ > vertex_bytes + io_bytes ? (work_budget_ - vertex_bytes - io_bytes) / 20 * 17 : 0;
    unsigned threads = threads_;
    std::uint64_t cap = tune_.block_buffer;
    if (!cap) {
      // nb buffers per thread and one radix scratch of the same size.
      cap = avail / 8 / ((nb + 1) * threads);
      if (cap < 4096) {
        threads = static_cast<unsigned>(std::clamp<std::uint64_t>(avail / 8 / ((nb + 1) * 4096), 1, threads_));
        cap = std::max<std::uint64_t>(avail / 8 / ((nb + 1) * threads), 256);
      }
    }
    std::vector<std::vector<std::vector<Span>>> segs(threads, std::vector<std::vector<Span>>(nb));
    const auto cut = even_cuts(edges_, threads);
    const IdIndex& index = *index_;
    for_each_unique([&](auto tag) {
      using T = decltype(tag);
      ext::parallel_for(threads, [&](unsigned t) {
        std::unique_ptr<std::uint64_t[]> buf(new std::uint64_t[nb * cap]);  // untouched until filled
        std::unique_ptr<std::uint64_t[]> scratch(new std::uint64_t[cap]);
        std::vector<std::uint64_t> fill(nb, 0);
        FileWriter out(scratch_.new_file("bucket"), io_);
        std::uint64_t written = 0;
        auto flush = [&](std::uint64_t b) {
          std::uint64_t* p = buf.get() + b * cap;
          radix_sort<std::uint64_t, KeyDigits>(p, scratch.get(), fill[b]);
          out.write(p, fill[b] * 8);
          segs[t][b].push_back(Span{out.path(), written, fill[b]});
          written += fill[b];
          fill[b] = 0;
        };
        RunCursor<T> cur(pool_, unique_edges_, cut[t], cut[t + 1], io_ / sizeof(T));
        std::uint64_t since = 0;
        for (; !cur.empty(); cur.pop()) {
          const vid_t a = index(first_of(cur.head())), c = index(second_of(cur.head()));
          vid_t u, v;
          if (composed) {
            u = std::min(a, c);
            v = std::max(a, c);
          } else if (degree_order) {
            u = std::min(new_id_[a], new_id_[c]);
            v = std::max(new_id_[a], new_id_[c]);
          } else if (lower(a, c)) {
            u = new_id_[a];
            v = new_id_[c];
          } else {
            u = new_id_[c];
            v = new_id_[a];
          }
          const std::uint64_t b = std::uint64_t(u % n) * n + v % n;
          buf[b * cap + fill[b]++] = (std::uint64_t(u / n) << 32) | (v / n);
          if (fill[b] == cap) flush(b);
          if (++since == 65536) {
            progress_.add(since);
            since = 0;
          }
        }
        progress_.add(since);
        for (std::uint64_t b = 0; b < nb; ++b)
          if (fill[b]) flush(b);
        out.close();
      });
    });
    ext::remove_run_files({unique_edges_}, pool_);
    unique_edges_ = {};
    index_.reset();
    ext::release(input_id_);
    ext::release(new_id_);
    ext::release(degree_);
    block_segments_.assign(nb, {});
    block_nnz_.assign(nb, 0);
    std::uint64_t segments = 0;
    for (unsigned t = 0; t < threads; ++t)
      for (std::uint64_t b = 0; b < nb; ++b)
        for (Span& s : segs[t][b]) {
          block_nnz_[b] += s.count;
          bucket_files_.insert(s.path);
          block_segments_[b].push_back(Run{{std::move(s)}});
          ++segments;
        }
    progress_.end(std::to_string(nb) + " blocks, " + std::to_string(segments) + " sorted segments");
  }

  // ---- write: per block, merge its segments into the CSR and write it ---------------------------
  struct BlockSink : CsrRangeBuilder::Sink {
    std::unique_ptr<CountCache> col_count;  // per thread, onto the block's column counts
    void count_columns(const vid_t* data, std::size_t count) {
      for (std::size_t k = 0; k < count; ++k) col_count->inc(data[k]);
    }
  };
  struct ArraySink : BlockSink {
    CsrBlock* block = nullptr;
    void offsets(std::uint64_t first, const eoff_t* data, std::size_t count) override {
      std::copy(data, data + count, block->offsets.begin() + first);
    }
    void neighbors(std::uint64_t first, const vid_t* data, std::size_t count) override {
      std::copy(data, data + count, block->neighbors.begin() + first);
      count_columns(data, count);
    }
  };
  struct StreamSink : BlockSink {
    BlockFileWriter::BlockStream* stream = nullptr;
    int degree_fd = -1;
    std::string degree_path;
    eoff_t previous = 0;  // offset before the first piece: the range's base
    std::vector<std::uint32_t> degrees;
    void offsets(std::uint64_t first, const eoff_t* data, std::size_t count) override {
      stream->write_offsets(first, data, count);
      degrees.resize(count);
      for (std::size_t k = 0; k < count; ++k) {
        degrees[k] = static_cast<std::uint32_t>(data[k] - previous);
        previous = data[k];
      }
      ext::pwrite_all(degree_fd, degrees.data(), count * 4, (first - 1) * 4, degree_path);
    }
    void neighbors(std::uint64_t first, const vid_t* data, std::size_t count) override {
      stream->write_neighbors(first, data, count);
      count_columns(data, count);
    }
  };

  void write_blocks(BlockOutput& out) {
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
        std::vector<std::uint32_t> col_count(cols, 0);
        const unsigned threads =
            static_cast<unsigned>(std::clamp<std::uint64_t>(nnz >> 20, 1, threads_));  // small blocks: one thread
        const std::size_t cursors = cursor_bytes(segs.size(), threads);
        const std::uint64_t merge_bytes = std::uint64_t(cursors) * segs.size() * threads;
        const std::uint64_t block_bytes = (rows + 1) * 8 + nnz * 4 + cols * 4 + merge_bytes;
        // A block is built whole in memory when it fits (always for an in-memory graph).
        BlockFileWriter* file = out.file();
        const bool in_memory = !file || (!tune_.stream_blocks && block_bytes <= work_budget_);
        const std::size_t piece = std::clamp<std::size_t>(io_ / 8, 4096, std::size_t{1} << 20);
        std::mutex m;
        std::uint32_t block_max = 0;
        row_degree_files_[b] = scratch_.new_file("rowdeg");
        if (in_memory) {
          // The blocks still being written count against the budget too.
          writer.wait_for_room(block_bytes, work_budget_);
          CsrBlock block;
          block.id = {i, j};
          block.rows = rows;
          block.cols = cols;
          block.offsets.assign(rows + 1, 0);
          block.neighbors.resize(nnz);
          ext::parallel_merge<std::uint64_t>(
              pool_, segs, threads, cursors, KeyLess{}, RowStart{},
              [&](const MergeRange<std::uint64_t>& range, ext::MergeStream<std::uint64_t, KeyLess>& stream) {
                ArraySink sink;
                sink.block = &block;
                sink.col_count = std::make_unique<CountCache>(col_count);
                CsrRangeBuilder builder(range.lo_key ? *range.lo_key >> 32 : 0, range.hi_key ? *range.hi_key >> 32 : rows,
                                        range.first, piece, sink);
                for (std::uint64_t key; stream.next(key);) builder.add(key);
                builder.finish();
                std::lock_guard lock(m);
                block_max = std::max(block_max, builder.max_degree());
              });
          block.max_degree = block_max;
          FileWriter deg(row_degree_files_[b], io_);
          for (std::uint64_t r = 0; r < rows; ++r)
            deg.put(static_cast<std::uint32_t>(block.offsets[r + 1] - block.offsets[r]));
          deg.close();
          writer.push(std::move(block));
        } else {
          ++report_.streamed_blocks;
          writer.drain();  // the file is ours alone again
          BlockFileWriter::BlockStream stream = file->begin_block({i, j}, rows, cols, nnz);
          const eoff_t zero = 0;
          stream.write_offsets(0, &zero, 1);
          const int fd = ext::create_scratch_file(row_degree_files_[b]);
          try {
            ext::parallel_merge<std::uint64_t>(
                pool_, segs, threads, cursors, KeyLess{}, RowStart{},
                [&](const MergeRange<std::uint64_t>& range, ext::MergeStream<std::uint64_t, KeyLess>& merged) {
                  StreamSink sink;
                  sink.stream = &stream;
                  sink.col_count = std::make_unique<CountCache>(col_count);
                  sink.degree_fd = fd;
                  sink.degree_path = row_degree_files_[b];
                  sink.previous = range.first;
                  CsrRangeBuilder builder(range.lo_key ? *range.lo_key >> 32 : 0,
                                          range.hi_key ? *range.hi_key >> 32 : rows, range.first, piece, sink);
                  for (std::uint64_t key; merged.next(key);) builder.add(key);
                  builder.finish();
                });
          } catch (...) {
            ::close(fd);
            throw;
          }
          if (::close(fd) != 0) ext::throw_write_error(row_degree_files_[b], errno);
          block_max = stream.finish().max_degree;
        }
        max_degree_ = std::max<std::uint64_t>(max_degree_, block_max);
        col_count_files_[b] = scratch_.new_file("colcount");
        ext::write_file(col_count_files_[b], col_count.data(), col_count.size() * 4);
        remove_mine(segs, mine);
        progress_.add(nnz);
      }
    writer.drain();
    // Every block is written: the bucket files go.
    for (const std::string& p : bucket_files_) {
      pool_.forget(p);
      ext::remove_scratch_file(p);
    }
    bucket_files_.clear();
    progress_.end(report_.streamed_blocks ? std::to_string(report_.streamed_blocks) + " blocks written in pieces" : "");
  }

  // ---- estimate: task work from row degrees and column counts --------------------------------
  // probes(i,j,k) = sum over columns v of P(i,j) of count_ij[v] * degree_jk[v]; the work adds
  // the table insertions nnz(P(i,k)) (see estimate_task_work in partition.hpp).
  void estimate(BlockOutput& out) {
    const std::uint64_t n = o_.parts;
    progress_.begin("estimate", n * n * n, "subtasks");
    std::vector<std::uint64_t> work(n * n * n, 0);
    for (std::uint64_t j = 0; j < n; ++j) {
      const std::uint64_t len = rows_in_class(vertices_, o_.parts, static_cast<std::uint32_t>(j));
      const std::uint64_t group = std::clamp<std::uint64_t>(work_budget_ / 2 / std::max<std::uint64_t>(4 * len, 1), 1, n);
      for (std::uint64_t k0 = 0; k0 < n; k0 += group) {
        const std::uint64_t k1 = std::min(n, k0 + group);
        std::vector<std::vector<std::uint32_t>> degree(k1 - k0, std::vector<std::uint32_t>(len));
        for (std::uint64_t k = k0; k < k1; ++k) {
          const std::string& path = row_degree_files_[j * n + k];
          if (len) ext::pread_all(pool_.fd(path), degree[k - k0].data(), len * 4, 0, path);
          pool_.forget(path);
        }
        ext::parallel_for(static_cast<unsigned>(std::min<std::uint64_t>(threads_, n)), [&](unsigned t) {
          for (std::uint64_t i = t; i < n; i += std::min<std::uint64_t>(threads_, n)) {
            const std::string& path = col_count_files_[i * n + j];
            Run counts{{Span{path, 0, len}}};
            RunCursor<std::uint32_t> cur(pool_, counts, 0, len, io_ / 4);
            std::vector<std::uint64_t> probes(k1 - k0, 0);
            for (std::uint64_t v = 0; v < len; ++v, cur.pop()) {
              const std::uint64_t c = cur.head();
              if (c == 0) continue;
              for (std::uint64_t k = k0; k < k1; ++k) probes[k - k0] += c * degree[k - k0][v];
            }
            for (std::uint64_t k = k0; k < k1; ++k) {
              work[(i * n + j) * n + k] = probes[k - k0] + block_nnz_[i * n + k];
              progress_.add(1);
            }
            pool_.forget(path);
          }
        });
      }
    }
    for (const auto* files : {&row_degree_files_, &col_count_files_})
      for (const std::string& p : *files) ext::remove_scratch_file(p);
    out.task_work(std::move(work));
    progress_.end();
  }

  const PartitionOptions& o_;
  const ExternalTuning& tune_;
  Progress& progress_;
  unsigned threads_;
  std::uint64_t budget_;       // --memory-budget: decides what must fit (vertex arrays)
  std::uint64_t work_budget_;  // what the stages' buffers may use (the budget less the runs' share)
  std::size_t io_;
  ext::ScratchDir scratch_;
  FilePool pool_;
  ExternalReport report_;

  std::uint64_t input_edges_ = 0;
  raw_id_t max_raw_id_ = 0;
  std::vector<Run> edge_runs_;
  Run unique_edges_;
  bool packed_ = false;  // unique_edges_ are packed keys (else pairs)
  std::vector<Run> key_runs_;  // the read stage's runs of packed keys
  std::vector<std::uint32_t> raw_degree_;  // per input id, when counted in the clean stage
  std::optional<IdIndex> index_;  // input id -> compact id (composed: -> new id)
  std::uint64_t vertices_ = 0, edges_ = 0;
  std::vector<raw_id_t> input_id_;
  std::string ids_file_;
  std::vector<vid_t> degree_, new_id_;
  VertexOrder order_ = VertexOrder::Degree;
  std::vector<std::vector<Run>> block_segments_;
  std::vector<std::uint64_t> block_nnz_;
  std::set<std::string> bucket_files_;
  std::vector<std::string> row_degree_files_, col_count_files_;
  std::uint64_t max_degree_ = 0;
};

// Buffers of 64 KiB and more come from mmap and go back to the system when freed, so that
// the resident set follows the memory in use (glibc otherwise raises its mmap threshold up
// to 32 MiB, and memory freed in a worker thread's arena stays there).
void bound_malloc_retention() {
  static std::once_flag once;
  std::call_once(once, [] {
    ::mallopt(M_MMAP_THRESHOLD, 64 << 10);
    ::mallopt(M_TRIM_THRESHOLD, 1 << 20);
  });
}

void raise_open_file_limit() {
  struct rlimit r {};
  if (::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &r);
  }
}

}  // namespace

ExternalReport run_pipeline(EdgeSource& source, BlockOutput& out, const PartitionOptions& options, bool runs_in_memory,
                            const std::string& source_file, std::uint64_t source_size, const ExternalTuning& tuning) {
  check_parts(options.parts);
  bound_malloc_retention();
  raise_open_file_limit();
  Progress progress(Progress::mode_for(options.progress), "[partition]", options.debug_memory);
  Pipeline pipeline(options, tuning, progress, runs_in_memory);
  ExternalReport report = pipeline.run(source, out, source_file, source_size);
  if (options.progress) {
    const std::string runs =
        runs_in_memory ? mib(report.scratch_bytes) + " of sorted runs written to memory (at most " +
                             mib(report.peak_memory_run_bytes) + " held at once)"
                       : mib(report.scratch_bytes) + " written to the temporary directory";
    progress.message(std::string("[partition] ") + (runs_in_memory ? "runs in memory" : "external memory") +
                     ": budget " + mib(report.memory_budget) + ", " + std::to_string(report.runs) + " sorted runs, " +
                     std::to_string(report.merge_passes) + " extra merge passes, ids by " + report.id_collection + ", " +
                     std::to_string(report.streamed_blocks) + " blocks written in pieces, " + runs + ", " +
                     std::to_string(progress.seconds_total()).substr(0, 8) + " s in all");
  }
  return report;
}

namespace {

// An HDF5 block file (temporary name + rename at commit).
class FileOutput final : public BlockOutput {
 public:
  explicit FileOutput(std::string path) : path_(std::move(path)) {}
  void open(const GraphHeader& header) override { writer_.emplace(path_, header); }
  void vertex_map(std::vector<raw_id_t> map) override { writer_->write_vertex_map(map); }
  void block(CsrBlock block) override { writer_->write_block(block); }
  BlockFileWriter* file() override { return &*writer_; }
  void task_work(std::vector<std::uint64_t> work) override { writer_->write_task_work(work); }
  void commit(std::uint64_t max_degree) override {
    writer_->set_max_degree(max_degree);
    writer_->commit();
  }

 private:
  std::string path_;
  std::optional<BlockFileWriter> writer_;
};

}  // namespace

ExternalReport partition_external(EdgeSource& source, const std::string& output, const PartitionOptions& options,
                                  const std::string& source_file, std::uint64_t source_size,
                                  const ExternalTuning& tuning, bool runs_in_memory) {
  FileOutput out(output);
  return run_pipeline(source, out, options, runs_in_memory && !options.force_external, source_file, source_size, tuning);
}

CleanGraph clean_pipeline(EdgeSource& source, const PartitionOptions& options) {
  bound_malloc_retention();
  Progress progress(Progress::mode_for(false));
  const ExternalTuning tuning;
  Pipeline pipeline(options, tuning, progress, /*runs_in_memory=*/true);
  return pipeline.clean_only(source);
}

bool runs_fit_in_memory(std::uint64_t expected_input_edges, std::uint64_t memory_budget) {
  if (memory_budget == 0) memory_budget = default_memory_budget();
  return expected_input_edges <= memory_budget / 2 / kRunBytesPerEdge;
}

}  // namespace tricount
