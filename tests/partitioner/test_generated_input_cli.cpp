// tricount-partition --input KIND:PARAMETERS through the real programs: the block file equals
// tricount-generate's file partitioned (every kind), with the runs on disk under
// --memory-budget/--tmpdir too; a Kronecker product's known count reaches tricount-count's
// summary and --verify; bad specs are usage errors (exit 2) naming the spec and what is
// wrong; a file that exists under a spec's name is read as that file.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "src/block_format.hpp"
#include "tests/partitioner/pipeline_checks.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount;
using namespace tricount::testing;

struct Kind {
  const char* spec;                        // tricount-partition --input
  std::vector<std::string> generate_args;  // the same graph through tricount-generate
  const char* file;                        // its file name (the format)
};

const Kind kKinds[] = {
    {"kronecker:11,edge-factor=8,seed=5", {"--kind", "kronecker", "--scale", "11", "--edge-factor", "8", "--seed", "5"}, "k.bin64"},
    {"uniform:vertices=2000,edges=30000,seed=4", {"--kind", "uniform", "--vertices", "2000", "--edges", "30000", "--seed", "4"}, "u.txt"},
    {"grid3d:nx=8,ny=6,nz=5", {"--kind", "grid3d", "--nx", "8", "--ny", "6", "--nz", "5"}, "g.bin32"},
    {"kronecker-product:K4+loops,star6+loops,cycle5+loops",
     {"--kind", "kronecker-product", "--factors", "K4+loops,star6+loops,cycle5+loops"}, "p.bin32"},
};

ProcessResult partition(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {bin_path("tricount-partition")};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, kProgramTimeout);
}

}  // namespace

TEST(cliGeneratedInput, SameBlockFileAsGenerateThenPartition) {
  for (const Kind& k : kKinds) {
    SCOPED_TRACE(k.spec);
    TempDir dir;
    std::vector<std::string> g = k.generate_args;
    g.insert(g.end(), {"--output", dir.file(k.file)});
    const ProcessResult gen = run_generate(g);
    ASSERT_EQ(gen.exit_code, 0) << describe(gen);
    const ProcessResult from_file = run_partition(dir.file(k.file), dir.file("file.h5"), 2);
    ASSERT_EQ(from_file.exit_code, 0) << describe(from_file);
    const ProcessResult direct = partition({"--input", k.spec, "--output", dir.file("direct.h5"), "--parts", "2"});
    ASSERT_EQ(direct.exit_code, 0) << describe(direct);
    EXPECT_TRUE(contains(direct.out, std::string("partitioned ") + k.spec + ": ")) << direct.out;
    expect_same_blocks(dir.file("file.h5"), dir.file("direct.h5"), /*deep=*/true);
    BlockFileReader f(dir.file("file.h5")), d(dir.file("direct.h5"));
    EXPECT_EQ(d.header().known_triangles, f.header().known_triangles);
    EXPECT_EQ(d.header().source_size, 0u);
    EXPECT_TRUE(d.header().source_file.starts_with(std::string(k.spec).substr(0, std::string(k.spec).find(':') + 1)))
        << d.header().source_file;
    // Nothing but the two block files and the generator's file(s) in the folder.
    EXPECT_EQ(temp_files(dir.path()), std::vector<std::string>{});
  }
}

// The runs on disk (--memory-budget 1M, --tmpdir): the same file, the temporary directory
// left empty, and the program says where the runs went.
TEST(cliGeneratedInput, RunsOnDiskUnderAMemoryBudget) {
  TempDir dir, tmp;
  // 2^17 input edges: 4 MiB of runs at 32 bytes an edge, more than half the budget.
  ASSERT_EQ(run_generate({"--kind", "kronecker", "--scale", "13", "--output", dir.file("k.bin64")}).exit_code, 0);
  ASSERT_EQ(run_partition(dir.file("k.bin64"), dir.file("file.h5"), 3).exit_code, 0);
  const ProcessResult direct = partition({"--input", "kronecker:13", "--output", dir.file("direct.h5"), "--parts", "3",
                                          "--memory-budget", "1M", "--tmpdir", tmp.path(), "--threads", "2"});
  ASSERT_EQ(direct.exit_code, 0) << describe(direct);
  EXPECT_TRUE(contains(direct.err, "runs on disk: budget ")) << direct.err;
  expect_same_blocks(dir.file("file.h5"), dir.file("direct.h5"), /*deep=*/false);
  EXPECT_TRUE(entries(tmp.path()).empty()) << join(entries(tmp.path()));
}

