// tricount-partition through the real executable: --help and usage errors (exit 2), bad
// input files (exit 1 with a message naming the file and line), empty graphs, inputs read
// once (pipes, FIFOs, process substitution), atomic output, h5ls-visible layout, output
// paths that name the input, planted temporary symlinks, devices, and the clean-up of stale
// temporaries.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "src/block_format.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount::testing;

TEST(cliHelp, Partition) {
  expect_help(run_process({bin_path("tricount-partition"), "--help"}, kProgramTimeout),
              {"input", "output", "parts", "format", "order", "threads", "quiet", "help"});
}

// ------------------------------------------------------------------------------------
// Usage errors: exit 2, "PROGRAM: error: ..." naming the culprit.

class Usage : public ::testing::TestWithParam<UsageCase> {};

TEST_P(Usage, ExitsTwoWithMessage) { expect_usage_error(GetParam()); }

const std::vector<UsageCase> kUsageCases = {
    {"PartitionUnknownOption", "partition", {"--input", "IN", "--output", "OUT", "--bogus"}, "bogus"},
    {"PartitionPartsNotANumber", "partition", {"--input", "IN", "--output", "OUT", "--parts", "abc"}, "parts"},
    {"PartitionPartsZero", "partition", {"--input", "IN", "--output", "OUT", "--parts", "0"}, "parts"},
    // boost::program_options read "-1" into the unsigned --parts as 2^64 - 1: refused as typed (src/cli).
    {"PartitionPartsNegative", "partition", {"--input", "IN", "--output", "OUT", "--parts", "-1"}, "--parts -1: must be a whole number"},
    {"PartitionBadFormat", "partition", {"--input", "IN", "--output", "OUT", "--format", "xyz"}, "xyz"},
    {"PartitionBadOrder", "partition", {"--input", "IN", "--output", "OUT", "--order", "sideways"}, "sideways"},
    {"PartitionBadBlockEncoding", "partition", {"--input", "IN", "--output", "OUT", "--block-encoding", "zip"}, "csr or packed"},
    {"PartitionMissingInput", "partition", {"--output", "OUT"}, "input"},
    {"PartitionMissingOutput", "partition", {"--input", "IN"}, "output"},
    // Options that effectively hung (413 MB of empty blocks for 9 edges): bounded, with what
    // to use instead.
    {"PartitionPartsBeyondTheLimit", "partition", {"--input", "IN", "--output", "OUT", "--parts", "4294967298"}, "between 1 and 1024"},
    {"PartitionPartsTooManyForTheGraph", "partition", {"--input", "IN", "--output", "OUT", "--parts", "300"}, "use --parts 32 or fewer"},
};

INSTANTIATE_TEST_SUITE_P(cli, Usage, ::testing::ValuesIn(kUsageCases),
                         [](const ::testing::TestParamInfo<UsageCase>& info) { return std::string(info.param.name); });

// ------------------------------------------------------------------------------------
// Bad edge-list input: exit 1, message naming the file (and the line for text).

// Partitions `text` written to `name` and expects failure mentioning the file and `also`.
void expect_bad_input(const std::string& name, const std::string& text, const std::vector<std::string>& also) {
  TempDir dir;
  const std::string in = dir.file(name);
  write_file(in, text);
  fs::create_directory(dir.file("out"));
  const std::string out = dir.file("out/graph.h5");
  const ProcessResult r = run_partition(in, out, 2);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "tricount-partition: error:")) << describe(r);
  EXPECT_TRUE(contains(r.err, in)) << "message does not name '" << in << "'\n" << describe(r);
  for (const auto& s : also) EXPECT_TRUE(contains(r.err, s)) << "message does not mention '" << s << "'\n" << describe(r);
  // Atomic output: nothing under the final name, no temporary left behind.
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(fs::is_empty(dir.file("out"))) << "partition left files in the output directory";
}

TEST(cliBadInput, MissingFile) {
  TempDir dir;
  const std::string in = dir.file("does-not-exist.txt");
  const ProcessResult r = run_partition(in, dir.file("out.h5"), 1);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, in)) << describe(r);
  EXPECT_FALSE(fs::exists(dir.file("out.h5")));
}

TEST(cliBadInput, InputIsADirectory) {
  TempDir dir;
  fs::create_directory(dir.file("adir"));
  const ProcessResult r = run_partition(dir.file("adir"), dir.file("out.h5"), 1);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, dir.file("adir"))) << describe(r);
}

