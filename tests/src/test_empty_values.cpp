// Issue 32, item 14: an empty option value ("$UNSET") was taken as "no such option":
// tricount-count --per-vertex "" wrote no table and said nothing (exit 0). Every program now
// refuses an empty value with a usage error (exit 2) naming the option.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_support.hpp"

using namespace tricount::testing;

namespace {

struct EmptyCase {
  std::string program;
  std::vector<std::string> args;  // the option with "" comes last
  std::string option;
};

}  // namespace

TEST(EmptyOptionValues, AreRefusedByEveryProgram) {
  TempDir dir;
  const std::vector<EmptyCase> cases = {
      {"tricount-partition", {"--input", dir.file("g.txt"), "--output", ""}, "--output"},
      {"tricount-partition", {"--output", dir.file("g.h5"), "--input", ""}, "--input"},
      {"tricount-partition", {"--input", dir.file("g.txt"), "--output", dir.file("g.h5"), "--tmpdir", ""}, "--tmpdir"},
      {"tricount-generate", {"--kind", "grid3d", "--output", ""}, "--output"},
      {"tricount-simulate", {"--journal", ""}, "--journal"},
      {"tricount-simulate", {"--journal", dir.file("j"), "--json", ""}, "--json"},
      {"tricount-simulate", {"--journal", dir.file("j"), "--fit", ""}, "--fit"},
      {"tricount-simulate", {"--kronecker-scale", "20", "--gpus", "1", "--parts", "2", "--model", ""}, "--model"},
  };
  for (const EmptyCase& c : cases) {
    SCOPED_TRACE(c.program + " " + c.option);
    std::vector<std::string> argv = {bin_dir() + "/" + c.program};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    const ProcessResult r = run_process(argv, 60);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_NE(r.err.find(c.program + ": error: " + c.option + " is given an empty value"), std::string::npos) << describe(r);
  }
}
