// A fast 64-bit content checksum (not cryptographic) for blocks and whole graphs: two
// block files with the same checksums hold the same CSR data, and a journal knows which
// graph it belongs to.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "src/threads.hpp"

namespace tricount {

class Checksum64 {
 public:
  void add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    while (bytes >= 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      mix(w);
      p += 8;
      bytes -= 8;
    }
    std::uint64_t tail = 0;
    std::memcpy(&tail, p, bytes);
    mix(tail ^ (std::uint64_t{bytes} << 56));
  }
  void add_u64(std::uint64_t v) { mix(v); }
  std::uint64_t value() const {
    std::uint64_t x = state_ ^ (count_ * 0x9E3779B97F4A7C15ULL);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
  }

 private:
  void mix(std::uint64_t w) {
    state_ = (state_ ^ (w * 0x87C37B91114253D5ULL)) * 0x4CF5AD432745937FULL;
    state_ = (state_ << 29) | (state_ >> 35);
    ++count_;
  }
  std::uint64_t state_ = 0x6A09E667F3BCC908ULL;
  std::uint64_t count_ = 0;
};

// The checksum of one array's bytes (block format version 2): the bytes are cut into
// pieces of kChecksumPieceBytes, each piece hashed alone (Checksum64 of its index and its
// bytes), and the digest mixes the length and the pieces' values in order. Pieces are
// independent, so a reader checks a 68 MB block with all its cores instead of one (a single
// chained hash ran at 2.6 GB/s and was a third of a worker's load time); a writer that sees
// the bytes a slice at a time gets the same value from ArrayDigestStream.
inline constexpr std::size_t kChecksumPieceBytes = std::size_t{1} << 20;

inline std::uint64_t checksum_piece(const unsigned char* p, std::size_t bytes, std::uint64_t index) {
  Checksum64 c;
  c.add_u64(index);
  c.add(p, bytes);
  return c.value();
}

inline std::uint64_t combine_pieces(std::uint64_t bytes, const std::vector<std::uint64_t>& pieces) {
  Checksum64 c;
  c.add_u64(bytes);
  for (std::uint64_t v : pieces) c.add_u64(v);
  return c.value();
}

// The digest of `bytes` bytes at `data`, computed on up to `threads` threads.
inline std::uint64_t array_digest(const void* data, std::size_t bytes, unsigned threads = 1) {
  const auto* p = static_cast<const unsigned char*>(data);
  const std::size_t n = (bytes + kChecksumPieceBytes - 1) / kChecksumPieceBytes;
  std::vector<std::uint64_t> pieces(n);
  parallel_ranges(n, threads, [&](std::uint64_t first, std::uint64_t last) {
    for (std::uint64_t i = first; i < last; ++i) {
      const std::size_t at = i * kChecksumPieceBytes;
      pieces[i] = checksum_piece(p + at, std::min(kChecksumPieceBytes, bytes - at), i);
    }
  });
  return combine_pieces(bytes, pieces);
}

// array_digest over bytes given a slice at a time.
class ArrayDigestStream {
 public:
  void add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    total_ += bytes;
    while (bytes > 0) {
      if (buffer_.empty() && bytes >= kChecksumPieceBytes) {  // a whole piece in place
        pieces_.push_back(checksum_piece(p, kChecksumPieceBytes, pieces_.size()));
        p += kChecksumPieceBytes;
        bytes -= kChecksumPieceBytes;
        continue;
      }
      const std::size_t take = std::min(bytes, kChecksumPieceBytes - buffer_.size());
      buffer_.insert(buffer_.end(), p, p + take);
      p += take;
      bytes -= take;
      if (buffer_.size() == kChecksumPieceBytes) {
        pieces_.push_back(checksum_piece(buffer_.data(), buffer_.size(), pieces_.size()));
        buffer_.clear();
      }
    }
  }
  std::uint64_t value() {
    if (!buffer_.empty()) {
      pieces_.push_back(checksum_piece(buffer_.data(), buffer_.size(), pieces_.size()));
      buffer_.clear();
    }
    return combine_pieces(total_, pieces_);
  }

 private:
  std::vector<unsigned char> buffer_;
  std::vector<std::uint64_t> pieces_;
  std::uint64_t total_ = 0;
};

// A block's checksum from its shape and its two arrays' digests.
inline std::uint64_t block_checksum(std::uint64_t rows, std::uint64_t cols, std::uint64_t offsets_digest,
                                    std::uint64_t neighbors_digest) {
  Checksum64 c;
  c.add_u64(rows);
  c.add_u64(cols);
  c.add_u64(offsets_digest);
  c.add_u64(neighbors_digest);
  return c.value();
}

// A block file's graph_checksum: the digest of its blocks' checksums in row-major order
// (block (i, j) at i * n + j), written by BlockFileWriter and checked by BlockFileReader.
inline std::uint64_t graph_checksum(const std::vector<std::uint64_t>& block_checksums) {
  Checksum64 c;
  for (std::uint64_t b : block_checksums) c.add_u64(b);
  return c.value();
}

// One digest per vertex class of a per-vertex array (entries c, c + n, c + 2n, ... for
// class c, as array_digest of those entries in that order): the block file's checksums of
// its degrees and of its vertex map, so that a reader of one class checks what it read.
template <class T>
std::vector<std::uint64_t> class_digests(const std::vector<T>& values, std::uint32_t n) {
  std::vector<std::uint64_t> digests(n);
  if (n == 1) {  // the one class is the array itself: no copy, the digest on every core
    digests[0] = array_digest(values.data(), values.size() * sizeof(T), usable_cores());
    return digests;
  }
  const unsigned threads = std::min(n, usable_cores());
  parallel_for(threads, [&](unsigned t) {
    std::vector<T> mine;
    for (std::uint32_t c = t; c < n; c += threads) {
      mine.clear();
      for (std::uint64_t v = c; v < values.size(); v += n) mine.push_back(values[v]);
      digests[c] = array_digest(mine.data(), mine.size() * sizeof(T));
    }
  });
  return digests;
}

}  // namespace tricount
