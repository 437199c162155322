#include "src/output_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <system_error>
#include <thread>

#include "src/types.hpp"

namespace tricount::output {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int err) { return std::generic_category().message(err); }

// The file `path` names (following symlinks; "-" is standard output), if it exists.
bool identify(const std::string& path, struct stat& st) {
  if (path == "-") return ::fstat(STDOUT_FILENO, &st) == 0;
  return ::stat(path.c_str(), &st) == 0;
}

// The descriptor that "-", /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N names:
// written through that descriptor (opening /proc/self/fd/1 anew would start at offset 0 of
// a file the shell opened for appending), or -1.
int standard_descriptor(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (const std::string prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) continue;
    int fd = 0;
    for (std::size_t i = prefix.size(); i < path.size(); ++i) {
      if (path[i] < '0' || path[i] > '9' || fd > 100000) return -1;
      fd = fd * 10 + (path[i] - '0');
    }
    return fd;
  }
  return -1;
}

// `path` with the symlinks of its last component followed: the name that write-then-rename
// replaces (a symlink is written through, never replaced by a file).
std::string resolve_last_symlinks(const std::string& path, std::string_view option) {
  fs::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return p.string();
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) throw Error("cannot write " + std::string(option) + " '" + path + "': cannot read the symlink '" + p.string() + "'");
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  throw Error("cannot write " + std::string(option) + " '" + path + "': too many levels of symbolic links");
}

std::string directory_of(const std::string& path) {
  const fs::path dir = fs::path(path).parent_path();
  return dir.empty() ? "." : dir.string();
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return "localhost";
  std::string host(buf);
  for (char& c : host)  // a file name part: no '/' or odd bytes
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  return host;
}

// The random characters that end a temporary's name (NAME.tmp.tricount-<host>-<pid>-<random>).
constexpr std::size_t kRandomChars = 6;

std::string random_suffix() {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  static std::mutex m;
  static std::mt19937_64 rng{std::random_device{}() ^ (std::uint64_t(::getpid()) << 32)};
  std::lock_guard lock(m);
  std::string s(kRandomChars, 'x');
  for (char& c : s) c = kChars[rng() % (sizeof kChars - 1)];
  return s;
}

constexpr std::string_view kTempTag = ".tmp.tricount-";

// The paths the signal watcher removes (install_signal_cleanup).
std::atomic<bool> g_interrupted{false};

std::mutex& cleanup_mutex() {
  static std::mutex m;
  return m;
}
std::set<std::string>& cleanup_paths() {
  static std::set<std::string> s;
  return s;
}
// Outputs complete under their names (committed), for the watcher's last line.
std::vector<std::string>& committed_paths() {
  static std::vector<std::string> s;
  return s;
}

// A FIFO opened for writing: a plain open waits, without a word, until a reader opens it,
// forever if none ever does. A non-blocking open fails at once without a reader (ENXIO):
// tried for a few seconds (a reader started just before, `cat F &`, may not have opened it
// yet), then refused. The writes themselves block as usual.
int open_fifo_for_writing(const std::string& path, const std::string& what) {
  constexpr int kTries = 100;  // 5 s
  for (int attempt = 0;; ++attempt) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0) {
      const int flags = ::fcntl(fd, F_GETFL);
      if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        const int err = errno;
        ::close(fd);
        throw Error(what + errno_text(err));
      }
      return fd;
    }
    if (errno != ENXIO) throw Error(what + errno_text(errno));
    if (attempt == kTries)
      throw Error(what + "it is a FIFO that no process reads (waited 5 s for one): start its reader first (e.g. "
                  "'cat " + path + " > copy &'), or name a regular file");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// Where a file not yet made would be created: absolute, the symlinks of its last component
// and of its existing folders followed, "." and ".." gone, so that "x", "./x" and "d/../x" meet.
std::string creation_path(const std::string& path) {
  std::error_code ec;
  fs::path p;
  try {
    p = resolve_last_symlinks(path, "output");
  } catch (const Error&) {
    p = path;  // a symlink loop: check_writable names it; compared as written
  }
  const fs::path absolute = fs::absolute(p, ec);
  if (ec) return fs::path(path).lexically_normal().string();
  const fs::path normal = fs::weakly_canonical(absolute, ec);
  return (ec ? absolute.lexically_normal() : normal).string();
}

}  // namespace

