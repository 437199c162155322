// Known triangle counts end to end, through the real programs: tricount-generate --kind
// kronecker-product writes FILE.known, tricount-partition carries it into the block file,
// tricount-count says the count matches it (1 and 3 ranks, with --verify's independent
// recount), fails clearly when the file's known count is tampered with, and every program
// refuses bad input (unknown or empty factors, a product too large for 32-bit ids, an
// unwritable output, a stale or wrong sidecar) with a message and nothing half-written.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount::testing;

constexpr double kTimeout = 180;

std::string prog(const std::string& name) { return bin_dir() + "/" + name; }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.flush()) << path;
}

ProcessResult generate(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {prog("tricount-generate"), "--kind", "kronecker-product"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, kTimeout);
}

ProcessResult partition(const std::string& input, const std::string& output) {
  return run_process({prog("tricount-partition"), "--input", input, "--output", output, "--parts", "2"}, kTimeout);
}

ProcessResult count(int ranks, const std::string& h5, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"--input", h5, "--threads", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_process(mpi_command(ranks, prog("tricount-count"), args), kTimeout);
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// K4+loops x star6+loops x cycle5+loops: 4 * 7 * 5 = 140 ids, and its exact counts.
const std::string kFactors = "K4+loops,star6+loops,cycle5+loops";

class KnownCountCli : public ::testing::Test {
 protected:
  // Generates kFactors to NAME and returns the triangle count the generator printed.
  std::uint64_t make(const std::string& name, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"--factors", kFactors, "--output", dir_.file(name)};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult g = generate(args);
    EXPECT_EQ(g.exit_code, 0) << describe(g);
    EXPECT_TRUE(has(g.err, "triangles (exact, in closed form)")) << g.err;
    EXPECT_TRUE(fs::exists(dir_.file(name) + ".known"));
    return json_uint(read_file(dir_.file(name) + ".known"), "triangles");
  }
  TempDir dir_;
};

TEST_F(KnownCountCli, GeneratePartitionCountMatchesTheKnownCount) {
  const std::uint64_t known = make("g.bin32");
  ASSERT_GT(known, 0u);
  const std::string known_json = read_file(dir_.file("g.bin32.known"));
  EXPECT_EQ(json_uint(known_json, "file_bytes"), fs::file_size(dir_.file("g.bin32")));
  EXPECT_EQ(json_uint(known_json, "edges") * 8, fs::file_size(dir_.file("g.bin32")));  // each edge once
  const ProcessResult p = partition(dir_.file("g.bin32"), dir_.file("g.h5"));
  ASSERT_EQ(p.exit_code, 0) << describe(p);
  EXPECT_TRUE(has(p.out, "known triangle count " + std::to_string(known) + " carried from")) << p.out;
  for (const int ranks : {1, 3}) {
    const ProcessResult c = count(ranks, dir_.file("g.h5"), {"--verify", "--json", dir_.file("r.json")});
    ASSERT_EQ(c.exit_code, 0) << describe(c);
    EXPECT_TRUE(has(c.out, "tricount: " + std::to_string(known) + " triangles | " +
                               std::to_string(json_uint(known_json, "vertices")) + " vertices, " +
                               std::to_string(json_uint(known_json, "edges")) + " edges"))
        << c.out;
    EXPECT_TRUE(has(c.out, "| matches the known count")) << c.out;
    EXPECT_TRUE(has(c.out, "verified: the independent counter agrees (" + std::to_string(known) + ")")) << c.out;
    EXPECT_EQ(json_uint(read_file(dir_.file("r.json")), "known_triangles"), known);
  }
}

