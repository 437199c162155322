#include "input/matrix_market.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "input/text_scan.hpp"
#include "src/types.hpp"

namespace tricount {
namespace {

using namespace text_scan;

std::vector<std::string> split_words(std::string_view s) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_blank(s[i])) ++i;
    std::size_t j = i;
    while (j < s.size() && !is_blank(s[j])) ++j;
    if (j > i) words.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return words;
}

std::string quote_view(std::string_view s) {
  if (s.size() > 80) return "\"" + printable(s.substr(0, 80)) + "...\"";
  return "\"" + printable(s) + "\"";
}

}  // namespace

MatrixMarketSize read_matrix_market_header(const std::string& path, const std::function<bool(std::string_view&)>& next_line,
                                           const std::uint64_t& line_number) {
  auto where = [&](std::uint64_t n) { return printable(path) + ":" + std::to_string(n) + ": "; };
  MatrixMarketSize size;
  std::string_view line;
  if (!next_line(line)) throw Error(printable(path) + ": empty file; expected a Matrix Market banner");
  const std::vector<std::string> w = split_words(line);
  if (w.empty() || to_lower(w[0]) != "%%matrixmarket") {
    throw Error(where(1) + "not a Matrix Market file: the first line must start with "
                "%%MatrixMarket, got " + quote_view(line));
  }
  if (w.size() < 5) {
    throw Error(where(1) + "incomplete Matrix Market banner " + quote_view(line) +
                "; expected '%%MatrixMarket matrix coordinate <field> <symmetry>'");
  }
  const std::string object = to_lower(w[1]), format = to_lower(w[2]);
  const std::string field = to_lower(w[3]), symmetry = to_lower(w[4]);
  if (object != "matrix") {
    throw Error(where(1) + "Matrix Market object '" + w[1] + "' is not supported; expected 'matrix'");
  }
  if (format == "array") {
    throw Error(where(1) + "Matrix Market 'array' (dense) format is not supported; a graph "
                "must be a 'coordinate' (sparse) matrix");
  }
  if (format != "coordinate") {
    throw Error(where(1) + "unknown Matrix Market format '" + w[2] + "'; expected 'coordinate'");
  }
  if (field == "complex") {
    throw Error(where(1) + "complex Matrix Market matrices are not supported; use pattern, "
                "integer or real");
  }
  if (field != "pattern" && field != "integer" && field != "real" && field != "double") {
    throw Error(where(1) + "unknown Matrix Market field '" + w[3] +
                "'; expected pattern, integer or real");
  }
  if (symmetry == "hermitian") {
    throw Error(where(1) + "hermitian Matrix Market matrices are not supported; use general "
                "or symmetric");
  }
  // Skew-symmetric has the same pattern as symmetric (and a zero diagonal): one edge each.
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric") {
    throw Error(where(1) + "unknown Matrix Market symmetry '" + w[4] +
                "'; expected general or symmetric");
  }
  for (;;) {
    if (!next_line(line)) throw Error(printable(path) + ": missing the Matrix Market size line 'rows cols nnz'");
    std::size_t i = 0;
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i == line.size() || line[i] == '%') continue;
    break;
  }
  size.line = line_number;
  const std::string text(line);  // NUL-terminated copy for the token parser
  const char* p = text.c_str();
  std::array<std::uint64_t, 3> v{};
  for (std::size_t k = 0; k < 3; ++k) {
    while (is_blank(*p)) ++p;
    if (parse_u64(p, v[k]) != Token::Ok || (*p != '\0' && !is_blank(*p))) {
      throw Error(where(line_number) + "malformed Matrix Market size line: expected 'rows cols nnz', got " +
                  quote_view(line));
    }
  }
  while (is_blank(*p)) ++p;
  if (*p != '\0') {
    throw Error(where(line_number) + "malformed Matrix Market size line: expected 'rows cols nnz', got " +
                quote_view(line));
  }
  size.rows = v[0];
  size.cols = v[1];
  size.nnz = v[2];
  if (symmetry != "general" && size.rows != size.cols) {
    throw Error(where(line_number) + "a " + symmetry + " matrix must be square, but the size line says " +
                std::to_string(size.rows) + " x " + std::to_string(size.cols));
  }
  // A graph's adjacency matrix has a row and a column per vertex; a rectangular one (a
  // bipartite or incidence matrix) is no graph's, and was read as a square one without a word.
  if (size.rows != size.cols) {
    const std::string n = std::to_string(std::max(size.rows, size.cols));
    throw Error(where(line_number) + "the size line says " + std::to_string(size.rows) + " rows x " +
                std::to_string(size.cols) + " columns, so this is not a graph's adjacency matrix, which is square (a "
                "row and a column per vertex); if it is one, give its size line as '" + n + " " + n + " " +
                std::to_string(size.nnz) + "'");
  }
  return size;
}

}  // namespace tricount
