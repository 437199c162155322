// Counts of a generated graph known before it was generated (tricount-generate --kind
// kronecker-product), kept beside its edge file as FILE.known (a small JSON object), so
// that tricount-partition can carry the triangle count into the block file and
// tricount-count can compare its count against it. A sidecar, not a header in the edge
// file: the binary formats have no room for one, and every reader keeps reading the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tricount {

struct KnownCounts {
  std::uint64_t vertex_ids = 0;  // ids 0..vertex_ids-1 in the edge file
  std::uint64_t vertices = 0;    // after tricount's cleaning (vertices without an edge dropped)
  std::uint64_t edges = 0;       // undirected, without self-loops or duplicates
  std::uint64_t triangles = 0;
  std::uint64_t file_bytes = 0;  // size of the edge file the counts describe
  std::string generator;         // what wrote the edge file
  std::string sidecar;           // where these were read from (for messages)
};

// FILE.known.
std::string known_sidecar_path(const std::string& edge_file);

// Writes FILE.known (temporary name, then renamed) for the edge file just written; its size
// is taken from the file.
void write_known_sidecar(const std::string& edge_file, KnownCounts known);

// The counts of FILE.known, or nullopt when there is none (or FILE is not a regular file).
// Throws Error naming the sidecar when it is unreadable or malformed, or when it describes
// a file of another size (a stale sidecar: delete it or regenerate both).
std::optional<KnownCounts> read_known_sidecar(const std::string& edge_file);

// Removes FILE.known if it is one tricount-generate wrote (after another graph was written
// to FILE, it would describe the wrong graph). Anything else there is left alone.
void remove_known_sidecar(const std::string& edge_file);

}  // namespace tricount
