// End-to-end tests through the real executables (tricount-generate, tricount-partition,
// tricount-count under mpiexec): a generate -> partition -> count round trip against the
// independent reference counter, --help and usage errors (exit 2), bad input files (exit 1
// with a message naming the file and line), damaged or foreign HDF5 files, atomic output,
// h5ls-visible layout and the JSON report.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"
#include "worker/backend.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount::testing;

constexpr double kTimeout = 180;

std::string prog(const std::string& name) { return bin_dir() + "/" + name; }

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.flush()) << "cannot write " << path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

ProcessResult generate(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {prog("tricount-generate")};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, kTimeout);
}

ProcessResult run_partition(const std::string& input, const std::string& output, std::uint32_t parts,
                        const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {prog("tricount-partition"), "--input", input, "--output", output,
                                   "--parts", std::to_string(parts), "--quiet"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run_process(argv, kTimeout);
}

ProcessResult run_count(int ranks, const std::vector<std::string>& args) {
  return run_process(mpi_command(ranks, prog("tricount-count"), args), kTimeout);
}

// Count a block file with `--json -` and return stdout (the JSON report).
ProcessResult count_json(int ranks, const std::string& h5, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"--input", h5, "--json", "-", "--threads", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_count(ranks, args);
}

// Text edge list: "u v" per line, '#'/'%' comments, extra columns ignored.
EdgePairs read_text_edges(const std::string& path) {
  std::ifstream in(path);
  EdgePairs edges;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line[0] == '%') continue;
    std::istringstream s(line);
    std::uint64_t a, b;
    if (s >> a >> b) edges.emplace_back(a, b);
  }
  return edges;
}

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

// Any file in `dir` whose name contains ".tmp." (a leftover temporary output).
std::vector<std::string> temp_files(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(dir))
    if (contains(e.path().filename().string(), ".tmp.")) found.push_back(e.path().string());
  return found;
}

bool on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::stringstream s(path);
  std::string dir;
  while (std::getline(s, dir, ':'))
    if (!dir.empty() && ::access((dir + "/" + name).c_str(), X_OK) == 0) return true;
  return false;
}

// A partitioned random graph (2000 vertices, 20000 edges; a few hundred KB) in `dir`.
std::string make_block_file(const TempDir& dir, std::uint32_t parts, const std::string& name = "good.h5") {
  const std::string txt = dir.file(name + ".txt");
  write_text_edges(txt, random_graph(2000, 20000, 7));
  const std::string h5 = dir.file(name);
  const ProcessResult r = run_partition(txt, h5, parts);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  return h5;
}

// ------------------------------------------------------------------------------------
// Round trip: generate -> partition -> count, at every (ranks, parts, splits) that does
// not leave a worker without a task, against the reference counter.

using RoundTripParam = std::tuple<int, std::uint32_t, std::uint32_t>;  // ranks, parts, splits

class RoundTrip : public ::testing::TestWithParam<RoundTripParam> {};

TEST_P(RoundTrip, KroneckerScale10MatchesReference) {
  const auto [ranks, parts, splits] = GetParam();
  TempDir dir;
  const std::string txt = dir.file("kron10.txt");
  const ProcessResult gen = generate({"--kind", "kronecker", "--scale", "10", "--output", txt});
  ASSERT_EQ(gen.exit_code, 0) << describe(gen);
  const EdgePairs edges = read_text_edges(txt);
  ASSERT_GT(edges.size(), 1000u);

  // What the report should say: the reference's own normalisation.
  std::set<std::pair<std::uint64_t, std::uint64_t>> undirected;
  std::set<std::uint64_t> vertices;
  for (auto [a, b] : edges) {
    if (a == b) continue;
    undirected.insert(a < b ? std::pair(a, b) : std::pair(b, a));
    vertices.insert(a);
    vertices.insert(b);
  }
  const std::uint64_t expected = tricount::reference::count_triangles(edges);
  ASSERT_GT(expected, 0u);

  const std::string h5 = dir.file("kron10.h5");
  const ProcessResult part = run_partition(txt, h5, parts);
  ASSERT_EQ(part.exit_code, 0) << describe(part);

  const ProcessResult c = count_json(ranks, h5, {"--workload-splits", std::to_string(splits)});
  ASSERT_EQ(c.exit_code, 0) << describe(c);
  EXPECT_EQ(json_uint(c.out, "triangles"), expected) << "ranks " << ranks << ", parts " << parts << ", splits " << splits;
  EXPECT_EQ(json_uint(c.out, "vertices"), vertices.size());
  EXPECT_EQ(json_uint(c.out, "edges"), undirected.size());
  EXPECT_EQ(json_uint(c.out, "parts"), parts);
  EXPECT_EQ(json_uint(c.out, "workload_splits"), splits);
  EXPECT_EQ(json_uint(c.out, "tasks"), std::uint64_t(parts) * parts * parts * splits);
  EXPECT_EQ(json_uint(c.out, "ranks"), std::uint64_t(ranks));
  EXPECT_EQ(json_uint(c.out, "workers"), std::uint64_t(ranks == 1 ? 1 : ranks - 1));
}

