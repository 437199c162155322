// LSD radix sort on fixed-width keys, for the pipeline's sorted runs: digits of Digits::kBits
// bits (8 for pairs, 10 for 64-bit keys: fewer passes over memory), one histogram pass for all
// digits, then one stable scatter pass per digit that is not the same in every record (small
// ids need few passes: Kronecker 24's pairs take 6 of 16). A sorter
// thread sorts its own buffer; the pipeline runs one sorter per thread.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "src/types.hpp"

namespace tricount {

// Digit d (0 = least significant) of a record's key, for RawEdge ordered by (u, v) and for
// 64-bit keys.
struct RawEdgeDigits {
  static constexpr unsigned kBits = 8, kDigits = 16;
  static unsigned digit(const RawEdge& e, unsigned d) {
    return d < 8 ? static_cast<unsigned>(e.v >> (8 * d)) & 0xFF : static_cast<unsigned>(e.u >> (8 * (d - 8))) & 0xFF;
  }
};
struct KeyDigits {
  static constexpr unsigned kBits = 10, kDigits = 7;
  static unsigned digit(std::uint64_t k, unsigned d) { return static_cast<unsigned>(k >> (10 * d)) & 0x3FF; }
};

// Sorts data[0, n) ascending by key; `scratch` holds n records (its contents are lost).
template <class T, class Digits>
void radix_sort(T* data, T* scratch, std::size_t n) {
  constexpr unsigned D = Digits::kDigits, B = 1u << Digits::kBits;
  if (n < 2) return;
  // 1. Histograms of every digit in one pass.
  std::vector<std::array<std::uint64_t, B>> count(D);
  for (auto& c : count) c.fill(0);
  for (std::size_t k = 0; k < n; ++k)
    for (unsigned d = 0; d < D; ++d) ++count[d][Digits::digit(data[k], d)];
  // 2. One stable scatter per digit that differs somewhere, least significant first.
  T* from = data;
  T* to = scratch;
  for (unsigned d = 0; d < D; ++d) {
    if (count[d][Digits::digit(data[0], d)] == n) continue;  // the same in every record
    std::array<std::uint64_t, B> start;
    std::uint64_t sum = 0;
    for (unsigned b = 0; b < B; ++b) start[b] = std::exchange(sum, sum + count[d][b]);
    for (std::size_t k = 0; k < n; ++k) to[start[Digits::digit(from[k], d)]++] = from[k];
    std::swap(from, to);
  }
  // 3. The result is where the last pass left it.
  if (from != data) std::memcpy(static_cast<void*>(data), from, n * sizeof(T));
}

template <class T, class Digits>
void radix_sort(std::vector<T>& data, std::vector<T>& scratch) {
  if (scratch.size() < data.size()) scratch.resize(data.size());
  radix_sort<T, Digits>(data.data(), scratch.data(), data.size());
}

// Sorts pairs by (u, v). When every id is below 2^32 (checked here) the pairs are packed in
// place into 64-bit keys u << 32 | v and those are sorted, half the bytes per pass, and left
// packed: returns true, and packed_keys(edges)[0, n) holds the n sorted keys (the runs keep
// them so, 8 bytes an edge). Else the 16-byte pairs are sorted and it returns false.
// `scratch` is grown as needed.
inline std::uint64_t* packed_keys(std::vector<RawEdge>& edges) { return reinterpret_cast<std::uint64_t*>(edges.data()); }

inline bool sort_edges(std::vector<RawEdge>& edges, std::vector<RawEdge>& scratch) {
  const std::size_t n = edges.size();
  raw_id_t any_high = 0;
  for (const RawEdge& e : edges) any_high |= (e.u | e.v) >> 32;
  if (any_high) {
    radix_sort<RawEdge, RawEdgeDigits>(edges, scratch);
    return false;
  }
  static_assert(sizeof(RawEdge) == 2 * sizeof(std::uint64_t));
  // 1. Pack: key k overwrites 8 bytes of pair k / 2, already read.
  std::uint64_t* keys = packed_keys(edges);
  for (std::size_t k = 0; k < n; ++k) {
    const RawEdge e = edges[k];
    keys[k] = (e.u << 32) | e.v;
  }
  // 2. Sort the keys.
  if (scratch.size() < (n + 1) / 2) scratch.resize((n + 1) / 2);
  radix_sort<std::uint64_t, KeyDigits>(keys, reinterpret_cast<std::uint64_t*>(scratch.data()), n);
  return true;
}

}  // namespace tricount
