// Issue 31.2: tricount-count --per-vertex reads the degrees (and rank 0 the first input ids)
// on threads while the workers count. A corrupt block that read meets, as the count does, ends
// the run with the error naming the file and the block (exit 1, no hang), and leaves neither
// the table nor a temporary of it, at 1 and 3 ranks, with --per-vertex and --per-edge.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

constexpr double kTimeout = 120;

TEST(TablePiecesCli, ACorruptBlockReadAheadEndsTheRunAndLeavesNoTable) {
  TempDir dir;
  const std::string input = make_block_file(dir, 2, "corrupt.h5");
  corrupt_block_neighbors(input, {1, 0});
  const std::string tables = dir.file("tables");
  std::filesystem::create_directory(tables);
  for (const int ranks : {1, 3})
    for (const std::string option : {"--per-vertex", "--per-edge"})
      for (const std::string name : {"t.h5", "t.tsv"}) {
        const std::string where = option + " " + name + " at " + std::to_string(ranks) + " ranks";
        const ProcessResult r = run_process(
            mpi_command(ranks, bin_dir() + "/tricount-count",
                        {"--input", input, "--backend", "cpu", "--threads", "2", option, tables + "/" + name, "--quiet"}),
            kTimeout);
        EXPECT_FALSE(r.timed_out) << where << ": the job hung";
        EXPECT_EQ(r.exit_code, 1) << where << ": " << describe(r);
        EXPECT_TRUE(contains(r.err, input + "' block P(1,0): checksum mismatch (the file is corrupt)")) << where << ": "
                                                                                                          << describe(r);
        EXPECT_TRUE(std::filesystem::is_empty(tables)) << where << ": a table or a temporary was left";
      }
}

}  // namespace
