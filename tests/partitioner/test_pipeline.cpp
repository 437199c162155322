// The partition pipeline's stages and tuning, in process (partitioner/pipeline.hpp): with
// its runs on disk and extreme tuning (tiny runs, multi-level merges, tiny bucket buffers,
// blocks streamed in pieces), the same file as with its runs in memory (block checksums,
// graph checksum, vertex map, task work) for every n and order, and in degree order the
// partition of a reference built from the definition; an output error from the writer
// thread; empty graphs; gzip, CRLF, comments, duplicates spread over many runs and 2^40
// ids; counts and offsets past 2^32 without storing them; a budget too small for the vertex
// arrays. Through the program: test_pipeline_program.cpp; the pinned files:
// test_pipeline_same_file.cpp.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <random>
#include <set>

#include "partitioner/csr_range_builder.hpp"
#include "partitioner/partition.hpp"
#include "partitioner/pipeline.hpp"
#include "src/block_format.hpp"
#include "tests/partitioner/pipeline_checks.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;
using tricount::pipeline::CsrRangeBuilder;
namespace fs = std::filesystem;

namespace {


}  // namespace

// ------------------------------------------------------------------------------------
// Small graphs: every stage's edge cases. The one pipeline with its runs on disk and extreme
// tuning (tiny runs, multi-level merges, tiny bucket buffers, blocks streamed in pieces)
// against the same pipeline with its runs in memory and the budget's own tuning, byte for
// byte; and, in degree order, both against a reference built here from the definition
// (std::set, std::sort), which shares no code with the pipeline.

// The expected partition in degree order, straight from the definition in partition.hpp.
struct ReferencePartition {
  std::vector<raw_id_t> vertex_map;                         // new id -> input id
  std::vector<std::vector<std::vector<vid_t>>> block_rows;  // [i * n + j][local row] -> sorted local columns
};
ReferencePartition reference_partition(const std::vector<RawEdge>& raw, std::uint32_t n) {
  std::set<std::pair<raw_id_t, raw_id_t>> edges;
  for (const RawEdge& e : raw)
    if (e.u != e.v) edges.emplace(std::min(e.u, e.v), std::max(e.u, e.v));
  std::vector<raw_id_t> ids;
  for (const auto& [a, b] : edges) ids.push_back(a), ids.push_back(b);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto compact = [&](raw_id_t x) { return static_cast<vid_t>(std::lower_bound(ids.begin(), ids.end(), x) - ids.begin()); };
  std::vector<std::uint64_t> degree(ids.size(), 0);
  for (const auto& [a, b] : edges) ++degree[compact(a)], ++degree[compact(b)];
  std::vector<vid_t> by_rank(ids.size());
  std::iota(by_rank.begin(), by_rank.end(), vid_t{0});
  std::sort(by_rank.begin(), by_rank.end(), [&](vid_t x, vid_t y) { return std::pair(degree[x], x) < std::pair(degree[y], y); });
  std::vector<vid_t> new_id(ids.size());
  ReferencePartition r;
  r.vertex_map.resize(ids.size());
  for (std::size_t k = 0; k < by_rank.size(); ++k) {
    new_id[by_rank[k]] = static_cast<vid_t>(k);
    r.vertex_map[k] = ids[by_rank[k]];
  }
  r.block_rows.resize(std::size_t(n) * n);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) r.block_rows[std::size_t(i) * n + j].resize(rows_in_class(ids.size(), n, i));
  for (const auto& [a, b] : edges) {
    const vid_t x = new_id[compact(a)], y = new_id[compact(b)];
    const vid_t u = std::min(x, y), v = std::max(x, y);
    r.block_rows[std::size_t(u % n) * n + v % n][u / n].push_back(v / n);
  }
  for (auto& block : r.block_rows)
    for (auto& row : block) std::sort(row.begin(), row.end());
  return r;
}

void expect_reference_partition(const std::string& path, const std::vector<RawEdge>& raw) {
  BlockFileReader f(path);
  const std::uint32_t n = f.header().parts;
  const ReferencePartition r = reference_partition(raw, n);
  EXPECT_EQ(f.read_vertex_map(), r.vertex_map);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) {
      const CsrBlock b = f.read_block({i, j});
      const auto& rows = r.block_rows[std::size_t(i) * n + j];
      ASSERT_EQ(b.rows, rows.size()) << "block P(" << i << "," << j << ")";
      for (std::uint64_t row = 0; row < rows.size(); ++row) {
        const std::vector<vid_t> got(b.neighbors.begin() + b.offsets[row], b.neighbors.begin() + b.offsets[row + 1]);
        EXPECT_EQ(got, rows[row]) << "block P(" << i << "," << j << ") row " << row;
      }
    }
}

