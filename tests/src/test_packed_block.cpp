// The packed encoding (src/packed_block.hpp): every block shape decodes to itself, on any
// number of threads, and damaged words are errors naming the block, never reads or writes
// outside the arrays.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "src/packed_block.hpp"

using namespace tricount;

namespace {

// A block of `rows` rows over `cols` columns; row r has degree(r) distinct neighbours.
template <class Degree>
CsrBlock make_block(std::uint64_t rows, std::uint64_t cols, Degree degree, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  CsrBlock b;
  b.id = {1, 2};
  b.rows = rows;
  b.cols = cols;
  b.offsets.assign(rows + 1, 0);
  for (std::uint64_t r = 0; r < rows; ++r) {
    const std::uint64_t d = std::min<std::uint64_t>(degree(r, rng), cols);
    std::set<vid_t> row;
    while (row.size() < d) row.insert(static_cast<vid_t>(rng() % cols));
    b.neighbors.insert(b.neighbors.end(), row.begin(), row.end());
    b.offsets[r + 1] = b.neighbors.size();
    b.max_degree = std::max<std::uint32_t>(b.max_degree, static_cast<std::uint32_t>(d));
  }
  return b;
}

CsrBlock round_trip(const CsrBlock& b, unsigned pack_threads, unsigned unpack_threads) {
  const PackedBlock p = pack_block(b.span(), pack_threads);
  EXPECT_EQ(p.index.size(), 2 * (packed_groups(b.rows) + 1));
  CsrBlock out;
  out.id = b.id;
  out.rows = b.rows;
  out.cols = b.cols;
  unpack_block(p.index.data(), p.words.data(), p.words.size(), b.nnz(), out, "'test'", unpack_threads);
  return out;
}

void expect_same(const CsrBlock& a, const CsrBlock& b) {
  ASSERT_EQ(a.offsets.size(), b.offsets.size());
  EXPECT_TRUE(std::equal(a.offsets.begin(), a.offsets.end(), b.offsets.begin()));
  ASSERT_EQ(a.neighbors.size(), b.neighbors.size());
  EXPECT_TRUE(std::equal(a.neighbors.begin(), a.neighbors.end(), b.neighbors.begin()));
}

}  // namespace

