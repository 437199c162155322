// tricount-count through the real executable under mpiexec: a generate -> partition ->
// count round trip against the independent reference counter, --help and usage errors
// (exit 2), damaged or foreign block files (exit 1 naming the file), the job's shape and
// backend, the JSON report, output paths that name an input, and report targets that are
// not plain files (FIFOs, symlinks, /dev/null, /dev/full, /dev/stdout).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "tests/reference_counter.hpp"
#include "tests/test_support.hpp"
#include "worker/backend.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount::testing;

// ------------------------------------------------------------------------------------
// Round trip: generate -> partition -> count, at every (ranks, parts, splits) that does
// not leave a worker without a task, against the reference counter.

using RoundTripParam = std::tuple<int, std::uint32_t, std::uint32_t>;  // ranks, parts, splits

class RoundTrip : public ::testing::TestWithParam<RoundTripParam> {};

TEST_P(RoundTrip, KroneckerScale10MatchesReference) {
  const auto [ranks, parts, splits] = GetParam();
  TempDir dir;
  const std::string txt = dir.file("kron10.txt");
  const ProcessResult gen = run_generate({"--kind", "kronecker", "--scale", "10", "--output", txt});
  ASSERT_EQ(gen.exit_code, 0) << describe(gen);
  const EdgePairs edges = read_text_edges(txt);
  ASSERT_GT(edges.size(), 1000u);

  // What the report should say: the reference's own normalisation.
  std::set<std::pair<std::uint64_t, std::uint64_t>> undirected;
  std::set<std::uint64_t> vertices;
  for (auto [a, b] : edges) {
    if (a == b) continue;
    undirected.insert(a < b ? std::pair(a, b) : std::pair(b, a));
    vertices.insert(a);
    vertices.insert(b);
  }
  const std::uint64_t expected = tricount::reference::count_triangles(edges);
  ASSERT_GT(expected, 0u);

  const std::string h5 = dir.file("kron10.h5");
  const ProcessResult part = run_partition(txt, h5, parts);
  ASSERT_EQ(part.exit_code, 0) << describe(part);

  const ProcessResult c = count_json(ranks, h5, {"--workload-splits", std::to_string(splits)});
  ASSERT_EQ(c.exit_code, 0) << describe(c);
  EXPECT_EQ(json_uint(c.out, "triangles"), expected) << "ranks " << ranks << ", parts " << parts << ", splits " << splits;
  EXPECT_EQ(json_uint(c.out, "vertices"), vertices.size());
  EXPECT_EQ(json_uint(c.out, "edges"), undirected.size());
  EXPECT_EQ(json_uint(c.out, "parts"), parts);
  EXPECT_EQ(json_uint(c.out, "workload_splits"), splits);
  EXPECT_EQ(json_uint(c.out, "tasks"), std::uint64_t(parts) * parts * parts * splits);
  EXPECT_EQ(json_uint(c.out, "ranks"), std::uint64_t(ranks));
  EXPECT_EQ(json_uint(c.out, "workers"), std::uint64_t(ranks == 1 ? 1 : ranks - 1));
}

std::vector<RoundTripParam> round_trip_params() {
  std::vector<RoundTripParam> out;
  for (int ranks : {1, 2, 3})
    for (std::uint32_t parts : {1u, 2u, 3u})
      for (std::uint32_t splits : {1u, 2u, 3u}) {
        const std::uint64_t workers = ranks == 1 ? 1 : ranks - 1;
        if (workers <= std::uint64_t(parts) * parts * parts * splits) out.emplace_back(ranks, parts, splits);
      }
  return out;
}

INSTANTIATE_TEST_SUITE_P(cli, RoundTrip, ::testing::ValuesIn(round_trip_params()),
                         [](const ::testing::TestParamInfo<RoundTripParam>& info) {
                           return "ranks" + std::to_string(std::get<0>(info.param)) + "_parts" +
                                  std::to_string(std::get<1>(info.param)) + "_splits" +
                                  std::to_string(std::get<2>(info.param));
                         });

TEST(cliHelp, Count) {
  expect_help(mpi_count(1, {"--help"}),
              {"input", "workload-splits", "backend", "threads", "cta-threshold", "chunk-size", "cache-size",
               "allow-idle-workers", "journal", "resume", "no-prefetch", "json", "quiet", "test-fault-at-task",
               "test-crash", "cuda-tuning", "help"});
}

// ------------------------------------------------------------------------------------
// Usage errors: exit 2, "PROGRAM: error: ..." naming the culprit.

