#include "worker/block_cache.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>

namespace tricount {

BlockView make_block_view(const CsrSpan& block, std::uint64_t serial) {
  BlockView v;
  v.id = block.id;
  v.serial = serial;
  v.rows = block.rows;
  v.cols = block.cols;
  v.nnz = block.nnz;
  v.max_degree = block.max_degree;
  v.offsets = block.offsets;
  v.neighbors = block.neighbors;
  return v;
}

// What a block costs the budget: its private memory. A mapped block has none (its pages are
// the page cache's, which the kernel reclaims as it needs), so it is not evicted and never
// read and checked twice (measured: a 5.5 GB file counted with the 4 GiB budget was read as
// 10.8 GB, and uploaded to the GPU twice).
std::uint64_t BlockCache::charged(const LoadedBlock& b) { return b.mapped ? 0 : b.span().bytes(); }

std::shared_ptr<const LoadedBlock> BlockCache::get(const BlockId& id, double& load_seconds, std::uint64_t& bytes_loaded) {
  // One lock over lookup and load: two threads never read the same block twice, and the
  // HDF5 library serializes reads anyway.
  std::lock_guard lock(mutex_);
  for (auto it = lru_.begin(); it != lru_.end(); ++it) {
    if ((*it)->span().id == id) {
      lru_.splice(lru_.begin(), lru_, it);
      return lru_.front();
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto loaded = std::make_shared<LoadedBlock>();
  if (map_) loaded->mapped = file_.map_block(id, threads_, &read_times_);
  if (!loaded->mapped) loaded->block = file_.read_block(id, threads_, &read_times_);
  loaded->serial = next_serial_++;
  load_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::uint64_t bytes = loaded->span().bytes();
  bytes_loaded += bytes;
  resident_ += charged(*loaded);
  lru_.push_front(loaded);
  // Least recently used private blocks out, never the three most recent (one subtask's);
  // holders keep evicted blocks alive.
  const auto keep = std::next(lru_.begin(), static_cast<std::ptrdiff_t>(std::min<std::size_t>(3, lru_.size())));
  for (auto it = lru_.end(); resident_ > budget_ && it != keep;) {
    --it;
    const std::uint64_t cost = charged(**it);
    if (cost == 0) continue;
    resident_ -= cost;
    it = lru_.erase(it);
  }
  return loaded;
}

}  // namespace tricount
