// CUDA backend: TRUST's vertex-centric hashing on one GPU ("TRUST: Triangle Counting
// Reloaded on GPUs", Pandey et al., TPDS 2021), for one subtask's block triple.
//
// What it computes is exactly what cpu_backend.cpp computes: for every row u of class i in
// this workload split, the number of pairs (v, w) with v in N1(u) = P(i,j)[u] and
// w in N2(v) = P(j,k)[v] such that w is in H(u) = P(i,k)[u]. Each such pair is one
// triangle u -> v -> w with u -> w, so the sum over the n^3 * m subtasks is the count.
//
// Assumptions, and why they hold:
//  * Neighbour lists are sorted ascending with no duplicates (CsrBlock's invariant, checked
//    by validate_block): keys of a table are distinct, so a bucket never holds a key twice,
//    and the key range [min H(u), max H(u)] and binary search are valid.
//  * Local ids are < 2^32 - 1 (vid_t) and a row's degree fits 32 bits; sums of up to 256
//    2-hop list lengths fit 32 bits (checked per subtask: max_degree * 256 < 2^32).
//  * Rows are numbered by ascending degree by the partitioner's reordering, so the end of
//    each work list holds the heaviest rows; both kernels take rows from the end. Any
//    other order is only slower, never wrong.
//
// The algorithm (count_kernels.cuh has the kernels, bucket_table.cuh the table):
//  * Classify (CUB three-way partition): rows outside the split, or with no hash or no
//    1-hop neighbour (either one empty: no triangle), are skipped; rows with hash or
//    1-hop degree >= cta_degree_threshold (TRUST: 100), or whose table would not fit a
//    warp's shared memory, go to the CTA list; the rest to the warp list.
//  * Table: power-of-two buckets, about 4 per key; per bucket a head {length, first key}
//    in shared memory (lengths filled with shared-memory atomics), further levels
//    interleaved bucket-major so lanes probing different buckets at one level read
//    consecutive words; when a bucket is full, linear probing into the next bucket.
//  * Warp path: a warp builds u's table in its shared memory, then takes the 1-hop list
//    32 entries at a time: the 2-hop lists shorter than 32 are walked as one virtual list
//    (TRUST's virtual combination: a warp prefix sum of their lengths in slots of 4
//    consecutive elements, each lane finding its slot's list by binary search and loading
//    the slot's 4 elements before probing them), the
//    longer ones one at a time by the whole warp with 4 loads in flight per lane. Subtasks
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
//    bitmap (default 131,072 bits: 16 KiB of shared memory, taken only when the subtask
//    can have CTA rows) holds its keys as a bitmap instead of a table: a probe is one range
//    check, one shared load and a bit test. Under the degree order a heavy row's keys all
//    lie above it, among the heavy rows, so the spans of the rows with the most work are
//    short. Nothing is ever dropped.
//  * Edge split (edge_split.cuh), in subtasks whose 2-hop block has a row of at least 128:
//    an edge (u, v) whose 2-hop list N2(v) is longer than u's keys H(u) is not walked on
//    u's side; those edges are gathered per v into a transposed block T, and the same two
//    kernels run again with hash P(j,k), 1-hop T and 2-hop P(i,k): v's table (or bitmap)
//    of N2(v) is probed with the keys of each u. Every edge is probed from its shorter
//    side, about the fewest probes a hash-based intersection can make (Kronecker 20: 1.4 G
//    instead of 3.9 G). On v's side the 2-hop lists H(u) start below v's keys (u < v), so
//    lists of 32 or more skip that part by binary search (Kronecker 18: 45% of the
//    elements v's CTA rows would walk).
//  * Subtasks where no row can be a CTA row (largest hash and 1-hop degrees below the
//    threshold, tables that fit a warp) are not classified: the warp kernel walks every
//    row and skips the empty ones.
//  * Subtasks whose rows are all tiny (hash and 1-hop rows of at most 8 entries, 2-hop of
//    at most 64: grids, meshes) skip all of the above: one thread per row holds u's keys
//    and 1-hop entries in registers and compares the 2-hop elements against the keys
//    (count_thread_rows, one launch).
//  * Dynamic assignment: warps and CTAs take rows from global atomic counters (warps in
//    chunks of BackendOptions::chunk_size rows; by default 1 to 16, growing with the row
//    count: one counter shared by every warp is the bottleneck on grids).
//  * The two kernels run concurrently on two streams; 64-bit counts per thread,
//    cub::BlockReduce per CTA, one atomicAdd of unsigned long long per CTA.
//
// Memory: blocks are copied through two pinned staging buffers with cudaMemcpyAsync and
// kept in a device cache keyed by BlockView::serial (least recently used evicted first
// when memory is short); a block triple that cannot fit is an Error naming how many times
// as many parts would make it fit (the subtask does not know n). One GPU per process:
// device = local_rank mod device count.
//
// Debug and tuning knobs (environment, read when the backend is made; for tests and
// benchmarks, not for users):
//   TRICOUNT_CUDA_DEBUG_SHARED_WORDS  cap on a table's shared-memory words (>= 64):
//                                     forces global levels and CTA rows
//   TRICOUNT_CUDA_DEBUG_TABLE_LIMIT   rows with more hash neighbours use binary search
//   TRICOUNT_CUDA_DEBUG_COLLIDE=1     every key hashes to bucket 0 (linear probing only)
//   TRICOUNT_CUDA_DEBUG_DEVICE_BYTES  device memory the backend may use (eviction, errors)
//   TRICOUNT_CUDA_DEBUG_BUCKETS_LOG2  buckets per key, log2 (default 2)
//   TRICOUNT_CUDA_DEBUG_TILE_LEVELS   shared levels of a warp table, at most (default 4)
//   TRICOUNT_CUDA_DEBUG_TRIM          the u side's 2-hop lists at least this long skip the elements
//                                     below u's smallest key, by binary search (0 = off, default)
//   TRICOUNT_CUDA_DEBUG_SPLIT_TRIM    the same for v's side of the edge split (default 32)
//   TRICOUNT_CUDA_DEBUG_DIRECT=0      always classify rows (default 1: subtasks with no possible
//                                     CTA row give the warp kernel every row, no row list)
//   TRICOUNT_CUDA_DEBUG_TILE          lanes per row on the warp path: 8, 16 or 32 (default 0:
//                                     8 for subtasks of tiny rows, else 32)
//   TRICOUNT_CUDA_DEBUG_OCC           warp path register cap for 5 (default), 6 or 8 CTAs per SM,
//                                     0 for none
//   TRICOUNT_CUDA_DEBUG_CTA_SHARED_WORDS  shared words of a CTA table (default 4096)
//   TRICOUNT_CUDA_DEBUG_BITMAP_WORDS  shared words of a CTA row's key bitmap (default 4096:
//                                     131,072 bits in 16 KiB); 0 turns bitmaps off
//   TRICOUNT_CUDA_DEBUG_SEARCH_RATIO  warp rows: 2-hop lists longer than this many times u's keys
//                                     are searched for u's keys (default 16); 0 turns it off
//   TRICOUNT_CUDA_DEBUG_SEARCH_MIN_LIST  the warp kernel with the reverse search runs only
//                                     when the 2-hop block has a row this long (default 128)
//   TRICOUNT_CUDA_DEBUG_SPLIT         edge split: 0 never, 1 where a 2-hop row reaches
//                                     SPLIT_MIN_LIST (default), 2 in every subtask
//   TRICOUNT_CUDA_DEBUG_SPLIT_QUARTERS  an edge goes to v's side when |N2(v)| > this / 4 * |H(u)|
//                                     (default 4; 0: every edge with a 2-hop list)
//   TRICOUNT_CUDA_DEBUG_SPLIT_MIN_LIST  see SPLIT (default 128)
//   TRICOUNT_CUDA_DEBUG_CTA_OCC       CTA kernel register cap for 6 CTAs per SM (default 6), or
//                                     none (1)
//   TRICOUNT_CUDA_DEBUG_THREAD_ROWS=0 never the thread-per-row kernel (default 1: for
//                                     subtasks whose rows are all tiny)
//   TRICOUNT_CUDA_DEBUG_PROFILE=1     run every step one after the other and print each
//                                     one's time and work lists to stderr
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_scan.cuh>
#include <memory>
#include <optional>
#include <string>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <vector>

