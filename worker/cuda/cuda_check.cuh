// Checked CUDA calls and small RAII owners (device buffers, pinned host buffers, streams,
// events) for the CUDA backend. Every failing call throws tricount::Error naming the call,
// the file and line, and CUDA's own description of the error.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "src/types.hpp"

namespace tricount::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* what, const char* file, int line) {
  cudaGetLastError();  // clear a non-sticky error so the next call does not report it again
  throw Error(std::string("CUDA error: ") + what + " failed at " + file + ":" + std::to_string(line) + ": " +
              cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

inline void check(cudaError_t err, const char* what, const char* file, int line) {
  if (err != cudaSuccess) throw_cuda_error(err, what, file, line);
}

}  // namespace tricount::cuda

// Wraps a runtime call: TRICOUNT_CUDA_TRY(cudaMemcpyAsync(...));
#define TRICOUNT_CUDA_TRY(call) ::tricount::cuda::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: catches bad launch configurations (and, once the stream is
// synchronized, a sticky error from an earlier kernel).
#define TRICOUNT_CUDA_CHECK_LAUNCH(kernel_name) \
  ::tricount::cuda::check(cudaGetLastError(), "launch of kernel " kernel_name, __FILE__, __LINE__)

namespace tricount::cuda {

// Owning device allocation of `count` elements of T (uninitialised). Move-only.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) { allocate(count); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      ptr_ = std::exchange(other.ptr_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // Throws Error on failure (out of memory included).
  void allocate(std::size_t count) {
    release();
    if (count == 0) return;
    TRICOUNT_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
    count_ = count;
  }
  // Returns false (and leaves the buffer empty) when the device is out of memory.
  bool try_allocate(std::size_t count) {
    release();
    if (count == 0) return true;
    const cudaError_t err = cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T));
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      ptr_ = nullptr;
      return false;
    }
    check(err, "cudaMalloc", __FILE__, __LINE__);
    count_ = count;
    return true;
  }
  // Grows (never shrinks) to at least `count` elements; contents are not kept.
  void reserve(std::size_t count) {
    if (count > count_) allocate(count);
  }
  void release() noexcept {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// Page-locked host allocation (the source of asynchronous host-to-device copies).
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes) {
    TRICOUNT_CUDA_TRY(cudaMallocHost(&ptr_, bytes));
    bytes_ = bytes;
  }
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  PinnedBuffer(PinnedBuffer&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      if (ptr_) cudaFreeHost(ptr_);
      ptr_ = std::exchange(other.ptr_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class Stream {
 public:
  Stream() { TRICOUNT_CUDA_TRY(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (s_) cudaStreamDestroy(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  explicit Event(bool timing = true) {
    TRICOUNT_CUDA_TRY(cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  ~Event() {
    if (e_) cudaEventDestroy(e_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }
  operator cudaEvent_t() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace tricount::cuda
