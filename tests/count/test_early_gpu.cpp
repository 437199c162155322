// tricount-count's GPU start beside MPI_Init (count/setup_times.hpp, early_gpu_rank): which
// processes start the driver and whose GPU context they create, from the launcher's
// variables and the arguments alone; and the module loading it asks of the CUDA runtime.
#include <gtest/gtest.h>

#include <cstdlib>
#include <future>
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

// tricount-count's argv for `args`, which it points into (the program's name put first).
std::vector<char*> argv_of(std::vector<std::string>& args) {
  args.insert(args.begin(), "tricount-count");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return argv;
}

std::optional<int> decide(std::vector<std::string> args) {
  std::vector<char*> argv = argv_of(args);
  return early_gpu_rank(static_cast<int>(argv.size()), argv.data());
}

// CUDA_MODULE_LOADING after start_gpu_driver ran (and its thread ended) from `before`
// (nullptr: unset); "(unset)" where it is unset.
std::string module_loading_after(const char* before, std::vector<std::string> args) {
  if (before) ::setenv("CUDA_MODULE_LOADING", before, 1);
  else ::unsetenv("CUDA_MODULE_LOADING");
  std::vector<char*> argv = argv_of(args);
  {
    const std::future<bool> started = start_gpu_driver(static_cast<int>(argv.size()), argv.data());
    if (started.valid()) started.wait();
  }
  const char* after = std::getenv("CUDA_MODULE_LOADING");
  return after ? after : "(unset)";
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

// The backend's start touches every kernel: a process that starts the driver loads them with
// the context, unless the user chose otherwise; one that starts nothing leaves the variable.
TEST(EarlyGpu, TheDriverStartLoadsModulesEagerlyUnlessTheUserChose) {
  const char* saved = std::getenv("CUDA_MODULE_LOADING");
  const std::optional<std::string> user = saved ? std::optional<std::string>(saved) : std::nullopt;
  {
    LauncherEnv env({});
    EXPECT_EQ(module_loading_after(nullptr, {"g.h5"}), "EAGER");
    EXPECT_EQ(module_loading_after("LAZY", {"g.h5"}), "LAZY");
    EXPECT_EQ(module_loading_after(nullptr, {"g.h5", "--backend", "cpu"}), "(unset)");
  }
  {
    LauncherEnv env({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "5"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "0"}});
    EXPECT_EQ(module_loading_after(nullptr, {"g.h5"}), "(unset)");
  }
  if (user) ::setenv("CUDA_MODULE_LOADING", user->c_str(), 1);
  else ::unsetenv("CUDA_MODULE_LOADING");
}
