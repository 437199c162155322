// Per-thread increments of a shared counter array (degrees, column counts), held back in a
// small direct-mapped table so that hot counters (hubs) are not bounced between cores on
// every edge.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tricount::pipeline {

class CountCache {
 public:
  explicit CountCache(std::uint32_t* counters) : counters_(counters), slots_(kSlots, Slot{kEmpty, 0}) {}
  ~CountCache() { flush(); }
  void inc(std::uint32_t x) {
    Slot& s = slots_[x & (kSlots - 1)];
    if (s.key == x) {
      ++s.count;
      return;
    }
    if (s.count) std::atomic_ref<std::uint32_t>(counters_[s.key]).fetch_add(s.count, std::memory_order_relaxed);
    s = Slot{x, 1};
  }
  void flush() {
    for (Slot& s : slots_) {
      if (s.count) std::atomic_ref<std::uint32_t>(counters_[s.key]).fetch_add(s.count, std::memory_order_relaxed);
      s = Slot{kEmpty, 0};
    }
  }

 private:
  static constexpr std::size_t kSlots = 4096;
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;  // never a vertex (ids < 2^32 - 1)
  struct Slot {
    std::uint32_t key, count;
  };
  std::uint32_t* counters_;
  std::vector<Slot> slots_;
};

}  // namespace tricount::pipeline
