// WebGraph BV input (../shared/data/webgraph, see SOURCES.md there): the codes, the decoded
// values of cnr-2000 and the toy graph (arcs, self loops, undirected edges, successor lists,
// the per-component statistics of .properties), the same arcs on 1, 2 and 7 threads with and
// without .offsets, in shares (the ranks' node ranges) whose totals are checked together, triangles through tricount-partition and tricount-count, and every kind
// of bad input the reader must name; compressionflags as Java's BVGraph writes them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "input/webgraph.hpp"
#include "input/webgraph_bits.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount;
using namespace tricount::testing;

std::string webgraph_dir() { return fs::path(graphs_dir()).parent_path().string() + "/webgraph"; }
std::string cnr() { return webgraph_dir() + "/cnr-2000"; }
std::string toy() { return webgraph_dir() + "/test"; }

#define REQUIRE_DATA()                                                                        \
  do {                                                                                        \
    if (!fs::exists(cnr() + ".graph"))                                                        \
      GTEST_SKIP() << "'" << webgraph_dir() << "' has no cnr-2000.graph: " << fetch_graphs_hint(); \
  } while (0)

std::vector<RawEdge> decode_all(const std::string& path, const BvDecodeOptions& o, BvStats* stats = nullptr) {
  auto source = open_webgraph(path, o);
  std::vector<RawEdge> all, batch;
  while (source->next_batch(batch, 1000)) all.insert(all.end(), batch.begin(), batch.end());
  if (stats) *stats = source->stats();
  return all;
}

std::map<std::string, std::uint64_t> numeric_properties(const std::string& file) {
  std::ifstream in(file);
  std::map<std::string, std::uint64_t> out;
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos || line[0] == '#') continue;
    const std::string v = line.substr(eq + 1);
    if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos) out[line.substr(0, eq)] = std::stoull(v);
  }
  return out;
}

// Copies NAME.{graph,properties,offsets} of `base` into `dir` (without .offsets when asked).
std::string copy_graph(const std::string& base, const std::string& dir, bool with_offsets = true) {
  const std::string name = fs::path(base).filename().string();
  for (const char* ext : {".graph", ".properties", ".offsets"}) {
    if (std::string(ext) == ".offsets" && !with_offsets) continue;
    if (fs::exists(base + ext)) {
      fs::copy_file(base + ext, dir + "/" + name + ext);
      fs::permissions(dir + "/" + name + ext, fs::perms::owner_read | fs::perms::owner_write);
    }
  }
  return dir + "/" + name;
}


TEST(webgraphCodes, RoundTripEveryCode) {
  const std::vector<std::uint64_t> values = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 100, 1000, 65535, 65536, 123456789,
                                             (std::uint64_t{1} << 40) + 7};
  for (BvCode code : {BvCode::Unary, BvCode::Gamma, BvCode::Delta, BvCode::Zeta, BvCode::Nibble})
    for (unsigned k : {1u, 2u, 3u, 5u}) {
      bv::BitWriter w;
      std::vector<std::uint64_t> written;
      for (std::uint64_t v : values) {
        if (code == BvCode::Unary && v > 5000) continue;
        w.write(code, v, k);
        written.push_back(v);
      }
      bv::BitReader r(w.bytes().data(), w.bytes().size());
      for (std::uint64_t v : written) ASSERT_EQ(r.read(code, k), v) << "code " << int(code) << " k " << k;
      EXPECT_EQ(r.position(), w.bits());
    }
}

TEST(webgraphCodes, KnownBitPatterns) {
  // gamma(0) = 1, gamma(1) = 010, gamma(2) = 011, delta(1) = 0100, zeta_3(0) = 100, unary(2) = 001.
  const std::uint8_t bytes[] = {0b10100110, 0b10010000, 0b10000000};
  bv::BitReader r(bytes, sizeof bytes);
  EXPECT_EQ(r.read_gamma(), 0u);
  EXPECT_EQ(r.read_gamma(), 1u);
  EXPECT_EQ(r.read_gamma(), 2u);
  EXPECT_EQ(r.read_delta(), 1u);
  EXPECT_EQ(r.read_zeta(3), 0u);
  EXPECT_EQ(r.read_unary(), 2u);
  EXPECT_EQ(r.position(), 17u);
}

