// The CUDA backend's blocks on the device: a cache of uploaded CSR blocks keyed by
// BlockView::serial, least recently used evicted first when memory is short. Blocks are
// copied through two pinned staging buffers with cudaMemcpyAsync; a block triple that cannot
// fit is an Error naming how many times as many parts would make it fit. The next task's
// blocks may be copied on a second stream while the current task's kernels run (prefetch):
// each such block carries the event its copy ends with, which the task that uses it waits
// for on the device, and which is waited for before the block is freed.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "worker/backend.hpp"
#include "worker/cuda/csr_view.hpp"
#include "worker/cuda/cuda_check.cuh"

namespace tricount::cuda {

// One block resident on the device (owning); its view for kernels is CsrView.
struct DeviceBlock {
  std::uint64_t serial = 0;
  std::uint64_t rows = 0, cols = 0, nnz = 0;
  DeviceBuffer<eoff_t> offsets;
  DeviceBuffer<vid_t> neighbors;
  std::uint64_t last_use = 0;
  std::unique_ptr<Event> ready;  // prefetched: recorded on the copy stream after its copy (null: copied in order)
  std::uint32_t max_degree = 0;      // of a re-blocked count block (reblock), for the task's plan
  std::uint64_t nonempty_rows = 0;
  std::uint64_t bytes() const { return offsets.bytes() + neighbors.bytes(); }
  CsrView view() const { return {offsets.get(), neighbors.get()}; }
  bool matches(const BlockView& v) const {
    return v.serial != 0 && v.serial == serial && v.rows == rows && v.cols == cols && v.nnz == nnz;
  }
};

// A task's three blocks on the device, in the order hash, 1-hop, 2-hop.
struct DeviceTriple {
  CsrView hash, one_hop, two_hop;
};

std::string block_label(const BlockView& v);  // "P(i,j)"

class DeviceBlockCache {
 public:
  // `byte_cap`: device memory the backend may use (0: all, less a reserve for the runtime);
  // `working_bytes`: what the backend's working memory takes now (counted against the cap).
  DeviceBlockCache(int device, std::string device_name, std::uint64_t byte_cap, cudaStream_t stream,
                   std::function<std::uint64_t()> working_bytes);
  ~DeviceBlockCache();  // waits for the copy stream: no block is freed under its copy
  DeviceBlockCache(const DeviceBlockCache&) = delete;
  DeviceBlockCache& operator=(const DeviceBlockCache&) = delete;

  // The device copies of the task's blocks (roles holding the same block share one
  // copy): cached ones are reused, least recently used others evicted until the missing
  // blocks and `working_need` bytes of working memory (when more than `working_bytes()`)
  // fit, then the missing ones uploaded on the stream (synchronized); prefetched ones still
  // copying are waited for on the stream. Adds the copy to `stats` when `timed`. Throws the
  // "does not fit" Error. The blocks stay the running task's until the next acquire.
  DeviceTriple acquire(const TaskBlocks& b, std::uint64_t working_need, CountStats& stats, bool timed);

  // A composite count block (BlockView::composite, tricount-count --count-parts) on the
  // device, under the composite's serial: cached, or its parts uploaded (those not cached)
  // and re-blocked (worker/cuda/reblock.cuh); the parts stay cached for other count blocks
  // that share them, least recently used first out. Blocks in `keep` are not evicted for
  // it. Returns the block (its max_degree and nonempty_rows exact). Adds the copies and the
  // re-blocking to `stats`. Throws an Error naming the bytes when the parts and the block
  // do not fit.
  const DeviceBlock& reblock(const BlockView& composite, std::vector<const DeviceBlock*> keep, CountStats& stats);

  // Starts copying the blocks of `next` (the task after the running one) on the copy stream,
  // without waiting for the copies to end: those not cached, while they fit beside the
  // running task's blocks (never evicted here) and working memory; the rest are left to
  // acquire. The staging copies run on this thread. Adds the copies to `stats`.
  void prefetch(const TaskBlocks& next, CountStats& stats);

  // Uploads every block not yet on the device (the static schedule's load phase), without
  // evicting any: throws an Error naming their bytes, the GPU and what to do when they do
  // not all fit. Adds the copies to `stats`.
  void preload(const std::vector<BlockView>& blocks, CountStats& stats);

  // Throws an Error naming them when a packed block decoded since the last call did not
  // decode (waits for the copies and decodes to end first); nothing when none was decoded.
  void check_decoded();

  // Forgets blocks without a serial (they are identified by their pointer only for the
  // task that uploaded them).
  void drop_unserialed();

  // The Error for a block triple that does not fit beside `working_need` bytes.
  [[noreturn]] void throw_does_not_fit(const TaskBlocks& b, std::uint64_t working_need) const;

 private:
  DeviceBlock* find(const BlockView& v);
  std::uint64_t cached_bytes() const;
  std::uint64_t available() const;  // bytes the backend may still allocate
  bool make_room(std::uint64_t bytes, const std::vector<const DeviceBlock*>& keep);
  void copy_to_staging(char* to, const char* from, std::size_t n) const;
  void upload(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);
  // Allocates and uploads one block (queued on `stream`); null when it cannot be allocated.
  std::unique_ptr<DeviceBlock> upload_block(const BlockView& v, cudaStream_t stream);

  int device_ = 0;
  std::string device_name_;
  std::uint64_t byte_cap_ = 0;
  cudaStream_t stream_ = nullptr;
  std::function<std::uint64_t()> working_bytes_;
  unsigned staging_threads_ = 1;
  std::array<PinnedBuffer, 2> staging_;
  std::array<std::unique_ptr<Event>, 2> staging_done_;
  int next_staging_ = 0;
  Stream copy_stream_;  // prefetch copies (before blocks_: it outlives them)
  std::vector<std::unique_ptr<DeviceBlock>> blocks_;
  std::vector<const DeviceBlock*> running_;  // the blocks of the task last acquired
  std::uint64_t use_clock_ = 0;
  DeviceBuffer<unsigned> decode_error_;  // set by unpack_groups on an inconsistent group
  std::vector<std::string> decoded_;      // packed blocks decoded since check_decoded
  int multiprocessors_ = 1;
};

}  // namespace tricount::cuda
