// tricount-partition under mpiexec (partitioner/distributed.hpp): 2 and 3 ranks write the
// same file, byte for byte, as one process (whose content the pinned digests of
// test_pipeline_same_file fix), for a generator input, binary and text files (sparse ids
// above 2^32, duplicates both ways, self-loops, CRLF, gzip), both orders and several --parts;
// the block file counts right; an error on any rank is one message, one exit code and no
// output; a bad line of a text read in byte ranges is named by its line in the whole file, and
// a Matrix Market file's entry count and a WebGraph's arc count are checked by the ranks together.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

ProcessResult partition_on(int ranks, const std::vector<std::string>& args) {
  std::vector<std::string> all = args;
  if (ranks == 1) {
    all.insert(all.begin(), bin_path("tricount-partition"));
    return run_process(all, kProgramTimeout);
  }
  return run_process(mpi_command(ranks, bin_path("tricount-partition"), all), kProgramTimeout);
}

// A text edge list with sparse ids (some above 2^32), duplicates both ways, self-loops and CRLF.
std::string messy_text(const TempDir& dir) {
  std::mt19937_64 rng(11);
  std::string text = "# a comment\r\n";
  for (int k = 0; k < 6000; ++k) {
    const std::uint64_t a = k % 9 == 0 ? (std::uint64_t{1} << 33) + rng() % 1000 : rng() % 900;
    const std::uint64_t b = rng() % 900;
    text += std::to_string(a) + " " + std::to_string(b) + "\r\n";
    if (k % 5 == 0) text += std::to_string(b) + "\t" + std::to_string(a) + "\r\n";
    if (k % 17 == 0) text += std::to_string(a) + " " + std::to_string(a) + "\r\n";
  }
  const std::string path = dir.file("messy.txt");
  write_file(path, text);
  return path;
}

// A Matrix Market file (header with comments and CRLF) of `entries` entries, duplicates and
// self-loops among them; `declared` entries in its size line (default: as many as it has).
std::string matrix_market(const TempDir& dir, const std::string& name, int entries, int declared = -1) {
  std::mt19937_64 rng(5);
  std::string text = "%%MatrixMarket matrix coordinate pattern general\r\n% a comment\r\n";
  text += "900 900 " + std::to_string(declared < 0 ? entries : declared) + "\r\n";
  for (int k = 0; k < entries; ++k) text += std::to_string(1 + rng() % 900) + " " + std::to_string(1 + rng() % 900) + "\n";
  const std::string path = dir.file(name);
  write_file(path, text);
  return path;
}

