// Helpers shared by the test executables: temporary directories, files, running the built
// programs as child processes, small graph builders, and counting a partitioned graph in
// process with a backend (no MPI). A helper that two test files need lives here, once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
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
std::string source_dir();  // $TRICOUNT_SOURCE_DIR or the checkout these tests were built from

// The whole file as bytes ("" when it cannot be read).
std::string read_file(const std::string& path);
// Writes `bytes` to `path`, replacing it; a failed write fails the calling test.
void write_file(const std::string& path, const std::string& bytes);
// A template, so that it never makes a call ambiguous beside a test file's own contains().
template <class Text>
bool contains(const Text& text, std::string_view part) {
  return std::string_view(text).find(part) != std::string_view::npos;
}

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

// ---- The built programs, as a user runs them ----
constexpr double kProgramTimeout = 180;  // seconds: a hung program fails its test
std::string bin_path(const std::string& program);  // bin_dir()/program
ProcessResult run_generate(const std::vector<std::string>& args);
// tricount-partition --input INPUT --output OUTPUT --parts PARTS --quiet EXTRA...
ProcessResult run_partition(const std::string& input, const std::string& output, std::uint32_t parts,
                            const std::vector<std::string>& extra = {});
// tricount-count under mpiexec at `ranks`.
ProcessResult mpi_count(int ranks, const std::vector<std::string>& args);
// Counts a block file with one thread and `--json -`: the report is stdout.
ProcessResult count_json(int ranks, const std::string& h5, const std::vector<std::string>& extra = {});
// A random graph (2000 vertices, 20000 edges; a few hundred KB) partitioned by the program into `dir`.
std::string make_block_file(const TempDir& dir, std::uint32_t parts, const std::string& name = "good.h5");
// Any file in `dir` whose name contains ".tmp." (a leftover temporary output).
std::vector<std::string> temp_files(const std::string& dir);
// Text edge list: "u v" per line, '#'/'%' comments, extra columns ignored.
EdgePairs read_text_edges(const std::string& path);
bool on_path(const std::string& program);  // an executable of that name in $PATH

// A usage error: PROGRAM (partition, count under mpiexec -np 1, generate or simulate) given
// ARGS ("IN": a valid edge list, "OUT": an output path) exits 2 with "tricount-PROGRAM:
// error: ..." mentioning MENTIONS and writes no output.
struct UsageCase {
  const char* name;
  const char* program;
  std::vector<std::string> args;
  const char* mentions;
};
void PrintTo(const UsageCase& c, std::ostream* os);
void expect_usage_error(const UsageCase& c);
// --help: exit 0, "usage", and every one of `options` named (as --OPTION).
void expect_help(const ProcessResult& r, const std::vector<std::string>& options);

// After a program was given the real /dev/null (minor 3) or /dev/full (minor 7): true if it
// is still the device. A regressed program (as root) replaces it with a file: put the device
// back for everyone else on the machine, and return false.
bool device_intact(const std::string& path, unsigned minor);
// Symlinks at every name the old writers would have used (NAME.tmp.<pid>) for the next
// `count` pids, all pointing at `victim`.
void plant_temp_symlinks(const std::string& name, const std::string& victim, int count);

void write_text_edges(const std::string& path, const EdgePairs& edges);
std::vector<RawEdge> to_raw(const EdgePairs& edges);

// Graph builders.
EdgePairs complete_graph(std::uint64_t n, std::uint64_t first_id = 0);
EdgePairs random_graph(std::uint64_t vertices, std::uint64_t edges, std::uint64_t seed);
EdgePairs grid_2d(std::uint64_t w, std::uint64_t h);
// A w x h grid with one diagonal per cell: degrees at most 6, 2 (w - 1)(h - 1) triangles.
EdgePairs triangular_lattice(std::uint64_t w, std::uint64_t h);
// n vertices on a cycle, each joined to the next k: degree 2k, n k (k - 1) / 2 triangles (n > 3k).
EdgePairs circulant(std::uint64_t n, std::uint64_t k);
EdgePairs star(std::uint64_t leaves);
// A random graph with a clique (rows long enough for the CUDA CTA path), links into the clique
// and a star, so rows of every size class appear.
EdgePairs mixed_graph(std::uint64_t seed);

// Partitions in memory into parts x parts blocks (default options otherwise).
PartitionedGraph partition_graph(const EdgePairs& edges, std::uint32_t parts);
// Block serials unique across every graph of this process, so one backend (whose device
// cache is keyed by serial) may count several graphs.
std::uint64_t next_serial_base();
// The CUDA backend (BackendKind::Cuda) with these thresholds and tuning (0: the CTA threshold
// by the task, as shipped).
std::unique_ptr<CountBackend> cuda_backend(std::uint32_t cta_threshold = 0, std::uint32_t chunk = 0,
                                           const CudaTuning& tuning = {});
inline std::unique_ptr<CountBackend> cuda_backend(const CudaTuning& tuning, std::uint32_t cta_threshold = 0) {
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
// sorted (a packed block: flips a bit of its first word): the file opens and the block
// validates, but reading it fails its checksum.
void corrupt_block_neighbors(const std::string& path, const BlockId& id);

// A text table's rows without its '#' header lines (which name the input).
std::string table_rows(const std::string& text);

// Adds one to the stored degree of vertex `v` of a block file, in place: the file opens, but
// reading v's class of degrees fails its checksum.
void corrupt_stored_degree(const std::string& path, std::uint64_t v);
// Flips one byte of vertex v's input id in the block file's /vertex_map (contiguous).
void corrupt_vertex_map_entry(const std::string& path, std::uint64_t v);

// Swaps the groups of blocks `a` and `b` of a block file, in place (names only: each keeps its
// attributes and data), as an edit of the file by hand would.
void swap_block_groups(const std::string& path, const BlockId& a, const BlockId& b);
// Replaces attribute `name` of `object` (a path in the block file, "/" for the root) by an
// array of `count` copies of its value, of the same type (a number or a fixed string).
void make_attribute_an_array(const std::string& path, const std::string& object, const char* name, std::uint64_t count);

// A block file as written before the degrees were stored (no /degrees): what write_block_file
// writes, less write_degrees.
void write_block_file_without_degrees(const PartitionedGraph& graph, const std::string& output);

}  // namespace tricount::testing
