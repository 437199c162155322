// The Slurm job scripts (slurm/) against a real Slurm: each test process brings up a
// one-node cluster of its own (tests/slurm/cluster.sh: munged, slurmctld, slurmd in a
// temporary directory, own ports), submits the scripts with `sbatch --wait`, checks the
// counts, JSON reports and plots, and tears the cluster down again in TearDownTestSuite,
// also after a failed test (and a watchdog does it if the process dies before that).
// Without the slurm-wlm and munge packages the tests are skipped with the reason.
//
// The node is given 3 count-only "GPUs" (gres/gpu), so the scripts run as on a GPU
// cluster with 3 GPUs per node: 1 scheduler rank + up to 3 workers, on 2 cores
// (oversubscribed), with the CPU backend.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include "tests/test_support.hpp"

using namespace tricount::testing;
namespace fs = std::filesystem;

extern char** environ;

namespace {

std::string show(const ProcessResult& r) {
  return "exit " + std::to_string(r.exit_code) + (r.timed_out ? " (timed out)" : "") + "\n--- stdout:\n" + r.out +
         "\n--- stderr:\n" + r.err;
}

// Keys of the JSON text that occur at the top level of our reports ("triangles" comes before
// per_rank's).
std::uint64_t top_uint(const std::string& json, const std::string& key) { return json_uint(json, key); }

class Slurm : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // A test run inside a Slurm job must not hand that job's settings to our cluster, nor a
    // site's tricount settings to the scripts.
    std::vector<std::string> drop;
    for (char** e = environ; *e; ++e) {
      const std::string kv = *e;
      const std::string name = kv.substr(0, kv.find('='));
      if (name.rfind("SLURM_", 0) == 0 || name.rfind("SBATCH_", 0) == 0 || name.rfind("SALLOC_", 0) == 0 ||
          name.rfind("SRUN_", 0) == 0)
        drop.push_back(name);
    }
    for (const char* name : {"TRICOUNT_HOME", "TRICOUNT_BIN", "TRICOUNT_MODULES", "TRICOUNT_GPUS_PER_NODE",
                             "TRICOUNT_SRUN_MPI", "TRICOUNT_SRUN_ARGS", "TRICOUNT_CPUS_PER_RANK", "TRICOUNT_WORKERS",
                             "TRICOUNT_MEMORY_BUDGET", "TRICOUNT_MEMORY_RESERVE_PERCENT"})
      drop.push_back(name);
    for (const auto& name : drop) ::unsetenv(name.c_str());

    cluster_script_ = source_dir() + "/tests/slurm/cluster.sh";
    if (!fs::exists(cluster_script_)) {
      skip_reason_ = "cannot find " + cluster_script_ + " (set TRICOUNT_SOURCE_DIR)";
      return;
    }
    const ProcessResult check = run_process({"bash", cluster_script_, "check"}, 30);
    if (check.exit_code != 0) {
      skip_reason_ = "no Slurm on this machine: " + check.out + check.err;
      return;
    }
    dir_ = std::make_unique<TempDir>();
    // munged runs as the munge user and must reach its socket inside.
    fs::permissions(dir_->path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                      fs::perms::others_read | fs::perms::others_exec);
    cluster_dir_ = dir_->file("cluster");
    const ProcessResult up = run_process(
        {"bash", cluster_script_, "start", cluster_dir_, "3", "--owner", std::to_string(::getpid())}, 120);
    started_ = true;  // stop even a half-started cluster
    if (up.exit_code != 0) {
      start_error_ = "the test cluster did not come up: " + show(up);
      return;
    }
    ::setenv("SLURM_CONF", (cluster_dir_ + "/etc/slurm.conf").c_str(), 1);
    ::setenv("TRICOUNT_BIN", bin_dir().c_str(), 1);

