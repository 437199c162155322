#include "worker/block_cache.hpp"

#include <chrono>

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
  resident_ += bytes;
  lru_.push_front(loaded);
  // Keep at least the three blocks of one subtask; holders keep evicted blocks alive.
  while (resident_ > budget_ && lru_.size() > 3) {
    resident_ -= lru_.back()->span().bytes();
    lru_.pop_back();
  }
  return loaded;
}

}  // namespace tricount
