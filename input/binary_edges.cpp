// The binary edge reader: pairs of little-endian uint32 (bin32) or uint64 (bin64), gzip-
// compressed when the name ends in .gz. An uncompressed regular file also gives its edges by
// index (pread at the edge's offset), so that the partitioner reads it on all its threads.
#include "input/binary_edges.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <system_error>
#include <utility>
#include <vector>

#include "input/byte_input.hpp"
#include "src/types.hpp"

namespace tricount {
namespace {

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

// Edge k of an uncompressed binary file is the pair at byte k * 2 * word_bytes: any range of
// them by pread on the reader's descriptor, from any thread.
class BinaryFileEdges final : public IndexedEdges {
 public:
  BinaryFileEdges(std::string path, int fd, unsigned word_bytes, std::uint64_t bytes)
      : path_(std::move(path)), fd_(fd), word_bytes_(word_bytes), count_(bytes / (2 * word_bytes)) {}
  std::uint64_t edge_count() const override { return count_; }
  void edges_at(std::uint64_t first, std::uint64_t n, RawEdge* out) const override {
    TRICOUNT_EXPECTS(first <= count_ && n <= count_ - first, "edges_at: range past the end of the file");
    const std::uint64_t pair = 2 * word_bytes_;
    // The pairs are read into the upper end of `out` (RawEdge is two 8-byte words) and widened
    // forward in place: out[0..k) end at byte 16k, below pair k (bin32: at byte 8n + 8k).
    char* bytes = reinterpret_cast<char*>(out) + n * (sizeof(RawEdge) - pair);
    pread_exactly(bytes, n * pair, first * pair);
    if (word_bytes_ == 4) {
      for (std::uint64_t k = 0; k < n; ++k)
        out[k] = {load_le<std::uint32_t>(bytes + 8 * k), load_le<std::uint32_t>(bytes + 8 * k + 4)};
    } else if constexpr (std::endian::native == std::endian::big) {
      for (std::uint64_t k = 0; k < n; ++k) out[k] = {load_le<std::uint64_t>(bytes + 16 * k), load_le<std::uint64_t>(bytes + 16 * k + 8)};
    }
  }

 private:
  void pread_exactly(char* dst, std::uint64_t bytes, std::uint64_t offset) const {
    while (bytes > 0) {
      const ssize_t r = ::pread(fd_, dst, bytes, static_cast<off_t>(offset));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw Error("cannot read '" + printable(path_) + "': " + std::generic_category().message(errno));
      if (r == 0)
        throw Error(printable(path_) + ": the file ends at byte " + std::to_string(offset) + ", before its " +
                    std::to_string(count_ * 2 * word_bytes_) + " bytes when opened: it changed while being read; "
                    "run again on a file that is not being written");
      dst += r;
      bytes -= static_cast<std::uint64_t>(r);
      offset += static_cast<std::uint64_t>(r);
    }
  }
  std::string path_;
  int fd_;
  unsigned word_bytes_;
  std::uint64_t count_;
};

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
      if (size >= 0) {
        check_size(static_cast<std::uint64_t>(size));  // fail before reading
        indexed_ = std::make_unique<BinaryFileEdges>(path_, fd->descriptor(), word_bytes_, static_cast<std::uint64_t>(size));
      }
      in_ = std::move(fd);
    }
    buf_.resize(kChunkBytes);
  }

  std::string description() const override { return path_; }
  // A regular, uncompressed file: its edges by index (null for gzip, a pipe or a device).
  const IndexedEdges* indexed() const override { return indexed_.get(); }

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
      throw Error(printable(path_) + ": size " + std::to_string(bytes) + " bytes is not a multiple of " +
                  std::to_string(pair) + " (" + (word_bytes_ == 4 ? "bin32" : "bin64") +
                  " edges are pairs of little-endian uint" + std::to_string(8 * word_bytes_) +
                  "); the file is truncated or not in this format");
    }
  }

  std::string path_;
  unsigned word_bytes_;
  std::unique_ptr<ByteInput> in_;
  std::unique_ptr<BinaryFileEdges> indexed_;  // reads through in_'s descriptor
  std::vector<char> buf_;
  std::size_t pos_ = 0, end_ = 0;
  std::uint64_t total_ = 0;  // bytes read (decompressed), for the size message
  bool eof_ = false;
};

}  // namespace

std::unique_ptr<EdgeSource> open_binary_edges(const std::string& path, unsigned word_bytes) {
  return std::make_unique<BinaryEdgeSource>(path, word_bytes);
}

}  // namespace tricount
