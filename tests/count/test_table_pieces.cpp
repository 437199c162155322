// Issue 31.2, the step after counting in pieces and on threads (count/per_vertex, per_edge):
// rows and summaries built by any number of threads, into fresh or reused columns, are those
// of one thread; the degrees read by several threads (each into counters of its own, or one
// thread where the block is sparse) are the graph's; PerVertexAhead hands over what it read,
// names a corrupt block when its read failed, and can be dropped unread at any time; so does
// PerEdgeAhead, rank 0's first block for edge rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "count/per_edge.hpp"
#include "count/per_vertex.hpp"
#include "partitioner/partition.hpp"
#include "src/task_plan.hpp"
#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

// 300,000 vertices (enough for 8 threads of kTableRowsPerThread rows), every 5th of degree
// 0, degrees and counts of every size.
struct ClassColumns {
  std::vector<raw_id_t> ids;
  std::vector<std::uint64_t> degrees, triangles;
};
ClassColumns class_columns() {
  ClassColumns c;
  std::mt19937_64 rng(7);
  for (std::uint64_t x = 0; x < 300000; ++x) {
    const std::uint64_t d = x % 5 == 0 ? 0 : 1 + rng() % (x % 97 == 0 ? 100000 : 50);
    c.ids.push_back((std::uint64_t{1} << 40) + x * 13);
    c.degrees.push_back(d);
    c.triangles.push_back(d < 2 ? 0 : rng() % (d * (d - 1) / 2 + 1));
  }
  return c;
}

void expect_same_rows(const VertexRows& a, const VertexRows& b, const std::string& where) {
  EXPECT_EQ(a.vertex, b.vertex) << where;
  EXPECT_EQ(a.degree, b.degree) << where;
  EXPECT_EQ(a.triangles, b.triangles) << where;
  EXPECT_EQ(a.clustering, b.clustering) << where;
}

TEST(TablePieces, VertexRowsAndTheirSummaryAreTheSameForAnyThreadsAndReusedColumns) {
  const ClassColumns c = class_columns();
  const VertexRows one = class_rows(c.ids, c.degrees, c.triangles, 1);
  ASSERT_EQ(one.size(), 240000u);  // degree-0 vertices left out
  PerVertexSummary expected;
  expected.add(one, 1);
  for (const unsigned threads : {2u, 3u, 8u}) {
    const std::string where = std::to_string(threads) + " threads";
    expect_same_rows(class_rows(c.ids, c.degrees, c.triangles, threads), one, where);
    // Columns of a larger and of a smaller piece written before (PerVertexWriter::spare_rows).
    VertexRows larger = class_rows(c.ids, c.degrees, c.triangles, 1);
    larger.vertex.push_back(1), larger.degree.push_back(2), larger.triangles.push_back(3), larger.clustering.push_back(4);
    expect_same_rows(class_rows(c.ids, c.degrees, c.triangles, threads, std::move(larger)), one, where + ", larger columns");
    const std::span<const raw_id_t> ids(c.ids);
    const std::span<const std::uint64_t> d(c.degrees), t(c.triangles);
    VertexRows smaller = class_rows(ids.first(1000), d.first(1000), t.first(1000), 1);
    expect_same_rows(class_rows(c.ids, c.degrees, c.triangles, threads, std::move(smaller)), one, where + ", smaller columns");
    // The summary in two pieces, each on `threads` threads: the same sums, to the last bit.
    PerVertexSummary s;
    s.add(class_rows(ids.first(123457), d.first(123457), t.first(123457), threads), threads);
    s.add(class_rows(ids.subspan(123457), d.subspan(123457), t.subspan(123457), threads), threads);
    EXPECT_EQ(s.vertices, expected.vertices) << where;
    EXPECT_TRUE(s.triangle_sum == expected.triangle_sum) << where;
    EXPECT_TRUE(s.wedges == expected.wedges) << where;
    EXPECT_EQ(s.clustering_sum, expected.clustering_sum) << where;
    EXPECT_EQ(s.top, expected.top) << where;
    ASSERT_EQ(s.top.size(), PerVertexSummary::kTop);
  }
}

