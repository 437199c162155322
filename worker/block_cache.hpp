// Host-side cache of loaded blocks, least recently used out first, within a byte budget of
// private memory (blocks mapped from the file cost none).
// Consecutive tasks share blocks (P(i,j) and P(i,k) across k, j), so a worker reads
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
BlockView make_block_view(const CsrSpan& block, std::uint64_t serial, std::uint64_t nonempty_rows = 0);
inline BlockView make_block_view(const CsrBlock& block, std::uint64_t serial) { return make_block_view(block.span(), serial); }
// Rows of the block with at least one neighbour, counted on up to `threads` threads.
std::uint64_t count_nonempty_rows(const CsrSpan& block, unsigned threads = 1);

// A block in this process: mapped from the file where its datasets allow (no copy), else
// read into memory.
struct LoadedBlock {
  std::optional<MappedBlock> mapped;
  // A packed block mapped as stored, for a backend that decodes it (no arrays in span()).
  std::optional<MappedPackedBlock> packed;
  CsrBlock block;            // when not mapped
  std::uint64_t serial = 0;  // unique per load in this process (see BlockView::serial)
  std::uint64_t nonempty_rows = 0;  // counted once per load: more parts leave most rows empty
  CsrSpan span() const { return mapped ? mapped->span() : packed ? packed->shape() : block.span(); }
  BlockView view() const;
};

// Which blocks a worker of this node has checked (checksum and validation), kept in memory
// the node's workers share (count_job: an MPI shared-memory window), so that each block is
// checked once per node, by whichever worker needs it first. It holds only for mapped
// blocks of one opened file (same device and inode): those are the very same page-cache
// pages in every worker, so bytes one worker checked are the bytes the others use.
// One 32-bit state per block, changed with atomic operations.
class NodeBlockChecks {
 public:
  // `states`: parts^2 zeroed words shared by the node's workers, valid while this lives.
  NodeBlockChecks(std::uint32_t* states, std::uint32_t parts) : states_(states), parts_(parts) {}

  enum class Claim {
    Check,    // the caller checks the block now and then calls finish()
    Checked,  // a worker of this node checked it and found it good
    Failed,   // the worker that checked it failed: the caller checks it itself (for the message)
  };
  // Waits while another worker checks the block (a worker that dies ends the job: mpirun).
  Claim claim(const BlockId& id);
  void finish(const BlockId& id, bool good);

 private:
  enum : std::uint32_t { kUnchecked = 0, kChecking = 1, kGood = 2, kBad = 3 };
  std::uint32_t& state(const BlockId& id) { return states_[std::uint64_t(id.row_class) * parts_ + id.col_class]; }
  std::uint32_t* states_;
  std::uint32_t parts_;
};

// What a cache's loads checked on this worker (the rest some other worker of the node did).
struct BlockChecks {
  std::uint64_t blocks = 0, bytes = 0;
  double seconds = 0;  // wall seconds of the checks (checksum pass and validate_block)
};

class BlockCache {
 public:
  // threads: how many threads read, validate and checksum one block; map: map blocks from
  // the file where possible (BlockFileReader::map_block), else read them (read_block);
  // node_checks: the node's shared record (null: every block this cache maps is checked here).
  // packed_to_device: packed blocks are mapped as stored, not decoded (LoadedBlock::packed),
  // for a backend that decodes them (CountBackend::decodes_packed).
  BlockCache(const BlockFileReader& file, std::uint64_t budget_bytes, unsigned threads = 1, bool map = true,
             NodeBlockChecks* node_checks = nullptr, bool packed_to_device = false)
      : file_(file), budget_(budget_bytes), threads_(threads), map_(map), node_checks_(node_checks),
        packed_to_device_(packed_to_device) {}

  // Returns the block, reading it if needed; adds read time and bytes to the counters.
  std::shared_ptr<const LoadedBlock> get(const BlockId& id, double& load_seconds, std::uint64_t& bytes_loaded);

  // Takes a block another rank read and checked (tricount-count --load-path forward) as if
  // this cache had loaded it: private memory, charged to the budget, never checked here.
  std::shared_ptr<const LoadedBlock> insert(CsrBlock block);
  unsigned threads() const { return threads_; }
  const BlockFileReader& file() const { return file_; }  // the loader threads a block's arrays are filled with

  BlockChecks checks() const {
    std::lock_guard lock(mutex_);
    return checks_;
  }

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
  std::optional<MappedBlock> map_and_check(const BlockId& id);
  mutable std::mutex mutex_;
  const BlockFileReader& file_;
  std::uint64_t budget_;
  unsigned threads_;
  bool map_;
  NodeBlockChecks* node_checks_;
  bool packed_to_device_;
  BlockChecks checks_;
  std::uint64_t resident_ = 0;
  BlockReadTimes read_times_;
  std::uint64_t next_serial_ = 1;
  std::list<std::shared_ptr<const LoadedBlock>> lru_;  // front = most recent
};

}  // namespace tricount
