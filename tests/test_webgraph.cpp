// WebGraph BV input (../shared/data/webgraph, see SOURCES.md there): the codes, the decoded
// values of cnr-2000 and the toy graph (arcs, self loops, undirected edges, successor lists,
// the per-component statistics of .properties), the same arcs on 1, 2 and 7 threads with and
// without .offsets, triangles through tricount-partition and tricount-count, and every kind
// of bad input the reader must name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
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
      GTEST_SKIP() << "'" << webgraph_dir() << "' has no cnr-2000.graph (set TRICOUNT_GRAPHS_DIR)"; \
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

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
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

}  // namespace
