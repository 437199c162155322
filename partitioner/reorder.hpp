// Reordering: the separate, named step that gives vertices their final ids after
// orientation. The ids decide which class (id mod n) and which hash bucket a vertex falls
// in, so the order matters for balance and for hash collisions, never for the count.
#pragma once

#include <string>
#include <string_view>

#include "src/types.hpp"

namespace tricount {

enum class VertexOrder {
  Degree,      // ascending (degree, id): oriented edges then always go from lower to higher id
  // TRUST (Sec. 4): ascending (collective out-degree, out-degree, id), the collective
  // out-degree being a vertex's own out-degree plus its out-neighbours': vertices whose
  // out-neighbourhoods are probed together then do not share hash buckets.
  Collective,
};

VertexOrder parse_vertex_order(std::string_view name);  // throws UsageError
std::string_view to_string(VertexOrder order);

}  // namespace tricount
