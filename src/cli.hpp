// Command-line conventions shared by every executable: --help explains every option and
// exits 0; a wrong option or value is "PROGRAM: error: ..." and exit code 2; any other
// reported error is "PROGRAM: error: ..." and exit code 1.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace tricount::cli {

namespace po = boost::program_options;

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

// Parses argv into `vm` (adds --help). Returns false when --help was printed (the caller
// then exits 0). Throws UsageError for unknown options, bad values, missing required ones.
// `hidden`: options accepted but not listed by --help (old spellings kept as aliases).
bool parse(int argc, char** argv, po::options_description& options, po::variables_map& vm,
           std::string_view usage, std::string_view description, const po::options_description* hidden = nullptr);

// Runs `body`, mapping UsageError to exit 2 and other exceptions to exit 1, each printed
// to stderr as "PROGRAM: error: MESSAGE".
int run_main(std::string_view program, const std::function<int()>& body);

// "4G", "512M", "1.5T", "1000" -> bytes (binary units). Throws UsageError naming `option`.
std::uint64_t parse_size(std::string_view text, std::string_view option);

}  // namespace tricount::cli
