// Kronecker products of small graphs (input/kronecker_product.hpp): the closed-form vertex,
// edge and triangle counts against the independent reference counter and against a
// brute-force product of the factors' dense adjacency matrices, on 2- and 3-factor products
// with and without self-loops; the edge stream the same for any thread count and batch
// size; the factor syntax and its errors; the FILE.known sidecar.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <utility>  // std::in_range, used by types.hpp
#include <vector>

#include "input/generators.hpp"
#include "input/known_counts.hpp"
#include "input/kronecker_product.hpp"
#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"

namespace tricount {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.flush()) << path;
}

ProductFactor one(const std::string& spec) {
  std::vector<ProductFactor> f = parse_factor(spec);
  EXPECT_EQ(f.size(), 1u) << spec;
  return f.at(0);
}

// Every edge of the product, by index.
std::vector<RawEdge> all_edges(const KroneckerProduct& p) {
  std::vector<RawEdge> out;
  for (std::uint64_t i = 0; i < p.counts().edges; ++i) out.push_back(p.edge(i));
  return out;
}

// The product's simple graph from the definition: x ~ y iff x != y and every factor has the
// entry (x_i, y_i), with x = sum x_i * prod_{l > i} n_l. Pairs u < v.
std::set<std::pair<std::uint64_t, std::uint64_t>> brute_force_product(const std::vector<ProductFactor>& factors) {
  std::vector<std::vector<std::vector<bool>>> dense;
  std::uint64_t n = 1;
  for (const ProductFactor& f : factors) {
    std::vector<std::vector<bool>> a(f.vertices, std::vector<bool>(f.vertices, false));
    for (const auto& [u, v] : f.edges) a[u][v] = a[v][u] = true;
    dense.push_back(std::move(a));
    n *= f.vertices;
  }
  std::set<std::pair<std::uint64_t, std::uint64_t>> edges;
  for (std::uint64_t x = 0; x < n; ++x) {
    for (std::uint64_t y = x + 1; y < n; ++y) {
      bool all = true;
      std::uint64_t rx = x, ry = y;
      for (std::size_t i = factors.size(); i-- > 0 && all;) {
        const std::uint64_t m = factors[i].vertices;
        all = dense[i][rx % m][ry % m];
        rx /= m, ry /= m;
      }
      if (all) edges.emplace(x, y);
    }
  }
  return edges;
}

class FactorPool : public ::testing::Test {
 protected:
  void SetUp() override {
    // A triangle with a pendant vertex, self-loops on two of its vertices (one of them the
    // pendant's), and a factor with a vertex whose only entry is its self-loop.
    write_file(dir_.file("loops.txt"), "0 1\n1 2\n2 0\n2 3\n0 0\n3 3\n");
    write_file(dir_.file("loop_only.txt"), "# ids renumbered: 5 6 7 -> 0 1 2\n5 6\n7 7\n");
    for (const std::string spec : {"triangle", "K4", "K4+loops", "star3", "star3+loops", "path4+loops", "cycle5",
                                   "random6:7:3", "random6:7:3+loops"})
      pool_.push_back(one(spec));
    pool_.push_back(one(dir_.file("loops.txt")));
    pool_.push_back(one(dir_.file("loop_only.txt")));
    // Built directly: vertex 2 has no entry at all (isolated in every product).
    pool_.push_back(ProductFactor{"isolated", 3, {{0, 1}, {1, 1}}});
  }

  // The closed form, the enumeration and the reference counter agree on this product.
  void check(const std::vector<ProductFactor>& factors) {
    std::string name;
    for (const ProductFactor& f : factors) name += (name.empty() ? "" : " x ") + f.name;
    SCOPED_TRACE(name);
    const KroneckerProduct p(factors);
    const std::vector<RawEdge> edges = all_edges(p);
    std::set<std::pair<std::uint64_t, std::uint64_t>> written;
    std::set<std::uint64_t> vertices;
    testing::EdgePairs pairs;
    for (const RawEdge& e : edges) {
      ASSERT_NE(e.u, e.v) << "a self-loop was written";
      ASSERT_LT(std::max(e.u, e.v), p.counts().vertex_ids);
      ASSERT_TRUE(written.emplace(std::min(e.u, e.v), std::max(e.u, e.v)).second) << "edge written twice";
      vertices.insert(e.u), vertices.insert(e.v);
      pairs.emplace_back(e.u, e.v);
    }
    EXPECT_EQ(written, brute_force_product(factors));
    EXPECT_EQ(p.counts().edges, written.size());
    EXPECT_EQ(p.counts().vertices, vertices.size());
    EXPECT_EQ(p.counts().triangles, reference::count_triangles(pairs));
    ++checked_;
  }