struct Case {
  const char* name;
  std::string input;  // "MESSY", "MESSY_GZ", "BIN64" or a generator input
  std::vector<std::string> options;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class PartitionRanks : public ::testing::TestWithParam<Case> {};

TEST_P(PartitionRanks, SameFileAsOneProcess) {
  const Case& c = GetParam();
  TempDir dir;
  std::string input = c.input;
  if (input == "MESSY" || input == "MESSY_GZ") {
    input = messy_text(dir);
    if (c.input == "MESSY_GZ") {
      ASSERT_EQ(run_process({"gzip", "-k", input}).exit_code, 0);
      input += ".gz";
    }
  } else if (input == "MM") {
    input = matrix_market(dir, "g.mtx", 20000);
  } else if (input == "CNR") {
    input = std::filesystem::path(graphs_dir()).parent_path().string() + "/webgraph/cnr-2000";
    if (!std::filesystem::exists(input + ".graph")) GTEST_SKIP() << fetch_graphs_hint();
  } else if (input == "BIN64") {
    input = dir.file("k12.bin64");
    const ProcessResult g = run_generate({"--kind", "kronecker", "--scale", "12", "--output", input});
    ASSERT_EQ(g.exit_code, 0) << describe(g);
  }
  std::string one_process;
  for (int ranks : {1, 2, 3}) {
    const std::string out = dir.file("out" + std::to_string(ranks) + ".h5");
    std::vector<std::string> args = {"--input", input, "--output", out, "--threads", "2"};
    args.insert(args.end(), c.options.begin(), c.options.end());
    const ProcessResult r = partition_on(ranks, args);
    ASSERT_EQ(r.exit_code, 0) << ranks << " ranks: " << describe(r);
    if (ranks > 1) {
      EXPECT_TRUE(contains(r.out, "on " + std::to_string(ranks) + " ranks")) << r.out;
    }
    const std::string bytes = read_file(out);
    ASSERT_FALSE(bytes.empty());
    if (ranks == 1) {
      one_process = bytes;
    } else {
      EXPECT_TRUE(bytes == one_process) << ranks << " ranks wrote another file than one process";
    }
  }
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, PartitionRanks,
    ::testing::Values(Case{"kronecker_n3", "kronecker:scale=12,seed=4", {"--parts", "3"}},
                      // A block of MBs: each rank hashes the checksum's pieces within its rows.
                      Case{"kronecker_n1_large", "kronecker:17", {"--parts", "1"}},
                      Case{"kronecker_collective", "kronecker:12", {"--parts", "2", "--order", "collective"}},
                      Case{"uniform_n5", "uniform:11", {"--parts", "5"}},
                      Case{"product_known_count", "kronecker-product:K4,K4+loops,K3", {"--parts", "2"}},
                      Case{"bin64_n4", "BIN64", {"--parts", "4"}},
                      Case{"text_sparse_ids", "MESSY", {"--parts", "3"}},
                      Case{"text_collective", "MESSY", {"--order", "collective"}},
                      Case{"gzip_text", "MESSY_GZ", {"--parts", "2"}},
                      Case{"matrix_market", "MM", {"--parts", "2"}},
                      Case{"webgraph", "CNR", {"--parts", "2"}},
                      // Packed blocks: the ranks code whole row groups, as one process does.
                      Case{"packed_kronecker_n1_large", "kronecker:17", {"--parts", "1", "--block-encoding", "packed"}},
                      Case{"packed_uniform_n5", "uniform:11", {"--parts", "5", "--block-encoding", "packed"}},
                      Case{"packed_text_sparse_ids", "MESSY", {"--parts", "3", "--block-encoding", "packed"}},
                      Case{"packed_webgraph", "CNR", {"--parts", "2", "--block-encoding", "packed"}}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// The file that 3 ranks wrote counts the triangles of the input, by tricount-count.
TEST(PartitionRanksCount, CountsLikeOneProcess) {
  TempDir dir;
  const std::string input = graphs_dir() + "/CA-GrQc.txt";
  if (!std::filesystem::exists(input)) GTEST_SKIP() << fetch_graphs_hint();
  const std::string one = dir.file("one.h5"), three = dir.file("three.h5");
  ASSERT_EQ(partition_on(1, {"-i", input, "-o", one, "-n", "2", "-q"}).exit_code, 0);
  const ProcessResult r = partition_on(3, {"-i", input, "-o", three, "-n", "2", "-q"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(read_file(one) == read_file(three));
  const ProcessResult count = mpi_count(2, {"-i", three, "--threads", "1"});
  ASSERT_EQ(count.exit_code, 0) << describe(count);
  EXPECT_TRUE(contains(count.out, "48260")) << count.out;  // CA-GrQc's published triangle count
  // Packed by 3 ranks: the same count.
  const std::string packed = dir.file("packed.h5");
  const ProcessResult p = partition_on(3, {"-i", input, "-o", packed, "-n", "2", "-q", "--block-encoding", "packed"});
  ASSERT_EQ(p.exit_code, 0) << describe(p);
  const ProcessResult packed_count = mpi_count(2, {"-i", packed, "--threads", "1"});
  ASSERT_EQ(packed_count.exit_code, 0) << describe(packed_count);
  EXPECT_TRUE(contains(packed_count.out, "48260")) << packed_count.out;
}

// An error on one rank or all: one message from rank 0, the exit code of one process, no
// output and no temporary.
TEST(PartitionRanksErrors, OneMessageNoOutput) {
  TempDir dir;
  const std::string input = messy_text(dir), out = dir.file("out.h5");
  struct Bad {
    std::vector<std::string> args;
    int code;
    std::string mentions;
  };
  const std::vector<Bad> cases = {
      {{"-i", dir.file("missing.txt"), "-o", out}, 1, "missing.txt"},
      {{"-i", input, "-o", dir.file("no/such/dir/out.h5")}, 1, "does not exist"},
      {{"-i", input, "-o", input}, 2, "same file"},
      {{"-i", "kronecker:16", "-o", out, "--memory-budget", "1M", "--threads", "1"}, 1, "memory budget"},
      {{"-i", "kronecker:scale=99", "-o", out}, 2, "scale"},
  };
  for (const Bad& b : cases) {
    const ProcessResult r = partition_on(3, b.args);
    EXPECT_EQ(r.exit_code, b.code) << describe(r);
    EXPECT_TRUE(contains(r.err, b.mentions)) << r.err;
    std::size_t messages = 0;
    for (std::size_t at = r.err.find("tricount-partition: error:"); at != std::string::npos;
         at = r.err.find("tricount-partition: error:", at + 1))
      ++messages;
    EXPECT_EQ(messages, 1u) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
    EXPECT_TRUE(temp_files(dir.path()).empty());
  }
}

// A text edge list is read in byte ranges, a share of whole lines per rank; a bad line in the
// last rank's share is named by its line in the whole file, as one process names it.
TEST(PartitionRanksErrors, BadLineNamedAsByOneProcess) {
  TempDir dir;
  std::string text = read_file(messy_text(dir));
  const std::size_t deep = text.find('\n', text.size() * 9 / 10) + 1;
  text.insert(deep, "17 x\r\n");
  const std::string input = dir.file("bad.txt"), out = dir.file("out.h5");
  write_file(input, text);
  const std::uint64_t line = 1 + static_cast<std::uint64_t>(std::count(text.begin(), text.begin() + deep, '\n'));
  const std::string want = input + ":" + std::to_string(line) + ": malformed line: expected two vertex ids, got \"17 x\"";
  for (int ranks : {1, 3}) {
    const ProcessResult r = partition_on(ranks, {"-i", input, "-o", out, "--threads", "2", "-q"});
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, want)) << ranks << " ranks: " << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

// Matrix Market in byte ranges: no rank can check the size line's entry count alone; the ranks
// compare their sum with it, one message as one process gives it.
TEST(PartitionRanksErrors, MatrixMarketEntryCountChecked) {
  TempDir dir;
  const std::string fewer = matrix_market(dir, "fewer.mtx", 20000, 20001);
  const std::string out = dir.file("out.h5");
  const std::string want = fewer + ": the size line (line 3) declares 20001 entries but the file has 20000";
  for (int ranks : {1, 3}) {
    const ProcessResult r = partition_on(ranks, {"-i", fewer, "-o", out, "--threads", "2", "-q"});
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, want)) << ranks << " ranks: " << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  // More entries than declared: one process names the first extra line, the ranks the count.
  const std::string more = matrix_market(dir, "more.mtx", 20000, 19999);
  const ProcessResult r = partition_on(3, {"-i", more, "-o", out, "--threads", "2", "-q"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, more + ": the size line (line 3) declares 19999 entries but the file has 20000")) << r.err;
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

}  // namespace

// A WebGraph BV graph is read in node ranges per rank: the arc count of .properties is checked on
// the ranks' sum, one message as one process gives it.
TEST(PartitionRanksErrors, WebGraphArcCountChecked) {
  const std::string cnr = std::filesystem::path(graphs_dir()).parent_path().string() + "/webgraph/cnr-2000";
  if (!std::filesystem::exists(cnr + ".graph")) GTEST_SKIP() << fetch_graphs_hint();
  TempDir dir;
  const std::string base = dir.file("cnr-2000"), out = dir.file("out.h5");
  for (const char* ext : {".graph", ".offsets"}) std::filesystem::copy_file(cnr + ext, base + ext);
  std::string props = read_file(cnr + ".properties");
  const std::size_t at = props.find("\narcs=3216152\n");
  ASSERT_NE(at, std::string::npos);
  props.replace(at, 14, "\narcs=3216153\n");
  write_file(base + ".properties", props);
  const std::string want = base + ".graph: decoded 3216152 arcs but " + base + ".properties says arcs=3216153";
  for (int ranks : {1, 3}) {
    const ProcessResult r = partition_on(ranks, {"-i", base, "-o", out, "--threads", "2", "-q"});
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, want)) << ranks << " ranks: " << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  EXPECT_TRUE(temp_files(dir.path()).empty());
}
