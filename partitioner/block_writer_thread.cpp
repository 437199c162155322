#include "partitioner/block_writer_thread.hpp"

#include <utility>

namespace tricount::pipeline {

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
  std::unique_lock lock(m_);
  cv_.wait(lock, [&] { return error_ || in_flight_ == 0 || in_flight_ + bytes <= limit; });
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

void BlockWriterThread::drain() {
  std::unique_lock lock(m_);
  cv_.wait(lock, [&] { return error_ || in_flight_ == 0; });
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
    std::exception_ptr error;
    try {
      out_.block(std::move(block));
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
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
