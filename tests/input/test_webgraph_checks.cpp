// Issue 32: what tricount-partition checks of a WebGraph BV input, and what it cannot.
//  item 4: a bit flip in cnr-2000.graph often decoded to another valid graph (exit 0, a
//    different count). The decoder now also checks the statistics BVGraph records in
//    .properties (bits per component, copied/intervalised/residual arcs, the gap histograms
//    successorexpstats and residualexpstats), which refuses many such flips; a flip that
//    changes a value within its code length and gap bin stays undetectable by the format,
//    and for it the MD5 of each input file is printed and stored in the block file
//    (/source_md5), to compare with the publisher's checksums;
//  padding: a .graph extended with zeros is refused, and says that writers pad with under
//    128 zero bits (the README says the same);
//  item 11: a basename whose .properties names another graph class said "No such file";
//  item 12: an out-of-range maxrefcount named no file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "src/block_format.hpp"
#include "src/md5.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount;
using namespace tricount::testing;

std::string cnr() { return fs::path(graphs_dir()).parent_path().string() + "/webgraph/cnr-2000"; }

#define REQUIRE_CNR()                                                                                   \
  do {                                                                                                  \
    if (!fs::exists(cnr() + ".graph")) GTEST_SKIP() << "no '" << cnr() << ".graph' (set TRICOUNT_GRAPHS_DIR)"; \
  } while (0)

// What md5sum prints for the published cnr-2000 files (webgraph-rs commit 67b10608).
constexpr const char* kCnrGraphMd5 = "a56b93bed31edf37761bcaba35ed8e80";


std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// DIR/NAME.{graph,properties[,offsets]}: cnr-2000 with `graph` as its stream.
std::string bv_copy(const TempDir& dir, const std::string& name, const std::string& graph, bool offsets) {
  const std::string base = dir.file(name);
  write_bytes(base + ".graph", graph);
  write_bytes(base + ".properties", read_bytes(cnr() + ".properties"));
  if (offsets) write_bytes(base + ".offsets", read_bytes(cnr() + ".offsets"));
  return base;
}

// cnr-2000's stream with bit `bit` (0 = the least significant) of byte `byte` flipped.
std::string flipped(std::uint64_t byte, int bit) {
  std::string g = read_bytes(cnr() + ".graph");
  g[byte] = static_cast<char>(g[byte] ^ (1 << bit));
  return g;
}

ProcessResult partition(const std::string& input, const std::string& output, bool quiet = true) {
  std::vector<std::string> argv = {bin_dir() + "/tricount-partition", "--input", input, "--output", output, "--threads", "2"};
  if (quiet) argv.push_back("-q");
  return run_process(argv, 300);
}

}  // namespace

// Flips that old builds took for another graph (exit 0), now refused by the gap histograms
// of .properties, with and without .offsets (which pins only where each list starts).
TEST(WebgraphChecks, FlipsThatChangeTheRecordedStatisticsAreRefused) {
  REQUIRE_CNR();
  struct Flip {
    std::uint64_t byte;
    int bit;
    std::string message;
  };
  const std::vector<Flip> flips = {
      {828004, 0, "the lists decode to residualexpstats bin 13 (gaps of 2^13 to 2^14 - 1) = 13236 but 13237 in "},
      {151909, 1, "the lists decode to successorexpstats bin 3 (gaps of 2^3 to 2^4 - 1) = 78902 but 78903 in "}};
  for (const Flip& f : flips)
    for (bool offsets : {true, false}) {
      SCOPED_TRACE("byte " + std::to_string(f.byte) + " bit " + std::to_string(f.bit) + (offsets ? " with" : " without") +
                   " .offsets");
      TempDir dir;
      const std::string base = bv_copy(dir, "g", flipped(f.byte, f.bit), offsets);
      const ProcessResult r = partition(base, dir.file("g.h5"));
      EXPECT_EQ(r.exit_code, 1) << describe(r);
      EXPECT_TRUE(contains(r.err, "tricount-partition: error: " + base + ".graph: " + f.message + base + ".properties"))
          << describe(r);
      EXPECT_FALSE(fs::exists(dir.file("g.h5")));
    }
}

// The flip (bit 7 of byte 763393) moves three successors of node 238748 by 8: the
// codes keep their lengths and the gaps their bins, so no check of the format can see it
// (it counts 20,977,626 triangles, not 20,977,629). What finds it is the MD5 printed and
// stored in the block file, which differs from the publisher's.
TEST(WebgraphChecks, AFlipTheFormatCannotSeeShowsInTheInputDigest) {
  REQUIRE_CNR();
  TempDir dir;
  // The published files: their MD5s, printed and stored.
  const std::string good = bv_copy(dir, "good", read_bytes(cnr() + ".graph"), true);
  const ProcessResult g = partition(good, dir.file("good.h5"), /*quiet=*/false);
  ASSERT_EQ(g.exit_code, 0) << describe(g);
  EXPECT_TRUE(contains(g.out, "input MD5 (compare with the publisher's checksums")) << describe(g);
  EXPECT_TRUE(contains(g.out, std::string(kCnrGraphMd5) + "  good.graph\n")) << describe(g);
  EXPECT_TRUE(contains(BlockFileReader(dir.file("good.h5")).header().source_md5, std::string(kCnrGraphMd5) + "  good.graph\n"));
  // The flipped stream decodes, with and without .offsets; its digest is not the publisher's.
  for (bool offsets : {true, false}) {
    SCOPED_TRACE(offsets ? "with .offsets" : "without .offsets");
    TempDir d;
    const std::string base = bv_copy(d, "flip", flipped(763393, 7), offsets);
    const ProcessResult r = partition(base, d.file("flip.h5"), /*quiet=*/false);
    ASSERT_EQ(r.exit_code, 0) << "the format now detects this flip: move it to the test above. " << describe(r);
    const std::string stored = BlockFileReader(d.file("flip.h5")).header().source_md5;
    EXPECT_TRUE(contains(stored, "  flip.graph\n")) << stored;
    EXPECT_TRUE(contains(stored, "  flip.properties\n")) << stored;
    EXPECT_EQ(contains(stored, "  flip.offsets\n"), offsets) << stored;
    EXPECT_FALSE(contains(stored, kCnrGraphMd5)) << stored;
    EXPECT_TRUE(contains(r.out, stored)) << describe(r);
  }
}