// A CSR block of `rows` rows over `cols` columns, 0 to 12 sorted neighbours a row.
struct TestBlock {
  std::vector<eoff_t> offsets{0};
  std::vector<vid_t> neighbors;
  CsrSpan span;
};
TestBlock test_block(std::uint64_t rows, std::uint64_t cols) {
  TestBlock b;
  std::mt19937_64 rng(11);
  for (std::uint64_t r = 0; r < rows; ++r) {
    std::vector<vid_t> row;
    for (std::uint64_t k = rng() % 13; k > 0; --k) row.push_back(static_cast<vid_t>(rng() % cols));
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    b.neighbors.insert(b.neighbors.end(), row.begin(), row.end());
    b.offsets.push_back(b.neighbors.size());
  }
  b.span.id = {1, 2};
  b.span.rows = rows, b.span.cols = cols, b.span.nnz = b.neighbors.size();
  b.span.offsets = b.offsets.data(), b.span.neighbors = b.neighbors.data();
  return b;
}

TEST(TablePieces, EdgeRowsAndTheirSummaryAreTheSameForAnyThreadsPiecesAndReusedColumns) {
  const TestBlock block = test_block(60000, 40000);
  const std::uint64_t nnz = block.span.nnz;
  ASSERT_GT(nnz, 300000u);
  std::vector<raw_id_t> row_ids(block.span.rows), col_ids(block.span.cols);
  for (std::uint64_t r = 0; r < row_ids.size(); ++r) row_ids[r] = 5000000 - 3 * r;  // some u > v: swapped
  for (std::uint64_t c = 0; c < col_ids.size(); ++c) col_ids[c] = 4000000 + 7 * c;
  std::vector<edge_count_t> counts(nnz);
  for (std::uint64_t e = 0; e < nnz; ++e) counts[e] = static_cast<edge_count_t>((e * 2654435761u) % 1000);
  // The reference: one loop over the rows.
  EdgeRows expected;
  for (std::uint64_t r = 0; r < block.span.rows; ++r)
    for (eoff_t e = block.offsets[r]; e < block.offsets[r + 1]; ++e) {
      const raw_id_t a = row_ids[r], b = col_ids[block.neighbors[e]];
      expected.u.push_back(std::min(a, b)), expected.v.push_back(std::max(a, b)), expected.triangles.push_back(counts[e]);
    }
  PerEdgeSummary expected_summary;
  expected_summary.add(expected, 1);
  ASSERT_EQ(expected_summary.top.size(), PerEdgeSummary::kTop);
  for (const unsigned threads : {1u, 3u, 8u})
    for (const std::uint64_t piece : {nnz, std::uint64_t{100003}, std::uint64_t{77}}) {
      const std::string where = std::to_string(threads) + " threads, pieces of " + std::to_string(piece);
      EdgeRows all, spare;
      PerEdgeSummary summary;
      for (std::uint64_t first = 0; first < nnz; first += piece) {
        const std::uint64_t last = std::min(nnz, first + piece);
        const std::span<const edge_count_t> mine = std::span<const edge_count_t>(counts).subspan(first, last - first);
        EdgeRows rows = block_edge_rows(block.span, row_ids, col_ids, mine, first, last, threads, std::move(spare));
        summary.add(rows, threads);
        all.u.insert(all.u.end(), rows.u.begin(), rows.u.end());
        all.v.insert(all.v.end(), rows.v.begin(), rows.v.end());
        all.triangles.insert(all.triangles.end(), rows.triangles.begin(), rows.triangles.end());
        spare = std::move(rows);  // the next piece is built in these columns
      }
      EXPECT_EQ(all.u, expected.u) << where;
      EXPECT_EQ(all.v, expected.v) << where;
      EXPECT_EQ(all.triangles, expected.triangles) << where;
      EXPECT_EQ(summary.edges, expected_summary.edges) << where;
      EXPECT_EQ(summary.edges_in_triangles, expected_summary.edges_in_triangles) << where;
      EXPECT_TRUE(summary.triangle_sum == expected_summary.triangle_sum) << where;
      EXPECT_EQ(summary.top, expected_summary.top) << where;
    }
}

