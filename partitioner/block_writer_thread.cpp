#include "partitioner/block_writer_thread.hpp"

#include <chrono>
#include <utility>

namespace tricount::pipeline {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

BlockWriterThread::~BlockWriterThread() {
  {
    std::lock_guard lock(m_);
    stop_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  thread_.join();
}

void BlockWriterThread::wait_for_room(std::uint64_t bytes, std::uint64_t limit) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock lock(m_);
  cv_.wait(lock, [&] { return error_ || in_flight_ == 0 || in_flight_ + bytes <= limit; });
  waited_seconds_ += seconds_since(start);
  rethrow();
}

void BlockWriterThread::push(CsrBlock block) {
  const std::uint64_t bytes = block.bytes();
  std::lock_guard lock(m_);
  rethrow();
  in_flight_ += bytes;
  queue_.push_back(std::move(block));
  cv_.notify_all();
}

CsrBlock BlockWriterThread::take_spare() {
  std::lock_guard lock(m_);
  return std::exchange(spare_, CsrBlock{});
}

void BlockWriterThread::drain() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock lock(m_);
  cv_.wait(lock, [&] { return error_ || in_flight_ == 0; });
  waited_seconds_ += seconds_since(start);
  rethrow();
}

void BlockWriterThread::rethrow() {
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void BlockWriterThread::loop() {
  std::unique_lock lock(m_);
  while (true) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    CsrBlock block = std::move(queue_.front());
    queue_.pop_front();
    const std::uint64_t bytes = block.bytes();
    lock.unlock();
    const auto start = std::chrono::steady_clock::now();
    std::exception_ptr error;
    try {
      out_.block(block);
    } catch (...) {
      error = std::current_exception();
    }
    const double busy = seconds_since(start);
    lock.lock();
    busy_seconds_ += busy;
    if (!error && block.neighbors.capacity() + block.offsets.capacity() >
                      spare_.neighbors.capacity() + spare_.offsets.capacity())
      spare_ = std::move(block);
    in_flight_ -= bytes;
    if (error && !error_) error_ = error;
    if (error) {
      for (const CsrBlock& b : queue_) in_flight_ -= b.bytes();
      queue_.clear();
    }
    cv_.notify_all();
  }
}

}  // namespace tricount::pipeline
