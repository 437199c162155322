// Command-line conventions shared by every executable: --help explains every option and
// exits 0; --version prints "PROGRAM VERSION (commit C)" and exits 0; a wrong option or value is "PROGRAM: error: ..." and exit code 2; any other
// reported error is "PROGRAM: error: ..." and exit code 1.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

namespace tricount::cli {

namespace po = boost::program_options;

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

// Parses argv into `vm` (adds --help and --version). Returns false when --help or --version
// was printed (the caller then exits 0). Throws UsageError for unknown options, bad values,
// missing required ones, and an empty string value (--json "") of any option but those in
// `may_be_empty`. `hidden`: options accepted but not listed by --help (old spellings kept as
// aliases). `positional`, when given, maps bare arguments to options (tricount-count GRAPH).
bool parse(int argc, char** argv, po::options_description& options, po::variables_map& vm,
           std::string_view usage, std::string_view description, const po::options_description* hidden = nullptr,
           std::initializer_list<std::string_view> may_be_empty = {},
           const po::positional_options_description* positional = nullptr);

// "PROGRAM VERSION (commit C)": the version and git commit of this build (src/version.hpp).
std::string version_line(std::string_view program);

// Runs `body`, mapping UsageError to exit 2 and other exceptions to exit 1, each printed
// to stderr as "PROGRAM: error: MESSAGE".
int run_main(std::string_view program, const std::function<int()>& body);

// "4G", "512M", "1.5T", "1000" -> bytes (binary units): decimal digits with an optional
// fraction, then an optional unit K, M, G or T (either case, "GiB" and "GB" too). Throws
// UsageError naming `option` and the value otherwise (hex, exponents, signs).
std::uint64_t parse_size(std::string_view text, std::string_view option);

}  // namespace tricount::cli