#include "src/threads.hpp"
#include "worker/cuda/bucket_table.cuh"
#include "worker/cuda/count_kernels.cuh"
#include "worker/cuda/cuda_backend.hpp"
#include "worker/cuda/cuda_check.cuh"
#include "worker/cuda/edge_split.cuh"

namespace tricount {

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

std::string cuda_status_message() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  cudaGetLastError();
  return err == cudaSuccess ? std::to_string(n) + " devices" : cudaGetErrorString(err);
}

namespace {

using namespace tricount::cuda;

constexpr std::size_t kStagingBytes = std::size_t{32} << 20;        // per pinned staging buffer
constexpr std::uint64_t kReserveBytes = std::uint64_t{256} << 20;   // left free for the runtime
constexpr std::uint64_t kCtaScratchBudget = std::uint64_t{512} << 20;  // global table levels, all CTAs
constexpr std::uint32_t kCtaSharedBudgetWords = 16384;               // 64 KiB: most a CTA table may take
// Default CTA table: 16 KiB, so 6 CTAs fit an SM; rows with more than 1024 keys keep their
// upper levels in the per-CTA global area (measured: 48 KiB tables, 3 CTAs per SM, were
// slower on Kronecker graphs).
constexpr std::uint32_t kCtaSharedWords = 4096;
// Default bitmap of a CTA row: 16 KiB (131,072 bits), with the CTA kernel's registers capped
// for 6 CTAs per SM. Without the edge split 32 KiB was best (Kronecker 23: 16 KiB 184 ms,
// 32 KiB 159, 64 KiB 191); with it, whose v's-side rows are lighter, 16 KiB and the cap
// gave (H200, Kronecker 18 / 20 / 23 / 24) 1.24 / 5.62 / 60.3 / 141 ms against 1.31 / 6.01 /
// 64.4 / 145 with 32 KiB and 1.67 / 8.20 / 92.2 / 207 with neither (66 registers: 3 CTAs
// per SM).
constexpr std::uint32_t kCtaBitmapWords = 4096;
// Warp tables: 4 buckets per key (kBucketsLog2) and up to 4 shared levels (kTileLevels),
// and the warp kernel's registers capped for 5 CTAs per SM (kTileOcc). A warp's lanes probe
// 32 buckets at once, and the whole warp walks a bucket's levels, or moves on to the next
// bucket, whenever one lane must: at 2 buckets per key and 2 levels most warp probes had
// such a lane. H200, Kronecker 18 / 20 / uniform 2^20 / 2^24 ms: 1.008 / 4.510 / 1.093 /
// 20.91 before; 4 buckets per key 1.011 / 4.327 / 0.972 / 19.52; and 4 levels 1.014 / 4.337 /
// 0.940 / 19.18; and the 5-CTA cap (48 registers, 8 bytes of spills instead of 36) 0.978 /
// 4.305 / 0.983 / 18.55. Kronecker 23 / 24 with 4 buckets and the 5-CTA cap: 48.7 / 114.6
// against 49.2 / 115.2.
constexpr std::uint32_t kBucketsLog2 = 2;
constexpr std::uint32_t kTileLevels = 4;
constexpr std::uint32_t kTileOcc = 5;
constexpr int kCtaOcc = 6;
constexpr std::uint32_t kTileBlockSharedWords = 12288;               // 48 KiB per warp-kernel CTA
constexpr std::uint64_t kMaxTileChunk = 16;
// The warp kernel with the reverse search runs only for 2-hop blocks with a row this long.
constexpr std::uint32_t kSearchMinList = 128;
// Subtasks whose average row has less 2-hop work than this (1-hop times 2-hop average
// degree) run the warp path with 8 lanes per row.
constexpr double kSmallRowWork = 32;
// Edge split (edge_split.cuh): an edge goes to v's side when v's 2-hop list is longer than
// kSplitQuarters / 4 times u's keys, in subtasks whose 2-hop block has a row at least
// kSplitMinList long.
constexpr std::uint32_t kSplitQuarters = 4;
constexpr std::uint32_t kSplitMinList = 128;
// v's side's 2-hop lists are the keys H(u) of rows u below v, and much of H(u) lies below
// v's smallest key (Kronecker 18: 45% of what v's CTA rows walk); lists at least this long
// skip that part by binary search.
constexpr std::uint32_t kSplitTrimMin = 32;
constexpr std::uint32_t kSearchRatio = 16;  // warp rows: search lists longer than this times u's keys (32: 3% slower on Kronecker)

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v, &end, 0);
  if (end == v || *end) throw Error(std::string("environment variable ") + name + "='" + v + "' is not a number");
  return x;
}

std::string mib(std::uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / (1 << 20));
  return buf;
}

std::string block_label(const BlockView& v) {
  return "P(" + std::to_string(v.id.row_class) + "," + std::to_string(v.id.col_class) + ")";
}

// Warp-path kernel variants: lanes per row G, and a register cap (min CTAs per SM).
enum class TileVariant { G32, G32Occ5, G32Occ6, G32Occ8, G16, G8 };

template <bool kReverse, bool kSplit, class F>
void with_tile_kernel_rs(TileVariant v, F&& f) {
  switch (v) {
    case TileVariant::G32: f(count_tile_rows<32, 1, kReverse, kSplit>); break;
    case TileVariant::G32Occ5: f(count_tile_rows<32, 5, kReverse, kSplit>); break;
    case TileVariant::G32Occ6: f(count_tile_rows<32, 6, kReverse, kSplit>); break;
    case TileVariant::G32Occ8: f(count_tile_rows<32, 8, kReverse, kSplit>); break;
    case TileVariant::G16: f(count_tile_rows<16, 1, kReverse, kSplit>); break;
    case TileVariant::G8: f(count_tile_rows<8, 1, kReverse, kSplit>); break;
  }
}
// reverse: the kernel with the reverse search (ReverseSearch in count_kernels.cuh); split:
// the u side of the edge split.
template <class F>
void with_tile_kernel(TileVariant v, bool reverse, bool split, F&& f) {
  if (reverse) {
    if (split) with_tile_kernel_rs<true, true>(v, f);
    else with_tile_kernel_rs<true, false>(v, f);
  } else {
    if (split) with_tile_kernel_rs<false, true>(v, f);
    else with_tile_kernel_rs<false, false>(v, f);
  }
}
// CTA kernel: a register cap for 6 CTAs per SM, or none; split as above.
template <class F>
void with_cta_kernel(int occ, bool split, F&& f) {
  if (occ == 6) {
    if (split) f(count_cta_rows<6, true>);
    else f(count_cta_rows<6, false>);
  } else {
    if (split) f(count_cta_rows<1, true>);
    else f(count_cta_rows<1, false>);
  }
}
std::uint32_t tile_lanes(TileVariant v) { return v == TileVariant::G16 ? 16 : v == TileVariant::G8 ? 8 : 32; }

