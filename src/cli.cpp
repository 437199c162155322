#include "src/cli.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "src/types.hpp"
#include "src/version.hpp"

namespace tricount::cli {

namespace {

// boost reads "-1" into an unsigned option as 2^64 - 1 (lexical_cast wraps it), and the
// checks after it then showed 18446744073709551615. A value of an unsigned option (or a list
// of them) that starts with '-' is refused here, as the user typed it.
void refuse_negative_unsigned(const po::parsed_options& parsed, const po::options_description& all) {
  for (const po::option& o : parsed.options) {
    const po::option_description* d = all.find_nothrow(o.string_key, false);
    const auto* typed = d ? dynamic_cast<const po::typed_value_base*>(d->semantic().get()) : nullptr;
    if (!typed) continue;
    const std::type_info& t = typed->value_type();
    const bool is_unsigned =
        t == typeid(unsigned char) || t == typeid(unsigned short) || t == typeid(unsigned) || t == typeid(unsigned long) ||
        t == typeid(unsigned long long) || t == typeid(std::vector<unsigned>) || t == typeid(std::vector<unsigned long>) ||
        t == typeid(std::vector<unsigned long long>);
    if (!is_unsigned) continue;
    for (const std::string& value : o.value) {
      const std::size_t first = value.find_first_not_of(" \t");
      if (first != std::string::npos && value[first] == '-')
        throw UsageError("--" + o.string_key + " " + value + ": must be a whole number, not negative (see --help)");
    }
  }
}

}  // namespace

bool parse(int argc, char** argv, po::options_description& options, po::variables_map& vm,
           std::string_view usage, std::string_view description, const po::options_description* hidden,
           std::initializer_list<std::string_view> may_be_empty, const po::positional_options_description* positional) {
  options.add_options()("help,h", "print this help and exit")("version", "print the version and git commit and exit");
  po::options_description all;
  all.add(options);
  if (hidden) all.add(*hidden);
  try {
    po::command_line_parser parser(argc, argv);
    parser.options(all);
    if (positional) parser.positional(*positional);
    const po::parsed_options parsed = parser.run();
    refuse_negative_unsigned(parsed, all);
    po::store(parsed, vm);
    if (vm.count("version")) {
      // The program's name as it was started (tricount-count, or its installed path).
      const std::string_view name = argc > 0 ? std::string_view(argv[0]) : std::string_view("tricount");
      std::cout << version_line(name.substr(name.find_last_of('/') + 1)) << std::endl;
      return false;
    }
    if (vm.count("help")) {
      std::cout << "usage: " << usage << "\n\n" << description << "\n\n" << options << std::endl;
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  // An empty value ("$UNSET") is a mistake, not "no file": --per-vertex "" wrote nothing and
  // said nothing. Options whose empty value means something are listed by the caller.
  for (const auto& [name, value] : vm) {
    if (value.defaulted() || std::find(may_be_empty.begin(), may_be_empty.end(), name) != may_be_empty.end()) continue;
    const po::option_description* option = all.find_nothrow(name, false);
    if (!option || option->semantic()->max_tokens() == 0) continue;  // a switch (--quiet) holds an empty string
    bool empty = false;
    if (const auto* text = boost::any_cast<std::string>(&value.value())) empty = text->empty();
    if (const auto* list = boost::any_cast<std::vector<std::string>>(&value.value()))
      empty = std::any_of(list->begin(), list->end(), [](const std::string& t) { return t.empty(); });
    if (empty) throw UsageError("--" + name + " is given an empty value: give one, or leave the option out");
  }
  return true;
}

std::string version_line(std::string_view program) {
  return std::string(program) + " " + kVersion + " (commit " + kCommit + ")";
}

int run_main(std::string_view program, const std::function<int()>& body) {
  // HDF5 closes at exit what is still open; a file whose H5Fclose failed (a full disk) stays
  // registered half freed, and closing it again crashed the program after its error message.
  // Every file we write is closed and checked before it is committed, so nothing is lost.
  H5dont_atexit();
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
  // Decimal digits with an optional fraction, nothing else: std::stod alone also took hex
  // ("0x10G" was 16G), exponents, "inf" and leading blanks or signs.
  const auto not_a_size = [&] {
    return UsageError(std::string(option) + ": '" + s + "' is not a size: give decimal digits with an optional fraction "
                      "and unit K, M, G or T (e.g. 4G, 1.5T, 512M)");
  };
  const std::size_t pos = std::min(s.find_first_not_of("0123456789."), s.size());
  const std::string number = s.substr(0, pos);
  if (number.find_first_of("0123456789") == std::string::npos || number.find('.') != number.rfind('.')) throw not_a_size();
  double value = HUGE_VAL;  // so many digits that a double overflows: out of range below
  try {
    value = std::stod(number);
  } catch (const std::out_of_range&) {
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
  else throw not_a_size();
  const double bytes = value * mult;
  if (!(bytes >= 1) || !std::isfinite(bytes) || bytes > 1.8e19)
    throw UsageError(std::string(option) + ": size '" + s + "' out of range");
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace tricount::cli
