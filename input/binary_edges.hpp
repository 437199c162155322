// The binary edge reader (input/binary_edges.cpp): pairs of little-endian ids.
#pragma once

#include <memory>
#include <string>

#include "input/edge_source.hpp"

namespace tricount {

// word_bytes: 4 (bin32) or 8 (bin64). Throws Error naming the file when its size is not
// whole pairs.
std::unique_ptr<EdgeSource> open_binary_edges(const std::string& path, unsigned word_bytes);

}  // namespace tricount
