#include "partitioner/run_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <new>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

namespace tricount::runs {

namespace fs = std::filesystem;

namespace {
std::atomic<std::uint64_t> g_scratch_bytes{0};
constexpr const char* kScratchPrefix = "tricount-partition-";
constexpr const char* kMemoryPrefix = "memory:";

// The memory files of in-memory scratch directories: name -> descriptor (the file lives
// while this descriptor is open; readers and writers get duplicates).
struct MemoryFiles {
  std::mutex m;
  std::unordered_map<std::string, int> fds;
  std::uint64_t bytes = 0, peak = 0;  // sizes as of the last write through a writer's close
};
MemoryFiles& memory_files() {
  static MemoryFiles files;
  return files;
}
bool is_memory_path(const std::string& path) { return path.rfind(kMemoryPrefix, 0) == 0; }

std::uint64_t file_size_of(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}
}  // namespace

// ---- files ----------------------------------------------------------------------------

std::uint64_t scratch_bytes_written() { return g_scratch_bytes.load(); }

void throw_write_error(const std::string& path, int err) {
  std::string msg = "cannot write temporary file '" + path + "': " + std::generic_category().message(err);
  if (err == ENOSPC || err == EFBIG || err == EDQUOT)
    msg += " (disk full or file size limit: free space there, or point --tmpdir at a larger disk)";
  if (err == EMFILE || err == ENFILE) {  // a few files per block and per thread's run are open at once
    struct rlimit r {};
    const bool known = ::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY;
    msg += " (this process may have " + (known ? "only " + std::to_string(r.rlim_cur) : std::string("only so many")) +
           " files open at once: raise the limit with ulimit -n, or give fewer --parts or --threads)";
  }
  throw Error(msg);
}

void throw_read_error(const std::string& path, int err) {
  throw Error("cannot read temporary file '" + path + "': " +
              (err ? std::generic_category().message(err) : std::string("unexpected end of file")));
}

namespace {

// write(2), or pwrite(2) at `offset`, until every byte is written; a full disk is ENOSPC,
// reported by `fail` (throw_write_error or throw_output_write_error) with `path`.
void write_fully(int fd, const void* data, std::size_t bytes, std::optional<std::uint64_t> offset, const std::string& path,
                 void (*fail)(const std::string&, int) = throw_write_error) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const std::size_t n = std::min<std::size_t>(bytes, std::size_t{1} << 30);
    const ssize_t w = offset ? ::pwrite(fd, p, n, static_cast<off_t>(*offset)) : ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail(path, errno);
    }
    if (w == 0) fail(path, ENOSPC);
    p += w;
    bytes -= static_cast<std::size_t>(w);
    if (offset) *offset += static_cast<std::uint64_t>(w);
    g_scratch_bytes += static_cast<std::uint64_t>(w);
  }
}

}  // namespace

void write_all(int fd, const void* data, std::size_t bytes, const std::string& path) {
  write_fully(fd, data, bytes, std::nullopt, path);
}

void pwrite_all(int fd, const void* data, std::size_t bytes, std::uint64_t offset, const std::string& path) {
  write_fully(fd, data, bytes, offset, path);
}

void pwrite_output(int fd, const void* data, std::size_t bytes, std::uint64_t offset, const std::string& output) {
  write_fully(fd, data, bytes, offset, output, [](const std::string& path, int err) { throw_output_write_error(path, err); });
}

void* map_pages(std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

void unmap_pages(void* data, std::size_t bytes) noexcept {
  if (data) ::munmap(data, bytes);
}

void populate_pages(void* data, std::size_t bytes) {
  if (bytes == 0) return;
#ifdef MADV_POPULATE_WRITE
  if (::madvise(data, bytes, MADV_POPULATE_WRITE) == 0) return;
#endif
  // Older kernels: a write a page (each a fault, as before, but only here).
  for (std::size_t at = 0; at < bytes; at += kPageBytes) static_cast<volatile char*>(data)[at] = 0;
}

void release_pages(void* data, std::size_t bytes) noexcept {
  if (bytes) ::madvise(data, bytes, MADV_DONTNEED);
}

void pread_all(int fd, void* data, std::size_t bytes, std::uint64_t offset, const std::string& path) {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t r = ::pread(fd, p, std::min<std::size_t>(bytes, std::size_t{1} << 30), static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw_read_error(path, errno);
    }
    if (r == 0) throw_read_error(path, 0);
    p += r;
    bytes -= static_cast<std::size_t>(r);
    offset += static_cast<std::uint64_t>(r);
  }
}

