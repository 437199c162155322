// The header of a Matrix Market coordinate file: the banner, comments, then the size line.
// The entries that follow are parsed by the text reader (input/text_edges.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace tricount {

struct MatrixMarketSize {
  std::uint64_t rows = 0, cols = 0, nnz = 0;
  std::uint64_t line = 0;  // the size line's number
};

// Banner "%%MatrixMarket matrix coordinate <field> <symmetry>", comments, then the size
// line "rows cols nnz". Entries keep their 1-based ids as they appear in the file: raw ids
// are "as in the input" everywhere, so a vertex map points back at the file's indices.
// Symmetric files store one triangle; each stored entry is one undirected edge, which is
// all the partitioner needs (it symmetrizes every input anyway). Every kind must be square:
// an adjacency matrix has a row and a column per vertex.
// `next_line` gives the next line without its line ending (false at the end of the input)
// and counts it in `line_number`. Throws Error naming the file and line.
MatrixMarketSize read_matrix_market_header(const std::string& path, const std::function<bool(std::string_view&)>& next_line,
                                           const std::uint64_t& line_number);

}  // namespace tricount
