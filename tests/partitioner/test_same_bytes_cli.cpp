// A block file is a function of the graph and the options that shape it (--parts, --order),
// byte for byte: the same bytes whether the blocks are built whole or written in pieces,
// the runs held in memory or on disk, on 1 or 3 threads, and run after run (no object times
// are recorded). What lets several ranks write one process's file (test_partition_ranks_cli).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

TEST(SameBytes, WholeOrInPiecesInMemoryOrOnDiskAnyThreads) {
  TempDir dir;
  const std::string input = dir.file("k16.bin64");
  const ProcessResult g = run_generate({"--kind", "kronecker", "--scale", "16", "--output", input});
  ASSERT_EQ(g.exit_code, 0) << describe(g);
  // Packed too: a block in pieces is built in scratch files and packed from them.
  for (const std::string encoding : {"csr", "packed"})
  for (const char* parts : {"1", "3"}) {
    std::string first;
    const std::vector<std::vector<std::string>> ways = {
        {"--threads", "1"},
        {"--threads", "3"},
        {"--threads", "3"},  // again: nothing in the file depends on when it was written
        {"--threads", "3", "--runs-on-disk", "--memory-budget", "2M", "--tmpdir", dir.path()},  // some blocks in pieces
        {"--threads", "3", "--memory-budget", "2M", "--tmpdir", dir.path()},  // in pieces, runs held in memory if they fit
    };
    for (std::size_t w = 0; w < ways.size(); ++w) {
      const std::string out = dir.file("out" + encoding + std::string(parts) + "-" + std::to_string(w) + ".h5");
      std::vector<std::string> args = ways[w];
      args.insert(args.end(), {"--block-encoding", encoding});
      const ProcessResult r = run_partition(input, out, static_cast<std::uint32_t>(std::stoul(parts)), args);
      ASSERT_EQ(r.exit_code, 0) << describe(r);
      const std::string bytes = read_file(out);
      ASSERT_FALSE(bytes.empty());
      if (w == 0) {
        first = bytes;
      } else {
        EXPECT_TRUE(bytes == first) << encoding << " --parts " << parts << ", way " << w << " wrote other bytes";
      }
    }
  }
}