TEST(PackedBlock, EveryShapeDecodesToItself) {
  struct Case {
    const char* name;
    std::uint64_t rows, cols;
    std::function<std::uint64_t(std::uint64_t, std::mt19937_64&)> degree;
  };
  const std::vector<Case> cases = {
      {"no rows", 0, 5, [](std::uint64_t, std::mt19937_64&) { return 0; }},
      {"all empty", 1000, 50, [](std::uint64_t, std::mt19937_64&) { return 0; }},
      {"one row", 1, 100, [](std::uint64_t, std::mt19937_64&) { return 7; }},
      {"one neighbour each", 300, 1000, [](std::uint64_t, std::mt19937_64&) { return 1; }},
      {"mostly empty", 5000, 1u << 20, [](std::uint64_t r, std::mt19937_64&) { return r % 37 == 0 ? 3 : 0; }},
      {"skewed", 2000, 30000, [](std::uint64_t r, std::mt19937_64& g) { return r < 3 ? 5000 : g() % 20; }},
      {"dense rows", 130, 200, [](std::uint64_t, std::mt19937_64&) { return 200; }},
      // Ids near 2^32: runs of width 32, gaps of 31 and 32 bits.
      {"wide ids", 260, 0xFFFFFFFFull, [](std::uint64_t r, std::mt19937_64&) { return r % 3; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const CsrBlock b = make_block(c.rows, c.cols, c.degree, 11);
    for (unsigned t : {1u, 3u, 8u}) expect_same(b, round_trip(b, t, 9 - t));
  }
}

TEST(PackedBlock, WordsDoNotDependOnThreads) {
  const CsrBlock b = make_block(40000, 100000, [](std::uint64_t, std::mt19937_64& g) { return g() % 12; }, 3);
  const PackedBlock one = pack_block(b.span(), 1), many = pack_block(b.span(), 7);
  EXPECT_EQ(one.index, many.index);
  EXPECT_TRUE(one.words == many.words);
  // Empty rows cost bits, not an 8-byte offset each.
  const CsrBlock near = make_block(40000, 100000, [](std::uint64_t, std::mt19937_64&) { return 0; }, 3);
  EXPECT_LT(pack_block(near.span()).bytes(), near.bytes() / 10);
}

// Windows of row groups (pack_groups, as the partitioner packs a block too large for memory)
// laid end to end give the whole block's words and index, whatever the windows and threads.
TEST(PackedBlock, WindowsOfGroupsAreTheWholeBlock) {
  const CsrBlock b = make_block(40000, 100000, [](std::uint64_t r, std::mt19937_64& g) { return r > 39990 ? 3000 : g() % 12; }, 5);
  const PackedBlock whole = pack_block(b.span(), 3);
  const std::uint64_t groups = packed_groups(b.rows);
  for (std::uint64_t window : std::vector<std::uint64_t>{1, 7, 64, groups - 1, groups}) {
    SCOPED_TRACE("windows of " + std::to_string(window) + " groups");
    std::vector<std::uint64_t> index(2 * (groups + 1), 0);
    std::vector<std::uint32_t> words;
    for (std::uint64_t g0 = 0; g0 < groups; g0 += window) {
      const std::uint64_t g1 = std::min(groups, g0 + window);
      const PackedBlock part = pack_groups(b.span(), g0, g1, 1 + unsigned(g0 % 4));
      ASSERT_EQ(part.index.size(), 2 * (g1 - g0 + 1));
      EXPECT_EQ(part.index[2 * (g1 - g0)], part.words.size());
      EXPECT_EQ(part.index[2 * (g1 - g0) + 1], b.offsets[std::min(b.rows, g1 * kPackedGroupRows)]);
      for (std::uint64_t g = g0; g < g1; ++g) {
        index[2 * g] = words.size() + part.index[2 * (g - g0)];
        index[2 * g + 1] = part.index[2 * (g - g0) + 1];
      }
      words.insert(words.end(), part.words.begin(), part.words.end());
    }
    index[2 * groups] = words.size();
    index[2 * groups + 1] = b.nnz();
    EXPECT_EQ(index, whole.index);
    ASSERT_EQ(words.size(), whole.words.size());
    EXPECT_TRUE(std::equal(words.begin(), words.end(), whole.words.begin()));
  }
}

TEST(PackedBlock, DamagedWordsAreErrorsNamingTheBlock) {
  const CsrBlock b = make_block(3000, 5000, [](std::uint64_t r, std::mt19937_64& g) { return r % 5 ? g() % 30 : 0; }, 5);
  const PackedBlock good = pack_block(b.span(), 2);
  std::mt19937_64 rng(17);
  int errors = 0;
  for (int trial = 0; trial < 400; ++trial) {
    PackedBlock p = good;
    // Flip bits in a word, or change an index entry.
    if (trial % 4 == 0) {
      const std::size_t k = rng() % p.index.size();
      p.index[k] += 1 + rng() % 3;
    } else {
      const std::size_t k = rng() % p.words.size();
      p.words[k] ^= 1u << (rng() % 32);
    }
    CsrBlock out;
    out.id = b.id;
    out.rows = b.rows;
    out.cols = b.cols;
    try {
      unpack_block(p.index.data(), p.words.data(), p.words.size(), b.nnz(), out, "'damaged.h5'", 1 + trial % 3);
    } catch (const Error& e) {
      ++errors;
      EXPECT_NE(std::string(e.what()).find("'damaged.h5' block P(1,2)"), std::string::npos) << e.what();
    }
  }
  // Many flips decode to another valid-looking block: the block checksum (checked before
  // decoding) is what finds them; here, only that nothing crashes and errors are clear.
  EXPECT_GT(errors, 100);
}

TEST(PackedBlock, RowsOutOfOrderAreRefused) {
  CsrBlock b = make_block(10, 100, [](std::uint64_t, std::mt19937_64&) { return 4; }, 1);
  std::swap(b.neighbors[0], b.neighbors[1]);
  EXPECT_THROW(pack_block(b.span()), Error);
}
