// MD5 (RFC 1321), for one purpose: the digest of an input file that a user compares with the
// publisher's (LAW distributes NAME.md5sums beside its WebGraph files). Not for integrity
// against an adversary, and not the blocks' checksum (src/checksum.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tricount {

class Md5 {
 public:
  void add(const void* data, std::size_t bytes);
  std::string hex();  // the digest as md5sum prints it; ends the computation

 private:
  void block(const unsigned char* p);
  std::uint32_t state_[4] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};
  unsigned char buffer_[64] = {};
  std::size_t buffered_ = 0;
  std::uint64_t bytes_ = 0;
};

// The MD5 of a whole file, read in pieces. Throws Error naming the file.
std::string md5_of_file(const std::string& path);

}  // namespace tricount
