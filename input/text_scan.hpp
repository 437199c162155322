// What the edge-file readers share for text (input/edge_readers.cpp, text_edges.cpp,
// matrix_market.cpp): ASCII case-insensitive names and the hand-written token parser.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

// In their own namespace: internal to the readers, and short names.
namespace tricount::text_scan {

inline char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string to_lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = ascii_lower(c);
  return r;
}

inline bool ends_with_ci(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && to_lower(s.substr(s.size() - suffix.size())) == suffix;
}

inline bool starts_with_ci(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && to_lower(s.substr(0, prefix.size())) == to_lower(prefix);
}

// Number parsing result for one token.
enum class Token { Ok, NotNumber, Negative, Overflow };

// Parses a decimal uint64 at p (advancing p past the digits). Leading zeros are allowed.
inline Token parse_u64(const char*& p, std::uint64_t& value) {
  const char* q = p;
  std::uint64_t x = 0;
  unsigned d;
  while ((d = static_cast<unsigned>(static_cast<unsigned char>(*q)) - '0') < 10) {
    // Nineteen digits always fit; the overflow checks only ever fire on the twentieth.
    if (__builtin_mul_overflow(x, std::uint64_t{10}, &x) ||
        __builtin_add_overflow(x, std::uint64_t{d}, &x)) {
      return Token::Overflow;
    }
    ++q;
  }
  if (q == p) {
    // q[1] is only looked at after a '-', so it is still inside the '\n'-terminated line.
    const bool negative = *q == '-' && static_cast<unsigned>(static_cast<unsigned char>(q[1])) - '0' < 10;
    return negative ? Token::Negative : Token::NotNumber;
  }
  value = x;
  p = q;
  return Token::Ok;
}

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace tricount::text_scan
