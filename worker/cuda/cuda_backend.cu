// CUDA backend: TRUST's vertex-centric hashing on one GPU ("TRUST: Triangle Counting
// Reloaded on GPUs", Pandey et al., TPDS 2021), for one task's block triple.
//
// What it computes is exactly what cpu_backend.cpp computes: for every row u of class i in
// this workload split, the number of pairs (v, w) with v in N1(u) = P(i,j)[u] and
// w in N2(v) = P(j,k)[v] such that w is in H(u) = P(i,k)[u]. Each such pair is one
// triangle u -> v -> w with u -> w, so the sum over the n^3 * m tasks is the count.
//
// Assumptions, and why they hold:
//  * Neighbour lists are sorted ascending with no duplicates (CsrBlock's invariant, checked
//    by validate_block): keys of a table are distinct, so a bucket never holds a key twice,
//    and the key range [min H(u), max H(u)] and binary search are valid.
//  * Local ids are < 2^32 - 1 (vid_t) and a row's degree fits 32 bits; sums of up to 256
//    2-hop list lengths fit 32 bits (checked per task: max_degree * 256 < 2^32).
//  * Rows are numbered by ascending degree by the partitioner's reordering, so the end of
//    each work list holds the heaviest rows; both kernels take rows from the end. Any
//    other order is only slower, never wrong.
//
// The algorithm (count_kernels.cuh has the kernels, bucket_table.cuh the table,
// kernel_plan.cuh the choice of kernels, tables and grids for a task):
//  * Classify (CUB three-way partition): rows outside the split, or with no hash or no
//    1-hop neighbour (either one empty: no triangle), are skipped; rows with hash or
//    1-hop degree >= the task's CTA threshold (cta_threshold_for), or whose table would not fit a
//    warp's shared memory, go to the CTA list; tiny rows (hash and 1-hop lists of at most
//    CudaTuning::tiny_rows entries) to no list: count_tiny_rows takes them, one thread
//    each (more parts make most rows tiny); the rest to the warp list.
//  * Table: power-of-two buckets, about 4 per key; per bucket a head {length, first key}
//    in shared memory (lengths filled with shared-memory atomics), further levels
//    interleaved bucket-major so lanes probing different buckets at one level read
//    consecutive words; when a bucket is full, linear probing into the next bucket.
//  * Warp path: a warp builds u's table in its shared memory, then takes the 1-hop list
//    32 entries at a time: the 2-hop lists shorter than 32 are walked as one virtual list
//    (TRUST's virtual combination: a warp prefix sum of their lengths in slots of 4
//    consecutive elements, each lane finding its slot's list by binary search and loading
//    the slot's 4 elements before probing them), the
//    longer ones one at a time by the whole warp with 4 loads in flight per lane. Tasks
//    whose rows have almost no 2-hop work (grids) use tiles of 8 lanes per row instead of
//    a warp. Elements outside [min H(u), max H(u)] are not probed. A
//    2-hop list longer than 16 times u's key list (a hub's, seen from a light row) is not
//    walked: u's keys are searched in it instead (binary search, both lists sorted), as
//    the CPU backend does. That search lives in its own instance of the warp kernel, run
//    only when the 2-hop block has a row of at least 128 entries (its code costs the
//    register-capped kernel spills, which graphs of short lists would pay for nothing).
//  * CTA path: 256 threads build a larger table (levels past the shared ones in a per-CTA
//    global-memory area reused across rows); the warps take the 1-hop chunks from a shared
//    counter and probe as above, except that long lists are queued and cut into segments
//    of up to 128 elements shared by all warps, so one hub's list does not hold up the row
//    (a warp finds its segment's list with one ballot over the queue from its previous one,
//    and issues only the rounds of 32 the segment has). A
//    row whose table does not fit even with the global area is probed by binary search in
//    its sorted hash list instead. A CTA row whose key span max H(u) - min H(u) fits the
//    bitmap (default 131,072 bits: 16 KiB of shared memory, taken only when the task
//    can have CTA rows) holds its keys as a bitmap instead of a table: a probe is one range
//    check, one shared load and a bit test. Under the degree order a heavy row's keys all
//    lie above it, among the heavy rows, so the spans of the rows with the most work are
//    short. Nothing is ever dropped.
//  * The transposed v side (v_side.cuh), in tasks whose 2-hop block has a row of at least 128:
//    an edge (u, v) whose 2-hop list N2(v) is longer than u's keys H(u) is not walked on
//    u's side; those edges are gathered per v into a transposed block T, and the same two
//    kernels run again with hash P(j,k), 1-hop T and 2-hop P(i,k): v's table (or bitmap)
//    of N2(v) is probed with the keys of each u. Every edge is probed from its shorter
//    side, about the fewest probes a hash-based intersection can make (Kronecker 20: 1.4 G
//    instead of 3.9 G). On v's side the 2-hop lists H(u) start below v's keys (u < v), so
//    lists of 32 or more skip that part by binary search (Kronecker 18: 45% of the
//    elements v's CTA rows would walk).
//  * Tasks where no row can be a CTA row (largest hash and 1-hop degrees below the
//    threshold, tables that fit a warp) are not classified: the warp kernel walks every
//    row and skips the empty ones.
//    Where, besides, the 2-hop lists are short (at most 64: a sparse uniform graph, whose
//    blocks dwarf the L2), a warp takes 32 consecutive rows instead of one: their keys and
//    1-hop entries' bounds are staged in its shared memory with one round trip each, and all
//    their 2-hop lists are walked as one virtual list, an element probed by binary search in
//    its row's sorted keys (count_batch_rows, batch_rows.cuh): the warp kernel spends such a
//    row of about 16 entries in its chain of dependent loads.
//  * Tasks whose rows are all tiny (hash and 1-hop rows of at most 8 entries, 2-hop of
//    at most 64: grids, meshes) skip all of the above: one thread per row holds u's keys
//    and 1-hop entries in registers and compares the 2-hop elements against the keys
//    (count_thread_rows, one launch).
//  * Tasks with no CTA row and no v side whose 1-hop rows are short on average (a uniform
//    graph cut into parts: 2 to 8 entries) skip classification and the warp kernel too: one
//    thread per row, u's keys in a 128-bit filter, an element passing it searched for in u's
//    sorted keys (count_filter_rows, one launch).
//  * Dynamic assignment: warps and CTAs take rows from global atomic counters (warps in
//    chunks of BackendOptions::chunk_size rows; by default 1 to 16, growing with the row
//    count: one counter shared by every warp is the bottleneck on grids).
//  * v's list bounds are a random gather per 1-hop entry: where the 2-hop block's entries
//    fit 32 bits the task first copies its offsets to 32 bits (one pass over the rows), and
//    the kernels gather from the copy (half the bytes).
//  * The two kernels run concurrently on two streams; 64-bit counts per thread (grown once
//    per list, slot or segment from a 32-bit sum), cub::BlockReduce per CTA, one atomicAdd
//    of unsigned long long per CTA.
//  * Per-vertex counting (start_per_vertex): every kernel above has a kPerVertex variant
//    (per_vertex.cuh) that also adds each triangle to its three vertices' 64-bit counters,
//    one device array per class touched (allocated on first use, counted as working memory,
//    copied out and freed by take_vertex_counts); hits are summed per row, per 1-hop entry
//    and (in a shared tally) per w before any global atomic. The plain count compiles none of it.
//  * Per-edge counting (start_per_edge): the same kernels' kPerEdge form (per_vertex.cuh)
//    adds each triangle to its three edges' 32-bit counters per block, named by position
//    (T keeps each entry's P(i,j) position for the v side); beside per-vertex counting a task
//    runs the kernels twice, per vertex and per edge. With CudaTuning::edge_lists tasks run
//    per_edge.cuh's own kernel instead, a sorted-list intersection that knows where each
//    common w sits in both lists (and adds per vertex beside). A block's counters stay
//    on the device while every block's fit a quarter of its memory, else the others are
//    added into host arrays first; take_edge_counts sums the two.
//
// Memory: blocks are copied through two pinned staging buffers with cudaMemcpyAsync and
// kept in a device cache keyed by BlockView::serial (device_block_cache.hpp: least
// recently used evicted first when memory is short); a block triple that cannot fit is an
// Error naming how many times as many parts would make it fit (the task does not know
// n). The next task's blocks (CountBackend::prefetch_next) are copied on a second stream
// while the current task's kernels run, and the task that uses them waits for their copies
// on the device. One GPU per process: device = local_rank mod device count.
//
// Kernel variants and their parameters are BackendOptions::cuda_tuning (CudaTuning:
// defaults are what ships; tests force paths with it, tricount-count --cuda-tuning sets it).
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "src/packed_block.hpp"
#include "worker/cuda/count_kernels.cuh"
#include "worker/cuda/cuda_backend.hpp"
#include "worker/cuda/cuda_check.cuh"
#include "worker/cuda/device_block_cache.hpp"
#include "worker/cuda/kernel_plan.cuh"
#include "worker/cuda/per_edge.cuh"
#include "worker/cuda/v_side.cuh"