class Usage : public ::testing::TestWithParam<UsageCase> {};

TEST_P(Usage, ExitsTwoWithMessage) { expect_usage_error(GetParam()); }

const std::vector<UsageCase> kUsageCases = {
    {"CountUnknownOption", "count", {"--input", "x.h5", "--bogus"}, "bogus"},
    {"CountBadBackend", "count", {"--input", "x.h5", "--backend", "foo"}, "foo"},
    {"CountSplitsZero", "count", {"--input", "x.h5", "--workload-splits", "0"}, "workload-splits"},
    {"CountSplitsNotANumber", "count", {"--input", "x.h5", "--workload-splits", "abc"}, "workload-splits"},
    // An option that effectively hung (minutes of empty tasks, memory without end): bounded,
    // with what to use instead.
    {"CountSplitsTooMany", "count", {"--input", "x.h5", "--workload-splits", "1048576"}, "use auto"},
    {"CountBadCacheSize", "count", {"--input", "x.h5", "--cache-size", "4Q"}, "cache-size"},
    {"CountCudaTuningUnknownKey", "count", {"--input", "x.h5", "--cuda-tuning", "bitmap-words=8,warp-lane=8"}, "warp-lane"},
    {"CountCudaTuningBadValue", "count", {"--input", "x.h5", "--cuda-tuning", "v-side=3"}, "v-side='3'"},
    {"CountCudaTuningNotANumber", "count", {"--input", "x.h5", "--cuda-tuning", "buckets-log2=two"}, "buckets-log2"},
    {"CountMissingInput", "count", {"--backend", "cpu"}, "input"},
};

INSTANTIATE_TEST_SUITE_P(cli, Usage, ::testing::ValuesIn(kUsageCases),
                         [](const ::testing::TestParamInfo<UsageCase>& info) { return std::string(info.param.name); });

// ------------------------------------------------------------------------------------
// Bad block files given to tricount-count: exit 1, message naming the file.

void expect_count_fails(const std::string& h5, const std::vector<std::string>& also = {}) {
  const ProcessResult r = mpi_count(1, {"--input", h5});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "tricount-count: error:")) << describe(r);
  EXPECT_TRUE(contains(r.err, h5)) << "message does not name '" << h5 << "'\n" << describe(r);
  for (const auto& s : also) EXPECT_TRUE(contains(r.err, s)) << "message does not mention '" << s << "'\n" << describe(r);
}

TEST(cliBadBlockFile, Missing) {
  TempDir dir;
  expect_count_fails(dir.file("nothing.h5"));
}

TEST(cliBadBlockFile, NotHdf5) {
  TempDir dir;
  const std::string path = dir.file("edges.h5");
  write_file(path, "1 2\n2 3\n3 1\n");
  expect_count_fails(path, {"HDF5"});
}

TEST(cliBadBlockFile, Truncated) {
  TempDir dir;
  const std::string good = make_block_file(dir, 2);
  const std::string cut = dir.file("cut.h5");
  fs::copy_file(good, cut);
  fs::resize_file(cut, fs::file_size(good) / 2);
  expect_count_fails(cut);
}