  TempDir dir_;
  std::vector<ProductFactor> pool_;
  int checked_ = 0;
};

TEST_F(FactorPool, EveryTwoFactorProduct) {
  for (const ProductFactor& a : pool_)
    for (const ProductFactor& b : pool_) check({a, b});
  EXPECT_EQ(checked_, 144);
}

TEST_F(FactorPool, ThreeFactorProducts) {
  for (std::size_t a = 0; a < pool_.size(); ++a)
    for (std::size_t b = 0; b < pool_.size(); ++b)
      for (std::size_t c = 0; c < pool_.size(); ++c)
        if ((a + 2 * b + 3 * c) % 7 == 0) check({pool_[a], pool_[b], pool_[c]});
  EXPECT_GT(checked_, 200);
}

TEST_F(FactorPool, OneFactorIsTheFactorItself) {
  for (const ProductFactor& f : pool_) {
    check({f});
    const FactorStats s = factor_stats(f);
    testing::EdgePairs pairs;
    for (const auto& [u, v] : f.edges) pairs.emplace_back(u, v);
    EXPECT_EQ(s.triangles, reference::count_triangles(pairs)) << f.name;
  }
}

// Values worked out by hand from the traces.
TEST(KroneckerProductCounts, KnownByHand) {
  // K3 x K3: tr(A^3) = 6 each, no loops: 36 / 6 = 6 triangles; 9 vertices of degree 4.
  ProductCounts c = KroneckerProduct(parse_factor_list("triangle,triangle")).counts();
  EXPECT_EQ(c.triangles, 6u);
  EXPECT_EQ(c.edges, 18u);
  EXPECT_EQ(c.vertices, 9u);
  // K3 with every self-loop is J3: tr(J^3) = 27, tr(D J^2) = 9, tr(J) = 3: (27 - 27 + 6) / 6 = 1.
  c = KroneckerProduct(parse_factor_list("triangle+loops")).counts();
  EXPECT_EQ(c.triangles, 1u);
  // J3 x J3 = J9 less its diagonal is K9: 84 triangles, 36 edges.
  c = KroneckerProduct(parse_factor_list("triangle+loops^2")).counts();
  EXPECT_EQ(c.triangles, 84u);
  EXPECT_EQ(c.edges, 36u);
  // Stars have no triangle and a product of them none either; with self-loops they do.
  EXPECT_EQ(KroneckerProduct(parse_factor_list("star5,star7,star2")).counts().triangles, 0u);
  EXPECT_GT(KroneckerProduct(parse_factor_list("star5+loops,star7+loops")).counts().triangles, 0u);
}

TEST(KroneckerProductCounts, LargeProductsInClosedForm) {
  // Counted without enumerating an edge.
  const KroneckerProduct p(parse_factor_list("star63+loops^5"));  // 64^5 = 2^30 ids
  EXPECT_EQ(p.counts().vertex_ids, std::uint64_t{1} << 30);
  // nnz(star63+loops) = 2 * 63 + 64 = 190, tr = 64: edges = (190^5 - 64^5) / 2.
  std::uint64_t nnz = 1, tr = 1;
  for (int i = 0; i < 5; ++i) nnz *= 190, tr *= 64;
  EXPECT_EQ(p.counts().edges, (nnz - tr) / 2);
  // tr(A^3) = 6 * 0 + 3 * (63 + 63 * 1) + 64 = 442; tr(D A^2) = sum of looped degrees = 64 + 63 + 63 = 190.
  const FactorStats s = factor_stats(p.factors()[0]);
  EXPECT_EQ(s.trace_a3, 442u);
  EXPECT_EQ(s.loop_degrees, 190u);
  std::uint64_t t3 = 1, dl = 1;
  for (int i = 0; i < 5; ++i) t3 *= 442, dl *= 190;
  EXPECT_EQ(p.counts().triangles, (t3 - 3 * dl + 2 * tr) / 6);
  // The last edge's ids are in range.
  const RawEdge last = p.edge(p.counts().edges - 1);
  EXPECT_LT(std::max(last.u, last.v), p.counts().vertex_ids);
}