std::vector<RoundTripParam> round_trip_params() {
  std::vector<RoundTripParam> out;
  for (int ranks : {1, 2, 3})
    for (std::uint32_t parts : {1u, 2u, 3u})
      for (std::uint32_t splits : {1u, 2u, 3u}) {
        const std::uint64_t workers = ranks == 1 ? 1 : ranks - 1;
        if (workers <= std::uint64_t(parts) * parts * parts * splits) out.emplace_back(ranks, parts, splits);
      }
  return out;
}

INSTANTIATE_TEST_SUITE_P(cli, RoundTrip, ::testing::ValuesIn(round_trip_params()),
                         [](const ::testing::TestParamInfo<RoundTripParam>& info) {
                           return "ranks" + std::to_string(std::get<0>(info.param)) + "_parts" +
                                  std::to_string(std::get<1>(info.param)) + "_splits" +
                                  std::to_string(std::get<2>(info.param));
                         });

// ------------------------------------------------------------------------------------
// --help: exit 0 and every option named.

void expect_help(const ProcessResult& r, const std::vector<std::string>& options) {
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const std::string text = r.out + r.err;
  EXPECT_TRUE(contains(text, "usage")) << text;
  for (const auto& o : options) EXPECT_TRUE(contains(text, "--" + o)) << "--help does not mention --" << o << ":\n" << text;
}

TEST(cliHelp, Partition) {
  expect_help(run_process({prog("tricount-partition"), "--help"}, kTimeout),
              {"input", "output", "parts", "format", "order", "threads", "quiet", "help"});
}

TEST(cliHelp, Count) {
  expect_help(run_count(1, {"--help"}),
              {"input", "workload-splits", "backend", "threads", "cta-threshold", "chunk-size", "cache-size",
               "allow-idle-workers", "journal", "resume", "no-prefetch", "json", "quiet", "test-fault-at-task",
               "test-crash", "cuda-tuning", "help"});
}

TEST(cliHelp, Generate) {
  expect_help(run_process({prog("tricount-generate"), "--help"}, kTimeout),
              {"kind", "scale", "edge-factor", "seed", "vertices", "edges", "grid-side", "nx", "ny", "nz", "output",
               "format", "threads", "help"});
}

// tricount-generate computes edges on all cores; the file is the same at 1 and 4 threads.
TEST(cliGenerate, SameFileForAnyThreadCount) {
  TempDir dir;
  for (const char* kind : {"kronecker", "uniform"}) {
    std::string files[2];
    for (int t = 0; t < 2; ++t) {
      files[t] = dir.file(std::string(kind) + (t == 0 ? ".1" : ".4") + ".bin64");
      const ProcessResult r = generate({"--kind", kind, "--scale", "16", "--threads", t == 0 ? "1" : "4",
                                        "--output", files[t]});
      ASSERT_EQ(r.exit_code, 0) << describe(r);
    }
    EXPECT_EQ(read_file(files[0]).size(), std::size_t{16} * 16 << 16) << kind;
    EXPECT_TRUE(read_file(files[0]) == read_file(files[1])) << kind;
  }
}

// ------------------------------------------------------------------------------------
// Usage errors: exit 2, "PROGRAM: error: ..." naming the culprit.

struct UsageCase {
  const char* name;
  const char* program;  // partition, count (under mpiexec -np 1), generate or simulate
  std::vector<std::string> args;  // "IN" -> a valid edge list, "OUT" -> an output path
  const char* mentions;
};

