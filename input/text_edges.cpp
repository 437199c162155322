// The text reader: edge lists (SNAP / GraphChallenge) and Matrix Market coordinate entries,
// through GzInput (so compressed or not) and the lone-CR filter.
//
// Everything is read as a stream through a fixed-size buffer (a few MiB), so a file of any
// size needs bounded memory; the parser works on whole lines inside the buffer and only
// moves the one incomplete line at the end of a chunk. Numbers are parsed by hand: this is
// the part of the partitioner that touches every input byte, so with several threads text
// is read ahead in blocks of whole lines whose pieces are parsed in parallel (a few blocks
// of memory at a time), with the same edges, order and messages as one thread.
#include "input/text_edges.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "input/byte_input.hpp"
#include "input/matrix_market.hpp"
#include "input/text_scan.hpp"
#include "src/threads.hpp"
#include "src/types.hpp"

namespace tricount {
namespace {

using namespace text_scan;

// A single line longer than this is certainly not an edge list; refuse rather than grow
// the buffer without bound (e.g. when a binary file is read as text).
constexpr std::size_t kMaxLineBytes = std::size_t{64} << 20;
// Several threads: a block is about 1 MiB per thread (small blocks stay in cache and cost
// few page faults; measured on 2 cores, 8 MiB blocks parsed 15-20% slower than 2 MiB ones),
// kBlocksInFlight blocks are in use at once (each with its text and its parsed edges, about
// twice its size for typical lines), and a piece is at least kMinPieceBytes.
constexpr std::size_t kBlockBytesPerThread = std::size_t{1} << 20;
constexpr std::size_t kMinBlockBytes = std::size_t{2} << 20;
constexpr std::size_t kMaxBlockBytes = std::size_t{16} << 20;
constexpr std::size_t kBlocksInFlight = 4;
constexpr std::size_t kMinPieceBytes = std::size_t{256} << 10;
// Several threads: what the reader reads on its own before the blocks (grown for a longer line).
constexpr std::size_t kFirstReadBytes = std::size_t{64} << 10;

class TextEdgeSource final : public EdgeSource {
 public:
  // format: EdgeList, MatrixMarket, or Auto (decided by the first line, see sniff_text_format).
  TextEdgeSource(std::string path, InputFormat format, const EdgeFileOptions& options)
      : path_(std::move(path)), mm_(format == InputFormat::MatrixMarket), shares_(options.shares) {
    std::uint64_t begin = 0;
    if (shares_ > 1) {
      // One share of an uncompressed file: its whole lines, read with pread. Of a Matrix
      // Market file every share reads the header; the shares split the lines after it, and
      // the entry count is the ranks' to check (share_totals).
      TRICOUNT_EXPECTS((format == InputFormat::EdgeList || format == InputFormat::MatrixMarket) && options.share < shares_,
                       "text shares: an edge list or Matrix Market file, and a share below their count");
      const FdInput file(path_);
      const long long size = file.regular_size();
      if (size < 0) throw Error("'" + printable(path_) + "' is not a regular file: it cannot be read in shares");
      const auto bytes = static_cast<std::uint64_t>(size);
      std::uint64_t header_end = 0;
      if (mm_) {
        const TextEdgeSource head(path_, InputFormat::MatrixMarket, EdgeFileOptions{1, 0});
        rows_ = head.rows_, cols_ = head.cols_, declared_ = head.nnz_, size_line_ = head.size_line_;
        nnz_ = std::numeric_limits<std::uint64_t>::max();  // no share knows the entries before it
        header_end = text_line_end(file.descriptor(), path_, bytes, size_line_);
        if (options.share == 0) line_ = size_line_;
      }
      begin = std::max(header_end, text_share_start(file.descriptor(), path_, bytes, options.share, shares_));
      const std::uint64_t end =
          std::max(header_end, text_share_start(file.descriptor(), path_, bytes, options.share + 1, shares_));
      in_ = std::make_unique<LoneCrAsNewline>(std::make_unique<FileRangeInput>(path_, begin, end));
    } else {
      in_ = std::make_unique<LoneCrAsNewline>(std::make_unique<GzInput>(path_));
    }
    threads_ = options.threads ? options.threads : usable_cores();
    if (options.block_bytes) {
      block_bytes_ = options.block_bytes;
      min_piece_bytes_ = std::max<std::size_t>(1, block_bytes_ / threads_);
    } else {
      block_bytes_ = std::clamp<std::size_t>(std::size_t{threads_} * kBlockBytesPerThread, kMinBlockBytes, kMaxBlockBytes);
    }
    // +1: room for the '\n' appended to an unterminated last line. With several threads this
    // buffer only holds the start (the first line, a Matrix Market header) before the blocks
    // take over: 4 MiB here were zero-filled and copied into the first block on one thread.
    buf_.resize((threads_ > 1 ? kFirstReadBytes : kChunkBytes) + 1);
    // A UTF-8 byte-order mark (left by some Windows tools) is not part of the first line.
    if (refill() && begin == 0 && lines_end_ >= 3 && std::memcmp(buf_.data(), "\xEF\xBB\xBF", 3) == 0) pos_ = 3;
    // Auto: sniffed from the bytes this reader goes on to parse, so a pipe or FIFO (read
    // once) loses nothing. The buffer holds at least the whole first line.
    if (format == InputFormat::Auto) mm_ = sniff_text_format({buf_.data() + pos_, data_end_ - pos_}, path_) == InputFormat::MatrixMarket;
    if (mm_ && shares_ <= 1) {
      const MatrixMarketSize size = read_matrix_market_header(
          path_, [this](std::string_view& line) { return next_line(line); }, line_);
      rows_ = size.rows, cols_ = size.cols, nnz_ = declared_ = size.nnz, size_line_ = size.line;
    }
  }

