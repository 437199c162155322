// The clean stage's merge on several threads (partitioner/run_files.hpp parallel_merge, the
// clean stage of partitioner/stage_clean.cpp): each thread merges one key range of every run;
// a key's copies never straddle two ranges, so the duplicates dropped and the result are
// the same at 1, 2, 3 and 7 threads, for runs in memory and in --tmpdir, and for each way of
// collecting the distinct ids (degree table, bitmap, id runs). The cuts' bounds are the runs'
// lower bounds of the cut keys (searched between samples, the last few KiB read at once).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "partitioner/partition.hpp"
#include "partitioner/pipeline.hpp"
#include "partitioner/run_files.hpp"
#include "tests/partitioner/pipeline_checks.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

constexpr unsigned kThreadCounts[] = {1, 2, 3, 7};

// Sorted runs of 64-bit keys, almost all duplicates: a few hundred distinct keys, one of them
// a third of all records (the sampled cuts fall on it) and runs that are one key throughout.
std::vector<std::vector<std::uint64_t>> duplicate_heavy_runs() {
  std::mt19937_64 rng(11);
  std::vector<std::vector<std::uint64_t>> runs(9);
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const std::size_t size = 500 + 700 * r;
    for (std::size_t k = 0; k < size; ++k) {
      const std::uint64_t x = rng();
      runs[r].push_back(x % 3 == 0 ? 1000 : (x >> 8) % 300 * 7);
    }
    std::sort(runs[r].begin(), runs[r].end());
  }
  runs.push_back(std::vector<std::uint64_t>(3000, 1000));  // one key, the hot one
  runs.push_back(std::vector<std::uint64_t>(800, 7));
  runs.push_back({});
  return runs;
}

}  // namespace

// Every range of parallel_merge holds all copies of its keys, the ranges in key order make
// the full merge, and so the merge with duplicates dropped is the same at every thread count,
// in memory files and in files on disk.
TEST(ParallelMerge, RangesHoldEveryCopyOfTheirKeys) {
  const auto input = duplicate_heavy_runs();
  std::vector<std::uint64_t> all;
  for (const auto& r : input) all.insert(all.end(), r.begin(), r.end());
  std::sort(all.begin(), all.end());
  std::vector<std::uint64_t> distinct = all;
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());

  TempDir dir;
  for (bool in_memory : {true, false}) {
    runs::ScratchDir scratch(dir.path(), in_memory);
    runs::FilePool pool;
    std::vector<runs::Run> store;
    for (const auto& r : input) {
      const std::string path = scratch.new_file("run");
      runs::write_file(path, r.data(), r.size() * sizeof(std::uint64_t));
      store.push_back(runs::Run{{runs::Span{path, 0, r.size()}}});
    }
    for (unsigned threads : kThreadCounts) {
      SCOPED_TRACE(std::string(in_memory ? "memory" : "disk") + ", " + std::to_string(threads) + " threads");
      // The cuts' bounds in each run are the run's lower bounds of the cut keys.
      const auto cuts = runs::cut_runs<std::uint64_t>(pool, store, threads, std::less<std::uint64_t>{},
                                                      [](std::uint64_t x) { return x; });
      ASSERT_EQ(cuts.keys.size(), threads - 1);
      for (unsigned p = 1; p < threads; ++p)
        for (std::size_t r = 0; r < input.size(); ++r)
          EXPECT_EQ(cuts.bounds[p][r], std::uint64_t(std::lower_bound(input[r].begin(), input[r].end(), cuts.keys[p - 1]) -
                                                     input[r].begin()))
              << "cut " << p << " run " << r;
      std::vector<std::vector<std::uint64_t>> parts(threads);
      std::vector<std::uint64_t> firsts(threads), counts(threads);
      runs::parallel_merge<std::uint64_t>(
          pool, store, threads, 256, std::less<std::uint64_t>{}, [](std::uint64_t x) { return x; },
          [&](const runs::MergeRange<std::uint64_t>& range, runs::MergeStream<std::uint64_t, std::less<std::uint64_t>>& s) {
            for (std::uint64_t x; s.next(x);) parts[range.part].push_back(x);
            firsts[range.part] = range.first;
            counts[range.part] = range.count;
          });
      std::vector<std::uint64_t> merged, unique;
      std::uint64_t at = 0;
      for (unsigned t = 0; t < threads; ++t) {
        EXPECT_EQ(firsts[t], at) << "range " << t;
        EXPECT_EQ(counts[t], parts[t].size()) << "range " << t;
        at += parts[t].size();
        if (!parts[t].empty() && !merged.empty()) {
          EXPECT_LT(merged.back(), parts[t].front()) << "key " << merged.back() << " in range " << t << " and before";
        }
        merged.insert(merged.end(), parts[t].begin(), parts[t].end());
        // Duplicates dropped within each range alone, as the clean stage does.
        for (std::size_t k = 0; k < parts[t].size(); ++k)
          if (k == 0 || parts[t][k] != parts[t][k - 1]) unique.push_back(parts[t][k]);
      }
      EXPECT_EQ(merged, all);
      EXPECT_EQ(unique, distinct);
      if (threads > 1) {  // the hot key and the data between cuts spread the work
        std::size_t busy = 0;
        for (const auto& p : parts) busy += !p.empty();
        EXPECT_GT(busy, 1u);
      }
    }
    // Removed on 3 threads: no file left, on disk or in memory.
    const std::uint64_t held = runs::memory_run_bytes();
    runs::remove_run_files(store, pool, 3);
    if (in_memory) EXPECT_EQ(held - runs::memory_run_bytes(), all.size() * sizeof(std::uint64_t));
    else EXPECT_EQ(entries(scratch.path()), std::vector<std::string>{});
  }
}

