// The block format's shared parts: a block's names, checksum and invariants. The HDF5 file's
// writer is src/block_writer.cpp, its reader src/block_reader.cpp.
#include "src/block_format.hpp"

#include <algorithm>
#include <mutex>
#include <optional>
#include <utility>

#include "src/threads.hpp"

namespace tricount {

std::string block_name(const BlockId& id) {
  return "P(" + std::to_string(id.row_class) + "," + std::to_string(id.col_class) + ")";
}

std::string block_group_path(const BlockId& id) {
  return "/blocks/P_" + std::to_string(id.row_class) + "_" + std::to_string(id.col_class);
}

std::uint64_t CsrSpan::rows_with_two(unsigned threads) const {
  // At least 2^20 rows a thread: starting one costs more than counting that many.
  const unsigned t = static_cast<unsigned>(std::clamp<std::uint64_t>(rows >> 20, 1, std::max(1u, threads)));
  std::vector<std::uint64_t> count(t, 0);
  parallel_for(t, [&](unsigned k) {
    std::uint64_t n = 0;
    for (std::uint64_t r = rows * k / t; r < rows * (k + 1) / t; ++r) n += offsets[r + 1] - offsets[r] >= 2;
    count[k] = n;
  });
  std::uint64_t n = 0;
  for (std::uint64_t c : count) n += c;
  return n;
}

std::uint64_t CsrSpan::checksum(unsigned threads) const {
  return block_checksum(rows, cols, array_digest(offsets, (rows + 1) * sizeof(eoff_t), threads),
                        array_digest(neighbors, nnz * sizeof(vid_t), threads));
}

std::uint64_t CsrBlock::rows_with_two(unsigned threads) const { return span().rows_with_two(threads); }
std::uint64_t CsrBlock::checksum(unsigned threads) const { return span().checksum(threads); }

namespace {

// The row checks of validate_block over rows [first, last) (offsets already start at 0 and
// end at nnz): the message for the first bad row, if any; `longest` gets the longest row.
std::optional<std::string> check_rows(const CsrSpan& b, std::uint64_t first, std::uint64_t last, std::uint64_t& longest,
                                      const std::string& at) {
  const vid_t* nb = b.neighbors;
  const vid_t cols = static_cast<vid_t>(std::min<std::uint64_t>(b.cols, kMaxVertices));
  for (std::uint64_t r = first; r < last; ++r) {
    const eoff_t lo = b.offsets[r], hi = b.offsets[r + 1];
    if (hi < lo) return at + ": offsets decrease at row " + std::to_string(r);
    if (hi > b.nnz)  // a later row must decrease; do not read past the end
      return at + ": offsets pass the " + std::to_string(b.nnz) + " neighbours at row " + std::to_string(r);
    longest = std::max<std::uint64_t>(longest, hi - lo);
    if (hi == lo) continue;
    // Branch-free over the row (it vectorises); the message is looked for only when bad.
    unsigned bad = nb[lo] >= cols;
    for (eoff_t e = lo + 1; e < hi; ++e) bad |= unsigned(nb[e] >= cols) | unsigned(nb[e] <= nb[e - 1]);
    if (!bad) continue;
    for (eoff_t e = lo; e < hi; ++e) {
      if (nb[e] >= b.cols)
        return at + ": row " + std::to_string(r) + " has neighbour " + std::to_string(nb[e]) + " but the block has " +
               std::to_string(b.cols) + " columns";
      if (e > lo && nb[e] <= nb[e - 1]) return at + ": row " + std::to_string(r) + " is not strictly increasing";
    }
  }
  return std::nullopt;
}

// Row ranges of about equal work (rows plus neighbours) for `parts` threads: rows split
// evenly would give one thread all the long rows of a degree-ordered block. The offsets are
// not yet checked, so the cuts are only forced to increase; any cut gives the same checks.
std::vector<std::uint64_t> balanced_row_cuts(const CsrSpan& b, std::uint64_t parts) {
  std::vector<std::uint64_t> cuts(parts + 1, 0);
  cuts[parts] = b.rows;
  const std::uint64_t total = b.rows + b.nnz;
  for (std::uint64_t k = 1; k < parts; ++k) {
    const std::uint64_t target = total / parts * k;
    std::uint64_t lo = cuts[k - 1], hi = b.rows;  // first row r with r + offsets[r] >= target
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (mid + b.offsets[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    cuts[k] = lo;
  }
  return cuts;
}

}  // namespace

CsrSpan CsrBlock::span() const {
  return {id, rows, cols, max_degree, offsets.data(), neighbors.data(), neighbors.size()};
}

void validate_block(const CsrBlock& b, const std::string& where, unsigned threads) {
  if (b.offsets.size() != b.rows + 1)
    throw Error(where + ": block " + block_name(b.id) + ": offsets has " + std::to_string(b.offsets.size()) +
                " entries, expected rows + 1 = " + std::to_string(b.rows + 1));
  validate_block(b.span(), where, threads);
}

void validate_block(const CsrSpan& b, const std::string& where, unsigned threads) {
  const std::string at = where + ": block " + block_name(b.id);
  if (b.offsets[0] != 0) throw Error(at + ": offsets[0] is not 0");
  if (b.offsets[b.rows] != b.nnz)
    throw Error(at + ": offsets end at " + std::to_string(b.offsets[b.rows]) + " but there are " + std::to_string(b.nnz) +
                " neighbours");
  if (b.cols > kMaxVertices) throw Error(at + ": " + std::to_string(b.cols) + " columns exceed 32-bit ids");
  // Rows in contiguous ranges, in parallel; the first range with a bad row has the first
  // bad row, so the message is the one a serial check gives.
  std::mutex m;
  std::uint64_t longest = 0;
  std::optional<std::pair<std::uint64_t, std::string>> first_error;  // (range start, message)
  const std::uint64_t parts = std::clamp<std::uint64_t>(threads, 1, std::max<std::uint64_t>(b.rows, 1));
  const std::vector<std::uint64_t> cuts = balanced_row_cuts(b, parts);
  parallel_ranges(parts, static_cast<unsigned>(parts), [&](std::uint64_t part, std::uint64_t) {
    const std::uint64_t first = cuts[part], last = cuts[part + 1];
    std::uint64_t mine = 0;
    std::optional<std::string> error = check_rows(b, first, last, mine, at);
    std::lock_guard lock(m);
    longest = std::max(longest, mine);
    if (error && (!first_error || first < first_error->first)) first_error.emplace(first, std::move(*error));
  });
  if (first_error) throw Error(first_error->second);
  if (longest != b.max_degree)
    throw Error(at + ": max_degree attribute is " + std::to_string(b.max_degree) + " but the longest row has " +
                std::to_string(longest));
}

}  // namespace tricount
