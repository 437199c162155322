// Runs under mpiexec at 1, 2, 3 and 5 ranks (tricount_mpi_gtest): the per-vertex and per-edge
// steps after counting (reduce_per_vertex, reduce_per_edge) with pieces of a few rows, so
// that every class and block is cut into several pieces (one shorter at its end) and the
// writer's columns are reused: the tables equal those of whole pieces. And a rank that fails
// on its part of the step (its overlapped degree read, its counters, rank 0's input ids) ends
// the step on every rank with its error, with no rank left waiting in a reduction and no
// table or temporary left behind. Stored degrees give the table of the degree shares.
#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "count/per_edge.hpp"
#include "count/per_vertex.hpp"
#include "partitioner/partition.hpp"
#include "src/task_plan.hpp"
#include "tests/mpi_world.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

bool is_worker() { return world_size() == 1 || world_rank() != 0; }
int worker_index() { return world_size() == 1 ? 0 : world_rank() - 1; }
int workers() { return world_size() == 1 ? 1 : world_size() - 1; }

// A directory made by rank 0 and known to all, and a block file of `edges` in it.
class SharedGraph {
 public:
  // stored_degrees = false: a file without /degrees (the workers' degree shares are summed).
  SharedGraph(const EdgePairs& edges, std::uint32_t parts, bool stored_degrees = true) {
    std::string path;
    if (world_rank() == 0) {
      dir_ = std::make_unique<TempDir>();
      path = dir_->path();
      PartitionOptions o;
      o.parts = parts;
      const PartitionedGraph g = partition_edges(to_raw(edges), o);
      if (stored_degrees) write_block_file(g, path + "/g.h5");
      else write_block_file_without_degrees(g, path + "/g.h5");
    }
    int len = static_cast<int>(path.size());
    MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
    path.resize(static_cast<std::size_t>(len));
    MPI_Bcast(path.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
    path_ = path;
    file_ = std::make_unique<BlockFileReader>(file("g.h5"));
  }
  ~SharedGraph() {
    file_.reset();
    MPI_Barrier(MPI_COMM_WORLD);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const BlockFileReader& reader() const { return *file_; }
  // Rank 0: the names in the directory besides the graph (tables, temporaries).
  std::vector<std::string> outputs() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_))
      if (e.path().filename() != "g.h5") names.push_back(e.path().filename().string());
    return names;
  }

 private:
  std::unique_ptr<TempDir> dir_;
  std::string path_;
  std::unique_ptr<BlockFileReader> file_;
};

// Counters that sum to 3 per vertex (edge) over the workers: worker 0 holds them all.
std::vector<std::uint64_t> vertex_counts(const BlockFileReader& file, std::uint32_t c) {
  const std::uint64_t v = rows_in_class(file.header().vertices, file.header().parts, c);
  return std::vector<std::uint64_t>(v, worker_index() == 0 ? 3 : 0);
}

PerVertexSources vertex_sources(const BlockFileReader& file, std::uint64_t piece_rows) {
  PerVertexSources s;
  s.take_counts = [&file](std::uint32_t c) { return vertex_counts(file, c); };
  s.degree_shares = [&file] { return degree_shares(file, worker_index(), workers(), 2); };
  s.write_threads = 3;
  s.piece_rows = piece_rows;
  return s;
}

void expect_pieces_write_the_same_table(bool stored_degrees) {
  const SharedGraph g(random_graph(500, 3000, 3), 3, stored_degrees);
  const BlockFileReader& file = g.reader();
  const std::uint64_t vertices = file.header().vertices;
  for (const std::string ext : {".h5", ".tsv"}) {
    for (const std::uint64_t piece : {kPerVertexPieceRows, std::uint64_t{7}, std::uint64_t{1}}) {
      const PerVertexSummary s = reduce_and_write_per_vertex(MPI_COMM_WORLD, is_worker(), &file,
                                                             g.file("p" + std::to_string(piece) + ext),
                                                             vertex_sources(file, piece), vertices);
      if (world_rank() == 0) {
        EXPECT_EQ(s.vertices, vertices);
      }
    }
    if (world_rank() != 0) continue;
    const std::string whole = read_file(g.file("p" + std::to_string(kPerVertexPieceRows) + ext));
    EXPECT_GT(whole.size(), 1000u);
    if (ext == ".tsv") {
      EXPECT_EQ(read_file(g.file("p7.tsv")), whole);
      EXPECT_EQ(read_file(g.file("p1.tsv")), whole);
    } else {
      const VertexRows a = read_per_vertex_hdf5(g.file("p" + std::to_string(kPerVertexPieceRows) + ext));
      for (const char* name : {"p7.h5", "p1.h5"}) {
        const VertexRows b = read_per_vertex_hdf5(g.file(name));
        EXPECT_EQ(a.vertex, b.vertex) << name;
        EXPECT_EQ(a.degree, b.degree) << name;
        EXPECT_EQ(a.triangles, b.triangles) << name;
        EXPECT_EQ(a.clustering, b.clustering) << name;
      }
    }
  }
}