void refuse_same_file(const std::string& path, std::string_view option, const std::vector<NamedPath>& others) {
  if (path.empty()) return;
  struct stat mine {};
  const bool exists = identify(path, mine);
  for (const NamedPath& other : others) {
    if (other.path.empty()) continue;
    struct stat theirs {};
    const bool other_exists = identify(other.path, theirs);
    const bool same =
        (path == other.path && path != "-") ||
        (exists && other_exists && mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino) ||
        // A file to be made: the same once both names are made absolute and plain.
        ((!exists || !other_exists) && standard_descriptor(path) < 0 && standard_descriptor(other.path) < 0 &&
         creation_path(path) == creation_path(other.path));
    if (same)
      throw UsageError(std::string(option) + " '" + path + "' is the same file as " + std::string(other.option) + " '" +
                       other.path + "': writing it would destroy that file; choose another path");
  }
}

void check_writable(const std::string& path, std::string_view option, bool needs_regular_file) {
  const std::string what = "cannot write " + std::string(option) + " '" + path + "': ";
  const std::string regular_needed = "it is not a regular file (a device, a FIFO or a standard stream); name a file";
  if (standard_descriptor(path) >= 0) {
    if (needs_regular_file) throw Error(what + regular_needed);
    return;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error(what + "it is a directory");
    if (!S_ISREG(st.st_mode)) {
      if (needs_regular_file) throw Error(what + regular_needed);
      if (::access(path.c_str(), W_OK) != 0) throw Error(what + errno_text(errno));
      return;
    }
  }
  const std::string target = resolve_last_symlinks(path, option);
  const std::string dir = directory_of(target);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(what + "directory '" + dir + "' does not exist");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) throw Error(what + "directory '" + dir + "' is not writable");
  // Its temporary's name (NAME.tmp.tricount-<host>-<pid>-<random>) must fit the folder's limit
  // too: found here, not when the work is done.
  const long most = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  const std::size_t temp_name =
      owned_name_prefix(fs::path(target).filename().string() + std::string(kTempTag)).size() + kRandomChars;
  if (most > 0 && temp_name > static_cast<std::size_t>(most))
    throw Error(what + "the name is too long: with its temporary's suffix it takes " + std::to_string(temp_name) +
                " bytes where the folder allows " + std::to_string(most) + "; choose a shorter name");
}

OutputFile::OutputFile(const std::string& path, std::string_view option, const Creator& create)
    : path_(path), option_(option) {
  const std::string what = "cannot write " + option_ + " '" + path + "': ";
  // 1. Standard streams, devices and FIFOs are written in place: replacing them would put a
  //    regular file where /dev/null or a pipe was.
  const int standard = standard_descriptor(path);
  struct stat st {};
  const bool exists = standard < 0 && ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) throw Error(what + "it is a directory");
  if (standard >= 0 || (exists && !S_ISREG(st.st_mode))) {
    if (create) throw Error(what + "it is not a regular file (a device, a FIFO or a standard stream); name a file");
    std::fflush(nullptr);
    in_place_ = true;
    if (standard < 0 && S_ISFIFO(st.st_mode)) {
      fd_ = open_fifo_for_writing(path, what);
      return;
    }
    fd_ = standard >= 0 ? ::fcntl(standard, F_DUPFD_CLOEXEC, 0) : ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd_ < 0) throw Error(what + errno_text(errno));
    return;
  }
  // 2. A regular file: a fresh temporary beside the target (the symlink's target for a
  //    symlink), created exclusively so that nothing planted there is followed or truncated.
  target_ = resolve_last_symlinks(path, option);
  const std::string prefix =
      (fs::path(directory_of(target_)) / owned_name_prefix(fs::path(target_).filename().string() + std::string(kTempTag)))
          .string();
  for (int attempt = 0;; ++attempt) {
    const std::string name = prefix + random_suffix();
    // Created and registered under the registry's lock (make_registered): the watcher removes
    // a temporary that exists, and only one of ours.
    temp_ = make_registered([&] {
      if (create) return create(name) ? name : std::string();
      fd_ = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
      if (fd_ < 0 && errno != EEXIST)
        throw Error("cannot create " + option_ + " '" + path + "' (written first as '" + name + "'): " + errno_text(errno));
      return fd_ >= 0 ? name : std::string();
    });
    if (!temp_.empty()) break;
    if (attempt == 100) throw Error(what + "100 temporary names beside it were taken (" + name + ")");
  }
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (in_place_ || committed_ || temp_.empty()) return;
  ::unlink(temp_.c_str());
  unregister_cleanup_path(temp_);
}

