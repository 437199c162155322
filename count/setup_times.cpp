#include "count/setup_times.hpp"

#include <time.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace tricount {
namespace {

// The fallback origin: set while the program is loaded, before main.
const std::chrono::steady_clock::time_point loaded = std::chrono::steady_clock::now();

// /proc/self/stat's starttime (field 22: clock ticks after boot) against CLOCK_BOOTTIME; < 0
// when either cannot be read.
double from_proc() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  if (!std::getline(in, line)) return -1;
  const std::size_t close = line.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return -1;
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  unsigned long long ticks = 0;
  for (int k = 3; k <= 22 && fields >> field; ++k)
    if (k == 22) ticks = std::stoull(field);
  const long per_second = ::sysconf(_SC_CLK_TCK);
  timespec now{};
  if (ticks == 0 || per_second <= 0 || ::clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1;
  const double since = double(now.tv_sec) + double(now.tv_nsec) * 1e-9 - double(ticks) / double(per_second);
  return since >= 0 ? since : -1;
}

}  // namespace

double seconds_since_process_start() {
  double s = -1;
  try {
    s = from_proc();
  } catch (const std::exception&) {
    s = -1;
  }
  if (s >= 0) return s;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - loaded).count();
}

}  // namespace tricount