TEST(TablePiecesMpi, PerVertexPiecesOfAFewRowsWriteTheSameTable) { expect_pieces_write_the_same_table(true); }
TEST(TablePiecesMpi, PerVertexPiecesOfAFewRowsWriteTheSameTableFromDegreeShares) {
  expect_pieces_write_the_same_table(false);
}

// The degrees stored in the file (rank 0 reads them) and the workers' degree shares counted
// from the blocks of a file without them give the same table; a stored degree changed on the
// disk ends the step on every rank, naming the file and the class, and leaves no table.
TEST(TablePiecesMpi, StoredDegreesGiveTheTableOfTheDegreeShares) {
  const EdgePairs edges = random_graph(600, 3500, 8);
  const SharedGraph stored(edges, 3, true), shares(edges, 3, false);
  ASSERT_TRUE(stored.reader().has_degrees());
  ASSERT_FALSE(shares.reader().has_degrees());
  for (const std::string name : {"t.h5", "t.tsv"}) {
    for (const SharedGraph* g : {&stored, &shares}) {
      const PerVertexSummary s = reduce_and_write_per_vertex(MPI_COMM_WORLD, is_worker(), &g->reader(), g->file(name),
                                                             vertex_sources(g->reader(), 50), g->reader().header().vertices);
      if (world_rank() == 0) {
        EXPECT_EQ(s.vertices, g->reader().header().vertices);
      }
    }
    if (world_rank() != 0) continue;
    if (name.ends_with(".tsv")) {
      EXPECT_EQ(table_rows(read_file(stored.file(name))), table_rows(read_file(shares.file(name))));
      continue;
    }
    const VertexRows a = read_per_vertex_hdf5(stored.file(name)), b = read_per_vertex_hdf5(shares.file(name));
    EXPECT_GT(a.size(), 500u);
    EXPECT_EQ(a.vertex, b.vertex);
    EXPECT_EQ(a.degree, b.degree);
    EXPECT_EQ(a.triangles, b.triangles);
    EXPECT_EQ(a.clustering, b.clustering);
  }
  if (world_rank() == 0) corrupt_stored_degree(stored.file("g.h5"), 4);  // class 1
  MPI_Barrier(MPI_COMM_WORLD);
  for (const std::string name : {"bad.h5", "bad.tsv"}) {
    try {
      reduce_and_write_per_vertex(MPI_COMM_WORLD, is_worker(), &stored.reader(), stored.file(name),
                                  vertex_sources(stored.reader(), 50), stored.reader().header().vertices);
      ADD_FAILURE() << "expected an error on rank " << world_rank();
    } catch (const Error& e) {
      EXPECT_TRUE(contains(std::string(e.what()), "degrees of vertex class 1 do not match their checksum")) << e.what();
      EXPECT_TRUE(contains(std::string(e.what()), "g.h5")) << e.what();
    }
    if (world_rank() == 0) {
      EXPECT_FALSE(std::filesystem::exists(stored.file(name))) << name;
    }
  }
}

TEST(TablePiecesMpi, PerEdgePiecesOfAFewRowsWriteTheSameTable) {
  const SharedGraph g(random_graph(400, 2500, 4), 3);
  const BlockFileReader& file = g.reader();
  const auto counts = [&file](BlockId id) {
    return std::vector<edge_count_t>(file.block_nnz(id), worker_index() == 0 ? 3 : 0);
  };
  for (const std::string ext : {".h5", ".tsv"}) {
    for (const std::uint64_t piece : {kPerEdgePieceRows, std::uint64_t{13}, std::uint64_t{1}}) {
      // Rank 0's first block read ahead (as while counting) for the pieces of one row.
      std::unique_ptr<PerEdgeAhead> ahead;
      if (world_rank() == 0 && piece == 1) ahead = std::make_unique<PerEdgeAhead>(file, 2);
      PerEdgeOutput out = reduce_per_edge(MPI_COMM_WORLD, is_worker(), &file, g.file("e" + std::to_string(piece) + ext),
                                          counts, file.header().edges, 2, 3, piece, ahead.get());
      if (world_rank() != 0) continue;
      EXPECT_EQ(out.summary.edges, file.header().edges);
      out.commit();
    }
    if (world_rank() != 0) continue;
    const std::string whole = g.file("e" + std::to_string(kPerEdgePieceRows) + ext);
    if (ext == ".tsv") {
      EXPECT_EQ(read_file(g.file("e13.tsv")), read_file(whole));
      EXPECT_EQ(read_file(g.file("e1.tsv")), read_file(whole));
    } else {
      const EdgeRows a = read_per_edge_hdf5(whole);
      EXPECT_EQ(a.size(), file.header().edges);
      for (const char* name : {"e13.h5", "e1.h5"}) {
        const EdgeRows b = read_per_edge_hdf5(g.file(name));
        EXPECT_EQ(a.u, b.u) << name;
        EXPECT_EQ(a.v, b.v) << name;
        EXPECT_EQ(a.triangles, b.triangles) << name;
      }
    }
  }
}