TEST(webgraphCodes, ReadingPastTheEndThrows) {
  const std::uint8_t bytes[] = {0, 0};
  bv::BitReader r(bytes, sizeof bytes);
  EXPECT_THROW(r.read_gamma(), Error);
}

TEST(webgraphData, ToyGraph) {
  REQUIRE_DATA();
  const auto arcs = decode_all(toy(), BvDecodeOptions{});
  EXPECT_EQ(arcs.size(), 28u);
  for (const RawEdge& e : arcs) {
    EXPECT_LT(e.u, 24u);
    EXPECT_LT(e.v, 24u);
  }
  EXPECT_TRUE(is_webgraph_input(toy()));
  EXPECT_TRUE(is_webgraph_input(toy() + ".graph"));
}

TEST(webgraphData, Cnr2000ValuesAndStatistics) {
  REQUIRE_DATA();
  BvStats st;
  BvDecodeOptions o;
  o.threads = 2;
  const auto arcs = decode_all(cnr(), o, &st);
  ASSERT_EQ(arcs.size(), 3216152u);
  std::uint64_t loops = 0;
  std::set<std::pair<std::uint64_t, std::uint64_t>> undirected;
  for (const RawEdge& e : arcs) {
    if (e.u == e.v) ++loops;
    else undirected.emplace(std::min(e.u, e.v), std::max(e.u, e.v));
  }
  EXPECT_EQ(loops, 87442u);
  EXPECT_EQ(undirected.size(), 2738969u);
  // Successor lists of nodes 0-54.
  std::ifstream in(webgraph_dir() + "/cnr-2000.first-successors.txt");
  ASSERT_TRUE(in);
  std::map<std::uint64_t, std::vector<std::uint64_t>> lists;
  for (const RawEdge& e : arcs)
    if (e.u <= 54) lists[e.u].push_back(e.v);
  std::string line;
  std::uint64_t node = 0;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::vector<std::uint64_t> want;
    for (std::uint64_t v; s >> v;) want.push_back(v);
    EXPECT_EQ(lists[node], want) << "node " << node;
    ++node;
  }
  EXPECT_EQ(node, 55u);
  // The statistics BVGraph recorded when it compressed the graph.
  const auto p = numeric_properties(cnr() + ".properties");
  EXPECT_EQ(st.bits_for_outdegrees, p.at("bitsforoutdegrees"));
  EXPECT_EQ(st.bits_for_references, p.at("bitsforreferences"));
  EXPECT_EQ(st.bits_for_blocks, p.at("bitsforblocks"));
  EXPECT_EQ(st.bits_for_intervals, p.at("bitsforintervals"));
  EXPECT_EQ(st.bits_for_residuals, p.at("bitsforresiduals"));
  EXPECT_EQ(st.copied_arcs, p.at("copiedarcs"));
  EXPECT_EQ(st.intervalised_arcs, p.at("intervalisedarcs"));
  EXPECT_EQ(st.residual_arcs, p.at("residualarcs"));
}

// ---- parallel decoding ---------------------------------------------------------------------

TEST(webgraphData, SameArcsOnAnyThreadsWithAndWithoutOffsets) {
  REQUIRE_DATA();
  BvDecodeOptions sequential;
  sequential.use_offsets = false;
  const auto reference = decode_all(cnr(), sequential);
  ASSERT_EQ(reference.size(), 3216152u);
  TempDir dir;
  const std::string no_offsets = copy_graph(cnr(), dir.path(), false);
  for (unsigned threads : {1u, 2u, 7u})
    for (std::uint64_t chunk : {std::uint64_t{0}, std::uint64_t{3000}}) {
      BvDecodeOptions o;
      o.threads = threads;
      o.chunk_arcs = chunk;  // 3000: over a thousand ranges, most starting inside reference chains
      auto source = open_webgraph(cnr(), o);
      EXPECT_TRUE(source->parallel());
      std::vector<RawEdge> all, batch;
      while (source->next_batch(batch, 777)) all.insert(all.end(), batch.begin(), batch.end());
      EXPECT_TRUE(all == reference) << threads << " threads, chunk " << chunk;
      const auto without = decode_all(no_offsets, o);
      EXPECT_TRUE(without == reference) << threads << " threads without .offsets";
    }
  auto plain = open_webgraph(no_offsets, BvDecodeOptions{.threads = 2});
  EXPECT_FALSE(plain->parallel());
}

