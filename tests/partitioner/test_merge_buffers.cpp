// The merge's buffers (partitioner/run_files.hpp): a mapped IoBuffer holds what is written to
// it, its pages filled in at once (populate_pages) or by first touch, survives a move, and its
// released pages read back as zeros; a parallel merge whose cursors read through one mapping
// (a page-aligned part per thread, each buffer no larger than its range) gives every record in
// order at 1, 2, 3 and 7 threads, with large buffers and with buffers of a few records
// (refills mid-merge), over runs of two spans.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "partitioner/run_files.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

TEST(MergeBuffers, MappedBufferHoldsItsRecordsAndMoves) {
  for (std::size_t records : {std::size_t{0}, std::size_t{10}, std::size_t{8192}, std::size_t{3} << 18}) {
    runs::IoBuffer<std::uint64_t> buf(records, true);
    ASSERT_EQ(buf.size(), records);
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(buf.data()) % runs::kPageBytes, 0u);
    if (records % 2 == 0) runs::populate_pages(buf.data(), records * 8);  // else first touch below
    for (std::size_t k = 0; k < records; ++k) buf[k] = k * 2654435761u;
    runs::IoBuffer<std::uint64_t> moved(std::move(buf));
    EXPECT_EQ(moved.size(), records);
    bool same = true;
    for (std::size_t k = 0; k < records; ++k) same = same && moved[k] == k * 2654435761u;
    EXPECT_TRUE(same) << records << " records";
    if (records >= 8192) {
      runs::release_pages(moved.data(), 8192 * 8);
      EXPECT_EQ(moved[0], 0u);
      EXPECT_EQ(moved[8191], 0u);
      EXPECT_EQ(moved[8192 % records], records > 8192 ? std::uint64_t{8192} * 2654435761u : 0u);
    }
    moved.release();
    EXPECT_EQ(moved.size(), 0u);
  }
}

TEST(MergeBuffers, ParallelMergeThroughArenasGivesEveryRecordInOrder) {
  TempDir dir;
  std::mt19937_64 rng(17);
  runs::FilePool pool;
  std::vector<runs::Run> runs;
  std::vector<std::uint64_t> all;
  for (unsigned r = 0; r < 6; ++r) {
    runs::Run run;
    for (unsigned part = 0; part < 2; ++part) {  // two spans of one file
      std::vector<std::uint64_t> v(r == 3 ? 0 : 20000 + rng() % 60000);
      for (std::uint64_t& x : v) x = rng() % 50000 + part * 50000;  // the second span's keys follow the first's
      std::sort(v.begin(), v.end());
      const std::string path = dir.file("run" + std::to_string(r) + "-" + std::to_string(part));
      std::vector<std::uint64_t> file(5, 0);  // records before the span
      file.insert(file.end(), v.begin(), v.end());
      runs::write_file(path, file.data(), file.size() * 8);
      run.append(runs::Span{path, 5, v.size()});
      all.insert(all.end(), v.begin(), v.end());
    }
    runs.push_back(std::move(run));
  }
  std::sort(all.begin(), all.end());
  for (unsigned threads : {1u, 2u, 3u, 7u})
    for (std::size_t cursor_bytes : {std::size_t{1} << 20, std::size_t{24}}) {
      std::vector<std::vector<std::uint64_t>> parts(threads);
      runs::parallel_merge<std::uint64_t>(
          pool, runs, threads, cursor_bytes, std::less<std::uint64_t>{}, [](std::uint64_t k) { return k; },
          [&](const runs::MergeRange<std::uint64_t>& range, runs::MergeStream<std::uint64_t, std::less<std::uint64_t>>& stream) {
            for (std::uint64_t x; stream.next(x);) parts[range.part].push_back(x);
            EXPECT_EQ(parts[range.part].size(), range.count);
          });
      std::vector<std::uint64_t> got;
      for (const auto& p : parts) got.insert(got.end(), p.begin(), p.end());
      EXPECT_EQ(got, all) << threads << " threads, cursors of " << cursor_bytes << " bytes";
    }
}
