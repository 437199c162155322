// A fast 64-bit content checksum (not cryptographic) for blocks and whole graphs: two
// block files with the same checksums hold the same CSR data, and a journal knows which
// graph it belongs to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

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

}  // namespace tricount