TEST(webgraphData, ProgressLineSaysSequentialWithoutOffsets) {
  REQUIRE_DATA();
  TempDir dir;
  const std::string base = copy_graph(toy(), dir.path(), false);
  const ProcessResult r = run_process({bin_dir() + "/tricount-partition", "--input", base, "--output", dir.file("t.h5")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.err.find("no test.offsets: decoding sequentially on one thread"), std::string::npos) << r.err;
  const ProcessResult p = run_process({bin_dir() + "/tricount-partition", "--input", cnr() + ".graph", "--output",
                                       dir.file("c.h5"), "--threads", "2"});
  ASSERT_EQ(p.exit_code, 0) << describe(p);
  EXPECT_NE(p.err.find("by cnr-2000.offsets on 2 threads"), std::string::npos) << p.err;
}

// ---- shares (the ranks of the distributed partitioner) --------------------------------------

struct Shares {
  std::vector<std::vector<RawEdge>> arcs;  // per share
  std::vector<std::uint64_t> sums;         // of share_totals()
  std::vector<std::string> md5;            // per share
};

Shares decode_in_shares(const std::string& path, unsigned shares, BvDecodeOptions o) {
  Shares out;
  o.shares = shares;
  for (unsigned k = 0; k < shares; ++k) {
    o.share = k;
    auto source = open_webgraph(path, o);
    std::vector<RawEdge> mine, batch;
    while (source->next_batch(batch, 777)) mine.insert(mine.end(), batch.begin(), batch.end());
    const std::vector<std::uint64_t> t = source->share_totals();
    if (out.sums.empty()) out.sums.assign(t.size(), 0);
    EXPECT_EQ(t.size(), out.sums.size());
    for (std::size_t i = 0; i < t.size() && i < out.sums.size(); ++i) out.sums[i] += t[i];
    out.arcs.push_back(std::move(mine));
    out.md5.push_back(source->input_md5());
  }
  return out;
}

// Shares by node ranges (with .offsets) are the stream's runs, end to end; decoded sequentially
// (no .offsets) they take every shares-th chunk. Either way the sums of their totals pass the
// whole graph's checks, and only share 0 has the MD5.
TEST(webgraphData, SharesMakeTheWholeGraph) {
  REQUIRE_DATA();
  const auto reference = decode_all(cnr(), BvDecodeOptions{.threads = 2});
  TempDir dir;
  const std::string no_offsets = copy_graph(cnr(), dir.path(), false);
  auto sorted = [](std::vector<RawEdge> v) {
    std::sort(v.begin(), v.end(), [](const RawEdge& a, const RawEdge& b) { return std::pair(a.u, a.v) < std::pair(b.u, b.v); });
    return v;
  };
  for (const std::string& path : {cnr(), no_offsets})
    for (unsigned shares : {2u, 3u, 7u}) {
      BvDecodeOptions o;
      o.threads = 3;
      o.chunk_arcs = 3000;  // over a thousand ranges, most starting inside reference chains
      const Shares s = decode_in_shares(path, shares, o);
      std::vector<RawEdge> all;
      for (const auto& a : s.arcs) {
        EXPECT_GT(a.size(), reference.size() / shares / 2) << path << ", " << shares << " shares";
        all.insert(all.end(), a.begin(), a.end());
      }
      if (path == cnr()) EXPECT_TRUE(all == reference) << shares << " shares";
      else EXPECT_TRUE(sorted(all) == sorted(reference)) << shares << " shares without .offsets";
      ASSERT_FALSE(s.sums.empty());
      EXPECT_EQ(s.sums[0], reference.size());
      EXPECT_NO_THROW(open_webgraph(path, o)->check_share_totals(s.sums));
      EXPECT_NE(s.md5[0], "");
      for (unsigned k = 1; k < shares; ++k) EXPECT_EQ(s.md5[k], "");
    }
  // More shares than ranges: the shares past them are empty.
  const Shares tiny = decode_in_shares(toy(), 5, BvDecodeOptions{});
  std::size_t arcs = 0;
  for (const auto& a : tiny.arcs) arcs += a.size();
  EXPECT_EQ(arcs, 28u);
}

// ---- the encoder of the benchmarks ---------------------------------------------------------

TEST(webgraphData, BenchEncoderRoundTrip) {
  TempDir dir;
  EdgePairs edges = random_graph(3000, 40000, 7);
  for (std::uint64_t i = 0; i < 200; ++i) edges.emplace_back(5, 100 + i);  // intervals
  for (std::uint64_t i = 0; i < 50; ++i) edges.emplace_back(6, 100 + 2 * i);  // copies of 5's list
  std::ofstream out(dir.file("g.bin64"), std::ios::binary);
  for (const auto& [u, v] : edges) {
    out.write(reinterpret_cast<const char*>(&u), 8);
    out.write(reinterpret_cast<const char*>(&v), 8);
  }
  out.close();
  const ProcessResult r = run_process({fs::path(bin_dir()).parent_path().string() + "/tests/webgraph_tool", "encode",
                                       dir.file("g.bin64"), dir.file("g")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("decoded back: same arcs"), std::string::npos) << r.out;
  std::vector<RawEdge> want = to_raw(edges);
  std::sort(want.begin(), want.end(), [](const RawEdge& a, const RawEdge& b) { return a.u != b.u ? a.u < b.u : a.v < b.v; });
  want.erase(std::unique(want.begin(), want.end()), want.end());
  BvStats st;
  EXPECT_TRUE(decode_all(dir.file("g"), BvDecodeOptions{.threads = 2, .chunk_arcs = 1000}, &st) == want);
  EXPECT_GT(st.copied_arcs, 0u);
  EXPECT_GT(st.intervalised_arcs, 0u);
}

// ---- triangles through the programs --------------------------------------------------------

std::uint64_t partition_and_count(const std::vector<std::string>& partition_args, std::uint32_t parts, int ranks) {
  TempDir dir;
  const std::string h5 = dir.file("g.h5");
  std::vector<std::string> argv = {bin_dir() + "/tricount-partition", "--output", h5, "--parts", std::to_string(parts), "--quiet"};
  argv.insert(argv.end(), partition_args.begin(), partition_args.end());
  const ProcessResult part = run_process(argv, 300);
  EXPECT_EQ(part.exit_code, 0) << describe(part);
  if (part.exit_code != 0) return 0;
  const ProcessResult count = run_process(
      mpi_command(ranks, bin_dir() + "/tricount-count", {"--input", h5, "--json", "-", "--backend", "cpu", "--threads", "1"}), 300);
  EXPECT_EQ(count.exit_code, 0) << describe(count);
  return json_uint(count.out, "triangles");
}

class webgraphTriangles : public ::testing::TestWithParam<std::tuple<std::uint32_t, int>> {};

TEST_P(webgraphTriangles, Cnr2000) {
  REQUIRE_DATA();
  const auto [parts, ranks] = GetParam();
  // The .graph name, the basename and a forced format all read the same graph.
  const std::vector<std::string> input = parts == 1   ? std::vector<std::string>{"--input", cnr() + ".graph"}
                                         : parts == 2 ? std::vector<std::string>{"--input", cnr()}
                                                      : std::vector<std::string>{"--input", cnr(), "--format", "webgraph"};
  EXPECT_EQ(partition_and_count(input, parts, ranks), 20977629u) << "--parts " << parts << ", " << ranks << " ranks";
}

INSTANTIATE_TEST_SUITE_P(webgraph, webgraphTriangles,
                         ::testing::Values(std::make_tuple(1u, 1), std::make_tuple(2u, 2), std::make_tuple(2u, 3),
                                           std::make_tuple(3u, 4), std::make_tuple(3u, 5)));

TEST(webgraphData, TrianglesRunsOnDiskAndToy) {
  REQUIRE_DATA();
  TempDir dir;
  EXPECT_EQ(partition_and_count({"--input", cnr(), "--runs-on-disk", "--memory-budget", "16M", "--tmpdir", dir.path()}, 2, 3),
            20977629u);
  EXPECT_EQ(partition_and_count({"--input", toy() + ".graph"}, 1, 1), 2u);
}

// ---- bad input ------------------------------------------------------------------------------

struct Failure {
  int exit_code;
  std::string err;
};

// tricount-partition on `input` must fail (exit 1) and leave no output.
Failure partition_fails(const std::string& input, const std::vector<std::string>& extra = {}) {
  TempDir out;
  const std::string h5 = out.file("g.h5");
  std::vector<std::string> argv = {bin_dir() + "/tricount-partition", "--input", input, "--output", h5, "--quiet"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const ProcessResult r = run_process(argv, 120);
  EXPECT_FALSE(fs::exists(h5)) << "output written on failure";
  for (const auto& e : fs::directory_iterator(out.path())) ADD_FAILURE() << "left behind: " << e.path();
  return {r.exit_code, r.err};
}

void set_property(const std::string& file, const std::string& key, const std::string& value) {
  std::ifstream in(file);
  std::string text, line;
  bool done = false;
  while (std::getline(in, line)) {
    if (line.rfind(key + "=", 0) == 0) {
      line = key + "=" + value;
      done = true;
    }
    text += line + "\n";
  }
  if (!done) text += key + "=" + value + "\n";
  in.close();
  write_file(file, text);
}

TEST(webgraphErrors, MissingPropertiesOrGraph) {
  REQUIRE_DATA();
  TempDir dir;
  fs::copy_file(cnr() + ".graph", dir.file("a.graph"));
  Failure f = partition_fails(dir.file("a.graph"));
  EXPECT_EQ(f.exit_code, 1);
  EXPECT_NE(f.err.find(dir.file("a.properties") + ": cannot open the properties file"), std::string::npos) << f.err;

  fs::copy_file(cnr() + ".properties", dir.file("b.properties"));
  for (const std::string& input : {dir.file("b"), dir.file("b.graph")}) {
    f = partition_fails(input);
    EXPECT_EQ(f.exit_code, 1);
    EXPECT_NE(f.err.find(dir.file("b.graph") + ": missing"), std::string::npos) << f.err;
  }
}

TEST(webgraphErrors, UnsupportedPropertiesAreNamed) {
  REQUIRE_DATA();
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"graphclass", "it.unimi.dsi.webgraph.EFGraph", "graphclass 'it.unimi.dsi.webgraph.EFGraph' is not supported"},
      {"version", "1", "little-endian BV graphs (version 1, written by webgraph-rs) are not supported"},
      {"endianness", "little", "little-endian BV graphs"},
      {"version", "2", "BV graph version 2 is not supported"},
      {"compressionflags", "RESIDUALS_GOLOMB", "compression flag 'RESIDUALS_GOLOMB' is not supported"},
      {"compressionflags", "OUTDEGREES_GAMMA|SUCCESSORS_DELTA", "compression flag 'SUCCESSORS_DELTA' names no component"},
      {"nodes", "many", "property nodes=many is not a non-negative integer"},
  };
  for (const auto& [key, value, message] : cases) {
    TempDir dir;
    const std::string base = copy_graph(cnr(), dir.path());
    set_property(base + ".properties", key, value);
    const Failure f = partition_fails(base + ".graph");
    EXPECT_EQ(f.exit_code, 1) << key << "=" << value;
    EXPECT_NE(f.err.find(base + ".properties: " + message), std::string::npos) << key << "=" << value << ": " << f.err;
  }
}

TEST(webgraphErrors, ArcsOrNodesThatDisagreeWithTheStream) {
  REQUIRE_DATA();
  for (bool offsets : {true, false}) {
    TempDir dir;
    const std::string base = copy_graph(cnr(), dir.path(), offsets);
    set_property(base + ".properties", "arcs", "3216153");
    Failure f = partition_fails(base);
    EXPECT_EQ(f.exit_code, 1);
    EXPECT_NE(f.err.find(base + ".graph: decoded 3216152 arcs but " + base + ".properties says arcs=3216153"),
              std::string::npos) << f.err;
    set_property(base + ".properties", "arcs", "3216152");
    set_property(base + ".properties", "nodes", "325556");
    f = partition_fails(base);
    EXPECT_EQ(f.exit_code, 1);
    // With offsets there is one offset too many; without, the last list names node 325556.
    EXPECT_NE(f.err.find(offsets ? base + ".offsets: 103 bits left over after the 325557 offsets"
                                 : base + ".graph: node 325555: first residual 325556 is out of range (nodes=325556)"),
              std::string::npos) << f.err;
  }
}

// A share checks nothing of the whole graph alone; the sums of the shares' totals are checked
// with one reader's message.
TEST(webgraphErrors, SharesCheckTheSumsAsOneReader) {
  REQUIRE_DATA();
  for (bool offsets : {true, false}) {
    TempDir dir;
    const std::string base = copy_graph(cnr(), dir.path(), offsets);
    set_property(base + ".properties", "arcs", "3216153");
    const Shares s = decode_in_shares(base, 3, BvDecodeOptions{.threads = 2});
    try {
      open_webgraph(base, BvDecodeOptions{})->check_share_totals(s.sums);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), base + ".graph: decoded 3216152 arcs but " + base + ".properties says arcs=3216153 (corrupt stream or properties)");
    }
    set_property(base + ".properties", "arcs", "3216152");
    set_property(base + ".properties", "copiedarcs", "1");
    const Shares c = decode_in_shares(base, 2, BvDecodeOptions{.threads = 2});
    EXPECT_THROW(open_webgraph(base, BvDecodeOptions{})->check_share_totals(c.sums), Error);
  }
}

