// Reordering: the separate, named step that gives vertices their final ids after
// orientation. The ids decide which class (id mod n) and which hash bucket a vertex falls
// in, so the order matters for balance and for hash collisions, never for the count.
// The orders are defined here over vertex arrays; the pipeline's reorder stage
// (stage_reorder.cpp) gathers those arrays from the edges.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "partitioner/vertex_array.hpp"
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

// new_id[x] for ascending (degree[x], x), on up to `threads` threads: a stable counting sort
// of the degrees below a bound D (counts per thread and degree; D = max(4096, V / threads)
// when the largest degree is higher, so about 4 bytes a vertex), then the vertices of degree D
// and more, sorted (16 bytes each; at most 2|E| / 4096 of them).
VertexArray<vid_t> degree_order(std::span<const vid_t> degree, unsigned threads);

// new_id[x] for ascending (collective[x], out_degree[x], x): slices sorted on `threads`
// threads, then cut into key ranges that the threads merge, each handing out its ranks.
VertexArray<vid_t> collective_order(std::span<const std::uint64_t> collective, std::span<const vid_t> out_degree,
                                    unsigned threads);

}  // namespace tricount