// Runs the per-vertex step with one part of it failing on one rank: every rank gets that
// rank's error, and rank 0 leaves no file behind.
void expect_per_vertex_failure(const SharedGraph& g, const PerVertexSources& sources, const std::string& message) {
  const BlockFileReader& file = g.reader();
  for (const std::string name : {"t.h5", "t.tsv"}) {
    try {
      reduce_and_write_per_vertex(MPI_COMM_WORLD, is_worker(), &file, g.file(name), sources, file.header().vertices);
      ADD_FAILURE() << "expected the error '" << message << "' on rank " << world_rank();
    } catch (const Error& e) {
      EXPECT_TRUE(contains(std::string(e.what()), message)) << e.what();
    }
    if (world_rank() == 0) {
      EXPECT_TRUE(g.outputs().empty()) << name << ": " << ::testing::PrintToString(g.outputs());
    }
  }
}

TEST(TablePiecesMpi, AFailureOfAnyRanksPartEndsTheStepEverywhereAndLeavesNoTable) {
  const SharedGraph g(random_graph(500, 3000, 5), 2, /*stored_degrees=*/false);  // the degree shares can fail
  const BlockFileReader& file = g.reader();
  const int last_worker = world_size() == 1 ? 0 : world_size() - 1;
  {  // The last worker's overlapped degree read failed (PerVertexAhead::take_degrees rethrows it).
    PerVertexSources s = vertex_sources(file, 7);
    s.degree_shares = [&] {
      if (world_rank() == last_worker) throw Error("'g.h5' block P(1,0): checksum mismatch (the file is corrupt)");
      return degree_shares(file, worker_index(), workers(), 2);
    };
    expect_per_vertex_failure(g, s, "block P(1,0): checksum mismatch");
  }
  {  // Worker 0's counters of class 1 (after class 0's pieces went out).
    PerVertexSources s = vertex_sources(file, 7);
    s.take_counts = [&](std::uint32_t c) {
      if (c == 1 && worker_index() == 0) throw Error("class 1's counters are lost");
      return vertex_counts(file, c);
    };
    expect_per_vertex_failure(g, s, "class 1's counters are lost");
  }
  {  // Rank 0's input ids of class 0, read ahead.
    PerVertexSources s = vertex_sources(file, 7);
    s.first_ids = [] () -> std::vector<raw_id_t> { throw Error("cannot read dataset 'vertex_map'"); };
    expect_per_vertex_failure(g, s, "cannot read dataset 'vertex_map'");
  }
  {  // A worker's per-edge counters of one block.
    const int failing = workers() - 1;
    const auto counts = [&](BlockId id) {
      if (id.row_class == 1 && id.col_class == 0 && worker_index() == failing) throw Error("P(1,0)'s counters are lost");
      return std::vector<edge_count_t>(file.block_nnz(id), worker_index() == 0 ? 3 : 0);
    };
    for (const std::string name : {"e.h5", "e.tsv"}) {
      try {
        reduce_per_edge(MPI_COMM_WORLD, is_worker(), &file, g.file(name), counts, file.header().edges, 2, 2, 5);
        ADD_FAILURE() << "expected an error on rank " << world_rank();
      } catch (const Error& e) {
        EXPECT_TRUE(contains(std::string(e.what()), "P(1,0)'s counters are lost")) << e.what();
      }
      if (world_rank() == 0) {
        EXPECT_TRUE(g.outputs().empty()) << name;
      }
    }
  }
  // And the step still works afterwards on every rank (no message left over).
  const PerVertexSummary s = reduce_and_write_per_vertex(MPI_COMM_WORLD, is_worker(), &file, g.file("ok.h5"),
                                                         vertex_sources(file, 7), file.header().vertices);
  if (world_rank() == 0) {
    EXPECT_EQ(s.vertices, file.header().vertices);
  }
}

}  // namespace
