// The text edge reader (input/text_edges.cpp): edge lists and Matrix Market, plain or gzip.
#pragma once

#include <memory>
#include <string>

#include "input/edge_source.hpp"

namespace tricount {

// format: EdgeList, MatrixMarket, or Auto (decided by the first line, see sniff_text_format).
std::unique_ptr<EdgeSource> open_text_edges(const std::string& path, InputFormat format, const EdgeFileOptions& options);

}  // namespace tricount
