// Runs under mpiexec at 1, 2, 3, 5 and 9 ranks (tricount_mpi_gtest in tests/CMakeLists.txt):
// the real scheduler and worker ranks, the real MPI_Reduce. Rank 0 writes the block files into
// a directory all ranks share; every rank calls run_count; rank 0 checks the result against
// the reference, every rank what it sees itself (mpi_gtest_main.cpp gathers the failures of
// every rank).
#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "partitioner/partition.hpp"
#include "count/count_job.hpp"
#include "count/per_vertex.hpp"
#include "tests/reference_counter.hpp"
#include "tests/mpi_world.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

// A directory made by rank 0 and known to all.
class SharedDir {
 public:
  SharedDir() {
    std::string path;
    if (world_rank() == 0) {
      dir_ = std::make_unique<TempDir>();
      path = dir_->path();
    }
    int len = static_cast<int>(path.size());
    MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
    path.resize(static_cast<std::size_t>(len));
    MPI_Bcast(path.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
    path_ = path;
  }
  ~SharedDir() { MPI_Barrier(MPI_COMM_WORLD); }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::unique_ptr<TempDir> dir_;
  std::string path_;
};

// Rank 0 partitions; everyone waits for the file.
// stored_degrees = false: a file as written before the degrees were stored, whose
// per-vertex step takes the workers' degree shares.
void write_graph(const EdgePairs& edges, std::uint32_t parts, const std::string& path, bool stored_degrees = true) {
  if (world_rank() == 0) {
    PartitionOptions o;
    o.parts = parts;
    const PartitionedGraph g = partition_edges(to_raw(edges), o);
    if (stored_degrees) write_block_file(g, path);
    else write_block_file_without_degrees(g, path);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

CountOptions cpu_options(const std::string& path, std::uint32_t splits) {
  CountOptions o;
  o.input = path;
  o.splits = splits;
  o.backend = BackendKind::Cpu;
  o.backend_options.threads = 1;
  o.allow_idle_workers = true;
  return o;
}

}  // namespace

TEST(MpiCount, HandMadeGraphs) {
  SharedDir dir;
  struct Case {
    const char* name;
    EdgePairs edges;
    std::uint64_t expected;
  };
  const std::vector<Case> cases = {
      {"triangle", {{0, 1}, {1, 2}, {2, 0}}, 1},
      {"k4", complete_graph(4), 4},
      {"k5", complete_graph(5), 10},
      {"k40", complete_graph(40), 40 * 39 * 38 / 6},
      {"grid", grid_2d(30, 30), 0},
      {"star", star(1000), 0},
      {"two_sharing_an_edge", {{0, 1}, {1, 2}, {2, 0}, {1, 3}, {3, 2}}, 2},
  };
  for (const Case& c : cases) {
    for (std::uint32_t n : {1u, 2u}) {
      const std::string path = dir.file(std::string(c.name) + std::to_string(n) + ".h5");
      write_graph(c.edges, n, path);
      const CountResult r = run_count(MPI_COMM_WORLD, cpu_options(path, 1));
      if (world_rank() == 0) {
        EXPECT_EQ(r.triangles, c.expected) << c.name << " n=" << n;
      }
    }
  }
}

TEST(MpiCount, EveryPartsAndSplitsGiveTheReferenceCount) {
  SharedDir dir;
  const EdgePairs g = random_graph(2000, 30000, 77);
  const std::uint64_t expected = world_rank() == 0 ? reference::count_triangles(g) : 0;
  for (std::uint32_t n = 1; n <= 4; ++n) {
    const std::string path = dir.file("g" + std::to_string(n) + ".h5");
    write_graph(g, n, path);
    for (std::uint32_t m = 1; m <= 3; ++m) {
      const CountResult r = run_count(MPI_COMM_WORLD, cpu_options(path, m));
      if (world_rank() == 0) {
        EXPECT_EQ(r.triangles, expected) << "n=" << n << " m=" << m;
        EXPECT_EQ(r.tasks, std::uint64_t(n) * n * n * m);
        EXPECT_EQ(r.ranks, world_size());
        std::uint64_t done = 0;
        for (const RankStats& s : r.per_rank) done += s.stats.tasks;
        EXPECT_EQ(done, r.tasks) << "every task counted exactly once";
        if (world_size() > 1) {
          EXPECT_EQ(r.per_rank[0].stats.tasks, 0u) << "the scheduler never counts";
        }
      }
    }
  }
}

// --schedule static: the same counts, every task once, rank 0 counting nothing, and each
// worker's blocks loaded before the count phase.
TEST(MpiCount, StaticScheduleGivesTheReferenceCount) {
  SharedDir dir;
  const EdgePairs g = random_graph(1500, 20000, 78);
  const std::uint64_t expected = world_rank() == 0 ? reference::count_triangles(g) : 0;
  for (std::uint32_t n = 1; n <= 3; ++n) {
    const std::string path = dir.file("s" + std::to_string(n) + ".h5");
    write_graph(g, n, path);
    for (std::uint32_t m = 1; m <= 3; ++m) {
      CountOptions o = cpu_options(path, m);
      o.static_schedule = true;
      const CountResult r = run_count(MPI_COMM_WORLD, o);
      if (world_rank() == 0) {
        EXPECT_EQ(r.triangles, expected) << "n=" << n << " m=" << m;
        EXPECT_EQ(r.schedule, "static");
        std::uint64_t done = 0;
        for (const RankStats& s : r.per_rank) {
          done += s.stats.tasks;
          if (s.worker && s.stats.tasks > 0) EXPECT_GT(s.stats.resident_bytes, 0u) << "rank " << s.rank;
        }
        EXPECT_EQ(done, r.tasks) << "every task counted exactly once";
        if (world_size() > 1) EXPECT_EQ(r.per_rank[0].stats.tasks, 0u) << "the scheduler never counts";
      }
    }
  }
}

TEST(MpiCount, MoreWorkersThanTasksIsAClearErrorOnEveryRank) {
  if (world_size() < 3) GTEST_SKIP() << "needs at least 2 workers";
  SharedDir dir;
  const std::string path = dir.file("tiny.h5");
  write_graph(complete_graph(5), 1, path);
  CountOptions o = cpu_options(path, 1);
  o.allow_idle_workers = false;
  try {
    run_count(MPI_COMM_WORLD, o);
    ADD_FAILURE() << "expected an error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("tasks"), std::string::npos) << e.what();
  }
}

TEST(MpiCount, MissingFileIsAnErrorOnEveryRankNotAHang) {
  SharedDir dir;
  try {
    run_count(MPI_COMM_WORLD, cpu_options(dir.file("missing.h5"), 1));
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.h5"), std::string::npos) << e.what();
  }
}

TEST(MpiCount, CountsPast2To32) {
  // K_3000 holds 4,495,501,000 triangles > 2^32: the 64-bit path from the backend through
  // MPI_Reduce must not wrap. Splits keep every worker busy.
  SharedDir dir;
  const std::string path = dir.file("k3000.h5");
  write_graph(complete_graph(3000), 2, path);
  CountOptions o = cpu_options(path, 2);
  o.backend_options.threads = 2;
  const CountResult r = run_count(MPI_COMM_WORLD, o);
  if (world_rank() == 0) {
    EXPECT_EQ(r.triangles, 4495501000ULL);
  }
}

// ---- --per-vertex: the per-class reduction to owners and rank 0's writer ----

namespace {

// The reference's rows by input id: degree, triangles.
std::map<std::uint64_t, reference::VertexTriangles> rows_by_id(const VertexRows& rows) {
  std::map<std::uint64_t, reference::VertexTriangles> out;
  for (std::size_t x = 0; x < rows.size(); ++x) out[rows.vertex[x]] = {rows.degree[x], rows.triangles[x]};
  return out;
}

}  // namespace

TEST(MpiPerVertex, EveryPartsAndSplitsMatchTheReference) {
  SharedDir dir;
  // Sparse input ids near 2^40 and a hub: ids must come back as given, degrees after cleaning.
  EdgePairs g = random_graph(300, 2500, 31);
  for (std::uint64_t x = 1; x < 300; x += 3) g.emplace_back(0, x);
  g.emplace_back(5, 5);  // a loop and a duplicate, dropped by cleaning
  g.emplace_back(7, 8), g.emplace_back(8, 7);
  for (auto& [a, b] : g) a = (a << 32) + 1 + a, b = (b << 32) + 1 + b;
  const auto expected = reference::per_vertex_triangles(g);
  for (std::uint32_t n = 1; n <= 4; ++n) {
    const std::string path = dir.file("g" + std::to_string(n) + ".h5");
    write_graph(g, n, path);
    for (std::uint32_t m = 1; m <= 3; ++m) {
      CountOptions o = cpu_options(path, m);
      o.per_vertex = dir.file("pv" + std::to_string(n) + std::to_string(m) + ".h5");
      const CountResult r = run_count(MPI_COMM_WORLD, o);
      r.commit_outputs();  // the table is complete under its name only once committed (after the summary)
      if (world_rank() != 0) continue;
      const VertexRows rows = read_per_vertex_hdf5(o.per_vertex);
      EXPECT_EQ(rows_by_id(rows), expected) << "n=" << n << " m=" << m;
      ASSERT_TRUE(r.per_vertex.has_value());
      EXPECT_EQ(r.per_vertex->vertices, expected.size());
      EXPECT_TRUE(r.per_vertex->triangle_sum == static_cast<unsigned __int128>(r.triangles) * 3);
      for (std::size_t x = 0; x < rows.size(); ++x)
        EXPECT_EQ(rows.clustering[x], local_clustering(rows.degree[x], rows.triangles[x]));
    }
  }
}

TEST(MpiPerVertex, CountersPast2To32ThroughTheReductionAndTheWriter) {
  // A vertex of degree d = 100001 in all C(d, 2) = 5,000,050,000 > 2^32 triangles of its
  // neighbourhood (clustering exactly 1), fed as counters without counting such a graph: each
  // worker hands out a share, so the sums at the owners cross 2^32 only when added up.
  SharedDir dir;
  const std::string path = dir.file("k48.h5");
  // 48 vertices: the counters sum to a multiple of 3. No stored degrees: the fed shares are the degrees.
  write_graph(complete_graph(48, 1), 3, path, /*stored_degrees=*/false);
  const int workers = world_size() == 1 ? 1 : world_size() - 1;
  const bool is_worker = world_size() == 1 || world_rank() != 0;
  const int me = world_size() == 1 ? 0 : world_rank() - 1;
  constexpr std::uint64_t kDegree = 100001, kTriangles = kDegree * (kDegree - 1) / 2;
  static_assert(kTriangles > (std::uint64_t{1} << 32));
  const BlockFileReader file(path);
  const std::uint32_t n = file.header().parts;
  PerVertexSources sources;
  sources.take_counts = [&](std::uint32_t c) {
    const std::uint64_t share = kTriangles / workers + (me == 0 ? kTriangles % workers : 0);
    return std::vector<std::uint64_t>(rows_in_class(48, n, c), share);
  };
  sources.degree_shares = [&] {  // summed over the workers: one worker's share is the whole degree
    std::vector<std::vector<std::uint64_t>> shares(n);
    if (me == 0)
      for (std::uint32_t c = 0; c < n; ++c) shares[c].assign(rows_in_class(48, n, c), kDegree);
    return shares;
  };
  for (const char* name : {"big.h5", "big.tsv"}) {
    const PerVertexSummary summary =
        reduce_and_write_per_vertex(MPI_COMM_WORLD, is_worker, &file, dir.file(name), sources, 48 * kTriangles / 3);
    if (world_rank() != 0) continue;
    EXPECT_EQ(summary.vertices, 48u);
    EXPECT_EQ(summary.global_clustering(), 1.0);
    EXPECT_EQ(summary.average_clustering(), 1.0);
    ASSERT_EQ(summary.top.size(), PerVertexSummary::kTop);
    EXPECT_EQ(summary.top[0], (TopVertex{1, kDegree, kTriangles}));  // ties: the smaller input id first
    EXPECT_EQ(summary.top[9], (TopVertex{10, kDegree, kTriangles}));
  }
  if (world_rank() == 0) {
    const VertexRows rows = read_per_vertex_hdf5(dir.file("big.h5"));
    ASSERT_EQ(rows.size(), 48u);
    std::set<std::uint64_t> ids(rows.vertex.begin(), rows.vertex.end());
    EXPECT_EQ(ids.size(), 48u);
    EXPECT_EQ(*ids.begin(), 1u);
    EXPECT_EQ(*ids.rbegin(), 48u);
    for (std::size_t x = 0; x < rows.size(); ++x) {
      EXPECT_EQ(rows.triangles[x], kTriangles);
      EXPECT_EQ(rows.degree[x], kDegree);
      EXPECT_EQ(rows.clustering[x], 1.0);
    }
    std::ifstream tsv(dir.file("big.tsv"));
    std::string line;
    std::size_t lines = 0;
    while (std::getline(tsv, line))
      if (line[0] != '#') {
        ++lines;
        EXPECT_TRUE(line.ends_with("\t100001\t5000050000\t1")) << line;
      }
    EXPECT_EQ(lines, 48u);
  }
  // Counters that do not sum to 3 x the triangles are refused on every rank, and nothing is written.
  try {
    reduce_and_write_per_vertex(MPI_COMM_WORLD, is_worker, &file, dir.file("wrong.h5"), sources, 1);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not 3 x 1 triangles"), std::string::npos) << e.what();
  }
  if (world_rank() == 0) {
    EXPECT_FALSE(std::filesystem::exists(dir.file("wrong.h5")));
  }
}
