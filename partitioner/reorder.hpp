// Reordering: the separate, named step that gives vertices their final ids after
// orientation. The ids decide which class (id mod n) and which hash bucket a vertex falls
// in, so the order matters for balance and for hash collisions, never for the count.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/types.hpp"

namespace tricount {

enum class VertexOrder {
  Degree,      // ascending (degree, id): oriented edges then always go from lower to higher id
  Collective,  // TRUST: by collective degree, then out-degree (see reorder.cpp)
};

VertexOrder parse_vertex_order(std::string_view name);  // throws UsageError
std::string_view to_string(VertexOrder order);

// Oriented graph before renaming, as a CSR over the compact ids 0..V-1 (out-neighbours).
struct OrientedCsr {
  std::vector<eoff_t> offsets;  // V + 1
  std::vector<vid_t> targets;   // |E|
  std::uint64_t vertices() const { return offsets.empty() ? 0 : offsets.size() - 1; }
};

// Returns new_id[old]: a permutation of 0..V-1. `degree` is each vertex's undirected degree.
std::vector<vid_t> compute_vertex_order(VertexOrder order, const std::vector<vid_t>& degree,
                                        const OrientedCsr& oriented);

}  // namespace tricount
