#include "src/cli.hpp"

#include <cmath>
#include <exception>
#include <iostream>
#include <new>

#include "src/types.hpp"

namespace tricount::cli {

bool parse(int argc, char** argv, po::options_description& options, po::variables_map& vm,
           std::string_view usage, std::string_view description, const po::options_description* hidden) {
  options.add_options()("help,h", "print this help and exit");
  po::options_description all;
  all.add(options);
  if (hidden) all.add(*hidden);
  try {
    po::store(po::command_line_parser(argc, argv).options(all).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: " << usage << "\n\n" << description << "\n\n" << options << std::endl;
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  return true;
}

int run_main(std::string_view program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << program << ": error: " << e.what() << std::endl;
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << program << ": error: out of memory" << std::endl;
    return kExitError;
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << std::endl;
    return kExitError;
  }
}

std::uint64_t parse_size(std::string_view text, std::string_view option) {
  const std::string s(text);
  std::size_t pos = 0;
  double value = 0;
  try {
    value = std::stod(s, &pos);
  } catch (const std::exception&) {
    throw UsageError(std::string(option) + ": '" + s + "' is not a size (e.g. 4G, 512M)");
  }
  std::string suffix = s.substr(pos);
  if (!suffix.empty() && (suffix.back() == 'B' || suffix.back() == 'b')) suffix.pop_back();
  if (!suffix.empty() && (suffix.back() == 'i')) suffix.pop_back();
  double mult = 1;
  if (suffix.empty()) mult = 1;
  else if (suffix == "K" || suffix == "k") mult = 1024.0;
  else if (suffix == "M" || suffix == "m") mult = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "g") mult = 1024.0 * 1024 * 1024;
  else if (suffix == "T" || suffix == "t") mult = 1024.0 * 1024 * 1024 * 1024;
  else throw UsageError(std::string(option) + ": unknown size suffix in '" + s + "'");
  const double bytes = value * mult;
  if (!(bytes >= 1) || !std::isfinite(bytes) || bytes > 1.8e19)
    throw UsageError(std::string(option) + ": size '" + s + "' out of range");
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace tricount::cli
