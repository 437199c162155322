// A generator input partitioned directly (partition_generated: the read stage computes the
// edges on every thread, no edge file) gives the block file that partitioning the generator's
// edge file gives: the same blocks, checksums, vertex map and task work for every kind, at
// any thread count, with the runs in memory or on disk and in many small runs; only the
// source attributes differ (the spec written out, size 0). A Kronecker product's known
// triangle count goes into the file as its FILE.known's would.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "input/generator_spec.hpp"
#include "input/generators.hpp"
#include "input/known_counts.hpp"
#include "input/kronecker_product.hpp"
#include "partitioner/partition.hpp"
#include "src/block_format.hpp"
#include "tests/partitioner/pipeline_checks.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

// Small graphs of every kind: ids below 2^32 (packed runs), self-loops and duplicates
// (Kronecker, uniform), a graph without triangles (grid), one with a known count.
const char* const kSpecs[] = {
    "kronecker:12,edge-factor=8,seed=3",
    "uniform:vertices=3000,edges=40000,seed=2",
    "grid3d:nx=9,ny=7,nz=5",
    "kronecker-product:K4+loops,star6+loops,cycle5+loops",
};

GeneratorArgs args_of(const std::string& spec) {
  std::optional<GeneratorArgs> a = generator_input(spec);
  EXPECT_TRUE(a.has_value()) << spec;
  return a.value_or(GeneratorArgs{});
}

// What tricount-generate does: the generator's edges to FILE (bin64 or text), and for a
// product FILE.known; returns FILE.
std::string generate_file(const std::string& spec, TempDir& dir, const std::string& name) {
  Generator g = make_generator(args_of(spec), 1);
  const std::string path = dir.file(name);
  write_edge_file(*g.source, path, name.ends_with(".bin64") ? EdgeFileKind::Bin64 : EdgeFileKind::Text);
  if (g.product) {
    const ProductCounts& c = g.product->counts();
    write_known_sidecar(path, KnownCounts{.vertex_ids = c.vertex_ids, .vertices = c.vertices, .edges = c.edges,
                                          .triangles = c.triangles, .generator = g.product->description()});
  }
  return path;
}

PartitionOptions options(std::uint32_t parts, unsigned threads) {
  PartitionOptions o;
  o.parts = parts;
  o.threads = threads;
  return o;
}

// The generator's file and the generator input, partitioned alike, give the same blocks; the
// generated file records the spec and size 0, and both carry the same known count.
void expect_same_as_the_file(const std::string& spec, std::uint32_t parts, unsigned threads, const PartitionOptions& generated,
                             TempDir& dir) {
  const std::string input = generate_file(spec, dir, "edges.bin64");
  const std::string from_file = dir.file("file.h5"), direct = dir.file("direct.h5");
  partition_file(input, InputFormat::Auto, from_file, options(parts, threads));
  partition_generated(args_of(spec), direct, generated);
  SCOPED_TRACE(spec + " --parts " + std::to_string(parts));
  expect_same_blocks(from_file, direct, /*deep=*/true);
  BlockFileReader f(from_file), d(direct);
  EXPECT_EQ(d.header().source_file, make_generator(args_of(spec), 1).spec);
  EXPECT_EQ(d.header().source_size, 0u);
  EXPECT_EQ(f.header().source_file, input);
  EXPECT_EQ(d.header().known_triangles, f.header().known_triangles);
}

}  // namespace

TEST(GeneratedInput, SameBlocksAsTheGeneratorsFile) {
  TempDir dir;
  for (const char* spec : kSpecs)
    for (std::uint32_t parts : {1u, 3u}) expect_same_as_the_file(spec, parts, 2, options(parts, 2), dir);
}

TEST(GeneratedInput, SameBlocksAtAnyThreadCount) {
  TempDir dir;
  for (const char* spec : kSpecs)
    for (unsigned threads : {1u, 3u, 0u}) expect_same_as_the_file(spec, 2, 2, options(2, threads), dir);
}

