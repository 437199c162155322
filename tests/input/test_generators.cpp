// Synthetic generators: sizes, ranges, determinism across batch sizes, the Kronecker
// initiator and permutation, the grid's structure, invalid parameters, and writing them.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>  // std::in_range, used by types.hpp
#include <vector>

#include "input/edge_source.hpp"
#include "input/generators.hpp"
#include "src/types.hpp"
#include "tests/test_support.hpp"

namespace tricount {
namespace {

namespace fs = std::filesystem;
using Edges = std::vector<RawEdge>;

Edges read_all(EdgeSource& src, std::size_t batch) {
  Edges all, b;
  while (src.next_batch(b, batch)) {
    EXPECT_LE(b.size(), batch);
    EXPECT_FALSE(b.empty());
    all.insert(all.end(), b.begin(), b.end());
  }
  EXPECT_TRUE(b.empty());
  EXPECT_FALSE(src.next_batch(b, batch));  // stays exhausted
  return all;
}

Edges kronecker(const KroneckerSpec& spec, std::size_t batch = 4096) {
  return read_all(*make_kronecker_source(spec), batch);
}

// ---- Kronecker -------------------------------------------------------------------------

TEST(Kronecker, EdgeCountAndRange) {
  for (unsigned scale : {1u, 5u, 10u}) {
    for (std::uint64_t ef : {1u, 16u}) {
      KroneckerSpec spec;
      spec.scale = scale;
      spec.edge_factor = ef;
      const Edges e = kronecker(spec);
      EXPECT_EQ(e.size(), ef << scale) << "scale " << scale << " ef " << ef;
      for (const RawEdge& x : e) {
        ASSERT_LT(x.u, std::uint64_t{1} << scale);
        ASSERT_LT(x.v, std::uint64_t{1} << scale);
      }
    }
  }
}

TEST(Kronecker, SameForEveryBatchSize) {
  KroneckerSpec spec;
  spec.scale = 12;
  spec.edge_factor = 8;
  spec.seed = 42;
  const Edges ref = kronecker(spec, std::size_t{1} << 30);
  for (std::size_t batch : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{32768}}) {
    EXPECT_TRUE(kronecker(spec, batch) == ref) << "batch " << batch;
  }
  EXPECT_TRUE(kronecker(spec) == ref);  // and again: no hidden global state
}

// Batches are computed on several threads; the edges must not depend on how many.
TEST(Kronecker, SameForEveryThreadCount) {
  KroneckerSpec spec;
  spec.scale = 14;
  spec.edge_factor = 16;
  spec.threads = 1;
  const Edges ref = kronecker(spec, std::size_t{1} << 18);
  for (unsigned threads : {2u, 4u, 7u, 0u}) {
    spec.threads = threads;
    EXPECT_TRUE(kronecker(spec, std::size_t{1} << 18) == ref) << threads << " threads";
  }
}

TEST(Kronecker, SeedChangesTheGraph) {
  KroneckerSpec a, b;
  a.scale = b.scale = 10;
  b.seed = a.seed + 1;
  const Edges ea = kronecker(a), eb = kronecker(b);
  std::size_t same = 0;
  for (std::size_t i = 0; i < ea.size(); ++i) same += ea[i] == eb[i];
  EXPECT_LT(same, ea.size() / 20);
}

// With permute off, the first level's quadrant choice is the top bit of each id, so the
// initiator's probabilities can be checked directly: P(u's top bit) = C + D = 0.24, and
// P(v's top bit) = B + D = 0.24; P(both) = D = 0.05.
TEST(Kronecker, InitiatorProbabilities) {
  KroneckerSpec spec;
  spec.scale = 16;
  spec.edge_factor = 4;
  spec.permute = false;
  const Edges e = kronecker(spec, 1 << 16);
  const std::uint64_t top = std::uint64_t{1} << (spec.scale - 1);
  double row = 0, col = 0, both = 0;
  for (const RawEdge& x : e) {
    row += (x.u & top) != 0;
    col += (x.v & top) != 0;
    both += (x.u & top) && (x.v & top);
  }
  const double n = static_cast<double>(e.size());
  EXPECT_NEAR(row / n, 0.24, 0.005);
  EXPECT_NEAR(col / n, 0.24, 0.005);
  EXPECT_NEAR(both / n, 0.05, 0.003);
  // Unpermuted, vertex 0 (all-A quadrants) is the most likely endpoint of all.
  std::map<std::uint64_t, std::uint64_t> deg;
  for (const RawEdge& x : e) ++deg[x.u], ++deg[x.v];
  const auto hub = std::max_element(deg.begin(), deg.end(),
                                    [](auto& l, auto& r) { return l.second < r.second; });
  EXPECT_EQ(hub->first, 0u);
}

// The permutation is a bijection on [0, 2^scale) applied to each endpoint: edge i with
// permute on is (p(u_i), p(v_i)) for edge i with permute off, for one fixed p.
TEST(Kronecker, PermutationIsABijection) {
  for (unsigned scale : {1u, 3u, 8u, 11u}) {
    KroneckerSpec plain;
    plain.scale = scale;
    plain.edge_factor = 64;  // enough edges to touch (nearly) every vertex
    plain.permute = false;
    KroneckerSpec scrambled = plain;
    scrambled.permute = true;
    const Edges a = kronecker(plain), b = kronecker(scrambled);
    ASSERT_EQ(a.size(), b.size());
    std::map<std::uint64_t, std::uint64_t> p;
    for (std::size_t i = 0; i < a.size(); ++i) {
      for (auto [from, to] : {std::pair{a[i].u, b[i].u}, std::pair{a[i].v, b[i].v}}) {
        const auto [it, fresh] = p.emplace(from, to);
        ASSERT_EQ(it->second, to) << "not a function at " << from;
      }
    }
    std::set<std::uint64_t> image;
    for (auto [from, to] : p) image.insert(to);
    EXPECT_EQ(image.size(), p.size()) << "not injective at scale " << scale;
    if (scale >= 8) {
      // It really moves things: vertex 0, the hub, does not stay at 0.
      EXPECT_NE(p.at(0), 0u);
    }
  }
}

TEST(Kronecker, InvalidSpecs) {
  KroneckerSpec s;
  s.scale = 0;
  EXPECT_THROW(make_kronecker_source(s), Error);
  s.scale = 63;
  EXPECT_THROW(make_kronecker_source(s), Error);
  s.scale = 40;
  s.edge_factor = std::uint64_t{1} << 30;  // 2^70 edges
  EXPECT_THROW(make_kronecker_source(s), Error);
  s = KroneckerSpec{};
  s.a = 0.6;
  s.b = 0.3;
  s.c = 0.3;  // a + b + c > 1
  EXPECT_THROW(make_kronecker_source(s), Error);
  s = KroneckerSpec{};
  s.b = -0.1;
  EXPECT_THROW(make_kronecker_source(s), Error);
}

TEST(Kronecker, Description) {
  KroneckerSpec s;
  s.scale = 9;
  s.seed = 77;
  const std::string d = make_kronecker_source(s)->description();
  EXPECT_NE(d.find("kronecker"), std::string::npos) << d;
  EXPECT_NE(d.find("scale=9"), std::string::npos) << d;
  EXPECT_NE(d.find("seed=77"), std::string::npos) << d;
}

// ---- uniform ---------------------------------------------------------------------------

TEST(Uniform, CountRangeAndSpread) {
  UniformSpec spec;
  spec.vertices = 7;  // not a power of two
  spec.edges = 70000;
  spec.seed = 3;
  const Edges e = read_all(*make_uniform_source(spec), 999);
  ASSERT_EQ(e.size(), spec.edges);
  std::vector<std::uint64_t> hits(spec.vertices);
  for (const RawEdge& x : e) {
    ASSERT_LT(x.u, spec.vertices);
    ASSERT_LT(x.v, spec.vertices);
    ++hits[x.u];
    ++hits[x.v];
  }
  for (std::uint64_t h : hits) EXPECT_NEAR(static_cast<double>(h), 20000.0, 600.0);
}

TEST(Uniform, HugeVertexRangeAndDeterminism) {
  UniformSpec spec;
  spec.vertices = ~std::uint64_t{0};
  spec.edges = 5000;
  const Edges a = read_all(*make_uniform_source(spec), 1);
  const Edges b = read_all(*make_uniform_source(spec), 4096);
  EXPECT_TRUE(a == b);
  bool high = false;
  for (const RawEdge& x : a) high |= x.u >= (std::uint64_t{1} << 63);
  EXPECT_TRUE(high);  // ids use the whole 64-bit range
}

TEST(Uniform, SameForEveryThreadCount) {
  UniformSpec spec;
  spec.vertices = 1000003;
  spec.edges = 300001;
  spec.threads = 1;
  const Edges ref = read_all(*make_uniform_source(spec), std::size_t{1} << 17);
  for (unsigned threads : {2u, 4u, 0u}) {
    spec.threads = threads;
    EXPECT_TRUE(read_all(*make_uniform_source(spec), std::size_t{1} << 17) == ref) << threads << " threads";
  }
}

TEST(Uniform, EmptyAndInvalid) {
  UniformSpec spec;
  spec.edges = 0;
  EXPECT_TRUE(read_all(*make_uniform_source(spec), 10).empty());
  spec.vertices = 0;
  spec.edges = 1;
  EXPECT_THROW(make_uniform_source(spec), Error);
}

// ---- grid ------------------------------------------------------------------------------

TEST(Grid3d, CubeEdgeCount) {
  for (std::uint64_t n = 1; n <= 6; ++n) {
    const Edges e = read_all(*make_grid3d_source({n, n, n}), 5);
    EXPECT_EQ(e.size(), 3 * n * n * n - 3 * n * n) << "side " << n;
  }
}

TEST(Grid3d, StructureOfABox) {
  const Grid3dSpec spec{4, 3, 5};
  const Edges e = read_all(*make_grid3d_source(spec), 1000);
  const std::uint64_t n = spec.nx * spec.ny * spec.nz;
  EXPECT_EQ(e.size(), 3 * n - spec.ny * spec.nz - spec.nx * spec.nz - spec.nx * spec.ny);
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
  for (const RawEdge& x : e) {
    ASSERT_LT(x.u, x.v);
    ASSERT_LT(x.v, n);
    const std::uint64_t d = x.v - x.u;
    ASSERT_TRUE(d == 1 || d == spec.nx || d == spec.nx * spec.ny) << x.u << " " << x.v;
    if (d == 1) {
      ASSERT_NE(x.u % spec.nx, spec.nx - 1);  // no wrap-around in x
    }
    if (d == spec.nx) {
      ASSERT_NE(x.u / spec.nx % spec.ny, spec.ny - 1);  // nor in y
    }
    EXPECT_TRUE(seen.insert({x.u, x.v}).second);
  }
  // Same edges, in the same order, whatever the batch size.
  EXPECT_TRUE(read_all(*make_grid3d_source(spec), 1) == e);
}

TEST(Grid3d, InvalidAndDescription) {
  EXPECT_THROW(make_grid3d_source({0, 4, 4}), Error);
  const std::uint64_t big = std::uint64_t{1} << 22;
  EXPECT_THROW(make_grid3d_source({big, big, big}), Error);  // 2^66 vertices
  EXPECT_NE(make_grid3d_source({2, 3, 4})->description().find("2x3x4"), std::string::npos);
}

// ---- writing ---------------------------------------------------------------------------

class GeneratorFiles : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  tricount::testing::TempDir temp_;
  const fs::path dir_{temp_.path()};
};

