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

namespace block_memory {
inline constexpr std::size_t kHugePage = std::size_t{2} << 20;
// Large arrays: 2 MiB aligned, from the pool of freed arrays while a ReuseFreedArrays lives.
void* allocate_large(std::size_t bytes);
void free_large(void* p, std::size_t bytes) noexcept;
}  // namespace block_memory

// While one lives, large arrays freed are kept and handed to the next allocation they fit:
// their pages are touched already. A step that frees arrays and sizes new ones of about the
// same size gets them without the kernel's page faults and zeroing, which cost more than the
// work done in fresh pages. The arrays in use and kept never exceed the most that were in
// use at once (kept ones are freed first), so the peak memory is what it was without. One at
// a time; the kept arrays are freed at its end.
class ReuseFreedArrays {
 public:
  ReuseFreedArrays();
  ~ReuseFreedArrays();
  ReuseFreedArrays(const ReuseFreedArrays&) = delete;
  ReuseFreedArrays& operator=(const ReuseFreedArrays&) = delete;
};

template <class T>
class BlockAllocator {
 public:
  using value_type = T;
  static constexpr std::size_t kHugeFrom = std::size_t{8} << 20;  // smaller arrays: plain new

  BlockAllocator() noexcept = default;
  template <class U>
  BlockAllocator(const BlockAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugeFrom) return static_cast<T*>(::operator new(bytes, std::align_val_t{alignof(T)}));
    return static_cast<T*>(block_memory::allocate_large(bytes));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugeFrom)
      ::operator delete(p, std::align_val_t{alignof(T)});
    else
      block_memory::free_large(p, n * sizeof(T));
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
