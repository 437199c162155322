// Kronecker products of small graphs, A = A1 ⊗ A2 ⊗ ... ⊗ Ak (Kepner et al., "Design,
// Generation, and Validation of Extreme Scale Power-Law Graphs", IPDPSW 2018): the product's
// vertex, edge and triangle counts follow in closed form from the factors', so a graph of
// any size comes with its exact triangle count known before it is generated, and each of
// its edges is a function of its index alone (any number of threads or ranks can write
// their share). The counts are those of the graph tricount counts: undirected, self-loops
// dropped, vertices without an edge dropped.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "input/edge_source.hpp"
#include "src/types.hpp"

namespace tricount {

// One factor: an undirected graph on vertices 0..vertices-1; self-loops are part of it.
struct ProductFactor {
  std::string name;                            // as given in --factors
  std::uint64_t vertices = 0;                  // n
  std::vector<std::pair<vid_t, vid_t>> edges;  // u <= v (u == v: a self-loop), sorted, unique
};

// The --factors syntax, for --help and messages.
extern const char* const kFactorSyntax;

// One factor from its spec: a built-in (triangle, K<n>, star<n>, path<n>, cycle<n>,
// random<n>:<m>:<seed>) or an edge-list file, optionally "+loops"; "^<k>" repeats it.
// Throws UsageError for a bad spec, Error for a file that cannot be read or has no edge.
std::vector<ProductFactor> parse_factor(const std::string& spec);
// "F1,F2,...": every factor in order (a repeated one once per copy).
std::vector<ProductFactor> parse_factor_list(const std::string& list);

// What the closed form needs of a factor A (symmetric 0/1) with diagonal D.
struct FactorStats {
  std::uint64_t vertices = 0;      // n
  std::uint64_t isolated = 0;      // vertices with no entry at all (not even a self-loop)
  std::uint64_t loop_only = 0;     // vertices whose only entry is their self-loop
  std::uint64_t entries = 0;       // nnz(A): each undirected edge twice, each self-loop once
  std::uint64_t loops = 0;         // tr(A) = tr(D)
  std::uint64_t trace_a3 = 0;      // tr(A^3)
  std::uint64_t loop_degrees = 0;  // tr(D A^2): the degrees (self-loop included) of the looped vertices
  std::uint64_t triangles = 0;     // of the factor without its self-loops
};
FactorStats factor_stats(const ProductFactor& factor);

struct ProductCounts {
  std::uint64_t vertex_ids = 0;  // prod n_i: the written ids are 0..vertex_ids-1
  std::uint64_t vertices = 0;    // of those, the ones with an edge (tricount-partition's |V|)
  std::uint64_t edges = 0;       // undirected, without self-loops: |E|, and the edges written
  std::uint64_t triangles = 0;
};
// The closed form (derived in kronecker_product.cpp). Throws Error when a count does not fit
// in 64 bits or the product has more than 2^32 - 1 vertex ids.
ProductCounts product_counts(const std::vector<FactorStats>& factors);

class KroneckerProduct {
 public:
  // Throws UsageError when there is no factor, too many, or the product is too large.
  explicit KroneckerProduct(std::vector<ProductFactor> factors);

  const ProductCounts& counts() const { return counts_; }
  const std::vector<ProductFactor>& factors() const { return factors_; }
  std::string description() const;  // "kronecker-product F1 x F2 x ..."
  // Edge `index` of [0, counts().edges): each undirected edge of the product once, u != v.
  RawEdge edge(std::uint64_t index) const;

 private:
  struct Table {
    std::vector<std::uint64_t> loops, upper, all;  // (u << 32) | v: self-loops, u < v, every entry
  };
  std::vector<ProductFactor> factors_;
  std::vector<Table> tables_;
  std::vector<std::uint64_t> stride_;       // vertex id = sum of u_i * stride_[i]
  std::vector<std::uint64_t> level_first_;  // first edge index whose first non-loop factor is i
  ProductCounts counts_;
};

}  // namespace tricount