// Zero padding: under 128 bits after the last list is what writers leave and is accepted; a
// longer zero tail (a file extended, a preallocated download) is refused and says so.
TEST(WebgraphChecks, OnlyTheWritersZeroPaddingMayFollowTheStream) {
  REQUIRE_CNR();
  const std::string graph = read_bytes(cnr() + ".graph");
  for (bool offsets : {true, false}) {
    SCOPED_TRACE(offsets ? "with .offsets" : "without .offsets");
    TempDir dir;
    const std::string padded = bv_copy(dir, "padded", graph + std::string(8, '\0'), offsets);
    const ProcessResult ok = partition(padded, dir.file("padded.h5"));
    EXPECT_EQ(ok.exit_code, 0) << describe(ok);
    const std::string extended = bv_copy(dir, "extended", graph + std::string(64, '\0'), offsets);
    const ProcessResult r = partition(extended, dir.file("extended.h5"));
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, extended + ".graph: 555 bits left over after the list of the last node 325556 "
                                           "(nodes=325557 in the properties), where writers leave under 128 bits of zero "
                                           "padding"))
        << describe(r);
  }
}

// Item 11: DIR/g with a g.properties of another graph class (or none, or junk) is read as a
// WebGraph basename and refused naming the class, not "cannot open 'DIR/g'".
TEST(WebgraphChecks, ABasenameOfAnotherGraphClassNamesTheClass) {
  TempDir dir;
  const std::string base = dir.file("g");
  write_bytes(base + ".graph", std::string(8, '\0'));
  struct Case {
    std::string properties, cls;
  };
  const std::vector<Case> cases = {
      {"graphclass=it.unimi.dsi.webgraph.EFGraph\nnodes=4\narcs=4\n", "it.unimi.dsi.webgraph.EFGraph"},
      {"graphclass=it.unimi.dsi.webgraph.labelling.ArcLabelledImmutableGraph\n",
       "it.unimi.dsi.webgraph.labelling.ArcLabelledImmutableGraph"},
      {"nodes=4\narcs=4\n", ""},
      {"", ""},
      {"\x01\x02 junk without an equals sign\n", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.properties);
    write_bytes(base + ".properties", c.properties);
    const ProcessResult r = partition(base, dir.file("g.h5"));
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, "tricount-partition: error: " + base + ".properties: graphclass '" + c.cls +
                                    "' is not supported (only it.unimi.dsi.webgraph.BVGraph)"))
        << describe(r);
  }
}

// Item 12: a parameter that does not fit 32 bits names the properties file and the property.
TEST(WebgraphChecks, AnOutOfRangeParameterNamesTheFile) {
  TempDir dir;
  const std::string base = dir.file("g");
  write_bytes(base + ".graph", std::string(8, '\0'));
  for (const std::string key : {"maxrefcount", "windowsize", "minintervallength", "zetak"}) {
    SCOPED_TRACE(key);
    write_bytes(base + ".properties",
                "graphclass=it.unimi.dsi.webgraph.BVGraph\nversion=0\nnodes=4\narcs=4\n" + key + "=99999999999\n");
    const ProcessResult r = partition(base, dir.file("g.h5"));
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, "tricount-partition: error: " + base + ".properties: property " + key +
                                    "=99999999999 is out of range (at most 4294967295)"))
        << describe(r);
  }
}

// The digest is MD5 as md5sum prints it (RFC 1321's test vectors), in one piece or many.
TEST(WebgraphChecks, TheInputDigestIsMd5) {
  const auto md5 = [](const std::string& text, std::size_t piece) {
    Md5 m;
    for (std::size_t at = 0; at < text.size(); at += piece) m.add(text.data() + at, std::min(piece, text.size() - at));
    return m.hex();
  };
  const std::string digits = "12345678901234567890123456789012345678901234567890123456789012345678901234567890";
  for (std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{1000}}) {
    EXPECT_EQ(md5("", piece), "d41d8cd98f00b204e9800998ecf8427e");
    EXPECT_EQ(md5("abc", piece), "900150983cd24fb0d6963f7d28e17f72");
    EXPECT_EQ(md5("abcdefghijklmnopqrstuvwxyz", piece), "c3fcd3d76192e4007dfb496cca67e13b");
    EXPECT_EQ(md5(digits, piece), "57edf4a22be3c955ac49da2e2107b67a");
  }
}
