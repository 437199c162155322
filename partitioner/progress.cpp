#include "partitioner/progress.hpp"

#include <malloc.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <tuple>
#include <utility>

namespace tricount {

using Clock = std::chrono::steady_clock;

std::string human_count(double x) {
  const char* suffix[] = {"", " k", " M", " G", " T", " P"};
  int k = 0;
  while (std::fabs(x) >= 1000 && k < 5) {
    x /= 1000;
    ++k;
  }
  char buf[32];
  if (k == 0) std::snprintf(buf, sizeof buf, "%.0f", x);
  else std::snprintf(buf, sizeof buf, x >= 100 ? "%.0f%s" : x >= 10 ? "%.1f%s" : "%.2f%s", x, suffix[k]);
  return buf;
}

std::string human_duration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  const long s = std::lround(seconds);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

std::string mib(std::uint64_t bytes) {
  char buf[32];
  const double m = double(bytes) / (1 << 20);
  std::snprintf(buf, sizeof buf, m < 10 && m != std::floor(m) ? "%.1f MiB" : "%.0f MiB", m);
  return buf;
}

std::function<double()> input_fraction(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path target = std::filesystem::weakly_canonical(path, ec);
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec || size == 0) return nullptr;
  auto fd = std::make_shared<int>(-1);
  return [target, size, fd]() -> double {
    std::error_code e;
    if (*fd < 0) {
      for (std::filesystem::directory_iterator it("/proc/self/fd", e), end; !e && it != end; it.increment(e)) {
        std::error_code e2;
        if (std::filesystem::read_symlink(it->path(), e2) == target) {
          *fd = std::atoi(it->path().filename().c_str());
          break;
        }
      }
      if (*fd < 0) return -1;
    }
    std::ifstream info("/proc/self/fdinfo/" + std::to_string(*fd));
    std::string key;
    std::uint64_t pos = 0;
    if (!(info >> key >> pos) || key != "pos:") return -1;
    return std::min(1.0, double(pos) / double(size));
  };
}

namespace {

// Bytes read and written through system calls so far (rchar, wchar of /proc/self/io).
std::pair<std::uint64_t, std::uint64_t> io_bytes() {
  std::uint64_t read = 0, written = 0;
  if (FILE* f = std::fopen("/proc/self/io", "r")) {
    char key[64];
    unsigned long long value = 0;
    while (std::fscanf(f, "%63s %llu", key, &value) == 2) {
      if (std::strcmp(key, "rchar:") == 0) read = value;
      if (std::strcmp(key, "wchar:") == 0) written = value;
    }
    std::fclose(f);
  }
  return {read, written};
}

// The resident set's high-water mark (VmHWM) in bytes; 0 when unknown.
std::uint64_t peak_rss_bytes() {
  std::uint64_t kb = 0;
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::strncmp(line, "VmHWM:", 6) == 0) kb = std::strtoull(line + 6, nullptr, 10);
    std::fclose(f);
  }
  return kb * 1024;
}

std::string megabytes(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f MB", double(bytes) / 1e6);
  return buf;
}

}  // namespace

Progress::Mode Progress::mode_for(bool enabled) {
  if (!enabled) return Mode::Off;
  return ::isatty(2) ? Mode::Bar : Mode::Lines;
}

Progress::Progress(Mode mode, std::string prefix, bool memory_detail)
    : mode_(mode), prefix_(std::move(prefix)), memory_detail_(memory_detail), start_all_(Clock::now()), start_(start_all_) {
  if (mode_ == Mode::Bar) thread_ = std::thread([this] { ticker(); });
}

