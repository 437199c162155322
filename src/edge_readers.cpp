// Edge-file readers: text edge lists (SNAP / GraphChallenge), Matrix Market coordinate
// files, and binary little-endian uint32/uint64 pairs, each optionally gzip-compressed.
//
// Everything is read as a stream through a fixed-size buffer (a few MiB), so a file of any
// size needs bounded memory; the parser works on whole lines inside the buffer and only
// moves the one incomplete line at the end of a chunk. Numbers are parsed by hand: this is
// the part of the partitioner that touches every input byte.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "src/edge_source.hpp"
#include "src/types.hpp"

namespace tricount {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{4} << 20;
// A single line longer than this is certainly not an edge list; refuse rather than grow
// the buffer without bound (e.g. when a binary file is read as text).
constexpr std::size_t kMaxLineBytes = std::size_t{64} << 20;

std::string errno_message(int err) { return std::generic_category().message(err); }

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string to_lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = ascii_lower(c);
  return r;
}

bool ends_with_ci(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && to_lower(s.substr(s.size() - suffix.size())) == suffix;
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && to_lower(s.substr(0, prefix.size())) == to_lower(prefix);
}

bool has_gz_suffix(const std::string& path) { return ends_with_ci(path, ".gz"); }

// ---------------------------------------------------------------------------------------
// Byte streams

class ByteInput {
 public:
  virtual ~ByteInput() = default;
  // Reads up to `n` bytes; returns 0 only at the end of the stream. Throws Error.
  virtual std::size_t read(char* dst, std::size_t n) = 0;
};

// Opens `path` read-only, with the errors worded the way users expect from other tools.
int open_readable(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open '" + path + "': " + errno_message(errno));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error("cannot open '" + path + "': " + errno_message(EISDIR));
  }
  return fd;
}

class FdInput final : public ByteInput {
 public:
  explicit FdInput(const std::string& path) : path_(path), fd_(open_readable(path)) {}
  ~FdInput() override { ::close(fd_); }
  FdInput(const FdInput&) = delete;
  FdInput& operator=(const FdInput&) = delete;

  std::size_t read(char* dst, std::size_t n) override {
    for (;;) {
      const ssize_t r = ::read(fd_, dst, n);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno != EINTR) throw Error("cannot read '" + path_ + "': " + errno_message(errno));
    }
  }

  // Size of a regular file, or -1 for pipes and devices.
  long long regular_size() const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    return static_cast<long long>(st.st_size);
  }

 private:
  std::string path_;
  int fd_;
};

// zlib stream. gzdopen reads a file that is not gzip "transparently" (byte for byte), so
// text inputs always go through here: a compressed file without a .gz name still works.
class GzInput final : public ByteInput {
 public:
  explicit GzInput(const std::string& path) : path_(path) {
    const int fd = open_readable(path);
    gz_ = ::gzdopen(fd, "rb");
    if (gz_ == nullptr) {
      ::close(fd);
      throw Error("cannot open '" + path + "': zlib could not allocate its stream state");
    }
    ::gzbuffer(gz_, 1u << 20);  // fewer, larger read() calls than zlib's 8 KiB default
  }
  ~GzInput() override { ::gzclose(gz_); }
  GzInput(const GzInput&) = delete;
  GzInput& operator=(const GzInput&) = delete;

  std::size_t read(char* dst, std::size_t n) override {
    // gzread takes an unsigned and returns an int: keep each request well below INT_MAX.
    const unsigned want = static_cast<unsigned>(std::min<std::size_t>(n, std::size_t{1} << 30));
    const int r = ::gzread(gz_, dst, want);
    // A truncated stream reads like a normal end (0) with the error Z_BUF_ERROR recorded,
    // so the error state must be checked on every short read, not only when r < 0.
    if (r <= 0) {
      int err = Z_OK;
      const char* msg = ::gzerror(gz_, &err);
      if (err == Z_ERRNO) {
        throw Error("cannot read '" + path_ + "': " + errno_message(errno));
      }
      if (err != Z_OK || r < 0) {
        std::string_view what = msg ? msg : "unknown error";
        // zlib prefixes its message with the name it was opened under, "<fd:N>: " here.
        if (what.starts_with("<fd:")) {
          if (const auto colon = what.find(": "); colon != std::string_view::npos) what.remove_prefix(colon + 2);
        }
        throw Error(path_ + ": gzip stream error: " + std::string(what) +
                    (err == Z_BUF_ERROR ? " (the file is truncated)" : ""));
      }
    }
    return static_cast<std::size_t>(r);
  }

