// A graph's shape at n parts: what the simulator needs of a graph (|V|, |E|, each block's
// bytes, each subtask's work), from a block file, from its small JSON file (made where the
// block file is, read anywhere), or made up from a size (even tasks and blocks).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/block_format.hpp"

namespace tricount {

struct GraphShape {
  std::string description;
  std::uint64_t vertices = 0, edges = 0;
  std::uint32_t parts = 1;
  std::vector<std::uint64_t> subtask_work;  // n^3, indexed (i * n + j) * n + k
  std::vector<std::uint64_t> block_bytes;   // n^2, row-major: CSR bytes, what a GPU holds
  // What a GPU reads, receives and uploads of each block: packed blocks' stored bytes (n^2;
  // empty: block_bytes), and the upload's seconds per such byte against a CSR byte's (a packed
  // block is decoded on the GPU as it lands).
  std::vector<std::uint64_t> stored_bytes;
  double upload_cost = 1.0;
  const std::vector<std::uint64_t>& loaded_bytes() const { return stored_bytes.empty() ? block_bytes : stored_bytes; }
  std::uint64_t total_work() const;
  std::uint64_t max_block_bytes() const;
};

// A shape as a small JSON file (|V|, |E|, n, block bytes, subtask work): what the fit and a
// prediction need of a block file, without the file (made where the file is, read anywhere).
std::string graph_shape_json(const GraphShape& shape);
void save_graph_shape(const GraphShape& shape, const std::string& path);
GraphShape load_graph_shape(const std::string& path);  // throws Error naming the file and field

// The bytes of block (i, j) holding `nnz` neighbours of a graph of `vertices` at n parts.
std::uint64_t block_bytes_of(std::uint64_t vertices, std::uint32_t parts, std::uint32_t row_class, std::uint64_t nnz);
// The bytes of every block of a file (n x n, row-major), from its attributes.
std::vector<std::uint64_t> file_block_bytes(const BlockFileReader& file);
// What each block of a count at `count_parts` (a journal's parts: tricount-count --count-parts
// n_c, a divisor of the file's n) loads: its file blocks' bytes summed (file_block_bytes at
// n_c = n). Error naming `journal` unless n_c divides the file's parts.
std::vector<std::uint64_t> count_block_bytes(const BlockFileReader& file, std::uint32_t count_parts, const std::string& journal);
// A packed block's stored bytes for a block of `nnz` neighbours at n parts, from the packed
// files' measured bytes per edge and per row (bench/RESULTS.md §6, packed blocks).
std::uint64_t packed_bytes_of(std::uint64_t vertices, std::uint32_t parts, std::uint32_t row_class, std::uint64_t nnz);
// The shape with every block packed: stored_bytes from packed_bytes_of, the packed upload cost.
void pack_shape(GraphShape& shape);
// The shape of its graph counted as n_c = `count_parts` parts (tricount-count --count-parts,
// src/task_plan.hpp): subtask work and neighbours summed into the count blocks (each a CSR at
// n_c, what a GPU holds), each count block loading the stored bytes of its file blocks.
// UsageError unless n_c divides the shape's parts; the shape itself where it is its parts.
GraphShape count_parts_shape(const GraphShape& shape, std::uint32_t count_parts);
// The shape of the block file at `path` (Error when it has no /task_work estimates); a
// packed file's blocks carry their stored bytes.
GraphShape file_shape(const std::string& path);
// A synthetic graph of `vertices`, `edges` and total work at n parts: even tasks and blocks.
GraphShape synthetic_shape(const std::string& description, std::uint64_t vertices, std::uint64_t edges,
                           std::uint64_t total_work, std::uint32_t parts);
// The shape of a graph of that size at the parts of the real block file `like` (a smaller
// graph of the same family, partitioned at the same n; Kronecker graphs are self-similar):
// its /task_work scaled to the size's total work, its blocks' neighbours to the size's edges.
GraphShape like_shape(const std::string& description, std::uint64_t vertices, std::uint64_t edges, std::uint64_t total_work,
                      const std::string& like);

}  // namespace tricount