// --memory-budget and --tmpdir: the runs on disk, in a budget of 1 MiB (many runs, merged in
// passes), leave nothing behind in the temporary directory.
TEST(GeneratedInput, RunsOnDiskWithinASmallBudget) {
  TempDir dir, tmp;
  for (const char* spec : kSpecs) {
    PartitionOptions o = options(2, 2);
    o.memory_budget = std::uint64_t{1} << 20;
    o.tmpdir = tmp.path();
    o.runs_on_disk = true;
    expect_same_as_the_file(spec, 2, 2, o, dir);
    EXPECT_TRUE(entries(tmp.path()).empty()) << join(entries(tmp.path()));
  }
}

// Many small runs from the read stage (each thread generating chunk after chunk).
TEST(GeneratedInput, ManySmallRuns) {
  TempDir dir;
  for (const char* spec : kSpecs) {
    const std::string input = generate_file(spec, dir, "edges.txt");
    partition_file(input, InputFormat::Auto, dir.file("file.h5"), options(3, 2));
    Generator g = make_generator(args_of(spec), 1);
    PipelineTuning tuning;
    tuning.run_edges = 5000;
    tuning.max_fanin = 4;
    const PipelineReport report = partition_source(*g.source, dir.file("direct.h5"), options(3, 3), g.spec, 0, tuning);
    EXPECT_GE(report.runs, g.source->indexed()->edge_count() / 5000) << spec;
    if (report.runs > 4) EXPECT_GT(report.merge_passes, 0u) << spec;
    SCOPED_TRACE(spec);
    expect_same_blocks(dir.file("file.h5"), dir.file("direct.h5"), /*deep=*/true);
  }
}

TEST(GeneratedInput, KroneckerProductCarriesItsKnownCount) {
  TempDir dir;
  const std::string spec = kSpecs[3];
  const Generator g = make_generator(args_of(spec), 1);
  partition_generated(args_of(spec), dir.file("p.h5"), options(2, 2));
  BlockFileReader f(dir.file("p.h5"));
  ASSERT_TRUE(f.header().known_triangles.has_value());
  EXPECT_EQ(*f.header().known_triangles, g.product->counts().triangles);
  EXPECT_GT(*f.header().known_triangles, 0u);
  EXPECT_EQ(f.header().vertices, g.product->counts().vertices);
  EXPECT_EQ(f.header().edges, g.product->counts().edges);
  // Other kinds have none.
  partition_generated(args_of(kSpecs[0]), dir.file("k.h5"), options(2, 2));
  EXPECT_FALSE(BlockFileReader(dir.file("k.h5")).header().known_triangles.has_value());
}

namespace {

// A stream whose edges are only to be had by index: the read stage must not read it in turn.
class IndexOnly final : public EdgeSource, public IndexedEdges {
 public:
  explicit IndexOnly(std::vector<RawEdge> edges) : edges_(std::move(edges)) {}
  bool next_batch(std::vector<RawEdge>&, std::size_t) override { throw Error("the stream was read in turn"); }
  std::string description() const override { return "index only"; }
  const IndexedEdges* indexed() const override { return this; }
  std::uint64_t edge_count() const override { return edges_.size(); }
  void edges_at(std::uint64_t first, std::uint64_t n, RawEdge* out) const override {
    std::copy_n(edges_.begin() + static_cast<std::ptrdiff_t>(first), n, out);
  }

 private:
  std::vector<RawEdge> edges_;
};

}  // namespace

TEST(GeneratedInput, ReadStageTakesTheEdgesByIndex) {
  const EdgePairs pairs = mixed_graph(4);
  std::vector<RawEdge> raw = to_raw(pairs);
  raw.push_back({5, 5});
  for (unsigned threads : {1u, 4u}) {
    IndexOnly source(raw);
    const PartitionedGraph by_index = partition_edges(source, options(2, threads));
    const PartitionedGraph streamed = partition_edges(raw, options(2, threads));
    EXPECT_EQ(by_index.header.vertices, streamed.header.vertices);
    EXPECT_EQ(by_index.header.edges, streamed.header.edges);
    EXPECT_EQ(by_index.header.input_edges, raw.size());
    EXPECT_EQ(by_index.vertex_map, streamed.vertex_map);
    for (std::size_t b = 0; b < streamed.blocks.size(); ++b)
      EXPECT_EQ(by_index.blocks[b].checksum(), streamed.blocks[b].checksum()) << "block " << b;
  }
}
