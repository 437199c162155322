// Helpers shared by the test executables: temporary directories, running the built
// programs as child processes, small graph builders, and counting a partitioned graph in
// process with a backend (no MPI).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "partitioner/partition.hpp"
#include "worker/backend.hpp"

namespace tricount::testing {

using EdgePairs = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

std::string bin_dir();     // $TRICOUNT_BIN_DIR (set by ctest)
// $TRICOUNT_GRAPHS_DIR, else ../shared/data/graphs beside the checkout when it is there, else
// data/graphs of the checkout (scripts/fetch-graphs); LAW's webgraph/ folder is its sibling.
std::string graphs_dir();
// What a data test that skips says: the command that makes it run.
std::string fetch_graphs_hint();
std::string mpiexec();     // $TRICOUNT_MPIEXEC or "mpiexec"

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

struct ProcessResult {
  int exit_code = -1;  // 128 + signal when killed
  std::string out, err;
  bool timed_out = false;
};
// Runs argv[0] with arguments (no shell), capturing stdout and stderr.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds = 600);
// Exit code, the tails of stdout and stderr, and a hint when the program could not start:
// what an assertion on a child process should print.
std::string describe(const ProcessResult& result);
// mpiexec -np N --oversubscribe PROGRAM args...
std::vector<std::string> mpi_command(int ranks, const std::string& program, const std::vector<std::string>& args);

void write_text_edges(const std::string& path, const EdgePairs& edges);
std::vector<RawEdge> to_raw(const EdgePairs& edges);

// Graph builders.
EdgePairs complete_graph(std::uint64_t n, std::uint64_t first_id = 0);
EdgePairs random_graph(std::uint64_t vertices, std::uint64_t edges, std::uint64_t seed);
EdgePairs grid_2d(std::uint64_t w, std::uint64_t h);
EdgePairs star(std::uint64_t leaves);
// A random graph with a clique (rows long enough for the CUDA CTA path), links into the clique
// and a star, so rows of every size class appear.
EdgePairs mixed_graph(std::uint64_t seed);

// Partitions in memory into parts x parts blocks (default options otherwise).
PartitionedGraph partition_graph(const EdgePairs& edges, std::uint32_t parts);
// Block serials unique across every graph of this process, so one backend (whose device
// cache is keyed by serial) may count several graphs.
std::uint64_t next_serial_base();
// The CUDA backend (BackendKind::Cuda) with these thresholds and tuning.
std::unique_ptr<CountBackend> cuda_backend(std::uint32_t cta_threshold = 100, std::uint32_t chunk = 0,
                                           const CudaTuning& tuning = {});
inline std::unique_ptr<CountBackend> cuda_backend(const CudaTuning& tuning, std::uint32_t cta_threshold = 100) {
  return cuda_backend(cta_threshold, 0, tuning);
}

// Skips a GPU test (visibly) where this build or machine has no CUDA GPU.
#define TRICOUNT_REQUIRE_GPU()                                                                  \
  do {                                                                                          \
    if (!::tricount::cuda_available()) GTEST_SKIP() << "no CUDA GPU: this build or machine has none"; \
  } while (0)

// Counts every task of TaskPlan(graph.parts, splits) with `backend`, in this process.
count_t count_partitioned(const PartitionedGraph& graph, std::uint32_t splits, CountBackend& backend);
// Counts every task with `backend` counting per vertex; each vertex's triangles by input id
// (every vertex of the graph appears, with 0 where it is in none).
std::map<std::uint64_t, count_t> count_partitioned_per_vertex(const PartitionedGraph& graph, std::uint32_t splits,
                                                              CountBackend& backend);
// Partition in memory and count with the CPU backend.
count_t count_with_cpu(const EdgePairs& edges, std::uint32_t parts, std::uint32_t splits = 1,
                       VertexOrder order = VertexOrder::Degree);

// Parses "key": number out of a JSON text (enough for our own flat reports).
std::uint64_t json_uint(const std::string& json, const std::string& key);
// Every "key": number of a JSON text, in order (one per entry of the report's per_rank).
std::vector<double> json_numbers(const std::string& json, const std::string& key);

// Lowers one neighbour of block `id` of a block file by one, in place, where its row stays
// sorted: the file opens and the block validates, but reading it fails its checksum.
void corrupt_block_neighbors(const std::string& path, const BlockId& id);

}  // namespace tricount::testing