TEST(webgraphErrors, TruncatedOrExtendedStream) {
  REQUIRE_DATA();
  const std::string graph = read_file(cnr() + ".graph");
  for (bool offsets : {true, false}) {
    TempDir dir;
    const std::string base = copy_graph(cnr(), dir.path(), offsets);
    write_file(base + ".graph", graph.substr(0, graph.size() / 2));
    Failure f = partition_fails(base);
    EXPECT_EQ(f.exit_code, 1);
    if (offsets)
      EXPECT_NE(f.err.find(base + ".offsets: the offset of node "), std::string::npos) << f.err;
    else
      EXPECT_NE(f.err.find("the stream ends inside this code"), std::string::npos) << f.err;
    EXPECT_NE(f.err.find(offsets ? "is past the end of " + base + ".graph" : base + ".graph: node "), std::string::npos) << f.err;

    write_file(base + ".graph", graph + std::string("\x5a", 1));
    f = partition_fails(base);
    EXPECT_EQ(f.exit_code, 1);
    if (!offsets)
      EXPECT_NE(f.err.find(base + ".graph: ") , std::string::npos) << f.err;
    EXPECT_NE(f.err.find("left over after the list of the last node 325556"), std::string::npos) << f.err;
  }
}

// A hand-written 4-node graph (windowsize 2) whose node 3's list is written by `write3`;
// with bad offsets, node 1 is said to start one bit late.
template <class Write3>
std::string crafted_graph(const std::string& dir, Write3 write3, bool good_offsets = true) {
  bv::BitWriter g, off;
  std::vector<std::uint64_t> gaps = {0};
  std::uint64_t before = 0;
  auto node_done = [&] {
    gaps.push_back(g.bits() - before);
    before = g.bits();
  };
  // node 0: [1, 2]; node 1: []; node 2: [0]
  g.write_gamma(2), g.write_unary(0), g.write_gamma(0), g.write_zeta(bv::int_to_nat(1), 3), g.write_zeta(0, 3);
  node_done();
  g.write_gamma(0);
  node_done();
  g.write_gamma(1), g.write_unary(0), g.write_gamma(0), g.write_zeta(bv::int_to_nat(-2), 3);
  node_done();
  write3(g);
  node_done();
  if (!good_offsets) ++gaps[1], --gaps[2];
  for (std::uint64_t gap : gaps) off.write_gamma(gap);
  const std::string base = dir + "/crafted";
  write_file(base + ".graph", std::string(g.bytes().begin(), g.bytes().end()));
  write_file(base + ".offsets", std::string(off.bytes().begin(), off.bytes().end()));
  write_file(base + ".properties",
              "graphclass=it.unimi.dsi.webgraph.BVGraph\nversion=0\nnodes=4\narcs=4\nwindowsize=2\nmaxrefcount=3\n"
              "minintervallength=4\nzetak=3\ncompressionflags=\n");
  return base;
}