 private:
  std::string path_;
  gzFile gz_ = nullptr;
};

// ---------------------------------------------------------------------------------------
// Text: edge lists and Matrix Market

// Number parsing result for one token.
enum class Token { Ok, NotNumber, Negative, Overflow };

// Parses a decimal uint64 at p (advancing p past the digits). Leading zeros are allowed.
inline Token parse_u64(const char*& p, std::uint64_t& value) {
  const char* q = p;
  std::uint64_t x = 0;
  unsigned d;
  while ((d = static_cast<unsigned>(static_cast<unsigned char>(*q)) - '0') < 10) {
    // Nineteen digits always fit; the overflow checks only ever fire on the twentieth.
    if (__builtin_mul_overflow(x, std::uint64_t{10}, &x) ||
        __builtin_add_overflow(x, std::uint64_t{d}, &x)) {
      return Token::Overflow;
    }
    ++q;
  }
  if (q == p) {
    // q[1] is only looked at after a '-', so it is still inside the '\n'-terminated line.
    const bool negative = *q == '-' && static_cast<unsigned>(static_cast<unsigned char>(q[1])) - '0' < 10;
    return negative ? Token::Negative : Token::NotNumber;
  }
  value = x;
  p = q;
  return Token::Ok;
}

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

class TextEdgeSource final : public EdgeSource {
 public:
  TextEdgeSource(std::string path, bool matrix_market)
      : path_(std::move(path)), in_(std::make_unique<GzInput>(path_)), mm_(matrix_market) {
    buf_.resize(kChunkBytes + 1);  // +1: room for the '\n' appended to an unterminated last line
    // A UTF-8 byte-order mark (left by some Windows tools) is not part of the first line.
    if (refill() && lines_end_ >= 3 && std::memcmp(buf_.data(), "\xEF\xBB\xBF", 3) == 0) pos_ = 3;
    if (mm_) read_matrix_market_header();
  }

  std::string description() const override { return path_; }

