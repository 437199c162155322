// tricount-count GRAPH: what to count. A block file (HDF5, from tricount-partition) is
// counted as it is; any other input (an edge list, Matrix Market, binary pairs, a WebGraph
// BV graph) is first partitioned by rank 0 with the partitioner's one pipeline, into a
// temporary block file (removed when the count ends) or --save-blocks PATH (kept), with a
// layout chosen for the workers at hand. The other ranks wait for it without spinning and
// then count the file rank 0 names.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "input/edge_source.hpp"

namespace tricount {

namespace runs {
class ScratchDir;
}

struct InputRequest {
  std::string input;              // GRAPH as given
  InputFormat format = InputFormat::Auto;  // --format: auto (a block file, else the partitioner's detection)
  std::uint32_t parts = 0;        // --parts for the partition step (0: chosen)
  std::string save_blocks;        // --save-blocks PATH ("" = a temporary block file)
  std::string tmpdir;             // --tmpdir: the temporary block file and the partitioner's runs
  std::uint64_t cache_bytes = 0;  // the workers' --cache-size (0: its default): the layout is chosen to fit it
  std::uint64_t memory_budget = 0;  // --memory-budget of the partition step (0: half the machine's memory)
  bool progress = false;          // the partitioner's progress lines on stderr
  // The run's outputs (path, option), refused before partitioning when one names an edge-file
  // GRAPH: the count's own checks only see the block file.
  std::vector<std::pair<std::string, std::string>> outputs;
};

// The block file to count, and (on rank 0) what was done to get it. Owns the temporary
// block file: destroying it removes the file (the count must be over on every rank).
class PreparedInput {
 public:
  PreparedInput();
  ~PreparedInput();
  PreparedInput(PreparedInput&&) noexcept;
  PreparedInput& operator=(PreparedInput&&) noexcept;

  std::string block_file;     // every rank: the file to count
  bool partitioned = false;   // every rank: the input was not a block file
  // Rank 0, when partitioned:
  std::string format;         // the input's format (edgelist, mtx, bin32, bin64, webgraph)
  std::uint32_t parts = 0;
  double seconds = 0;         // partitioning time
  bool temporary = false;     // block_file is removed when this object is destroyed
  std::string note;           // the one line saying what was done
  std::unique_ptr<runs::ScratchDir> scratch;  // rank 0: the folder holding a temporary block file
};

// Collective. Rank 0 decides whether request.input is a block file and, if not, partitions
// it; every rank returns the same block_file. An error on rank 0 (a bad line, a missing
// file, a full disk) ends the call on every rank with its message (UsageError stays one).
PreparedInput prepare_input(MPI_Comm comm, const InputRequest& request);

// True when `path` is a block file to count as it is: an HDF5 file (by its signature), or
// a name ending in .h5 or .hdf5 (so that a missing one gets the block file's own error).
bool is_block_file(const std::string& path);

// The parts the partition step uses for a graph of about `edges` edges counted by workers
// with `cache_bytes` of block cache each: 1 when the whole graph fits half of the cache
// (every task then reads the one block), else the fewest whose block triple does, within the
// partitioner's limits. `why` says which. `cache_given`: the cache is the user's --cache-size,
// and one too small for a triple even at the most parts is a UsageError naming it.
std::uint32_t choose_parts(std::uint64_t edges, std::uint64_t cache_bytes, std::string* why = nullptr,
                           bool cache_given = false);

}  // namespace tricount