struct Variant {
  const char* name;
  PipelineTuning tuning;
};

class PipelineTuningAndRunStore
    : public ::testing::TestWithParam<std::tuple<std::uint32_t, VertexOrder, int /*variant*/>> {};

TEST_P(PipelineTuningAndRunStore, SameFileAsTheDefaultRunAndTheReference) {
  const auto [n, order, variant] = GetParam();
  const Variant variants[] = {
      {"budget-sized buffers", {}},
      {"tiny runs, fan-in 3 (multi-level merges), tiny bucket buffers, streamed blocks", {500, 3, 64, true}},
      {"one-edge runs, fan-in 2", {1, 2, 1, false}},
  };
  const Variant& v = variants[variant];
  // Sparse, shuffled ids; duplicates in both directions; self-loops; a far component.
  EdgePairs pairs = random_graph(700, 6000, 7 + n);
  for (auto& [a, b] : pairs) a = a * 1000003 + 17, b = b * 1000003 + 17;
  const EdgePairs dup = pairs;
  for (auto [a, b] : dup) pairs.emplace_back(b, a);
  pairs.emplace_back(5, 5);
  pairs.emplace_back(std::uint64_t{1} << 40, 3);
  pairs.emplace_back(3, (std::uint64_t{1} << 40) + 1);
  std::mt19937_64 rng(n);
  std::shuffle(pairs.begin(), pairs.end(), rng);
  if (variant == 2) pairs.resize(600);  // one-edge runs: keep it small
  const std::vector<RawEdge> raw = to_raw(pairs);

  TempDir dir;
  PartitionOptions o;
  o.parts = n;
  o.order = order;
  // 16, 8 and 2 threads: 4, 2 and 1 producers in the read stage (same blocks whoever reads;
  // the one-edge runs of variant 2 stay on 2 threads, or their merges take long).
  o.threads = variant == 0 ? 16u : variant == 1 ? 8u : 2u;
  o.memory_budget = 8 << 20;
  o.tmpdir = dir.path();
  write_in_memory(raw, o, dir.file("mem.h5"));
  VectorSource src(raw, 333);
  const PipelineReport r = partition_source(src, dir.file("disk.h5"), o, "", 0, v.tuning);
  SCOPED_TRACE(v.name);
  expect_same_blocks(dir.file("mem.h5"), dir.file("disk.h5"), true);
  if (order == VertexOrder::Degree) expect_reference_partition(dir.file("disk.h5"), raw);
  EXPECT_EQ(r.header.input_edges, raw.size());
  if (variant == 1) {
    EXPECT_GT(r.merge_passes, 0u);
    EXPECT_EQ(r.streamed_blocks, std::uint64_t(n) * n);
  }
  // The scratch directory is gone; nothing but the two outputs is left.
  EXPECT_EQ(entries(dir.path()), (std::vector<std::string>{"disk.h5", "mem.h5"}));
}

INSTANTIATE_TEST_SUITE_P(Parts, PipelineTuningAndRunStore,
                         ::testing::Combine(::testing::Values(1u, 2u, 3u, 4u),
                                            ::testing::Values(VertexOrder::Degree, VertexOrder::Collective),
                                            ::testing::Values(0, 1, 2)));

// Blocks built in memory are written by one writer thread while the next is merged: an
// error there (here: the output refuses the third block) comes back from run_pipeline as
// the output's own error, with no hang and no block written after it.
TEST(Pipeline, BlockWriteErrorFromTheWriterThreadComesBack) {
  class FailingOutput final : public BlockOutput {
   public:
    void open(const GraphHeader&) override {}
    void vertex_map(std::vector<raw_id_t>) override {}
    void degrees(std::vector<std::uint32_t>) override {}
    void block(CsrBlock&) override {
      if (++blocks == 3) throw Error("cannot write block 3: disk full (test)");
    }
    BlockFileWriter* file() override { return nullptr; }
    void task_work(std::vector<std::uint64_t>) override { ADD_FAILURE() << "task work after a failed block"; }
    void commit(std::uint64_t) override { ADD_FAILURE() << "commit after a failed block"; }
    int blocks = 0;
  };
  for (unsigned threads : {1u, 4u}) {
    TempDir dir;
    PartitionOptions o;
    o.parts = 3;
    o.threads = threads;
    o.tmpdir = dir.path();
    o.memory_budget = 64 << 20;
    VectorSource src(to_raw(random_graph(500, 4000, 11)));
    FailingOutput out;
    try {
      run_pipeline(src, out, o, /*runs_in_memory=*/true);
      ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
      EXPECT_TRUE(contains(e.what(), "cannot write block 3")) << e.what();
    }
    EXPECT_EQ(out.blocks, 3);
  }
}

