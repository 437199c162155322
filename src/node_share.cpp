#include "src/node_share.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>

#include "src/threads.hpp"
#include "src/types.hpp"

namespace tricount {

unsigned cores_per_worker(unsigned node_cores, unsigned usable, int workers_on_node) {
  const unsigned share = std::max(1u, node_cores) / static_cast<unsigned>(std::max(1, workers_on_node));
  return std::max(1u, std::min(std::max(1u, usable), share));
}

unsigned node_share_of_cores(int workers_on_node) {
  return cores_per_worker(std::thread::hardware_concurrency(), usable_cores(), workers_on_node);
}

namespace {

constexpr std::uint64_t kUnknown = std::numeric_limits<std::uint64_t>::max();

// One number from a file ("max" or unreadable: unknown).
std::uint64_t read_number(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word.empty() || word.find_first_not_of("0123456789") != std::string::npos) return kUnknown;
  return std::stoull(word);
}

// The cgroup's limit less its usage: v2 (memory.max, memory.current) of this process's
// cgroup, else v1 (memory.limit_in_bytes, memory.usage_in_bytes).
std::uint64_t cgroup_headroom() {
  std::ifstream self("/proc/self/cgroup");
  std::string line, v2_path, v1_path;
  while (std::getline(self, line)) {
    if (line.rfind("0::", 0) == 0) v2_path = line.substr(3);
    const std::size_t at = line.find(":memory:");
    if (at != std::string::npos) v1_path = line.substr(at + 8);
  }
  auto headroom = [](std::uint64_t limit, std::uint64_t used) {
    if (limit == kUnknown) return kUnknown;
    return used == kUnknown || used >= limit ? (used == kUnknown ? limit : 0) : limit - used;
  };
  if (!v2_path.empty()) {
    const std::string dir = "/sys/fs/cgroup" + v2_path;
    const std::uint64_t h = headroom(read_number(dir + "/memory.max"), read_number(dir + "/memory.current"));
    if (h != kUnknown) return h;
  }
  if (!v1_path.empty()) {
    const std::string dir = "/sys/fs/cgroup/memory" + v1_path;
    const std::uint64_t limit = read_number(dir + "/memory.limit_in_bytes");
    // v1 reports "no limit" as a number near 2^63.
    if (limit < (std::uint64_t{1} << 62)) return headroom(limit, read_number(dir + "/memory.usage_in_bytes"));
  }
  return kUnknown;
}

}  // namespace

std::uint64_t available_memory_bytes() {
  std::uint64_t available = kUnknown;
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib) {
    std::getline(meminfo, unit);
    if (key == "MemAvailable:") {
      available = kib * 1024;
      break;
    }
  }
  if (available == kUnknown) {
    const long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) available = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
  }
  available = std::min(available, cgroup_headroom());
  return available == kUnknown ? 0 : available;
}

std::uint64_t default_cache_bytes(std::uint64_t available, int workers_on_node) {
  const int workers = std::max(1, workers_on_node);
  const std::uint64_t share =
      static_cast<std::uint64_t>(kDefaultCacheFraction * static_cast<double>(available)) / static_cast<std::uint64_t>(workers);
  if (share < kMinDefaultCacheBytes) {
    std::ostringstream s;
    s << "--cache-size: by default each worker caches blocks in its share of the node's available memory, but "
      << (available ? std::to_string(available >> 20) + " MiB available" : std::string("the available memory is unknown"))
      << " among " << workers << " worker" << (workers == 1 ? "" : "s") << " on this node leaves "
      << (share >> 20) << " MiB each, below " << (kMinDefaultCacheBytes >> 20)
      << " MiB: give --cache-size explicitly, run fewer workers per node, or free memory on the node";
    throw Error(s.str());
  }
  return share;
}

}  // namespace tricount
