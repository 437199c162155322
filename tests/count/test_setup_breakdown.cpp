// Issue 27: where setup and start-up go, per rank, in --json (process start, the steps before
// the report's clock, setup's steps, the backend's creation on its own thread, tear-down), at
// 1, 2 and 3 ranks on the CPU backend; and a backend that cannot be created (created on its
// own thread since issue 27) still ends every rank with its clear error, without a hang.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "src/json.hpp"
#include "tests/test_support.hpp"
#include "worker/backend.hpp"

namespace {

using namespace tricount;
using namespace tricount::testing;

constexpr double kSlack = 1e-3;  // clocks read at different instants (and /proc's start time, to a tick)

const JsonValue& field(const JsonValue& object, const std::string& key, JsonValue::Kind kind) {
  return json_field(object, key, kind, "report", "a tricount-count report");
}

double seconds(const JsonValue& object, const std::string& key) {
  const double v = field(object, key, JsonValue::Number).number;
  EXPECT_GE(v, 0.0) << key;
  return v;
}

// Every key of `object` named in `keys` is a number >= 0; returns their sum.
double steps_sum(const JsonValue& object, const std::vector<std::string>& keys) {
  double sum = 0;
  for (const std::string& k : keys) sum += seconds(object, k);
  EXPECT_EQ(object.fields.size(), keys.size()) << "the steps are exactly the documented ones";
  return sum;
}

const std::vector<std::string> kStartSteps = {"before_main", "mpi_init", "launch_checks", "prepare_input"};
const std::vector<std::string> kSetupSteps = {"worker_comm", "check_input",  "share_identity", "open_file",
                                              "identity_check", "backend_wait", "node_window", "share_backend"};
const std::vector<std::string> kBackendSteps = {"device", "memory", "kernels"};

class SetupBreakdown : public ::testing::TestWithParam<int> {};

TEST_P(SetupBreakdown, EveryRankSaysWhereItsSetupWent) {
  const int ranks = GetParam();
  TempDir dir;
  const std::string h5 = make_block_file(dir, 2);
  const ProcessResult r = count_json(ranks, h5, {"--backend", "cpu", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const JsonValue report = parse_json(r.out, "stdout", "a tricount-count report");

  // 1. The report's own clock: setup and total as before, and what came before total.
  const JsonValue& secs = field(report, "seconds", JsonValue::Object);
  const double setup = seconds(secs, "setup");
  const double total = seconds(secs, "total");
  EXPECT_LE(setup, total);
  seconds(secs, "process_start");

  // 2. Per rank: the steps, each >= 0, their sums within what holds them.
  const JsonValue& per_rank = field(report, "per_rank", JsonValue::Array);
  ASSERT_EQ(per_rank.items.size(), static_cast<std::size_t>(ranks));
  for (const JsonValue& rank : per_rank.items) {
    SCOPED_TRACE("rank " + field(rank, "rank", JsonValue::Number).text);
    const bool worker = field(rank, "role", JsonValue::String).text != "scheduler";
    const double process_start = seconds(rank, "process_start_seconds");
    const double rank_setup = seconds(rank, "setup_seconds");
    const double start_sum = steps_sum(field(rank, "start_steps_seconds", JsonValue::Object), kStartSteps);
    EXPECT_LE(start_sum, process_start + kSlack);
    EXPECT_GT(seconds(field(rank, "start_steps_seconds", JsonValue::Object), "mpi_init"), 0.0);
    const JsonValue& setup_steps = field(rank, "setup_steps_seconds", JsonValue::Object);
    EXPECT_LE(steps_sum(setup_steps, kSetupSteps), rank_setup + kSlack);
    const double backend = seconds(rank, "backend_seconds");
    EXPECT_LE(steps_sum(field(rank, "backend_steps_seconds", JsonValue::Object), kBackendSteps), backend + kSlack);
    seconds(rank, "teardown_seconds");
    if (worker) {
      EXPECT_GT(backend, 0.0);
      EXPECT_GT(seconds(rank, "first_task_seconds"), 0.0);
      if (ranks > 1) {
        EXPECT_GT(seconds(setup_steps, "open_file"), 0.0) << "every worker opens the file (one rank: in step 1)";
      }
    } else {
      EXPECT_EQ(backend, 0.0);
      EXPECT_EQ(seconds(rank, "first_task_seconds"), 0.0);
    }
    // The existing per-rank keys stay.
    seconds(rank, "load_seconds");
    field(rank, "load_steps_seconds", JsonValue::Object);
    // The upload rate's bytes: none on the CPU backend (its transfer_seconds are 0 too).
    EXPECT_EQ(field(rank, "bytes_transferred", JsonValue::Number).number, 0.0);
  }
  // The report's setup is rank 0's.
  EXPECT_EQ(field(per_rank.items.front(), "setup_seconds", JsonValue::Number).number, setup);

  // 3. The named timers: min <= mean <= max for each.
  const JsonValue& timers = field(report, "timers", JsonValue::Object);
  auto check_timer = [&](const JsonValue& t, const std::string& name) {
    SCOPED_TRACE("timer " + name);
    const double lo = seconds(t, "min"), mean = seconds(t, "mean"), hi = seconds(t, "max");
    EXPECT_LE(lo, mean + 1e-12);
    EXPECT_LE(mean, hi + 1e-12);
  };
  for (const char* name : {"process_start", "setup", "backend", "first_task", "teardown", "load", "count"})
    check_timer(field(timers, name, JsonValue::Object), name);
  for (const auto& [group, keys] : {std::pair{"start_steps", kStartSteps}, std::pair{"setup_steps", kSetupSteps},
                                    std::pair{"backend_steps", kBackendSteps}}) {
    const JsonValue& steps = field(timers, group, JsonValue::Object);
    EXPECT_EQ(steps.fields.size(), keys.size()) << group;
    for (const std::string& k : keys) check_timer(field(steps, k, JsonValue::Object), std::string(group) + "." + k);
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, SetupBreakdown, ::testing::Values(1, 2, 3),
                         [](const auto& info) { return "np" + std::to_string(info.param); });

// A backend that cannot be created fails on its own thread; every rank still ends with the
// same clear error and exit code 1, and none waits for another.
class FailingBackend : public ::testing::TestWithParam<int> {};

TEST_P(FailingBackend, GivesItsErrorOnEveryRankWithoutAHang) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA GPU is available; --backend cuda would succeed";
  TempDir dir;
  const std::string h5 = make_block_file(dir, 2);
  const std::string json = dir.file("report.json");
  const ProcessResult r =
      run_process(mpi_command(GetParam(), bin_path("tricount-count"), {h5, "--backend", "cuda", "--json", json}), 120);
  ASSERT_FALSE(r.timed_out) << describe(r);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "tricount-count: error:")) << describe(r);
  // This build has no CUDA backend, or this machine no GPU: either is said.
  EXPECT_TRUE(contains(r.err, "--backend cuda: this build of tricount has no CUDA backend") ||
              contains(r.err, "--backend cuda: no CUDA GPU is visible"))
      << describe(r);
  if (GetParam() > 1) {
    EXPECT_TRUE(contains(r.err, "rank 1: --backend cuda")) << describe(r);
  }
  EXPECT_FALSE(std::filesystem::exists(json)) << "no report for a count that did not run";
}

INSTANTIATE_TEST_SUITE_P(Ranks, FailingBackend, ::testing::Values(1, 3),
                         [](const auto& info) { return "np" + std::to_string(info.param); });

}  // namespace
