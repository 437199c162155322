// Shared scalar types and checked conversions.
//
// Vertex ids after renumbering are 32-bit (a block's CSR stores them, and 4 bytes per
// neighbour is half the memory traffic of 8); anything that counts or offsets edges or
// triangles is 64-bit, because billion-edge graphs pass 2^32 in both.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tricount {

using vid_t = std::uint32_t;    // renumbered vertex id (global or block-local)
using eoff_t = std::uint64_t;   // edge offset / edge count
using count_t = std::uint64_t;  // triangle count
using raw_id_t = std::uint64_t; // vertex id as it appears in the input

inline constexpr vid_t kMaxVertices = std::numeric_limits<vid_t>::max();  // 2^32 - 1

// Every error the project reports on purpose. The message is meant for the user: it names
// the file, line or block and says what is wrong.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad command-line usage: reported with exit code 2.
class UsageError : public Error {
 public:
  using Error::Error;
};

// `text` (a path, an excerpt of an input line) safe to print in a one-line message or
// record: control bytes (newline, CR, tab, NUL, ...) become \n, \r, \t or \xHH, so a
// message is never cut at a NUL nor split over lines by a file's name or content.
inline std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  return out;
}

// Narrowing that refuses to wrap: throws Error naming `what` instead.
template <class To, class From>
constexpr To checked_cast(From value, const char* what = "value") {
  static_assert(std::is_integral_v<To> && std::is_integral_v<From>);
  if (!std::in_range<To>(value)) {
    throw Error(std::string(what) + " = " + std::to_string(value) + " does not fit in " +
                std::to_string(sizeof(To) * 8) + " bits");
  }
  return static_cast<To>(value);
}

}  // namespace tricount

#define TRICOUNT_EXPECTS(cond, msg)                                  \
  do {                                                               \
    if (!(cond)) throw ::tricount::Error(std::string(msg));          \
  } while (0)
