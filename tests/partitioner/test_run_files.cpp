// The run store (partitioner/run_files.hpp): the k-way merge hands out every record in
// order, and record positions, binary search and merge cuts work past 2^32 records.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <random>

#include "partitioner/run_files.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

// The k-way merge (a tournament tree since the GPU host runs): every record of every run, in
// order, for 0 to 300 runs of random lengths (empty ones too) and many equal keys across
// runs; cursors with tiny buffers so that refills happen mid-merge.
TEST(RunFiles, MergeStreamEveryRecordInOrder) {
  TempDir dir;
  std::mt19937_64 rng(5);
  for (unsigned k : {0u, 1u, 2u, 3u, 5u, 17u, 300u}) {
    runs::FilePool pool;
    std::vector<runs::Run> runs;
    std::vector<std::uint64_t> all;
    for (unsigned r = 0; r < k; ++r) {
      std::vector<std::uint64_t> v(rng() % 4 == 0 ? 0 : rng() % 200);
      for (std::uint64_t& x : v) x = rng() % 97;  // many ties within and across runs
      std::sort(v.begin(), v.end());
      const std::string path = dir.file("run" + std::to_string(k) + "-" + std::to_string(r));
      runs::write_file(path, v.data(), v.size() * 8);
      runs.push_back(runs::Run{{runs::Span{path, 0, v.size()}}});
      all.insert(all.end(), v.begin(), v.end());
    }
    std::sort(all.begin(), all.end());
    std::vector<runs::RunCursor<std::uint64_t>> cursors;
    for (const runs::Run& run : runs) cursors.emplace_back(pool, run, 0, run.size(), 3);
    runs::MergeStream<std::uint64_t, std::less<std::uint64_t>> stream(std::move(cursors), std::less<std::uint64_t>{});
    std::vector<std::uint64_t> got;
    for (std::uint64_t x; stream.next(x);) got.push_back(x);
    EXPECT_EQ(got, all) << k << " runs";
    std::uint64_t x = 0;
    EXPECT_FALSE(stream.next(x)) << "after the end";
  }
}

TEST(RunFiles, RunPositionsPast2To32) {
  // A sparse run file of 2^32 + 8 records of 8 bytes (32 GiB apparent, a few KB on disk):
  // reading, binary search and merge cuts at record indices past 2^32.
  TempDir dir;
  const std::string path = dir.file("sparse.run");
  const std::uint64_t records = (std::uint64_t{1} << 32) + 8;
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    if (::ftruncate(fd, static_cast<off_t>(records * 8)) != 0) {
      ::close(fd);
      GTEST_SKIP() << "the filesystem refuses a 32 GiB sparse file";
    }
    // Zeros up to 2^32, then 1..8 in the last 8 records.
    for (std::uint64_t k = 0; k < 8; ++k) {
      const std::uint64_t value = k + 1;
      runs::pwrite_all(fd, &value, 8, ((std::uint64_t{1} << 32) + k) * 8, path);
    }
    ::close(fd);
  }
  runs::FilePool pool;
  const runs::Run run{{runs::Span{path, 0, records}}};
  EXPECT_EQ(run.size(), records);
  EXPECT_EQ(runs::read_record<std::uint64_t>(pool, run, records - 1), 8u);
  const std::uint64_t at = runs::run_lower_bound(pool, run, 0, records, std::uint64_t{5}, std::less<std::uint64_t>{});
  EXPECT_EQ(at, (std::uint64_t{1} << 32) + 4);
  // A cursor starting past 2^32, through a second span of the same file.
  const runs::Run tail{{runs::Span{path, (std::uint64_t{1} << 32) + 2, 3}, runs::Span{path, (std::uint64_t{1} << 32) + 6, 2}}};
  runs::RunCursor<std::uint64_t> cur(pool, tail, 1, 5, 2);
  std::vector<std::uint64_t> got;
  for (; !cur.empty(); cur.pop()) got.push_back(cur.head());
  EXPECT_EQ(got, (std::vector<std::uint64_t>{4, 5, 7, 8}));
  // Merge cuts of two threads over the whole run: counts past 2^32 on the left.
  const auto cuts = runs::cut_runs<std::uint64_t>(pool, {run}, 2, std::less<std::uint64_t>{}, [](std::uint64_t x) { return x; });
  EXPECT_EQ(cuts.bounds[2][0], records);
  EXPECT_LE(cuts.bounds[1][0], records);
}