    // The graph every test uses, and its count by one rank under mpiexec.
    work_ = dir_->file("work");
    fs::create_directories(work_);
    const auto gen = run_process({bin_dir() + "/tricount-generate", "--kind", "kronecker", "--scale", "12", "--output",
                                  work_ + "/k12.bin64"});
    const auto part = run_process({bin_dir() + "/tricount-partition", "--input", work_ + "/k12.bin64", "--output",
                                   work_ + "/k12.h5", "--parts", "2", "-q"});
    const auto one = run_process(mpi_command(1, bin_dir() + "/tricount-count",
                                             {"--input", work_ + "/k12.h5", "--backend", "cpu", "--json", "-", "-q"}));
    if (gen.exit_code != 0 || part.exit_code != 0 || one.exit_code != 0) {
      start_error_ = "cannot make the test graph: " + show(gen) + show(part) + show(one);
      return;
    }
    expected_ = top_uint(one.out, "triangles");
  }

  static void TearDownTestSuite() {
    if (started_) {
      const ProcessResult down = run_process({"bash", cluster_script_, "stop", cluster_dir_}, 120);
      if (down.exit_code != 0) std::fprintf(stderr, "test cluster teardown: %s\n", show(down).c_str());
      started_ = false;
    }
    dir_.reset();
  }

  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
    ASSERT_TRUE(start_error_.empty()) << start_error_;
    ASSERT_GT(expected_, 0u);
  }

  // sbatch --wait OPTIONS SCRIPT ARGS, run from the work folder; the job's output goes to
  // OUTPUT (returned in .out of the result, after sbatch's own).
  static ProcessResult sbatch(const std::vector<std::string>& options, const std::string& script,
                              const std::vector<std::string>& args, const std::string& output) {
    std::vector<std::string> cmd = {"sbatch", "--wait", "--chdir=" + work_, "--output=" + output};
    cmd.insert(cmd.end(), options.begin(), options.end());
    cmd.push_back(source_dir() + "/slurm/" + script);
    cmd.insert(cmd.end(), args.begin(), args.end());
    ProcessResult r = run_process(cmd, 150);
    r.out += "\n--- job output (" + output + "):\n" + read_file(output);
    if (r.exit_code != 0) {
      r.out += "\n--- slurmctld.log (tail):\n";
      const std::string log = read_file(cluster_dir_ + "/log/slurmctld.log");
      r.out += log.substr(log.size() > 3000 ? log.size() - 3000 : 0);
    }
    return r;
  }

  static inline std::unique_ptr<TempDir> dir_;
  static inline std::string cluster_script_, cluster_dir_, work_, skip_reason_, start_error_;
  static inline bool started_ = false;
  static inline std::uint64_t expected_ = 0;
};

// The placement rule needs no cluster: the scheduler goes first, beside the first node's
// workers; worker w goes to node w / G.
TEST(SlurmScripts, LayoutPutsTheSchedulerBesideTheFirstNodesWorkers) {
  const std::string lib = source_dir() + "/slurm/lib.sh";
  ASSERT_TRUE(fs::exists(lib)) << lib;
  auto layout = [&](const std::string& args) {
    return run_process({"bash", "-c", "set -euo pipefail; . '" + lib + "'; tricount_layout " + args + " | paste -sd' '"}, 30);
  };
  // Summit: 6 GPUs per node, 8 workers on 2 nodes -> 7 ranks on the first, 2 on the second.
  auto r = layout("6 8 n1 n2 n3");
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_EQ(r.out, "n1 n1 n1 n1 n1 n1 n1 n2 n2\n");
  r = layout("6 12 n1 n2");
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_EQ(r.out, "n1 n1 n1 n1 n1 n1 n1 n2 n2 n2 n2 n2 n2\n");
  r = layout("3 1 vm");
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_EQ(r.out, "vm vm\n");
  // More workers than the nodes' GPUs: refused, naming the shortfall.
  r = layout("6 13 n1 n2");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("need 3 nodes"), std::string::npos) << show(r);
}