void throw_output_write_error(const std::string& output, int err, std::string_view option) {
  std::string folder = fs::path(output).parent_path().string();
  if (folder.empty()) folder = ".";
  std::string msg = "cannot write " + std::string(option) + " '" + output + "': " + std::generic_category().message(err);
  if (err == ENOSPC || err == EFBIG || err == EDQUOT)
    msg += " (disk full or file size limit: free space in '" + folder + "', the output's folder)";
  throw Error(msg);
}

void OutputFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t w = ::write(fd_, bytes.data(), bytes.size());
    if (w < 0) {
      if (errno == EINTR) continue;
      throw_output_write_error(path_, errno, option_);
    }
    bytes.remove_prefix(static_cast<std::size_t>(w));
  }
}

void OutputFile::sync() {
  if (in_place_ || committed_) return;
  const int fd = fd_ >= 0 ? fd_ : ::open(temp_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw_output_write_error(path_, errno, option_);
  const bool synced = ::fsync(fd) == 0;
  const int err = errno;
  if (fd != fd_) ::close(fd);
  if (!synced) throw_output_write_error(path_, err, option_);
}

void OutputFile::commit() {
  // 1. The bytes reach the disk (a creator's file: its library closed it; fsync it here).
  int fd = fd_;
  fd_ = -1;
  if (fd < 0 && !in_place_) fd = ::open(temp_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    const bool synced = in_place_ || ::fsync(fd) == 0;
    const int err = errno;
    if (::close(fd) != 0 || !synced) throw_output_write_error(path_, synced ? errno : err, option_);
  }
  if (in_place_) {
    committed_ = true;
    return;
  }
  // 2. The complete file takes the final name, and the name change reaches the disk. Under
  //    the registry's lock: a signal's watcher sees the temporary or the committed output.
  {
    std::lock_guard lock(cleanup_mutex());
    if (::rename(temp_.c_str(), target_.c_str()) != 0)
      throw Error("cannot rename '" + temp_ + "' to '" + target_ + "': " + errno_text(errno));
    committed_ = true;
    cleanup_paths().erase(temp_);
    committed_paths().push_back(path_);
  }
  const int dir = ::open(directory_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);  // best effort: some file systems refuse fsync on directories
    ::close(dir);
  }
}

void write_text_file(const std::string& path, std::string_view option, std::string_view text) {
  OutputFile file(path, option);
  file.write(text);
  file.commit();
}

bool is_standard_output(const std::string& path) { return standard_descriptor(path) == STDOUT_FILENO; }

