// Host-side cache of loaded blocks, least recently used out first, within a byte budget of
// private memory (blocks mapped from the file cost none).
// Consecutive subtasks share blocks (P(i,j) and P(i,k) across k, j), so a worker reads
// each block from the HDF5 file far fewer times than it uses it. Thread-safe: the worker's
// prefetch thread loads the next task's blocks while the current task counts.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>

#include "src/block_format.hpp"
#include "worker/backend.hpp"

namespace tricount {

// A view of a block in host memory; `serial` must identify these bytes (BlockView::serial).
BlockView make_block_view(const CsrSpan& block, std::uint64_t serial);
inline BlockView make_block_view(const CsrBlock& block, std::uint64_t serial) { return make_block_view(block.span(), serial); }

// A block in this process: mapped from the file where its datasets allow (no copy), else
// read into memory.
struct LoadedBlock {
  std::optional<MappedBlock> mapped;
  CsrBlock block;            // when not mapped
  std::uint64_t serial = 0;  // unique per load in this process (see BlockView::serial)
  CsrSpan span() const { return mapped ? mapped->span() : block.span(); }
  BlockView view() const { return make_block_view(span(), serial); }
};

class BlockCache {
 public:
  // threads: how many threads read, validate and checksum one block; map: map blocks from
  // the file where possible (BlockFileReader::map_block), else read them (read_block).
  BlockCache(const BlockFileReader& file, std::uint64_t budget_bytes, unsigned threads = 1, bool map = true)
      : file_(file), budget_(budget_bytes), threads_(threads), map_(map) {}

  // Returns the block, reading it if needed; adds read time and bytes to the counters.
  std::shared_ptr<const LoadedBlock> get(const BlockId& id, double& load_seconds, std::uint64_t& bytes_loaded);

  // Time spent in each step of the reads so far.
  BlockReadTimes read_times() const {
    std::lock_guard lock(mutex_);
    return read_times_;
  }

  // Bytes of blocks held in private memory (mapped blocks are not counted).
  std::uint64_t resident_bytes() const {
    std::lock_guard lock(mutex_);
    return resident_;
  }

 private:
  static std::uint64_t charged(const LoadedBlock& b);
  mutable std::mutex mutex_;
  const BlockFileReader& file_;
  std::uint64_t budget_;
  unsigned threads_;
  bool map_;
  std::uint64_t resident_ = 0;
  BlockReadTimes read_times_;
  std::uint64_t next_serial_ = 1;
  std::list<std::shared_ptr<const LoadedBlock>> lru_;  // front = most recent
};

}  // namespace tricount
