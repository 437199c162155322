// The bit stream of a BV graph: big-endian, most significant bit first, and the
// instantaneous codes the format uses. Shared by the decoder and the benchmark encoder.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "input/webgraph.hpp"
#include "src/types.hpp"

namespace tricount::bv {

// Reads codes from a byte array. Reading past the end throws Error ("the stream ends"): the
// caller adds the file and node.
class BitReader {
 public:
  BitReader() = default;
  BitReader(const std::uint8_t* data, std::uint64_t bytes, std::uint64_t bit = 0)
      : data_(data), bytes_(bytes), bits_(bytes * 8), pos_(bit) {}

  std::uint64_t position() const { return pos_; }
  std::uint64_t size_bits() const { return bits_; }
  void seek(std::uint64_t bit) { pos_ = bit; }

  // n in [0, 63].
  std::uint64_t read_bits(unsigned n) {
    if (n == 0) return 0;
    const std::uint64_t v = peek() >> (64 - n);
    advance(n);
    return v;
  }
  bool read_bit() { return read_bits(1) != 0; }

  // x zeros, then a one.
  std::uint64_t read_unary() {
    std::uint64_t zeros = 0;
    while (true) {
      const std::uint64_t w = peek();
      if (w != 0) {
        const unsigned z = static_cast<unsigned>(std::countl_zero(w));
        advance(z + 1);
        return zeros + z;
      }
      zeros += 64;
      advance(64);
    }
  }
  std::uint64_t read_gamma() {
    const std::uint64_t msb = read_unary();
    if (msb > 63) throw Error("a gamma code longer than 64 bits");
    return ((std::uint64_t{1} << msb) | read_bits(static_cast<unsigned>(msb))) - 1;
  }
  std::uint64_t read_delta() {
    const std::uint64_t msb = read_gamma();
    if (msb > 63) throw Error("a delta code longer than 64 bits");
    return ((std::uint64_t{1} << msb) | read_bits(static_cast<unsigned>(msb))) - 1;
  }
  std::uint64_t read_zeta(unsigned k) {
    const std::uint64_t h = read_unary();
    if ((h + 1) * k > 63) throw Error("a zeta code longer than 64 bits");
    const std::uint64_t left = std::uint64_t{1} << (h * k);
    const std::uint64_t m = read_bits(static_cast<unsigned>(h * k + k - 1));
    if (m < left) return m + left - 1;
    return (m << 1) + static_cast<std::uint64_t>(read_bit()) - 1;
  }
  // Groups of 3 bits, most significant first, each after a flag bit that is 1 on the last.
  std::uint64_t read_nibble() {
    std::uint64_t x = 0;
    for (unsigned groups = 0;; ++groups) {
      if (groups == 22) throw Error("a nibble code longer than 64 bits");
      const std::uint64_t b = read_bits(4);
      x = (x << 3) | (b & 7);
      if (b & 8) return x;
    }
  }
  std::uint64_t read(BvCode code, unsigned zeta_k) {
    switch (code) {
      case BvCode::Unary: return read_unary();
      case BvCode::Gamma: return read_gamma();
      case BvCode::Delta: return read_delta();
      case BvCode::Zeta: return read_zeta(zeta_k);
      case BvCode::Nibble: return read_nibble();
    }
    return read_gamma();
  }

 private:
  // The 64 bits from pos_ on, zeros past the end of the data.
  std::uint64_t peek() const {
    const std::uint64_t byte = pos_ >> 3;
    const unsigned shift = static_cast<unsigned>(pos_ & 7);
    if (byte + 9 <= bytes_) {
      std::uint64_t w;
      std::memcpy(&w, data_ + byte, 8);
      w = __builtin_bswap64(w);
      if (shift == 0) return w;
      return (w << shift) | (data_[byte + 8] >> (8 - shift));
    }
    std::uint64_t w = 0;
    for (std::uint64_t b = 0; b < 8; ++b) w = (w << 8) | (byte + b < bytes_ ? data_[byte + b] : 0u);
    if (shift == 0) return w;
    const std::uint64_t next = byte + 8 < bytes_ ? data_[byte + 8] : 0u;
    return (w << shift) | (next >> (8 - shift));
  }
  void advance(std::uint64_t n) {
    pos_ += n;
    if (pos_ > bits_) throw Error("the stream ends inside this code (truncated or corrupt file)");
  }

  const std::uint8_t* data_ = nullptr;
  std::uint64_t bytes_ = 0, bits_ = 0, pos_ = 0;
};

// Writes codes into a growing byte array (the benchmark encoder and tests).
class BitWriter {
 public:
  void write_bits(std::uint64_t value, unsigned n) {  // n in [0, 64]
    for (unsigned i = n; i-- > 0;) put((value >> i) & 1);
  }
  void write_unary(std::uint64_t x) {
    for (std::uint64_t i = 0; i < x; ++i) put(0);
    put(1);
  }
  void write_gamma(std::uint64_t x) {
    const std::uint64_t v = x + 1;
    const unsigned msb = 63 - static_cast<unsigned>(std::countl_zero(v));
    write_unary(msb);
    write_bits(v, msb);
  }
  void write_delta(std::uint64_t x) {
    const std::uint64_t v = x + 1;
    const unsigned msb = 63 - static_cast<unsigned>(std::countl_zero(v));
    write_gamma(msb);
    write_bits(v, msb);
  }
  void write_zeta(std::uint64_t x, unsigned k) {
    const std::uint64_t v = x + 1;
    const unsigned msb = 63 - static_cast<unsigned>(std::countl_zero(v));
    const unsigned h = msb / k;
    write_unary(h);
    const std::uint64_t left = std::uint64_t{1} << (h * k);
    const std::uint64_t z = v - left;  // minimal binary code of z in [0, 2^((h+1)k) - 2^(hk))
    if (z < left) write_bits(z, h * k + k - 1);
    else write_bits(z + left, h * k + k);
  }
  void write_nibble(std::uint64_t x) {
    unsigned groups = 1;
    while (groups < 22 && (x >> (3 * groups)) != 0) ++groups;
    for (unsigned g = groups; g-- > 0;) write_bits(((g == 0) ? 8u : 0u) | ((x >> (3 * g)) & 7), 4);
  }
  void write(BvCode code, std::uint64_t x, unsigned zeta_k) {
    switch (code) {
      case BvCode::Unary: return write_unary(x);
      case BvCode::Gamma: return write_gamma(x);
      case BvCode::Delta: return write_delta(x);
      case BvCode::Zeta: return write_zeta(x, zeta_k);
      case BvCode::Nibble: return write_nibble(x);
    }
  }
  std::uint64_t bits() const { return bits_; }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }  // padded with zeros

 private:
  void put(std::uint64_t bit) {
    if ((bits_ & 7) == 0) bytes_.push_back(0);
    if (bit) bytes_.back() |= static_cast<std::uint8_t>(0x80u >> (bits_ & 7));
    ++bits_;
  }
  std::vector<std::uint8_t> bytes_;
  std::uint64_t bits_ = 0;
};

// Zig-zag: 0, 1, 2, 3, 4 -> 0, -1, 1, -2, 2 (the first residual is relative to the node).
inline std::int64_t nat_to_int(std::uint64_t x) {
  return (x & 1) ? -static_cast<std::int64_t>((x + 1) >> 1) : static_cast<std::int64_t>(x >> 1);
}
inline std::uint64_t int_to_nat(std::int64_t x) {
  return x >= 0 ? static_cast<std::uint64_t>(x) << 1 : (static_cast<std::uint64_t>(-x) << 1) - 1;
}

}  // namespace tricount::bv
