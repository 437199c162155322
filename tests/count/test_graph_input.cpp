// tricount-count GRAPH (issue 33): the input positional, an edge file partitioned first by
// rank 0 into a temporary block file (removed at exit, also after an error) or --save-blocks,
// one line saying what was done, and the summary line's words. Counts are checked against
// the brute-force reference (tests/reference_counter.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount::testing;

std::string prog() { return bin_dir() + "/tricount-count"; }

// The count with TMPDIR pointing at `tmp`, so that a test sees every temporary it leaves.
ProcessResult count_in(const std::string& tmp, std::vector<std::string> args, int ranks = 0) {
  std::vector<std::string> cmd = {"/usr/bin/env", "TMPDIR=" + tmp};
  if (ranks > 0) {
    const std::vector<std::string> mpi = mpi_command(ranks, prog(), args);
    cmd.insert(cmd.end(), mpi.begin(), mpi.end());
  } else {
    cmd.push_back(prog());
    cmd.insert(cmd.end(), args.begin(), args.end());
  }
  return run_process(cmd, 300);
}

std::vector<std::string> entries(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename().string());
  return names;
}

class GraphInput : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_ = dir_.file("tmp");
    fs::create_directory(tmp_);
    edges_ = random_graph(3000, 30000, 11);
    expected_ = tricount::reference::count_triangles(edges_);
    txt_ = dir_.file("graph.txt");
    write_text_edges(txt_, edges_);
  }
  void expect_no_temporaries() {
    EXPECT_TRUE(entries(tmp_).empty()) << "left in TMPDIR: " << (entries(tmp_).empty() ? "" : entries(tmp_).front());
  }
  TempDir dir_;
  std::string tmp_, txt_;
  EdgePairs edges_;
  std::uint64_t expected_ = 0;
};