Progress::~Progress() {
  {
    std::lock_guard lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (last_width_ > 0) std::fputs("\n", stderr);  // a stage cut short: its error goes on the next line
}

double Progress::seconds_total() const { return std::chrono::duration<double>(Clock::now() - start_all_).count(); }

void Progress::begin(const std::string& stage, std::uint64_t total, const std::string& unit) {
  std::lock_guard lock(m_);
  stage_ = stage;
  unit_ = unit;
  total_ = total;
  done_.store(0);
  fraction_ = nullptr;
  if (mode_ != Mode::Off) {
    std::tie(read_at_begin_, written_at_begin_) = io_bytes();
  }
  start_ = Clock::now();
  active_ = true;
}

void Progress::set_fraction(std::function<double()> fraction) {
  std::lock_guard lock(m_);
  fraction_ = std::move(fraction);
}

void Progress::draw(bool final_line, const std::string& note) {
  // Called with m_ held.
  const double s = std::chrono::duration<double>(Clock::now() - start_).count();
  const std::uint64_t done = done_.load(std::memory_order_relaxed);
  const double rate = s > 0 ? double(done) / s : 0;
  char line[512];
  if (final_line) {
    std::snprintf(line, sizeof line, "%s %-9s %10s %-8s %9.2f s %10s %s/s", prefix_.c_str(), stage_.c_str(),
                  human_count(double(done)).c_str(), unit_.c_str(), s, human_count(rate).c_str(), unit_.c_str());
  } else {
    double f = -1;
    if (total_ > 0) f = std::min(1.0, double(done) / double(total_));
    else if (fraction_) f = fraction_();
    constexpr int kWidth = 24;
    std::string bar;
    std::string eta = "?";
    if (f >= 0) {
      const int fill = static_cast<int>(f * kWidth);
      bar = "[" + std::string(fill, '#') + std::string(kWidth - fill, '.') + "] ";
      char pct[16];
      std::snprintf(pct, sizeof pct, "%3.0f%% ", f * 100);
      bar += pct;
      if (f > 0.001) eta = human_duration(s * (1 - f) / f);
    }
    std::snprintf(line, sizeof line, "\r%s %-9s %s%10s %s  %s %s/s  elapsed %s  ETA %s", prefix_.c_str(),
                  stage_.c_str(), bar.c_str(), human_count(double(done)).c_str(), unit_.c_str(),
                  human_count(rate).c_str(), unit_.c_str(), human_duration(s).c_str(), eta.c_str());
  }
  std::string text = line;
  if (final_line && !note.empty()) text += "  " + note;
  if (mode_ == Mode::Bar) {
    const std::size_t width = text.size();
    if (final_line) text = "\r" + text;  // over the bar
    if (width < last_width_) text += std::string(last_width_ - width, ' ');
    last_width_ = final_line ? 0 : width;
  }
  if (final_line) text += "\n";
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
}

static std::string memory_note() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return "";
  char line[256];
  std::string out;
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "VmRSS:", 6) == 0 || std::strncmp(line, "VmHWM:", 6) == 0) {
      std::string l(line);
      while (!l.empty() && (l.back() == '\n' || l.back() == ' ')) l.pop_back();
      out += " [" + l + "]";
    }
  }
  std::fclose(f);
  return out;
}

void Progress::end(const std::string& note) {
  std::lock_guard lock(m_);
  if (!active_) return;
  active_ = false;
  if (mode_ != Mode::Off) {
    const auto [read, written] = io_bytes();
    std::string io = "[read " + megabytes(read - read_at_begin_) + ", wrote " + megabytes(written - written_at_begin_) +
                     ", peak RSS so far " + megabytes(peak_rss_bytes()) + "]";
    draw(true, (note.empty() ? io : note + "  " + io) + (memory_detail_ ? memory_note() : ""));
  }
  ::malloc_trim(0);  // between stages: give back what the stage's threads freed
}

void Progress::message(const std::string& text) {
  std::lock_guard lock(m_);
  if (mode_ == Mode::Off) return;
  std::string out = text;
  if (mode_ == Mode::Bar && last_width_ > 0) {
    out = "\r" + out;
    if (text.size() < last_width_) out += std::string(last_width_ - text.size(), ' ');
    last_width_ = 0;
  }
  out += "\n";
  std::fputs(out.c_str(), stderr);
  std::fflush(stderr);
}

void Progress::ticker() {
  std::unique_lock lock(m_);
  while (!stop_) {
    cv_.wait_for(lock, std::chrono::milliseconds(250));
    if (stop_) break;
    if (active_) draw(false);
  }
}

}  // namespace tricount
