// A working rank bound to one core of several (issue 33): tricount-count warns, saying what
// to pass; unbound runs say nothing. Needs a machine of two cores or more.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "count/launch_checks.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount::testing;


class LaunchWarning : public ::testing::Test {
 protected:
  void SetUp() override {
    if (tricount::core_binding().usable < 2)
      GTEST_SKIP() << "this process may use one core only: a rank cannot be bound to fewer than it has";
    const std::string txt = dir_.file("g.txt");
    write_text_edges(txt, random_graph(500, 3000, 3));
    h5_ = dir_.file("g.h5");
    const ProcessResult r =
        run_process({bin_dir() + "/tricount-partition", "--input", txt, "--output", h5_, "--quiet"}, 120);
    ASSERT_EQ(r.exit_code, 0) << describe(r);
  }
  TempDir dir_;
  std::string h5_;
};

TEST_F(LaunchWarning, TasksetToOneCore) {
  if (!fs::exists("/usr/bin/taskset")) GTEST_SKIP() << "no /usr/bin/taskset";
  const ProcessResult r =
      run_process({"/usr/bin/taskset", "-c", "0", bin_dir() + "/tricount-count", h5_, "--backend", "cpu"}, 120);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "tricount-count: warning: rank 0 may run on only 1 of the node's")) << r.err;
  EXPECT_TRUE(contains(r.err, "give it more cores")) << r.err;
}

TEST_F(LaunchWarning, MpiexecBindToCoreNamesBindToNone) {
  // Open MPI binds to a core at two ranks or fewer; asked for explicitly here.
  const ProcessResult r = run_process({mpiexec(), "-np", "2", "--bind-to", "core", bin_dir() + "/tricount-count", h5_,
                                       "--backend", "cpu"},
                                      120);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "warning: rank 1 may run on only 1 of the node's")) << r.err;
  EXPECT_TRUE(contains(r.err, "pass --bind-to none (scripts/mpi-env sets it)")) << r.err;
}

TEST_F(LaunchWarning, UnboundRunsSayNothing) {
  const ProcessResult one = run_process({bin_dir() + "/tricount-count", h5_, "--backend", "cpu"}, 120);
  ASSERT_EQ(one.exit_code, 0) << describe(one);
  EXPECT_FALSE(contains(one.err, "warning")) << one.err;
  const ProcessResult two = run_process({mpiexec(), "-np", "2", "--bind-to", "none", bin_dir() + "/tricount-count", h5_,
                                         "--backend", "cpu"},
                                        120);
  ASSERT_EQ(two.exit_code, 0) << describe(two);
  EXPECT_FALSE(contains(two.err, "warning")) << two.err;
}

}  // namespace