static int create_file(const std::string& path) {
  if (is_memory_path(path)) {
    const int fd = ::memfd_create("tricount-run", MFD_CLOEXEC);
    if (fd < 0) throw_write_error(path, errno);
    const int mine = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (mine < 0) {
      const int err = errno;
      ::close(fd);
      throw_write_error(path, err);
    }
    MemoryFiles& files = memory_files();
    std::lock_guard lock(files.m);
    auto [it, added] = files.fds.try_emplace(path, mine);
    if (!added) {
      files.bytes -= file_size_of(it->second);
      ::close(it->second);
      it->second = mine;
    }
    return fd;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOSPC || err == EDQUOT) throw_write_error(path, err);
    throw Error("cannot create temporary file '" + path + "': " + std::generic_category().message(err));
  }
  return fd;
}

int create_scratch_file(const std::string& path) { return create_file(path); }

void remove_scratch_file(const std::string& path) {
  if (!is_memory_path(path)) {
    ::unlink(path.c_str());
    return;
  }
  MemoryFiles& files = memory_files();
  int fd = -1;
  {
    std::lock_guard lock(files.m);
    auto it = files.fds.find(path);
    if (it == files.fds.end()) return;
    files.bytes -= std::min(files.bytes, file_size_of(it->second));
    fd = it->second;
    files.fds.erase(it);
  }
  ::close(fd);  // frees the file's pages: outside the lock, so that threads free files at once
}

std::uint64_t memory_run_bytes() {
  std::lock_guard lock(memory_files().m);
  return memory_files().bytes;
}

std::uint64_t peak_memory_run_bytes() {
  std::lock_guard lock(memory_files().m);
  return memory_files().peak;
}

namespace {
// Counts what a memory file holds once its writer closes it.
void account_closed(const std::string& path, int fd) {
  if (!is_memory_path(path)) return;
  const std::uint64_t size = file_size_of(fd);
  MemoryFiles& files = memory_files();
  std::lock_guard lock(files.m);
  files.bytes += size;
  files.peak = std::max(files.peak, files.bytes);
}
}  // namespace

void close_scratch_file(const std::string& path, int fd) {
  account_closed(path, fd);
  if (::close(fd) != 0) throw_write_error(path, errno);
}

FileWriter::FileWriter(const std::string& path, std::size_t buffer_bytes)
    : fd_(create_file(path)), path_(path), buf_(std::max<std::size_t>(buffer_bytes, 64)) {}

FileWriter::~FileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

FileWriter& FileWriter::operator=(FileWriter&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    path_ = std::move(o.path_);
    buf_ = std::move(o.buf_);
    used_ = std::exchange(o.used_, 0);
    total_ = std::exchange(o.total_, 0);
  }
  return *this;
}

void FileWriter::write(const void* data, std::size_t bytes) {
  const char* p = static_cast<const char*>(data);
  total_ += bytes;
  if (used_ + bytes <= buf_.size()) {
    std::memcpy(buf_.data() + used_, p, bytes);
    used_ += bytes;
    return;
  }
  flush();
  if (bytes >= buf_.size()) {
    write_all(fd_, p, bytes, path_);
    return;
  }
  std::memcpy(buf_.data(), p, bytes);
  used_ = bytes;
}

void FileWriter::flush() {
  if (used_ > 0) write_all(fd_, buf_.data(), used_, path_);
  used_ = 0;
}

void FileWriter::close() {
  if (fd_ < 0) return;
  flush();
  const int fd = std::exchange(fd_, -1);
  account_closed(path_, fd);
  if (::close(fd) != 0) throw_write_error(path_, errno);
  buf_.release();
}