TEST(cliBadBlockFile, WrittenByAnotherProgram) {
  TempDir dir;
  const std::string path = dir.file("foreign.h5");
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hsize_t dims[1] = {10};
  const hid_t space = H5Screate_simple(1, dims, nullptr);
  const hid_t set = H5Dcreate2(f, "data", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(set, 0);
  const int values[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  ASSERT_GE(H5Dwrite(set, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), 0);
  H5Dclose(set);
  H5Sclose(space);
  ASSERT_GE(H5Fclose(f), 0);
  expect_count_fails(path);
}

// A copy of `good` at `path` whose uint64 root attribute `name` reads `value`.
void copy_with_root_attribute(const std::string& good, const std::string& path, const char* name,
                              std::uint64_t value) {
  fs::copy_file(good, path);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t attr = H5Aopen(f, name, H5P_DEFAULT);
  ASSERT_GE(attr, 0);
  ASSERT_GE(H5Awrite(attr, H5T_NATIVE_UINT64, &value), 0);
  H5Aclose(attr);
  ASSERT_GE(H5Fclose(f), 0);
}

TEST(cliBadBlockFile, OtherFormatVersion) {
  TempDir dir;
  const std::string good = make_block_file(dir, 2);
  const std::string path = dir.file("future.h5");
  copy_with_root_attribute(good, path, "format_version", 999);
  expect_count_fails(path, {"999"});
}

// A crafted parts attribute used 6.3 GB for a minute before failing; now refused at once.
TEST(cliBadBlockFile, PartsBeyondTheFileSize) {
  TempDir dir;
  const std::string good = make_block_file(dir, 1);
  const std::string path = dir.file("parts.h5");
  copy_with_root_attribute(good, path, "parts", 20000);
  expect_count_fails(path, {"20000 parts", "corrupt"});
}

// Block groups swapped by hand were counted under their new names, a wrong count that
// --verify (reading the same blocks) agreed with; an edited graph_checksum went unseen.
TEST(cliBadBlockFile, SwappedBlocksOrAnEditedGraphChecksum) {
  TempDir dir;
  const std::string good = make_block_file(dir, 3);
  const std::string swapped = dir.file("swapped.h5");
  fs::copy_file(good, swapped);
  swap_block_groups(swapped, {1, 2}, {2, 1});
  const ProcessResult r = mpi_count(1, {"--input", swapped, "--verify"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "tricount-count: error: '" + swapped + "' block P(1,2) says row_class 2, col_class 1"))
      << describe(r);
  EXPECT_FALSE(contains(r.out, "verified")) << describe(r);
  const std::string checksum = dir.file("checksum.h5");
  copy_with_root_attribute(good, checksum, "graph_checksum", 1);
  expect_count_fails(checksum, {"graph_checksum 1 is not the digest of the blocks' checksums"});
}

// An attribute stored as an array (as h5py writes a list) crashed the count and the
// simulator (SIGSEGV), or cut the message short (a string array); now one clear error.
TEST(cliBadBlockFile, AttributeStoredAsAnArray) {
  TempDir dir;
  const std::string good = make_block_file(dir, 2);
  const std::vector<std::tuple<const char*, std::uint64_t>> cases = {
      {"parts", 2}, {"edges", 2}, {"format_version", 2}, {"vertices", 1000}, {"format", 2}};
  for (const auto& [name, count] : cases) {
    SCOPED_TRACE(name);
    const std::string path = dir.file(std::string(name) + ".h5");
    fs::copy_file(good, path);
    make_attribute_an_array(path, "/", name, count);
    const std::string says = std::string("attribute '") + name + "' holds " + std::to_string(count) + " values, not one";
    expect_count_fails(path, {says, "re-run tricount-partition"});
    const ProcessResult sim =
        run_process({bin_path("tricount-simulate"), "--auto-splits", "--input", path, "--gpus", "4"}, kProgramTimeout);
    EXPECT_EQ(sim.exit_code, 1) << describe(sim);
    EXPECT_TRUE(contains(sim.err, says)) << describe(sim);
  }
}

TEST(cliBadBlockFile, EdgeListGivenToCount) {
  // An edge list given to tricount-count is partitioned first (issue 33), no longer refused.
  TempDir dir;
  const std::string path = dir.file("graph.txt");
  write_text_edges(path, complete_graph(5));
  const ProcessResult r = count_json(1, path);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(json_uint(r.out, "triangles"), 10u);  // C(5,3)
}

// ------------------------------------------------------------------------------------
// Job shape and backend.

TEST(cliCount, MoreWorkersThanTasksIsUsageError) {
  TempDir dir;
  const std::string h5 = make_block_file(dir, 1);
  // 3 ranks = 2 workers, 1 part and 1 split = 1 task.
  const ProcessResult r = mpi_count(3, {"--input", h5, "--workload-splits", "1"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "tasks")) << describe(r);
}

TEST(cliCount, AllowIdleWorkers) {
  TempDir dir;
  const std::string txt = dir.file("k6.txt");
  write_text_edges(txt, complete_graph(6));
  const std::string h5 = dir.file("k6.h5");
  ASSERT_EQ(run_partition(txt, h5, 1).exit_code, 0);
  const ProcessResult r = count_json(3, h5, {"--allow-idle-workers"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(json_uint(r.out, "triangles"), 20u);  // C(6,3)
}

// "All cores" means the cores the process may use: a run pinned to one core (as mpirun
// binds ranks by default) counts with one CPU thread, not one per core of the machine.
TEST(cliCount, DefaultThreadsFollowTheCpuSet) {
  if (!std::filesystem::exists("/usr/bin/taskset")) GTEST_SKIP() << "no /usr/bin/taskset";
  TempDir dir;
  const std::string h5 = make_block_file(dir, 1);
  const ProcessResult r =
      run_process({"/usr/bin/taskset", "-c", "0", bin_path("tricount-count"), "--input", h5, "--backend", "cpu", "--json", "-"}, 120);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "\"1 CPU threads\"")) << describe(r);
}

TEST(cliCount, CudaBackendWithoutGpu) {
  if (tricount::cuda_available()) GTEST_SKIP() << "a CUDA GPU is available; --backend cuda would succeed";
  TempDir dir;
  const std::string h5 = make_block_file(dir, 1);
  const ProcessResult r = mpi_count(1, {"--input", h5, "--backend", "cuda"});
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "tricount-count: error:")) << describe(r);
  EXPECT_TRUE(contains(r.err, "cuda") || contains(r.err, "CUDA")) << describe(r);
}