TEST(webgraphErrors, CorruptListsNameTheNode) {
  TempDir dir;
  // A sane node 3 ([0]) decodes.
  std::string base = crafted_graph(dir.path(), [](bv::BitWriter& g) {
    g.write_gamma(1), g.write_unary(0), g.write_gamma(0), g.write_zeta(bv::int_to_nat(-3), 3);
  });
  EXPECT_EQ(decode_all(base, BvDecodeOptions{}).size(), 4u);
  // Successor out of range.
  base = crafted_graph(dir.path(), [](bv::BitWriter& g) {
    g.write_gamma(1), g.write_unary(0), g.write_gamma(0), g.write_zeta(bv::int_to_nat(5), 3);
  });
  Failure f = partition_fails(base);
  EXPECT_EQ(f.exit_code, 1);
  EXPECT_NE(f.err.find(base + ".graph: node 3: first residual 8 is out of range (nodes=4)"), std::string::npos) << f.err;
  // Reference beyond the window (3 > windowsize 2).
  base = crafted_graph(dir.path(), [](bv::BitWriter& g) { g.write_gamma(1), g.write_unary(3), g.write_gamma(0); });
  f = partition_fails(base);
  EXPECT_NE(f.err.find(base + ".graph: node 3: reference 3 is beyond the window (windowsize 2)"), std::string::npos) << f.err;
  // A copy block longer than the referenced list (node 1, empty).
  base = crafted_graph(dir.path(), [](bv::BitWriter& g) { g.write_gamma(1), g.write_unary(2), g.write_gamma(1), g.write_gamma(4); });
  f = partition_fails(base);
  EXPECT_NE(f.err.find(base + ".graph: node 3: "), std::string::npos) << f.err;
  // Offsets that disagree with the stream.
  base = crafted_graph(
      dir.path(), [](bv::BitWriter& g) { g.write_gamma(1), g.write_unary(0), g.write_gamma(0), g.write_zeta(bv::int_to_nat(-3), 3); },
      false);
  f = partition_fails(base);
  EXPECT_EQ(f.exit_code, 1);
  EXPECT_NE(f.err.find(base + ".offsets: node 1 starts at bit 13 by the offsets, but the list of node 0 in " + base +
                       ".graph ends at bit 12"), std::string::npos) << f.err;
}