  bool next_batch(std::vector<RawEdge>& out, std::size_t max_edges) override {
    TRICOUNT_EXPECTS(max_edges > 0, "next_batch: max_edges must be positive");
    out.clear();
    out.reserve(std::min<std::size_t>(max_edges, std::size_t{1} << 20));
    while (out.size() < max_edges) {
      if (pos_ == lines_end_ && !refill()) break;
      if (mm_) {
        parse_lines<true>(out, max_edges);
      } else {
        parse_lines<false>(out, max_edges);
      }
    }
    if (out.empty() && mm_ && !checked_count_) {
      checked_count_ = true;
      if (entries_ != nnz_) {
        throw Error(path_ + ": the size line (line " + std::to_string(size_line_) + ") declares " +
                    std::to_string(nnz_) + " entries but the file has " +
                    std::to_string(entries_));
      }
    }
    return !out.empty();
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
        if (buf_.size() - 1 >= kMaxLineBytes) {
          throw Error(where(line_ + 1) + "line longer than " +
                      std::to_string(kMaxLineBytes >> 20) + " MiB; is this really a text file?");
        }
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

  // The parser's hot loop. Every line in [pos_, lines_end_) ends with '\n', which stops
  // each scan, so no bounds checks are needed inside a line.
  template <bool kMatrixMarket>
  void parse_lines(std::vector<RawEdge>& out, std::size_t max_edges) {
    const char* p = buf_.data() + pos_;
    const char* const end = buf_.data() + lines_end_;
    std::uint64_t line = line_;
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
        line_ = line;
        token_error(t, start, p);
      }
      // Skip whatever columns follow the two ids (weights, relationship codes, ...).
      if (*p != '\n') p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      ++p;
      if constexpr (kMatrixMarket) {
        if (e.u == 0 || e.u > rows_ || e.v == 0 || e.v > cols_ || entries_ == nnz_) [[unlikely]] {
          line_ = line;
          matrix_market_entry_error(e);
        }
        ++entries_;
      }
      out.push_back(e);
    }
    pos_ = static_cast<std::size_t>(p - buf_.data());
    line_ = line;
  }

  std::string where(std::uint64_t line) const { return path_ + ":" + std::to_string(line) + ": "; }

  // The line starting at `start`, without its line ending, shortened for messages.
  static std::string quote_line(const char* start) {
    const char* e = start;
    while (*e != '\n' && e - start < 80) ++e;
    std::string_view s(start, static_cast<std::size_t>(e - start));
    while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
    std::string q = "\"" + std::string(s) + (*e != '\n' ? "...\"" : "\"");
    return q;
  }

  [[noreturn, gnu::noinline, gnu::cold]] void token_error(Token t, const char* start,
                                                          const char* at) const {
    const char* tok_end = at;
    while (*tok_end != '\n' && !is_blank(*tok_end)) ++tok_end;
    const std::string token(at, static_cast<std::size_t>(tok_end - at));
    switch (t) {
      case Token::Negative:
        throw Error(where(line_) + "negative vertex id " + token);
      case Token::Overflow: {
        const char* d = at;
        while (static_cast<unsigned>(static_cast<unsigned char>(*d)) - '0' < 10) ++d;
        throw Error(where(line_) + "vertex id " + std::string(at, static_cast<std::size_t>(d - at)) +
                    " does not fit in 64 bits");
      }
      default:
        throw Error(where(line_) + "malformed line: expected two vertex ids, got " +
                    quote_line(start));
    }
  }

  [[noreturn, gnu::noinline, gnu::cold]] void matrix_market_entry_error(const RawEdge& e) const {
    if (entries_ == nnz_) {
      throw Error(where(line_) + "more entries than the " + std::to_string(nnz_) +
                  " declared in the size line (line " + std::to_string(size_line_) + ")");
    }
    const bool row_bad = e.u == 0 || e.u > rows_;
    const std::uint64_t id = row_bad ? e.u : e.v;
    const std::uint64_t limit = row_bad ? rows_ : cols_;
    throw Error(where(line_) + (row_bad ? "row" : "column") + " index " + std::to_string(id) +
                " is outside 1.." + std::to_string(limit) +
                (id == 0 ? " (Matrix Market indices are 1-based)" : " (from the size line)"));
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

  static std::vector<std::string> split_words(std::string_view s) {
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && is_blank(s[i])) ++i;
      std::size_t j = i;
      while (j < s.size() && !is_blank(s[j])) ++j;
      if (j > i) words.emplace_back(s.substr(i, j - i));
      i = j;
    }
    return words;
  }

  // Banner "%%MatrixMarket matrix coordinate <field> <symmetry>", comments, then the size
  // line "rows cols nnz". Entries keep their 1-based ids as they appear in the file: raw ids
  // are "as in the input" everywhere, so a vertex map points back at the file's indices.
  // Symmetric files store one triangle; each stored entry is one undirected edge, which is
  // all the partitioner needs (it symmetrizes every input anyway).
  void read_matrix_market_header() {
    std::string_view line;
    if (!next_line(line)) throw Error(path_ + ": empty file; expected a Matrix Market banner");
    const std::vector<std::string> w = split_words(line);
    if (w.empty() || to_lower(w[0]) != "%%matrixmarket") {
      throw Error(where(1) + "not a Matrix Market file: the first line must start with "
                  "%%MatrixMarket, got " + quote_view(line));
    }
    if (w.size() < 5) {
      throw Error(where(1) + "incomplete Matrix Market banner " + quote_view(line) +
                  "; expected '%%MatrixMarket matrix coordinate <field> <symmetry>'");
    }
    const std::string object = to_lower(w[1]), format = to_lower(w[2]);
    const std::string field = to_lower(w[3]), symmetry = to_lower(w[4]);
    if (object != "matrix") {
      throw Error(where(1) + "Matrix Market object '" + w[1] + "' is not supported; expected 'matrix'");
    }
    if (format == "array") {
      throw Error(where(1) + "Matrix Market 'array' (dense) format is not supported; a graph "
                  "must be a 'coordinate' (sparse) matrix");
    }
    if (format != "coordinate") {
      throw Error(where(1) + "unknown Matrix Market format '" + w[2] + "'; expected 'coordinate'");
    }
    if (field == "complex") {
      throw Error(where(1) + "complex Matrix Market matrices are not supported; use pattern, "
                  "integer or real");
    }
    if (field != "pattern" && field != "integer" && field != "real" && field != "double") {
      throw Error(where(1) + "unknown Matrix Market field '" + w[3] +
                  "'; expected pattern, integer or real");
    }
    if (symmetry == "hermitian") {
      throw Error(where(1) + "hermitian Matrix Market matrices are not supported; use general "
                  "or symmetric");
    }
    // Skew-symmetric has the same pattern as symmetric (and a zero diagonal): one edge each.
    if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric") {
      throw Error(where(1) + "unknown Matrix Market symmetry '" + w[4] +
                  "'; expected general or symmetric");
    }
    for (;;) {
      if (!next_line(line)) throw Error(path_ + ": missing the Matrix Market size line 'rows cols nnz'");
      std::size_t i = 0;
      while (i < line.size() && is_blank(line[i])) ++i;
      if (i == line.size() || line[i] == '%') continue;
      break;
    }
    size_line_ = line_;
    const std::string text(line);  // NUL-terminated copy for the token parser
    const char* p = text.c_str();
    std::array<std::uint64_t, 3> v{};
    for (std::size_t k = 0; k < 3; ++k) {
      while (is_blank(*p)) ++p;
      if (parse_u64(p, v[k]) != Token::Ok || (*p != '\0' && !is_blank(*p))) {
        throw Error(where(line_) + "malformed Matrix Market size line: expected 'rows cols nnz', got " +
                    quote_view(line));
      }
    }
    while (is_blank(*p)) ++p;
    if (*p != '\0') {
      throw Error(where(line_) + "malformed Matrix Market size line: expected 'rows cols nnz', got " +
                  quote_view(line));
    }
    rows_ = v[0];
    cols_ = v[1];
    nnz_ = v[2];
    if (symmetry != "general" && rows_ != cols_) {
      throw Error(where(line_) + "a " + symmetry + " matrix must be square, but the size line says " +
                  std::to_string(rows_) + " x " + std::to_string(cols_));
    }
  }

  static std::string quote_view(std::string_view s) {
    if (s.size() > 80) return "\"" + std::string(s.substr(0, 80)) + "...\"";
    return "\"" + std::string(s) + "\"";
  }

  std::string path_;
  std::unique_ptr<ByteInput> in_;
  std::vector<char> buf_;
  std::size_t pos_ = 0;        // next byte to parse
  std::size_t lines_end_ = 0;  // one past the last '\n' of the complete lines in buf_
  std::size_t data_end_ = 0;   // one past the last byte read
  bool eof_ = false;
  std::uint64_t line_ = 0;  // lines consumed so far (1-based number of the last one)
  bool mm_ = false;
  std::uint64_t rows_ = 0, cols_ = 0, nnz_ = 0, entries_ = 0, size_line_ = 0;
  bool checked_count_ = false;
};

