// Issue 32: tricount-simulate against careless or hostile input.
//  item 1: --fit J --journal J replaced the journal with the model (exit 0);
//  item 6: a deeply nested JSON model overflowed the stack (exit 139);
//  item 7: accepted extreme --plan values never ended (or took 23 s to fail);
//  item 8: --journal /dev/zero read without bound;
//  item 10: a model rate of 1e308 printed "predicted_s inf" and "speedup -nan" as a PREDICTION,
//    a negative Kronecker slope predicted 0 edges, a journal record of 1e300 s gave R^2 nan,
//    --task-overhead 1e308 was accepted;
//  item 13: bad journal header values were blamed on options never given, after the
//    PREDICTION header; a task outside the plan named no file; --journal . said
//    "basic_filebuf::underflow"; a model intercept of 1e308 was blamed on --kronecker-scale.
#include <gtest/gtest.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "scheduler/journal.hpp"
#include "tests/test_support.hpp"

using namespace tricount::testing;
namespace fs = std::filesystem;

namespace {

// The H200 model the README's plans come from (bench/results).
std::string h200_model() {
  return (fs::path(__FILE__).parent_path().parent_path().parent_path() / "bench/results/cost-model-h200-v2/model_H.json").string();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }


struct Timed {
  ProcessResult result;
  double seconds = 0;
};
Timed simulate(const std::vector<std::string>& args, double timeout = 60) {
  std::vector<std::string> argv = {bin_dir() + "/tricount-simulate"};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto start = std::chrono::steady_clock::now();
  Timed t;
  t.result = run_process(argv, timeout);
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

// No number of a result may be inf or nan.
bool prints_non_numbers(const std::string& out) { return std::regex_search(out, std::regex(R"((^|[^a-z])(-?inf|-?nan)\b)")); }

// A real journal (and its block file) from a count of a small Kronecker graph.
class SimulateBounds : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string edges = dir_->file("k10.bin64");
    const ProcessResult g =
        run_process({bin_dir() + "/tricount-generate", "--kind", "kronecker", "--scale", "10", "--output", edges}, 120);
    ASSERT_EQ(g.exit_code, 0) << describe(g);
    const ProcessResult p = run_process(
        {bin_dir() + "/tricount-partition", "-i", edges, "-o", dir_->file("k10.h5"), "--parts", "2", "-q"}, 120);
    ASSERT_EQ(p.exit_code, 0) << describe(p);
    const ProcessResult c = run_process(mpi_command(1, bin_dir() + "/tricount-count",
                                                    {"--input", dir_->file("k10.h5"), "--backend", "cpu", "--threads", "1",
                                                     "--journal", journal(), "-q"}),
                                        120);
    ASSERT_EQ(c.exit_code, 0) << describe(c);
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string journal() { return dir_->file("k10.journal"); }
  // A copy of the journal under another name, for a test to damage.
  static std::string journal_copy(const std::string& name) {
    const std::string path = dir_->file(name);
    write_text(path, read_text(journal()));
    return path;
  }
  // model_H.json with the first "key": value replaced.
  static std::string model_with(const std::string& name, const std::string& key, const std::string& value) {
    std::string text = read_text(h200_model());
    const std::regex field("\"" + key + "\": [-0-9.e+]+");
    EXPECT_TRUE(std::regex_search(text, field)) << key;
    text = std::regex_replace(text, field, "\"" + key + "\": " + value, std::regex_constants::format_first_only);
    const std::string path = dir_->file(name);
    write_text(path, text);
    return path;
  }
  static TempDir* dir_;
};
TempDir* SimulateBounds::dir_ = nullptr;

}  // namespace

// Item 1: an output onto an input is refused before any work (exit 2), by name and by inode.
TEST_F(SimulateBounds, OutputsOntoInputsAreRefused) {
  const std::string j = journal_copy("fit-onto.journal");
  const std::string before = read_text(j);
  const std::string link = dir_->file("fit-onto-link.journal");
  ASSERT_EQ(::link(j.c_str(), link.c_str()), 0);
  const std::string model = dir_->file("onto-model.json");
  write_text(model, read_text(h200_model()));
  const struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--fit", j, "--journal", j, "--backend", "cpu"}, "--fit '" + j + "' is the same file as --journal '" + j + "'"},
      {{"--fit", link, "--journal", j, "--backend", "cpu"}, "--fit '" + link + "' is the same file as --journal"},
      {{"--journal", j, "--json", link, "--no-loads"}, "--json '" + link + "' is the same file as --journal"},
      {{"--fit", dir_->file("k10.h5"), "--journal", j}, "--fit '" + dir_->file("k10.h5") + "' is the same file as the block file"},
      {{"--model", model, "--kronecker-scale", "20", "--parts", "2", "--gpus", "1", "--json", model},
       "--json '" + model + "' is the same file as --model"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args.front() + " " + c.args[1]);
    const Timed r = simulate(c.args);
    EXPECT_EQ(r.result.exit_code, 2) << describe(r.result);
    EXPECT_TRUE(contains(r.result.err, "tricount-simulate: error: " + c.message)) << describe(r.result);
    EXPECT_EQ(read_text(j), before) << "the journal was overwritten";
  }
  EXPECT_EQ(read_text(model), read_text(h200_model())) << "the model was overwritten";
}