TEST(Pipeline, EmptyAndSelfLoopOnlyGraphs) {
  for (const EdgePairs& pairs : {EdgePairs{}, EdgePairs{{4, 4}, {9, 9}}, EdgePairs{{1, 2}}}) {
    TempDir dir;
    PartitionOptions o;
    o.parts = 3;
    o.tmpdir = dir.path();
    o.memory_budget = 4 << 20;
    write_in_memory(to_raw(pairs), o, dir.file("mem.h5"));
    VectorSource src(to_raw(pairs));
    partition_source(src, dir.file("disk.h5"), o);
    expect_same_blocks(dir.file("mem.h5"), dir.file("disk.h5"), true);
  }
}

TEST(Pipeline, StreamedChecksumEqualsInMemoryChecksum) {
  // Odd neighbour counts (a 4-byte tail in the checksum), empty rows, pieces of every size.
  TempDir dir;
  PartitionOptions o;
  o.parts = 1;
  o.tmpdir = dir.path();
  for (std::uint64_t edges : {1u, 2u, 3u, 7u, 1001u}) {
    const std::vector<RawEdge> raw = to_raw(random_graph(50, edges, edges));
    write_in_memory(raw, o, dir.file("mem.h5"));
    VectorSource src(raw);
    PipelineTuning t;
    t.stream_blocks = true;
    partition_source(src, dir.file("disk.h5"), o, "", 0, t);
    expect_same_blocks(dir.file("mem.h5"), dir.file("disk.h5"), true);
  }
}

// ------------------------------------------------------------------------------------
// Inputs: gzip text in many runs, CRLF, comments, duplicates far apart, ids up to 2^40.

TEST(Pipeline, GzipCrlfCommentsDuplicatesAndHugeIdsInManyRuns) {
  TempDir dir;
  EdgePairs pairs = random_graph(3000, 40000, 99);
  const std::uint64_t big = std::uint64_t{1} << 40;
  for (auto& [a, b] : pairs) {
    if (a % 7 == 0) a = big - a;  // some ids near 2^40
    if (b % 11 == 0) b = big;     // and 2^40 itself, the largest
  }
  // Every edge again, reversed, at the end: each duplicate lands in another run.
  const EdgePairs first = pairs;
  for (auto [a, b] : first) pairs.emplace_back(b, a);
  std::string text = "# a comment\r\n% another comment\r\n";
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    text += std::to_string(pairs[k].first) + (k % 2 ? "\t" : " ") + std::to_string(pairs[k].second) + "\r\n";
    if (k % 5000 == 0) text += "# comment in the middle\r\n";
  }
  const std::string gz = dir.file("edges.txt.gz");
  {
    gzFile f = gzopen(gz.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), int(text.size()));
    ASSERT_EQ(gzclose(f), Z_OK);
  }
  PartitionOptions o;
  o.parts = 2;
  o.threads = 2;
  o.tmpdir = dir.path();
  o.memory_budget = 4 << 20;
  write_in_memory(to_raw(pairs), o, dir.file("mem.h5"));
  auto src = open_edge_file(gz, InputFormat::Auto);
  PipelineTuning t;
  t.run_edges = 2000;  // 40 runs
  t.max_fanin = 4;     // merged in several passes
  const PipelineReport r = partition_source(*src, dir.file("disk.h5"), o, gz, fs::file_size(gz), t);
  EXPECT_EQ(r.runs, 40u);
  EXPECT_GT(r.merge_passes, 1u);
  EXPECT_EQ(r.id_collection, "runs");  // a bitmap up to 2^40 does not fit 4 MB
  expect_same_blocks(dir.file("mem.h5"), dir.file("disk.h5"), true);
  EXPECT_EQ(BlockFileReader(dir.file("disk.h5")).read_vertex_map().size(), r.header.vertices);
  const auto map = BlockFileReader(dir.file("disk.h5")).read_vertex_map();
  EXPECT_EQ(*std::max_element(map.begin(), map.end()), big);
}

// ------------------------------------------------------------------------------------
// Past 2^32: counts and offsets held in 64 bits, driven without storing the edges.

