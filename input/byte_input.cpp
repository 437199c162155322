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

namespace {
constexpr std::size_t kGzInBytes = std::size_t{1} << 20;  // compressed bytes per read()
}  // namespace

GzInput::GzInput(const std::string& path) : path_(path), fd_(open_readable(path)), in_(new unsigned char[kGzInBytes]) {
  if (::inflateInit2(&stream_, 16 + MAX_WBITS) != Z_OK) {  // 16: gzip wrapper only
    ::close(fd_);
    throw Error("cannot open '" + printable(path) + "': zlib could not allocate its stream state");
  }
  stream_.next_in = in_.get();
  stream_.avail_in = 0;
}

GzInput::~GzInput() {
  ::inflateEnd(&stream_);
  ::close(fd_);
}

std::size_t GzInput::fill() {
  std::memmove(in_.get(), stream_.next_in, stream_.avail_in);
  stream_.next_in = in_.get();
  for (;;) {
    const ssize_t r = ::read(fd_, in_.get() + stream_.avail_in, kGzInBytes - stream_.avail_in);
    if (r >= 0) {
      stream_.avail_in += static_cast<uInt>(r);
      read_ += static_cast<std::uint64_t>(r);
      return static_cast<std::size_t>(r);
    }
    if (errno != EINTR) throw Error("cannot read '" + printable(path_) + "': " + errno_message(errno));
  }
}

bool GzInput::next_member() {
  for (;;) {
    while (stream_.avail_in > 0 && *stream_.next_in == 0) {  // zero padding (tape blocks) carries nothing
      ++stream_.next_in;
      --stream_.avail_in;
    }
    if (stream_.avail_in < 2 && fill() == 0 && stream_.avail_in == 0) return false;
    if (stream_.avail_in == 0 || *stream_.next_in == 0) continue;
    if (stream_.avail_in >= 2 && stream_.next_in[0] == 0x1F && stream_.next_in[1] == 0x8B) {
      if (::inflateReset(&stream_) != Z_OK) throw Error(printable(path_) + ": gzip stream error: cannot start the next member");
      return true;
    }
    if (stream_.avail_in >= 2 || fill() == 0)
      throw Error(printable(path_) + ": byte " + std::to_string(offset()) +
                  " follows the end of the gzip stream but starts no gzip member: the file is damaged or has "
                  "other data appended (gzip -t reports it too); recompress the graph");
  }
}

std::size_t GzInput::read(char* dst, std::size_t n) {
  if (mode_ == Mode::kStart) {  // the first two bytes say gzip or not
    while (stream_.avail_in < 2 && fill() > 0) {
    }
    if (stream_.avail_in >= 2 && stream_.next_in[0] == 0x1F && stream_.next_in[1] == 0x8B) {
      mode_ = Mode::kGzip;
      in_member_ = true;
    } else if (stream_.avail_in == 0 && has_gz_suffix(path_)) {
      throw Error(printable(path_) + ": the file is empty, not a gzip stream (truncated?)");
    } else {
      mode_ = Mode::kRaw;
    }
  }
  if (mode_ == Mode::kRaw) {
    if (stream_.avail_in == 0 && fill() == 0) return 0;
    const std::size_t k = std::min<std::size_t>(n, stream_.avail_in);
    std::memcpy(dst, stream_.next_in, k);
    stream_.next_in += k;
    stream_.avail_in -= static_cast<uInt>(k);
    return k;
  }
  // Inflate until `dst` is full or the last member ends. An error after some bytes came out
  // is raised by the next call, so every byte before the damage reaches the reader.
  if (!pending_error_.empty()) throw Error(pending_error_);
  stream_.next_out = reinterpret_cast<Bytef*>(dst);
  stream_.avail_out = static_cast<uInt>(std::min<std::size_t>(n, std::size_t{1} << 30));
  const uInt want = stream_.avail_out;
  try {
    while (stream_.avail_out > 0) {
      if (!in_member_) {
        if (!next_member()) break;
        in_member_ = true;
      }
      if (stream_.avail_in == 0 && fill() == 0)
        throw Error(printable(path_) + ": gzip stream error: unexpected end of file (the file is truncated)");
      const int r = ::inflate(&stream_, Z_NO_FLUSH);
      if (r == Z_STREAM_END) in_member_ = false;
      else if (r != Z_OK)
        throw Error(printable(path_) + ": gzip stream error: " + (stream_.msg ? stream_.msg : "code " + std::to_string(r)) +
                    " near byte " + std::to_string(offset()) + " (the file is damaged)");
    }
  } catch (const Error& e) {
    if (stream_.avail_out == want) throw;
    pending_error_ = e.what();
  }
  return want - stream_.avail_out;
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
