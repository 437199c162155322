// tricount-simulate --load-path (issue 29): without it the static predictions are the earlier
// model's, digit for digit; --plan picks forward where the shared file system is the
// bottleneck and file where a file system of its own outruns the network; bad values are
// usage errors naming the flag.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace tricount {
namespace {

using namespace tricount::testing;

std::string model() { return source_dir() + "/bench/results/cost-model-h200-v2/model_all.json"; }

ProcessResult simulate(std::vector<std::string> args) {
  args.insert(args.begin(), bin_dir() + "/tricount-simulate");
  return run_process(args, 120);
}

// The static table of the earlier model (main 1f54848, before --load-path and packed
// blocks), at these settings: unchanged when no new flag is given but CSR blocks.
TEST(SimulateLoadPath, WithoutItTheStaticPredictionIsTheEarlierOne) {
  const ProcessResult r = simulate({"--model", model(), "--kronecker-scale", "24", "--parts", "4", "--gpus", "1,6,12,48",
                                    "--schedule", "static", "--gpu-memory", "2G", "--block-encoding", "csr"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (const char* line : {
           "      1        0.5410      1.000        0.2144        0.7554      1.000      1.000            1.323   yes      1.000\n",
           "      6        0.0902      1.000        0.3635        0.4536      0.278      1.000            1.158   yes      0.260\n",
           "     12        0.0451      1.000        0.2596        0.3047      0.207      1.000            0.827   yes      0.163\n",
           "     48        0.0113      1.000        0.1298        0.1411      0.112      1.000            0.413   yes      0.071\n"})
    EXPECT_TRUE(contains(r.out, line)) << "expected\n" << line << "in\n" << r.out;
  EXPECT_FALSE(contains(r.out, "Load phase by path")) << r.out;
}

std::string planned_path(const ProcessResult& r) {
  std::smatch m;
  std::regex_search(r.out, m, std::regex("^PLAN: .*; --load-path ([a-z]+)"));
  return m.empty() ? "" : std::string(m[1]);
}

TEST(SimulateLoadPath, PlanPicksForwardWhenTheFileSystemIsTheBottleneck) {
  const std::vector<std::string> plan = {"--plan", "--model", model(), "--kronecker-scale", "24", "--gpus", "24",
                                         "--gpu-memory", "1G", "--schedule", "static", "--load-path", "auto"};
  // 1. A slow shared file system: read each block once.
  std::vector<std::string> args = plan;
  args.insert(args.end(), {"--file-system", "20G"});
  const ProcessResult slow = simulate(args);
  ASSERT_EQ(slow.exit_code, 0) << describe(slow);
  EXPECT_EQ(planned_path(slow), "forward") << slow.out;
  EXPECT_TRUE(contains(slow.out, "Load phase by path")) << slow.out;
  EXPECT_TRUE(std::regex_search(slow.out, std::regex(R"(\n +24 +4 +forward\* )"))) << slow.out;
  // 2. A file system on a path of its own that outruns a slow network: every GPU reads its own.
  args = plan;
  args.insert(args.end(), {"--file-system-per-node", "1T", "--network", "1G"});
  const ProcessResult fast = simulate(args);
  ASSERT_EQ(fast.exit_code, 0) << describe(fast);
  EXPECT_EQ(planned_path(fast), "file") << fast.out;
  EXPECT_TRUE(std::regex_search(fast.out, std::regex(R"(\n +24 +4 +file\* )"))) << fast.out;
  // 3. A path given is the path planned.
  args = plan;
  args.back() = "file";
  args.insert(args.end(), {"--file-system", "20G"});
  const ProcessResult given = simulate(args);
  ASSERT_EQ(given.exit_code, 0) << describe(given);
  EXPECT_EQ(planned_path(given), "file") << given.out;
}

class SimulateLoadPathUsage : public ::testing::TestWithParam<UsageCase> {};

TEST_P(SimulateLoadPathUsage, ExitsTwoNamingTheFlag) { expect_usage_error(GetParam()); }

const std::vector<std::string> kStatic = {"--model", "MODEL", "--kronecker-scale", "20", "--parts", "4", "--gpus", "1"};
std::vector<std::string> with(std::vector<std::string> more, bool static_schedule = true) {
  std::vector<std::string> args = kStatic;
  args[1] = model();
  if (static_schedule) args.insert(args.end(), {"--schedule", "static"});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

const std::vector<UsageCase> kCases = {
    {"UnknownPath", "simulate", with({"--load-path", "nfs"}), "--load-path: 'nfs'"},
    {"PathWithDynamicSchedule", "simulate", with({"--load-path", "forward"}, false), "--load-path"},
    {"LatencyWithoutPath", "simulate", with({"--network-latency", "1e-6"}), "--network-latency"},
    {"NegativeLatency", "simulate", with({"--load-path", "forward", "--network-latency", "-1"}), "--network-latency"},
    {"LatencyNotANumber", "simulate", with({"--load-path", "forward", "--network-latency", "2us"}), "--network-latency"},
    {"BadIntraNode", "simulate", with({"--load-path", "forward", "--intra-node-bandwidth", "5X"}), "--intra-node-bandwidth"},
    {"ZeroNodeFileSystem", "simulate", with({"--load-path", "file", "--file-system-per-node", "0"}), "--file-system-per-node"},
    {"NodeFileSystemWithoutPath", "simulate", with({"--file-system-per-node", "10G"}), "--file-system-per-node"},
    {"ZeroGpusPerNode", "simulate", with({"--load-path", "forward", "--gpus-per-node", "0"}), "--gpus-per-node"},
};

INSTANTIATE_TEST_SUITE_P(cli, SimulateLoadPathUsage, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<UsageCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tricount
