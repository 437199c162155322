#include "partitioner/reorder.hpp"

namespace tricount {

VertexOrder parse_vertex_order(std::string_view name) {
  if (name == "degree") return VertexOrder::Degree;
  if (name == "collective") return VertexOrder::Collective;
  throw UsageError("--order: unknown order '" + std::string(name) + "' (choose degree or collective)");
}

std::string_view to_string(VertexOrder order) {
  switch (order) {
    case VertexOrder::Degree: return "degree";
    case VertexOrder::Collective: return "collective";
  }
  return "?";
}

}  // namespace tricount