TEST(cliBadInput, UnreadableFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: root can read a chmod 000 file";
  TempDir dir;
  const std::string in = dir.file("secret.txt");
  write_file(in, "1 2\n2 3\n3 1\n");
  fs::permissions(in, fs::perms::none);
  const ProcessResult r = run_partition(in, dir.file("out.h5"), 1);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, in)) << describe(r);
  EXPECT_TRUE(contains(r.err, "ermission")) << describe(r);
  EXPECT_FALSE(fs::exists(dir.file("out.h5")));
}

TEST(cliBadInput, MalformedLine) { expect_bad_input("bad.txt", "1 2\n3\n", {":2:"}); }

TEST(cliBadInput, MalformedLineAfterComments) {
  expect_bad_input("bad.txt", "# header\n# more\n1 2\n2 3\n3 x\n4 5\n", {":5:"});
}

TEST(cliBadInput, NegativeId) { expect_bad_input("neg.txt", "1 2\n-3 4\n", {":2:", "negative"}); }

TEST(cliBadInput, IdDoesNotFit) {
  expect_bad_input("huge.txt", "1 2\n3 4\n99999999999999999999999 5\n", {":3:", "99999999999999999999999"});
}

TEST(cliBadInput, MatrixMarketIdBeyondSize) {
  expect_bad_input("bad.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 5\n", {":4:", "5"});
}

TEST(cliBadInput, BinaryWrongSize) { expect_bad_input("odd.bin64", std::string(7, '\1'), {}); }

TEST(cliBadInput, TruncatedGzip) {
  // A valid gzip of a long edge list, cut in the middle: must not pass as a shorter graph.
  TempDir dir;
  std::string text;
  for (int k = 0; k < 200000; ++k) text += std::to_string(k) + " " + std::to_string((k * 7919 + 13) % 200000) + "\n";
  const std::string gz = dir.file("whole.txt.gz");
  gzFile f = gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
  const std::string bytes = read_file(gz);
  expect_bad_input("cut.txt.gz", bytes.substr(0, bytes.size() / 2), {});
}

// An empty graph is not an error: partition succeeds, count reports 0.
void expect_empty_graph(const std::string& text) {
  TempDir dir;
  const std::string in = dir.file("empty.txt");
  write_file(in, text);
  for (std::uint32_t parts : {1u, 2u}) {
    const std::string h5 = dir.file("empty" + std::to_string(parts) + ".h5");
    const ProcessResult p = run_partition(in, h5, parts);
    ASSERT_EQ(p.exit_code, 0) << describe(p);
    const ProcessResult c = count_json(parts == 1 ? 1 : 3, h5);
    ASSERT_EQ(c.exit_code, 0) << describe(c);
    EXPECT_EQ(json_uint(c.out, "triangles"), 0u);
    EXPECT_EQ(json_uint(c.out, "vertices"), 0u);
    EXPECT_EQ(json_uint(c.out, "edges"), 0u);
  }
}

TEST(cliEmptyGraph, OnlyComments) { expect_empty_graph("# nothing here\n% nor here\n\n"); }
TEST(cliEmptyGraph, OnlySelfLoops) { expect_empty_graph("1 1\n2 2\n7 7\n"); }

// Old Mac line endings (a lone CR) used to be read as one edge.
TEST(cliBadInput, LoneCrLineEndsAreLineEnds) {
  TempDir dir;
  const std::string in = dir.file("mac.txt");
  write_file(in, "% a comment\r0 1\r1 2\r2 0\r2 3\r");
  const std::string h5 = dir.file("mac.h5");
  ASSERT_EQ(run_partition(in, h5, 1).exit_code, 0);
  const ProcessResult c = count_json(1, h5);
  ASSERT_EQ(c.exit_code, 0) << describe(c);
  EXPECT_EQ(json_uint(c.out, "triangles"), 1u);
  EXPECT_EQ(json_uint(c.out, "edges"), 4u);
}