// With Slurm binding a GPU to every task (TRICOUNT_GPU_BIND=closest) the scheduler holds one
// of the first node's GPU slots: worker w goes to node (w + 1) / G.
TEST(SlurmScripts, LayoutWithClosestBindingGivesTheSchedulerAGpuSlot) {
  const std::string lib = source_dir() + "/slurm/lib.sh";
  auto layout = [&](const std::string& bind, const std::string& args) {
    return run_process({"bash", "-c", "set -euo pipefail; . '" + lib + "'; TRICOUNT_GPU_BIND=" + bind +
                                          " tricount_layout " + args + " | paste -sd' '"},
                       30);
  };
  auto r = layout("closest", "6 8 n1 n2");
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_EQ(r.out, "n1 n1 n1 n1 n1 n1 n2 n2 n2\n");
  r = layout("closest", "3 2 vm");
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_EQ(r.out, "vm vm vm\n");
  r = layout("closest", "6 12 n1 n2");  // 13 slots on 12 GPUs
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("need 3 nodes (closest binding)"), std::string::npos) << show(r);
  r = layout("none", "6 12 n1 n2");
  ASSERT_EQ(r.exit_code, 0) << show(r);
  r = layout("single", "6 1 n1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("TRICOUNT_GPU_BIND='single' is not none or closest"), std::string::npos) << show(r);
}

// Without binding, each worker narrows CUDA_VISIBLE_DEVICES to one GPU from SLURM_LOCALID
// (less the scheduler on the first node); the scheduler is left alone.
TEST(SlurmScripts, GpuSelectPicksEachWorkersGpuFromItsLocalId) {
  const std::string wrapper = source_dir() + "/slurm/gpu_select.sh";
  auto visible = [&](const std::string& env) {
    const ProcessResult r = run_process(
        {"bash", "-c", "env -u CUDA_VISIBLE_DEVICES " + env + " bash '" + wrapper + "' bash -c 'echo ${CUDA_VISIBLE_DEVICES-unset}'"}, 30);
    EXPECT_EQ(r.exit_code, 0) << show(r);
    return r.out;
  };
  EXPECT_EQ(visible("SLURM_PROCID=0 SLURM_NODEID=0 SLURM_LOCALID=0"), "unset\n");  // the scheduler
  EXPECT_EQ(visible("SLURM_PROCID=1 SLURM_NODEID=0 SLURM_LOCALID=1"), "0\n");
  EXPECT_EQ(visible("SLURM_PROCID=3 SLURM_NODEID=0 SLURM_LOCALID=3 CUDA_VISIBLE_DEVICES=4,5,6"), "6\n");
  EXPECT_EQ(visible("SLURM_PROCID=7 SLURM_NODEID=1 SLURM_LOCALID=0 CUDA_VISIBLE_DEVICES=NoDevFiles"), "0\n");
  EXPECT_EQ(visible("SLURM_PROCID=8 SLURM_NODEID=1 SLURM_LOCALID=5"), "5\n");
  const ProcessResult outside = run_process({"bash", "-c", "env -u SLURM_LOCALID bash '" + wrapper + "' true"}, 30);
  EXPECT_NE(outside.exit_code, 0);
  EXPECT_NE(outside.err.find("runs under srun"), std::string::npos) << show(outside);
}

TEST_F(Slurm, CountScriptWithClosestGpuBinding) {
  const std::string json = work_ + "/count-closest.json", log = work_ + "/count-closest.out";
  const ProcessResult r = sbatch({"--gpus-per-node=3", "--export=ALL,TRICOUNT_GPU_BIND=closest,TRICOUNT_WORKERS=2"},
                                 "count.sbatch", {work_ + "/k12.h5", "--backend", "cpu", "--threads", "1", "--json", json}, log);
  ASSERT_EQ(r.exit_code, 0) << show(r);
  const std::string report = read_file(json);
  EXPECT_EQ(top_uint(report, "triangles"), expected_);
  EXPECT_EQ(top_uint(report, "workers"), 2u);
  const std::string out = read_file(log);
  EXPECT_NE(out.find("GPU binding closest"), std::string::npos) << out;
  EXPECT_NE(out.find("--gpus-per-task=1 --gpu-bind=closest"), std::string::npos) << out;
}

