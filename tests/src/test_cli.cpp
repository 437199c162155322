// src/cli: what every program's options parser refuses, with the value as the user typed it.
// A negative value of an unsigned option (--parts -1) was read by boost as 2^64 - 1 and
// shown as 18446744073709551615 (or 4294967295) by the range check after it. A byte size
// (--cache-size, --memory-budget, --gpu-memory) is decimal: "0x10G" was read as 16G.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "src/cli.hpp"
#include "src/types.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace tricount;
using namespace tricount::testing;
namespace po = cli::po;

// cli::parse over `args` with options of every unsigned width, a list of them and a signed
// one; the UsageError's message, or "" when it parsed.
std::string parse_error(std::vector<std::string> args) {
  std::uint64_t parts = 1;
  unsigned threads = 0;
  std::uint32_t splits = 0;
  std::vector<unsigned> gpus;
  int offset = 0;
  po::options_description options("options");
  options.add_options()("parts,n", po::value(&parts))("threads", po::value(&threads))("splits", po::value(&splits))(
      "gpus", po::value(&gpus)->multitoken())("offset", po::value(&offset));
  args.insert(args.begin(), "program");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  po::variables_map vm;
  try {
    cli::parse(static_cast<int>(argv.size()), argv.data(), options, vm, "program [options]", "");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// Runs the program args[0] (from bin_dir()) with the rest of `args`: a usage error (exit 2)
// whose message contains `message`; the wrapped values of a negative one never shown.
void expect_usage_error(const std::vector<std::string>& args, const std::string& message) {
  SCOPED_TRACE(args.front() + " " + message);
  std::vector<std::string> argv = args;
  argv.front() = bin_dir() + "/" + args.front();
  const ProcessResult r = run_process(argv, 60);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, args.front() + ": error: " + message)) << describe(r);
  EXPECT_FALSE(contains(r.err, "18446744073709551615") || contains(r.err, "4294967295")) << describe(r);
}

}  // namespace

TEST(CliOptions, ANegativeUnsignedValueIsRefusedAsTyped) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--parts", "-1"}, "--parts -1: must be a whole number, not negative"},
      {{"--parts=-1"}, "--parts -1: must be a whole number, not negative"},
      {{"-n", "-1"}, "--parts -1: must be a whole number, not negative"},
      {{"--threads", "-7"}, "--threads -7: must be a whole number, not negative"},
      {{"--splits=-0"}, "--splits -0: must be a whole number, not negative"},
      {{"--gpus=-4"}, "--gpus -4: must be a whole number, not negative"},
  };
  for (const auto& [args, message] : cases) {
    const std::string error = parse_error(args);
    EXPECT_TRUE(contains(error, message)) << args.front() << ": " << error;
    EXPECT_FALSE(contains(error, "18446744073709551615") || contains(error, "4294967295")) << error;
  }
  // Unsigned values in range and signed negative values parse as before.
  EXPECT_EQ(parse_error({"--parts", "3", "--threads", "0", "--splits", "4294967295", "--gpus", "1", "2"}), "");
  EXPECT_EQ(parse_error({"--offset", "-1"}), "");
}

// Every program's unsigned options, through cli::parse: exit 2, the value as typed.
TEST(CliOptions, EveryProgramShowsANegativeValueAsTyped) {
  TempDir dir;
  write_file(dir.file("g.txt"), "0 1\n1 2\n2 0\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"tricount-partition", "--input", dir.file("g.txt"), "--output", dir.file("g.h5"), "--parts", "-1"}, "--parts -1"},
      {{"tricount-partition", "--input", dir.file("g.txt"), "--output", dir.file("g.h5"), "--threads=-2"}, "--threads -2"},
      {{"tricount-count", dir.file("g.txt"), "--parts", "-1"}, "--parts -1"},
      {{"tricount-count", dir.file("g.txt"), "--count-parts", "-1"}, "--count-parts -1"},
      {{"tricount-count", dir.file("g.txt"), "--chunk-size", "-1"}, "--chunk-size -1"},
      {{"tricount-simulate", "--tasks-per-gpu", "-1"}, "--tasks-per-gpu -1"},
  };
  for (const auto& [args, option] : cases) expect_usage_error(args, option + ": must be a whole number, not negative");
  EXPECT_FALSE(std::filesystem::exists(dir.file("g.h5")));
}

TEST(CliSizes, DecimalDigitsWithAnOptionalFractionAndUnit) {
  constexpr std::uint64_t K = 1024, M = K * K, G = M * K, T = G * K;
  const std::vector<std::pair<std::string, std::uint64_t>> good = {
      {"1000", 1000}, {"010", 10}, {"4G", 4 * G}, {"512M", 512 * M}, {"1.5T", T + T / 2}, {"0.5K", 512},
      {"2k", 2 * K},  {"4GiB", 4 * G}, {"4GB", 4 * G}, {"3.G", 3 * G}, {".5M", M / 2}};
  for (const auto& [text, bytes] : good) EXPECT_EQ(cli::parse_size(text, "--cache-size"), bytes) << text;
  for (const std::string bad : {"0x10G", "0x10", "0X1P3", "1e3M", "1E3", "inf", "nan", " 4G", "+4G", "-4G", "4 G", "1.2.3G",
                                "G", "", ".", "4X", "4GG"}) {
    std::string error;
    try {
      cli::parse_size(bad, "--cache-size");
    } catch (const UsageError& e) {
      error = e.what();
    }
    EXPECT_TRUE(contains(error, "--cache-size: '" + bad + "' is not a size: give decimal digits")) << bad << ": " << error;
  }
}

// Every byte-size option of the programs goes through cli::parse_size.
TEST(CliSizes, EveryProgramRefusesAHexSize) {
  TempDir dir;
  write_file(dir.file("g.txt"), "0 1\n1 2\n2 0\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"tricount-count", dir.file("g.txt"), "--cache-size", "0x10G"}, "--cache-size: '0x10G'"},
      {{"tricount-partition", "--input", dir.file("g.txt"), "--output", dir.file("g.h5"), "--memory-budget", "0x100M"},
       "--memory-budget: '0x100M'"},
      {{"tricount-simulate", "--plan", "--model", dir.file("m.json"), "--kronecker-scale", "20", "--gpus", "8", "--gpu-memory",
        "0x10G"},
       "--gpu-memory: '0x10G'"},
  };
  for (const auto& [args, option] : cases) expect_usage_error(args, option + " is not a size");
  EXPECT_FALSE(std::filesystem::exists(dir.file("g.h5")));
}
