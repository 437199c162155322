// BlockAllocator's large arrays and ReuseFreedArrays: a freed array is handed to the next
// allocation it fits while the scope lives; the arrays in use and kept never exceed the most
// that were in use at once; small arrays are not kept; nothing is kept after the scope.
#include <gtest/gtest.h>

#include <cstdint>

#include "src/block_memory.hpp"

using namespace tricount;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
using Bytes = BlockArray<unsigned char>;

Bytes sized(std::size_t bytes) {
  Bytes a;
  a.resize(bytes);
  return a;
}

TEST(ReuseFreedArrays, AFreedArrayIsHandedToTheNextThatFits) {
  const ReuseFreedArrays reuse;
  Bytes a = sized(128 * kMiB);
  a[0] = 7;
  const unsigned char* first = a.data();
  Bytes().swap(a);
  const Bytes b = sized(100 * kMiB);  // fits in 128 MiB (not more than twice its size)
  EXPECT_EQ(b.data(), first);
  EXPECT_EQ(b[0], 7) << "a reused array is not cleared: its pages stay touched";
}

TEST(ReuseFreedArrays, FarLargerOrSmallOnesAreNotReused) {
  const ReuseFreedArrays reuse;
  Bytes big = sized(512 * kMiB), small = sized(16 * kMiB);
  const unsigned char* big_at = big.data();
  Bytes().swap(big);
  Bytes().swap(small);                    // under 64 MiB: freed, not kept
  const Bytes again = sized(16 * kMiB);   // fits the kept 512 MiB one, far larger: a fresh one
  EXPECT_NE(again.data(), big_at);
  const Bytes big_again = sized(512 * kMiB);
  EXPECT_EQ(big_again.data(), big_at) << "the 512 MiB array stayed kept";
}

TEST(ReuseFreedArrays, KeptArraysNeverRaiseThePeak) {
  const ReuseFreedArrays reuse;
  // Peak so far: 2 x 128 MiB in use. Both freed and kept (256 MiB kept, the peak).
  {
    Bytes a = sized(128 * kMiB), b = sized(128 * kMiB);
  }
  // A 300 MiB array fits none: the kept ones are freed first, so that in use and kept stay
  // within max(peak, in use) = 300 MiB.
  Bytes c = sized(300 * kMiB);
  const unsigned char* c_at = c.data();
  Bytes().swap(c);
  const Bytes d = sized(200 * kMiB);
  EXPECT_EQ(d.data(), c_at) << "the 300 MiB array was kept and fits 200 MiB";
}

TEST(ReuseFreedArrays, NothingIsKeptOutsideTheScope) {
  {
    const ReuseFreedArrays reuse;
    Bytes a = sized(128 * kMiB);
    a[0] = 7;
  }  // a is freed before the scope ends: kept, then freed with the scope
  Bytes b = sized(128 * kMiB);
  b[0] = 9;
  Bytes().swap(b);
  // No scope: fresh pages (a kept array would still hold 7 or 9).
  const Bytes c = sized(128 * kMiB);
  EXPECT_EQ(c[0], 0);
}

}  // namespace
