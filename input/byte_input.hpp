// Byte inputs for the edge-file readers: a file (or a pipe, FIFO, /dev/stdin) read with
// read(), a gzip stream through zlib (which reads a file that is not gzip byte for byte), and
// the lone-CR-to-newline filter for old Mac text. Errors name the file.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "input/text_scan.hpp"

namespace tricount {

// Bytes the readers read at a time (text grows its buffer for a longer line).
inline constexpr std::size_t kChunkBytes = std::size_t{4} << 20;

inline bool has_gz_suffix(const std::string& path) { return text_scan::ends_with_ci(path, ".gz"); }

class ByteInput {
 public:
  virtual ~ByteInput() = default;
  // Reads up to `n` bytes; returns 0 only at the end of the stream. Throws Error.
  virtual std::size_t read(char* dst, std::size_t n) = 0;
};

class FdInput final : public ByteInput {
 public:
  explicit FdInput(const std::string& path);
  ~FdInput() override;
  FdInput(const FdInput&) = delete;
  FdInput& operator=(const FdInput&) = delete;
  std::size_t read(char* dst, std::size_t n) override;
  // Size of a regular file, or -1 for pipes and devices.
  long long regular_size() const;
  // The open file, for pread at any offset (a regular file's readers on several threads).
  int descriptor() const { return fd_; }

 private:
  std::string path_;
  int fd_;
};

// A gzip stream, inflated with zlib member by member; a file that does not start with the
// gzip magic is read byte for byte, so text inputs always go through here (a compressed file
// without a .gz name still works). Bytes after a member must be another member (or zero
// padding): gzread would drop anything else without a word, and with it the rest of a
// damaged file's edges.
class GzInput final : public ByteInput {
 public:
  explicit GzInput(const std::string& path);
  ~GzInput() override;
  GzInput(const GzInput&) = delete;
  GzInput& operator=(const GzInput&) = delete;
  std::size_t read(char* dst, std::size_t n) override;

 private:
  enum class Mode { kStart, kRaw, kGzip };
  std::size_t fill();                                // more compressed bytes after the unread ones
  bool next_member();                                // between members: true if another one starts
  std::uint64_t offset() const { return read_ - stream_.avail_in; }  // of the next unread byte
  std::string path_;
  int fd_;
  std::unique_ptr<unsigned char[]> in_;
  z_stream stream_{};
  Mode mode_ = Mode::kStart;
  bool in_member_ = false;
  std::uint64_t read_ = 0;  // bytes read from the file
  std::string pending_error_;  // found after bytes this call returned: raised by the next
};

// Bytes [begin, end) of a regular file, read with pread: one reader's share of a text file.
class FileRangeInput final : public ByteInput {
 public:
  FileRangeInput(const std::string& path, std::uint64_t begin, std::uint64_t end);
  ~FileRangeInput() override;
  FileRangeInput(const FileRangeInput&) = delete;
  FileRangeInput& operator=(const FileRangeInput&) = delete;
  std::size_t read(char* dst, std::size_t n) override;

 private:
  std::string path_;
  int fd_;
  std::uint64_t at_, end_;
};

// Where the share `index` of `count` of a regular text file of `size` bytes begins: the first
// line start at or after byte size * index / count (0 for the first share, `size` past the
// last). A line ends at '\n' or at a CR that no '\n' follows, as LoneCrAsNewline reads them,
// so consecutive shares hold whole lines and all of them together the whole file.
std::uint64_t text_share_start(int fd, const std::string& path, std::uint64_t size, std::uint64_t index,
                               std::uint64_t count);

// Where line `lines` of a regular text file ends: the byte after its line end (`size` if the
// file has fewer lines). Lines end as text_share_start says.
std::uint64_t text_line_end(int fd, const std::string& path, std::uint64_t size, std::uint64_t lines);

// Whether `path` is a regular file that is not gzip-compressed (gzip streams are read from
// their start only).
bool is_uncompressed_regular_file(const std::string& path);

// Old Mac files end their lines with a lone CR: each one becomes '\n' here, so the text
// parser only ever splits at '\n'. A CRLF stays as it is (the parser takes the CR for a
// blank), also when a read ends between its CR and its LF.
class LoneCrAsNewline final : public ByteInput {
 public:
  explicit LoneCrAsNewline(std::unique_ptr<ByteInput> in) : in_(std::move(in)) {}
  std::size_t read(char* dst, std::size_t n) override;

 private:
  std::unique_ptr<ByteInput> in_;
  bool ended_with_cr_ = false;
};

}  // namespace tricount