namespace tricount {

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

void cuda_start_context(int device) {
  if (cudaSetDevice(device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) cudaGetLastError();
}

std::uint64_t cuda_device_memory(int device) {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return prop.totalGlobalMem;
}

std::string cuda_status_message() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  cudaGetLastError();
  return err == cudaSuccess ? std::to_string(n) + " devices" : cudaGetErrorString(err);
}

namespace {

using namespace tricount::cuda;

// A side's row lists and counters on the device, filled by its classification and read by
// its kernels (index 0: CTA rows, 1: warp rows).
struct SideCounters {
  std::uint32_t list_sizes[2];
  std::uint32_t next[2];
};
// Everything a task's kernels count into; cleared with one memset per task.
struct DeviceCounters {
  SideCounters u;
  SideCounters v;
  unsigned long long result;
};

// A side's rows sorted into its CTA and warp lists.
struct SideRows {
  DeviceBuffer<vid_t> cta, warp;
};

// The working memory of a task (grows only, never shrinks).
struct KernelScratch {
  SideRows u_rows, v_rows;
  DeviceBuffer<unsigned long long> t_counts;  // edges per row of T while T is built
  DeviceBuffer<eoff_t> t_offsets;
  DeviceBuffer<vid_t> t_neighbors;
  DeviceBuffer<std::uint32_t> t_edges;        // per-edge: each T entry's position in P(i,j)
  DeviceBuffer<std::uint32_t> deferred_bits;  // which edges of P(i,j) v's side takes, a bit each
  DeviceBuffer<std::uint32_t> deferred_places; // ... and each one's place in its row of T (KernelPlan::t_places)
  DeviceBuffer<unsigned char> cub_temp;
  DeviceBuffer<vid_t> cta_levels;             // global levels of CTA tables, an area per CTA
  DeviceBuffer<std::uint32_t> narrow;         // the 2-hop block's offsets in 32 bits