  ~TextEdgeSource() override { stop_threads(); }
  TextEdgeSource(const TextEdgeSource&) = delete;
  TextEdgeSource& operator=(const TextEdgeSource&) = delete;

  std::string description() const override { return path_; }
  std::uint64_t lines_read() const override { return line_; }
  // A Matrix Market share: its entries, which the ranks sum and check against the size line.
  std::vector<std::uint64_t> share_totals() const override {
    return mm_ && shares_ > 1 ? std::vector<std::uint64_t>{entries_} : std::vector<std::uint64_t>{};
  }
  void check_share_totals(const std::vector<std::uint64_t>& sums) const override {
    if (!sums.empty()) check_entry_count(sums[0]);
  }

  bool next_batch(std::vector<RawEdge>& out, std::size_t max_edges) override {
    TRICOUNT_EXPECTS(max_edges > 0, "next_batch: max_edges must be positive");
    out.clear();
    out.reserve(std::min<std::size_t>(max_edges, std::size_t{1} << 20));
    if (threads_ > 1) {
      if (!par_started_) start_parallel();
      take_parsed(out, max_edges);
    } else {
      while (out.size() < max_edges) {
        if (pos_ == lines_end_ && !refill()) break;
        if (mm_) {
          parse_lines<true>(out, max_edges);
        } else {
          parse_lines<false>(out, max_edges);
        }
      }
    }
    if (out.empty() && mm_ && shares_ <= 1 && !checked_count_) {
      checked_count_ = true;
      check_entry_count(entries_);
    }
    return !out.empty();
  }

  void check_entry_count(std::uint64_t entries) const {
    if (entries != declared_)
      throw Error(printable(path_) + ": the size line (line " + std::to_string(size_line_) + ") declares " +
                  std::to_string(declared_) + " entries but the file has " + std::to_string(entries));
  }

 private:
  // Makes [pos_, lines_end_) hold at least one whole line ('\n'-terminated). Returns false
  // at the end of the input.
  bool refill() {
    if (pos_ == data_end_ && eof_) return false;
    // Keep the incomplete tail line; move it to the front.
    const std::size_t tail = data_end_ - pos_;
    if (tail > 0 && pos_ > 0) std::memmove(buf_.data(), buf_.data() + pos_, tail);
    pos_ = 0;
    data_end_ = tail;
    lines_end_ = 0;
    std::size_t scanned = tail;  // bytes already known to hold no '\n'
    while (!eof_) {
      if (data_end_ == buf_.size() - 1) {
        if (buf_.size() - 1 >= kMaxLineBytes) fail(line_ + 1, long_line_detail());
        buf_.resize(2 * (buf_.size() - 1) + 1);
      }
      const std::size_t got = in_->read(buf_.data() + data_end_, buf_.size() - 1 - data_end_);
      if (got == 0) {
        eof_ = true;
        break;
      }
      data_end_ += got;
      const void* nl = ::memrchr(buf_.data() + scanned, '\n', data_end_ - scanned);
      if (nl != nullptr) {
        lines_end_ = static_cast<std::size_t>(static_cast<const char*>(nl) - buf_.data()) + 1;
        return true;
      }
      scanned = data_end_;
    }
    if (data_end_ == 0) return false;
    // The last line has no '\n': terminate it so the parser never checks bounds.
    buf_[data_end_++] = '\n';
    lines_end_ = data_end_;
    return true;
  }

