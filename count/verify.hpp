// Built-in verifier (as GAPBS has one): re-counts a block file on one rank by a method that
// shares nothing with the backends. It rebuilds the whole oriented graph from the blocks
// with global ids, sorts each out-list, and sums |N+(u) ∩ N+(v)| over oriented edges u -> v
// by merging: every triangle of an acyclic orientation has exactly one such (u, v). Needs the
// whole graph in one rank's memory: meant for checking, not for scale.
#pragma once

#include "src/block_format.hpp"

namespace tricount {

count_t verify_count(const BlockFileReader& file);

}  // namespace tricount