TEST(CsrRangeBuilder, OffsetsPast2To32DoNotWrap) {
  // 2^32 + 5 neighbours in rows of 2^20: the builder hands out offsets and positions past
  // 2^32; a sink checks them without keeping them.
  struct CheckingSink : CsrRangeBuilder::Sink {
    std::uint64_t next_offset_index = 1, next_neighbor = 0, last_offset = 0, rows_past = 0;
    bool ok = true;
    void offsets(std::uint64_t first, const eoff_t* data, std::size_t count) override {
      ok &= first == next_offset_index;
      for (std::size_t k = 0; k < count; ++k) {
        ok &= data[k] >= last_offset;
        ok &= data[k] == std::min<std::uint64_t>((first + k) << 20, (std::uint64_t{1} << 32) + 5);
        last_offset = data[k];
        rows_past += data[k] > 0xFFFFFFFFull;
      }
      next_offset_index += count;
    }
    void neighbors(std::uint64_t first, const vid_t* data, std::size_t count) override {
      ok &= first == next_neighbor;
      ok &= data[0] == static_cast<vid_t>(first & 0xFFFFF);
      next_neighbor += count;
    }
  } sink;
  const std::uint64_t total = (std::uint64_t{1} << 32) + 5;
  const std::uint64_t rows = (total >> 20) + 2;  // the last row empty
  CsrRangeBuilder b(0, rows, 0, 1 << 16, sink);
  for (std::uint64_t e = 0; e < total; ++e) b.add(((e >> 20) << 32) | (e & 0xFFFFF));
  b.finish();
  EXPECT_TRUE(sink.ok);
  EXPECT_EQ(b.position(), total);
  EXPECT_EQ(sink.next_neighbor, total);
  EXPECT_EQ(sink.last_offset, total);
  EXPECT_EQ(sink.next_offset_index, rows + 1);
  EXPECT_EQ(sink.rows_past, 3u);  // 2^32, 2^32 + 5 and the empty row after it
  EXPECT_EQ(b.max_degree(), 1u << 20);
}

TEST(Pipeline, InputEdgeCountPast2To32) {
  // 2^32 + 3 self-loops and a triangle from a generator stream: only the triangle is kept,
  // and the input count does not wrap.
  class LoopSource final : public EdgeSource {
   public:
    bool next_batch(std::vector<RawEdge>& out, std::size_t max_edges) override {
      const std::uint64_t total = (std::uint64_t{1} << 32) + 3;
      if (next_ == total) {
        if (tail_done_) return false;
        out.assign({{1, 2}, {2, 3}, {3, 1}});
        tail_done_ = true;
        return true;
      }
      const std::uint64_t n = std::min<std::uint64_t>(max_edges, total - next_);
      if (out.size() != n) out.assign(n, RawEdge{7, 7});  // already self-loops otherwise
      next_ += n;
      return true;
    }
    std::string description() const override { return "self-loops"; }

   private:
    std::uint64_t next_ = 0;
    bool tail_done_ = false;
  } src;
  TempDir dir;
  PartitionOptions o;
  o.parts = 2;
  o.threads = 2;
  o.tmpdir = dir.path();
  o.memory_budget = 64 << 20;
  const PipelineReport r = partition_source(src, dir.file("g.h5"), o);
  EXPECT_EQ(r.header.input_edges, (std::uint64_t{1} << 32) + 6);
  EXPECT_EQ(r.header.edges, 3u);
  EXPECT_EQ(r.header.vertices, 3u);
  BlockFileReader f(dir.file("g.h5"));
  EXPECT_EQ(f.header().input_edges, (std::uint64_t{1} << 32) + 6);
}

// ------------------------------------------------------------------------------------
// Memory: vertex arrays larger than the budget.

TEST(Pipeline, VertexArraysLargerThanTheBudget) {
  // 200k vertices need ~3.2 MB of vertex arrays: a 1 MB budget is refused with the size
  // it needs; at 4.5 MB collective order (24 bytes a vertex) falls back to degree order.
  TempDir dir;
  EdgePairs pairs;
  for (std::uint64_t k = 0; k < 200000; ++k) pairs.emplace_back(k, (k * 7919 + 1) % 200000);
  PartitionOptions o;
  o.parts = 2;
  o.threads = 1;
  o.tmpdir = dir.path();
  o.memory_budget = 1 << 20;
  {
    VectorSource src(to_raw(pairs));
    try {
      partition_source(src, dir.file("g.h5"), o);
      ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
      EXPECT_TRUE(contains(e.what(), "--memory-budget")) << e.what();
      EXPECT_TRUE(contains(e.what(), "vertices")) << e.what();
    }
    EXPECT_FALSE(fs::exists(dir.file("g.h5")));
  }
  o.memory_budget = 4608 << 10;
  o.order = VertexOrder::Collective;
  VectorSource src(to_raw(pairs));
  const PipelineReport r = partition_source(src, dir.file("g.h5"), o);
  EXPECT_TRUE(r.ordering_fell_back);
  EXPECT_EQ(BlockFileReader(dir.file("g.h5")).header().ordering, "degree");
  o.order = VertexOrder::Degree;
  write_in_memory(to_raw(pairs), o, dir.file("mem.h5"));
  expect_same_blocks(dir.file("mem.h5"), dir.file("g.h5"), true);
}