// The summary line gives the block file's size and its bytes per edge (what each GPU loads
// per edge, offsets and all).
TEST(cliSummary, TheLineGivesTheFilesBytesPerEdge) {
  TempDir dir;
  write_text_edges(dir.file("g.txt"), random_graph(300, 2000, 5));
  const ProcessResult ok =
      run_process({bin_path("tricount-partition"), "--input", dir.file("g.txt"), "--output", dir.file("g.h5"), "--parts", "2"},
                  kProgramTimeout);
  ASSERT_EQ(ok.exit_code, 0) << describe(ok);
  const double bytes = static_cast<double>(std::filesystem::file_size(dir.file("g.h5")));
  const double edges = static_cast<double>(tricount::BlockFileReader(dir.file("g.h5")).header().edges);
  char expected[64];
  std::snprintf(expected, sizeof expected, " MB, %.2f bytes per edge)", bytes / edges);
  EXPECT_TRUE(contains(ok.out, expected)) << ok.out << " (expected '" << expected << "')";
}

// A newline in the input's name used to split the message and the summary over lines.
TEST(cliBadInput, ControlBytesInNamesAndLinesArePrintedEscaped) {
  TempDir dir;
  const std::string good = dir.file("good\nname.txt");
  write_file(good, "0 1\n1 2\n2 0\n");
  const ProcessResult ok = run_process({bin_path("tricount-partition"), "--input", good, "--output", dir.file("g.h5")}, kProgramTimeout);
  ASSERT_EQ(ok.exit_code, 0) << describe(ok);
  EXPECT_TRUE(contains(ok.out, "partitioned " + dir.file("good\\nname.txt") + ": 3 vertices")) << ok.out;
  EXPECT_EQ(std::count(ok.out.begin(), ok.out.end(), '\n'), 1) << ok.out;
  const std::string bad = dir.file("bad\nname.txt");
  write_file(bad, std::string("0 1\n1\0 2\n", 9));
  const ProcessResult r = run_partition(bad, dir.file("b.h5"), 1);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, dir.file("bad\\nname.txt") + ":2: malformed line: expected two vertex ids, got \"1\\x00 2\"")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// ------------------------------------------------------------------------------------
// Inputs that can be read only once (pipes, FIFOs, /dev/stdin, process substitution):
// --format auto sniffs the bytes the reader then parses, so no edge is lost.

// Runs `script` with /bin/bash -c; $PART is tricount-partition.
ProcessResult run_shell(const std::string& script) {
  return run_process({"/bin/bash", "-c", "PART='" + bin_path("tricount-partition") + "'; " + script}, kProgramTimeout);
}

// The header of a block file (vertices, edges, input edges, checksum).
tricount::GraphHeader header_of(const std::string& h5) { return tricount::BlockFileReader(h5).header(); }

// More than the first megabyte that a sniff used to read and throw away.
std::string large_edge_text() {
  std::string text;
  for (std::uint64_t k = 0; k < 200000; ++k) text += std::to_string(k) + " " + std::to_string((k * 7919 + 13) % 200000) + "\n";
  return text;
}

// A pipe has no size to estimate from: it used to be read into memory whatever
// --memory-budget said (649 MB at 128M); now its runs go to disk, within the budget.
TEST(cliPipes, PipeKeepsToTheMemoryBudget) {
  TempDir dir;
  const std::string txt = dir.file("big.txt");
  write_file(txt, large_edge_text());
  const std::string h5 = dir.file("piped.h5");
  const ProcessResult r = run_shell("cat '" + txt + "' | \"$PART\" --input /dev/stdin --output '" + h5 +
                                    "' --memory-budget 16M --tmpdir '" + dir.path() + "'");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "runs on disk: budget 16")) << describe(r);
  EXPECT_EQ(header_of(h5).input_edges, 200000u);
}

TEST(cliPipes, StdinPipeKeepsTheTriangle) {
  TempDir dir;
  const std::string h5 = dir.file("t.h5");
  const ProcessResult p = run_shell("printf '0 1\\n1 2\\n2 0\\n' | \"$PART\" --input /dev/stdin --output '" + h5 + "' -q");
  ASSERT_EQ(p.exit_code, 0) << describe(p);
  const ProcessResult c = count_json(1, h5);
  ASSERT_EQ(c.exit_code, 0) << describe(c);
  EXPECT_EQ(json_uint(c.out, "triangles"), 1u);
  EXPECT_EQ(json_uint(c.out, "edges"), 3u);
}