void PrintTo(const UsageCase& c, std::ostream* os) { *os << c.name; }

class Usage : public ::testing::TestWithParam<UsageCase> {};

TEST_P(Usage, ExitsTwoWithMessage) {
  const UsageCase& c = GetParam();
  TempDir dir;
  const std::string in = dir.file("in.txt");
  write_text_edges(in, complete_graph(4));
  std::vector<std::string> args;
  for (const auto& a : c.args) args.push_back(a == "IN" ? in : a == "OUT" ? dir.file("out.h5") : a);
  const std::string program = std::string("tricount-") + c.program;
  ProcessResult r;
  if (std::string(c.program) == "count") {
    r = run_count(1, args);
  } else {
    std::vector<std::string> argv = {prog(program)};
    argv.insert(argv.end(), args.begin(), args.end());
    r = run_process(argv, kTimeout);
  }
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, program + ": error:")) << describe(r);
  EXPECT_TRUE(contains(r.err, c.mentions)) << "expected the message to mention '" << c.mentions << "'\n" << describe(r);
  EXPECT_FALSE(fs::exists(dir.file("out.h5")));
}

const std::vector<UsageCase> kUsageCases = {
    {"PartitionUnknownOption", "partition", {"--input", "IN", "--output", "OUT", "--bogus"}, "bogus"},
    {"PartitionPartsNotANumber", "partition", {"--input", "IN", "--output", "OUT", "--parts", "abc"}, "parts"},
    {"PartitionPartsZero", "partition", {"--input", "IN", "--output", "OUT", "--parts", "0"}, "parts"},
    // boost::program_options reads "-1" into the uint32 --parts as 4294967295.
    {"PartitionPartsNegative", "partition", {"--input", "IN", "--output", "OUT", "--parts", "-1"}, "parts"},
    {"PartitionBadFormat", "partition", {"--input", "IN", "--output", "OUT", "--format", "xyz"}, "xyz"},
    {"PartitionBadOrder", "partition", {"--input", "IN", "--output", "OUT", "--order", "sideways"}, "sideways"},
    {"PartitionMissingInput", "partition", {"--output", "OUT"}, "input"},
    {"PartitionMissingOutput", "partition", {"--input", "IN"}, "output"},
    {"CountUnknownOption", "count", {"--input", "x.h5", "--bogus"}, "bogus"},
    {"CountBadBackend", "count", {"--input", "x.h5", "--backend", "foo"}, "foo"},
    {"CountSplitsZero", "count", {"--input", "x.h5", "--workload-splits", "0"}, "workload-splits"},
    {"CountSplitsNotANumber", "count", {"--input", "x.h5", "--workload-splits", "abc"}, "workload-splits"},
    // Options that effectively hung (minutes of empty tasks, memory without end, 413 MB of
    // empty blocks for 9 edges): bounded, with what to use instead.
    {"CountSplitsTooMany", "count", {"--input", "x.h5", "--workload-splits", "1048576"}, "use auto"},
    {"PartitionPartsBeyondTheLimit", "partition", {"--input", "IN", "--output", "OUT", "--parts", "4294967298"}, "between 1 and 1024"},
    {"PartitionPartsTooManyForTheGraph", "partition", {"--input", "IN", "--output", "OUT", "--parts", "300"}, "use --parts 32 or fewer"},
    {"SimulateTooManyWorkers", "simulate", {"--journal", "x.journal", "--max-workers", "100000000"}, "--workers"},
    {"SimulateWorkerCountTooLarge", "simulate", {"--journal", "x.journal", "--workers", "1,100000000"}, "100000000"},
    {"CountBadCacheSize", "count", {"--input", "x.h5", "--cache-size", "4Q"}, "cache-size"},
    {"CountCudaTuningUnknownKey", "count", {"--input", "x.h5", "--cuda-tuning", "bitmap-words=8,warp-lane=8"}, "warp-lane"},
    {"CountCudaTuningBadValue", "count", {"--input", "x.h5", "--cuda-tuning", "v-side=3"}, "v-side='3'"},
    {"CountCudaTuningNotANumber", "count", {"--input", "x.h5", "--cuda-tuning", "buckets-log2=two"}, "buckets-log2"},
    {"CountMissingInput", "count", {"--backend", "cpu"}, "input"},
    {"GenerateUnknownOption", "generate", {"--output", "OUT", "--bogus"}, "bogus"},
    {"GenerateBadKind", "generate", {"--output", "OUT", "--kind", "foo"}, "foo"},
    {"GenerateBadFormat", "generate", {"--output", "OUT", "--format", "xyz"}, "xyz"},
    {"GenerateScaleNotANumber", "generate", {"--output", "OUT", "--scale", "abc"}, "scale"},
    {"GenerateMissingOutput", "generate", {"--scale", "4"}, "output"},
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

// A newline in the input's name used to split the message and the summary over lines.
TEST(cliBadInput, ControlBytesInNamesAndLinesArePrintedEscaped) {
  TempDir dir;
  const std::string good = dir.file("good\nname.txt");
  write_file(good, "0 1\n1 2\n2 0\n");
  const ProcessResult ok = run_process({prog("tricount-partition"), "--input", good, "--output", dir.file("g.h5")}, kTimeout);
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
  return run_process({"/bin/bash", "-c", "PART='" + prog("tricount-partition") + "'; " + script}, kTimeout);
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
// --memory-budget said (649 MB at 128M); now it takes the external path, within the budget.
TEST(cliPipes, PipeKeepsToTheMemoryBudget) {
  TempDir dir;
  const std::string txt = dir.file("big.txt");
  write_file(txt, large_edge_text());
  const std::string h5 = dir.file("piped.h5");
  const ProcessResult r = run_shell("cat '" + txt + "' | \"$PART\" --input /dev/stdin --output '" + h5 +
                                    "' --memory-budget 16M --tmpdir '" + dir.path() + "'");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "external memory: budget 16")) << describe(r);
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
// Bad block files given to tricount-count: exit 1, message naming the file.

void expect_count_fails(const std::string& h5, const std::vector<std::string>& also = {}) {
  const ProcessResult r = run_count(1, {"--input", h5});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "tricount-count: error:")) << describe(r);
  EXPECT_TRUE(contains(r.err, h5)) << "message does not name '" << h5 << "'\n" << describe(r);
  for (const auto& s : also) EXPECT_TRUE(contains(r.err, s)) << "message does not mention '" << s << "'\n" << describe(r);
}