// --plan-model: tricount-simulate --plan chooses the parts of the generated graph; --stage:
// the block file is counted from a node-local copy (sbcast), removed at the end.
TEST_F(Slurm, StudyPlansThePartsAndStagesTheGraph) {
  const std::string results = work_ + "/study-plan", log = work_ + "/study-plan.out", stage = work_ + "/nvme";
  const std::string model = work_ + "/model.json";
  std::ofstream(model) << R"({"tricount_cost_model": 1, "backend": "cpu", "device": "test", "storage": "page cache",
    "task_overhead_seconds": 0.001, "seconds_per_work": 1e-8, "seconds_per_row": 0, "count_r2": 0.9,
    "count_total_relative_error": 0.05, "load_seconds_per_byte": 1e-9, "upload_seconds_per_byte": 0, "tasks_fitted": 10,
    "calibrated_on": ["hand-written for the test"],
    "kronecker": {"fitted": true, "scales": [12, 14], "log2_vertices": {"intercept": -0.5, "slope": 0.95},
                  "log2_edges": {"intercept": 3.5, "slope": 1.0}, "log2_total_work": {"intercept": 2.0, "slope": 1.5},
                  "max_task_over_mean": 1.1}})";
  const ProcessResult r = sbatch({"--gpus-per-node=3", "--export=ALL,TRICOUNT_STAGE_DIR=" + stage}, "study.sbatch",
                                 {"--generate", "kronecker:scale=12", "--plan-model", model, "--gpu-memory", "200K",
                                  "--stage", "--gpus", "1,3", "--repeats", "1", "--no-predict", "--results", results,
                                  "--", "--backend", "cpu", "--threads", "1"},
                                 log);
  ASSERT_EQ(r.exit_code, 0) << show(r);
  const std::string plan = read_file(results + "/plan.txt");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(plan, m, std::regex("PLAN: --parts ([0-9]+) --workload-splits ([0-9]+)"))) << plan;
  EXPECT_NE(plan.find("PREDICTED"), std::string::npos) << plan;
  const std::string parts = m[1], splits = m[2];
  EXPECT_GT(std::stoi(parts), 2) << plan;  // 200K of GPU memory does not hold a scale-12 triple at n = 2
  const std::string study = read_file(results + "/study.json");
  EXPECT_NE(study.find("\"status\": \"complete\""), std::string::npos) << study;
  EXPECT_NE(study.find("\"workload_splits\": " + splits + ","), std::string::npos) << study;
  EXPECT_NE(study.find(stage + "/tricount-"), std::string::npos) << study;  // counted from the staged copy
  EXPECT_EQ(top_uint(study, "triangles"), expected_);
  for (const auto& entry : fs::directory_iterator(results + "/runs"))
    if (entry.path().extension() == ".json") EXPECT_EQ(top_uint(read_file(entry.path().string()), "parts"), std::stoul(parts));
  EXPECT_TRUE(fs::is_empty(stage)) << "the staged copy must be removed";
  EXPECT_NE(read_file(log).find("staged "), std::string::npos) << read_file(log);
}

