// A block's CSR (offsets and neighbours) built row range by row range from its sorted
// entries and handed out in bounded pieces: the write stage (stage_write.cpp) fills a block
// in memory or streams it into the HDF5 file through the same builder.
#pragma once

#include <cstddef>
#include <cstdint>

#include "partitioner/run_files.hpp"
#include "src/types.hpp"

namespace tricount::pipeline {

// Builds rows [row_lo, row_hi) of a block's CSR from its entries, keys (row << 32 | col) in
// ascending order, the first of them being neighbour number `base` of the block. Hands out
// offsets (entry r + 1 for row r) and neighbours in pieces of up to `piece` entries.
// Positions and counts are 64-bit: a block may hold more than 2^32 neighbours.
class CsrRangeBuilder {
 public:
  struct Sink {
    virtual ~Sink() = default;
    virtual void offsets(std::uint64_t first, const eoff_t* data, std::size_t count) = 0;
    virtual void neighbors(std::uint64_t first, const vid_t* data, std::size_t count) = 0;
  };
  CsrRangeBuilder(std::uint64_t row_lo, std::uint64_t row_hi, std::uint64_t base, std::size_t piece, Sink& sink);
  void add(std::uint64_t key) {
    const std::uint64_t row = key >> 32;
    if (row != row_) advance_to(row);
    nbr_[nn_++] = static_cast<vid_t>(key);
    ++pos_;
    if (nn_ == nbr_.size()) flush_neighbors();
  }
  void finish();                        // closes the rows up to row_hi, hands out the rest
  std::uint64_t position() const { return pos_; }  // base + entries added
  std::uint32_t max_degree() const { return max_degree_; }

 private:
  void advance_to(std::uint64_t row);
  void close_row();
  void flush_neighbors();
  void flush_offsets();
  std::uint64_t row_lo_, row_hi_, row_, row_start_, pos_, nbr_first_, off_first_;
  Sink& sink_;
  runs::IoBuffer<vid_t> nbr_;  // not zero-filled: a small block touches only what it fills
  runs::IoBuffer<eoff_t> off_;
  std::size_t nn_ = 0, no_ = 0;
  std::uint32_t max_degree_ = 0;
};

}  // namespace tricount::pipeline
