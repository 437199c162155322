// The binary edge reader: pairs of little-endian uint32 (bin32) or uint64 (bin64), gzip-
// compressed when the name ends in .gz.
#include "input/binary_edges.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
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
      throw Error(printable(path_) + ": size " + std::to_string(bytes) + " bytes is not a multiple of " +
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

}  // namespace

std::unique_ptr<EdgeSource> open_binary_edges(const std::string& path, unsigned word_bytes) {
  return std::make_unique<BinaryEdgeSource>(path, word_bytes);
}

}  // namespace tricount