// ---- the edge stream -----------------------------------------------------------------

std::vector<RawEdge> stream(const std::shared_ptr<const KroneckerProduct>& p, unsigned threads, std::size_t batch) {
  auto source = make_kronecker_product_source(p, threads);
  std::vector<RawEdge> all, b;
  while (source->next_batch(b, batch)) all.insert(all.end(), b.begin(), b.end());
  EXPECT_FALSE(source->next_batch(b, batch));
  return all;
}

TEST(KroneckerProductSource, SameEdgesForEveryThreadCountAndBatchSize) {
  const auto p = std::make_shared<const KroneckerProduct>(parse_factor_list("K8+loops,star20+loops,random30:100:1+loops"));
  ASSERT_GT(p->counts().edges, std::uint64_t{1} << 18);  // enough for several threads per batch
  const std::vector<RawEdge> one_thread = stream(p, 1, std::size_t{1} << 20);
  EXPECT_EQ(one_thread.size(), p->counts().edges);
  EXPECT_EQ(stream(p, 4, std::size_t{1} << 20), one_thread);
  EXPECT_EQ(stream(p, 3, 100003), one_thread);
  EXPECT_EQ(stream(p, 0, 4096), one_thread);
  EXPECT_EQ(make_kronecker_product_source(p)->description(),
            "kronecker-product K8+loops x star20+loops x random30:100:1+loops");
}

// ---- the factor syntax -----------------------------------------------------------------

TEST(KroneckerFactors, BuiltIns) {
  const auto check = [](const std::string& spec, std::uint64_t vertices, std::size_t entries) {
    const ProductFactor f = one(spec);
    EXPECT_EQ(f.vertices, vertices) << spec;
    EXPECT_EQ(f.edges.size(), entries) << spec;
    EXPECT_EQ(f.name, spec);
  };
  check("triangle", 3, 3);
  check("K4", 4, 6);
  check("K1+loops", 1, 1);
  check("star3", 4, 3);
  check("star3+loops", 4, 7);
  check("path4", 4, 3);
  check("cycle5", 5, 5);
  check("random10:20:4", 10, 20);
  check("random5:10:1", 5, 10);  // all pairs: drawn as the complement
  EXPECT_EQ(one("random10:20:4").edges, one("random10:20:4").edges);
  EXPECT_NE(one("random10:20:4").edges, one("random10:20:5").edges);
  EXPECT_EQ(parse_factor("star3+loops^3").size(), 3u);
  EXPECT_EQ(parse_factor_list("triangle,star3^2,K4").size(), 4u);
}

TEST(KroneckerFactors, FilesAreRenumberedAndKeepTheirLoops) {
  TempDir dir;
  write_file(dir.file("f.txt"), "10 20\n20 30\n30 30\n");
  const ProductFactor f = one(dir.file("f.txt"));
  EXPECT_EQ(f.vertices, 3u);
  EXPECT_EQ(f.edges, (std::vector<std::pair<vid_t, vid_t>>{{0, 1}, {1, 2}, {2, 2}}));
  write_file(dir.file("K4"), "0 1\n");  // a path named like a built-in is a file once it has a directory
  EXPECT_EQ(one(dir.file("K4")).vertices, 2u);
  EXPECT_EQ(one("K4").vertices, 4u);
}

