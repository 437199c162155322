// The large arrays of BlockAllocator (block_memory.hpp) and the pool of ReuseFreedArrays.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>

#include "src/block_memory.hpp"

namespace tricount {
namespace {

constexpr std::size_t kKeptFrom = std::size_t{64} << 20;  // smaller arrays are not kept

struct Pool {
  std::mutex m;
  bool on = false;
  std::size_t kept = 0, live = 0;  // live: arrays handed out while on
  std::size_t peak = 0;            // the most live at once: live + kept stays within it
  std::multimap<std::size_t, void*> free;          // kept arrays by size
  std::unordered_map<void*, std::size_t> sizes;   // arrays handed out while on: their real size
};
Pool& pool() {
  static Pool p;
  return p;
}

using block_memory::kHugePage;
std::size_t rounded(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

}  // namespace

namespace block_memory {

void* allocate_large(std::size_t bytes) {
  const std::size_t size = rounded(bytes);
  Pool& p = pool();
  {
    std::lock_guard lock(p.m);
    if (p.on) {
      // The smallest kept array that fits, unless it is far larger (it would be held idle).
      const auto it = p.free.lower_bound(size);
      if (it != p.free.end() && it->first <= 2 * size) {
        void* a = it->second;
        p.sizes[a] = it->first;
        p.kept -= it->first;
        p.live += it->first;
        p.free.erase(it);
        return a;
      }
      // None fits: give back kept arrays, the largest first, so that what is in use and kept
      // stays within the most the run had in use at once (the pool never raises the peak).
      while (!p.free.empty() && p.live + p.kept + size > std::max(p.peak, p.live + size)) {
        const auto last = std::prev(p.free.end());
        std::free(last->second);
        p.kept -= last->first;
        p.free.erase(last);
      }
    }
  }
  void* a = std::aligned_alloc(kHugePage, size);
  if (!a) throw std::bad_alloc();
  std::lock_guard lock(p.m);
  if (p.on) {
    p.sizes[a] = size;
    p.live += size;
    p.peak = std::max(p.peak, p.live);
  }
  return a;
}

void free_large(void* a, std::size_t bytes) noexcept {
  Pool& p = pool();
  std::lock_guard lock(p.m);
  std::size_t size = rounded(bytes);
  if (const auto it = p.sizes.find(a); it != p.sizes.end()) {
    size = it->second;
    p.live -= size;
    p.sizes.erase(it);
  }
  if (p.on && size >= kKeptFrom && p.live + p.kept + size <= p.peak) {
    try {
      p.free.emplace(size, a);
      p.kept += size;
      return;
    } catch (...) {
    }
  }
  std::free(a);
}

}  // namespace block_memory

ReuseFreedArrays::ReuseFreedArrays() {
  Pool& p = pool();
  std::lock_guard lock(p.m);
  p.on = true;
  p.peak = 0;
}

ReuseFreedArrays::~ReuseFreedArrays() {
  Pool& p = pool();
  std::lock_guard lock(p.m);
  for (const auto& [size, a] : p.free) std::free(a);
  p.free.clear();
  p.kept = 0;
  p.live = p.peak = 0;
  p.on = false;
}

}  // namespace tricount