// The same file read directly, through a FIFO, through process substitution, through a pipe
// gzip-compressed, and as Matrix Market through a pipe: the same block file every time.
TEST(cliPipes, LargeInputThroughFifoAndPipesKeepsEveryEdge) {
  TempDir dir;
  const std::string txt = dir.file("big.txt");
  write_file(txt, large_edge_text());
  ASSERT_GT(fs::file_size(txt), std::uintmax_t{2} << 20);
  const std::string gz = dir.file("big.txt.gz");
  {
    const std::string text = read_file(txt);
    gzFile f = gzopen(gz.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    ASSERT_EQ(gzclose(f), Z_OK);
  }
  const std::string mtx = dir.file("big-mtx");  // no .mtx suffix: the banner decides
  write_file(mtx, "%%MatrixMarket matrix coordinate pattern general\n200000 200000 200000\n" + [&] {
    std::string t;
    for (std::uint64_t k = 0; k < 200000; ++k) t += std::to_string(k + 1) + " " + std::to_string((k * 7919 + 13) % 200000 + 1) + "\n";
    return t;
  }());
  const std::string direct = dir.file("direct.h5");
  ASSERT_EQ(run_partition(txt, direct, 2).exit_code, 0);
  const tricount::GraphHeader want = header_of(direct);
  ASSERT_EQ(want.input_edges, 200000u);

  const std::string fifo = dir.file("edges.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<std::pair<std::string, std::string>> ways = {
      {"fifo", "cat '" + txt + "' > '" + fifo + "' & \"$PART\" --input '" + fifo + "' --output OUT -n 2 -q; wait"},
      {"process substitution", "\"$PART\" --input <(cat '" + txt + "') --output OUT -n 2 -q"},
      {"stdin", "cat '" + txt + "' | \"$PART\" --input /dev/stdin --output OUT -n 2 -q"},
      {"gzip through a pipe", "cat '" + gz + "' | \"$PART\" --input /dev/stdin --output OUT -n 2 -q"},
      {"matrix market through a pipe", "cat '" + mtx + "' | \"$PART\" --input /dev/stdin --output OUT -n 2 -q"},
  };
  int k = 0;
  for (const auto& [what, script] : ways) {
    const std::string out = dir.file("way" + std::to_string(k++) + ".h5");
    std::string s = script;
    s.replace(s.find("OUT"), 3, "'" + out + "'");
    const ProcessResult r = run_shell(s);
    ASSERT_EQ(r.exit_code, 0) << what << "\n" << describe(r);
    ASSERT_FALSE(r.timed_out) << what;
    const tricount::GraphHeader got = header_of(out);
    EXPECT_EQ(got.input_edges, want.input_edges) << what;
    EXPECT_EQ(got.edges, want.edges) << what;
    EXPECT_EQ(got.vertices, want.vertices) << what;
    EXPECT_EQ(got.graph_checksum, want.graph_checksum) << what;
  }
}

// ------------------------------------------------------------------------------------
// Output files.

TEST(cliOutput, SuccessfulPartitionLeavesOnlyTheOutput) {
  TempDir dir;
  const std::string in = dir.file("in.txt");
  write_text_edges(in, complete_graph(8));
  fs::create_directory(dir.file("out"));
  const ProcessResult r = run_partition(in, dir.file("out/g.h5"), 3);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.file("out"))) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"g.h5"});
}

TEST(cliOutput, FailedPartitionLeavesNoOutput) {
  // Failure while reading: nothing written.
  TempDir dir;
  const std::string in = dir.file("bad.txt");
  write_file(in, "1 2\n2 3\n3 1\nnot an edge\n");
  fs::create_directory(dir.file("out"));
  const std::string out = dir.file("out/g.h5");
  const ProcessResult r = run_partition(in, out, 2);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(temp_files(dir.file("out")).empty());
  EXPECT_TRUE(fs::is_empty(dir.file("out")));
}

TEST(cliOutput, FileSizeLimitIsAClearErrorAndLeavesNothing) {
  // As a full disk would: the HDF5 write (in memory) or a sorted run (on disk) fails.
  TempDir dir;
  const std::string in = dir.file("in.txt");
  write_text_edges(in, random_graph(20000, 200000, 3));
  fs::create_directory(dir.file("out"));
  fs::create_directory(dir.file("runs"));
  const std::string out = dir.file("out/g.h5");
  for (const char* extra : {"", "--force-external"}) {
    const std::string cmd = "ulimit -f 200; exec '" + bin_path("tricount-partition") + "' --input '" + in + "' --output '" +
                            out + "' --tmpdir '" + dir.file("runs") + "' --quiet " + extra;
    const ProcessResult r = run_process({"bash", "-c", cmd});
    EXPECT_EQ(r.exit_code, 1) << extra << describe(r);
    EXPECT_NE(r.err.find("disk full"), std::string::npos) << extra << describe(r);
    EXPECT_TRUE(fs::is_empty(dir.file("out"))) << extra;
    EXPECT_TRUE(fs::is_empty(dir.file("runs"))) << extra;
  }
}

