// Faults that tests inject into the real programs: a disk that fills up, a process stopped
// by SIGSTOP (found by its command line).
#pragma once

#include <sys/mount.h>
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_support.hpp"

namespace tricount::testing {

// A tmpfs of `bytes` bytes mounted on a directory of its own, for a disk that fills up.
// Mounting needs root (CAP_SYS_ADMIN); without it the tests that need one are skipped.
class SmallTmpfs {
 public:
  explicit SmallTmpfs(std::uint64_t bytes) {
    const std::string options = "size=" + std::to_string(bytes);
    mounted_ = ::mount("tmpfs", dir_.path().c_str(), "tmpfs", 0, options.c_str()) == 0;
  }
  ~SmallTmpfs() {
    if (mounted_) ::umount2(dir_.path().c_str(), MNT_DETACH);
  }
  SmallTmpfs(const SmallTmpfs&) = delete;
  SmallTmpfs& operator=(const SmallTmpfs&) = delete;
  bool mounted() const { return mounted_; }
  const std::string& path() const { return dir_.path(); }
  std::string file(const std::string& name) const { return dir_.file(name); }
  // Fills the file system up to `leave` bytes (a multiple of the 4 KiB page) free.
  void fill_leaving(std::uint64_t leave) {
    std::ofstream out(file("filler"), std::ios::binary);
    const std::string page(4096, 'x');
    while (std::filesystem::space(dir_.path()).available > leave && out.write(page.data(), page.size()) && out.flush()) {
    }
  }
  void make_room() { std::filesystem::remove(file("filler")); }

 private:
  TempDir dir_;
  bool mounted_ = false;
};

// The pid of a stopped process (state T) whose command line mentions `marker`, or 0.
inline pid_t find_stopped_process(const std::string& marker) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_file(entry.path().string() + "/stat");
    const std::size_t paren = stat.rfind(')');
    if (paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'T') continue;
    if (read_file(entry.path().string() + "/cmdline").find(marker) != std::string::npos)
      return static_cast<pid_t>(std::stoi(name));
  }
  return 0;
}

}  // namespace tricount::testing
