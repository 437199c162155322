// tricount-generate through the real executable: --help and usage errors (exit 2), the same
// file at any thread count, output into a FIFO or past planted temporary symlinks, and no
// temporary left when it is stopped.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount::testing;

TEST(cliHelp, Generate) {
  expect_help(run_process({bin_path("tricount-generate"), "--help"}, kProgramTimeout),
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
      const ProcessResult r = run_generate({"--kind", kind, "--scale", "16", "--threads", t == 0 ? "1" : "4",
                                            "--output", files[t]});
      ASSERT_EQ(r.exit_code, 0) << describe(r);
    }
    EXPECT_EQ(read_file(files[0]).size(), std::size_t{16} * 16 << 16) << kind;
    EXPECT_TRUE(read_file(files[0]) == read_file(files[1])) << kind;
  }
}

// ------------------------------------------------------------------------------------
// Usage errors: exit 2, "PROGRAM: error: ..." naming the culprit.

class Usage : public ::testing::TestWithParam<UsageCase> {};

TEST_P(Usage, ExitsTwoWithMessage) { expect_usage_error(GetParam()); }

const std::vector<UsageCase> kUsageCases = {
    {"GenerateUnknownOption", "generate", {"--output", "OUT", "--bogus"}, "bogus"},
    {"GenerateBadKind", "generate", {"--output", "OUT", "--kind", "foo"}, "foo"},
    {"GenerateBadFormat", "generate", {"--output", "OUT", "--format", "xyz"}, "xyz"},
    {"GenerateScaleNotANumber", "generate", {"--output", "OUT", "--scale", "abc"}, "scale"},
    {"GenerateMissingOutput", "generate", {"--scale", "4"}, "output"},
};

INSTANTIATE_TEST_SUITE_P(cli, Usage, ::testing::ValuesIn(kUsageCases),
                         [](const ::testing::TestParamInfo<UsageCase>& info) { return std::string(info.param.name); });

// ------------------------------------------------------------------------------------
// Temporary files and targets that are not plain files (issue 14, items 10 to 14).

// A graph larger than its file system's free space is refused before any byte is written.
TEST(cliGenerate, AGraphTheDiskCannotHoldIsRefusedFirst) {
  TempDir dir;
  const std::string out = dir.file("huge.bin64");
  const ProcessResult r = run_generate({"--kind", "kronecker-product", "--factors", "K1024,K1024,K4", "--output", out});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "cannot write --output '" + out + "': the graph has ")) << describe(r);
  EXPECT_TRUE(contains(r.err, "GB free")) << describe(r);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "something was written";
}

TEST(cliOutputSafety, GeneratePlantedTempSymlinksAreNotFollowed) {
  TempDir dir;
  const std::string victim = dir.file("victim.txt");
  write_file(victim, "precious\n");
  plant_temp_symlinks(dir.file("g.txt"), victim, 50);
  const ProcessResult g = run_generate({"--kind", "grid3d", "--grid-side", "3", "--output", dir.file("g.txt")});
  EXPECT_EQ(g.exit_code, 0) << describe(g);
  EXPECT_EQ(read_file(victim), "precious\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir.file("g.txt"))));
}

// tricount-generate into a FIFO: the reader gets every edge, the FIFO stays.
TEST(cliOutputSafety, GenerateWritesIntoAFifo) {
  TempDir dir;
  ProcessResult reader;
  const std::string edges_fifo = dir.file("edges.fifo");
  ASSERT_EQ(::mkfifo(edges_fifo.c_str(), 0600), 0);
  std::thread read_edges([&] { reader = run_process({"cat", edges_fifo}, 120); });
  const ProcessResult gen = run_generate({"--kind", "grid3d", "--grid-side", "3", "--output", edges_fifo});
  read_edges.join();
  EXPECT_EQ(gen.exit_code, 0) << describe(gen);
  EXPECT_EQ(std::count(reader.out.begin(), reader.out.end(), '\n'), 54);
  ASSERT_TRUE(fs::is_fifo(fs::symlink_status(edges_fifo)));
}

TEST(cliOutputSafety, GenerateRemovesItsTemporaryOnSigterm) {
  TempDir dir;
  fs::create_directory(dir.file("out"));
  const std::string out = dir.file("out/big.txt");
  // Start a large graph, wait for its temporary, SIGTERM it.
  const std::string script = "'" + bin_path("tricount-generate") + "' --kind kronecker --scale 24 --output '" + out +
                             "' & pid=$!; for i in $(seq 1 3000); do ls '" + dir.file("out") +
                             "' | grep -q tmp && break; sleep 0.01; done; sleep 0.2; kill -TERM $pid; wait $pid; echo rc=$?";
  const ProcessResult r = run_process({"bash", "-c", script}, 120);
  EXPECT_TRUE(contains(r.out, "rc=143")) << describe(r);
  EXPECT_TRUE(contains(r.err, "tricount-generate: interrupted by SIGTERM")) << describe(r);
  EXPECT_TRUE(fs::is_empty(dir.file("out"))) << temp_files(dir.file("out")).size() << " files left";
}

}  // namespace
