// The worker's counting backend: counts the triangles of one task from its block triple.
// The CPU and CUDA backends implement this same interface; nothing outside worker/ knows
// which one runs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/task_plan.hpp"
#include "src/types.hpp"

namespace tricount {

// A read-only view of one CSR block in host memory (see CsrBlock). `serial` identifies the
// loaded block within this process: the same serial means the same bytes, so a backend may
// keep a device copy keyed by it instead of copying again.
struct BlockView {
  BlockId id;
  std::uint64_t serial = 0;
  std::uint64_t rows = 0;
  std::uint64_t cols = 0;
  std::uint64_t nnz = 0;
  std::uint32_t max_degree = 0;
  const eoff_t* offsets = nullptr;   // rows + 1
  const vid_t* neighbors = nullptr;  // nnz
  std::uint64_t nonempty_rows = 0;   // rows with a neighbour (0: not counted; plans then use rows)
  // A packed block given undecoded (offsets and neighbors null; CountBackend::decodes_packed):
  // its group index (2 (groups + 1) entries) and words, as stored (src/packed_block.hpp).
  const std::uint64_t* packed_index = nullptr;
  const std::uint32_t* packed_words = nullptr;
  std::uint64_t packed_word_count = 0;
  bool packed() const { return packed_index != nullptr; }
  // A count block given as its file blocks (tricount-count --count-parts, for a backend that
  // re-blocks them: CountBackend::reblocks): `group`^2 views in file_blocks_of's order
  // (src/task_plan.hpp); rows, cols and nnz are the count block's, max_degree and
  // nonempty_rows unknown (0), offsets and neighbors null.
  const BlockView* parts = nullptr;
  std::uint32_t group = 1;
  bool composite() const { return parts != nullptr; }
};

// Task (i, j, k, s): rows u of class i with split_of_row(u, splits) == split.
struct TaskBlocks {
  BlockView hash;     // P(i,k): u's table
  BlockView one_hop;  // P(i,j): u -> v
  BlockView two_hop;  // P(j,k): v -> w, probed in u's table
  std::uint32_t split = 0;
  std::uint32_t splits = 1;
};

// An edge's triangle count (its support): at most |V| - 2, and local ids are 32-bit.
using edge_count_t = std::uint32_t;

struct CountStats {
  double transfer_seconds = 0;       // host -> device copies (0 on the CPU)
  double count_seconds = 0;          // hash building and all kernels
  std::uint64_t bytes_transferred = 0;
};

// Where creating a backend went, in seconds (0 for a step a backend does not have).
struct BackendStartTimes {
  double device = 0;   // the device chosen and its context created
  double memory = 0;   // streams, events, device buffers, pinned staging buffers
  double kernels = 0;  // kernel attributes and the self-test (every kernel loaded once)
};

class CountBackend {
 public:
  virtual ~CountBackend() = default;
  virtual std::string_view name() const = 0;      // "cpu" or "cuda"
  virtual std::string device_name() const = 0;    // e.g. "NVIDIA H200" or "2 CPU threads"
  // Where its creation went (the report's backend_steps_seconds).
  virtual BackendStartTimes start_times() const { return {}; }
  // Whether count() and make_resident() take packed blocks undecoded (BlockView::packed()):
  // the CUDA backend decodes them on the device, after uploading their stored bytes.
  virtual bool decodes_packed() const { return false; }
  // Whether count() and make_resident() take composite blocks (BlockView::composite) and
  // re-block them themselves (the CUDA backend, on the device); else the worker re-blocks
  // them in host memory (worker/reblock.hpp) before count().
  virtual bool reblocks() const { return false; }
  // Counts the task's triangles; adds its times to `stats`.
  virtual count_t count(const TaskBlocks& blocks, CountStats& stats) = 0;

