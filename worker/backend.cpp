#include "worker/backend.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <sstream>
#include <type_traits>
#include <vector>

#ifdef TRICOUNT_HAVE_CUDA
#include "worker/cuda/cuda_backend.hpp"
#endif

namespace tricount {

BackendKind parse_backend_kind(std::string_view name) {
  if (name == "auto") return BackendKind::Auto;
  if (name == "cpu") return BackendKind::Cpu;
  if (name == "cuda") return BackendKind::Cuda;
  throw UsageError("--backend: unknown backend '" + std::string(name) + "' (choose auto, cpu or cuda)");
}

namespace {

// One --cuda-tuning key: its range, what it does, and where its value goes.
struct TuningKey {
  const char* name;
  double min, max;
  const char* help;
  bool integral;  // the field is an integer or a flag: values with a fraction are refused
  std::function<void(CudaTuning&, double)> set;
  std::function<double(const CudaTuning&)> get;
};

template <class T>
TuningKey key(const char* name, T CudaTuning::*field, double min, double max, const char* help) {
  return {name, min, max, help, !std::is_floating_point_v<T>, [field](CudaTuning& t, double x) { t.*field = static_cast<T>(x); },
          [field](const CudaTuning& t) { return static_cast<double>(t.*field); }};
}

const std::vector<TuningKey>& tuning_keys() {
  static const std::vector<TuningKey> keys = {
      key("shared-words-cap", &CudaTuning::shared_words_cap, 64, 0xFFFFFFFFu, "cap on a table's shared-memory words"),
      key("table-limit", &CudaTuning::table_limit, 0, 0xFFFFFFFFu, "rows with more keys probe by binary search"),
      key("collide", &CudaTuning::collide, 0, 1, "1: every key hashes to bucket 0"),
      key("device-bytes", &CudaTuning::device_bytes, 0, 1e18, "device memory the backend may use (0: all)"),
      key("profile", &CudaTuning::profile, 0, 1, "1: every step in sequence, its time to stderr"),
      key("buckets-log2", &CudaTuning::buckets_log2, 0, 3, "buckets per key, log2"),
      key("warp-table-levels", &CudaTuning::warp_table_levels, 1, 16, "shared levels of a warp table, at most"),
      key("cta-table-words", &CudaTuning::cta_table_words, 64, 16384, "shared words of a CTA table"),
      key("bitmap-words", &CudaTuning::bitmap_words, 0, 0xFFFFFFFFu, "shared words of a CTA row's key bitmap (0: none)"),
      key("warp-lanes", &CudaTuning::warp_lanes, 0, 32, "lanes per warp row: 8 or 32 (0: by the task)"),
      key("small-row-work", &CudaTuning::small_row_work, 0, 1e18, "8 lanes per row below this 2-hop work per row"),
      key("thread-rows", &CudaTuning::thread_rows, 0, 1, "0: never the thread-per-row kernel"),
      key("filter-rows", &CudaTuning::filter_rows, 0, 2, "one thread per row with a key filter: 0 never, 1 by the task, 2 wherever no CTA row or v side"),
      key("filter-row-average", &CudaTuning::filter_row_average, 0, 1e18, "filter-rows=1: the average 1-hop row at most this long"),
      key("batch-rows", &CudaTuning::batch_rows, 0, 2, "a warp per 32 consecutive rows, staged: 0 never, 1 by the task, 2 wherever every row is direct and fits"),
      key("direct-warp-rows", &CudaTuning::direct_warp_rows, 0, 1, "0: always classify rows"),
      key("tiny-rows", &CudaTuning::tiny_rows, 0, 8, "classified rows of at most this many keys and 1-hop entries: one thread each (0: none)"),
      key("search-ratio", &CudaTuning::search_ratio, 0, 0xFFFFFFFFu, "search u's keys in 2-hop lists this many times longer (0: never)"),
      key("search-min-list", &CudaTuning::search_min_list, 0, 0xFFFFFFFFu, "the search kernel only for 2-hop rows this long"),
      key("v-side", &CudaTuning::v_side, 0, 2, "transposed v side: 0 never, 1 by the blocks, 2 always"),
      key("v-side-quarters", &CudaTuning::v_side_quarters, 0, 0xFFFFFFFFu, "edges with 2-hop lists over this/4 times u's keys go to v's side"),
      key("v-side-min-list", &CudaTuning::v_side_min_list, 0, 0xFFFFFFFFu, "the v side only for 2-hop rows this long"),
      key("rank-counts", &CudaTuning::rank_counts, 0, 1, "per-vertex: 0: bitmap CTA rows sum w's hits in the hashed tally, not by key rank"),
      key("edge-lists", &CudaTuning::edge_lists, 0, 1, "per-edge: 1: the sorted-list kernel (per_edge.cuh) instead of the counting kernels"),
      key("narrow-offsets", &CudaTuning::narrow_offsets, 0, 1, "0: v's list bounds read from the 64-bit offsets"),
      key("v-side-trim", &CudaTuning::v_side_trim, 0, 0xFFFFFFFFu, "v's 2-hop lists this long skip what lies below its keys (0: off)"),
      key("t-places", &CudaTuning::t_places, 0, 2, "v side: T's places kept by the u side: 0 never, 1 where T fits the L2, 2 always"),
  };
  return keys;
}

std::string number(double x) {
  std::ostringstream out;
  out << std::setprecision(12) << x;
  return out.str();
}

}  // namespace

CudaTuning parse_cuda_tuning(std::string_view text) {
  CudaTuning tuning;
  std::size_t begin = 0;
  while (begin < text.size()) {
    // 1. The next "key=value" item.
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string_view item = text.substr(begin, end - begin);
    begin = end + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    const std::string name(item.substr(0, eq));
    // 2. Its key, and its value within the key's range.
    const auto& keys = tuning_keys();
    const auto k = std::find_if(keys.begin(), keys.end(), [&](const TuningKey& t) { return name == t.name; });
    if (k == keys.end())
      throw UsageError("--cuda-tuning: unknown key '" + name + "' (see --help for the keys)");
    const std::string value = eq == std::string_view::npos ? "" : std::string(item.substr(eq + 1));
    double x = 0;
    std::size_t used = 0;
    try {
      x = std::stod(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (value.empty() || used != value.size() || !(x >= k->min && x <= k->max) || (k->integral && x != std::floor(x)))
      throw UsageError("--cuda-tuning: " + name + "='" + value + "' is not " + (k->integral ? "an integer" : "a number") +
                       " from " + number(k->min) + " to " + number(k->max));
    if (k->name == std::string_view("warp-lanes") && x != 0 && x != 8 && x != 32)
      throw UsageError("--cuda-tuning: warp-lanes='" + value + "' must be 0 (by the task), 8 or 32");
    k->set(tuning, x);
  }
  return tuning;
}

std::string cuda_tuning_keys() {
  const CudaTuning defaults;
  std::string lines;
  for (const TuningKey& k : tuning_keys())
    lines += std::string("  ") + k.name + ": " + k.help + " (default " + number(k.get(defaults)) + ")\n";
  return lines;
}

bool cuda_available() {
#ifdef TRICOUNT_HAVE_CUDA
  return cuda_device_count() > 0;
#else
  return false;
#endif
}

bool start_gpu(int local_rank, const std::function<void()>& driver_started) {
#ifdef TRICOUNT_HAVE_CUDA
  const int devices = cuda_device_count();
  driver_started();
  if (devices <= 0) return false;
  if (local_rank >= 0) cuda_start_context(local_rank % devices);
  return true;
#else
  (void)local_rank;
  driver_started();
  return false;
#endif
}

std::uint64_t backend_device_bytes(BackendKind kind, const BackendOptions& options) {
  if (kind == BackendKind::Cpu || (kind == BackendKind::Auto && !cuda_available())) return 0;
#ifdef TRICOUNT_HAVE_CUDA
  const int devices = cuda_device_count();
  if (devices <= 0) return 0;
  const int local = options.local_rank >= 0 ? options.local_rank : -options.local_rank;
  const std::uint64_t total = cuda_device_memory(local % devices);
  const std::uint64_t cap = options.cuda_tuning.device_bytes;
  return cap ? std::min(total, cap) : total;
#else
  (void)options;
  return 0;
#endif
}

std::unique_ptr<CountBackend> make_backend(BackendKind kind, const BackendOptions& options) {
  if (kind == BackendKind::Cpu || (kind == BackendKind::Auto && !cuda_available())) return make_cpu_backend(options);
#ifdef TRICOUNT_HAVE_CUDA
  if (cuda_device_count() <= 0) throw Error("--backend cuda: no CUDA GPU is visible (" + cuda_status_message() + ")");
  return make_cuda_backend(options);
#else
  throw Error("--backend cuda: this build of tricount has no CUDA backend (configured without nvcc or with -DTRICOUNT_CUDA=OFF)");
#endif
}

}  // namespace tricount