  std::uint64_t bytes() const {
    return u_rows.cta.bytes() + u_rows.warp.bytes() + v_rows.cta.bytes() + v_rows.warp.bytes() + t_counts.bytes() +
           t_offsets.bytes() + t_neighbors.bytes() + t_edges.bytes() + deferred_bits.bytes() + deferred_places.bytes() + cub_temp.bytes() + cta_levels.bytes() + narrow.bytes();
  }
  // Throws Error when the device is out of memory.
  void reserve(const KernelPlan& plan) {
    u_rows.cta.reserve(plan.rows);
    u_rows.warp.reserve(plan.rows);
    cub_temp.reserve(std::max<std::size_t>(plan.cub_bytes, 1));
    cta_levels.reserve(std::max<std::uint64_t>(plan.cta_levels_words, 1));
    if (plan.narrow_rows) narrow.reserve(plan.narrow_rows + 1);
    if (plan.v) {
      v_rows.cta.reserve(plan.t_rows);
      v_rows.warp.reserve(plan.t_rows);
      t_counts.reserve(plan.t_rows + 1);
      t_offsets.reserve(plan.t_rows + 1);
      t_neighbors.reserve(std::max<std::uint64_t>(plan.t_entries, 1));
      if (plan.per_edge) t_edges.reserve(std::max<std::uint64_t>(plan.t_entries, 1));
      deferred_bits.reserve(plan.deferred_words);
      if (plan.t_places) deferred_places.reserve(std::max<std::uint64_t>(plan.t_entries, 1));
    }
  }
};

// Profiling (CudaTuning::profile): every step on one stream, an event after each.
using Marks = std::vector<std::pair<const char*, std::unique_ptr<Event>>>;

class CudaBackend final : public CountBackend {
 public:
  explicit CudaBackend(const BackendOptions& options) : options_(options) {
    const int devices = cuda_device_count();
    if (devices <= 0) throw Error("CUDA backend: no CUDA GPU is visible (" + cuda_status_message() + ")");
    device_ = (options.local_rank >= 0 ? options.local_rank : -options.local_rank) % devices;
    auto step_start = std::chrono::steady_clock::now();
    auto step_done = [&](double& into) {
      const auto now = std::chrono::steady_clock::now();
      into = std::chrono::duration<double>(now - step_start).count();
      step_start = now;
    };
    TRICOUNT_CUDA_TRY(cudaSetDevice(device_));
    TRICOUNT_CUDA_TRY(cudaFree(nullptr));  // the primary context created here, timed as the device's step
    TRICOUNT_CUDA_TRY(cudaGetDeviceProperties(&prop_, device_));
    step_done(start_times_.device);
    stream_ = std::make_unique<Stream>();
    side_ = std::make_unique<Stream>();
    ev_start_ = std::make_unique<Event>();
    ev_stop_ = std::make_unique<Event>();
    ev_fork_ = std::make_unique<Event>(false);
    ev_join_ = std::make_unique<Event>(false);
    cache_ = std::make_unique<DeviceBlockCache>(device_, prop_.name, options.cuda_tuning.device_bytes, stream_->get(),
                                                [this] { return scratch_.bytes() + counter_bytes(); });
    host_result_ = PinnedBuffer(sizeof(unsigned long long));
    counters_.allocate(1);
    step_done(start_times_.memory);

    // Shared-memory limits: raise the dynamic limit once to what the budgets allow.
    cudaFuncAttributes attr{};
    TRICOUNT_CUDA_TRY(cudaFuncGetAttributes(&attr, count_cta_rows<kCtaMinBlocks, 1>));
    limits_.multiprocessors = prop_.multiProcessorCount;
    limits_.l2_bytes = static_cast<std::uint64_t>(prop_.l2CacheSize);
    limits_.cta_dynamic_words = static_cast<std::uint32_t>((prop_.sharedMemPerBlockOptin - attr.sharedSizeBytes) / 4);
    const std::uint32_t cta_words = std::max(cta_table_budget_words(options.cuda_tuning, limits_), cta_bitmap_words(options.cuda_tuning, limits_));
    // Each kernel's defer mode (kDefer): none, the u side deferring, and keeping places.
    const std::array<std::pair<bool, bool>, 3> modes{{{false, false}, {true, false}, {true, true}}};
    for (auto [defer, places] : modes)
      with_cta_kernel(defer, places, [&](auto kernel) {
        TRICOUNT_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(cta_words * 4)));
      });
    for (std::uint32_t lanes : {8u, 32u})
      for (bool reverse : {false, true})
        for (auto [defer, places] : modes)
          with_warp_kernel(lanes, reverse, defer, places, [](auto kernel) {
            TRICOUNT_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   static_cast<int>(kTileBlockSharedWords * 4)));
          });
    // The per-vertex and per-edge variants: the same plus their words after the tables (per_vertex.cuh).
    const std::uint32_t cta_pv_words = std::min((cta_words + 1) / 2 * 2 + kCtaPerVertexWords, limits_.cta_dynamic_words);
    for (bool per_edge : {false, true}) {
      for (auto [defer, places] : modes)
        with_cta_kernel(defer, places, [&](auto kernel) {
          TRICOUNT_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(cta_pv_words * 4)));
        }, true, per_edge);
      for (std::uint32_t lanes : {8u, 32u})
        for (bool reverse : {false, true})
          for (auto [defer, places] : modes)
            with_warp_kernel(lanes, reverse, defer, places, [](auto kernel) {
              TRICOUNT_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     static_cast<int>((kTileBlockSharedWords + kTilePerVertexWords) * 4)));
            }, true, per_edge);
    }
    self_test();
    step_done(start_times_.kernels);
  }
  // The backend may be created on another thread than the one that ends it (run_count makes
  // it on a thread of its own): its memory is freed with its device current. Unchecked: a
  // destructor has no one to tell.
  ~CudaBackend() override {
    cudaSetDevice(device_);
    drop_first_host_counts();
  }

  std::string_view name() const override { return "cuda"; }
  bool decodes_packed() const override { return true; }
  bool reblocks() const override { return true; }
  std::string device_name() const override { return prop_.name; }
  BackendStartTimes start_times() const override { return start_times_; }

  void prefetch_next(std::function<const TaskBlocks*()> next) override { next_ = std::move(next); }

  count_t count(const TaskBlocks& given, CountStats& stats) override {
    // The hint is this count's only (an early return or an error drops it).
    std::function<const TaskBlocks*()> next = std::exchange(next_, nullptr);
    const TaskBlocks b = reblocked(given, stats);
    TRICOUNT_EXPECTS(b.one_hop.rows == b.hash.rows, "blocks " + std::to_string(b.one_hop.id.row_class) +
                                                        ": P(i,j) and P(i,k) disagree on the rows of class i");
    TRICOUNT_EXPECTS(b.two_hop.rows == b.one_hop.cols, "P(j,k) rows do not match the columns of P(i,j)");
    TRICOUNT_EXPECTS(b.two_hop.cols == b.hash.cols, "P(j,k) and P(i,k) disagree on the columns of class k");
    TRICOUNT_EXPECTS(b.splits >= 1 && b.split < b.splits, "workload split " + std::to_string(b.split) + " of " +
                                                              std::to_string(b.splits) + " is out of range");
    const std::uint64_t rows = b.one_hop.rows;
    if (rows == 0 || b.hash.nnz == 0 || b.one_hop.nnz == 0 || b.two_hop.nnz == 0) return 0;  // nothing to close
    TRICOUNT_EXPECTS(rows < kMaxVertices, "block " + block_label(b.one_hop) + " has too many rows for 32-bit ids");
    TRICOUNT_EXPECTS(std::uint64_t(b.two_hop.max_degree) * kCtaThreads < (std::uint64_t{1} << 32),
                     "block " + block_label(b.two_hop) + ": a row of " + std::to_string(b.two_hop.max_degree) +
                         " neighbours is beyond the CUDA backend's 32-bit prefix sums");
    TRICOUNT_CUDA_TRY(cudaSetDevice(device_));
    if (!class_vertices_.empty()) {
      const std::uint32_t i = b.one_hop.id.row_class, j = b.one_hop.id.col_class, k = b.hash.id.col_class;
      TRICOUNT_EXPECTS(i < class_vertices_.size() && j < class_vertices_.size() && k < class_vertices_.size(),
                       "per-vertex counting: subtask (" + std::to_string(i) + ", " + std::to_string(j) + ", " + std::to_string(k) +
                           ") names a class beyond the " + std::to_string(class_vertices_.size()) + " started");
      TRICOUNT_EXPECTS(class_vertices_[i] == rows && class_vertices_[j] == b.two_hop.rows && class_vertices_[k] == b.hash.cols,
                       "per-vertex counting: the blocks of subtask (" + std::to_string(i) + ", " + std::to_string(j) + ", " +
                           std::to_string(k) + ") disagree with the class sizes given to start_per_vertex");
      const VertexClasses classes{i, j, k};
      if (per_edge_ && options_.cuda_tuning.edge_lists) return run_per_edge(b, stats, &classes);
      if (per_edge_) {  // the kernels twice over the same blocks: per vertex, then per edge
        const count_t triangles = run(b, options_, stats, /*timed=*/true, &classes);
        const count_t again = run(b, options_, stats, /*timed=*/true, nullptr, next, /*edges=*/true);
        TRICOUNT_EXPECTS(again == triangles, "per-vertex and per-edge counting of one subtask disagree: " +
                                                 std::to_string(triangles) + " and " + std::to_string(again) + " triangles");
        return triangles;
      }
      return run(b, options_, stats, /*timed=*/true, &classes, next);
    }
    if (per_edge_ && options_.cuda_tuning.edge_lists) return run_per_edge(b, stats, nullptr);
    return run(b, options_, stats, /*timed=*/true, nullptr, next, per_edge_);
  }

  // The task's composite blocks (--count-parts) re-blocked on the device, given as plain
  // views of their device copies (the cache finds them by serial) with their exact shape.
  TaskBlocks reblocked(const TaskBlocks& b, CountStats& stats) {
    if (!b.hash.composite() && !b.one_hop.composite() && !b.two_hop.composite()) return b;
    TRICOUNT_CUDA_TRY(cudaSetDevice(device_));
    TaskBlocks out = b;
    std::vector<const DeviceBlock*> keep;
    for (BlockView* v : {&out.hash, &out.one_hop, &out.two_hop}) {
      if (!v->composite()) continue;
      const DeviceBlock& d = cache_->reblock(*v, keep, stats);
      keep.push_back(&d);
      v->parts = nullptr;
      v->group = 1;
      v->max_degree = d.max_degree;
      v->nonempty_rows = d.nonempty_rows;
    }
    return out;
  }

  void start_per_edge(std::uint32_t parts, std::vector<std::uint64_t> block_nnz) override {
    TRICOUNT_EXPECTS(block_nnz.size() == std::uint64_t{parts} * parts,
                     "start_per_edge: " + std::to_string(block_nnz.size()) + " block sizes for " + std::to_string(parts) + " parts");
    parts_ = parts;
    block_nnz_ = std::move(block_nnz);
    edge_counts_.clear();
    edge_counts_.resize(block_nnz_.size());
    host_edge_counts_.assign(block_nnz_.size(), {});
    // The caller's thread may not be the one that created the backend (its device is not current).
    TRICOUNT_CUDA_TRY(cudaSetDevice(device_));
    if (!edge_next_.get()) edge_next_.allocate(1);
    per_edge_ = true;
  }

  std::vector<edge_count_t> take_edge_counts(BlockId id) override {
    TRICOUNT_EXPECTS(per_edge_ && id.row_class < parts_ && id.col_class < parts_,
                     "take_edge_counts(P(" + std::to_string(id.row_class) + "," + std::to_string(id.col_class) +
                         ")) without start_per_edge for that block");
    TRICOUNT_CUDA_TRY(cudaSetDevice(device_));
    const std::uint64_t at = block_index(id);
    flush_edge_counts(at);
    std::vector<edge_count_t> counts = std::move(host_edge_counts_[at]);
    host_edge_counts_[at] = {};
    if (counts.empty()) counts.assign(block_nnz_[at], 0);  // no task touched the block
    return counts;
  }

  void make_resident(const std::vector<BlockView>& blocks, CountStats& stats) override {
    TRICOUNT_CUDA_TRY(cudaSetDevice(device_));
    cache_->preload(blocks, stats);
  }

  void start_per_vertex(std::vector<std::uint64_t> class_vertices) override {
    TRICOUNT_EXPECTS(!class_vertices.empty(), "per-vertex counting needs at least one class");
    for (std::size_t c = 0; c < class_vertices.size(); ++c)
      TRICOUNT_EXPECTS(class_vertices[c] < kMaxVertices, "per-vertex counting: class " + std::to_string(c) + " has " +
                                                             std::to_string(class_vertices[c]) + " vertices, beyond 32-bit local ids");
    vertex_counts_.clear();
    vertex_counts_.resize(class_vertices.size());
    class_vertices_ = std::move(class_vertices);
    drop_first_host_counts();
    first_host_counts_due_ = true;  // made once the first task's launches are queued (make_first_host_counts)
  }

  std::vector<count_t> take_vertex_counts(std::uint32_t c) override {
    TRICOUNT_EXPECTS(c < class_vertices_.size(), "take_vertex_counts(" + std::to_string(c) + "): per-vertex counting was started with " +
                                                     std::to_string(class_vertices_.size()) + " classes");
    static_assert(sizeof(count_t) == sizeof(unsigned long long), "device counters are copied as they are");
    if (c == 0) first_host_counts_due_ = false;  // taken before any task ran: a fresh array below
    HostCounts host = c == 0 && first_host_counts_.valid() ? first_host_counts_.get()
                                                           : HostCounts{std::vector<count_t>(class_vertices_[c], 0), false};
    std::vector<count_t> counts = std::move(host.counts);
    DeviceBuffer<unsigned long long>& dev = vertex_counts_[c];
    TRICOUNT_CUDA_TRY(cudaSetDevice(device_));
    const cudaError_t copied =
        dev.get() ? cudaMemcpy(counts.data(), dev.get(), counts.size() * sizeof(count_t), cudaMemcpyDeviceToHost) : cudaSuccess;
    if (host.pinned) cudaHostUnregister(counts.data());  // before the array leaves, whatever the copy did
    TRICOUNT_CUDA_TRY(copied);
    dev.release();
    return counts;
  }

 private:
  // Classes i, j, k of a task counted per vertex: whose counters its kernels add to.
  struct VertexClasses {
    std::uint32_t i, j, k;
  };

  // The first class's host array, allocated and its pages faulted in while the GPU counts:
  // after the count only the copy remains (the per-vertex step takes class 0 first). Pinned
  // there too (when the driver allows), so that the copy runs at the link's rate. Started
  // once a task's launches are queued: made while they were, its cudaHostRegister held them
  // up now and then (bench/RESULTS.md, issue 34).
  void make_first_host_counts() {
    if (!first_host_counts_due_) return;
    first_host_counts_due_ = false;
    first_host_counts_ = std::async(std::launch::async, [device = device_, n = class_vertices_[0]] {
      HostCounts h{std::vector<count_t>(n, 0), false};
      h.pinned = !h.counts.empty() && cudaSetDevice(device) == cudaSuccess &&
                 cudaHostRegister(h.counts.data(), h.counts.size() * sizeof(count_t), cudaHostRegisterDefault) == cudaSuccess;
      if (!h.pinned) cudaGetLastError();  // pageable then: the copy is slower, nothing else changes
      return h;
    });
  }

  // Class 0's host array, never taken (an error before the step): unpinned before it is freed.
  void drop_first_host_counts() {
    if (!first_host_counts_.valid()) return;
    try {
      HostCounts h = first_host_counts_.get();
      if (h.pinned) cudaHostUnregister(h.counts.data());
    } catch (...) {  // its allocation failed: nothing was pinned
    }
  }

  // Bytes of the per-vertex counters not yet on the device among `classes` (each counted once).
  std::uint64_t missing_counter_bytes(const VertexClasses& classes) const {
    std::uint64_t bytes = 0;
    std::vector<std::uint32_t> seen;
    for (std::uint32_t c : {classes.i, classes.j, classes.k}) {
      if (vertex_counts_[c].get() || std::find(seen.begin(), seen.end(), c) != seen.end()) continue;
      seen.push_back(c);
      bytes += std::max<std::uint64_t>(class_vertices_[c], 1) * sizeof(unsigned long long);
    }
    return bytes;
  }

  // The counters of `classes`, allocated and cleared on first use (after the cache made room).
  void ensure_counters(const VertexClasses& classes) {
    for (std::uint32_t c : {classes.i, classes.j, classes.k}) {
      DeviceBuffer<unsigned long long>& dev = vertex_counts_[c];
      if (dev.get()) continue;
      const std::uint64_t n = std::max<std::uint64_t>(class_vertices_[c], 1);
      if (!dev.try_allocate(n))
        throw Error("CUDA backend on " + std::string(prop_.name) + ": the per-vertex counters of class " + std::to_string(c) + " (" +
                    std::to_string(n * sizeof(unsigned long long)) +
                    " bytes) do not fit in device memory beside the blocks; run with more parts (--parts)");
      TRICOUNT_CUDA_TRY(cudaMemsetAsync(dev.get(), 0, n * sizeof(unsigned long long), *stream_));
    }
  }
  // A triangle through the whole pipeline: loads every kernel the options can pick once
  // (lazy module loading stays out of the first real timing) and proves the device answers
  // correctly on the thread, warp, CTA, reverse search and v side paths.
  void self_test() {
    const std::vector<eoff_t> offsets = {0, 2, 3, 3};
    const std::vector<vid_t> neighbors = {1, 2, 2};
    BlockView v;
    v.rows = v.cols = 3;
    v.nnz = 3;
    v.max_degree = 2;
    v.offsets = offsets.data();
    v.neighbors = neighbors.data();
    const TaskBlocks triangle{v, v, v, 0, 1};
    BackendOptions warp = options_;
    warp.cuda_tuning.thread_rows = false;
    warp.cuda_tuning.filter_rows = 0;
    BackendOptions cta = warp;
    cta.cta_degree_threshold = 1;
    BackendOptions reverse = warp;  // the warp kernel with the reverse search
    reverse.cuda_tuning.search_ratio = 1;
    reverse.cuda_tuning.search_min_list = 0;
    BackendOptions v_side = warp;  // every edge with a 2-hop list to v's side: edge (0, 1)
    v_side.cuda_tuning.v_side = 2;
    v_side.cuda_tuning.v_side_quarters = 0;
    BackendOptions filter = warp;  // one thread per row with a key filter
    filter.cuda_tuning.filter_rows = 2;
    const std::array<std::pair<const char*, const BackendOptions*>, 6> paths = {{{"thread", &options_},
                                                                                 {"warp", &warp},
                                                                                 {"CTA", &cta},
                                                                                 {"reverse search", &reverse},
                                                                                 {"v side", &v_side},
                                                                                 {"filter", &filter}}};
    std::string counted;
    bool all_one = true;
    for (const auto& [what, options] : paths) {
      CountStats unused;
      const count_t got = run(triangle, *options, unused, false);
      all_one = all_one && got == 1;
      counted += std::string(counted.empty() ? "" : ", ") + what + " " + std::to_string(got);
    }
    // The same triangle packed, decoded on the device (unpack.cuh).
    CsrBlock block;
    block.rows = block.cols = 3;
    block.max_degree = 2;
    block.offsets.assign(offsets.begin(), offsets.end());
    block.neighbors.assign(neighbors.begin(), neighbors.end());
    const PackedBlock packed = pack_block(block.span());
    BlockView pv = v;
    pv.offsets = nullptr;
    pv.neighbors = nullptr;
    pv.packed_index = packed.index.data();
    pv.packed_words = packed.words.data();
    pv.packed_word_count = packed.words.size();
    cache_->drop_unserialed();
    CountStats unused;
    const count_t got = run(TaskBlocks{pv, pv, pv, 0, 1}, warp, unused, false);
    all_one = all_one && got == 1;
    counted += ", packed " + std::to_string(got);
    if (!all_one)
      throw Error("CUDA backend self-test on " + std::string(prop_.name) + " counted " + counted +
                  " triangles in a triangle (expected 1 on each path)");
    cache_->drop_unserialed();
  }

  // Bytes of the per-vertex and per-edge counters on the device (counted against the memory cap).
  std::uint64_t counter_bytes() const {
    std::uint64_t bytes = 0;
    for (const auto& c : vertex_counts_) bytes += c.bytes();
    return bytes + edge_counter_bytes();
  }

  // ---- per-edge counting ----------------------------------------------------------------

  std::uint64_t block_index(BlockId id) const { return std::uint64_t{id.row_class} * parts_ + id.col_class; }
  std::uint64_t edge_counter_bytes() const {
    std::uint64_t bytes = 0;
    for (const auto& c : edge_counts_) bytes += c.bytes();
    return bytes;
  }
  // Adds block `at`'s device counters into its host array and frees them (nothing if none).
  void flush_edge_counts(std::uint64_t at) {
    DeviceBuffer<unsigned int>& dev = edge_counts_[at];
    if (!dev.get()) return;
    static_assert(sizeof(edge_count_t) == sizeof(unsigned int), "device edge counters are copied as they are");
    std::vector<edge_count_t>& host = host_edge_counts_[at];
    if (host.empty()) {
      host.resize(block_nnz_[at]);
      TRICOUNT_CUDA_TRY(cudaMemcpy(host.data(), dev.get(), host.size() * sizeof(edge_count_t), cudaMemcpyDeviceToHost));
    } else {
      std::vector<edge_count_t> more(block_nnz_[at]);
      TRICOUNT_CUDA_TRY(cudaMemcpy(more.data(), dev.get(), more.size() * sizeof(edge_count_t), cudaMemcpyDeviceToHost));
      for (std::size_t x = 0; x < more.size(); ++x) host[x] += more[x];
    }
    dev.release();
  }
  // The task's three blocks' counters on the device, allocated and cleared on first use;
  // where they would pass a quarter of the device's memory, the other blocks' go to the host first.
  void ensure_edge_counters(const TaskBlocks& b) {
    const std::array<const BlockView*, 3> views = {&b.hash, &b.one_hop, &b.two_hop};
    std::uint64_t missing = 0;
    for (const BlockView* v : views) {
      const std::uint64_t at = block_index(v->id);
      TRICOUNT_EXPECTS(v->id.row_class < parts_ && v->id.col_class < parts_ && v->nnz == block_nnz_[at],
                       "per-edge counting: block " + block_label(*v) + " of " + std::to_string(v->nnz) +
                           " edges is not a block given to start_per_edge");
      if (!edge_counts_[at].get()) missing += std::max<std::uint64_t>(v->nnz, 1) * sizeof(unsigned int);
    }
    const std::uint64_t cap = (options_.cuda_tuning.device_bytes ? options_.cuda_tuning.device_bytes : prop_.totalGlobalMem) / 4;
    if (missing && edge_counter_bytes() + missing > cap)
      for (std::uint64_t at = 0; at < edge_counts_.size(); ++at) {
        const bool used = std::any_of(views.begin(), views.end(), [&](const BlockView* v) { return block_index(v->id) == at; });
        if (!used) flush_edge_counts(at);
      }
    for (const BlockView* v : views) {
      DeviceBuffer<unsigned int>& dev = edge_counts_[block_index(v->id)];
      if (dev.get()) continue;
      const std::uint64_t n = std::max<std::uint64_t>(v->nnz, 1);
      if (!dev.try_allocate(n))
        throw Error("CUDA backend on " + std::string(prop_.name) + ": the per-edge counters of block " + block_label(*v) + " (" +
                    std::to_string(n * sizeof(unsigned int)) +
                    " bytes) do not fit in device memory beside the blocks; run with more parts (--parts)");
      TRICOUNT_CUDA_TRY(cudaMemsetAsync(dev.get(), 0, n * sizeof(unsigned int), *stream_));
    }
  }
  // Bytes of the task's per-edge counters not yet on the device (a block used twice counted once).
  std::uint64_t missing_edge_counter_bytes(const TaskBlocks& b) const {
    std::uint64_t bytes = 0;
    std::vector<std::uint64_t> seen;
    for (const BlockView* v : {&b.hash, &b.one_hop, &b.two_hop}) {
      const std::uint64_t at = block_index(v->id);
      if (at >= edge_counts_.size() || edge_counts_[at].get() || std::find(seen.begin(), seen.end(), at) != seen.end()) continue;
      seen.push_back(at);
      bytes += std::max<std::uint64_t>(v->nnz, 1) * sizeof(unsigned int);
    }
    return bytes;
  }

  // One task counted per edge (per_edge.cuh), and per vertex into `classes` when given.
  count_t run_per_edge(const TaskBlocks& b, CountStats& stats, const VertexClasses* classes) {
    // 1. The blocks on the device beside every counter this task needs.
    cache_->drop_unserialed();
    const std::uint64_t counters_needed =
        counter_bytes() + missing_edge_counter_bytes(b) + (classes ? missing_counter_bytes(*classes) : 0);
    const DeviceTriple dev = cache_->acquire(b, scratch_.bytes() + counters_needed, stats, /*timed=*/true);
    ensure_edge_counters(b);
    if (classes) ensure_counters(*classes);
    // 2. The parameters: tiles of 32 lanes where u's lists can be long; about 8 grabs per tile.
    PerEdgeParams p;
    p.hash = dev.hash;
    p.one_hop = dev.one_hop;
    p.two_hop = dev.two_hop;
    p.rows = b.one_hop.rows;
    p.edges = b.one_hop.nnz;
    p.split = b.split;
    p.splits = b.splits;
    p.one_hop_edges = edge_counts_[block_index(b.one_hop.id)].get();
    p.hash_edges = edge_counts_[block_index(b.hash.id)].get();
    p.two_hop_edges = edge_counts_[block_index(b.two_hop.id)].get();
    if (classes) {
      p.row_counts = vertex_counts_[classes->i].get();
      p.mid_counts = vertex_counts_[classes->j].get();
      p.col_counts = vertex_counts_[classes->k].get();
    }
    p.next = edge_next_.get();
    p.result = &counters_.get()->result;
    const bool wide = b.hash.max_degree >= 128;
    const std::uint64_t lanes = wide ? 32 : 8;
    const std::uint64_t grid = std::uint64_t(prop_.multiProcessorCount) * 8;
    const std::uint64_t tiles = grid * kPerEdgeThreads / lanes;
    p.chunk = std::clamp<std::uint64_t>(p.edges / (tiles * 8), 4, 4096);
    // 3. The launch, on the main stream.
    cudaStream_t s = *stream_;
    TRICOUNT_CUDA_TRY(cudaEventRecord(*ev_start_, s));
    TRICOUNT_CUDA_TRY(cudaMemsetAsync(counters_.get(), 0, sizeof(DeviceCounters), s));
    TRICOUNT_CUDA_TRY(cudaMemsetAsync(edge_next_.get(), 0, sizeof(unsigned long long), s));
    if (wide) count_per_edge<32><<<static_cast<unsigned>(grid), kPerEdgeThreads, 0, s>>>(p);
    else count_per_edge<8><<<static_cast<unsigned>(grid), kPerEdgeThreads, 0, s>>>(p);
    TRICOUNT_CUDA_CHECK_LAUNCH("count_per_edge");
    TRICOUNT_CUDA_TRY(cudaEventRecord(*ev_stop_, s));
    TRICOUNT_CUDA_TRY(cudaMemcpyAsync(host_result_.get(), &counters_.get()->result, sizeof(unsigned long long),
                                      cudaMemcpyDeviceToHost, s));
    if (classes) make_first_host_counts();
    return finish(stats, /*timed=*/true);
  }

  // One task with `options` (the backend's own, or the self-test's); `classes`: count per
  // vertex into these classes' counters too; `next`: the next task's blocks, copied while
  // this task's kernels run (prefetch_next); `edges`: count per edge (without `classes`).
  count_t run(const TaskBlocks& b, const BackendOptions& options, CountStats& stats, bool timed,
              const VertexClasses* classes = nullptr, const std::function<const TaskBlocks*()>& next = nullptr,
              bool edges = false) {
    // 1. The plan: kernels, tables, grids and working memory.
    cache_->drop_unserialed();
    const KernelPlan plan = plan_kernels(b, options, limits_, classes != nullptr, edges);
    // The counters count as working memory: those on the device and those this task adds.
    const std::uint64_t counters_needed = classes ? counter_bytes() + missing_counter_bytes(*classes)
                                          : edges ? counter_bytes() + missing_edge_counter_bytes(b)
                                                  : 0;
    // 2. The blocks on the device (cached, or uploaded after making room).
    const DeviceTriple dev = cache_->acquire(b, plan.working_bytes() + counters_needed, stats, timed);
    // 3. The working memory (and the per-vertex counters first touched here).
    try {
      scratch_.reserve(plan);
    } catch (const Error&) {
      cache_->throw_does_not_fit(b, plan.working_bytes() + counters_needed);
    }
    if (classes) ensure_counters(*classes);
    if (edges) ensure_edge_counters(b);
    // 4. The kernels' parameters, the launches, and the result.
    DeviceCounters* counters = counters_.get();
    CountParams pu = side_params(plan.u, dev.hash, dev.one_hop, dev.two_hop, scratch_.u_rows, &counters->u, &counters->result, options);
    pu.defer_quarters = plan.defer_quarters;
    pu.deferred_per_v = scratch_.t_counts.get();
    pu.deferred_bits = scratch_.deferred_bits.get();
    if (plan.t_places) pu.deferred_places = scratch_.deferred_places.get();
    if (plan.narrow_rows) pu.two_hop_offsets32 = scratch_.narrow.get();
    CountParams pv;
    if (plan.v) {
      pv = side_params(*plan.v, dev.two_hop, CsrView{scratch_.t_offsets.get(), scratch_.t_neighbors.get()}, dev.hash, scratch_.v_rows,
                       &counters->v, &counters->result, options);
      if (dev.hash.offsets == dev.two_hop.offsets) pv.two_hop_offsets32 = pu.two_hop_offsets32;  // one block in both roles
    }
    if (classes) {  // v's side: rows of class j, 1-hop entries of class i
      pu.row_counts = pv.mid_counts = vertex_counts_[classes->i].get();
      pu.mid_counts = pv.row_counts = vertex_counts_[classes->j].get();
      pu.col_counts = pv.col_counts = vertex_counts_[classes->k].get();
    }
    if (edges) {  // v's side: its hash block is P(j,k), its 2-hop P(i,k), its 1-hop entries T's
      pu.hash_edges = pv.two_hop_edges = edge_counts_[block_index(b.hash.id)].get();
      pu.one_hop_edges = pv.one_hop_edges = edge_counts_[block_index(b.one_hop.id)].get();
      pu.two_hop_edges = pv.hash_edges = edge_counts_[block_index(b.two_hop.id)].get();
      pv.one_hop_edge_of = scratch_.t_edges.get();
    }
    Marks marks;
    launch(b, plan, pu, pv, options.cuda_tuning.profile, marks);
    // 5. The next task's blocks onto the device on the copy stream while the kernels run
    // (not when profiling: every step in sequence).
    if (next && !options.cuda_tuning.profile)
      if (const TaskBlocks* n = next()) cache_->prefetch(*n, stats);
    if (classes) make_first_host_counts();
    const count_t triangles = finish(stats, timed);
    // 6. Profiling: each step's time and the work lists.
    if (options.cuda_tuning.profile && timed) report_profile(plan, marks);
    return triangles;
  }

  // Kernel parameters of a side over device blocks.
  CountParams side_params(const SidePlan& sp, CsrView hash, CsrView one_hop, CsrView two_hop, const SideRows& rows,
                          SideCounters* counters, unsigned long long* result, const BackendOptions& options) const {
    CountParams p;
    p.hash = hash;
    p.one_hop = one_hop;
    p.two_hop = two_hop;
    p.cta_rows = rows.cta.get();
    p.tile_rows = rows.warp.get();
    p.list_sizes = counters->list_sizes;
    p.next = counters->next;
    p.result = result;
    p.tile_table = sp.tile_cfg;
    p.cta_table = sp.cta_cfg;
    p.cta_scratch = scratch_.cta_levels.get();
    p.cta_scratch_words = sp.scratch_words;
    p.table_limit = options.cuda_tuning.table_limit;
    p.tile_chunk = sp.tile_chunk;
    p.trim_min = sp.trim_min;
    if (sp.direct) {
      p.tile_rows = nullptr;
      p.direct_rows = static_cast<std::uint32_t>(sp.rows);
    }
    p.cta_bitmap_words = sp.bitmap_words;
    p.search_ratio = options.cuda_tuning.search_ratio;
    p.rank_counts = options.cuda_tuning.rank_counts;
    return p;
  }

  // ---- the launch sequence ------------------------------------------------------------

  // Everything the task runs, on the main stream (and the side stream for the warp
  // kernel, concurrent with the CTA kernel): thread rows, or the u side, then T and v's side.
  void launch(const TaskBlocks& b, const KernelPlan& plan, const CountParams& pu, const CountParams& pv, bool profile,
              Marks& marks) {
    cudaStream_t s = *stream_;
    cudaStream_t warp_stream = profile ? s : side_->get();
    auto mark = [&](const char* what) {
      if (!profile) return;
      marks.emplace_back(what, std::make_unique<Event>());
      TRICOUNT_CUDA_TRY(cudaEventRecord(*marks.back().second, s));
    };
    // 1. Start: the counters cleared.
    TRICOUNT_CUDA_TRY(cudaEventRecord(*ev_start_, s));
    TRICOUNT_CUDA_TRY(cudaMemsetAsync(counters_.get(), 0, sizeof(DeviceCounters), s));
    // 2. Thread rows, or the u side (which counts and marks the edges it leaves to v's side).
    if (plan.thread_rows) {
      with_thread_kernel(plan.thread_width, [&](auto kernel) {
        kernel<<<plan.thread_grid, kThreadBlockThreads, 0, s>>>(pu, plan.rows, b.split, b.splits);
      }, plan.u.per_vertex, plan.u.per_edge);
      TRICOUNT_CUDA_CHECK_LAUNCH("count_thread_rows");
      mark("thread rows");
    } else {
      if (plan.v) {
        TRICOUNT_CUDA_TRY(cudaMemsetAsync(scratch_.t_counts.get(), 0, (plan.t_rows + 1) * sizeof(unsigned long long), s));
        TRICOUNT_CUDA_TRY(cudaMemsetAsync(scratch_.deferred_bits.get(), 0, plan.deferred_words * sizeof(std::uint32_t), s));
      }
      if (plan.narrow_rows) {
        narrow_offsets<<<plan.narrow_grid, kThreadBlockThreads, 0, s>>>(pu.two_hop.offsets, scratch_.narrow.get(), plan.narrow_rows + 1);
        TRICOUNT_CUDA_CHECK_LAUNCH("narrow_offsets");
        mark("narrow offsets");
      }
      if (plan.filter_rows) {
        with_filter_kernel([&](auto kernel) {
          kernel<<<plan.filter_grid, kThreadBlockThreads, 0, s>>>(pu, plan.rows, b.split, b.splits);
        }, plan.u.per_vertex, plan.u.per_edge);
        TRICOUNT_CUDA_CHECK_LAUNCH("count_filter_rows");
        mark("filter rows");
      } else if (plan.batch_rows) {
        with_batch_kernel([&](auto kernel) {
          kernel<<<plan.batch_grid, kBatchBlockThreads, 0, s>>>(pu);
        }, plan.u.per_vertex, plan.u.per_edge);
        TRICOUNT_CUDA_CHECK_LAUNCH("count_batch_rows");
        mark("u: every row, batch kernel");
      } else {
        launch_side(plan.u, pu, warp_stream, mark, {"classify", "u: CTA rows", "u: warp rows", "u: every row, warp kernel", "u: tiny rows"});
      }
    }
    if (plan.v) {
      // 3. T from what the u side left: row starts (places: exclusive sum of the counts) or
      //    ends (inclusive), then entries.
      TRICOUNT_CUDA_TRY(cudaEventRecord(*ev_join_, warp_stream));
      TRICOUNT_CUDA_TRY(cudaStreamWaitEvent(s, *ev_join_, 0));
      std::size_t temp_bytes = scratch_.cub_temp.bytes();
      sum_t_rows(plan.t_places, scratch_.cub_temp.get(), temp_bytes, scratch_.t_counts.get(), scratch_.t_offsets.get(), plan.t_rows, s);
      mark("T sum");
      TransposeParams tp;
      tp.one_hop_offsets = pu.one_hop.offsets;
      tp.one_hop_neighbors = pu.one_hop.neighbors;
      tp.rows = plan.rows;
      tp.nnz = plan.t_entries;
      tp.bits = scratch_.deferred_bits.get();
      if (plan.t_places) tp.places = scratch_.deferred_places.get();
      tp.t_offsets = scratch_.t_offsets.get();
      tp.t_neighbors = scratch_.t_neighbors.get();
      if (plan.per_edge) tp.t_edges = scratch_.t_edges.get();
      if (plan.t_places) scatter_deferred_edges<true><<<plan.transpose_grid, kTransposeBlockThreads, 0, s>>>(tp);
      else scatter_deferred_edges<false><<<plan.transpose_grid, kTransposeBlockThreads, 0, s>>>(tp);
      TRICOUNT_CUDA_CHECK_LAUNCH("scatter_deferred_edges");
      mark("T scatter");
      // 4. v's side.
      launch_side(*plan.v, pv, warp_stream, mark, {"v: classify", "v: CTA rows", "v: warp rows", "v: every row, warp kernel", "v: tiny rows"});
    }
    // 5. Join, stop, and the result back.
    TRICOUNT_CUDA_TRY(cudaEventRecord(*ev_join_, warp_stream));
    TRICOUNT_CUDA_TRY(cudaStreamWaitEvent(s, *ev_join_, 0));
    TRICOUNT_CUDA_TRY(cudaEventRecord(*ev_stop_, s));
    TRICOUNT_CUDA_TRY(cudaMemcpyAsync(host_result_.get(), &counters_.get()->result, sizeof(unsigned long long),
                                      cudaMemcpyDeviceToHost, s));
  }

  // A side's kernels: the classification, then the CTA kernel on one stream and the warp
  // kernel and the tiny rows' on the other; or, where no row can be a CTA row, the warp
  // kernel alone over every row.
  template <class Mark>
  void launch_side(const SidePlan& sp, const CountParams& p, cudaStream_t warp_stream, Mark& mark,
                   const std::array<const char*, 5>& labels) {
    cudaStream_t s = *stream_;
    if (sp.direct) {
      launch_warp(sp, p, s);
      mark(labels[3]);
      return;
    }
    classify(sp, p, s);
    mark(labels[0]);
    TRICOUNT_CUDA_TRY(cudaEventRecord(*ev_fork_, s));
    TRICOUNT_CUDA_TRY(cudaStreamWaitEvent(*side_, *ev_fork_, 0));
    launch_cta(sp, p, s);
    mark(labels[1]);
    launch_warp(sp, p, warp_stream);
    mark(labels[2]);
    if (sp.tiny_max) {
      with_tiny_kernel(sp.defers, sp.places, [&](auto kernel) {
        kernel<<<sp.tiny_grid, kThreadBlockThreads, 0, warp_stream>>>(p, sp.rows, sp.classifier.split, sp.classifier.splits, sp.tiny_max);
      }, sp.per_vertex, sp.per_edge);
      TRICOUNT_CUDA_CHECK_LAUNCH("count_tiny_rows");
      mark(labels[4]);
    }
  }

  // Classification of a side's rows into its CTA and warp lists (on stream s).
  void classify(const SidePlan& sp, const CountParams& p, cudaStream_t s) {
    RowClassifier rc = sp.classifier;
    rc.hash_offsets = p.hash.offsets;
    rc.one_hop_offsets = p.one_hop.offsets;
    std::size_t temp_bytes = scratch_.cub_temp.bytes();
    TRICOUNT_CUDA_TRY(cub::DevicePartition::If(scratch_.cub_temp.get(), temp_bytes, thrust::counting_iterator<vid_t>(0),
                                               const_cast<vid_t*>(p.cta_rows), const_cast<vid_t*>(p.tile_rows),
                                               thrust::make_discard_iterator(), const_cast<std::uint32_t*>(p.list_sizes),
                                               static_cast<std::int64_t>(sp.rows), IsCtaRow{rc}, IsTileRow{rc}, s));
  }
  void launch_cta(const SidePlan& sp, const CountParams& p, cudaStream_t s) {
    with_cta_kernel(sp.defers, sp.places, [&](auto kernel) {
      kernel<<<static_cast<unsigned>(sp.cta_grid), kCtaThreads, std::size_t{sp.cta_smem_words} * 4, s>>>(p);
    }, sp.per_vertex, sp.per_edge);
    TRICOUNT_CUDA_CHECK_LAUNCH("count_cta_rows");
  }
  void launch_warp(const SidePlan& sp, const CountParams& p, cudaStream_t s) {
    with_warp_kernel(sp.G, sp.reverse, sp.defers, sp.places, [&](auto kernel) {
      kernel<<<static_cast<unsigned>(sp.tile_grid), kTileBlockThreads, sp.tile_smem, s>>>(p);
    }, sp.per_vertex, sp.per_edge);
    TRICOUNT_CUDA_CHECK_LAUNCH("count_tile_rows");
  }

  // Waits for the launches; the count, and its time when `timed`.
  count_t finish(CountStats& stats, bool timed) {
    TRICOUNT_CUDA_TRY(cudaStreamSynchronize(*stream_));
    if (timed) {
      float ms = 0;
      TRICOUNT_CUDA_TRY(cudaEventElapsedTime(&ms, *ev_start_, *ev_stop_));
      stats.count_seconds += ms * 1e-3;
    }
    return *static_cast<const unsigned long long*>(host_result_.get());
  }

  void report_profile(const KernelPlan& plan, const Marks& marks) {
    DeviceCounters counters{};
    TRICOUNT_CUDA_TRY(cudaMemcpy(&counters, counters_.get(), sizeof counters, cudaMemcpyDeviceToHost));
    std::string line = "[cuda profile] rows " + std::to_string(plan.rows);
    cudaEvent_t prev = *ev_start_;
    char buf[160];
    for (const auto& [what, ev] : marks) {
      float ms = 0;
      TRICOUNT_CUDA_TRY(cudaEventElapsedTime(&ms, prev, *ev));
      std::snprintf(buf, sizeof buf, " | %s %.3f ms", what, ms);
      line += buf;
      prev = *ev;
    }
    auto describe = [&](const char* who, const SidePlan& sp, const SideCounters& c) {
      if (sp.direct)
        std::snprintf(buf, sizeof buf, " | %s: every row to the warp kernel (G %u, reverse %d)", who, sp.G, int(sp.reverse));
      else
        std::snprintf(buf, sizeof buf, " | %s: CTA rows %u (grid %llu, %u bitmap words), warp rows %u (G %u, reverse %d)", who,
                      c.list_sizes[0], (unsigned long long)sp.cta_grid, sp.bitmap_words, c.list_sizes[1], sp.G, int(sp.reverse));
      line += buf;
    };
    if (plan.filter_rows) line += " | u: every row to the filter kernel";
    else if (plan.batch_rows) line += " | u: every row to the batch kernel";
    else if (!plan.thread_rows) describe("u", plan.u, counters.u);
    if (plan.v) describe("v", *plan.v, counters.v);
    std::fprintf(stderr, "%s\n", line.c_str());
  }

  BackendOptions options_;
  BackendStartTimes start_times_;
  int device_ = 0;
  cudaDeviceProp prop_{};
  DeviceLimits limits_;
  std::unique_ptr<Stream> stream_, side_;
  std::unique_ptr<Event> ev_start_, ev_stop_, ev_fork_, ev_join_;
  PinnedBuffer host_result_;
  DeviceBuffer<DeviceCounters> counters_;
  KernelScratch scratch_;
  std::vector<std::uint64_t> class_vertices_;                   // per-vertex counting: empty when off
  struct HostCounts {
    std::vector<count_t> counts;
    bool pinned = false;  // registered with the driver (cudaHostRegister) until the copy is done
  };
  std::future<HostCounts> first_host_counts_;                   // per-vertex: class 0's host array, made while counting
  bool first_host_counts_due_ = false;                          // ... once the next task's launches are queued
  std::vector<DeviceBuffer<unsigned long long>> vertex_counts_;  // per class, allocated on first use
  bool per_edge_ = false;                                       // per-edge counting
  std::uint32_t parts_ = 0;                                     // per-edge: blocks are parts_ x parts_
  std::vector<std::uint64_t> block_nnz_;                        // per-edge: edges per block, row-major
  std::vector<DeviceBuffer<unsigned int>> edge_counts_;         // per-edge: per block, on the device while used
  std::vector<std::vector<edge_count_t>> host_edge_counts_;     // per-edge: per block, what was moved off the device
  DeviceBuffer<unsigned long long> edge_next_;                  // per-edge: the kernel's edge counter
  std::unique_ptr<DeviceBlockCache> cache_;  // after scratch_: it asks scratch_ for its bytes
  std::function<const TaskBlocks*()> next_;  // prefetch_next's hint, for the next count() only
};

}  // namespace

std::unique_ptr<CountBackend> make_cuda_backend(const BackendOptions& options) {
  return std::make_unique<CudaBackend>(options);
}

}  // namespace tricount
