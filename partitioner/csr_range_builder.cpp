#include "partitioner/csr_range_builder.hpp"

#include <algorithm>
#include <string>

namespace tricount::pipeline {

CsrRangeBuilder::CsrRangeBuilder(std::uint64_t row_lo, std::uint64_t row_hi, std::uint64_t base, std::size_t piece,
                                 Sink& sink)
    : row_lo_(row_lo),
      row_hi_(row_hi),
      row_(row_lo),
      row_start_(base),
      pos_(base),
      nbr_first_(base),
      off_first_(row_lo + 1),
      sink_(sink),
      nbr_(std::max<std::size_t>(piece, 1)),
      off_(std::max<std::size_t>(piece, 1)) {
  if (row_hi < row_lo) throw Error("CsrRangeBuilder: empty row range");
}

void CsrRangeBuilder::close_row() {
  const std::uint64_t degree = pos_ - row_start_;
  max_degree_ = std::max<std::uint32_t>(max_degree_, static_cast<std::uint32_t>(degree));
  off_[no_++] = pos_;
  if (no_ == off_.size()) flush_offsets();
  ++row_;
  row_start_ = pos_;
}

void CsrRangeBuilder::advance_to(std::uint64_t row) {
  if (row < row_ || row >= row_hi_)
    throw Error("CsrRangeBuilder: entry of row " + std::to_string(row) + " outside rows [" + std::to_string(row_) + ", " +
                std::to_string(row_hi_) + ") or out of order");
  while (row_ < row) close_row();
}

void CsrRangeBuilder::flush_neighbors() {
  if (nn_ == 0) return;
  sink_.neighbors(nbr_first_, nbr_.data(), nn_);
  nbr_first_ += nn_;
  nn_ = 0;
}

void CsrRangeBuilder::flush_offsets() {
  if (no_ == 0) return;
  sink_.offsets(off_first_, off_.data(), no_);
  off_first_ += no_;
  no_ = 0;
}

void CsrRangeBuilder::finish() {
  while (row_ < row_hi_) close_row();
  flush_neighbors();
  flush_offsets();
}

}  // namespace tricount::pipeline