  // A hint for the count() that follows this call: `next` returns the blocks of the task to
  // be counted after it, waiting until they are in host memory, or null when there are none.
  // A backend that copies blocks to a device may call it once during that count(), after
  // its own work is launched, and copy them while that work runs (the CUDA backend: on a
  // second stream; a block the running task uses is never evicted for them). The blocks
  // stay valid until the count() after it returns. The default ignores it (so does the CPU
  // backend, which counts from host memory).
  virtual void prefetch_next(std::function<const TaskBlocks*()> next) { (void)next; }

  // The static schedule's load phase (tricount-count --schedule static): every block the
  // worker's tasks use, before counting, so that count() copies none of them. The CUDA
  // backend uploads them to its device cache (an Error naming the bytes and the GPU when they
  // do not fit); the CPU backend counts from host memory and does nothing. Adds the copies
  // to `stats`.
  virtual void make_resident(const std::vector<BlockView>& blocks, CountStats& stats) {
    (void)blocks;
    (void)stats;
  }

  // Per-vertex counting (tricount-count --per-vertex). Subtask (i, j, k) finds each of its
  // triangles (u, v, w) once, with u in class i, v in class j and w in class k, each named by
  // its local id (its row or column index in the blocks). Once started, every count() also
  // adds 1 per triangle to each of the three vertices' counters. The backend keeps one array
  // per class that a task touched (class c has class_vertices[c] local ids), so it holds at
  // most |V| / n counters per class; take_vertex_counts(c) hands class c's counters out
  // (all zero if no task touched c) and frees them, once the worker's tasks are done.
  virtual void start_per_vertex(std::vector<std::uint64_t> class_vertices) {
    (void)class_vertices;
    throw Error("the " + std::string(name()) + " backend cannot count triangles per vertex");
  }
  virtual std::vector<count_t> take_vertex_counts(std::uint32_t c) {
    (void)c;
    throw Error("the " + std::string(name()) + " backend cannot count triangles per vertex");
  }