TEST_F(KnownCountCli, SameFilesForAnyThreadCount) {
  // Large enough (about 2^19 edges) that the generator splits batches among threads.
  const std::vector<std::string> factors = {"--factors", "K8+loops,star20+loops,random30:100:1+loops,K2"};
  for (const std::string threads : {"1", "3", "0"}) {
    std::vector<std::string> args = factors;
    args.insert(args.end(), {"--threads", threads, "--output", dir_.file("t" + threads + ".bin32")});
    const ProcessResult g = generate(args);
    ASSERT_EQ(g.exit_code, 0) << describe(g);
  }
  EXPECT_GT(fs::file_size(dir_.file("t1.bin32")), std::uint64_t{8} << 19);
  for (const std::string t : {"3", "0"}) {
    EXPECT_EQ(read_file(dir_.file("t" + t + ".bin32")), read_file(dir_.file("t1.bin32"))) << "--threads " << t;
    std::string a = read_file(dir_.file("t" + t + ".bin32.known")), b = read_file(dir_.file("t1.bin32.known"));
    EXPECT_EQ(a.substr(a.find("file_bytes")), b.substr(b.find("file_bytes"))) << "--threads " << t;
  }
}

// Rewrites the block file's known_triangles attribute, as a damaged or edited file would have it.
void set_known_triangles(const std::string& h5, std::uint64_t value) {
  const hid_t f = H5Fopen(h5.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t a = H5Aopen(f, "known_triangles", H5P_DEFAULT);
  ASSERT_GE(a, 0);
  EXPECT_GE(H5Awrite(a, H5T_NATIVE_UINT64, &value), 0);
  H5Aclose(a);
  H5Fclose(f);
}

TEST_F(KnownCountCli, TamperedKnownCountFailsTheCount) {
  const std::uint64_t known = make("g.txt");
  ASSERT_EQ(partition(dir_.file("g.txt"), dir_.file("g.h5")).exit_code, 0);
  set_known_triangles(dir_.file("g.h5"), known + 1);
  for (const int ranks : {1, 2}) {
    const ProcessResult c = count(ranks, dir_.file("g.h5"));
    EXPECT_EQ(c.exit_code, 1) << describe(c);
    EXPECT_TRUE(has(c.out, std::to_string(known) + " triangles |")) << c.out;  // the count is still on record
    EXPECT_TRUE(has(c.out, "| DIFFERS FROM THE KNOWN COUNT " + std::to_string(known + 1))) << c.out;
    EXPECT_TRUE(has(c.err, "tricount-count: error: the count, " + std::to_string(known) +
                               " triangles, differs from the known count in '" + dir_.file("g.h5") + "', " +
                               std::to_string(known + 1)))
        << c.err;
  }
}

TEST_F(KnownCountCli, PlainGraphsCarryNoKnownCount) {
  write_file(dir_.file("plain.txt"), "0 1\n1 2\n2 0\n");
  ASSERT_EQ(partition(dir_.file("plain.txt"), dir_.file("plain.h5")).exit_code, 0);
  const ProcessResult c = count(1, dir_.file("plain.h5"), {"--json", "-"});
  ASSERT_EQ(c.exit_code, 0) << describe(c);
  EXPECT_FALSE(has(c.out + c.err, "known")) << c.out << c.err;
}

TEST_F(KnownCountCli, AnotherGraphWrittenOverRemovesTheSidecar) {
  make("g.bin32");
  const ProcessResult g = run_process({prog("tricount-generate"), "--kind", "uniform", "--vertices", "100", "--edges", "500",
                                       "--output", dir_.file("g.bin32")}, kTimeout);
  ASSERT_EQ(g.exit_code, 0) << describe(g);
  EXPECT_FALSE(fs::exists(dir_.file("g.bin32.known")));
}

TEST_F(KnownCountCli, StaleOrWrongSidecarStopsThePartitioner) {
  make("g.txt");
  const std::string known = read_file(dir_.file("g.txt.known"));
  // Another graph of another size under the same name: refused before any work.
  write_file(dir_.file("g.txt"), "0 1\n1 2\n2 0\n");
  ProcessResult p = partition(dir_.file("g.txt"), dir_.file("g.h5"));
  EXPECT_EQ(p.exit_code, 1) << describe(p);
  EXPECT_TRUE(has(p.err, "'" + dir_.file("g.txt.known") + "' gives the known counts of a file of")) << p.err;
  EXPECT_TRUE(has(p.err, "belongs to another graph")) << p.err;
  EXPECT_FALSE(fs::exists(dir_.file("g.h5")));
  // The size right but the graph not: the cleaned graph's counts differ; no block file.
  std::string same_size(json_uint(known, "file_bytes"), '\n');
  same_size.replace(0, 12, "0 1\n1 2\n2 0\n");
  write_file(dir_.file("g.txt"), same_size);
  p = partition(dir_.file("g.txt"), dir_.file("g.h5"));
  EXPECT_EQ(p.exit_code, 1) << describe(p);
  EXPECT_TRUE(has(p.err, "the cleaned graph has 3 vertices and 3 edges, but '" + dir_.file("g.txt.known") + "'")) << p.err;
  EXPECT_TRUE(has(p.err, "no block file was written")) << p.err;
  EXPECT_FALSE(fs::exists(dir_.file("g.h5")));
  // A sidecar that is not one.
  write_file(dir_.file("g.txt.known"), "triangles = 5\n");
  p = partition(dir_.file("g.txt"), dir_.file("g.h5"));
  EXPECT_EQ(p.exit_code, 1) << describe(p);
  EXPECT_TRUE(has(p.err, "g.txt.known': not a known-counts file written by tricount-generate")) << p.err;
  EXPECT_TRUE(has(p.err, "delete it or regenerate the graph")) << p.err;
}

TEST_F(KnownCountCli, StandardOutputGetsTheCountsButNoSidecar) {
  const ProcessResult g = generate({"--factors", "triangle,triangle", "--output", "-"});
  ASSERT_EQ(g.exit_code, 0) << describe(g);
  EXPECT_EQ(std::count(g.out.begin(), g.out.end(), '\n'), 18);
  EXPECT_TRUE(has(g.err, "9 vertices (of 9 ids), 18 edges, 6 triangles (exact, in closed form)")) << g.err;
  EXPECT_TRUE(has(g.err, "no known-counts file beside a device, FIFO or stream")) << g.err;
}

TEST_F(KnownCountCli, BadInputIsRefusedClearly) {
  const std::string out = dir_.file("bad.txt");
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string says;
  };
  write_file(dir_.file("empty.txt"), "# nothing\n");
  const std::vector<Case> cases = {
      {{"--factors", "triangle,no-such-factor", "--output", out}, 2,
       "tricount-generate: error: --factors: 'no-such-factor': not a built-in factor and no file of that name"},
      {{"--factors", "triangle,,K4", "--output", out}, 2, "--factors: an empty factor in 'triangle,,K4'"},
      {{"--factors", dir_.file("empty.txt"), "--output", out}, 1, "has no edges: give it at least one edge or self-loop"},
      {{"--factors", "K1", "--output", out}, 2, "'K1': it has no edge and no self-loop"},
      {{"--factors", "star1000^4", "--output", out}, 2,
       "the product has 1004006004001 vertices, more than tricount's 32-bit vertex ids hold (at most 4294967295 = 2^32 - 1)"},
      {{"--output", out}, 2, "--kind kronecker-product needs --factors"},
      {{"--factors", "triangle", "--scale", "3", "--output", out}, 2, "--scale applies only to --kind kronecker or uniform"},
      {{"--factors", "triangle", "--output", dir_.file("missing/dir/g.txt")}, 1, "missing/dir/g.txt"},
  };
  for (const Case& c : cases) {
    const ProcessResult g = generate(c.args);
    EXPECT_EQ(g.exit_code, c.exit_code) << describe(g);
    EXPECT_TRUE(has(g.err, c.says)) << g.err;
    EXPECT_FALSE(fs::exists(out)) << "an output was left by " << g.err;
    EXPECT_FALSE(fs::exists(out + ".known"));
  }
  const ProcessResult k = run_process({prog("tricount-generate"), "--kind", "kronecker", "--factors", "triangle", "--output", out});
  EXPECT_EQ(k.exit_code, 2) << describe(k);
  EXPECT_TRUE(has(k.err, "--factors applies only to --kind kronecker-product")) << k.err;
  // The sidecar's place taken by a directory: refused before the edge file is written.
  fs::create_directory(out + ".known");
  const ProcessResult d = generate({"--factors", "triangle", "--output", out});
  EXPECT_EQ(d.exit_code, 1) << describe(d);
  EXPECT_TRUE(has(d.err, out + ".known")) << d.err;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