// compressionflags as Java's BVGraph names them: BLOCK_COUNT_* codes a copy list's number of
// blocks and BLOCKS_* their lengths, each on its own (BLOCK_COUNT_GAMMA, the default, was
// refused as a code 'COUNT_GAMMA'; BLOCKS_DELTA read the count in delta too). Node 3 copies
// node 2's list [0] in one block: its count and length in the codes the flags name.
TEST(webgraphFlags, BlockCountAndBlocksAreCodedApart) {
  const std::vector<std::tuple<std::string, BvCode, BvCode>> cases = {
      {"BLOCK_COUNT_GAMMA", BvCode::Gamma, BvCode::Gamma},
      {"BLOCKS_DELTA", BvCode::Gamma, BvCode::Delta},
      {"OUTDEGREES_GAMMA | BLOCKS_DELTA | RESIDUALS_ZETA | REFERENCES_UNARY | BLOCK_COUNT_UNARY | OFFSETS_GAMMA",
       BvCode::Unary, BvCode::Delta},
      {"BLOCK_COUNT_DELTA|BLOCKS_GAMMA", BvCode::Delta, BvCode::Gamma},
  };
  for (const auto& [flags, count_code, block_code] : cases) {
    SCOPED_TRACE(flags);
    TempDir dir;
    const std::string base = crafted_graph(dir.path(), [count = count_code, block = block_code](bv::BitWriter& g) {
      g.write_gamma(1), g.write_unary(1), g.write(count, 1, 3), g.write(block, 1, 3);
    });
    set_property(base + ".properties", "compressionflags", flags);
    EXPECT_EQ(read_bv_properties(base).block_count_code, count_code);
    std::vector<RawEdge> arcs = decode_all(base, BvDecodeOptions{});
    std::sort(arcs.begin(), arcs.end(), [](const RawEdge& a, const RawEdge& b) { return std::pair(a.u, a.v) < std::pair(b.u, b.v); });
    EXPECT_EQ(arcs, (std::vector<RawEdge>{{0, 1}, {0, 2}, {2, 0}, {3, 0}}));
  }
  // A code the reader does not implement is refused, naming the flag and the file.
  TempDir dir;
  const std::string base = crafted_graph(dir.path(), [](bv::BitWriter& g) { g.write_gamma(0); });
  set_property(base + ".properties", "compressionflags", "BLOCK_COUNT_GAMMA | RESIDUALS_GOLOMB");
  const Failure f = partition_fails(base);
  EXPECT_EQ(f.exit_code, 1);
  EXPECT_NE(f.err.find(base + ".properties: compression flag 'RESIDUALS_GOLOMB' is not supported"), std::string::npos) << f.err;
  set_property(base + ".properties", "compressionflags", "BLOCK_COUNT_ZETA_K");
  EXPECT_NE(partition_fails(base).err.find(base + ".properties: compression flag 'BLOCK_COUNT_ZETA_K' is not supported"),
            std::string::npos);
}

