// tricount-count's GPU start beside MPI_Init (count/setup_times.hpp, early_gpu_rank): which
// processes start the driver and whose GPU context they create, from the launcher's
// variables and the arguments alone.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "count/setup_times.hpp"

using namespace tricount;

namespace {

const std::vector<std::string> kLauncherVariables = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK",       "SLURM_PROCID",
                                                     "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS",    "OMPI_COMM_WORLD_LOCAL_RANK",
                                                     "MPI_LOCALRANKID",      "SLURM_LOCALID"};

// Sets exactly `values` among the launcher's variables for the test's duration.
class LauncherEnv {
 public:
  explicit LauncherEnv(const std::map<std::string, std::string>& values) {
    for (const std::string& name : kLauncherVariables) {
      if (const char* v = std::getenv(name.c_str())) saved_[name] = v;
      ::unsetenv(name.c_str());
    }
    for (const auto& [name, value] : values) ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~LauncherEnv() {
    for (const std::string& name : kLauncherVariables) ::unsetenv(name.c_str());
    for (const auto& [name, value] : saved_) ::setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  std::map<std::string, std::string> saved_;
};

std::optional<int> decide(std::vector<std::string> args) {
  args.insert(args.begin(), "tricount-count");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return early_gpu_rank(static_cast<int>(argv.size()), argv.data());
}

}  // namespace

TEST(EarlyGpu, AProcessAloneStartsGpuZero) {
  LauncherEnv env({});
  EXPECT_EQ(decide({"g.h5"}), std::optional<int>(0));
}

TEST(EarlyGpu, WorkersOfMpirunStartTheirNodeLocalRanksGpu) {
  {
    LauncherEnv env({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "5"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "3"}});
    EXPECT_EQ(decide({"g.h5"}), std::optional<int>(3));
  }
  {
    LauncherEnv env({{"SLURM_PROCID", "6"}, {"SLURM_NTASKS", "9"}, {"SLURM_LOCALID", "2"}});
    EXPECT_EQ(decide({"g.h5"}), std::optional<int>(2));
  }
}

TEST(EarlyGpu, TheSchedulerOfSeveralRanksStartsNothing) {
  LauncherEnv env({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "5"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "0"}});
  EXPECT_EQ(decide({"g.h5"}), std::nullopt);
}

TEST(EarlyGpu, RankZeroOfOneCountsAndStartsItsGpu) {
  LauncherEnv env({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "1"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "0"}});
  EXPECT_EQ(decide({"g.h5"}), std::optional<int>(0));
}

TEST(EarlyGpu, TheCpuBackendStartsNothing) {
  LauncherEnv env({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "3"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}});
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"g.h5", "--backend", "cpu"}, {"--backend=cpu", "g.h5"}, {"-b", "cpu", "g.h5"}, {"-bcpu", "g.h5"}})
    EXPECT_EQ(decide(args), std::nullopt) << args[0];
  EXPECT_EQ(decide({"g.h5", "--backend", "cuda"}), std::optional<int>(1));
}

TEST(EarlyGpu, WithoutALocalRankOnlyTheDriverStarts) {
  LauncherEnv env({{"PMIX_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "4"}});
  EXPECT_EQ(decide({"g.h5"}), std::optional<int>(-1));
}
