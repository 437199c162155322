// Progress of the partitioner's stages on stderr. On a terminal: a bar redrawn a few times a
// second with the rate and the time left; otherwise one line per stage with its elapsed time
// and rate. Off: nothing. Worker threads report with add() (one relaxed atomic add).
// Each stage's line ends with what the stage read and wrote through system calls (input,
// runs in memory or on disk, the output file: /proc/self/io) and the process's peak resident
// set so far (VmHWM; not reset per stage, which would also reset the rusage peak that callers
// measure). With `memory_detail` (tricount-partition --debug-memory), each stage line also
// shows the process's VmHWM and VmRSS.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace tricount {

class Progress {
 public:
  enum class Mode { Off, Lines, Bar };
  // Bar when `enabled` and stderr is a terminal, Lines when enabled, else Off.
  static Mode mode_for(bool enabled);

  explicit Progress(Mode mode, std::string prefix = "[partition]", bool memory_detail = false);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  Mode mode() const { return mode_; }
  // Starts a stage of `total` items (0: unknown) named `unit` ("edges").
  void begin(const std::string& stage, std::uint64_t total, const std::string& unit);
  void add(std::uint64_t items) { done_.fetch_add(items, std::memory_order_relaxed); }
  // For a stage whose total is unknown: a function giving the fraction done (0..1, or < 0
  // when it cannot tell), e.g. the input file's read position over its size.
  void set_fraction(std::function<double()> fraction);
  // Ends the stage: prints "[partition] STAGE  ITEMS UNIT  SECONDS s  RATE UNIT/s  NOTE".
  void end(const std::string& note = "");
  // A message on its own line (the bar is redrawn below it).
  void message(const std::string& text);
  double seconds_total() const;

 private:
  void ticker();
  void draw(bool final_line, const std::string& note = "");
  Mode mode_;
  std::string prefix_;
  bool memory_detail_ = false;  // VmHWM and VmRSS on every stage line
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false, active_ = false;
  std::string stage_, unit_;
  std::uint64_t total_ = 0;
  std::atomic<std::uint64_t> done_{0};
  std::function<double()> fraction_;
  std::chrono::steady_clock::time_point start_all_, start_;
  std::uint64_t read_at_begin_ = 0, written_at_begin_ = 0;  // /proc/self/io at begin()
  std::thread thread_;
  std::size_t last_width_ = 0;
};

// "12.3 M", "456 k", "789" (SI, 3 significant digits).
std::string human_count(double x);
// "1:02:03" or "2:03".
std::string human_duration(double seconds);
// "3.5 MiB", "120 MiB".
std::string mib(std::uint64_t bytes);

// The read position of an input file over its size, found through /proc (Linux); -1 when
// it cannot tell. Works for compressed input too: the position is in the compressed file.
// Null when the file has no size (a pipe): for Progress::set_fraction.
std::function<double()> input_fraction(const std::string& path);

}  // namespace tricount