// ---------------------------------------------------------------------------------------
// Binary pairs

template <class Word>
Word load_le(const char* p) {
  Word w;
  std::memcpy(&w, p, sizeof w);
  if constexpr (std::endian::native == std::endian::big) {
    if constexpr (sizeof(Word) == 4) w = __builtin_bswap32(w);
    else w = __builtin_bswap64(w);
  }
  return w;
}

class BinaryEdgeSource final : public EdgeSource {
 public:
  BinaryEdgeSource(std::string path, unsigned word_bytes)
      : path_(std::move(path)), word_bytes_(word_bytes) {
    // A binary file is never sniffed for gzip: its first id could start with 1f 8b.
    if (has_gz_suffix(path_)) {
      in_ = std::make_unique<GzInput>(path_);
    } else {
      auto fd = std::make_unique<FdInput>(path_);
      const long long size = fd->regular_size();
      if (size >= 0) check_size(static_cast<std::uint64_t>(size));  // fail before reading
      in_ = std::move(fd);
    }
    buf_.resize(kChunkBytes);
  }

  std::string description() const override { return path_; }

  bool next_batch(std::vector<RawEdge>& out, std::size_t max_edges) override {
    TRICOUNT_EXPECTS(max_edges > 0, "next_batch: max_edges must be positive");
    out.clear();
    const std::size_t pair = 2 * word_bytes_;
    while (out.size() < max_edges) {
      if (end_ - pos_ < pair) {
        if (eof_) break;
        const std::size_t tail = end_ - pos_;
        std::memmove(buf_.data(), buf_.data() + pos_, tail);
        pos_ = 0;
        end_ = tail;
        while (end_ < pair) {
          const std::size_t got = in_->read(buf_.data() + end_, buf_.size() - end_);
          if (got == 0) {
            eof_ = true;
            break;
          }
          end_ += got;
          total_ += got;
        }
        if (end_ < pair) {
          if (end_ != 0) check_size(total_);  // a partial pair at the end
          break;
        }
      }
      const std::size_t n = std::min((end_ - pos_) / pair, max_edges - out.size());
      const char* p = buf_.data() + pos_;
      const std::size_t old = out.size();
      out.resize(old + n);
      RawEdge* dst = out.data() + old;
      if (word_bytes_ == 4) {
        for (std::size_t i = 0; i < n; ++i, p += 8) dst[i] = {load_le<std::uint32_t>(p), load_le<std::uint32_t>(p + 4)};
      } else {
        for (std::size_t i = 0; i < n; ++i, p += 16) dst[i] = {load_le<std::uint64_t>(p), load_le<std::uint64_t>(p + 8)};
      }
      pos_ += n * pair;
    }
    return !out.empty();
  }