struct Knobs {
  std::uint32_t shared_words_cap = 0xFFFFFFFFu;
  std::uint32_t table_limit = 0xFFFFFFFFu;
  bool collide = false;
  std::uint64_t device_bytes = 0;  // 0: no cap
  std::uint32_t buckets_log2 = kBucketsLog2;
  std::uint32_t tile_levels = kTileLevels;  // shared levels of a warp table (at most)
  std::uint32_t trim_min = 0;
  std::uint32_t split_trim_min = kSplitTrimMin;
  bool direct = true;                               // no classification where no row can be a CTA row
  std::uint32_t tile = 0;  // lanes per warp row: 8, 16, 32, or 0 = by the subtask (tile_for)
  std::uint32_t occ = kTileOcc;  // warp path: CTAs per SM the register allocation must allow (0, 5, 6, 8)
  std::uint32_t cta_shared_words = kCtaSharedWords;
  std::uint32_t bitmap_words = kCtaBitmapWords;  // 0: no bitmaps
  std::uint32_t search_ratio = kSearchRatio;     // 0: always probe
  std::uint32_t search_min_list = kSearchMinList;  // reverse search only with 2-hop lists this long
  std::uint32_t split = 1;                          // edge split: 0 never, 1 by the blocks, 2 always
  bool thread_rows = true;                          // one thread per row where every row is tiny
  int cta_occ = kCtaOcc;                            // CTA kernel register cap: 1 (none) or 6 CTAs per SM
  std::uint32_t split_quarters = kSplitQuarters;
  std::uint32_t split_min_list = kSplitMinList;
  bool profile = false;
  TileVariant variant(std::uint32_t lanes) const {
    if (lanes == 8) return TileVariant::G8;
    if (lanes == 16) return TileVariant::G16;
    return occ == 8 ? TileVariant::G32Occ8 : occ == 6 ? TileVariant::G32Occ6 : occ == 5 ? TileVariant::G32Occ5 : TileVariant::G32;
  }

  static Knobs from_env() {
    Knobs k;
    k.shared_words_cap = static_cast<std::uint32_t>(
        std::max<std::uint64_t>(64, std::min<std::uint64_t>(env_u64("TRICOUNT_CUDA_DEBUG_SHARED_WORDS", 0xFFFFFFFFu), 0xFFFFFFFFu)));
    k.table_limit = static_cast<std::uint32_t>(std::min<std::uint64_t>(env_u64("TRICOUNT_CUDA_DEBUG_TABLE_LIMIT", 0xFFFFFFFFu), 0xFFFFFFFFu));
    k.collide = env_u64("TRICOUNT_CUDA_DEBUG_COLLIDE", 0) != 0;
    k.device_bytes = env_u64("TRICOUNT_CUDA_DEBUG_DEVICE_BYTES", 0);
    k.buckets_log2 = static_cast<std::uint32_t>(std::min<std::uint64_t>(env_u64("TRICOUNT_CUDA_DEBUG_BUCKETS_LOG2", kBucketsLog2), 3));
    k.tile_levels = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(env_u64("TRICOUNT_CUDA_DEBUG_TILE_LEVELS", kTileLevels), 1, 16));
    k.trim_min = static_cast<std::uint32_t>(std::min<std::uint64_t>(env_u64("TRICOUNT_CUDA_DEBUG_TRIM", 0), 0xFFFFFFFFu));
    k.split_trim_min =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(env_u64("TRICOUNT_CUDA_DEBUG_SPLIT_TRIM", kSplitTrimMin), 0xFFFFFFFFu));
    k.direct = env_u64("TRICOUNT_CUDA_DEBUG_DIRECT", 1) != 0;
    k.tile = static_cast<std::uint32_t>(env_u64("TRICOUNT_CUDA_DEBUG_TILE", 0));
    if (k.tile != 0 && k.tile != 8 && k.tile != 16 && k.tile != 32)
      throw Error("TRICOUNT_CUDA_DEBUG_TILE must be 0 (automatic), 8, 16 or 32");
    k.occ = static_cast<std::uint32_t>(env_u64("TRICOUNT_CUDA_DEBUG_OCC", kTileOcc));
    k.cta_shared_words = static_cast<std::uint32_t>(
        std::clamp<std::uint64_t>(env_u64("TRICOUNT_CUDA_DEBUG_CTA_SHARED_WORDS", kCtaSharedWords), 64, kCtaSharedBudgetWords));
    k.bitmap_words = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(env_u64("TRICOUNT_CUDA_DEBUG_BITMAP_WORDS", kCtaBitmapWords), 0xFFFFFFFFu));
    k.search_ratio = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(env_u64("TRICOUNT_CUDA_DEBUG_SEARCH_RATIO", kSearchRatio), 0xFFFFFFFFu));
    k.search_min_list = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(env_u64("TRICOUNT_CUDA_DEBUG_SEARCH_MIN_LIST", kSearchMinList), 0xFFFFFFFFu));
    k.split = static_cast<std::uint32_t>(env_u64("TRICOUNT_CUDA_DEBUG_SPLIT", 1));
    if (k.split > 2) throw Error("TRICOUNT_CUDA_DEBUG_SPLIT must be 0 (never), 1 (automatic) or 2 (always)");
    k.split_quarters = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(env_u64("TRICOUNT_CUDA_DEBUG_SPLIT_QUARTERS", kSplitQuarters), 0xFFFFFFFFu));
    k.split_min_list = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(env_u64("TRICOUNT_CUDA_DEBUG_SPLIT_MIN_LIST", kSplitMinList), 0xFFFFFFFFu));
    k.thread_rows = env_u64("TRICOUNT_CUDA_DEBUG_THREAD_ROWS", 1) != 0;
    k.cta_occ = env_u64("TRICOUNT_CUDA_DEBUG_CTA_OCC", kCtaOcc) == 6 ? 6 : 1;
    k.profile = env_u64("TRICOUNT_CUDA_DEBUG_PROFILE", 0) != 0;
    return k;
  }
};

// One block resident on the device (owning); its view for kernels is CsrView.
struct DeviceBlock {
  std::uint64_t serial = 0;
  std::uint64_t rows = 0, cols = 0, nnz = 0;
  DeviceBuffer<eoff_t> offsets;
  DeviceBuffer<vid_t> neighbors;
  std::uint64_t last_use = 0;
  std::uint64_t bytes() const { return offsets.bytes() + neighbors.bytes(); }
  CsrView view() const { return {offsets.get(), neighbors.get()}; }
  bool matches(const BlockView& v) const {
    return v.serial != 0 && v.serial == serial && v.rows == rows && v.cols == cols && v.nnz == nnz;
  }
};

std::uint64_t view_bytes(const BlockView& v) { return (v.rows + 1) * sizeof(eoff_t) + v.nnz * sizeof(vid_t); }