// run_lower_bound (probes, then the last few KiB read at once) is std::lower_bound, over a
// run of three spans in two files, for keys present, absent and past the ends.
TEST(ParallelMerge, RunLowerBoundIsLowerBound) {
  std::vector<std::uint64_t> keys;
  for (std::uint64_t k = 0; k < 30000; ++k) keys.push_back(k / 7 * 2 + 10);
  TempDir dir;
  runs::ScratchDir scratch(dir.path());
  const std::string a = scratch.new_file("a"), b = scratch.new_file("b");
  runs::write_file(a, keys.data(), 20000 * sizeof(std::uint64_t));
  runs::write_file(b, keys.data() + 20000, 10000 * sizeof(std::uint64_t));
  const runs::Run run{{runs::Span{a, 0, 5000}, runs::Span{a, 5000, 15000}, runs::Span{b, 0, 10000}}};
  runs::FilePool pool;
  std::mt19937_64 rng(3);
  for (int k = 0; k < 300; ++k) {
    const std::uint64_t key = rng() % 8700;
    std::uint64_t lo = rng() % 30001, hi = rng() % 30001;
    if (lo > hi) std::swap(lo, hi);
    if (k % 3 == 0) lo = 0, hi = 30000;
    const auto want = std::lower_bound(keys.begin() + lo, keys.begin() + hi, key) - keys.begin();
    EXPECT_EQ(runs::run_lower_bound(pool, run, lo, hi, key, std::less<std::uint64_t>{}), std::uint64_t(want))
        << "key " << key << " in [" << lo << ", " << hi << ")";
  }
}

