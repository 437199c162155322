#include "src/md5.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <vector>

#include "src/types.hpp"

namespace tricount {
namespace {

// K[i] = floor(|sin(i + 1)| * 2^32), as RFC 1321 defines the table.
const std::uint32_t* sine_table() {
  static const auto table = [] {
    std::vector<std::uint32_t> k(64);
    for (int i = 0; i < 64; ++i) k[i] = static_cast<std::uint32_t>(std::floor(std::fabs(std::sin(i + 1.0)) * 4294967296.0));
    return k;
  }();
  return table.data();
}

constexpr int kShift[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                            5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                            4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                            6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

}  // namespace

void Md5::block(const unsigned char* p) {
  const std::uint32_t* k = sine_table();
  std::uint32_t m[16];
  for (int i = 0; i < 16; ++i)
    m[i] = std::uint32_t(p[4 * i]) | std::uint32_t(p[4 * i + 1]) << 8 | std::uint32_t(p[4 * i + 2]) << 16 |
           std::uint32_t(p[4 * i + 3]) << 24;
  std::uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  for (int i = 0; i < 64; ++i) {
    std::uint32_t f;
    int g;
    if (i < 16) f = (b & c) | (~b & d), g = i;
    else if (i < 32) f = (d & b) | (~d & c), g = (5 * i + 1) % 16;
    else if (i < 48) f = b ^ c ^ d, g = (3 * i + 5) % 16;
    else f = c ^ (b | ~d), g = (7 * i) % 16;
    f += a + k[i] + m[g];
    a = d, d = c, c = b;
    b += std::rotl(f, kShift[i]);
  }
  state_[0] += a, state_[1] += b, state_[2] += c, state_[3] += d;
}

void Md5::add(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  bytes_ += bytes;
  if (buffered_ > 0) {
    const std::size_t take = std::min(bytes, sizeof buffer_ - buffered_);
    std::memcpy(buffer_ + buffered_, p, take);
    buffered_ += take, p += take, bytes -= take;
    if (buffered_ < sizeof buffer_) return;
    block(buffer_);
    buffered_ = 0;
  }
  for (; bytes >= 64; p += 64, bytes -= 64) block(p);
  std::memcpy(buffer_, p, bytes);
  buffered_ = bytes;
}

std::string Md5::hex() {
  const std::uint64_t bits = bytes_ * 8;
  const unsigned char one = 0x80, zero = 0;
  add(&one, 1);
  while (buffered_ != 56) add(&zero, 1);
  unsigned char length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(bits >> (8 * i));
  add(length, 8);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::uint32_t word : state_)
    for (int i = 0; i < 4; ++i) {
      const unsigned byte = (word >> (8 * i)) & 0xff;
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  return out;
}

std::string md5_of_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path + ": cannot open (" + std::string(std::strerror(errno)) + ")");
  Md5 md5;
  std::vector<unsigned char> buf(std::size_t{1} << 20);
  while (true) {
    const ssize_t got = ::read(fd, buf.data(), buf.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int err = errno;
      ::close(fd);
      throw Error(path + ": cannot read (" + std::string(std::strerror(err)) + ")");
    }
    if (got == 0) break;
    md5.add(buf.data(), static_cast<std::size_t>(got));
  }
  ::close(fd);
  return md5.hex();
}

}  // namespace tricount