// Item 6: nesting is bounded; the error names the file.
TEST_F(SimulateBounds, DeeplyNestedJsonIsRefused) {
  const std::string model = dir_->file("nested.json");
  write_text(model, std::string(100000, '[') + std::string(100000, ']'));
  const Timed r = simulate({"--model", model, "--kronecker-scale", "20", "--parts", "2", "--gpus", "1"});
  EXPECT_EQ(r.result.exit_code, 1) << describe(r.result);
  EXPECT_TRUE(contains(r.result.err, "'" + model + "': not a cost model file: arrays and objects nested more than 64 deep"))
      << describe(r.result);
}

// Item 7: the issue's extreme --plan values end at once with a usage error saying what to use.
TEST_F(SimulateBounds, ExtremePlanValuesAreRefusedAtOnce) {
  const std::vector<std::string> plan = {"--plan", "--model", h200_model(), "--kronecker-scale", "26"};
  const struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--gpus", "8", "--gpu-memory", "80G", "--tasks-per-gpu", "1000000000"}, "--tasks-per-gpu must be between 1 and 1024"},
      {{"--gpus", "65536", "--gpu-memory", "80G", "--schedule", "static"}, "give --gpus at most "},
      {{"--gpus", "65536", "--gpu-memory", "80G"}, "give --gpus at most "},
      {{"--gpus", "8", "--gpu-memory", "1"}, "--gpu-memory: no --parts up to 1024 fits a block triple and its tables in 1 bytes"},
      {{"--gpus", "8", "--gpu-memory", "80G", "--network", "1e-300"}, "--network: '1e-300' is not a bandwidth"},
      {{"--gpus", "8", "--gpu-memory", "80G", "--network", "0x10G"}, "--network: '0x10G' is not a bandwidth"},
      {{"--gpus", "8", "--gpu-memory", "80G", "--file-system", "inf"}, "--file-system: 'inf' is not a bandwidth"},
      {{"--gpus", "8", "--gpu-memory", "80G", "--gpus-per-node", "100000"}, "--gpus-per-node must be between 1 and 1024"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = plan;
    args.insert(args.end(), c.args.begin(), c.args.end());
    SCOPED_TRACE(c.message);
    const Timed r = simulate(args);
    EXPECT_EQ(r.result.exit_code, 2) << describe(r.result);
    EXPECT_LT(r.seconds, 2.0);
    EXPECT_TRUE(contains(r.result.err, c.message)) << describe(r.result);
  }
  // A prediction of a billion tasks.
  const Timed big = simulate({"--model", h200_model(), "--kronecker-scale", "26", "--parts", "1024", "--gpus", "1,1024"});
  EXPECT_EQ(big.result.exit_code, 2) << describe(big.result);
  EXPECT_LT(big.seconds, 2.0);
  EXPECT_TRUE(contains(big.result.err, "--parts 1024 --workload-splits 1 gives 1073741824 tasks")) << describe(big.result);
}

// Item 8: a journal that never ends a line, or goes on past the plan its header declares,
// is refused at once, naming it and the line.
TEST_F(SimulateBounds, JournalReadsAreBoundedByTheDeclaredPlan) {
  const std::string model = dir_->file("zero-fit.json");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--journal", "/dev/zero"}, {"--journal", "/dev/zero", "--fit", model}}) {
    const Timed r = simulate(args, 30);
    EXPECT_FALSE(r.result.timed_out);
    EXPECT_LT(r.seconds, 5.0);
    EXPECT_EQ(r.result.exit_code, 1) << describe(r.result);
    EXPECT_TRUE(contains(r.result.err, "journal '/dev/zero':1: a line longer than 65536 bytes")) << describe(r.result);
  }
  // A header, then a sparse gigabyte of zeros: the first record line is refused.
  const std::string huge = journal_copy("huge.journal");
  const std::string text = read_text(huge);
  write_text(huge, text.substr(0, text.find('\n', text.find('\n') + 1) + 1));
  fs::resize_file(huge, std::uintmax_t{1} << 30);
  const Timed h = simulate({"--journal", huge, "--no-loads"}, 30);
  EXPECT_LT(h.seconds, 5.0);
  EXPECT_EQ(h.result.exit_code, 1) << describe(h.result);
  EXPECT_TRUE(contains(h.result.err, "journal '" + huge + "':3: a line longer than 256 bytes")) << describe(h.result);
  // More records than the plan has tasks: the first one outside it.
  const std::string more = journal_copy("more.journal");
  const std::string records = read_text(journal());
  write_text(more, records + tricount::journal_record_line({8, 1, 0.1, 1, 1, 0}) + "\n");  // n = 2, m = 1: tasks 0 to 7
  const std::string added_line = std::to_string(std::count(records.begin(), records.end(), '\n') + 1);
  const Timed m = simulate({"--journal", more, "--no-loads"});
  EXPECT_EQ(m.result.exit_code, 1) << describe(m.result);
  EXPECT_TRUE(contains(m.result.err, "journal '" + more + "':" + added_line + ": task 8 is outside the plan of the journal's header"))
      << describe(m.result);
}

