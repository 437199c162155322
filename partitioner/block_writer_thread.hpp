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
  // Waits until every block pushed is written (the caller may use the file then).
  void drain();

 private:
  void rethrow();
  void loop();
  BlockOutput& out_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<CsrBlock> queue_;
  std::uint64_t in_flight_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace tricount::pipeline
