// --version on every program, and `cmake --install` into a temporary prefix (issue 33):
// the installed programs run, the Slurm scripts, report.py and the documents are there.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount::testing;

const char* const kPrograms[] = {"tricount-generate", "tricount-partition", "tricount-count", "tricount-simulate"};

TEST(Version, EveryProgramPrintsItsNameVersionAndCommit) {
  for (const char* name : kPrograms) {
    const ProcessResult r = run_process({bin_dir() + "/" + name, "--version"}, 60);
    ASSERT_EQ(r.exit_code, 0) << name << ": " << describe(r);
    const std::string expected = std::string(name) + " " + TRICOUNT_VERSION + " (commit ";
    EXPECT_EQ(r.out.rfind(expected, 0), 0u) << name << ": " << r.out;
    EXPECT_EQ(r.out.back(), '\n');
    EXPECT_NE(r.out.find(")\n"), std::string::npos) << r.out;
    EXPECT_TRUE(r.err.empty()) << r.err;
  }
}

// --version wins over missing required options (tricount-partition needs --input and --output).
TEST(Version, NeedsNoOtherOption) {
  const ProcessResult r = run_process({bin_dir() + "/tricount-partition", "--version"}, 60);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
}

TEST(Install, IntoATemporaryPrefix) {
  TempDir prefix;
  const ProcessResult install =
      run_process({TRICOUNT_CMAKE_COMMAND, "--install", TRICOUNT_BUILD_DIR, "--prefix", prefix.path()}, 300);
  ASSERT_EQ(install.exit_code, 0) << "cmake --install (build every program first):\n" << describe(install);
  for (const char* name : kPrograms) {
    const std::string installed = prefix.path() + "/bin/" + name;
    ASSERT_TRUE(fs::exists(installed)) << installed;
    const ProcessResult r = run_process({installed, "--version"}, 60);
    EXPECT_EQ(r.exit_code, 0) << installed << ": " << describe(r);
    EXPECT_EQ(r.out.rfind(std::string(name) + " " + TRICOUNT_VERSION, 0), 0u) << r.out;
  }
  const std::string share = prefix.path() + "/share/tricount";
  for (const char* file : {"slurm/count.sbatch", "slurm/partition.sbatch", "slurm/study.sbatch", "slurm/lib.sh",
                           "slurm/gpu_select.sh", "slurm/report.py", "slurm/README.md", "scripts/mpi-env"})
    EXPECT_TRUE(fs::is_regular_file(share + "/" + file)) << share << "/" << file;
  EXPECT_TRUE(fs::is_regular_file(prefix.path() + "/bin/tricount-report"));
  for (const char* doc : {"README.md", "LICENSE", "CITATION.cff"})
    EXPECT_TRUE(fs::is_regular_file(prefix.path() + "/share/doc/tricount/" + doc)) << doc;
  // The installed count works from the prefix alone.
  const std::string txt = prefix.file("g.txt");
  write_text_edges(txt, complete_graph(6));
  const ProcessResult count = run_process({prefix.path() + "/bin/tricount-count", txt, "--json", "-", "--backend", "cpu"}, 120);
  ASSERT_EQ(count.exit_code, 0) << describe(count);
  EXPECT_EQ(json_uint(count.out, "triangles"), 20u);  // C(6, 3)
}

}  // namespace