void expect_usage_error(const std::string& list, const std::string& says) {
  try {
    KroneckerProduct p(parse_factor_list(list));
    ADD_FAILURE() << "'" << list << "' was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

TEST(KroneckerFactors, BadSpecsAreUsageErrors) {
  expect_usage_error("triangle,no-such-factor", "'no-such-factor': not a built-in factor and no file of that name");
  expect_usage_error("triangle,,K4", "an empty factor");
  expect_usage_error("", "an empty factor");
  expect_usage_error("K0", "K<n>: n must be between 1 and 1024");
  expect_usage_error("K2000", "between 1 and 1024");
  expect_usage_error("K1", "no edge and no self-loop");
  expect_usage_error("path1", "path<n>: n must be between 2");
  expect_usage_error("cycle2", "cycle<n>: n must be between 3");
  expect_usage_error("random5:11:1", "at most n(n-1)/2");
  expect_usage_error("random5:3", "random<n>:<m>:<seed>");
  expect_usage_error("star3^0", "FACTOR^k: k must be between 1 and 64");
  expect_usage_error("K2^65", "between 1 and 64");
  expect_usage_error("K2^40,K2^25", "more than 64 factors");
  expect_usage_error("K1+loops,K1+loops", "the product has no edges");
  expect_usage_error("star1000^4", "more than tricount's 32-bit vertex ids hold (at most 4294967295 = 2^32 - 1)");
  expect_usage_error("star65535,star65536", "4295032832 vertices");
}

TEST(KroneckerFactors, EmptyOrBadFilesAreErrors) {
  TempDir dir;
  write_file(dir.file("empty.txt"), "# no edges\n");
  try {
    parse_factor(dir.file("empty.txt"));
    ADD_FAILURE() << "an empty factor file was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has no edges"), std::string::npos) << e.what();
  }
  write_file(dir.file("bad.txt"), "0 1\n1 x\n");
  try {
    parse_factor(dir.file("bad.txt"));
    ADD_FAILURE() << "a malformed factor file was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.txt"), std::string::npos) << e.what();
  }
}

// ---- FILE.known ------------------------------------------------------------------------

TEST(KnownSidecar, RoundTripStaleAndMalformed) {
  TempDir dir;
  const std::string g = dir.file("g.txt");
  EXPECT_FALSE(read_known_sidecar(g));  // no file at all
  write_file(g, "0 1\n1 2\n2 0\n");
  EXPECT_FALSE(read_known_sidecar(g));  // no sidecar
  KnownCounts k;
  k.vertex_ids = 3, k.vertices = 3, k.edges = 3, k.triangles = 1, k.generator = "test \"quoted\"\tname";
  write_known_sidecar(g, k);
  const auto back = read_known_sidecar(g);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->triangles, 1u);
  EXPECT_EQ(back->edges, 3u);
  EXPECT_EQ(back->vertices, 3u);
  EXPECT_EQ(back->vertex_ids, 3u);
  EXPECT_EQ(back->file_bytes, fs::file_size(g));
  EXPECT_EQ(back->generator, k.generator);
  EXPECT_EQ(back->sidecar, known_sidecar_path(g));

  k.triangles = UINT64_MAX;  // exact beyond 2^53, where a double would round
  k.edges = (std::uint64_t{1} << 53) + 1;
  write_known_sidecar(g, k);
  EXPECT_EQ(read_known_sidecar(g)->triangles, UINT64_MAX);
  EXPECT_EQ(read_known_sidecar(g)->edges, (std::uint64_t{1} << 53) + 1);

  write_file(g, "0 1\n1 2\n2 0\n2 3\n");  // another graph under the same name
  try {
    read_known_sidecar(g);
    ADD_FAILURE() << "a stale sidecar was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("belongs to another graph"), std::string::npos) << e.what();
  }
  for (const std::string bad : {"", "{", "{\"format\": \"tricount-known\"}", "{\"format\": \"other\", \"version\": 1}",
                                "{\"triangles\": -1}", "{} x",
                                "{\"format\": \"tricount-known\", \"version\": 1, \"generator\": \"g\", \"file_bytes\": 12, "
                                "\"vertex_ids\": 3, \"vertices\": 3, \"edges\": 3, \"triangles\": 1.5}"}) {
    write_file(known_sidecar_path(g), bad);
    try {
      read_known_sidecar(g);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(known_sidecar_path(g)), std::string::npos) << e.what();
    }
  }
  // remove_known_sidecar leaves a file that tricount-generate did not write.
  write_file(known_sidecar_path(g), "someone else's notes\n");
  remove_known_sidecar(g);
  EXPECT_TRUE(fs::exists(known_sidecar_path(g)));
  write_known_sidecar(g, k);
  remove_known_sidecar(g);
  EXPECT_FALSE(fs::exists(known_sidecar_path(g)));
}

}  // namespace
}  // namespace tricount
