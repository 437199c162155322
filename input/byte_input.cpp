#include "input/byte_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "src/types.hpp"

namespace tricount {
namespace {

std::string errno_message(int err) { return std::generic_category().message(err); }

// Opens `path` read-only, with the errors worded the way users expect from other tools.
int open_readable(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open '" + printable(path) + "': " + errno_message(errno));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error("cannot open '" + printable(path) + "': " + errno_message(EISDIR));
  }
  return fd;
}

}  // namespace

FdInput::FdInput(const std::string& path) : path_(path), fd_(open_readable(path)) {}

FdInput::~FdInput() { ::close(fd_); }

std::size_t FdInput::read(char* dst, std::size_t n) {
  for (;;) {
    const ssize_t r = ::read(fd_, dst, n);
    if (r >= 0) return static_cast<std::size_t>(r);
    if (errno != EINTR) throw Error("cannot read '" + printable(path_) + "': " + errno_message(errno));
  }
}

long long FdInput::regular_size() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  return static_cast<long long>(st.st_size);
}

GzInput::GzInput(const std::string& path) : path_(path) {
  const int fd = open_readable(path);
  gz_ = ::gzdopen(fd, "rb");
  if (gz_ == nullptr) {
    ::close(fd);
    throw Error("cannot open '" + printable(path) + "': zlib could not allocate its stream state");
  }
  ::gzbuffer(gz_, 1u << 20);  // fewer, larger read() calls than zlib's 8 KiB default
}

GzInput::~GzInput() { ::gzclose(gz_); }

std::size_t GzInput::read(char* dst, std::size_t n) {
  // gzread takes an unsigned and returns an int: keep each request well below INT_MAX.
  const unsigned want = static_cast<unsigned>(std::min<std::size_t>(n, std::size_t{1} << 30));
  const int r = ::gzread(gz_, dst, want);
  // A truncated stream reads like a normal end (0) with the error Z_BUF_ERROR recorded,
  // so the error state must be checked on every short read, not only when r < 0.
  if (r <= 0) {
    int err = Z_OK;
    const char* msg = ::gzerror(gz_, &err);
    if (err == Z_ERRNO) {
      throw Error("cannot read '" + printable(path_) + "': " + errno_message(errno));
    }
    if (err != Z_OK || r < 0) {
      std::string_view what = msg ? msg : "unknown error";
      // zlib prefixes its message with the name it was opened under, "<fd:N>: " here.
      if (what.starts_with("<fd:")) {
        if (const auto colon = what.find(": "); colon != std::string_view::npos) what.remove_prefix(colon + 2);
      }
      throw Error(printable(path_) + ": gzip stream error: " + std::string(what) +
                  (err == Z_BUF_ERROR ? " (the file is truncated)" : ""));
    }
  }
  return static_cast<std::size_t>(r);
}

FileRangeInput::FileRangeInput(const std::string& path, std::uint64_t begin, std::uint64_t end)
    : path_(path), fd_(open_readable(path)), at_(begin), end_(end) {}

FileRangeInput::~FileRangeInput() { ::close(fd_); }

std::size_t FileRangeInput::read(char* dst, std::size_t n) {
  const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(n, end_ - at_));
  if (want == 0) return 0;
  for (;;) {
    const ssize_t r = ::pread(fd_, dst, want, static_cast<off_t>(at_));
    if (r > 0) {
      at_ += static_cast<std::uint64_t>(r);
      return static_cast<std::size_t>(r);
    }
    if (r == 0) throw Error("cannot read '" + printable(path_) + "': the file ends early (it changed while being read?)");
    if (errno != EINTR) throw Error("cannot read '" + printable(path_) + "': " + errno_message(errno));
  }
}

namespace {

// The n-th line start after byte `from` (n >= 1): a position p > from whose byte p - 1 ends a
// line (an LF, or a CR that no LF follows), or `size` when the file has fewer.
std::uint64_t nth_line_start_after(int fd, const std::string& path, std::uint64_t size, std::uint64_t from,
                                   std::uint64_t n) {
  std::vector<char> buf(std::size_t{1} << 16);
  std::uint64_t at = from, seen = 0;
  char prev = 0;
  bool have_prev = false;
  while (at < size) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), size - at));
    const ssize_t r = ::pread(fd, buf.data(), want, static_cast<off_t>(at));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw Error("cannot read '" + printable(path) + "': " + errno_message(errno));
    if (r == 0) break;
    for (ssize_t k = 0; k < r; ++k) {
      const char c = buf[static_cast<std::size_t>(k)];
      if (have_prev && (prev == '\n' || (prev == '\r' && c != '\n')) && ++seen == n)
        return at + static_cast<std::uint64_t>(k);
      prev = c;
      have_prev = true;
    }
    at += static_cast<std::uint64_t>(r);
  }
  return size;
}

}  // namespace

std::uint64_t text_share_start(int fd, const std::string& path, std::uint64_t size, std::uint64_t index,
                               std::uint64_t count) {
  if (index == 0) return 0;
  if (index >= count) return size;
  const std::uint64_t target = static_cast<std::uint64_t>(static_cast<unsigned __int128>(size) * index / count);
  // The first line start at or after the target: 0, or the first after the byte before it.
  return target == 0 ? 0 : nth_line_start_after(fd, path, size, target - 1, 1);
}

std::uint64_t text_line_end(int fd, const std::string& path, std::uint64_t size, std::uint64_t lines) {
  return lines == 0 ? 0 : nth_line_start_after(fd, path, size, 0, lines);
}

bool is_uncompressed_regular_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  unsigned char magic[2] = {0, 0};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  const bool gzip = regular && ::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1F && magic[1] == 0x8B;
  ::close(fd);
  return regular && !gzip;
}

std::size_t LoneCrAsNewline::read(char* dst, std::size_t n) {
  for (;;) {
    std::size_t got = in_->read(dst, n);
    if (got == 0) return 0;
    // The previous read ended with a CR, made '\n': a LF right after it is the rest of a CRLF.
    if (ended_with_cr_ && dst[0] == '\n') std::memmove(dst, dst + 1, --got);
    ended_with_cr_ = false;
    if (got == 0) continue;
    char* const end = dst + got;
    for (char* p = dst; (p = static_cast<char*>(std::memchr(p, '\r', static_cast<std::size_t>(end - p)))) != nullptr;) {
      ++p;
      if (p == end) {
        p[-1] = '\n';
        ended_with_cr_ = true;
        break;
      }
      if (*p != '\n') p[-1] = '\n';
    }
    return got;
  }
}

}  // namespace tricount