void write_file(const std::string& path, const void* data, std::size_t bytes) {
  const int fd = create_file(path);
  try {
    write_all(fd, data, bytes, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  account_closed(path, fd);
  if (::close(fd) != 0) throw_write_error(path, errno);
}

FilePool::~FilePool() {
  for (auto& [path, fd] : fds_) ::close(fd);
}

int FilePool::fd(const std::string& path) {
  {
    // Every probe of a merge's cuts asks here: the threads share the lookup.
    std::shared_lock lock(m_);
    auto it = fds_.find(path);
    if (it != fds_.end()) return it->second;
  }
  std::lock_guard lock(m_);
  auto it = fds_.find(path);
  if (it != fds_.end()) return it->second;
  int fd = -1;
  if (is_memory_path(path)) {
    MemoryFiles& files = memory_files();
    std::lock_guard files_lock(files.m);
    auto m = files.fds.find(path);
    if (m == files.fds.end()) throw_read_error(path, ENOENT);
    fd = ::fcntl(m->second, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) throw_read_error(path, errno);
  } else {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw_read_error(path, errno);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  fds_.emplace(path, fd);
  return fd;
}

void FilePool::forget(const std::string& path) {
  std::lock_guard lock(m_);
  auto it = fds_.find(path);
  if (it == fds_.end()) return;
  ::close(it->second);
  fds_.erase(it);
}

void remove_run_files(const std::vector<Run>& runs, FilePool& pool, unsigned threads) {
  std::set<std::string> unique;
  for (const Run& r : runs)
    for (const Span& s : r.spans) unique.insert(s.path);
  const std::vector<std::string> paths(unique.begin(), unique.end());
  // Freeing a file's pages is the kernel's work, file by file: a few files a thread at least.
  std::atomic<std::size_t> next{0};
  parallel_for(static_cast<unsigned>(std::clamp<std::size_t>(paths.size() / 4, 1, std::max(1u, threads))), [&](unsigned) {
    for (std::size_t k; (k = next.fetch_add(1)) < paths.size();) {
      pool.forget(paths[k]);
      remove_scratch_file(paths[k]);
    }
  });
}

// ---- scratch directory and cleanup ------------------------------------------------------

std::size_t remove_stale_scratch_dirs(const std::string& parent) {
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!output::owner_is_gone(name, kScratchPrefix)) continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) continue;
    std::error_code ec2;
    fs::remove_all(it->path(), ec2);
    if (!ec2) ++removed;
  }
  return removed;
}

std::string default_tmpdir() {
  const char* t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

ScratchDir::ScratchDir(const std::string& parent_in, bool in_memory) : in_memory_(in_memory) {
  if (in_memory) {
    static std::atomic<std::uint64_t> next{0};
    path_ = std::string(kMemoryPrefix) + kScratchPrefix + std::to_string(::getpid()) + "-" + std::to_string(next++);
    return;
  }
  const std::string parent = parent_in.empty() ? default_tmpdir() : parent_in;
  std::error_code ec;
  if (!fs::is_directory(parent, ec))
    throw Error("--tmpdir '" + parent + "' is not a directory (it holds the sorted runs; create it or choose another)");
  remove_stale_scratch_dirs(parent);
  std::string tmpl = (fs::path(parent) / (output::owned_name_prefix(kScratchPrefix) + "XXXXXX")).string();
  // Created and registered under the registry's lock: a SIGTERM between the two would leave it.
  int error = 0;
  path_ = output::make_registered([&] {
    if (::mkdtemp(tmpl.data())) return tmpl;
    error = errno;
    return std::string();
  });
  if (path_.empty())
    throw Error("cannot create a temporary directory in --tmpdir '" + parent + "': " +
                std::generic_category().message(error));
}

ScratchDir::~ScratchDir() {
  if (in_memory_) {
    MemoryFiles& files = memory_files();
    std::lock_guard lock(files.m);
    const std::string prefix = path_ + "/";
    for (auto it = files.fds.begin(); it != files.fds.end();) {
      if (it->first.rfind(prefix, 0) != 0) {
        ++it;
        continue;
      }
      files.bytes -= std::min(files.bytes, file_size_of(it->second));
      ::close(it->second);
      it = files.fds.erase(it);
    }
    return;
  }
  output::remove_quietly(path_);
  unregister_cleanup_path(path_);
}

std::string ScratchDir::new_file(const std::string& stem) {
  return path_ + "/" + stem + "." + std::to_string(counter_.fetch_add(1));
}

std::uint64_t ScratchDir::free_bytes() const {
  if (in_memory_) return 0;
  struct statvfs s {};
  if (::statvfs(path_.c_str(), &s) != 0) return 0;
  return std::uint64_t(s.f_bavail) * s.f_frsize;
}

}  // namespace tricount::runs