TEST_F(Slurm, CountScriptRunsOneSchedulerAndOneWorkerPerGpu) {
  const std::string json = work_ + "/count.json", log = work_ + "/count.out";
  const ProcessResult r = sbatch({"--gpus-per-node=3"}, "count.sbatch",
                                 {work_ + "/k12.h5", "--backend", "cpu", "--threads", "1", "--json", json}, log);
  ASSERT_EQ(r.exit_code, 0) << show(r);
  const std::string report = read_file(json);
  ASSERT_FALSE(report.empty()) << show(r);
  EXPECT_EQ(top_uint(report, "triangles"), expected_);
  EXPECT_EQ(top_uint(report, "ranks"), 4u);  // 1 scheduler + 3 GPUs
  EXPECT_EQ(top_uint(report, "workers"), 3u);
  EXPECT_NE(report.find("\"role\": \"scheduler\""), std::string::npos) << report;
  EXPECT_NE(report.find("\"backend\": \"cpu\""), std::string::npos) << report;
  // The script's account of the step: the GPU count came from --gpus-per-node, and the
  // scheduler shares the node with the workers.
  const std::string out = read_file(log);
  EXPECT_NE(out.find("3 GPUs per node, 3 workers"), std::string::npos) << out;
  EXPECT_NE(out.find("1 scheduler + 3 workers on 1 node(s)"), std::string::npos) << out;
  EXPECT_NE(out.find("tricount: " + std::to_string(expected_) + " triangles"), std::string::npos) << out;
}

TEST_F(Slurm, PartitionScriptWritesTheBlockFile) {
  const std::string h5 = work_ + "/k12p3.h5", log = work_ + "/partition.out";
  const ProcessResult r = sbatch({}, "partition.sbatch", {work_ + "/k12.bin64", h5, "--parts", "3"}, log);
  ASSERT_EQ(r.exit_code, 0) << show(r);
  ASSERT_TRUE(fs::exists(h5)) << show(r);
  const std::string out = read_file(log);
  // --memory-budget from the allocation where tricount-partition has the option; else the
  // log says it was left out.
  const auto help = run_process({bin_dir() + "/tricount-partition", "--help"});
  if (help.out.find("--memory-budget") != std::string::npos)
    EXPECT_NE(out.find("memory budget: --memory-budget "), std::string::npos) << out;
  else
    EXPECT_NE(out.find("tricount-partition has no --memory-budget option; not passed"), std::string::npos) << out;
  EXPECT_NE(out.find("--threads"), std::string::npos) << out;
  const auto count = run_process(mpi_command(1, bin_dir() + "/tricount-count",
                                             {"--input", h5, "--backend", "cpu", "--json", "-", "-q"}));
  ASSERT_EQ(count.exit_code, 0) << show(count);
  EXPECT_EQ(top_uint(count.out, "triangles"), expected_);
  EXPECT_EQ(top_uint(count.out, "parts"), 3u);
}

// Two ranks on the node (sbatch --ntasks-per-node=2): the script starts them with srun, and
// they write the file one process writes, byte for byte (issue 30).
TEST_F(Slurm, PartitionScriptOnTwoRanks) {
  const std::string one = work_ + "/k12p3-one.h5", two = work_ + "/k12p3-two.h5", log = work_ + "/partition2.out";
  const auto single = run_process({bin_dir() + "/tricount-partition", "--input", work_ + "/k12.bin64", "--output", one,
                                   "--parts", "3", "-q"});
  ASSERT_EQ(single.exit_code, 0) << show(single);
  const ProcessResult r = sbatch({"--ntasks-per-node=2"}, "partition.sbatch", {work_ + "/k12.bin64", two, "--parts", "3"}, log);
  ASSERT_EQ(r.exit_code, 0) << show(r);
  const std::string out = read_file(log);
  EXPECT_NE(out.find("2 ranks on 1 node(s)"), std::string::npos) << out;
  EXPECT_NE(out.find("on 2 ranks"), std::string::npos) << out;
  EXPECT_NE(out.find("2 rank(s) per node"), std::string::npos) << out;
  ASSERT_TRUE(fs::exists(two)) << out;
  EXPECT_TRUE(read_file(one) == read_file(two)) << "2 ranks under srun wrote another file than one process";
}