  // Per-edge counting (tricount-count --per-edge). Once started, every count() also adds 1
  // per triangle (u, v, w) of subtask (i, j, k) to each of its three edges' counters, an edge
  // named by its position in its block's neighbour array: (u, v) in P(i,j), (u, w) in P(i,k)
  // and (v, w) in P(j,k). The backend keeps one array per block a task touched (block
  // (r, c) has block_nnz[r * parts + c] edges); take_edge_counts(id) hands that block's
  // counters out (all zero if no task touched it) and frees them, once the worker's tasks
  // are done. Per-vertex counting may run beside it.
  virtual void start_per_edge(std::uint32_t parts, std::vector<std::uint64_t> block_nnz) {
    (void)parts;
    (void)block_nnz;
    throw Error("the " + std::string(name()) + " backend cannot count triangles per edge yet: use --backend cpu");
  }
  virtual std::vector<edge_count_t> take_edge_counts(BlockId id) {
    (void)id;
    throw Error("the " + std::string(name()) + " backend cannot count triangles per edge yet: use --backend cpu");
  }
};

enum class BackendKind { Auto, Cpu, Cuda };
BackendKind parse_backend_kind(std::string_view name);  // throws UsageError

// How the CUDA backend counts: the defaults are what ships (bench/RESULTS.md has the
// measurements behind each); tests force correctness paths and benchmarks try variants by
// changing fields. Programs parse it from --cuda-tuning (parse_cuda_tuning); the backend
// never reads the environment.
struct CudaTuning {
  // Correctness paths (no effect on the count, only on how it is reached).
  std::uint32_t shared_words_cap = 0xFFFFFFFFu;  // cap on a table's shared words (>= 64): global levels, CTA rows
  std::uint32_t table_limit = 0xFFFFFFFFu;       // rows with more keys probe by binary search
  bool collide = false;                          // every key hashes to bucket 0 (linear probing only)
  std::uint64_t device_bytes = 0;                // device memory the backend may use (0: all; eviction, errors)
  bool profile = false;                          // every step in sequence, each one's time to stderr
  // Tables. 4 buckets per key and up to 4 shared levels of a warp table: a warp's lanes probe
  // 32 buckets at once and the whole warp follows whichever lane must walk further (H200,
  // uniform 2^24: 20.91 ms at 2 buckets and 2 levels, 19.18 at 4 and 4).
  std::uint32_t buckets_log2 = 2;                // buckets per key, log2 (0..3)
  std::uint32_t warp_table_levels = 4;           // shared levels of a warp table, at most (1..16)
  // Default CTA table: 16 KiB, so 6 CTAs fit an SM (48 KiB tables were slower on Kronecker).
  std::uint32_t cta_table_words = 4096;          // shared words of a CTA table (64..16384)
  // A CTA row's key bitmap: 16 KiB (131,072 bits); 32 KiB was 5% slower with the v side.
  std::uint32_t bitmap_words = 4096;             // 0: no bitmaps
  // Warp path: 8 lanes per row where the average row has less 2-hop work than
  // small_row_work (3D grid 128^3: 0.87 ms with 32 lanes, 0.44 with 8), else 32.
  std::uint32_t warp_lanes = 0;                  // 0: by the task; 8 or 32 forces it
  double small_row_work = 32;                    // 1-hop times 2-hop average degree
  bool thread_rows = true;                       // one thread per row where every row is tiny
  // One thread per row with a 128-bit key filter where no row can be a CTA row and no edge
  // goes to v's side: 1 where no 2-hop list is longer than 64 and the average 1-hop row has at
  // most filter_row_average entries, 2 whatever the lists and rows. H200, uniform 2^24: faster
  // with rows of 2-8 entries (2-8 parts), slower with 12 and 16 (bench/RESULTS.md, issue 34).
  std::uint32_t filter_rows = 1;                 // 0: never
  double filter_row_average = 10;
  bool direct_warp_rows = true;                  // no classification where no row can be a CTA row
  // Sides whose every row goes to the warp kernel: a warp stages up to 32 consecutive rows'
  // keys and 1-hop bounds at once and walks all their 2-hop lists as one (count_batch_rows):
  // 0 never, 1 where the 2-hop lists are short (uniform graphs), 2 wherever the rows fit.
  std::uint32_t batch_rows = 1;
  // Classified rows whose hash and 1-hop lists both have at most tiny_rows entries (1..8)
  // go to a kernel of one thread per row instead of a warp's tiles: more parts make most
  // rows that small (bench/RESULTS.md, issue 28).
  std::uint32_t tiny_rows = 8;                   // 0: none
  // Reverse search: warp rows search u's keys in 2-hop lists longer than search_ratio times
  // them (32: 3% slower on Kronecker), with its kernel only for 2-hop blocks with a row of
  // search_min_list.
  std::uint32_t search_ratio = 16;               // 0: always probe
  std::uint32_t search_min_list = 128;
  // The transposed v side (worker/cuda/v_side.cuh): an edge (u, v) whose 2-hop list is longer
  // than v_side_quarters / 4 times u's keys is counted from v's side, in tasks whose
  // 2-hop block has a row of v_side_min_list; v's 2-hop lists of v_side_trim or more skip
  // the part below v's smallest key.
  std::uint32_t v_side = 1;                      // 0 never, 1 by the blocks, 2 in every task
  std::uint32_t v_side_quarters = 4;
  std::uint32_t v_side_min_list = 128;
  std::uint32_t v_side_trim = 32;                // 0: no trim
  // Per-vertex counting: a CTA row with a key bitmap sums w's hits per key by the key's rank
  // (false: in the hashed tally every other row uses; bench/RESULTS.md, issue 34).
  bool rank_counts = true;
  // Per-edge counting runs the counting kernels' kPerEdge variants; true: per_edge.cuh's
  // sorted-list kernel instead.
  bool edge_lists = false;
  // v's 2-hop list bounds gathered from a 32-bit copy of the block's offsets where its entries
  // fit 32 bits: half the bytes per random gather (bench/RESULTS.md, issue 34).
  bool narrow_offsets = true;
  // The u side keeps each edge it gives v's side's place in T, so that T is written with no
  // atomic: 0 never, 1 where T's entries fit the L2, 2 always (worker/cuda/v_side.cuh).
  std::uint32_t t_places = 1;
};

// "key=value,key=value" (keys as cuda_tuning_keys() lists) over the defaults. Throws
// UsageError naming the key for an unknown key or a value out of its range.
CudaTuning parse_cuda_tuning(std::string_view text);
// One line per key: "key=RANGE  what it does (default D)", for --help.
std::string cuda_tuning_keys();

// The CPU kernel's tuning (worker/cpu_backend.cpp); tests force its paths by changing fields.
struct CpuTuning {
  // A row u whose own list has at least this many entries is marked in a bitmap once and
  // every 2-hop list is tested against it (hub rows); shorter rows merge or gallop.
  std::uint64_t bitmap_min_degree = 256;
  // A pair gallops (the short list searched in the long one) when one list is more than
  // this many times longer than the other; else the two lists are merged.
  std::uint64_t gallop_ratio = 16;
  // Edges of P(i,j) a thread takes per grab from the shared counter: the task's edges
  // cut into about chunks_per_thread grabs per thread, at least chunk_edges each.
  std::uint64_t chunk_edges = 256;
  std::uint64_t chunks_per_thread = 64;
  // Tasks with fewer 1-hop plus 2-hop entries than this run on the calling thread alone.
  std::uint64_t min_parallel_entries = 65536;
  // Use AVX2 for merging when the processor has it (false: the portable merge).
  bool simd = true;
};

struct BackendOptions {
  unsigned threads = 0;              // CPU: 0 = all hardware threads
  int local_rank = 0;                // CUDA: the GPU is local_rank mod device count
  std::uint32_t cta_degree_threshold = 0;  // CUDA: degree from which a vertex gets a CTA (0: by the task, cta_threshold_for)
  std::uint32_t chunk_size = 0;      // CUDA: vertices taken per atomic grab (0 = default)
  CudaTuning cuda_tuning;            // CUDA: kernel variants and their parameters
  CpuTuning cpu_tuning;              // CPU: intersection choices and work chunks
};

// The CUDA backend's CTA threshold for a task whose blocks have `rows` rows: `option` where
// set, else 100 (TRUST's) on small blocks and 128 from 2^19 rows, where rows of 100-127
// neighbours run faster as warp rows than with a CTA each (bench/RESULTS.md, issue 34).
inline constexpr std::uint64_t kWideCtaThresholdRows = std::uint64_t{1} << 19;
constexpr std::uint32_t cta_threshold_for(std::uint32_t option, std::uint64_t rows) {
  return option != 0 ? option : rows >= kWideCtaThresholdRows ? 128 : 100;
}

// True when this build has the CUDA backend and at least one GPU is visible.
bool cuda_available();
// Starts the GPU driver and, for local_rank >= 0, the primary context of GPU local_rank mod
// the device count (the one a backend with that BackendOptions::local_rank takes), so that
// the backend created later finds both ready. `driver_started` is called once the driver has
// started (before the context is made), also where no GPU is visible. Never throws; false
// where no GPU is visible.
bool start_gpu(int local_rank, const std::function<void()>& driver_started = [] {});
// The device memory a backend of this kind would count in, in bytes: the CUDA backend's GPU
// (local_rank mod the device count), within CudaTuning::device_bytes when that is set; 0 for
// the CPU backend, which counts from host memory (Auto: as make_backend would choose).
std::uint64_t backend_device_bytes(BackendKind kind, const BackendOptions& options);
// Auto picks CUDA when available, else CPU. Cuda without a GPU (or without CUDA in the
// build) throws Error saying which.
std::unique_ptr<CountBackend> make_backend(BackendKind kind, const BackendOptions& options);

std::unique_ptr<CountBackend> make_cpu_backend(const BackendOptions& options);

}  // namespace tricount