// ------------------------------------------------------------------------------------
// Output files.

// The body of the JSON object that follows "key": (from '{' to its matching '}').
std::string json_object(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\"");
  if (at == std::string::npos) return "";
  const auto open = json.find('{', at);
  if (open == std::string::npos) return "";
  int depth = 0;
  for (std::size_t p = open; p < json.size(); ++p) {
    if (json[p] == '{') ++depth;
    if (json[p] == '}' && --depth == 0) return json.substr(open, p - open + 1);
  }
  return "";
}

TEST(cliOutput, JsonReportToFile) {
  TempDir dir;
  const std::string txt = dir.file("k5.txt");
  write_text_edges(txt, complete_graph(5));
  const std::string h5 = dir.file("k5.h5");
  ASSERT_EQ(run_partition(txt, h5, 2).exit_code, 0);
  fs::create_directory(dir.file("report"));
  const std::string json_path = dir.file("report/out.json");
  const ProcessResult r = mpi_count(3, {"--input", h5, "--json", json_path, "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  ASSERT_TRUE(fs::is_regular_file(json_path));
  const std::string json = read_file(json_path);
  for (const char* key : {"triangles", "vertices", "edges", "parts", "ranks", "backend", "seconds"})
    EXPECT_TRUE(contains(json, std::string("\"") + key + "\"")) << "no \"" << key << "\" in:\n" << json;
  EXPECT_EQ(json_uint(json, "triangles"), 10u);  // C(5,3)
  EXPECT_EQ(json_uint(json, "vertices"), 5u);
  EXPECT_EQ(json_uint(json, "edges"), 10u);
  EXPECT_EQ(json_uint(json, "parts"), 2u);
  EXPECT_EQ(json_uint(json, "ranks"), 3u);
  const std::string seconds = json_object(json, "seconds");
  ASSERT_FALSE(seconds.empty()) << json;
  for (const char* key : {"load", "count", "total"})
    EXPECT_TRUE(contains(seconds, std::string("\"") + key + "\"")) << "no seconds." << key << " in:\n" << seconds;
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json[json.find_last_not_of("\n ")], '}');
  EXPECT_TRUE(temp_files(dir.file("report")).empty());
  // Without --quiet the summary line goes to stdout when the JSON goes to a file.
  EXPECT_TRUE(contains(r.out, "10 triangles")) << describe(r);
}

// ------------------------------------------------------------------------------------
// Output paths that name an input (issue 14, item 4): refused before any work, nothing lost.

TEST(cliOutputSafety, JsonOntoTheInputIsRefused) {
  TempDir dir;
  const std::string h5 = make_block_file(dir, 2);
  const std::string before = read_file(h5);
  fs::create_symlink(h5, dir.file("link.h5"));
  fs::create_hard_link(h5, dir.file("hard.h5"));
  for (const std::string& json : {h5, dir.file("link.h5"), dir.file("hard.h5")}) {
    const ProcessResult r = mpi_count(1, {"--input", h5, "--json", json, "--threads", "1"});
    EXPECT_EQ(r.exit_code, 2) << json << describe(r);
    EXPECT_TRUE(contains(r.err, "tricount-count: error: --json '" + json + "' is the same file as --input")) << describe(r);
    EXPECT_TRUE(read_file(h5) == before) << "the block file was changed by --json " << json;
  }
  EXPECT_TRUE(fs::is_symlink(dir.file("link.h5")));
  // Through the symlink as the input, too.
  const ProcessResult r = mpi_count(1, {"--input", dir.file("link.h5"), "--json", h5, "--threads", "1"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(read_file(h5) == before);
  const ProcessResult ok = count_json(1, h5);
  EXPECT_EQ(ok.exit_code, 0) << describe(ok);
}

TEST(cliOutputSafety, JsonOntoTheJournalIsRefused) {
  TempDir dir;
  const std::string h5 = make_block_file(dir, 2);
  const std::string journal = dir.file("run.journal");
  const ProcessResult r = mpi_count(1, {"--input", h5, "--journal", journal, "--json", journal, "--threads", "1"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "--json '" + journal + "' is the same file as --journal")) << describe(r);
  const ProcessResult onto_input = mpi_count(1, {"--input", h5, "--journal", h5, "--threads", "1"});
  EXPECT_EQ(onto_input.exit_code, 2) << describe(onto_input);
  EXPECT_TRUE(contains(onto_input.err, "--journal '" + h5 + "' is the same file as --input")) << describe(onto_input);
}

// ------------------------------------------------------------------------------------
// Temporary files and targets that are not plain files (issue 14, items 10 to 14).

TEST(cliOutputSafety, PlantedTempSymlinksAreNotFollowed) {
  TempDir dir;
  const std::string h5 = make_block_file(dir, 2);
  const std::string victim = dir.file("victim.txt");
  write_file(victim, "precious\n");
  plant_temp_symlinks(dir.file("r.json"), victim, 400);
  const ProcessResult c = mpi_count(1, {"--input", h5, "--json", dir.file("r.json"), "--threads", "1", "--quiet"});
  EXPECT_EQ(c.exit_code, 0) << describe(c);
  EXPECT_EQ(read_file(victim), "precious\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir.file("r.json"))));
  EXPECT_EQ(json_uint(read_file(dir.file("r.json")), "triangles"), 1276u);
}

TEST(cliOutputSafety, DevicesFifosAndSymlinksAreWrittenNotReplaced) {
  TempDir dir;
  const std::string h5 = make_block_file(dir, 2);
  // A FIFO we made: the reader gets the report, the FIFO stays. First, so that a program that
  // replaces special files is stopped here, before it is given the real /dev/null.
  const std::string fifo = dir.file("report.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ProcessResult reader;
  std::thread read_fifo([&] { reader = run_process({"cat", fifo}, 120); });
  const ProcessResult to_fifo = mpi_count(1, {"--input", h5, "--json", fifo, "--threads", "1"});
  read_fifo.join();
  EXPECT_EQ(to_fifo.exit_code, 0) << describe(to_fifo);
  EXPECT_EQ(json_uint(reader.out, "triangles"), 1276u) << describe(reader);
  ASSERT_TRUE(fs::is_fifo(fs::symlink_status(fifo))) << "the FIFO was replaced: not trying /dev/null and /dev/full";
  // A symlink we made: written through (the target gets the report), the link stays.
  fs::create_directory(dir.file("reports"));
  fs::create_symlink("reports/real.json", dir.file("link.json"));
  const ProcessResult link = mpi_count(1, {"--input", h5, "--json", dir.file("link.json"), "--threads", "1"});
  EXPECT_EQ(link.exit_code, 0) << describe(link);
  EXPECT_TRUE(fs::is_symlink(dir.file("link.json")));
  EXPECT_EQ(json_uint(read_file(dir.file("reports/real.json")), "triangles"), 1276u);
  EXPECT_TRUE(temp_files(dir.path()).empty());
  EXPECT_TRUE(temp_files(dir.file("reports")).empty());
  // /dev/null: written in place, still the device.
  const ProcessResult null = mpi_count(1, {"--input", h5, "--json", "/dev/null", "--threads", "1"});
  EXPECT_EQ(null.exit_code, 0) << describe(null);
  EXPECT_TRUE(device_intact("/dev/null", 3));
  // /dev/full: the write error is reported, the device stays.
  const ProcessResult full = mpi_count(1, {"--input", h5, "--json", "/dev/full", "--threads", "1"});
  EXPECT_EQ(full.exit_code, 1) << describe(full);
  EXPECT_TRUE(contains(full.err, "tricount-count: error: cannot write --json '/dev/full'")) << describe(full);
  EXPECT_TRUE(device_intact("/dev/full", 7));
  // /dev/stdout: the report on stdout, the summary on stderr.
  const ProcessResult out = mpi_count(1, {"--input", h5, "--json", "/dev/stdout", "--threads", "1"});
  EXPECT_EQ(out.exit_code, 0) << describe(out);
  EXPECT_EQ(json_uint(out.out, "triangles"), 1276u) << describe(out);
  EXPECT_TRUE(contains(out.err, "1276 triangles")) << describe(out);
}

TEST(cliOutputSafety, BadJsonPathIsFoundBeforeCounting) {
  TempDir dir;
  const std::string h5 = make_block_file(dir, 2);
  const std::string journal = dir.file("run.journal");  // a count that ran would leave records here
  for (const std::string& bad : {dir.file("no/such/dir/r.json"), dir.path()}) {
    const ProcessResult r = mpi_count(1, {"--input", h5, "--json", bad, "--journal", journal, "--threads", "1"});
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, "tricount-count: error: cannot write --json '" + bad + "'")) << describe(r);
    EXPECT_FALSE(fs::exists(journal)) << "counted before finding the bad path: " << read_file(journal);
    fs::remove(journal);
  }
  // A write that fails only at the end (disk full) still leaves the summary line.
  const ProcessResult full = mpi_count(1, {"--input", h5, "--json", "/dev/full", "--threads", "1"});
  EXPECT_EQ(full.exit_code, 1) << describe(full);
  EXPECT_TRUE(contains(full.out, "tricount: 1276 triangles")) << describe(full);
  EXPECT_TRUE(device_intact("/dev/full", 7));
}

// A name that fits the folder but not with its temporary's suffix is found before counting.
TEST(cliOutputSafety, ANameTooLongForItsTemporaryIsFoundBeforeCounting) {
  TempDir dir;
  const std::string h5 = make_block_file(dir, 2);
  const std::string journal = dir.file("run.journal");
  const std::string name = dir.file(std::string(240, 'e') + ".tsv");
  for (const std::string option : {"--per-edge", "--per-vertex", "--json"}) {
    const ProcessResult r = mpi_count(1, {"--input", h5, option, name, "--journal", journal, "--threads", "1"});
    EXPECT_EQ(r.exit_code, 1) << option << describe(r);
    EXPECT_TRUE(contains(r.err, "cannot write " + option + " '" + name + "': the name is too long")) << describe(r);
    EXPECT_FALSE(fs::exists(journal)) << option << ": counted before finding the long name";
    fs::remove(journal);
  }
}

// A signal while the per-vertex table is being made removes its temporary; a run killed
// outright (SIGKILL) leaves one, which the next run to that table removes.
TEST(cliOutputSafety, AnInterruptedCountLeavesNoTemporaryTable) {
  TempDir dir;
  const std::string h5 = dir.file("k.h5");
  const ProcessResult made = run_process(
      {bin_path("tricount-partition"), "--input", "kronecker:19", "--output", h5, "--parts", "2", "--quiet"}, kProgramTimeout);
  ASSERT_EQ(made.exit_code, 0) << describe(made);
  const std::string table = dir.file("pv.h5"), err = dir.file("err.txt");
  const auto table_temps = [&] {
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(dir.path()))
      if (e.path().filename().string().starts_with("pv.h5.tmp.tricount-")) found.push_back(e.path().filename().string());
    return found;
  };
  for (const int sig : {SIGINT, SIGTERM}) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 2);
      const std::string prog = bin_path("tricount-count");
      ::execl(prog.c_str(), prog.c_str(), h5.c_str(), "--backend", "cpu", "--threads", "1", "--per-vertex", table.c_str(),
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ASSERT_GT(pid, 0);
    bool seen = false;  // the table's temporary exists while the workers count
    for (int i = 0; i < 60000 && !seen; ++i) {
      seen = !table_temps().empty();
      if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ::kill(pid, sig);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(seen) << "no temporary table appeared: " << read_file(err);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (code == 0) continue;  // finished before the signal: nothing to check
    EXPECT_EQ(code, 128 + sig) << read_file(err);
    EXPECT_TRUE(contains(read_file(err), "tricount-count: interrupted by " + std::string(sig == SIGINT ? "SIGINT" : "SIGTERM") +
                                             "; temporary files removed, no table or report written"))
        << read_file(err);
    EXPECT_TRUE(table_temps().empty()) << table_temps().front();
    EXPECT_FALSE(fs::exists(table));
  }
  // A temporary of a process gone (killed outright), then a run to the same table.
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  std::string name = host;
  for (char& c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  const std::string stale = table + ".tmp.tricount-" + name + "-" + std::to_string(gone) + "-abc123";
  write_file(stale, std::string("\x89HDF\r\n\x1a\n", 8) + "half a table");
  const ProcessResult r = mpi_count(1, {"--input", h5, "--per-vertex", table, "--threads", "1", "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(fs::exists(table));
  EXPECT_FALSE(fs::exists(stale)) << "the dead run's temporary was left";
}

}  // namespace