class CudaBackend final : public CountBackend {
 public:
  explicit CudaBackend(const BackendOptions& options)
      : options_(options), knobs_(Knobs::from_env()) {
    const int devices = cuda_device_count();
    if (devices <= 0) throw Error("CUDA backend: no CUDA GPU is visible (" + cuda_status_message() + ")");
    device_ = (options.local_rank >= 0 ? options.local_rank : -options.local_rank) % devices;
    TRICOUNT_CUDA_TRY(cudaSetDevice(device_));
    TRICOUNT_CUDA_TRY(cudaGetDeviceProperties(&prop_, device_));
    stream_ = std::make_unique<Stream>();
    side_ = std::make_unique<Stream>();
    ev_start_ = std::make_unique<Event>();
    ev_stop_ = std::make_unique<Event>();
    ev_fork_ = std::make_unique<Event>(false);
    ev_join_ = std::make_unique<Event>(false);
    for (auto& e : staging_done_) e = std::make_unique<Event>(false);
    for (auto& b : staging_) b = PinnedBuffer(kStagingBytes);
    host_result_ = PinnedBuffer(sizeof(unsigned long long));
    small_.allocate(16);  // [0..1] list sizes, [2..3] counters, [4..5] result (u64), [8..11] v's side

    // Shared-memory limits: raise the dynamic limit once to what the budgets allow.
    cudaFuncAttributes attr{};
    TRICOUNT_CUDA_TRY(cudaFuncGetAttributes(&attr, count_cta_rows<1, true>));
    const std::size_t optin = prop_.sharedMemPerBlockOptin;
    cta_budget_words_ = static_cast<std::uint32_t>(
        std::min<std::size_t>({kCtaSharedBudgetWords, (optin - attr.sharedSizeBytes) / 4, knobs_.shared_words_cap}));
    cta_words_ = std::min(cta_budget_words_, knobs_.cta_shared_words);
    // A bitmap may take more than a table, up to what the device lets a CTA have.
    bitmap_words_ = static_cast<std::uint32_t>(
        std::min<std::size_t>({knobs_.bitmap_words, (optin - attr.sharedSizeBytes) / 4, knobs_.shared_words_cap}));
    for (int occ : {1, 6})
      for (bool split : {false, true})
        with_cta_kernel(occ, split, [&](auto kernel) {
          TRICOUNT_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 static_cast<int>(std::max(cta_budget_words_, bitmap_words_) * 4)));
        });
    for (TileVariant v : {TileVariant::G32, TileVariant::G32Occ5, TileVariant::G32Occ6, TileVariant::G32Occ8, TileVariant::G16, TileVariant::G8})
      for (bool reverse : {false, true})
        for (bool split : {false, true})
          with_tile_kernel(v, reverse, split, [](auto kernel) {
            TRICOUNT_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   static_cast<int>(kTileBlockSharedWords * 4)));
          });
    self_test();
  }

  std::string_view name() const override { return "cuda"; }
  std::string device_name() const override { return prop_.name; }

  count_t count(const SubtaskBlocks& b, CountStats& stats) override {
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
    return run(b, stats, /*timed=*/true);
  }

 private:
  // A triangle through the whole pipeline: loads every kernel once (lazy module loading
  // stays out of the first real timing) and proves the device answers correctly.
  void self_test() {
    const std::vector<eoff_t> offsets = {0, 2, 3, 3};
    const std::vector<vid_t> neighbors = {1, 2, 2};
    BlockView v;
    v.rows = v.cols = 3;
    v.nnz = 3;
    v.max_degree = 2;
    v.offsets = offsets.data();
    v.neighbors = neighbors.data();
    CountStats unused;
    const count_t thread = run(SubtaskBlocks{v, v, v, 0, 1}, unused, false);
    thread_rows_override_ = false;  // the warp kernel
    const count_t warp = run(SubtaskBlocks{v, v, v, 0, 1}, unused, false);
    thread_rows_override_.reset();
    const std::uint32_t saved = options_.cta_degree_threshold;
    options_.cta_degree_threshold = 1;  // the same triangle on the CTA path
    const count_t cta = run(SubtaskBlocks{v, v, v, 0, 1}, unused, false);
    options_.cta_degree_threshold = saved;
    force_reverse_ = true;  // the warp kernel with the reverse search
    const count_t reverse = run(SubtaskBlocks{v, v, v, 0, 1}, unused, false);
    force_reverse_ = false;
    split_override_ = 0;  // every edge with a 2-hop list to v's side: edge (0, 1)
    const count_t split = run(SubtaskBlocks{v, v, v, 0, 1}, unused, false);
    split_override_.reset();
    if (thread != 1 || warp != 1 || cta != 1 || reverse != 1 || split != 1)
      throw Error("CUDA backend self-test on " + std::string(prop_.name) + " counted " + std::to_string(thread) + ", " +
                  std::to_string(warp) + ", " + std::to_string(cta) + ", " + std::to_string(reverse) + " and " +
                  std::to_string(split) +
                  " triangles in a triangle (expected 1 each: thread, warp, CTA, reverse search and edge split paths)");
    drop_unserialed();
  }

  // ---- device block cache -------------------------------------------------------------

  DeviceBlock* find(const BlockView& v) {
    for (auto& d : cache_)
      if (d->matches(v)) return d.get();
    return nullptr;
  }
  std::uint64_t cached_bytes() const {
    std::uint64_t s = 0;
    for (const auto& d : cache_) s += d->bytes();
    return s;
  }
  std::uint64_t scratch_bytes() const {
    return rows_a_.bytes() + rows_b_.bytes() + rows_c_.bytes() + rows_d_.bytes() + split_counts_.bytes() + t_offsets_.bytes() +
           t_neighbors_.bytes() + split_bits_.bytes() + cub_temp_.bytes() + cta_scratch_.bytes();
  }
  void drop_unserialed() {
    std::erase_if(cache_, [](const auto& d) { return d->serial == 0; });
  }
  // Bytes this backend may still allocate.
  std::uint64_t available() const {
    std::size_t free = 0, total = 0;
    TRICOUNT_CUDA_TRY(cudaMemGetInfo(&free, &total));
    std::uint64_t avail = free > kReserveBytes ? free - kReserveBytes : 0;
    if (knobs_.device_bytes) {
      const std::uint64_t used = cached_bytes() + scratch_bytes();
      avail = std::min<std::uint64_t>(avail, knobs_.device_bytes > used ? knobs_.device_bytes - used : 0);
    }
    return avail;
  }
  // Evicts least recently used blocks outside `keep` until `bytes` can be allocated.
  bool make_room(std::uint64_t bytes, const std::vector<const DeviceBlock*>& keep) {
    while (available() < bytes) {
      auto victim = cache_.end();
      for (auto it = cache_.begin(); it != cache_.end(); ++it) {
        if (std::find(keep.begin(), keep.end(), it->get()) != keep.end()) continue;
        if (victim == cache_.end() || (*it)->last_use < (*victim)->last_use) victim = it;
      }
      if (victim == cache_.end()) return false;
      cache_.erase(victim);
    }
    return true;
  }

  [[noreturn]] void throw_too_big(const SubtaskBlocks& b, std::uint64_t triple_bytes, std::uint64_t scratch) const {
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    std::uint64_t could = free + cached_bytes() + scratch_bytes();  // everything this backend could free
    if (knobs_.device_bytes) could = std::min<std::uint64_t>(could, knobs_.device_bytes);
    could = could > kReserveBytes ? could - kReserveBytes : 0;
    const std::uint64_t need = triple_bytes + scratch;
    // Block bytes shrink about with the square of the number of parts n (|E| / n^2 edges
    // per block); the subtask does not know n, so the advice is a factor.
    const double ratio = could ? std::sqrt(double(need) / double(could)) : 2.0;
    const std::uint64_t factor = std::max<std::uint64_t>(2, static_cast<std::uint64_t>(std::ceil(ratio * 1.2)));
    throw Error("CUDA backend: the block triple hash " + block_label(b.hash) + ", 1-hop " + block_label(b.one_hop) +
                ", 2-hop " + block_label(b.two_hop) + " needs " + mib(triple_bytes) + " of blocks and " + mib(scratch) +
                " of working memory on GPU " + std::to_string(device_) + " (" + prop_.name + "), which can give at most " +
                mib(could) + ": partition the graph into at least " + std::to_string(factor) +
                " times as many parts (tricount-partition --parts " + std::to_string(factor) +
                "*n for the current n) so that each block triple fits");
  }

  // The copy into a pinned staging buffer, on several threads (at least 4 MiB each): one
  // thread copied at about 3 GB/s, the DMA behind it runs several times faster.
  void copy_to_staging(char* to, const char* from, std::size_t n) const {
    const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(staging_threads_, std::max<std::size_t>(1, n >> 22)));
    parallel_ranges(n, threads, [&](std::uint64_t first, std::uint64_t last) { std::memcpy(to + first, from + first, last - first); });
  }

  // Uploads a block through the pinned staging buffers.
  void upload(void* dst, const void* src, std::size_t bytes) {
    const char* from = static_cast<const char*>(src);
    char* to = static_cast<char*>(dst);
    for (std::size_t done = 0; done < bytes;) {
      const std::size_t n = std::min(kStagingBytes, bytes - done);
      TRICOUNT_CUDA_TRY(cudaEventSynchronize(*staging_done_[next_staging_]));  // buffer free again
      copy_to_staging(static_cast<char*>(staging_[next_staging_].get()), from + done, n);
      TRICOUNT_CUDA_TRY(cudaMemcpyAsync(to + done, staging_[next_staging_].get(), n, cudaMemcpyHostToDevice, *stream_));
      TRICOUNT_CUDA_TRY(cudaEventRecord(*staging_done_[next_staging_], *stream_));
      next_staging_ ^= 1;
      done += n;
    }
  }

  // ---- one subtask --------------------------------------------------------------------

  // What planning a side needs of a block.
  struct BlockMeta {
    std::uint64_t rows = 0, nnz = 0;
    std::uint32_t max_degree = 0;
  };
  static BlockMeta meta(const BlockView& v) { return {v.rows, v.nnz, v.max_degree}; }

  // One pass of the counting kernels over a (hash, 1-hop, 2-hop) triple: the u side (the
  // subtask's own blocks) or v's side of the edge split (P(j,k), T, P(i,k)).
  struct SidePlan {
    std::uint64_t rows = 0;
    TableConfig tile_cfg, cta_cfg;
    std::uint32_t tile_max_keys = 0;
    TileVariant variant = TileVariant::G32;
    std::uint32_t G = 32;
    bool reverse = false;
    bool split_edges = false;  // the u side of an edge split: the kernels with kSplit
    std::uint32_t bitmap_words = 0, cta_smem_words = 0;
    std::size_t tile_smem = 0;
    std::uint64_t cta_grid = 1, tile_grid = 1, scratch_words = 0;
    std::uint32_t tile_chunk = 1;
    std::uint32_t trim_min = 0;
    bool direct = false;  // no row can be a CTA row: the warp kernel takes every row, unclassified
    RowClassifier classifier{};
    std::size_t cub_bytes = 0;
  };

  // Table configurations, kernel variants and grids for one side. split_edges: the u side
  // leaves the edges defers_edge() gives away (so its reverse search may never be taken).
  SidePlan plan_side(const BlockMeta& hash, const BlockMeta& one_hop, const BlockMeta& two_hop, std::uint32_t split,
                     std::uint32_t splits, bool split_edges, std::uint32_t quarters) const {
    SidePlan sp;
    sp.rows = one_hop.rows;
    sp.split_edges = split_edges;
    const std::uint64_t rows = one_hop.rows;
    const std::uint32_t max_keys = std::min<std::uint32_t>(hash.max_degree, knobs_.table_limit);
    const std::uint32_t threshold = options_.cta_degree_threshold;
    // Lanes per warp row: 8 when the average row has almost no 2-hop work (a 3D grid: about
    // 3 x 3 elements per row; 32 lanes leave most idle and each warp waits on one row's
    // chain of loads), else 32. Measured on an H200: grid 128^3 0.87 ms with 32 lanes, 0.44
    // with 8; uniform 2^20 (16 x 16 per row) 1.30 with 32, 2.05 with 8.
    const double work_per_row = (double(one_hop.nnz) / double(std::max<std::uint64_t>(1, rows))) *
                                (double(two_hop.nnz) / double(std::max<std::uint64_t>(1, two_hop.rows)));
    const std::uint32_t lanes = knobs_.tile ? knobs_.tile : work_per_row < kSmallRowWork ? 8 : 32;
    sp.variant = knobs_.variant(lanes);
    sp.G = tile_lanes(sp.variant);
    // The warp kernel with the reverse search only where a 2-hop list is long enough for it
    // to pay: Kronecker graphs have lists of hundreds to thousands, uniform and grid graphs
    // of tens, where the search would never be taken and its register spills would cost.
    // Under the edge split, lists longer than quarters/4 times u's keys are v's side's, so
    // a ratio at least that large is never reached.
    const bool search_reachable = !split_edges || std::uint64_t(knobs_.search_ratio) * 4 < quarters;
    sp.reverse = force_reverse_ || (knobs_.search_ratio != 0 && search_reachable && two_hop.max_degree >= knobs_.search_min_list &&
                                    two_hop.max_degree > knobs_.search_ratio);
    TableConfig unbounded;
    unbounded.shared_words = 0xFFFFFFFFu;
    unbounded.log2_buckets_per_key = knobs_.buckets_log2;
    sp.tile_cfg = unbounded;
    sp.tile_cfg.max_shared_levels = knobs_.tile_levels;
    sp.cta_cfg = unbounded;
    const std::uint32_t tile_budget = std::min<std::uint32_t>(kTileBlockSharedWords / (kTileBlockThreads / sp.G), knobs_.shared_words_cap);
    const std::uint32_t tile_keys = threshold > 0 ? std::min<std::uint32_t>(threshold - 1, hash.max_degree) : 0;
    sp.tile_cfg.shared_words = static_cast<std::uint32_t>(
        std::clamp<std::uint64_t>(make_table_shape(tile_keys, sp.tile_cfg).shared_words(), 64, std::max<std::uint32_t>(64, tile_budget)));
    sp.cta_cfg.shared_words = static_cast<std::uint32_t>(
        std::clamp<std::uint64_t>(make_table_shape(max_keys, unbounded).shared_words(), 64, std::max<std::uint32_t>(64, cta_words_)));
    if (knobs_.collide) sp.tile_cfg.hash_multiplier = sp.cta_cfg.hash_multiplier = 0;
    // Largest table a warp takes (every level in shared memory).
    while (sp.tile_max_keys < std::min(tile_keys, knobs_.table_limit) && make_table_shape(sp.tile_max_keys + 1, sp.tile_cfg).all_shared())
      ++sp.tile_max_keys;

    // Global levels for the CTA path: sized for the largest row, as many CTAs as fit.
    const std::uint64_t need_words = make_table_shape(max_keys, sp.cta_cfg).global_words();
    // The CTA kernel's dynamic shared memory: its table or its bitmap, whichever is larger.
    // No bitmap where no row can be a CTA row (the classifier's test on the blocks' largest
    // degrees): a CTA kernel with nothing to do then takes no more shared memory than
    // before beside the warp kernel (measured: 1% on uniform 2^24 otherwise).
    const bool cta_rows_possible = hash.max_degree >= threshold || one_hop.max_degree >= threshold ||
                                   hash.max_degree > sp.tile_max_keys;
    sp.bitmap_words = cta_rows_possible ? bitmap_words_ : 0;
    // Nor a classification then: the warp kernel walks the rows themselves, skipping the
    // empty ones (uniform 2^24: the partition took 0.2 ms, and each row's id was one more
    // dependent load).
    sp.direct = knobs_.direct && !cta_rows_possible && splits == 1;
    sp.trim_min = knobs_.trim_min;
    sp.cta_smem_words = std::max(sp.cta_cfg.shared_words, sp.bitmap_words);
    int cta_per_sm = 0, tile_per_sm = 0;
    with_cta_kernel(knobs_.cta_occ, split_edges, [&](auto kernel) {
      TRICOUNT_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cta_per_sm, kernel, kCtaThreads, std::size_t{sp.cta_smem_words} * 4));
    });
    sp.tile_smem = std::size_t{sp.tile_cfg.shared_words} * 4 * (kTileBlockThreads / sp.G);
    with_tile_kernel(sp.variant, sp.reverse, split_edges, [&](auto kernel) {
      TRICOUNT_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&tile_per_sm, kernel, kTileBlockThreads, sp.tile_smem));
    });
    sp.cta_grid = std::uint64_t(std::max(1, cta_per_sm)) * prop_.multiProcessorCount;
    if (need_words > 0) {
      const std::uint64_t budget_words = kCtaScratchBudget / sizeof(vid_t);
      sp.cta_grid = std::clamp<std::uint64_t>(budget_words / need_words, 1, sp.cta_grid);
      sp.scratch_words = std::min(need_words, budget_words);  // rows needing more use binary search
    }
    sp.tile_grid = std::uint64_t(std::max(1, tile_per_sm)) * prop_.multiProcessorCount;
    // Rows per grab: 1 for small row counts (hubs make rows uneven), more for many rows
    // (one atomic counter shared by every warp would be the bottleneck).
    const std::uint64_t tile_warps = sp.tile_grid * (kTileBlockThreads / sp.G);
    sp.tile_chunk = options_.chunk_size ? options_.chunk_size
                                        : static_cast<std::uint32_t>(std::clamp<std::uint64_t>(rows / (tile_warps * 64), 1, kMaxTileChunk));

    sp.classifier = RowClassifier{nullptr, nullptr, split, splits, threshold, sp.tile_max_keys};
    TRICOUNT_CUDA_TRY(cub::DevicePartition::If(nullptr, sp.cub_bytes, thrust::counting_iterator<vid_t>(0), (vid_t*)nullptr,
                                               (vid_t*)nullptr, thrust::make_discard_iterator(), (std::uint32_t*)nullptr,
                                               static_cast<std::int64_t>(rows), IsCtaRow{sp.classifier},
                                               IsTileRow{sp.classifier}, *stream_));
    return sp;
  }

  // Kernel parameters of a side over device blocks; `small` holds its list sizes [0..1] and
  // row counters [2..3], the result is shared.
  CountParams side_params(const SidePlan& sp, CsrView hash, CsrView one_hop, CsrView two_hop, vid_t* cta_rows, vid_t* tile_rows,
                          std::uint32_t* small, unsigned long long* result) const {
    CountParams p;
    p.hash = hash;
    p.one_hop = one_hop;
    p.two_hop = two_hop;
    p.cta_rows = cta_rows;
    p.tile_rows = tile_rows;
    p.list_sizes = small;
    p.next = small + 2;
    p.result = result;
    p.tile_table = sp.tile_cfg;
    p.cta_table = sp.cta_cfg;
    p.cta_scratch = cta_scratch_.get();
    p.cta_scratch_words = sp.scratch_words;
    p.table_limit = knobs_.table_limit;
    p.tile_chunk = sp.tile_chunk;
    p.trim_min = sp.trim_min;
    if (sp.direct) {
      p.tile_rows = nullptr;
      p.direct_rows = static_cast<std::uint32_t>(sp.rows);
    }
    p.cta_bitmap_words = sp.bitmap_words;
    p.search_ratio = knobs_.search_ratio;
    return p;
  }

  // Classification of a side's rows into its CTA and warp lists (on stream s).
  void classify(const SidePlan& sp, const CountParams& p, cudaStream_t s) {
    RowClassifier rc = sp.classifier;
    rc.hash_offsets = p.hash.offsets;
    rc.one_hop_offsets = p.one_hop.offsets;
    std::size_t temp_bytes = cub_temp_.bytes();
    TRICOUNT_CUDA_TRY(cub::DevicePartition::If(cub_temp_.get(), temp_bytes, thrust::counting_iterator<vid_t>(0),
                                               const_cast<vid_t*>(p.cta_rows), const_cast<vid_t*>(p.tile_rows),
                                               thrust::make_discard_iterator(), const_cast<std::uint32_t*>(p.list_sizes),
                                               static_cast<std::int64_t>(sp.rows), IsCtaRow{rc}, IsTileRow{rc}, s));
  }

  void launch_cta(const SidePlan& sp, const CountParams& p, cudaStream_t s) {
    with_cta_kernel(knobs_.cta_occ, sp.split_edges, [&](auto kernel) {
      kernel<<<static_cast<unsigned>(sp.cta_grid), kCtaThreads, std::size_t{sp.cta_smem_words} * 4, s>>>(p);
    });
    TRICOUNT_CUDA_CHECK_LAUNCH("count_cta_rows");
  }
  void launch_tile(const SidePlan& sp, const CountParams& p, cudaStream_t s) {
    with_tile_kernel(sp.variant, sp.reverse, sp.split_edges, [&](auto kernel) {
      kernel<<<static_cast<unsigned>(sp.tile_grid), kTileBlockThreads, sp.tile_smem, s>>>(p);
    });
    TRICOUNT_CUDA_CHECK_LAUNCH("count_tile_rows");
  }

  // Whether this subtask splits its edges between the two sides (edge_split.cuh): where a
  // 2-hop list is long enough for the other direction to pay (skewed graphs; uniform and
  // grid graphs would pay the transposition for nothing).
  std::optional<std::uint32_t> edge_split_quarters(const SubtaskBlocks& b) const {
    if (split_override_) return split_override_;
    if (knobs_.split == 0) return std::nullopt;
    if (knobs_.split == 1 && b.two_hop.max_degree < knobs_.split_min_list) return std::nullopt;
    return knobs_.split_quarters;
  }

  count_t run(const SubtaskBlocks& b, CountStats& stats, bool timed) {
    drop_unserialed();
    const std::uint64_t rows = b.one_hop.rows;       // class i
    const std::uint64_t rows_j = b.two_hop.rows;     // class j: rows of T
    // Every row tiny (hash and 1-hop rows of at most 8, 2-hop of at most 64): one thread
    // per row and nothing else (count_thread_rows).
    const bool thread_rows = thread_rows_override_.value_or(knobs_.thread_rows) && !force_reverse_ && !split_override_ && b.hash.max_degree <= kThreadMaxRow &&
                             b.one_hop.max_degree <= kThreadMaxRow && b.two_hop.max_degree <= kThreadMaxList &&
                             options_.cta_degree_threshold > kThreadMaxRow;
    const std::optional<std::uint32_t> quarters = thread_rows ? std::nullopt : edge_split_quarters(b);
    const bool split = quarters.has_value();
    if (split)
      TRICOUNT_EXPECTS(std::uint64_t(b.hash.max_degree) * kCtaThreads < (std::uint64_t{1} << 32),
                       "block " + block_label(b.hash) + ": a row of " + std::to_string(b.hash.max_degree) +
                           " neighbours is beyond the CUDA backend's 32-bit prefix sums");

    const std::uint64_t split_words = b.one_hop.nnz / 32 + 2;  // a bit per edge of P(i,j)
    const SidePlan side_u = plan_side(meta(b.hash), meta(b.one_hop), meta(b.two_hop), b.split, b.splits, split, quarters.value_or(0));
    std::optional<SidePlan> side_v;
    std::size_t cub_bytes = side_u.cub_bytes;
    if (split) {
      // v's side: hash P(j,k), 1-hop T (at most P(i,j)'s entries; a row at most |class i|
      // long), 2-hop P(i,k); no workload split (T holds only this split's edges).
      const BlockMeta t{rows_j, b.one_hop.nnz, static_cast<std::uint32_t>(std::min<std::uint64_t>(rows, 0xFFFFFFFFu))};
      side_v = plan_side(meta(b.two_hop), t, meta(b.hash), 0, 1, false, 0);
      side_v->trim_min = knobs_.split_trim_min;
      std::size_t scan_bytes = 0;
      TRICOUNT_CUDA_TRY(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, (unsigned long long*)nullptr, (eoff_t*)nullptr,
                                                      static_cast<std::int64_t>(rows_j + 1), *stream_));
      cub_bytes = std::max({cub_bytes, side_v->cub_bytes, scan_bytes});
    }
    const std::uint64_t cta_scratch_words = std::max(side_u.cta_grid * side_u.scratch_words,
                                                     side_v ? side_v->cta_grid * side_v->scratch_words : 0);

    // Blocks on the device: reuse cached ones, make room, upload the rest. A role whose
    // block is the same as an earlier role's (same serial; same pointer when serial is 0)
    // shares its device copy.
    const std::array<const BlockView*, 3> views = {&b.hash, &b.one_hop, &b.two_hop};
    std::array<int, 3> same_as = {-1, -1, -1};
    std::array<DeviceBlock*, 3> dev{};
    std::vector<const DeviceBlock*> keep;
    std::uint64_t triple_bytes = 0, missing_bytes = 0;
    for (int r = 0; r < 3; ++r) {
      for (int q = 0; q < r && same_as[r] < 0; ++q)
        if (views[q]->serial != 0 ? views[q]->serial == views[r]->serial : views[q]->offsets == views[r]->offsets)
          same_as[r] = q;
      if (same_as[r] >= 0) continue;
      triple_bytes += view_bytes(*views[r]);
      dev[r] = find(*views[r]);
      if (dev[r]) keep.push_back(dev[r]);
      else missing_bytes += view_bytes(*views[r]);
    }
    std::uint64_t scratch_need = 2 * rows * sizeof(vid_t) + cub_bytes + cta_scratch_words * sizeof(vid_t);
    if (split)
      scratch_need += 2 * rows_j * sizeof(vid_t) + 2 * (rows_j + 1) * sizeof(eoff_t) + b.one_hop.nnz * sizeof(vid_t) +
                      split_words * sizeof(std::uint32_t);
    const std::uint64_t scratch_grow = scratch_need > scratch_bytes() ? scratch_need : 0;  // may reallocate all
    if (missing_bytes + scratch_grow > 0 && !make_room(missing_bytes + scratch_grow, keep))
      throw_too_big(b, triple_bytes, scratch_need);

    const auto t0 = std::chrono::steady_clock::now();
    std::uint64_t copied = 0;
    for (int r = 0; r < 3; ++r) {
      if (same_as[r] >= 0 || dev[r]) continue;
      const BlockView* v = views[r];
      auto d = std::make_unique<DeviceBlock>();
      d->serial = v->serial;
      d->rows = v->rows;
      d->cols = v->cols;
      d->nnz = v->nnz;
      if (!d->offsets.try_allocate(v->rows + 1) || !d->neighbors.try_allocate(v->nnz)) {
        d.reset();
        throw_too_big(b, triple_bytes, scratch_need);
      }
      upload(d->offsets.get(), v->offsets, (v->rows + 1) * sizeof(eoff_t));
      upload(d->neighbors.get(), v->neighbors, v->nnz * sizeof(vid_t));
      copied += view_bytes(*v);
      dev[r] = d.get();
      keep.push_back(d.get());
      cache_.push_back(std::move(d));
    }
    if (copied) {
      TRICOUNT_CUDA_TRY(cudaStreamSynchronize(*stream_));
      if (timed) {
        stats.transfer_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        stats.bytes_transferred += copied;
      }
    }
    for (int r = 0; r < 3; ++r) {
      if (same_as[r] >= 0) dev[r] = dev[same_as[r]];
      dev[r]->last_use = ++use_clock_;
    }

    // Working memory (grows only).
    try {
      rows_a_.reserve(rows);
      rows_b_.reserve(rows);
      cub_temp_.reserve(std::max<std::size_t>(cub_bytes, 1));
      cta_scratch_.reserve(std::max<std::uint64_t>(cta_scratch_words, 1));
      if (split) {
        rows_c_.reserve(rows_j);
        rows_d_.reserve(rows_j);
        split_counts_.reserve(rows_j + 1);
        t_offsets_.reserve(rows_j + 1);
        t_neighbors_.reserve(std::max<std::uint64_t>(b.one_hop.nnz, 1));
        split_bits_.reserve(split_words);
      }
    } catch (const Error&) {
      throw_too_big(b, triple_bytes, scratch_need);
    }

    std::uint32_t* small = small_.get();  // [0..3] u side, [4..5] result, [8..11] v's side
    unsigned long long* result = reinterpret_cast<unsigned long long*>(small + 4);
    CountParams pu = side_params(side_u, dev[0]->view(), dev[1]->view(), dev[2]->view(), rows_a_.get(), rows_b_.get(), small, result);
    pu.split_quarters = quarters.value_or(0);
    pu.split_counts = split_counts_.get();
    pu.split_bits = split_bits_.get();
    CountParams pv;
    if (split)
      pv = side_params(*side_v, dev[2]->view(), CsrView{t_offsets_.get(), t_neighbors_.get()}, dev[0]->view(), rows_c_.get(),
                       rows_d_.get(), small + 8, result);

    cudaStream_t s = *stream_;
    // Profiling (debug): everything on one stream, each step timed.
    cudaStream_t tile_stream = knobs_.profile ? s : side_->get();
    std::vector<std::pair<const char*, std::unique_ptr<Event>>> marks;
    auto mark = [&](const char* what) {
      if (!knobs_.profile) return;
      marks.emplace_back(what, std::make_unique<Event>());
      TRICOUNT_CUDA_TRY(cudaEventRecord(*marks.back().second, s));
    };
    // A side's kernels: the classification, then the CTA and warp kernels on two streams; or,
    // where no row can be a CTA row, the warp kernel alone over every row.
    auto launch_side = [&](const SidePlan& sp, const CountParams& p, const std::array<const char*, 4>& labels) {
      if (sp.direct) {
        launch_tile(sp, p, s);
        mark(labels[3]);
        return;
      }
      classify(sp, p, s);
      mark(labels[0]);
      TRICOUNT_CUDA_TRY(cudaEventRecord(*ev_fork_, s));
      TRICOUNT_CUDA_TRY(cudaStreamWaitEvent(*side_, *ev_fork_, 0));
      launch_cta(sp, p, s);
      mark(labels[1]);
      launch_tile(sp, p, tile_stream);
      mark(labels[2]);
    };
    TRICOUNT_CUDA_TRY(cudaEventRecord(*ev_start_, s));
    TRICOUNT_CUDA_TRY(cudaMemsetAsync(small, 0, 16 * sizeof(std::uint32_t), s));
    if (thread_rows) {
      const unsigned grid = static_cast<unsigned>(std::clamp<std::uint64_t>(
          (rows + kThreadBlockThreads - 1) / kThreadBlockThreads, 1, std::uint64_t(prop_.multiProcessorCount) * 8));
      count_thread_rows<<<grid, kThreadBlockThreads, 0, s>>>(pu, rows, b.split, b.splits);
      TRICOUNT_CUDA_CHECK_LAUNCH("count_thread_rows");
      mark("thread rows");
    } else {
      if (split) {  // the u side counts and marks the edges it leaves to v's side
        TRICOUNT_CUDA_TRY(cudaMemsetAsync(split_counts_.get(), 0, (rows_j + 1) * sizeof(unsigned long long), s));
        TRICOUNT_CUDA_TRY(cudaMemsetAsync(split_bits_.get(), 0, split_words * sizeof(std::uint32_t), s));
      }
      launch_side(side_u, pu, {"classify", "u: CTA rows", "u: warp rows", "u: every row, warp kernel"});
    }
    if (split) {
      // T from what the u side left: row ends (inclusive sum of the counts), then entries.
      TRICOUNT_CUDA_TRY(cudaEventRecord(*ev_join_, tile_stream));
      TRICOUNT_CUDA_TRY(cudaStreamWaitEvent(s, *ev_join_, 0));
      std::size_t temp_bytes = cub_temp_.bytes();
      TRICOUNT_CUDA_TRY(cub::DeviceScan::InclusiveSum(cub_temp_.get(), temp_bytes, split_counts_.get(), t_offsets_.get(),
                                                      static_cast<std::int64_t>(rows_j + 1), s));
      mark("T sum");
      EdgeSplitParams ep;
      ep.one_hop_offsets = pu.one_hop.offsets;
      ep.one_hop_neighbors = pu.one_hop.neighbors;
      ep.rows = rows;
      ep.nnz = b.one_hop.nnz;
      ep.bits = split_bits_.get();
      ep.t_ends = t_offsets_.get();
      ep.t_neighbors = t_neighbors_.get();
      const std::uint64_t per_block = std::uint64_t{kSplitBlockThreads} * kSplitEdgesPerThread;
      const unsigned grid = static_cast<unsigned>(std::clamp<std::uint64_t>(
          (b.one_hop.nnz + per_block - 1) / per_block, 1, std::uint64_t(prop_.multiProcessorCount) * 8));
      scatter_deferred_edges<<<grid, kSplitBlockThreads, 0, s>>>(ep);
      TRICOUNT_CUDA_CHECK_LAUNCH("scatter_deferred_edges");
      mark("T scatter");
      launch_side(*side_v, pv, {"v: classify", "v: CTA rows", "v: warp rows", "v: every row, warp kernel"});
    }
    TRICOUNT_CUDA_TRY(cudaEventRecord(*ev_join_, tile_stream));
    TRICOUNT_CUDA_TRY(cudaStreamWaitEvent(s, *ev_join_, 0));
    TRICOUNT_CUDA_TRY(cudaEventRecord(*ev_stop_, s));
    TRICOUNT_CUDA_TRY(cudaMemcpyAsync(host_result_.get(), result, sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
    TRICOUNT_CUDA_TRY(cudaStreamSynchronize(s));
    if (timed) {
      float ms = 0;
      TRICOUNT_CUDA_TRY(cudaEventElapsedTime(&ms, *ev_start_, *ev_stop_));
      stats.count_seconds += ms * 1e-3;
    }
    if (knobs_.profile && timed) {
      std::uint32_t sizes[12] = {};
      TRICOUNT_CUDA_TRY(cudaMemcpy(sizes, small, sizeof sizes, cudaMemcpyDeviceToHost));
      std::string line = "[cuda profile] rows " + std::to_string(rows);
      cudaEvent_t prev = *ev_start_;
      char buf[160];
      for (const auto& [what, ev] : marks) {
        float ms = 0;
        TRICOUNT_CUDA_TRY(cudaEventElapsedTime(&ms, prev, *ev));
        std::snprintf(buf, sizeof buf, " | %s %.3f ms", what, ms);
        line += buf;
        prev = *ev;
      }
      auto describe = [&](const char* who, const SidePlan& sp, const std::uint32_t* sz) {
        if (sp.direct)
          std::snprintf(buf, sizeof buf, " | %s: every row to the warp kernel (G %u, reverse %d)", who, sp.G, int(sp.reverse));
        else
          std::snprintf(buf, sizeof buf, " | %s: CTA rows %u (grid %llu, %u bitmap words), warp rows %u (G %u, reverse %d)", who,
                        sz[0], (unsigned long long)sp.cta_grid, sp.bitmap_words, sz[1], sp.G, int(sp.reverse));
        line += buf;
      };
      if (!thread_rows) describe("u", side_u, sizes);
      if (split) describe("v", *side_v, sizes + 8);
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    return *static_cast<const unsigned long long*>(host_result_.get());
  }

  BackendOptions options_;
  Knobs knobs_;
  int device_ = 0;
  cudaDeviceProp prop_{};
  std::uint32_t cta_budget_words_ = 0;  // dynamic shared memory the CTA kernel may take
  std::uint32_t cta_words_ = 0;         // what a CTA table takes at most
  std::uint32_t bitmap_words_ = 0;      // a CTA row's key bitmap (0: none)
  bool force_reverse_ = false;          // self-test: the warp kernel with the reverse search
  std::optional<std::uint32_t> split_override_;  // self-test: the edge split with these quarters
  std::optional<bool> thread_rows_override_;     // self-test: the thread-per-row kernel on or off
  unsigned staging_threads_ = std::clamp(usable_cores() / 2, 1u, 8u);
  std::unique_ptr<Stream> stream_, side_;
  std::unique_ptr<Event> ev_start_, ev_stop_, ev_fork_, ev_join_;
  std::array<PinnedBuffer, 2> staging_;
  std::array<std::unique_ptr<Event>, 2> staging_done_;
  int next_staging_ = 0;
  PinnedBuffer host_result_;
  std::vector<std::unique_ptr<DeviceBlock>> cache_;
  std::uint64_t use_clock_ = 0;
  DeviceBuffer<std::uint32_t> small_;
  DeviceBuffer<vid_t> rows_a_, rows_b_;  // the u side's CTA and warp rows
  DeviceBuffer<vid_t> rows_c_, rows_d_;  // v's side's
  DeviceBuffer<unsigned long long> split_counts_;  // edges per row of T while T is built
  DeviceBuffer<eoff_t> t_offsets_;
  DeviceBuffer<vid_t> t_neighbors_;
  DeviceBuffer<std::uint32_t> split_bits_;  // which edges of P(i,j) v's side takes, a bit each
  DeviceBuffer<unsigned char> cub_temp_;
  DeviceBuffer<vid_t> cta_scratch_;
};

}  // namespace

std::unique_ptr<CountBackend> make_cuda_backend(const BackendOptions& options) {
  return std::make_unique<CudaBackend>(options);
}

}  // namespace tricount