TEST(webgraphErrors, OffsetsOfAnotherGraph) {
  REQUIRE_DATA();
  TempDir dir;
  const std::string base = copy_graph(cnr(), dir.path());
  std::string offsets = read_file(base + ".offsets");
  // A gap in the middle changed: the lists no longer start where the offsets say.
  offsets[offsets.size() / 2] = static_cast<char>(offsets[offsets.size() / 2] ^ 0x10);
  write_file(base + ".offsets", offsets);
  Failure f = partition_fails(base);
  EXPECT_EQ(f.exit_code, 1);
  EXPECT_NE(f.err.find(base + ".offsets: "), std::string::npos) << f.err;
  // Truncated.
  write_file(base + ".offsets", read_file(cnr() + ".offsets").substr(0, 1000));
  f = partition_fails(base);
  EXPECT_NE(f.err.find(base + ".offsets: the file ends after "), std::string::npos) << f.err;
}

TEST(webgraphErrors, ForcedFormatOnSomethingElse) {
  TempDir dir;
  write_file(dir.file("edges.txt"), "0 1\n1 2\n");
  const Failure f = partition_fails(dir.file("edges.txt"), {"--format", "webgraph"});
  EXPECT_EQ(f.exit_code, 1);
  EXPECT_NE(f.err.find(dir.file("edges.txt") + ".properties: cannot open the properties file"), std::string::npos) << f.err;
}

}  // namespace