bool writes_in_place(const std::string& path) {
  struct stat st {};
  return standard_descriptor(path) >= 0 || (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
}

// ---- temporary names and stale temporaries ----------------------------------------------

std::string owned_name_prefix(std::string_view prefix) {
  return std::string(prefix) + host_name() + "-" + std::to_string(::getpid()) + "-";
}

bool owner_is_gone(std::string_view name, std::string_view prefix) {
  const std::string mine = std::string(prefix) + host_name() + "-";  // another host's pids mean nothing here
  if (name.size() <= mine.size() || name.substr(0, mine.size()) != mine) return false;
  std::string_view rest = name.substr(mine.size());  // "<pid>-<6 random>"
  const std::size_t dash = rest.find('-');
  if (dash == 0 || dash == std::string_view::npos || dash > 10 || rest.size() - dash - 1 != kRandomChars) return false;
  long pid = 0;
  for (char c : rest.substr(0, dash)) {
    if (c < '0' || c > '9') return false;
    pid = pid * 10 + (c - '0');
  }
  for (char c : rest.substr(dash + 1))
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
  return pid != ::getpid() && !process_alive(pid);
}

std::size_t remove_stale_temps(const std::string& path, std::string_view signature) {
  std::string target;
  try {
    target = resolve_last_symlinks(path, "output");
  } catch (const Error&) {
    return 0;
  }
  const std::string prefix = fs::path(target).filename().string() + std::string(kTempTag);
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(directory_of(target), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!owner_is_gone(name, prefix)) continue;
    const std::string full = it->path().string();
    struct stat st {};
    if (::lstat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) continue;
    // The marker inside: the file starts as the writer's format does (or is still empty:
    // killed before its first bytes, it holds nothing to lose).
    const int fd = ::open(full.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    std::string head(signature.size(), '\0');
    const ssize_t got = ::pread(fd, head.data(), head.size(), 0);
    ::close(fd);
    const bool empty = got == 0 && st.st_size == 0;
    if (!empty && (got != static_cast<ssize_t>(head.size()) || head != signature)) continue;
    if (::unlink(full.c_str()) == 0) ++removed;
  }
  return removed;
}

bool process_alive(long pid) {
  if (pid <= 0) return false;
  if (::kill(static_cast<pid_t>(pid), 0) == 0) return true;
  return errno == EPERM;
}

// ---- cleanup registry and signals -------------------------------------------------------

void remove_quietly(const std::string& path) {
  std::error_code ec;
  // A worker may create a file while the tree is removed: try a few times.
  for (int attempt = 0; attempt < 5; ++attempt) {
    fs::remove_all(path, ec);
    if (!fs::exists(fs::symlink_status(path, ec))) return;
  }
}

void register_cleanup_path(const std::string& path) {
  std::lock_guard lock(cleanup_mutex());
  cleanup_paths().insert(path);
}

std::string make_registered(const std::function<std::string()>& make) {
  {
    std::lock_guard lock(cleanup_mutex());
    if (!g_interrupted.load()) {
      std::string made = make();
      if (!made.empty()) cleanup_paths().insert(made);
      return made;
    }
  }
  wait_if_interrupted();  // the watcher has taken its copy of the paths and exits
  return "";
}

void unregister_cleanup_path(const std::string& path) {
  std::lock_guard lock(cleanup_mutex());
  cleanup_paths().erase(path);
}

namespace {
std::atomic<InterruptNote> g_interrupt_note{nullptr};
}  // namespace

void set_interrupt_note(InterruptNote note) { g_interrupt_note = note; }

void install_signal_cleanup(const std::string& program, const std::string& left) {
  static std::once_flag once;
  std::call_once(once, [&] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread([set, program, left] {
      int sig = 0;
      while (sigwait(&set, &sig) != 0) {
      }
      g_interrupted = true;
      if (const InterruptNote note = g_interrupt_note.load()) note(sig);
      std::set<std::string> paths;
      std::vector<std::string> kept;
      bool removed = false;
      {
        // Do not wait for ever on a lock a worker might hold: the registry is tiny.
        std::unique_lock lock(cleanup_mutex(), std::defer_lock);
        for (int i = 0; i < 100 && !lock.try_lock(); ++i) ::usleep(10000);
        removed = lock.owns_lock();
        if (removed) {  // else a copy would race with its holder
          paths = cleanup_paths();
          kept = committed_paths();
        }
      }
      // An output finished before the signal stays: say so, unless it lies in a temporary
      // folder removed now (tricount-count's own block file) or is gone already.
      std::erase_if(kept, [&](const std::string& k) {
        return ::access(k.c_str(), F_OK) != 0 ||
               std::any_of(paths.begin(), paths.end(), [&](const std::string& p) { return k == p || k.starts_with(p + "/"); });
      });
      std::string said = left;
      if (!kept.empty()) {
        said = "complete before it and kept:";
        for (const std::string& k : kept) said += " '" + k + "'";
      }
      for (const std::string& p : paths) remove_quietly(p);
      const char* name = sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "SIGHUP";
      std::fprintf(stderr, "\n%s: interrupted by %s; %s, %s\n", program.c_str(), name,
                   removed ? "temporary files removed" : "temporary files (*.tmp*) may remain beside the outputs", said.c_str());
      std::fflush(stderr);
      ::_exit(128 + sig);
    }).detach();
  });
}

bool interrupted() { return g_interrupted.load(); }

void wait_if_interrupted() {
  while (g_interrupted.load()) ::pause();  // the watcher calls _exit
}

}  // namespace tricount::output