// Item 10: every model field that feeds a prediction is range-checked, naming the file and
// the field, before anything is printed; inf and nan never appear as a result.
TEST_F(SimulateBounds, ModelsAndRecordsOutOfRangeAreRefused) {
  const std::vector<std::string> predict = {"--kronecker-scale", "20", "--parts", "2", "--gpus", "1,4"};
  const struct Case {
    std::string key, value, field;
  } cases[] = {
      {"seconds_per_work", "1e308", "seconds_per_work"},
      {"load_seconds_per_byte", "1e308", "load_seconds_per_byte"},
      {"task_overhead_seconds", "-1", "task_overhead_seconds"},
      {"slope", "-1.01814386", "kronecker.log2_vertices.slope"},
      {"intercept", "1e308", "kronecker.log2_vertices.intercept"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.key + "=" + c.value);
    const std::string model = model_with("bad-" + c.key + ".json", c.key, c.value);
    std::vector<std::string> args = {"--model", model};
    args.insert(args.end(), predict.begin(), predict.end());
    const Timed r = simulate(args);
    EXPECT_EQ(r.result.exit_code, 1) << describe(r.result);
    EXPECT_TRUE(contains(r.result.err, "'" + model + "': field '" + c.field + "' = ")) << describe(r.result);
    EXPECT_FALSE(contains(r.result.out, "PREDICTED")) << describe(r.result);
    EXPECT_FALSE(prints_non_numbers(r.result.out)) << r.result.out;
  }
  // A journal record of 1e300 seconds: refused as damage, naming the journal and line.
  const std::string absurd = journal_copy("absurd.journal");
  std::string text = read_text(absurd);
  // The first record: the first line after the '#' header and run lines.
  std::size_t record = 0;
  int record_line = 1;
  while (text[record] == '#') record = text.find('\n', record) + 1, ++record_line;
  // Written so, with its check value: the range check refuses it, not the check value.
  tricount::JournalRecord first = tricount::read_journal(absurd).records.at(0);
  first.seconds = 1e300;
  text.replace(record, text.find('\n', record) - record, tricount::journal_record_line(first));
  write_text(absurd, text);
  const Timed fit = simulate({"--fit", dir_->file("absurd-model.json"), "--journal", absurd, "--backend", "cpu"});
  EXPECT_EQ(fit.result.exit_code, 1) << describe(fit.result);
  EXPECT_TRUE(contains(fit.result.err, "journal '" + absurd + "':" + std::to_string(record_line) + ": malformed journal record"))
      << describe(fit.result);
  EXPECT_FALSE(fs::exists(dir_->file("absurd-model.json")));
  // --task-overhead of 1e308.
  const Timed overhead = simulate({"--journal", journal(), "--no-loads", "--task-overhead", "1e308"});
  EXPECT_EQ(overhead.result.exit_code, 2) << describe(overhead.result);
  EXPECT_TRUE(contains(overhead.result.err, "--task-overhead must be between 0 and 3600")) << describe(overhead.result);
  // The model as it is predicts numbers.
  std::vector<std::string> good = {"--model", h200_model()};
  good.insert(good.end(), predict.begin(), predict.end());
  const Timed ok = simulate(good);
  EXPECT_EQ(ok.result.exit_code, 0) << describe(ok.result);
  EXPECT_FALSE(prints_non_numbers(ok.result.out)) << ok.result.out;
}

// Item 13: a bad journal header value names the journal, line and field, before any
// PREDICTION line; --journal . says it is a directory.
TEST_F(SimulateBounds, JournalErrorsNameTheFileAndField) {
  const std::string text = read_text(journal());
  const struct Case {
    std::string from, to, message;
  } cases[] = {
      {" parts=2 ", " parts=0 ", ":2: parts=0 in the journal header is out of range (1 to 1024)"},
      {" parts=2 ", " parts=5000 ", ":2: parts=5000 in the journal header is out of range (1 to 1024)"},
      {" splits=1 ", " splits=99999 ", ":2: splits=99999 in the journal header is out of range (1 to 4096)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.to);
    const std::string path = dir_->file("header.journal");
    std::string t = text;
    ASSERT_NE(t.find(c.from), std::string::npos);
    t.replace(t.find(c.from), c.from.size(), c.to);
    write_text(path, t);
    const Timed r = simulate({"--journal", path, "--no-loads"});
    EXPECT_EQ(r.result.exit_code, 1) << describe(r.result);
    EXPECT_TRUE(contains(r.result.err, "tricount-simulate: error: journal '" + path + "'" + c.message)) << describe(r.result);
    EXPECT_FALSE(contains(r.result.out, "PREDICTION")) << describe(r.result);
  }
  const Timed dot = simulate({"--journal", ".", "--no-loads"});
  EXPECT_EQ(dot.result.exit_code, 1) << describe(dot.result);
  EXPECT_TRUE(contains(dot.result.err, "journal '.' is a directory")) << describe(dot.result);
}