// Each vertex's degree after cleaning, by input id.
std::map<std::uint64_t, std::uint64_t> reference_degrees(const EdgePairs& edges) {
  std::map<std::uint64_t, std::uint64_t> degree;
  for (const auto& [v, d] : reference::per_vertex_triangles(edges)) degree[v] = d.degree;
  return degree;
}

// The degree shares of `workers` workers summed, by input id.
std::map<std::uint64_t, std::uint64_t> summed_shares(const std::string& path, int workers, unsigned threads) {
  const BlockFileReader file(path);
  const std::uint32_t n = file.header().parts;
  std::map<std::uint64_t, std::uint64_t> degree;
  for (int w = 0; w < workers; ++w) {
    const std::vector<std::vector<std::uint64_t>> shares = degree_shares(file, w, workers, threads);
    EXPECT_EQ(shares.size(), n);
    for (std::uint32_t c = 0; c < n; ++c) {
      if (shares[c].empty()) continue;
      const std::vector<raw_id_t> ids = file.read_vertex_map_class(c);
      EXPECT_EQ(shares[c].size(), ids.size());
      for (std::size_t x = 0; x < ids.size(); ++x) degree[ids[x]] += shares[c][x];
    }
  }
  return degree;
}

class DegreeShares : public ::testing::Test {
 protected:
  // A dense graph (blocks with several edges per column: counters of each thread's own) and
  // a sparse one (a path: fewer edges than columns, one thread a block).
  void SetUp() override {
    dense_ = random_graph(3000, 40000, 5);
    sparse_ = EdgePairs{};
    for (std::uint64_t x = 0; x < 5000; ++x) sparse_.emplace_back(x * 3 + 1, x * 3 + 4);
  }
  std::string write(const EdgePairs& edges, std::uint32_t parts, const std::string& name) {
    PartitionOptions o;
    o.parts = parts;
    const std::string path = dir_.file(name);
    write_block_file(partition_edges(to_raw(edges), o), path);
    return path;
  }
  TempDir dir_;
  EdgePairs dense_, sparse_;
};

TEST_F(DegreeShares, SummedOverTheWorkersTheyAreTheDegreesForAnyThreads) {
  for (const auto* graph : {&dense_, &sparse_}) {
    const std::map<std::uint64_t, std::uint64_t> expected = reference_degrees(*graph);
    for (const std::uint32_t parts : {1u, 3u}) {
      const std::string path = write(*graph, parts, "g" + std::to_string(parts) + ".h5");
      for (const int workers : {1, 2, 4})
        for (const unsigned threads : {1u, 3u, 8u})
          EXPECT_EQ(summed_shares(path, workers, threads), expected)
              << (graph == &dense_ ? "dense" : "sparse") << ", " << parts << " parts, " << workers << " workers, " << threads
              << " threads";
    }
  }
}

TEST_F(DegreeShares, AStopBeforeTheFirstBlockReadsNothing) {
  const std::string path = write(dense_, 2, "g.h5");
  const BlockFileReader file(path);
  std::stop_source stop;
  stop.request_stop();
  for (const std::vector<std::uint64_t>& share : degree_shares(file, 0, 1, 2, stop.get_token()))
    EXPECT_TRUE(share.empty());
}