TEST_F(GeneratorFiles, WrittenFilesReadBackIdentically) {
  KroneckerSpec spec;
  spec.scale = 10;
  const Edges ref = kronecker(spec);
  for (auto [name, kind] : {std::pair{"k.txt", EdgeFileKind::Text}, std::pair{"k.bin32", EdgeFileKind::Bin32},
                            std::pair{"k.bin64", EdgeFileKind::Bin64}}) {
    auto src = make_kronecker_source(spec);
    EXPECT_EQ(write_edge_file(*src, path(name), kind), ref.size());
    auto back = open_edge_file(path(name), InputFormat::Auto);
    EXPECT_TRUE(read_all(*back, 333) == ref) << name;
  }
  // Only the finished files remain: no temporaries.
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    ++files;
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
  }
  EXPECT_EQ(files, 3u);
}

TEST_F(GeneratorFiles, Bin32RefusesWideIdsAndLeavesNothing) {
  UniformSpec spec;
  spec.vertices = std::uint64_t{1} << 40;
  spec.edges = 100;
  auto src = make_uniform_source(spec);
  try {
    write_edge_file(*src, path("u.bin32"), EdgeFileKind::Bin32);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("vertex id"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bin64"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(GeneratorFiles, UnwritableDirectory) {
  auto src = make_grid3d_source({2, 2, 2});
  const std::string p = path("no/such/dir/g.txt");
  try {
    write_edge_file(*src, p, EdgeFileKind::Text);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tricount