TEST(cliGeneratedInput, KnownCountReachesTheCount) {
  TempDir dir;
  const Kind& k = kKinds[3];
  const ProcessResult p = partition({"--input", k.spec, "--output", dir.file("p.h5"), "--parts", "2"});
  ASSERT_EQ(p.exit_code, 0) << describe(p);
  ASSERT_TRUE(contains(p.out, "known triangle count ")) << p.out;
  const std::string known = p.out.substr(p.out.find("known triangle count ") + 21);
  const std::string triangles = known.substr(0, known.find(' '));
  EXPECT_TRUE(contains(p.out, "known triangle count " + triangles + " from the generator (in closed form)")) << p.out;
  for (const int ranks : {1, 2}) {
    const ProcessResult c = mpi_count(ranks, {"--input", dir.file("p.h5"), "--threads", "1", "--verify"});
    ASSERT_EQ(c.exit_code, 0) << describe(c);
    EXPECT_TRUE(contains(c.out, "tricount: " + triangles + " triangles |")) << c.out;
    EXPECT_TRUE(contains(c.out, "| matches the known count")) << c.out;
    EXPECT_TRUE(contains(c.out, "verified: the independent counter agrees (" + triangles + ")")) << c.out;
  }
}

// A file named like a spec is that file when it exists (here in the working directory); a
// spec needs no file and a missing one is not looked for.
TEST(cliGeneratedInput, AnExistingFileNamedLikeASpecIsReadAsAFile) {
  TempDir dir;
  write_file(dir.file("kronecker:5"), "0 1\n1 2\n2 0\n");
  const std::string cd = "cd '" + dir.path() + "' && exec '" + bin_path("tricount-partition") + "' ";
  const ProcessResult file = run_process({"/bin/sh", "-c", cd + "--input kronecker:5 --output f.h5"}, kProgramTimeout);
  ASSERT_EQ(file.exit_code, 0) << describe(file);
  EXPECT_EQ(BlockFileReader(dir.file("f.h5")).header().edges, 3u);
  EXPECT_EQ(BlockFileReader(dir.file("f.h5")).header().source_file, "kronecker:5");
  EXPECT_GT(BlockFileReader(dir.file("f.h5")).header().source_size, 0u);
  const ProcessResult spec = run_process({"/bin/sh", "-c", cd + "--input kronecker:6 --output g.h5"}, kProgramTimeout);
  ASSERT_EQ(spec.exit_code, 0) << describe(spec);
  EXPECT_EQ(BlockFileReader(dir.file("g.h5")).header().input_edges, std::uint64_t{16} << 6);
  EXPECT_EQ(BlockFileReader(dir.file("g.h5")).header().source_file, "kronecker:scale=6,edge-factor=16,seed=1");
}

// ------------------------------------------------------------------------------------
// Bad specs: exit 2, "tricount-partition: error: --input 'SPEC': ..." saying what is wrong.

class Usage : public ::testing::TestWithParam<UsageCase> {};

TEST_P(Usage, ExitsTwoWithMessage) { expect_usage_error(GetParam()); }

const std::vector<UsageCase> kUsageCases = {
    {"GeneratedEmpty", "partition", {"--input", "kronecker:", "--output", "OUT"}, "--input 'kronecker:': no parameters"},
    {"GeneratedScaleTooLarge", "partition", {"--input", "kronecker:99", "--output", "OUT"},
     "--input 'kronecker:99': scale must be at most 62"},
    {"GeneratedUnknownKind", "partition", {"--input", "kroneker:20", "--output", "OUT"},
     "'kroneker' is not a generator kind"},
    {"GeneratedUnknownParameter", "partition", {"--input", "uniform:10,bogus=2", "--output", "OUT"},
     "--input 'uniform:10,bogus=2': unknown parameter 'bogus'"},
    {"GeneratedParameterOfAnotherKind", "partition", {"--input", "grid3d:scale=4", "--output", "OUT"},
     "scale applies only to kronecker or uniform, not grid3d"},
    {"GeneratedNotANumber", "partition", {"--input", "grid3d:x", "--output", "OUT"},
     "--input 'grid3d:x': grid-side: 'x' is not a non-negative integer"},
    {"GeneratedBadFactor", "partition", {"--input", "kronecker-product:K0", "--output", "OUT"},
     "--input 'kronecker-product:K0': factors: 'K0'"},
    {"GeneratedThreads", "partition", {"--input", "kronecker:10,threads=2", "--output", "OUT"},
     "tricount-partition's --threads"},
    {"GeneratedWithFormat", "partition", {"--input", "kronecker:10", "--output", "OUT", "--format", "bin64"},
     "--format bin64 applies to files; 'kronecker:10' is a generator input"},
};

INSTANTIATE_TEST_SUITE_P(cli, Usage, ::testing::ValuesIn(kUsageCases),
                         [](const ::testing::TestParamInfo<UsageCase>& info) { return std::string(info.param.name); });