TEST_F(DegreeShares, ReadAheadTheyAreTheSameAndTheFirstClassIdsComeWithThem) {
  const std::string path = write(dense_, 3, "g.h5");
  const BlockFileReader file(path);
  for (const int worker : {0, 1}) {
    PerVertexAhead ahead(file, true, worker == 0, worker, 2, 3);
    EXPECT_EQ(ahead.take_degrees(), degree_shares(file, worker, 2, 1)) << "worker " << worker;
    EXPECT_GE(ahead.degree_seconds(), 0.0);
    if (worker == 0) EXPECT_EQ(ahead.take_first_ids(), file.read_vertex_map_class(0));
    else EXPECT_THROW(ahead.take_first_ids(), Error);  // not asked for
    if (worker == 0) EXPECT_EQ(ahead.take_first_degrees(), file.read_degrees_class(0));  // the file stores them
    else EXPECT_THROW(ahead.take_first_degrees(), Error);
    EXPECT_THROW(ahead.take_degrees(), Error);           // taken already
  }
}

TEST_F(DegreeShares, AFailedReadAheadNamesTheBlockAndADroppedOneReturns) {
  const std::string path = write(dense_, 2, "g.h5");
  corrupt_block_neighbors(path, {1, 0});
  const BlockFileReader file(path);
  {
    PerVertexAhead ahead(file, true, true, 0, 1, 2);
    try {
      ahead.take_degrees();
      ADD_FAILURE() << "a corrupt block read ahead must be reported";
    } catch (const Error& e) {
      EXPECT_TRUE(contains(std::string(e.what()), "P(1,0)")) << e.what();
      EXPECT_TRUE(contains(std::string(e.what()), path)) << e.what();
    }
    EXPECT_EQ(ahead.take_first_ids(), file.read_vertex_map_class(0));  // the ids are unharmed
  }
  // Dropped unread (a count that failed, or ended, before the step): the threads stop or
  // end, their errors go with them, and nothing escapes.
  for (int k = 0; k < 3; ++k) PerVertexAhead(file, true, true, 0, 1, 2);
  const std::string good = write(dense_, 2, "good.h5");
  const BlockFileReader good_file(good);
  for (int k = 0; k < 3; ++k) PerVertexAhead(good_file, true, true, 0, 1, 2);
}