// A python3 that has matplotlib: the one on PATH, else Debian's.
std::string python_with_matplotlib() {
  for (const std::string py : {"python3", "/usr/bin/python3"})
    if (run_process({py, "-c", "import matplotlib"}, 60).exit_code == 0) return py;
  return "";
}

// report.py on a study folder with one damaged JSON file (no cluster needed): an error naming
// the file, no Python traceback, and nothing written into the report folder.
TEST(SlurmScripts, ReportNamesADamagedJsonFileAndWritesNothing) {
  TempDir dir;
  const std::string results = dir.file("study"), runs = results + "/runs";
  fs::create_directories(runs);
  auto run_json = [](int workers, const std::string& seconds) {
    return "{\"triangles\": 7, \"workers\": " + std::to_string(workers) + ", \"imbalance\": 1.1, \"seconds\": " + seconds +
           ", \"backend\": \"cpu\", \"parts\": 1}";
  };
  const std::string good_seconds = "{\"total\": 1.0, \"count\": 0.5, \"schedule\": 0.6}";
  auto put = [](const std::string& path, const std::string& text) { std::ofstream(path) << text; };
  put(runs + "/w0001-r01.json", run_json(1, good_seconds));
  put(runs + "/w0002-r01.json", run_json(2, good_seconds));
  const struct {
    std::string file, text;
  } damage[] = {{runs + "/w0003-r01.json", "null"},
                {runs + "/w0003-r01.json", "{\"triangles\": 7, \"seconds\": " + good_seconds + "}"},
                {runs + "/w0003-r01.json", run_json(3, "null")},
                {runs + "/w0003-r01.json", run_json(0, good_seconds)},
                {results + "/prediction.json", "[]"},
                {results + "/prediction.json", "{\"points\": [{\"workers\": 4, \"predicted_seconds\": null}]}"},
                {results + "/study.json", "[1]"},
                {results + "/study.json", "{\"nodes\": [1, 2]}"}};
  for (const auto& d : damage) {
    put(d.file, d.text);
    const ProcessResult r = run_process({"python3", source_dir() + "/slurm/report.py", results}, 120);
    EXPECT_EQ(r.exit_code, 1) << d.file << " " << d.text << ": " << show(r);
    EXPECT_TRUE(r.err.find("report.py: error: " + d.file + ": ") != std::string::npos) << d.text << ": " << r.err;
    EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(results + "/report")) << d.text;
    fs::remove(d.file);
  }
  put(dir.file("taken"), "mine\n");
  const ProcessResult r = run_process({"python3", source_dir() + "/slurm/report.py", results, "--out", dir.file("taken")}, 120);
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_TRUE(r.err.find("is a file, not a folder") != std::string::npos) << r.err;
  EXPECT_EQ(read_file(dir.file("taken")), "mine\n");
}

