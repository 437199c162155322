// The LSD radix sort of the partitioner's runs and ranks (partitioner/radix_sort.hpp): 64-bit
// keys in 10-bit digits and edges in 8-bit digits sort as std::sort does, for keys of every
// width (ids of 20, 26, 32 bits and full 64-bit keys, where the last digit is 4 bits), keys all
// alike, and 0, 1 and 2 records; sort_edges packs pairs below 2^32 into keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "input/edge_source.hpp"
#include "partitioner/radix_sort.hpp"

namespace {

using namespace tricount;

std::vector<std::uint64_t> keys_of(std::size_t n, unsigned id_bits, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> keys(n);
  const std::uint64_t mask = id_bits >= 32 ? 0xFFFFFFFFu : (std::uint64_t{1} << id_bits) - 1;
  for (auto& k : keys) k = id_bits == 64 ? rng() : ((rng() & mask) << 32) | (rng() & mask);
  return keys;
}

TEST(RadixSort, KeysOfEveryWidthSortAsStdSort) {
  for (unsigned bits : {20u, 26u, 32u, 64u})
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{1000}, std::size_t{300000}}) {
      std::vector<std::uint64_t> keys = keys_of(n, bits, bits * 7 + n), scratch(n);
      std::vector<std::uint64_t> want = keys;
      std::sort(want.begin(), want.end());
      radix_sort<std::uint64_t, KeyDigits>(keys.data(), scratch.data(), n);
      EXPECT_TRUE(keys == want) << bits << "-bit ids, " << n << " keys";
    }
  // Every digit the same but one, and all alike.
  std::vector<std::uint64_t> keys(5000, std::uint64_t{0xABCDEF0123456789}), scratch(5000);
  for (std::size_t i = 0; i < keys.size(); i += 3) keys[i] ^= std::uint64_t{1} << 62;  // in the last, 4-bit digit
  std::vector<std::uint64_t> want = keys;
  std::sort(want.begin(), want.end());
  radix_sort<std::uint64_t, KeyDigits>(keys.data(), scratch.data(), keys.size());
  EXPECT_TRUE(keys == want);
  std::vector<std::uint64_t> same(100, 42);
  radix_sort<std::uint64_t, KeyDigits>(same.data(), scratch.data(), same.size());
  EXPECT_TRUE(same == std::vector<std::uint64_t>(100, 42));
}

TEST(RadixSort, EdgesSortByUThenV) {
  std::mt19937_64 rng(3);
  for (bool high : {false, true}) {
    std::vector<RawEdge> edges(50000), scratch;
    for (auto& e : edges) e = RawEdge{rng() % 5000 + (high ? std::uint64_t{1} << 40 : 0), rng() % 5000};
    std::vector<RawEdge> want = edges;
    std::sort(want.begin(), want.end(), [](const RawEdge& a, const RawEdge& b) { return a.u != b.u ? a.u < b.u : a.v < b.v; });
    const bool packed = sort_edges(edges, scratch);
    EXPECT_EQ(packed, !high);
    for (std::size_t i = 0; i < want.size(); ++i) {
      const RawEdge got = packed ? RawEdge{packed_keys(edges)[i] >> 32, packed_keys(edges)[i] & 0xFFFFFFFFu} : edges[i];
      ASSERT_EQ(got, want[i]) << "record " << i << (high ? ", ids above 2^32" : ", packed");
    }
  }
}

}  // namespace