// Rank 0's early table (an HDF5 output, a file that stores degrees): its vertex and degree
// columns written while the workers count, then the triangles and clustering columns piece
// by piece, read back as the rows a table written whole holds; dropped untaken, it leaves
// no file; a class whose ids and degrees cannot be read leaves the table to the step.
TEST_F(DegreeShares, AnEarlyTableHoldsTheRowsOfOneWrittenWholeAndADroppedOneLeavesNothing) {
  const std::string path = write(dense_, 3, "g.h5");
  const BlockFileReader file(path);
  const auto fill = [&](PerVertexWriter& writer, VertexRows& all) {
    for (std::uint32_t c = 0; c < 3; ++c) {
      const std::vector<raw_id_t> ids = file.read_vertex_map_class(c, 2);
      const std::vector<std::uint64_t> degrees = file.read_degrees_class(c, 3);
      EXPECT_EQ(ids, file.read_vertex_map_class(c));
      std::vector<std::uint64_t> triangles(ids.size());
      for (std::size_t x = 0; x < ids.size(); ++x) triangles[x] = degrees[x] < 2 ? 0 : ids[x] % (degrees[x] * (degrees[x] - 1) / 2);
      for (std::size_t first = 0; first < ids.size(); first += 300) {  // pieces of another size than the early ones
        const std::size_t m = std::min<std::size_t>(300, ids.size() - first);
        VertexRows rows = class_rows(std::span<const raw_id_t>(ids).subspan(first, m),
                                     std::span<const std::uint64_t>(degrees).subspan(first, m),
                                     std::span<const std::uint64_t>(triangles).subspan(first, m), 2, writer.spare_rows());
        all.vertex.insert(all.vertex.end(), rows.vertex.begin(), rows.vertex.end());
        all.degree.insert(all.degree.end(), rows.degree.begin(), rows.degree.end());
        all.triangles.insert(all.triangles.end(), rows.triangles.begin(), rows.triangles.end());
        all.clustering.insert(all.clustering.end(), rows.clustering.begin(), rows.clustering.end());
        writer.append(std::move(rows));
      }
    }
    writer.finish();
    writer.commit(PerVertexSummary{});
  };
  VertexRows whole_rows, early_rows;
  {
    PerVertexWriter whole(dir_.file("whole.h5"), path, file.header().vertices, 2);
    fill(whole, whole_rows);
  }
  {
    PerVertexAhead ahead(file, false, true, 0, 1, 2, dir_.file("early.h5"));
    std::unique_ptr<PerVertexWriter> early = ahead.take_early_writer();
    ASSERT_TRUE(early);
    fill(*early, early_rows);
  }
  EXPECT_GT(whole_rows.size(), 0u);
  expect_same_rows(early_rows, whole_rows, "rows appended");
  expect_same_rows(read_per_vertex_hdf5(dir_.file("early.h5")), whole_rows, "early table");
  expect_same_rows(read_per_vertex_hdf5(dir_.file("whole.h5")), whole_rows, "whole table");
  // Dropped untaken, at once or after its columns are written: nothing under the name or beside it.
  for (int k = 0; k < 3; ++k) PerVertexAhead(file, false, true, 0, 1, 2, dir_.file("dropped.h5"));
  {
    PerVertexAhead ahead(file, false, true, 0, 1, 2, dir_.file("dropped.h5"));
    ASSERT_TRUE(ahead.take_early_writer());
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path()))
    EXPECT_FALSE(contains(entry.path().filename().string(), "dropped")) << entry.path();
  // Degrees that do not match their checksum: no early table (the step reports the class).
  const std::string bad = write(dense_, 3, "bad.h5");
  corrupt_stored_degree(bad, 7);  // class 7 mod 3 = 1
  const BlockFileReader bad_file(bad);
  PerVertexAhead ahead(bad_file, false, true, 0, 1, 2, dir_.file("bad-out.h5"));
  EXPECT_FALSE(ahead.take_early_writer());
}

TEST_F(DegreeShares, TheFirstEdgeBlockReadAheadIsTheBlockAndACorruptOneIsNamed) {
  const std::string path = write(dense_, 2, "g.h5");
  {
    const BlockFileReader file(path);
    PerEdgeAhead ahead(file, 3);
    const BlockForRows first = ahead.take();
    const BlockForRows direct = read_block_for_rows(file, {0, 0}, nullptr, 1);
    ASSERT_EQ(first.span.nnz, direct.span.nnz);
    EXPECT_TRUE(std::equal(first.span.neighbors, first.span.neighbors + first.span.nnz, direct.span.neighbors));
    EXPECT_EQ(*first.row_ids, file.read_vertex_map_class(0));
    EXPECT_EQ(first.col_ids, first.row_ids);  // one class: read once
    EXPECT_THROW(ahead.take(), Error);       // taken already
    // The next block of the row reuses the row class's ids.
    const BlockForRows next = read_block_for_rows(file, {0, 1}, &first, 1);
    EXPECT_EQ(next.row_ids, first.row_ids);
    EXPECT_EQ(*next.col_ids, file.read_vertex_map_class(1));
  }
  corrupt_block_neighbors(path, {0, 0});
  const BlockFileReader file(path);
  PerEdgeAhead ahead(file, 2);
  try {
    ahead.take();
    ADD_FAILURE() << "a corrupt first block read ahead must be reported";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(std::string(e.what()), "P(0,0)")) << e.what();
  }
  for (int k = 0; k < 3; ++k) PerEdgeAhead(file, 2);  // dropped unread: nothing escapes
}

}  // namespace