// A block written on the writer thread into a full disk printed 42 lines of HDF5's error
// stack (its printing was off on the main thread only) before the message, which named the
// removed temporary. Now the one message names the output. 650 KiB: the in-memory runs of 8
// threads fit, the CSR block file (about 800 KB) does not.
TEST(cliOutput, AFullDiskOnTheWriterThreadIsOneLineNamingTheOutput) {
  TempDir dir;
  const std::string in = dir.file("in.txt");
  write_text_edges(in, random_graph(2000, 200000, 3));
  fs::create_directory(dir.file("out"));
  const std::string out = dir.file("out/g.h5");
  const std::string cmd = "ulimit -f 650; exec '" + bin_path("tricount-partition") + "' --input '" + in + "' --output '" +
                          out + "' --threads 8 --block-encoding csr --quiet";
  const ProcessResult r = run_process({"bash", "-c", cmd});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_EQ(r.err, "tricount-partition: error: '" + out + "' block P(0,0): cannot write dataset 'neighbors' (disk full?)\n")
      << describe(r);
  EXPECT_TRUE(fs::is_empty(dir.file("out")));
}

TEST(cliOutput, FailedRenameLeavesNoTemporary) {
  // Failure after the whole file was written: the final name is a non-empty directory, so
  // the closing rename fails; the temporary must be removed.
  TempDir dir;
  const std::string in = dir.file("in.txt");
  write_text_edges(in, complete_graph(8));
  fs::create_directory(dir.file("out"));
  const std::string out = dir.file("out/g.h5");
  fs::create_directory(out);
  write_file(out + "/keep", "x");
  const ProcessResult r = run_partition(in, out, 2);
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, out)) << describe(r);
  EXPECT_TRUE(temp_files(dir.file("out")).empty()) << "left: " << temp_files(dir.file("out")).front();
  EXPECT_TRUE(fs::is_directory(out));
}

TEST(cliOutput, MissingOutputDirectory) {
  TempDir dir;
  const std::string in = dir.file("in.txt");
  write_text_edges(in, complete_graph(4));
  const std::string out = dir.file("no/such/dir/g.h5");
  const ProcessResult r = run_partition(in, out, 1);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, out)) << describe(r);
}

TEST(cliOutput, H5lsShowsBlocks) {
  if (!on_path("h5ls")) GTEST_SKIP() << "h5ls is not on PATH";
  TempDir dir;
  const std::string h5 = make_block_file(dir, 2);
  const ProcessResult r = run_process({"h5ls", "-r", h5}, kProgramTimeout);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const tricount::BlockFileReader reader(h5);
  for (std::uint32_t i = 0; i < 2; ++i)
    for (std::uint32_t j = 0; j < 2; ++j) {
      const std::vector<const char*> sets = reader.is_packed({i, j}) ? std::vector<const char*>{"group_index", "words"}
                                                                       : std::vector<const char*>{"offsets", "neighbors"};
      for (const char* set : sets) {
        const std::string name = "/blocks/P_" + std::to_string(i) + "_" + std::to_string(j) + "/" + set;
        EXPECT_TRUE(contains(r.out, name)) << "h5ls -r does not list " << name << ":\n" << r.out;
      }
    }
  EXPECT_TRUE(contains(r.out, "/vertex_map")) << r.out;
}

// ------------------------------------------------------------------------------------
// Output paths that name an input (issue 14, item 4): refused before any work, nothing lost.

TEST(cliOutputSafety, PartitionOntoTheInputIsRefused) {
  TempDir dir;
  const std::string txt = dir.file("k5.txt");
  write_text_edges(txt, complete_graph(5));
  const std::string before = read_file(txt);
  fs::create_hard_link(txt, dir.file("hard.txt"));
  fs::create_symlink(txt, dir.file("link.txt"));
  for (const std::string& out : {txt, dir.file("hard.txt"), dir.file("link.txt")}) {
    const ProcessResult r = run_partition(txt, out, 1);
    EXPECT_EQ(r.exit_code, 2) << out << describe(r);
    EXPECT_TRUE(contains(r.err, "--output '" + out + "' is the same file as --input")) << describe(r);
    EXPECT_TRUE(read_file(txt) == before);
  }
}