 private:
  void check_size(std::uint64_t bytes) const {
    const unsigned pair = 2 * word_bytes_;
    if (bytes % pair != 0) {
      throw Error(path_ + ": size " + std::to_string(bytes) + " bytes is not a multiple of " +
                  std::to_string(pair) + " (" + (word_bytes_ == 4 ? "bin32" : "bin64") +
                  " edges are pairs of little-endian uint" + std::to_string(8 * word_bytes_) +
                  "); the file is truncated or not in this format");
    }
  }

  std::string path_;
  unsigned word_bytes_;
  std::unique_ptr<ByteInput> in_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, end_ = 0;
  std::uint64_t total_ = 0;  // bytes read (decompressed), for the size message
  bool eof_ = false;
};

// True when the (possibly gzip-compressed) text file starts with the Matrix Market banner.
bool starts_with_matrix_market_banner(const std::string& path) {
  GzInput in(path);
  std::array<char, 32> head{};
  std::size_t n = 0;
  while (n < head.size()) {
    const std::size_t got = in.read(head.data() + n, head.size() - n);
    if (got == 0) break;
    n += got;
  }
  std::string_view s(head.data(), n);
  if (s.starts_with("\xEF\xBB\xBF")) s.remove_prefix(3);
  return starts_with_ci(s, "%%MatrixMarket");
}

}  // namespace

InputFormat parse_input_format(std::string_view name) {
  const std::string n = to_lower(name);
  if (n == "auto") return InputFormat::Auto;
  if (n == "edgelist" || n == "text" || n == "txt") return InputFormat::EdgeList;
  if (n == "mtx" || n == "mm" || n == "matrixmarket") return InputFormat::MatrixMarket;
  if (n == "bin32") return InputFormat::Bin32;
  if (n == "bin64" || n == "bin") return InputFormat::Bin64;
  throw UsageError("unknown input format '" + std::string(name) +
                   "'; choose one of auto, edgelist, mtx, bin32, bin64");
}

std::string_view to_string(InputFormat f) {
  switch (f) {
    case InputFormat::Auto: return "auto";
    case InputFormat::EdgeList: return "edgelist";
    case InputFormat::MatrixMarket: return "mtx";
    case InputFormat::Bin32: return "bin32";
    case InputFormat::Bin64: return "bin64";
  }
  return "unknown";
}

InputFormat detect_input_format(const std::string& path) {
  std::string_view name = path;
  if (ends_with_ci(name, ".gz")) name.remove_suffix(3);
  if (ends_with_ci(name, ".mtx") || ends_with_ci(name, ".mm")) return InputFormat::MatrixMarket;
  if (ends_with_ci(name, ".bin32")) return InputFormat::Bin32;
  if (ends_with_ci(name, ".bin64") || ends_with_ci(name, ".bin")) return InputFormat::Bin64;
  return starts_with_matrix_market_banner(path) ? InputFormat::MatrixMarket : InputFormat::EdgeList;
}

std::unique_ptr<EdgeSource> open_edge_file(const std::string& path, InputFormat format) {
  if (format == InputFormat::Auto) format = detect_input_format(path);
  switch (format) {
    case InputFormat::EdgeList: return std::make_unique<TextEdgeSource>(path, false);
    case InputFormat::MatrixMarket: return std::make_unique<TextEdgeSource>(path, true);
    case InputFormat::Bin32: return std::make_unique<BinaryEdgeSource>(path, 4);
    case InputFormat::Bin64: return std::make_unique<BinaryEdgeSource>(path, 8);
    case InputFormat::Auto: break;
  }
  throw Error("open_edge_file: unhandled input format");
}

}  // namespace tricount
