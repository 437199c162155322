// Deterministic synthetic graphs. Every edge is a pure function of (seed, edge index), so
// the same parameters give the same edges on any machine and with any number of threads,
// and a stream of more than 2^32 edges needs no state beyond its position.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "input/edge_source.hpp"

namespace tricount {

// Graph500 Kronecker: 2^scale vertices, edge_factor * 2^scale edges, initiator
// A, B, C = 0.57, 0.19, 0.19 (D = 0.05), vertex ids scrambled by the Graph500 permutation.
struct KroneckerSpec {
  unsigned scale = 16;
  std::uint64_t edge_factor = 16;
  std::uint64_t seed = 1;
  double a = 0.57, b = 0.19, c = 0.19;
  bool permute = true;
  unsigned threads = 0;  // threads per batch; 0: the cores this process may use (same edges for any)
};

// Uniform random: `edges` pairs of independent uniform endpoints in [0, vertices).
struct UniformSpec {
  std::uint64_t vertices = 1u << 16;
  std::uint64_t edges = 1u << 20;
  std::uint64_t seed = 1;
  unsigned threads = 0;  // threads per batch; 0: the cores this process may use (same edges for any)
};

// 3D grid nx * ny * nz with 6-neighbour connectivity: bipartite, so 0 triangles.
struct Grid3dSpec {
  std::uint64_t nx = 16, ny = 16, nz = 16;
};

// Each source's indexed() gives its edges by index (input/edge_source.hpp), so that a reader
// can split the index range between its threads.
std::unique_ptr<EdgeSource> make_kronecker_source(const KroneckerSpec& spec);
std::unique_ptr<EdgeSource> make_uniform_source(const UniformSpec& spec);
std::unique_ptr<EdgeSource> make_grid3d_source(const Grid3dSpec& spec);

// The edges of a Kronecker product of small graphs (input/kronecker_product.hpp), each
// undirected edge once, computed on `threads` threads (0: the cores this process may use);
// the same edges in the same order for any number.
class KroneckerProduct;
std::unique_ptr<EdgeSource> make_kronecker_product_source(std::shared_ptr<const KroneckerProduct> product,
                                                          unsigned threads = 0);

// Writes an edge stream as text ("u v\n") or binary little-endian uint32/uint64 pairs,
// to a temporary name renamed at the end. Returns the number of edges written.
enum class EdgeFileKind { Text, Bin32, Bin64 };
std::uint64_t write_edge_file(EdgeSource& source, const std::string& path, EdgeFileKind kind);

}  // namespace tricount
