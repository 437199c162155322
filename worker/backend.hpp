// The worker's counting backend: counts the triangles of one subtask from its block triple.
// The CPU and CUDA backends implement this same interface; nothing outside worker/ knows
// which one runs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

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
};

// Subtask (i, j, k, w): rows u of class i with split_of_row(u, splits) == split.
struct SubtaskBlocks {
  BlockView hash;     // P(i,k): u's table
  BlockView one_hop;  // P(i,j): u -> v
  BlockView two_hop;  // P(j,k): v -> w, probed in u's table
  std::uint32_t split = 0;
  std::uint32_t splits = 1;
};

struct CountStats {
  double transfer_seconds = 0;       // host -> device copies (0 on the CPU)
  double count_seconds = 0;          // hash building and all kernels
  std::uint64_t bytes_transferred = 0;
};

class CountBackend {
 public:
  virtual ~CountBackend() = default;
  virtual std::string_view name() const = 0;      // "cpu" or "cuda"
  virtual std::string device_name() const = 0;    // e.g. "NVIDIA H200" or "2 CPU threads"
  // Counts the subtask's triangles; adds its times to `stats`.
  virtual count_t count(const SubtaskBlocks& blocks, CountStats& stats) = 0;
};

enum class BackendKind { Auto, Cpu, Cuda };
BackendKind parse_backend_kind(std::string_view name);  // throws UsageError

struct BackendOptions {
  unsigned threads = 0;              // CPU: 0 = all hardware threads
  int local_rank = 0;                // CUDA: the GPU is local_rank mod device count
  std::uint32_t cta_degree_threshold = 100;  // CUDA: degree from which a vertex gets a CTA
  std::uint32_t chunk_size = 0;      // CUDA: vertices taken per atomic grab (0 = default)
};

// True when this build has the CUDA backend and at least one GPU is visible.
bool cuda_available();
// Auto picks CUDA when available, else CPU. Cuda without a GPU (or without CUDA in the
// build) throws Error saying which.
std::unique_ptr<CountBackend> make_backend(BackendKind kind, const BackendOptions& options);

std::unique_ptr<CountBackend> make_cpu_backend(const BackendOptions& options);

}  // namespace tricount