// ------------------------------------------------------------------------------------
// Temporary files and targets that are not plain files (issue 14, items 10 to 14).

TEST(cliOutputSafety, PartitionPlantedTempSymlinksAreNotFollowed) {
  TempDir dir;
  const std::string victim = dir.file("victim.txt");
  write_file(victim, "precious\n");
  const ProcessResult g = run_generate({"--kind", "grid3d", "--grid-side", "3", "--output", dir.file("g.txt")});
  ASSERT_EQ(g.exit_code, 0) << describe(g);
  plant_temp_symlinks(dir.file("p.h5"), victim, 50);
  const ProcessResult p = run_partition(dir.file("g.txt"), dir.file("p.h5"), 1);
  EXPECT_EQ(p.exit_code, 0) << describe(p);
  EXPECT_EQ(read_file(victim), "precious\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir.file("p.h5"))));
}

// The partitioner refuses a device (HDF5 needs a file) and leaves it a device.
TEST(cliOutputSafety, PartitionRefusesADevice) {
  TempDir dir;
  write_text_edges(dir.file("k4.txt"), complete_graph(4));
  const ProcessResult part = run_partition(dir.file("k4.txt"), "/dev/null", 1);
  EXPECT_EQ(part.exit_code, 1) << describe(part);
  EXPECT_TRUE(contains(part.err, "'/dev/null': it is not a regular file")) << describe(part);
  EXPECT_TRUE(device_intact("/dev/null", 3));
}

TEST(cliOutputSafety, StaleTempCleanupRemovesOnlyWhatIsProvablyOurs) {
  TempDir dir;
  const std::string in = dir.file("k5.txt");
  write_text_edges(in, complete_graph(5));
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  long dead = 4000000;  // a pid that runs nowhere on this host
  while (dead > 1000 && (::kill(static_cast<pid_t>(dead), 0) == 0 || errno != ESRCH)) --dead;
  const std::string out = dir.file("g.h5");
  const std::string hdf5_head("\x89HDF\r\n\x1a\n", 8);
  const std::vector<std::string> kept = {
      out + ".tmp.20240101",                                                          // a user's file
      out + ".tmp." + std::to_string(dead),                                           // the old pattern
      out + ".tmp.tricount-otherhost-" + std::to_string(dead) + "-abcdef",            // another node's
      out + ".tmp.tricount-" + host + "-" + std::to_string(dead) + "-notours1",       // not our name shape
      out + ".tmp.tricount-" + host + "-" + std::to_string(dead) + "-userdt",         // not our format
  };
  for (const std::string& k : kept) write_file(k, k.find("userdt") != std::string::npos ? "user data" : hdf5_head + "x");
  const std::string stale = out + ".tmp.tricount-" + host + "-" + std::to_string(dead) + "-Zq09aB";
  write_file(stale, hdf5_head + "half-written");
  // Scratch directories of runs on disk in --tmpdir: another node's, and the old pattern.
  fs::create_directory(dir.file("runs"));
  const std::vector<std::string> kept_dirs = {dir.file("runs/tricount-partition-otherhost-" + std::to_string(dead) + "-abcdef"),
                                              dir.file("runs/tricount-partition-" + std::to_string(dead) + "-abcdef")};
  for (const std::string& d : kept_dirs) fs::create_directory(d);
  const std::string stale_dir = dir.file("runs/tricount-partition-" + std::string(host) + "-" + std::to_string(dead) + "-Zq09aB");
  fs::create_directory(stale_dir);
  const ProcessResult r = run_partition(in, out, 2, {"--force-external", "--tmpdir", dir.file("runs")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (const std::string& k : kept) EXPECT_TRUE(fs::exists(k)) << "removed " << k;
  for (const std::string& d : kept_dirs) EXPECT_TRUE(fs::is_directory(d)) << "removed " << d;
  EXPECT_FALSE(fs::exists(stale)) << "a dead writer's temporary of this host was kept";
  EXPECT_FALSE(fs::exists(stale_dir)) << "a dead run's scratch directory of this host was kept";
}

}  // namespace
