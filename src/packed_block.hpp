// Packed blocks: a block's CSR in about a third of its bytes, the block file's "packed"
// encoding (format version 3; README "HDF5 block file").
//
// Rows are coded in groups of kPackedGroupRows. In each group three sequences are bit-packed
// in runs of kPackedRun values, each run with its own width (the bits of its largest value):
// the rows' lengths, the first neighbour of each non-empty row, and the gaps (neighbour minus
// the previous one, minus 1) inside rows. Ids ordered by degree make a row's neighbours
// cluster, so gaps are small; empty rows cost a few bits, not an 8-byte offset. A run of 32
// values of width w takes exactly w 32-bit words, so lane t of a warp decodes value t from at
// most two words, and the index gives every group's first word and first edge, so groups
// decode independently (threads here; warps on a GPU).
//
// A group, in 32-bit words: [its non-empty rows] [one width byte per run, padded to a word]
// [the lengths' runs] [the firsts' runs] [the gaps' runs]; a last partial run of k values
// takes ceil(k w / 32) words.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/block_format.hpp"

namespace tricount {

inline constexpr std::uint32_t kPackedGroupRows = 128;
inline constexpr std::uint32_t kPackedRun = 32;

TRICOUNT_HOST_DEVICE inline std::uint64_t packed_groups(std::uint64_t rows) {
  return (rows + kPackedGroupRows - 1) / kPackedGroupRows;
}
// Entries of a block's group index: each group's first word and first edge, then the words
// and edges in all.
TRICOUNT_HOST_DEVICE inline std::uint64_t packed_index_entries(std::uint64_t rows) { return 2 * (packed_groups(rows) + 1); }
// A packed block's stored bytes: its group index and its words.
TRICOUNT_HOST_DEVICE inline std::uint64_t packed_stored_bytes(std::uint64_t rows, std::uint64_t words) {
  return packed_index_entries(rows) * sizeof(std::uint64_t) + words * sizeof(std::uint32_t);
}
// The words of a run of `values` values of width w (at most 32 values).
TRICOUNT_HOST_DEVICE inline std::uint64_t packed_run_words(std::uint64_t values, unsigned w) { return (values * w + 31) / 32; }
// Value t of a run of width w (at most 32) whose words start at run[0].
TRICOUNT_HOST_DEVICE inline std::uint32_t packed_run_value(const std::uint32_t* run, std::uint64_t t, unsigned w) {
  if (w == 0) return 0;
  const std::uint64_t bit = t * w;
  const unsigned shift = bit % 32;
  std::uint64_t x = run[bit / 32] >> shift;
  if (shift + w > 32) x |= std::uint64_t{run[bit / 32 + 1]} << (32 - shift);
  return static_cast<std::uint32_t>(w == 32 ? x : x & ((std::uint64_t{1} << w) - 1));
}

struct PackedBlock {
  // Entries 2g and 2g + 1: group g's first word in `words` and its first edge (the CSR's
  // offsets[g * kPackedGroupRows]); the last pair: the words and edges in all.
  std::vector<std::uint64_t> index;
  BlockArray<std::uint32_t> words;
  std::uint64_t bytes() const { return index.size() * sizeof(std::uint64_t) + words.size() * sizeof(std::uint32_t); }
};

// The block's rows packed, groups spread over up to `threads` threads (the same words for any number).
PackedBlock pack_block(const CsrSpan& block, unsigned threads = 1);
// Row groups [first, last) alone: their words, laid end to end as in the whole block's, and
// their index pairs relative to the first group's word (the last pair: the words in all and
// the edge the next group starts at). pack_block is pack_groups(0, packed_groups(rows)).
PackedBlock pack_groups(const CsrSpan& block, std::uint64_t first, std::uint64_t last, unsigned threads = 1);

// Checks a packed block's group index (2 (packed_groups(rows) + 1) entries): it starts at 0,
// ends at the block's words and neighbours, never decreases and gives every group a word.
// Throws Error naming `at` (the file and block) and the group.
void check_packed_index(const std::uint64_t* index, std::uint64_t rows, std::uint64_t word_count, std::uint64_t nnz,
                        const std::string& at);

// Decodes a packed block of out.rows rows and `nnz` neighbours into out.offsets and
// out.neighbors (out.cols bounds the neighbours). index holds 2 (packed_groups(rows) + 1)
// entries, words word_count. Inconsistent data is an Error naming `where` and the group; no
// read or write goes outside the arrays given.
void unpack_block(const std::uint64_t* index, const std::uint32_t* words, std::uint64_t word_count, std::uint64_t nnz,
                  CsrBlock& out, const std::string& where, unsigned threads = 1);

}  // namespace tricount
