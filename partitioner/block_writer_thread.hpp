// One writer thread for the blocks built in memory: HDF5 is serial, so the write of one
// block overlaps the build of the next (at --parts 4, 16 writes one after another otherwise).
// Blocks wait in a queue bounded in bytes; errors come back on the next call.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "partitioner/pipeline.hpp"

namespace tricount::pipeline {

class BlockWriterThread {
 public:
  explicit BlockWriterThread(BlockOutput& out) : out_(out), thread_([this] { loop(); }) {}
  ~BlockWriterThread();
  // Waits until `bytes` more fit under `limit` beside the blocks not yet written (or none is left).
  void wait_for_room(std::uint64_t bytes, std::uint64_t limit);
  void push(CsrBlock block);
  // A written block's storage to build the next block in (empty arrays when there is none):
  // its pages are mapped already, where a new block's would fault in one by one. At most one
  // is kept.
  CsrBlock take_spare();
  // Waits until every block pushed is written (the caller may use the file then).
  void drain();
  // Seconds the thread spent writing blocks, and callers spent waiting for it (in
  // wait_for_room and drain): the write stage's line says which side bounds it.
  double busy_seconds() {
    std::lock_guard lock(m_);
    return busy_seconds_;
  }
  double waited_seconds() {
    std::lock_guard lock(m_);
    return waited_seconds_;
  }

 private:
  void rethrow();
  void loop();
  BlockOutput& out_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<CsrBlock> queue_;
  CsrBlock spare_;
  std::uint64_t in_flight_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  double busy_seconds_ = 0, waited_seconds_ = 0;  // under m_
  std::thread thread_;
};

}  // namespace tricount::pipeline