TEST_F(Slurm, ScalingStudyAndReport) {
  const std::string results = work_ + "/study", log = work_ + "/study.out";
  // No --gpus: 1, 2 and the allocation's 3, each twice; the graph from a generator spec. The
  // default backend (the CPU's here) and --gpu-memory: every run counts the 2-part file as
  // --count-parts auto does on such GPUs at the largest predicted size, as one part.
  const ProcessResult r = sbatch({"--gpus-per-node=3"}, "study.sbatch",
                                 {"--generate", "kronecker:scale=12", "--parts", "2", "--repeats", "2", "--gpu-memory", "64G",
                                  "--results", results, "--", "--threads", "1"},
                                 log);
  ASSERT_EQ(r.exit_code, 0) << show(r);

  const std::string study = read_file(results + "/study.json");
  EXPECT_NE(study.find("\"status\": \"complete\""), std::string::npos) << study;
  EXPECT_NE(study.find("\"sizes\": [1,2,3]"), std::string::npos) << study;
  EXPECT_NE(study.find("\"predicted_sizes\": [4,8,16,24]"), std::string::npos) << study;
  EXPECT_EQ(top_uint(study, "triangles"), expected_);  // the generator is deterministic

  // Every run's report, at every size, with the same count and the same tasks.
  std::multiset<std::uint64_t> workers;
  std::set<std::uint64_t> tasks;
  for (const auto& entry : fs::directory_iterator(results + "/runs")) {
    if (entry.path().extension() != ".json") continue;
    const std::string run = read_file(entry.path().string());
    EXPECT_EQ(top_uint(run, "triangles"), expected_) << entry.path();
    const std::uint64_t w = top_uint(run, "workers");
    EXPECT_EQ(top_uint(run, "ranks"), w + 1) << entry.path();
    const std::string name = entry.path().filename().string();
    EXPECT_EQ(name.substr(0, 5), "w000" + std::to_string(w)) << name;
    workers.insert(w);
    tasks.insert(top_uint(run, "tasks"));
  }
  EXPECT_EQ(workers, (std::multiset<std::uint64_t>{1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(tasks.size(), 1u) << "every run must do the same tasks";
  EXPECT_NE(study.find("\"--count-parts\",\"1\""), std::string::npos) << study;
  for (const auto& entry : fs::directory_iterator(results + "/runs"))
    if (entry.path().extension() == ".json") {
      EXPECT_EQ(top_uint(read_file(entry.path().string()), "count_parts"), 1u) << entry.path();
      EXPECT_EQ(top_uint(read_file(entry.path().string()), "parts"), 2u) << entry.path();
    }

  // The journal run and the simulator's predictions for the measured and larger sizes.
  EXPECT_TRUE(fs::exists(results + "/journal/journal.txt"));
  const std::string prediction = read_file(results + "/prediction.json");
  EXPECT_NE(prediction.find("\"prediction\": true"), std::string::npos) << prediction;
  for (int w : {1, 2, 3, 4, 8, 16, 24})
    EXPECT_NE(prediction.find("\"workers\": " + std::to_string(w) + ","), std::string::npos) << w << prediction;

  // The report: table, CSV and plots.
  const std::string py = python_with_matplotlib();
  if (py.empty()) GTEST_SKIP() << "the study passed; the report needs python3-matplotlib, which is not installed";
  const ProcessResult rep = run_process({py, source_dir() + "/slurm/report.py", results}, 120);
  ASSERT_EQ(rep.exit_code, 0) << show(rep);
  const std::string md = read_file(results + "/report/scaling.md");
  // The runs counted on the CPU backend: the report counts workers, not GPUs (issue 33).
  EXPECT_NE(md.find("| workers | kind |"), std::string::npos) << md;
  EXPECT_EQ(md.find("GPU"), std::string::npos) << md;
  EXPECT_NE(md.find("*predicted*"), std::string::npos) << md;
  EXPECT_NE(md.find(std::to_string(expected_) + " triangles"), std::string::npos) << md;
  const std::string csv = read_file(results + "/report/scaling.csv");
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line.rfind("workers,kind,runs,time_median_s,time_min_s,time_max_s,speedup,efficiency,imbalance", 0), 0u) << line;
  std::vector<std::string> rows;
  while (std::getline(lines, line))
    if (!line.empty()) rows.push_back(line.substr(0, line.find(',', line.find(',') + 1)));
  EXPECT_EQ(rows, (std::vector<std::string>{"1,measured", "2,measured", "3,measured", "4,predicted", "8,predicted",
                                            "16,predicted", "24,predicted"}))
      << csv;
  EXPECT_NE(csv.find("\n1,measured,2,"), std::string::npos) << csv;  // two runs at one GPU, speedup 1 there
  for (const std::string png : {"scaling", "time", "speedup", "efficiency", "imbalance"}) {
    const std::string bytes = read_file(results + "/report/" + png + ".png");
    ASSERT_GT(bytes.size(), 10000u) << png;
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << png;
  }
}

}  // namespace