TEST(cliBadBlockFile, Missing) {
  TempDir dir;
  expect_count_fails(dir.file("nothing.h5"));
}

TEST(cliBadBlockFile, NotHdf5) {
  TempDir dir;
  const std::string path = dir.file("edges.h5");
  write_file(path, "1 2\n2 3\n3 1\n");
  expect_count_fails(path, {"HDF5"});
}

TEST(cliBadBlockFile, Truncated) {
  TempDir dir;
  const std::string good = make_block_file(dir, 2);
  const std::string cut = dir.file("cut.h5");
  fs::copy_file(good, cut);
  fs::resize_file(cut, fs::file_size(good) / 2);
  expect_count_fails(cut);
}

TEST(cliBadBlockFile, WrittenByAnotherProgram) {
  TempDir dir;
  const std::string path = dir.file("foreign.h5");
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hsize_t dims[1] = {10};
  const hid_t space = H5Screate_simple(1, dims, nullptr);
  const hid_t set = H5Dcreate2(f, "data", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(set, 0);
  const int values[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  ASSERT_GE(H5Dwrite(set, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), 0);
  H5Dclose(set);
  H5Sclose(space);
  ASSERT_GE(H5Fclose(f), 0);
  expect_count_fails(path);
}

// A copy of `good` at `path` whose uint64 root attribute `name` reads `value`.
void copy_with_root_attribute(const std::string& good, const std::string& path, const char* name,
                              std::uint64_t value) {
  fs::copy_file(good, path);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t attr = H5Aopen(f, name, H5P_DEFAULT);
  ASSERT_GE(attr, 0);
  ASSERT_GE(H5Awrite(attr, H5T_NATIVE_UINT64, &value), 0);
  H5Aclose(attr);
  ASSERT_GE(H5Fclose(f), 0);
}

TEST(cliBadBlockFile, OtherFormatVersion) {
  TempDir dir;
  const std::string good = make_block_file(dir, 2);
  const std::string path = dir.file("future.h5");
  copy_with_root_attribute(good, path, "format_version", 999);
  expect_count_fails(path, {"999"});
}

// A crafted parts attribute used 6.3 GB for a minute before failing; now refused at once.
TEST(cliBadBlockFile, PartsBeyondTheFileSize) {
  TempDir dir;
  const std::string good = make_block_file(dir, 1);
  const std::string path = dir.file("parts.h5");
  copy_with_root_attribute(good, path, "parts", 20000);
  expect_count_fails(path, {"20000 parts", "corrupt"});
}

TEST(cliBadBlockFile, EdgeListGivenToCount) {
  // An edge list given to tricount-count is partitioned first (issue 33), no longer refused.
  TempDir dir;
  const std::string path = dir.file("graph.txt");
  write_text_edges(path, complete_graph(5));
  const ProcessResult r = count_json(1, path);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(json_uint(r.out, "triangles"), 10u);  // C(5,3)
}

// ------------------------------------------------------------------------------------
// Job shape and backend.

TEST(cliCount, MoreWorkersThanTasksIsUsageError) {
  TempDir dir;
  const std::string h5 = make_block_file(dir, 1);
  // 3 ranks = 2 workers, 1 part and 1 split = 1 task.
  const ProcessResult r = run_count(3, {"--input", h5, "--workload-splits", "1"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "tasks")) << describe(r);
}

TEST(cliCount, AllowIdleWorkers) {
  TempDir dir;
  const std::string txt = dir.file("k6.txt");
  write_text_edges(txt, complete_graph(6));
  const std::string h5 = dir.file("k6.h5");
  ASSERT_EQ(run_partition(txt, h5, 1).exit_code, 0);
  const ProcessResult r = count_json(3, h5, {"--allow-idle-workers"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(json_uint(r.out, "triangles"), 20u);  // C(6,3)
}

// "All cores" means the cores the process may use: a run pinned to one core (as mpirun
// binds ranks by default) counts with one CPU thread, not one per core of the machine.
TEST(cliCount, DefaultThreadsFollowTheCpuSet) {
  if (!std::filesystem::exists("/usr/bin/taskset")) GTEST_SKIP() << "no /usr/bin/taskset";
  TempDir dir;
  const std::string h5 = make_block_file(dir, 1);
  const ProcessResult r =
      run_process({"/usr/bin/taskset", "-c", "0", bin_dir() + "/tricount-count", "--input", h5, "--backend", "cpu", "--json", "-"}, 120);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "\"1 CPU threads\"")) << describe(r);
}

TEST(cliCount, CudaBackendWithoutGpu) {
  if (tricount::cuda_available()) GTEST_SKIP() << "a CUDA GPU is available; --backend cuda would succeed";
  TempDir dir;
  const std::string h5 = make_block_file(dir, 1);
  const ProcessResult r = run_count(1, {"--input", h5, "--backend", "cuda"});
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "tricount-count: error:")) << describe(r);
  EXPECT_TRUE(contains(r.err, "cuda") || contains(r.err, "CUDA")) << describe(r);
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
  // As a full disk would: the HDF5 write (in memory) or a sorted run (external) fails.
  TempDir dir;
  const std::string in = dir.file("in.txt");
  write_text_edges(in, random_graph(20000, 200000, 3));
  fs::create_directory(dir.file("out"));
  fs::create_directory(dir.file("runs"));
  const std::string out = dir.file("out/g.h5");
  for (const char* extra : {"", "--force-external"}) {
    const std::string cmd = "ulimit -f 200; exec '" + prog("tricount-partition") + "' --input '" + in + "' --output '" +
                            out + "' --tmpdir '" + dir.file("runs") + "' --quiet " + extra;
    const ProcessResult r = run_process({"bash", "-c", cmd});
    EXPECT_EQ(r.exit_code, 1) << extra << describe(r);
    EXPECT_NE(r.err.find("disk full"), std::string::npos) << extra << describe(r);
    EXPECT_TRUE(fs::is_empty(dir.file("out"))) << extra;
    EXPECT_TRUE(fs::is_empty(dir.file("runs"))) << extra;
  }
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
  const ProcessResult r = run_process({"h5ls", "-r", h5}, kTimeout);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (const char* block : {"P_0_0", "P_0_1", "P_1_0", "P_1_1"})
    for (const char* set : {"offsets", "neighbors"}) {
      const std::string name = std::string("/blocks/") + block + "/" + set;
      EXPECT_TRUE(contains(r.out, name)) << "h5ls -r does not list " << name << ":\n" << r.out;
    }
  EXPECT_TRUE(contains(r.out, "/vertex_map")) << r.out;
}

