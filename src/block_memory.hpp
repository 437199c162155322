// Host memory for block arrays (CsrBlock::offsets and ::neighbors). A block is tens of MB to
// GBs and is always overwritten right after it is sized (read from the file, or filled by
// the partitioner), so this allocator
// - leaves elements default-initialised: resize() does not zero-fill (for a loaded block
//   that was a single-threaded pass over every byte, before the parallel read wrote them);
// - aligns large arrays to 2 MiB, so the kernel may back them with transparent huge pages
//   where the system enables them for every process. It does not ask for them
//   (MADV_HUGEPAGE): with the usual defrag=madvise setting that makes the first touch wait
//   for memory compaction, measured at 0.4 GB/s against 2.3 GB/s without.
// Everything else is std::allocator's behaviour; code that needs zeros says so (assign).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace tricount {

template <class T>
class BlockAllocator {
 public:
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kHugeFrom = std::size_t{8} << 20;  // smaller arrays: plain new

  BlockAllocator() noexcept = default;
  template <class U>
  BlockAllocator(const BlockAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugeFrom) return static_cast<T*>(::operator new(bytes, std::align_val_t{alignof(T)}));
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugeFrom)
      ::operator delete(p, std::align_val_t{alignof(T)});
    else
      std::free(p);
  }

  // Default-initialise (no zero fill for trivial types); any other construction as usual.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  template <class U>
  bool operator==(const BlockAllocator<U>&) const noexcept {
    return true;
  }
};

// An array of a block: a std::vector whose resize() leaves new elements unset.
template <class T>
using BlockArray = std::vector<T, BlockAllocator<T>>;

}  // namespace tricount