TEST_F(GraphInput, EdgeListAsTheFirstArgumentIsCountedExactly) {
  const ProcessResult r = count_in(tmp_, {txt_, "--json", dir_.file("r.json"), "--backend", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  std::ifstream in(dir_.file("r.json"));
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(json_uint(json, "triangles"), expected_) << json;
  // One line says what was done: the input's format, the layout and why, and where it went.
  EXPECT_TRUE(contains(r.out, "tricount: partitioned '" + txt_ + "' (edgelist) into 1 x 1 blocks")) << r.out;
  EXPECT_TRUE(contains(r.out, "fits each worker's --cache-size")) << r.out;
  EXPECT_TRUE(contains(r.out, "the block file is temporary")) << r.out;
  // The report names the source and that the blocks were not kept.
  EXPECT_TRUE(contains(json, "\"partition\": {")) << json;
  EXPECT_TRUE(contains(json, "\"source\": \"" + txt_ + "\"")) << json;
  EXPECT_TRUE(contains(json, "\"format\": \"edgelist\"")) << json;
  EXPECT_TRUE(contains(json, "\"blocks\": null")) << json;
  // The summary line's words: one of each.
  EXPECT_TRUE(contains(r.out, "| 1 part, 1 split, 1 task | 1 rank (1 worker, ")) << r.out;
  expect_no_temporaries();
}

// Under mpiexec with 2 workers: rank 0 partitions, the workers count the file it names, and
// the tasks follow the workers (--workload-splits auto unless given).
TEST_F(GraphInput, UnderMpiexecRankZeroPartitionsForEveryRank) {
  const ProcessResult r = count_in(tmp_, {txt_, "--json", "-", "--backend", "cpu", "--threads", "1"}, 3);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(json_uint(r.out, "triangles"), expected_) << r.out;
  EXPECT_EQ(json_uint(r.out, "workers"), 2u);
  EXPECT_GE(json_uint(r.out, "tasks"), 2u) << "every worker has a task";
  // With --json - the lines go to stderr.
  EXPECT_TRUE(contains(r.err, "tricount: partitioned")) << r.err;
  expect_no_temporaries();
}

TEST_F(GraphInput, MatrixMarketAndParts) {
  const std::string mtx = dir_.file("graph.mtx");
  {
    std::ofstream out(mtx);
    out << "%%MatrixMarket matrix coordinate pattern symmetric\n% a comment\n3000 3000 " << edges_.size() << "\n";
    for (const auto& [a, b] : edges_) out << a + 1 << " " << b + 1 << "\n";  // 1-based
  }
  const ProcessResult r = count_in(tmp_, {mtx, "--parts", "3", "--json", "-", "--backend", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(json_uint(r.out, "triangles"), expected_);
  EXPECT_EQ(json_uint(r.out, "parts"), 3u);
  EXPECT_TRUE(contains(r.err, "(mtx) into 3 x 3 blocks")) << r.err;
  EXPECT_TRUE(contains(r.err, "as --parts asks")) << r.err;
  expect_no_temporaries();
}

TEST_F(GraphInput, SaveBlocksKeepsACompleteBlockFileThatCountsTheSame) {
  const std::string h5 = dir_.file("kept.h5");
  const ProcessResult r = count_in(tmp_, {txt_, "--save-blocks", h5, "--json", "-", "--backend", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "block file saved as '" + h5 + "'")) << r.err;
  EXPECT_TRUE(contains(r.out, "\"blocks\": \"" + h5 + "\"")) << r.out;
  ASSERT_TRUE(fs::is_regular_file(h5));
  for (const std::string& name : entries(dir_.path()))
    EXPECT_EQ(name.find(".tmp.tricount-"), std::string::npos) << "temporary left beside the block file: " << name;
  expect_no_temporaries();
  // The kept file is a block file: counted as it is (no partition line), same count.
  const ProcessResult again = count_in(tmp_, {h5, "--json", "-", "--backend", "cpu"});
  ASSERT_EQ(again.exit_code, 0) << describe(again);
  EXPECT_EQ(json_uint(again.out, "triangles"), expected_);
  EXPECT_FALSE(contains(again.err, "partitioned")) << again.err;
  EXPECT_TRUE(contains(again.out, "\"partition\": null")) << again.out;
  // --input still names it.
  const ProcessResult named = count_in(tmp_, {"--input", h5, "--json", "-", "--backend", "cpu"});
  ASSERT_EQ(named.exit_code, 0) << describe(named);
  EXPECT_EQ(json_uint(named.out, "triangles"), expected_);
  // A block file is not partitioned again.
  const ProcessResult save_again = count_in(tmp_, {h5, "--save-blocks", dir_.file("other.h5")});
  EXPECT_EQ(save_again.exit_code, 2) << describe(save_again);
  EXPECT_TRUE(contains(save_again.err, "is a block file already")) << save_again.err;
}

TEST_F(GraphInput, ABadLineFailsNamingItAndLeavesNoTemporary) {
  const std::string bad = dir_.file("bad.txt");
  {
    std::ofstream out(bad);
    out << "0 1\n1 2\n2 x\n";
  }
  const ProcessResult r = count_in(tmp_, {bad});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "tricount-count: error: ")) << r.err;
  EXPECT_TRUE(contains(r.err, bad + ":3")) << r.err;
  expect_no_temporaries();
  // The same under mpiexec: every rank ends with rank 0's message.
  const ProcessResult m = count_in(tmp_, {bad}, 3);
  EXPECT_NE(m.exit_code, 0) << describe(m);
  EXPECT_TRUE(contains(m.err, bad + ":3")) << m.err;
  expect_no_temporaries();
}

TEST_F(GraphInput, MissingOrAbsentGraphIsAClearError) {
  const ProcessResult missing = count_in(tmp_, {dir_.file("nothere.txt")});
  EXPECT_EQ(missing.exit_code, 1) << describe(missing);
  EXPECT_TRUE(contains(missing.err, "cannot open '" + dir_.file("nothere.txt") + "'")) << missing.err;
  const ProcessResult missing_h5 = count_in(tmp_, {dir_.file("nothere.h5")});
  EXPECT_EQ(missing_h5.exit_code, 1) << describe(missing_h5);
  EXPECT_TRUE(contains(missing_h5.err, dir_.file("nothere.h5"))) << missing_h5.err;
  const ProcessResult none = count_in(tmp_, {});
  EXPECT_EQ(none.exit_code, 2) << describe(none);
  EXPECT_TRUE(contains(none.err, "give the graph to count: tricount-count GRAPH")) << none.err;
  const ProcessResult both = count_in(tmp_, {txt_, "--input", txt_});
  EXPECT_EQ(both.exit_code, 2) << describe(both);
  expect_no_temporaries();
}

// An output onto the edge file would destroy it: refused before any work (the count's own
// checks only see the block file).
TEST_F(GraphInput, OutputsOntoTheEdgeFileAreRefused) {
  auto text_of = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const std::string before = text_of(txt_);
  for (const std::string option : {"--json", "--journal", "--per-vertex", "--save-blocks"}) {
    const ProcessResult r = count_in(tmp_, {txt_, option, txt_});
    EXPECT_EQ(r.exit_code, 2) << option << ": " << describe(r);
    EXPECT_TRUE(contains(r.err, "is the same file as GRAPH")) << option << ": " << r.err;
  }
  EXPECT_EQ(text_of(txt_), before) << "the edge file changed";
  expect_no_temporaries();
}

// Two outputs that name one file not made yet, spelt differently ("d/x", "d/./x",
// "d/sub/../x"), would leave one of them: refused before the edge file is partitioned.
TEST_F(GraphInput, TwoOutputsNamingOneNewFileAreRefusedBeforeAnyWork) {
  fs::create_directory(dir_.file("sub"));
  const std::string out = dir_.file("out.tsv"), dotted = dir_.file(".") + "/out.tsv", up = dir_.file("sub") + "/../out.tsv";
  const std::vector<std::vector<std::string>> pairs = {{"--per-edge", out, "--per-vertex", dotted},
                                                        {"--journal", out, "--per-edge", up},
                                                        {"--json", out, "--per-vertex", up},
                                                        {"--json", dotted, "--save-blocks", out}};
  for (const auto& p : pairs) {
    std::vector<std::string> args = {txt_, "--backend", "cpu"};
    args.insert(args.end(), p.begin(), p.end());
    const ProcessResult r = count_in(tmp_, args);
    EXPECT_EQ(r.exit_code, 2) << p[0] << " " << p[2] << ": " << describe(r);
    EXPECT_TRUE(contains(r.err, "is the same file as") && contains(r.err, p[0] + " '") && contains(r.err, p[2] + " '"))
        << p[0] << " " << p[2] << ": " << r.err;
    EXPECT_FALSE(contains(r.out, "partitioned")) << "partitioned before refusing: " << r.out;
    EXPECT_FALSE(fs::exists(out)) << p[0] << " " << p[2];
  }
  expect_no_temporaries();
  // A block file as GRAPH: the count's own checks meet the same names.
  const std::string h5 = dir_.file("g.h5");
  ASSERT_EQ(count_in(tmp_, {txt_, "--backend", "cpu", "--save-blocks", h5}).exit_code, 0);
  const ProcessResult r = count_in(tmp_, {h5, "--backend", "cpu", "--json", out, "--per-edge", up});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "--per-edge '" + up + "' is the same file as --json '" + out + "'")) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// A graph whose CSR does not fit half of --cache-size is cut into more parts.
TEST_F(GraphInput, TheLayoutFollowsTheWorkersCacheSize) {
  const ProcessResult r = count_in(tmp_, {txt_, "--cache-size", "200K", "--json", "-", "--backend", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(json_uint(r.out, "triangles"), expected_);
  EXPECT_GT(json_uint(r.out, "parts"), 1u) << r.err;
  EXPECT_TRUE(contains(r.err, "a task's three blocks")) << r.err;
}

// A --save-blocks that cannot be written is named as --save-blocks (tricount-count has no --output).
TEST_F(GraphInput, AnUnwritableSaveBlocksIsNamedAsSuch) {
  for (const std::string& target : {dir_.file(""), dir_.file("nofolder/x.h5")}) {
    const ProcessResult r = count_in(tmp_, {txt_, "--save-blocks", target, "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, "cannot write --save-blocks '" + target + "'")) << r.err;
  }
  expect_no_temporaries();
}

// A --cache-size too small for any layout is named as the cause, not a --parts never given.
TEST_F(GraphInput, ACacheSizeTooSmallForAnyLayoutIsNamed) {
  const ProcessResult r = count_in(tmp_, {txt_, "--cache-size", "1K", "--backend", "cpu"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "--cache-size 1024 bytes is too small for this graph")) << r.err;
  EXPECT_FALSE(contains(r.err, "--parts")) << r.err;
  expect_no_temporaries();
}

// The WebGraph toy graph of LAW's test data (2 triangles), given by its basename.
TEST(GraphInputData, WebGraphBasename) {
  const fs::path toy = fs::path(graphs_dir()).parent_path() / "webgraph" / "test";
  if (!fs::exists(toy.string() + ".graph")) GTEST_SKIP() << "no " << toy.string() << ".graph: " << fetch_graphs_hint();
  const ProcessResult r = run_process({prog(), toy.string(), "--json", "-", "--backend", "cpu"}, 120);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(json_uint(r.out, "triangles"), 2u);
  EXPECT_TRUE(contains(r.err, "(webgraph)")) << r.err;
}

// An output onto a file the input is read with (a WebGraph graph's .properties or .offsets,
// an edge file's .known sidecar) would destroy the input as well: refused like one onto GRAPH,
// by tricount-count and tricount-partition, and the files are unchanged.
TEST(GraphInputData, OutputsOntoTheInputsCompanionFilesAreRefused) {
  const fs::path toy = fs::path(graphs_dir()).parent_path() / "webgraph" / "test";
  if (!fs::exists(toy.string() + ".graph")) GTEST_SKIP() << "no " << toy.string() << ".graph: " << fetch_graphs_hint();
  TempDir dir;
  for (const char* ext : {".graph", ".properties"}) fs::copy_file(toy.string() + ext, dir.file(std::string("test") + ext));
  const std::string base = dir.file("test"), edges = dir.file("e.txt");
  { std::ofstream(edges) << "0 1\n1 2\n2 0\n"; }
  { std::ofstream(edges + ".known") << "triangles 1\n"; }
  const std::string partition = (fs::path(prog()).parent_path() / "tricount-partition").string();
  const std::vector<std::vector<std::string>> runs = {
      {prog(), base + ".graph", "--save-blocks", base + ".properties", "--backend", "cpu"},
      {prog(), base + ".graph", "--save-blocks", base + ".offsets", "--backend", "cpu"},
      {prog(), base + ".graph", "--json", base + ".properties", "--backend", "cpu"},
      {prog(), edges, "--save-blocks", edges + ".known", "--backend", "cpu"},
      {partition, "--input", base + ".graph", "--output", base + ".offsets"},
      {partition, "--input", base + ".properties", "--output", base + ".graph"},
      {partition, "--input", edges, "--output", edges + ".known"}};
  for (const auto& args : runs) {
    const ProcessResult r = run_process(args, 120);
    EXPECT_EQ(r.exit_code, 2) << args[2] << " " << args[4] << ": " << describe(r);
    EXPECT_TRUE(contains(r.err, "is the same file as a file") && contains(r.err, "writing it would destroy that file")) << r.err;
  }
  EXPECT_FALSE(fs::exists(base + ".offsets"));
  EXPECT_EQ(read_file(edges + ".known"), "triangles 1\n");
  const ProcessResult still = run_process({prog(), base, "--json", "-", "--backend", "cpu"}, 120);
  ASSERT_EQ(still.exit_code, 0) << describe(still);
  EXPECT_EQ(json_uint(still.out, "triangles"), 2u);
}

// The README's quick start: the SNAP Facebook graph, 1,612,010 triangles.
TEST(GraphInputData, FacebookAsInTheReadme) {
  const std::string fb = graphs_dir() + "/facebook_combined.txt";
  if (!fs::exists(fb)) GTEST_SKIP() << "no " << fb << ": " << fetch_graphs_hint();
  const ProcessResult r = run_process({prog(), fb}, 300);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "tricount: 1612010 triangles | 4039 vertices, 88234 edges | 1 part, 1 split, 1 task | 1 rank"))
      << r.out;
}

}  // namespace
