// bench/validate_cost_model.sh (issue 21): a device call returns only a few files, so every
// run's journals, reports, block-file shapes and log must come back in one archive, also when
// its time limit stops it before any count. Runs the script on a tiny Kronecker graph with
// the CPU backend standing in for the GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/test_support.hpp"

namespace tricount {
namespace {

using namespace testing;

std::string script() {
  return source_dir() + "/bench/validate_cost_model.sh";
}

// Runs the script with WORK and OUT in `dir`, then lists its archive (empty when there is none).
std::string run_and_list(const TempDir& dir, const std::string& stop_after, ProcessResult* result) {
  *result = run_process({"/usr/bin/env", "BUILD=" + bin_dir(), "TOOL=" + bin_dir() + "/../tests/cost_model_tool",
                         "WORK=" + dir.file("work"), "OUT=" + dir.file("out"), "TAG=t", "GPU_BACKEND=cpu", "CORES=2",
                         "PARTS=2", "SPLITS=1 2", "STOP_AFTER_S=" + stop_after, "bash", script(), "gpu:10", "sample:9"},
                        300);
  const std::string archive = dir.file("out/validate-t.tgz");
  if (!std::filesystem::exists(archive)) return "";
  return run_process({"tar", "tzf", archive}).out;
}

TEST(ValidateScript, PacksJournalsReportsAndShapesOfEveryCount) {
  TempDir dir;
  ProcessResult r;
  const std::string list = run_and_list(dir, "600", &r);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (const char* f : {"./log.txt", "./journal/k10_n2_m1.journal", "./journal/k10_n2_m2.journal", "./report/k10_n2_m1.json",
                        "./report/k10_n2_m2.json", "./shape/k10_n2.json", "./shape/k9_n2.json"})
    EXPECT_NE(list.find(f), std::string::npos) << f << " is not in the archive:\n" << list;
  EXPECT_EQ(list.find(".h5"), std::string::npos) << "a block file was packed:\n" << list;
}

TEST(ValidateScript, StoppedByItsTimeLimitStillPacksTheArchive) {
  TempDir dir;
  ProcessResult r;
  const std::string list = run_and_list(dir, "0", &r);
  EXPECT_NE(list.find("./log.txt"), std::string::npos) << describe(r) << list;
  EXPECT_NE(list.find("./shape/k10_n2.json"), std::string::npos) << list;
  EXPECT_EQ(list.find(".journal"), std::string::npos) << "a count started past the time limit:\n" << list;
  EXPECT_NE(r.out.find("time limit"), std::string::npos) << describe(r);
}

}  // namespace
}  // namespace tricount