namespace {

enum class Ids { Dense, Wide, Sparse };  // degree table; bitmap; id runs (ids past 2^32)

// Random edges over about 150,000 vertices (the id scans then take several ranges), each
// given 1 to 4 times in either direction, a hub, one edge 5,000 times (the sampled cuts fall
// on it), self-loops; ids mapped so that the clean stage collects them by `ids`.
std::vector<RawEdge> duplicate_heavy_edges(Ids ids) {
  const std::uint64_t n = 150000;
  EdgePairs pairs = random_graph(n, 120000, 5);
  for (std::uint64_t v = 1; v < 3000; v += 3) pairs.emplace_back(0, v);
  std::mt19937_64 rng(17);
  EdgePairs all;
  for (auto [a, b] : pairs)
    for (std::uint64_t c = rng() % 4; c < 4; ++c) all.emplace_back(rng() & 1 ? std::pair(a, b) : std::pair(b, a));
  for (int k = 0; k < 5000; ++k) all.emplace_back(k & 1 ? std::pair<std::uint64_t, std::uint64_t>(40, 41) : std::pair<std::uint64_t, std::uint64_t>(41, 40));
  for (std::uint64_t v = 0; v < 50; ++v) all.emplace_back(v, v);
  for (auto& [a, b] : all) {
    if (ids == Ids::Wide) a *= 397, b *= 397;  // up to ~6e7: too sparse for the table
    if (ids == Ids::Sparse) a = a * 549755813 + 7, b = b * 549755813 + 7;  // up to ~2^46
  }
  std::shuffle(all.begin(), all.end(), rng);
  return to_raw(all);
}

// The cleaned graph computed here, independently: distinct ids in order, canonical edges.
CleanGraph reference_clean(const std::vector<RawEdge>& raw) {
  std::set<std::pair<raw_id_t, raw_id_t>> edges;
  for (const RawEdge& e : raw)
    if (e.u != e.v) edges.emplace(std::min(e.u, e.v), std::max(e.u, e.v));
  std::set<raw_id_t> ids;
  for (auto [a, b] : edges) ids.insert(a), ids.insert(b);
  CleanGraph g;
  g.input_id.assign(ids.begin(), ids.end());
  std::map<raw_id_t, vid_t> compact;
  for (vid_t k = 0; k < g.input_id.size(); ++k) compact[g.input_id[k]] = k;
  for (auto [a, b] : edges) g.edges.emplace_back(compact[a], compact[b]);
  std::sort(g.edges.begin(), g.edges.end());
  g.input_edges = raw.size();
  return g;
}

const char* name_of(Ids ids) { return ids == Ids::Dense ? "dense" : ids == Ids::Wide ? "wide" : "sparse"; }

}  // namespace

class ParallelCleanStage : public ::testing::TestWithParam<Ids> {};

// The clean stage's result (edges, distinct ids) at 1, 2, 3 and 7 threads against the
// reference, runs in memory.
TEST_P(ParallelCleanStage, SameCleanGraphAtEveryThreadCount) {
  const std::vector<RawEdge> raw = duplicate_heavy_edges(GetParam());
  const CleanGraph want = reference_clean(raw);
  for (unsigned threads : kThreadCounts) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    PartitionOptions o;
    o.threads = threads;
    VectorSource src(raw, 4096);
    const CleanGraph got = clean_pipeline(src, o);
    EXPECT_EQ(got.input_edges, want.input_edges);
    EXPECT_EQ(got.input_id, want.input_id);
    EXPECT_EQ(got.edges, want.edges);
  }
}

// The block file at 1, 2, 3 and 7 threads, from many small runs merged in two passes, in
// memory files and in --tmpdir: byte for byte the file of one thread with the runs in memory.
TEST_P(ParallelCleanStage, SameFileAtEveryThreadCountInMemoryAndOnDisk) {
  const Ids ids = GetParam();
  const std::vector<RawEdge> raw = duplicate_heavy_edges(ids);
  const CleanGraph want = reference_clean(raw);
  TempDir dir;
  PipelineTuning tuning;
  tuning.run_edges = 20011;  // about 30 runs
  tuning.max_fanin = 8;      // an extra merge pass (reduce_fanin) before the clean merge
  std::string first;
  for (bool in_memory : {true, false})
    for (unsigned threads : kThreadCounts) {
      SCOPED_TRACE(std::string(in_memory ? "runs in memory" : "runs in --tmpdir") + ", " + std::to_string(threads) +
                   " threads");
      PartitionOptions o;
      o.parts = 2;
      o.threads = threads;
      o.tmpdir = dir.path();
      std::string name = in_memory ? "m" : "d";
      name += std::to_string(threads);
      const std::string out = dir.file(name + ".h5");
      VectorSource src(raw, 4096);
      const PipelineReport r = partition_source(src, out, o, "", 0, tuning, in_memory);
      EXPECT_EQ(r.runs_in_memory, in_memory);
      EXPECT_GT(r.merge_passes, 0u);
      EXPECT_EQ(r.id_collection, ids == Ids::Dense ? "degree table" : ids == Ids::Wide ? "bitmap" : "runs");
      EXPECT_EQ(r.header.vertices, want.input_id.size());
      EXPECT_EQ(r.header.edges, want.edges.size());
      if (first.empty()) first = out;
      else expect_same_blocks(first, out, true);
    }
}

INSTANTIATE_TEST_SUITE_P(Ids, ParallelCleanStage, ::testing::Values(Ids::Dense, Ids::Wide, Ids::Sparse),
                         [](const auto& info) { return std::string(name_of(info.param)); });