  static std::string long_line_detail() {
    return "line longer than " + std::to_string(kMaxLineBytes >> 20) +
           " MiB; is this really a text file?";
  }

  // The parser's hot loop, for the lines in [p, end), each of which ends with '\n' (which
  // stops each scan, so no bounds checks are needed inside a line). Stops after `max_edges`
  // edges in `out`. `line_count` counts the lines consumed, `entry_count` the Matrix Market
  // entries (both are updated when the parse returns, not when it throws).
  // kWorker (a piece parsed on a worker thread, whose line numbers and entry count are not
  // known yet): the entry count is not checked, and a bad line sets *bad and stops the
  // parse there; the consumer parses that piece again without kWorker for the message.
  // Otherwise a bad line throws its message. Returns where the parse stopped.
  template <bool kMatrixMarket, bool kWorker>
  const char* parse_span(const char* p, const char* const end, std::vector<RawEdge>& out,
                         std::size_t max_edges, std::uint64_t& line_count,
                         std::uint64_t& entry_count, bool* bad) const {
    std::uint64_t line = line_count;
    std::uint64_t entries = entry_count;
    while (p < end && out.size() < max_edges) {
      const char* const start = p;
      ++line;
      while (is_blank(*p)) ++p;
      if (*p == '\n') {  // blank line
        ++p;
        continue;
      }
      if (*p == '#' || *p == '%') {  // comment
        p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p))) + 1;
        continue;
      }
      RawEdge e;
      Token t = parse_u64(p, e.u);
      if (t == Token::Ok && (*p == ' ' || *p == '\t')) {
        do ++p;
        while (*p == ' ' || *p == '\t');
        t = parse_u64(p, e.v);
        if (t == Token::Ok && !is_blank(*p) && *p != '\n') t = Token::NotNumber;
      } else if (t == Token::Ok) {
        t = Token::NotNumber;  // "3" alone, or "3x 4"
      }
      if (t != Token::Ok) [[unlikely]] {
        if constexpr (kWorker) {
          *bad = true;
          p = start;
          --line;
          break;
        } else {
          token_error(t, start, p, line);
        }
      }
      // Skip whatever columns follow the two ids (weights, relationship codes, ...).
      if (*p != '\n') p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      ++p;
      if constexpr (kMatrixMarket) {
        if constexpr (kWorker) {
          if (e.u == 0 || e.u > rows_ || e.v == 0 || e.v > cols_) [[unlikely]] {
            *bad = true;
            p = start;
            --line;
            break;
          }
        } else {
          if (e.u == 0 || e.u > rows_ || e.v == 0 || e.v > cols_ || entries == nnz_) [[unlikely]] {
            matrix_market_entry_error(e, line, entries);
          }
        }
        ++entries;
      }
      out.push_back(e);
    }
    line_count = line;
    entry_count = entries;
    return p;
  }

  // One thread: parses the whole lines in the buffer (the reader as it always was).
  template <bool kMatrixMarket>
  void parse_lines(std::vector<RawEdge>& out, std::size_t max_edges) {
    const char* p = parse_span<kMatrixMarket, false>(buf_.data() + pos_, buf_.data() + lines_end_, out,
                                                    max_edges, line_, entries_, nullptr);
    pos_ = static_cast<std::size_t>(p - buf_.data());
  }

  // A bad line's message, "FILE:LINE: detail". A share's lines are numbered from its first
  // line, whose number only all shares together know: ShareLineError carries both parts.
  [[noreturn]] void fail(std::uint64_t line, const std::string& detail) const {
    if (shares_ > 1) throw ShareLineError(path_, line, detail);
    throw Error(printable(path_) + ":" + std::to_string(line) + ": " + detail);
  }

  // The line starting at `start`, without its line ending, shortened for messages.
  static std::string quote_line(const char* start) {
    const char* e = start;
    while (*e != '\n' && e - start < 80) ++e;
    std::string_view s(start, static_cast<std::size_t>(e - start));
    while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
    std::string q = "\"" + printable(s) + (*e != '\n' ? "...\"" : "\"");
    return q;
  }

  [[noreturn, gnu::noinline, gnu::cold]] void token_error(Token t, const char* start, const char* at,
                                                          std::uint64_t line) const {
    const char* tok_end = at;
    while (*tok_end != '\n' && !is_blank(*tok_end)) ++tok_end;
    const std::string token(at, static_cast<std::size_t>(tok_end - at));
    switch (t) {
      case Token::Negative:
        fail(line, "negative vertex id " + printable(token.size() <= 40 ? token : token.substr(0, 20) + "..."));
      case Token::Overflow: {
        const char* d = at;
        while (static_cast<unsigned>(static_cast<unsigned char>(*d)) - '0' < 10) ++d;
        const std::size_t digits = static_cast<std::size_t>(d - at);  // shown up to 40 digits, as lines are cut
        fail(line, "vertex id " + (digits <= 40 ? std::string(at, digits)
                                                : std::string(at, 20) + "... (" + std::to_string(digits) + " digits)") +
                       " does not fit in 64 bits");
      }
      default:
        fail(line, "malformed line: expected two vertex ids, got " + quote_line(start));
    }
  }

  [[noreturn, gnu::noinline, gnu::cold]] void matrix_market_entry_error(const RawEdge& e, std::uint64_t line,
                                                                        std::uint64_t entries) const {
    if (entries == nnz_) {
      fail(line, "more entries than the " + std::to_string(nnz_) + " declared in the size line (line " +
                     std::to_string(size_line_) + ")");
    }
    const bool row_bad = e.u == 0 || e.u > rows_;
    const std::uint64_t id = row_bad ? e.u : e.v;
    const std::uint64_t limit = row_bad ? rows_ : cols_;
    fail(line, std::string(row_bad ? "row" : "column") + " index " + std::to_string(id) + " is outside 1.." +
                   std::to_string(limit) + (id == 0 ? " (Matrix Market indices are 1-based)" : " (from the size line)"));
  }

  // ---- several threads ------------------------------------------------------------------
  //
  // A reader thread reads blocks of whole lines (the incomplete last line of a block is
  // carried into the next) and cuts each block at line ends into up to `threads_` pieces;
  // worker threads parse the pieces into vectors of their own; next_batch hands the edges
  // out block by block, piece by piece, so the order is the file's. A few blocks are in
  // flight at once (read ahead, being parsed, being handed out) and are reused.
  //
  // Nothing that depends on the lines before a piece is decided on a worker: a bad line
  // only stops its piece, and a Matrix Market entry beyond the declared count is noticed by
  // the consumer. Either way the consumer, once it has handed out every edge before that
  // point, parses the piece again on one thread, now knowing the line number and entry
  // count at its start, and that parse throws exactly the message one thread would have.
  // Likewise a read error (or a line too long) after a block is raised only once every edge
  // of the lines before it has been handed out.

  struct Piece {
    std::size_t begin = 0, end = 0;  // byte range in the block, whole lines
    std::vector<RawEdge> edges;
    std::uint64_t lines = 0;  // lines in the piece (when not bad)
    bool bad = false;         // stopped at a bad line; edges holds those before it
    std::exception_ptr crash;  // e.g. bad_alloc on the worker
  };

  struct Block {
    std::unique_ptr<char[]> data;
    std::size_t capacity = 0, size = 0;  // [0, size): whole lines, each ending in '\n'
    std::vector<Piece> pieces;
    std::size_t npieces = 0;
    unsigned pending = 0;  // pieces not parsed yet (under par_m_)
    bool last = false;     // nothing follows this block
    bool long_line = false;  // after this block's lines: a line longer than kMaxLineBytes
    std::exception_ptr error;  // after this block's lines: the read failed
  };

  struct Task {
    Block* block;
    std::size_t piece;
  };

  void ensure_capacity(Block& b, std::size_t need) {
    if (b.capacity >= need) return;
    std::size_t cap = std::max(need, 2 * b.capacity);
    auto data = std::make_unique_for_overwrite<char[]>(cap);
    if (b.size) std::memcpy(data.get(), b.data.get(), b.size);
    b.data = std::move(data);
    b.capacity = cap;
  }

  // Fills `b` with the carried-over bytes and about block_bytes_ more, cut after the last
  // '\n'; what follows it is carried into the next block. Runs on the reader thread (or, for
  // the first block, the consumer's). Errors are recorded in the block, not thrown.
  void fill_block(Block& b) {
    b.size = 0;
    b.last = b.long_line = false;
    b.error = nullptr;
    try {
      std::size_t target = carry_.size() + block_bytes_;  // read until the block holds this much
      ensure_capacity(b, target + 1);                     // +1: a '\n' for an unterminated last line
      std::memcpy(b.data.get(), carry_.data(), carry_.size());
      b.size = carry_.size();
      carry_.clear();
      const char* nl = nullptr;
      for (;;) {
        while (!in_eof_ && b.size < target) {
          const std::size_t got = in_->read(b.data.get() + b.size, target - b.size);
          if (got == 0) {
            in_eof_ = true;
            break;
          }
          b.size += got;
        }
        nl = static_cast<const char*>(::memrchr(b.data.get(), '\n', b.size));
        // The block starts at a line start; one reader thread refuses a line of
        // kMaxLineBytes or more (with its '\n' or at the end of the input alike).
        const bool too_long = b.size >= kMaxLineBytes &&
                              std::memchr(b.data.get(), '\n', kMaxLineBytes) == nullptr;
        if (too_long) {
          // No return: every path ends in split_block, or a reused block would still show
          // the pieces of its previous use.
          b.size = 0;
          b.long_line = b.last = true;
          break;
        }
        if (nl != nullptr || in_eof_) break;
        // No '\n' in the whole block: one line longer than a block. Read on.
        target = std::min(2 * std::max(target, b.size), kMaxLineBytes);
        ensure_capacity(b, target + 1);
      }
      if (b.long_line) {
        // nothing to parse: the consumer reports the line
      } else if (in_eof_) {
        if (b.size > 0 && b.data[b.size - 1] != '\n') b.data[b.size++] = '\n';
        b.last = true;
      } else {
        const std::size_t cut = static_cast<std::size_t>(nl - b.data.get()) + 1;
        carry_.assign(b.data.get() + cut, b.data.get() + b.size);
        b.size = cut;
      }
    } catch (...) {
      // Keep the whole lines read before the failure (one thread would parse them first).
      b.error = std::current_exception();
      b.last = true;
      const void* nl = b.size ? ::memrchr(b.data.get(), '\n', b.size) : nullptr;
      b.size = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - b.data.get()) + 1 : 0;
    }
    split_block(b);
  }

  // Cuts the block at line ends into pieces of at least min_piece_bytes_.
  void split_block(Block& b) {
    const std::size_t n =
        b.size == 0 ? 0 : std::clamp<std::size_t>(b.size / min_piece_bytes_, 1, threads_);
    if (b.pieces.size() < n) b.pieces.resize(n);
    b.npieces = n;
    std::size_t begin = 0;
    for (std::size_t k = 0; k < n; ++k) {
      std::size_t end = b.size;
      const std::size_t at = std::max(begin, b.size / n * (k + 1));
      if (k + 1 < n && at < b.size) {
        const void* nl = std::memchr(b.data.get() + at, '\n', b.size - at);
        end = static_cast<std::size_t>(static_cast<const char*>(nl) - b.data.get()) + 1;
      }
      Piece& pc = b.pieces[k];
      pc.begin = begin;
      pc.end = end;
      begin = end;
    }
  }

  void parse_piece(Block& b, Piece& pc) {
    pc.edges.clear();
    pc.lines = 0;
    pc.bad = false;
    pc.crash = nullptr;
    try {
      pc.edges.reserve((pc.end - pc.begin) / 8 + 1);
      std::uint64_t lines = 0, entries = 0;
      const char* p = b.data.get() + pc.begin;
      const char* end = b.data.get() + pc.end;
      if (mm_) {
        parse_span<true, true>(p, end, pc.edges, SIZE_MAX, lines, entries, &pc.bad);
      } else {
        parse_span<false, true>(p, end, pc.edges, SIZE_MAX, lines, entries, &pc.bad);
      }
      pc.lines = lines;
    } catch (...) {
      pc.crash = std::current_exception();
    }
  }

  // Publishes a filled block: into the hand-out queue, its pieces onto the task list.
  void publish(Block* b) {
    std::lock_guard lock(par_m_);
    b->pending = static_cast<unsigned>(b->npieces);
    ready_.push_back(b);
    for (std::size_t k = 0; k < b->npieces; ++k) tasks_.push_back(Task{b, k});
    if (b->last) reader_done_ = true;
    par_cv_.notify_all();
  }

  // Runs one task taken off the list (the lock is held on entry and on return).
  void run_task(std::unique_lock<std::mutex>& lock) {
    const Task t = tasks_.front();
    tasks_.pop_front();
    lock.unlock();
    parse_piece(*t.block, t.block->pieces[t.piece]);
    lock.lock();
    if (--t.block->pending == 0) par_cv_.notify_all();
  }

  void worker_loop() {
    std::unique_lock lock(par_m_);
    for (;;) {
      par_cv_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
      if (stop_) return;
      run_task(lock);
    }
  }

  void reader_loop() {
    for (;;) {
      Block* b = nullptr;
      {
        std::unique_lock lock(par_m_);
        par_cv_.wait(lock, [&] { return stop_ || !free_.empty(); });
        if (stop_) return;
        b = free_.back();
        free_.pop_back();
      }
      fill_block(*b);
      publish(b);
      if (b->last) return;
    }
  }

  // Takes over from the one-thread reader (its buffer holds the start of the input, after
  // the byte-order mark and any Matrix Market header): reads the first block here, and
  // starts threads only if there is more than one small block's worth of input.
  void start_parallel() {
    par_started_ = true;
    carry_.assign(buf_.data() + pos_, buf_.data() + data_end_);
    in_eof_ = eof_;
    std::vector<char>().swap(buf_);
    pos_ = lines_end_ = data_end_ = 0;
    for (std::size_t k = 0; k < kBlocksInFlight; ++k) blocks_.push_back(std::make_unique<Block>());
    for (std::size_t k = 1; k < kBlocksInFlight; ++k) free_.push_back(blocks_[k].get());
    Block* first = blocks_[0].get();
    fill_block(*first);
    publish(first);
    if (first->last && first->npieces <= 1) return;  // small: the consumer parses it
    for (unsigned t = 0; t < threads_; ++t) workers_.emplace_back([this] { worker_loop(); });
    if (!first->last) reader_ = std::thread([this] { reader_loop(); });
  }

  void stop_threads() {
    {
      std::lock_guard lock(par_m_);
      stop_ = true;
    }
    par_cv_.notify_all();
    if (reader_.joinable()) reader_.join();
    for (std::thread& t : workers_) t.join();
    workers_.clear();
  }

  // The next block in input order once all its pieces are parsed (helping with the parsing
  // while waiting); nullptr after the last.
  Block* next_parsed_block() {
    std::unique_lock lock(par_m_);
    for (;;) {
      if (!ready_.empty() && ready_.front()->pending == 0) {
        Block* b = ready_.front();
        ready_.pop_front();
        return b;
      }
      if (ready_.empty() && reader_done_) return nullptr;
      if (!tasks_.empty()) {
        run_task(lock);
        continue;
      }
      par_cv_.wait(lock);
    }
  }

  void release(Block* b) {
    std::lock_guard lock(par_m_);
    free_.push_back(b);
    par_cv_.notify_all();
  }

  // Parses piece `pc` again on this thread, from its start with the line number and entry
  // count there, which throws the message of its first bad line or extra entry.
  [[noreturn, gnu::noinline, gnu::cold]] void reparse_piece(const Block& b, const Piece& pc) {
    if (pc.crash) std::rethrow_exception(pc.crash);
    std::vector<RawEdge> scratch;
    std::uint64_t line = line_, entries = entries_ - taken_;
    const char* p = b.data.get() + pc.begin;
    const char* end = b.data.get() + pc.end;
    if (mm_) {
      parse_span<true, false>(p, end, scratch, SIZE_MAX, line, entries, nullptr);
    } else {
      parse_span<false, false>(p, end, scratch, SIZE_MAX, line, entries, nullptr);
    }
    fail(line, "internal error: a piece that failed to parse parsed cleanly");
  }

  // Appends parsed edges to `out` up to `max_edges`, in input order.
  void take_parsed(std::vector<RawEdge>& out, std::size_t max_edges) {
    while (out.size() < max_edges) {
      if (cur_ == nullptr) {
        if (par_end_) return;
        cur_ = next_parsed_block();
        piece_ = 0;
        taken_ = 0;
        if (cur_ == nullptr) {
          par_end_ = true;
          return;
        }
      }
      if (piece_ < cur_->npieces) {
        const Piece& pc = cur_->pieces[piece_];
        std::size_t n = std::min(pc.edges.size() - taken_, max_edges - out.size());
        if (mm_) n = static_cast<std::size_t>(std::min<std::uint64_t>(n, nnz_ - entries_));
        out.insert(out.end(), pc.edges.begin() + static_cast<std::ptrdiff_t>(taken_),
                   pc.edges.begin() + static_cast<std::ptrdiff_t>(taken_ + n));
        taken_ += n;
        if (mm_) entries_ += n;
        if (out.size() == max_edges) return;
        // Room left, yet this piece has edges beyond the declared count, or a bad line.
        if (taken_ < pc.edges.size() || pc.bad || pc.crash) reparse_piece(*cur_, pc);
        line_ += pc.lines;
        ++piece_;
        taken_ = 0;
        continue;
      }
      if (cur_->long_line) fail(line_ + 1, long_line_detail());
      if (cur_->error) std::rethrow_exception(cur_->error);
      const bool last = cur_->last;
      release(cur_);
      cur_ = nullptr;
      if (last) par_end_ = true;
    }
  }

  // Next line for the header, without its line ending; false at end of input.
  bool next_line(std::string_view& line) {
    if (pos_ == lines_end_ && !refill()) return false;
    const char* p = buf_.data() + pos_;
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', lines_end_ - pos_));
    line = std::string_view(p, static_cast<std::size_t>(nl - p));
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = static_cast<std::size_t>(nl + 1 - buf_.data());
    ++line_;
    return true;
  }

  std::string path_;
  std::unique_ptr<ByteInput> in_;  // after start_parallel(), only the reader thread uses it
  std::vector<char> buf_;
  std::size_t pos_ = 0;        // next byte to parse
  std::size_t lines_end_ = 0;  // one past the last '\n' of the complete lines in buf_
  std::size_t data_end_ = 0;   // one past the last byte read
  bool eof_ = false;
  std::uint64_t line_ = 0;  // lines consumed so far (1-based number of the last one)
  bool mm_ = false;
  std::uint64_t rows_ = 0, cols_ = 0, nnz_ = 0, entries_ = 0, size_line_ = 0;
  std::uint64_t declared_ = 0;  // the size line's entry count (nnz_, but for a share)
  bool checked_count_ = false;
  unsigned shares_ = 1;  // > 1: this reader parses one share (EdgeFileOptions::share)

  // Several threads (see start_parallel). The consumer is the thread calling next_batch.
  unsigned threads_ = 1;
  std::size_t block_bytes_ = 0;
  std::size_t min_piece_bytes_ = kMinPieceBytes;
  bool par_started_ = false;
  std::vector<char> carry_;  // reader: the incomplete line after the last block
  bool in_eof_ = false;      // reader: in_ is exhausted
  std::vector<std::unique_ptr<Block>> blocks_;
  std::mutex par_m_;
  std::condition_variable par_cv_;
  std::vector<Block*> free_;  // under par_m_
  std::deque<Block*> ready_;  // under par_m_: read, in input order
  std::deque<Task> tasks_;    // under par_m_: pieces to parse, in input order
  bool reader_done_ = false;  // under par_m_: the last block is in ready_ (or was taken)
  bool stop_ = false;         // under par_m_
  std::thread reader_;
  std::vector<std::thread> workers_;
  Block* cur_ = nullptr;  // consumer: the block being handed out
  std::size_t piece_ = 0;  // consumer: its piece being handed out
  std::size_t taken_ = 0;  // consumer: edges of that piece handed out
  bool par_end_ = false;   // consumer: the last block has been handed out
};

}  // namespace

std::unique_ptr<EdgeSource> open_text_edges(const std::string& path, InputFormat format, const EdgeFileOptions& options) {
  return std::make_unique<TextEdgeSource>(path, format, options);
}

}  // namespace tricount