// The body of the JSON object that follows "key": (from '{' to its matching '}').
std::string json_object(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\"");
  if (at == std::string::npos) return "";
  const auto open = json.find('{', at);
  if (open == std::string::npos) return "";
  int depth = 0;
  for (std::size_t p = open; p < json.size(); ++p) {
    if (json[p] == '{') ++depth;
    if (json[p] == '}' && --depth == 0) return json.substr(open, p - open + 1);
  }
  return "";
}

TEST(cliOutput, JsonReportToFile) {
  TempDir dir;
  const std::string txt = dir.file("k5.txt");
  write_text_edges(txt, complete_graph(5));
  const std::string h5 = dir.file("k5.h5");
  ASSERT_EQ(run_partition(txt, h5, 2).exit_code, 0);
  fs::create_directory(dir.file("report"));
  const std::string json_path = dir.file("report/out.json");
  const ProcessResult r = run_count(3, {"--input", h5, "--json", json_path, "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  ASSERT_TRUE(fs::is_regular_file(json_path));
  const std::string json = read_file(json_path);
  for (const char* key : {"triangles", "vertices", "edges", "parts", "ranks", "backend", "seconds"})
    EXPECT_TRUE(contains(json, std::string("\"") + key + "\"")) << "no \"" << key << "\" in:\n" << json;
  EXPECT_EQ(json_uint(json, "triangles"), 10u);  // C(5,3)
  EXPECT_EQ(json_uint(json, "vertices"), 5u);
  EXPECT_EQ(json_uint(json, "edges"), 10u);
  EXPECT_EQ(json_uint(json, "parts"), 2u);
  EXPECT_EQ(json_uint(json, "ranks"), 3u);
  const std::string seconds = json_object(json, "seconds");
  ASSERT_FALSE(seconds.empty()) << json;
  for (const char* key : {"load", "count", "total"})
    EXPECT_TRUE(contains(seconds, std::string("\"") + key + "\"")) << "no seconds." << key << " in:\n" << seconds;
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json[json.find_last_not_of("\n ")], '}');
  EXPECT_TRUE(temp_files(dir.file("report")).empty());
  // Without --quiet the summary line goes to stdout when the JSON goes to a file.
  EXPECT_TRUE(contains(r.out, "10 triangles")) << describe(r);
}

// ------------------------------------------------------------------------------------
// Output paths that name an input (issue 14, item 4): refused before any work, nothing lost.

TEST(cliOutputSafety, JsonOntoTheInputIsRefused) {
  TempDir dir;
  const std::string h5 = make_block_file(dir, 2);
  const std::string before = read_file(h5);
  fs::create_symlink(h5, dir.file("link.h5"));
  fs::create_hard_link(h5, dir.file("hard.h5"));
  for (const std::string& json : {h5, dir.file("link.h5"), dir.file("hard.h5")}) {
    const ProcessResult r = run_count(1, {"--input", h5, "--json", json, "--threads", "1"});
    EXPECT_EQ(r.exit_code, 2) << json << describe(r);
    EXPECT_TRUE(contains(r.err, "tricount-count: error: --json '" + json + "' is the same file as --input")) << describe(r);
    EXPECT_TRUE(read_file(h5) == before) << "the block file was changed by --json " << json;
  }
  EXPECT_TRUE(fs::is_symlink(dir.file("link.h5")));
  // Through the symlink as the input, too.
  const ProcessResult r = run_count(1, {"--input", dir.file("link.h5"), "--json", h5, "--threads", "1"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(read_file(h5) == before);
  const ProcessResult ok = count_json(1, h5);
  EXPECT_EQ(ok.exit_code, 0) << describe(ok);
}

TEST(cliOutputSafety, JsonOntoTheJournalIsRefused) {
  TempDir dir;
  const std::string h5 = make_block_file(dir, 2);
  const std::string journal = dir.file("run.journal");
  const ProcessResult r = run_count(1, {"--input", h5, "--journal", journal, "--json", journal, "--threads", "1"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "--json '" + journal + "' is the same file as --journal")) << describe(r);
  const ProcessResult onto_input = run_count(1, {"--input", h5, "--journal", h5, "--threads", "1"});
  EXPECT_EQ(onto_input.exit_code, 2) << describe(onto_input);
  EXPECT_TRUE(contains(onto_input.err, "--journal '" + h5 + "' is the same file as --input")) << describe(onto_input);
}

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

bool is_char_device(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

// After a program was given the real /dev/null or /dev/full: true if it is still the device.
// A regressed program (as root) replaces it with a file: put the device back for everyone
// else on the machine, and fail.
bool device_intact(const std::string& path, unsigned minor) {
  if (is_char_device(path)) return true;
  if (::geteuid() == 0 && ::unlink(path.c_str()) == 0) ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, minor));
  return false;
}

// Symlinks at every name the old writers would have used (NAME.tmp.<pid>) for the next
// `count` pids, all pointing at `victim`.
void plant_temp_symlinks(const std::string& name, const std::string& victim, int count) {
  long last = 0;
  std::ifstream("/proc/sys/kernel/ns_last_pid") >> last;
  for (long pid = last + 1; pid <= last + count; ++pid) fs::create_symlink(victim, name + ".tmp." + std::to_string(pid));
}

TEST(cliOutputSafety, PlantedTempSymlinksAreNotFollowed) {
  TempDir dir;
  const std::string h5 = make_block_file(dir, 2);
  const std::string victim = dir.file("victim.txt");
  write_file(victim, "precious\n");
  // tricount-count --json
  plant_temp_symlinks(dir.file("r.json"), victim, 400);
  const ProcessResult c = run_count(1, {"--input", h5, "--json", dir.file("r.json"), "--threads", "1", "--quiet"});
  EXPECT_EQ(c.exit_code, 0) << describe(c);
  EXPECT_EQ(read_file(victim), "precious\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir.file("r.json"))));
  EXPECT_EQ(json_uint(read_file(dir.file("r.json")), "triangles"), 1276u);
  // tricount-generate --output
  plant_temp_symlinks(dir.file("g.txt"), victim, 50);
  const ProcessResult g = generate({"--kind", "grid3d", "--grid-side", "3", "--output", dir.file("g.txt")});
  EXPECT_EQ(g.exit_code, 0) << describe(g);
  EXPECT_EQ(read_file(victim), "precious\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir.file("g.txt"))));
  // tricount-partition --output
  plant_temp_symlinks(dir.file("p.h5"), victim, 50);
  const ProcessResult p = run_partition(dir.file("g.txt"), dir.file("p.h5"), 1);
  EXPECT_EQ(p.exit_code, 0) << describe(p);
  EXPECT_EQ(read_file(victim), "precious\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir.file("p.h5"))));
}

TEST(cliOutputSafety, DevicesFifosAndSymlinksAreWrittenNotReplaced) {
  TempDir dir;
  const std::string h5 = make_block_file(dir, 2);
  // A FIFO we made: the reader gets the report, the FIFO stays. First, so that a program that
  // replaces special files is stopped here, before it is given the real /dev/null.
  const std::string fifo = dir.file("report.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ProcessResult reader;
  std::thread read_fifo([&] { reader = run_process({"cat", fifo}, 120); });
  const ProcessResult to_fifo = run_count(1, {"--input", h5, "--json", fifo, "--threads", "1"});
  read_fifo.join();
  EXPECT_EQ(to_fifo.exit_code, 0) << describe(to_fifo);
  EXPECT_EQ(json_uint(reader.out, "triangles"), 1276u) << describe(reader);
  ASSERT_TRUE(fs::is_fifo(fs::symlink_status(fifo))) << "the FIFO was replaced: not trying /dev/null and /dev/full";
  // A symlink we made: written through (the target gets the report), the link stays.
  fs::create_directory(dir.file("reports"));
  fs::create_symlink("reports/real.json", dir.file("link.json"));
  const ProcessResult link = run_count(1, {"--input", h5, "--json", dir.file("link.json"), "--threads", "1"});
  EXPECT_EQ(link.exit_code, 0) << describe(link);
  EXPECT_TRUE(fs::is_symlink(dir.file("link.json")));
  EXPECT_EQ(json_uint(read_file(dir.file("reports/real.json")), "triangles"), 1276u);
  EXPECT_TRUE(temp_files(dir.path()).empty());
  EXPECT_TRUE(temp_files(dir.file("reports")).empty());
  // /dev/null: written in place, still the device.
  const ProcessResult null = run_count(1, {"--input", h5, "--json", "/dev/null", "--threads", "1"});
  EXPECT_EQ(null.exit_code, 0) << describe(null);
  EXPECT_TRUE(device_intact("/dev/null", 3));
  // /dev/full: the write error is reported, the device stays.
  const ProcessResult full = run_count(1, {"--input", h5, "--json", "/dev/full", "--threads", "1"});
  EXPECT_EQ(full.exit_code, 1) << describe(full);
  EXPECT_TRUE(contains(full.err, "tricount-count: error: cannot write --json '/dev/full'")) << describe(full);
  EXPECT_TRUE(device_intact("/dev/full", 7));
  // /dev/stdout: the report on stdout, the summary on stderr.
  const ProcessResult out = run_count(1, {"--input", h5, "--json", "/dev/stdout", "--threads", "1"});
  EXPECT_EQ(out.exit_code, 0) << describe(out);
  EXPECT_EQ(json_uint(out.out, "triangles"), 1276u) << describe(out);
  EXPECT_TRUE(contains(out.err, "1276 triangles")) << describe(out);
  // tricount-generate into a FIFO, and the partitioner refusing a device (HDF5 needs a file).
  const std::string edges_fifo = dir.file("edges.fifo");
  ASSERT_EQ(::mkfifo(edges_fifo.c_str(), 0600), 0);
  std::thread read_edges([&] { reader = run_process({"cat", edges_fifo}, 120); });
  const ProcessResult gen = generate({"--kind", "grid3d", "--grid-side", "3", "--output", edges_fifo});
  read_edges.join();
  EXPECT_EQ(gen.exit_code, 0) << describe(gen);
  EXPECT_EQ(std::count(reader.out.begin(), reader.out.end(), '\n'), 54);
  ASSERT_TRUE(fs::is_fifo(fs::symlink_status(edges_fifo)));
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
  // Scratch directories of the external path in --tmpdir: another node's, and the old pattern.
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

TEST(cliOutputSafety, BadJsonPathIsFoundBeforeCounting) {
  TempDir dir;
  const std::string h5 = make_block_file(dir, 2);
  const std::string journal = dir.file("run.journal");  // a count that ran would leave records here
  for (const std::string& bad : {dir.file("no/such/dir/r.json"), dir.path()}) {
    const ProcessResult r = run_count(1, {"--input", h5, "--json", bad, "--journal", journal, "--threads", "1"});
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, "tricount-count: error: cannot write --json '" + bad + "'")) << describe(r);
    EXPECT_FALSE(fs::exists(journal)) << "counted before finding the bad path: " << read_file(journal);
    fs::remove(journal);
  }
  // A write that fails only at the end (disk full) still leaves the summary line.
  const ProcessResult full = run_count(1, {"--input", h5, "--json", "/dev/full", "--threads", "1"});
  EXPECT_EQ(full.exit_code, 1) << describe(full);
  EXPECT_TRUE(contains(full.out, "tricount: 1276 triangles")) << describe(full);
  EXPECT_TRUE(device_intact("/dev/full", 7));
}

TEST(cliOutputSafety, GenerateRemovesItsTemporaryOnSigterm) {
  TempDir dir;
  fs::create_directory(dir.file("out"));
  const std::string out = dir.file("out/big.txt");
  // Start a large graph, wait for its temporary, SIGTERM it.
  const std::string script = "'" + prog("tricount-generate") + "' --kind kronecker --scale 24 --output '" + out +
                             "' & pid=$!; for i in $(seq 1 3000); do ls '" + dir.file("out") +
                             "' | grep -q tmp && break; sleep 0.01; done; sleep 0.2; kill -TERM $pid; wait $pid; echo rc=$?";
  const ProcessResult r = run_process({"bash", "-c", script}, 120);
  EXPECT_TRUE(contains(r.out, "rc=143")) << describe(r);
  EXPECT_TRUE(contains(r.err, "tricount-generate: interrupted by SIGTERM")) << describe(r);
  EXPECT_TRUE(fs::is_empty(dir.file("out"))) << temp_files(dir.file("out")).size() << " files left";
}

}  // namespace
