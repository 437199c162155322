#include "worker/block_cache.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iterator>
#include <thread>

#include "src/threads.hpp"

namespace tricount {

std::uint64_t count_nonempty_rows(const CsrSpan& block, unsigned threads) {
  std::atomic<std::uint64_t> total{0};
  const unsigned used = static_cast<unsigned>(std::clamp<std::uint64_t>(block.rows >> 20, 1, std::max(1u, threads)));
  parallel_ranges(block.rows, used, [&](std::uint64_t first, std::uint64_t last) {
    std::uint64_t c = 0;
    for (std::uint64_t r = first; r < last; ++r) c += block.offsets[r + 1] != block.offsets[r];
    total += c;
  });
  return total;
}

BlockView make_block_view(const CsrSpan& block, std::uint64_t serial, std::uint64_t nonempty_rows) {
  BlockView v;
  v.nonempty_rows = nonempty_rows;
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

BlockView LoadedBlock::view() const {
  BlockView v = make_block_view(span(), serial, nonempty_rows);
  if (packed) {
    v.packed_index = packed->index();
    v.packed_words = packed->words();
    v.packed_word_count = packed->word_count();
  }
  return v;
}

// What a block costs the budget: its private memory. A mapped block has none (its pages are
// the page cache's, which the kernel reclaims as it needs), so it is not evicted and never
// read and checked twice (measured: a 5.5 GB file counted with the 4 GiB budget was read as
// 10.8 GB, and uploaded to the GPU twice).
std::uint64_t BlockCache::charged(const LoadedBlock& b) { return b.mapped || b.packed ? 0 : b.span().bytes(); }

NodeBlockChecks::Claim NodeBlockChecks::claim(const BlockId& id) {
  std::atomic_ref<std::uint32_t> s(state(id));
  for (;;) {
    std::uint32_t seen = kUnchecked;
    if (s.compare_exchange_strong(seen, kChecking, std::memory_order_acq_rel)) return Claim::Check;
    if (seen == kGood) return Claim::Checked;
    if (seen == kBad) return Claim::Failed;
    // Another worker is checking it: a block takes milliseconds to seconds, so a short
    // sleep costs nothing measurable and leaves the cores to that check.
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void NodeBlockChecks::finish(const BlockId& id, bool good) {
  std::atomic_ref<std::uint32_t>(state(id)).store(good ? kGood : kBad, std::memory_order_release);
}

// Maps the block and checks it, unless a worker of this node has (each block once per node).
std::optional<MappedBlock> BlockCache::map_and_check(const BlockId& id) {
  using Claim = NodeBlockChecks::Claim;
  std::optional<MappedBlock> mapped = file_.map_block(id, threads_, &read_times_, /*check=*/false);
  if (!mapped) return mapped;  // read_block reads and checks a private copy instead
  const Claim claim = node_checks_ ? node_checks_->claim(id) : Claim::Check;
  if (claim == Claim::Checked) return mapped;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    file_.check_mapped(*mapped, threads_, &read_times_);
  } catch (...) {
    if (node_checks_ && claim == Claim::Check) node_checks_->finish(id, false);
    throw;
  }
  // Found good here, also after another worker failed (it may have run out of memory).
  if (node_checks_ && claim == Claim::Check) node_checks_->finish(id, true);
  checks_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  checks_.blocks += 1;
  checks_.bytes += mapped->span().bytes();
  return mapped;
}

std::shared_ptr<const LoadedBlock> BlockCache::insert(CsrBlock block) {
  auto loaded = std::make_shared<LoadedBlock>();
  loaded->block = std::move(block);
  loaded->nonempty_rows = count_nonempty_rows(loaded->span(), threads_);
  std::lock_guard lock(mutex_);
  for (auto it = lru_.begin(); it != lru_.end(); ++it)
    if ((*it)->span().id == loaded->block.id) return *it;  // already here: the first copy stays
  loaded->serial = next_serial_++;
  resident_ += charged(*loaded);
  lru_.push_front(loaded);
  return loaded;
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
  if (map_ && packed_to_device_ && file_.is_packed(id)) {
    // Checked here (checksum, index), decoded on the device.
    const double before = read_times_.validate + read_times_.checksum;
    loaded->packed = file_.map_packed(id, threads_, &read_times_);
    if (loaded->packed) {
      checks_.seconds += read_times_.validate + read_times_.checksum - before;
      checks_.blocks += 1;
      checks_.bytes += loaded->packed->stored_bytes();
      loaded->nonempty_rows = loaded->packed->nonempty_rows();
    }
  }
  if (map_ && !loaded->packed) loaded->mapped = map_and_check(id);
  if (!loaded->mapped && !loaded->packed) {
    // A private copy: read and checked here, whatever other workers did.
    const double before = read_times_.validate + read_times_.checksum;
    loaded->block = file_.read_block(id, threads_, &read_times_);
    checks_.seconds += read_times_.validate + read_times_.checksum - before;
    checks_.blocks += 1;
    checks_.bytes += loaded->block.bytes();
  }
  loaded->serial = next_serial_++;
  if (!loaded->packed) loaded->nonempty_rows = count_nonempty_rows(loaded->span(), threads_);
  load_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::uint64_t bytes = loaded->packed ? loaded->packed->stored_bytes() : loaded->span().bytes();
  bytes_loaded += bytes;
  resident_ += charged(*loaded);
  lru_.push_front(loaded);
  // Least recently used private blocks out, never the three most recent (one task's);
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
