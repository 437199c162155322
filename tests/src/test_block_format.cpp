#include <fcntl.h>
#include <sys/wait.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <random>

#include "partitioner/partition.hpp"
#include "worker/block_cache.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

// CSR blocks: most tests here look into the CSR datasets; packed blocks set their encoding.
PartitionedGraph random_blocks(std::uint32_t parts, std::uint64_t vertices, std::uint64_t edges, std::uint64_t seed) {
  PartitionOptions o;
  o.parts = parts;
  o.encoding = BlockEncoding::csr;
  return partition_edges(to_raw(random_graph(vertices, edges, seed)), o);
}

PartitionedGraph small_graph(std::uint32_t parts) { return random_blocks(parts, 200, 1500, 7); }

// Where a contiguous dataset's bytes start in the file.
haddr_t contiguous_offset(const std::string& path, const std::string& dataset) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t set = H5Dopen2(file, dataset.c_str(), H5P_DEFAULT);
  const haddr_t at = H5Dget_offset(set);
  H5Dclose(set);
  H5Fclose(file);
  if (at == HADDR_UNDEF) throw std::runtime_error(path + ": " + dataset + " is not contiguous");
  return at;
}

}  // namespace

TEST(BlockFormat, WriteThenReadGivesTheSameBlocks) {
  TempDir dir;
  for (std::uint32_t n : {1u, 2u, 3u}) {
    const PartitionedGraph g = small_graph(n);
    const std::string path = dir.file("g" + std::to_string(n) + ".h5");
    write_block_file(g, path);
    BlockFileReader reader(path);
    EXPECT_EQ(reader.header().parts, n);
    EXPECT_EQ(reader.header().vertices, g.header.vertices);
    EXPECT_EQ(reader.header().edges, g.header.edges);
    EXPECT_EQ(reader.header().ordering, "degree");
    EXPECT_EQ(reader.read_vertex_map(), g.vertex_map);
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = 0; j < n; ++j) {
        const CsrBlock b = reader.read_block({i, j});
        EXPECT_EQ(b.offsets, g.block(i, j).offsets);
        EXPECT_EQ(b.neighbors, g.block(i, j).neighbors);
        EXPECT_EQ(b.max_degree, g.block(i, j).max_degree);
        EXPECT_EQ(reader.block_nnz({i, j}), b.nnz());
      }
  }
}

TEST(BlockFormat, WriterWithoutCommitLeavesNothing) {
  TempDir dir;
  const PartitionedGraph g = small_graph(2);
  const std::string path = dir.file("never.h5");
  std::string temp;
  {
    BlockFileWriter w(path, g.header);
    temp = w.temp_path();
    w.write_vertex_map(g.vertex_map);
    w.write_block(g.blocks[0]);
    EXPECT_TRUE(std::filesystem::exists(temp));
    EXPECT_THROW(w.commit(), Error);  // blocks missing
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(temp));
}

TEST(BlockFormat, EmptyGraphRoundTrips) {
  TempDir dir;
  PartitionOptions o;
  o.parts = 3;
  const PartitionedGraph g = partition_edges(std::vector<RawEdge>{{5, 5}}, o);  // one self-loop
  EXPECT_EQ(g.header.vertices, 0u);
  EXPECT_EQ(g.header.edges, 0u);
  write_block_file(g, dir.file("empty.h5"));
  BlockFileReader reader(dir.file("empty.h5"));
  EXPECT_EQ(reader.read_block({2, 1}).rows, 0u);
}

TEST(BlockFormat, ValidateCatchesCorruptBlocks) {
  const PartitionedGraph g = small_graph(1);
  CsrBlock b = g.blocks[0];
  ASSERT_GT(b.nnz(), 2u);
  CsrBlock bad = b;
  bad.neighbors[0] = static_cast<vid_t>(bad.cols);
  EXPECT_THROW(validate_block(bad, "x.h5"), Error);
  bad = b;
  bad.offsets.back() += 1;
  EXPECT_THROW(validate_block(bad, "x.h5"), Error);
  bad = b;
  bad.max_degree += 1;
  try {
    validate_block(bad, "x.h5");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x.h5: block P(0,0)"), std::string::npos) << e.what();
  }
}

// The piecewise checksum: the same value computed at once, on several threads, or fed a
// slice at a time across piece boundaries.
TEST(BlockFormat, ArrayDigestIsTheSameOnThreadsAndInSlices) {
  std::mt19937_64 rng(3);
  std::vector<unsigned char> bytes(3 * kChecksumPieceBytes + 13);
  for (auto& b : bytes) b = static_cast<unsigned char>(rng());
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{8}, kChecksumPieceBytes - 1,
                        kChecksumPieceBytes, kChecksumPieceBytes + 1, bytes.size()}) {
    SCOPED_TRACE(n);
    const std::uint64_t want = array_digest(bytes.data(), n);
    EXPECT_EQ(array_digest(bytes.data(), n, 4), want);
    EXPECT_EQ(array_digest(bytes.data(), n, 64), want);
    ArrayDigestStream stream;
    for (std::size_t at = 0; at < n;) {
      const std::size_t take = std::min<std::size_t>(n - at, 1 + rng() % (kChecksumPieceBytes / 3 + 5));
      stream.add(bytes.data() + at, take);
      at += take;
    }
    EXPECT_EQ(stream.value(), want);
  }
  // Any change is seen: one bit, or the same bytes in another length.
  std::vector<unsigned char> other = bytes;
  other[kChecksumPieceBytes + 5] ^= 1;
  EXPECT_NE(array_digest(other.data(), other.size()), array_digest(bytes.data(), bytes.size()));
  EXPECT_NE(array_digest(bytes.data(), 16), array_digest(bytes.data(), 17));
}

// Parallel reads (pread of the contiguous datasets), validation and checksums give the same
// blocks as the serial path, and both catch a neighbour changed on disk that still leaves
// the block valid (only the checksum can see it).
TEST(BlockFormat, ParallelReadsGiveTheSameBlocksAndCatchCorruption) {
  TempDir dir;
  const PartitionedGraph g = random_blocks(2, 3000, 60000, 11);
  const std::string path = dir.file("g.h5");
  write_block_file(g, path);
  {
    BlockFileReader reader(path);
    for (std::uint32_t i = 0; i < 2; ++i)
      for (std::uint32_t j = 0; j < 2; ++j)
        for (unsigned threads : {1u, 3u, 8u}) {
          const CsrBlock b = reader.read_block({i, j}, threads);
          EXPECT_EQ(b.offsets, g.block(i, j).offsets);
          EXPECT_EQ(b.neighbors, g.block(i, j).neighbors);
          EXPECT_EQ(b.checksum(threads), g.block(i, j).checksum());
          // Mapped: the file's own bytes, the same block.
          const std::optional<MappedBlock> m = reader.map_block({i, j}, threads);
          ASSERT_TRUE(m.has_value());
          const CsrSpan& s = m->span();
          const CsrBlock& want = g.block(i, j);
          EXPECT_EQ(s.rows, want.rows);
          EXPECT_EQ(s.cols, want.cols);
          EXPECT_EQ(s.max_degree, want.max_degree);
          ASSERT_EQ(s.nnz, want.nnz());
          EXPECT_TRUE(std::equal(want.offsets.begin(), want.offsets.end(), s.offsets));
          EXPECT_TRUE(std::equal(want.neighbors.begin(), want.neighbors.end(), s.neighbors));
        }
  }
  corrupt_block_neighbors(path, {1, 0});  // validates, fails its checksum
  BlockFileReader reader(path);
  for (unsigned threads : {1u, 4u}) {
    SCOPED_TRACE(threads);
    for (bool mapped : {false, true}) {
      SCOPED_TRACE(mapped ? "map_block" : "read_block");
      try {
        if (mapped) reader.map_block({1, 0}, threads);
        else reader.read_block({1, 0}, threads);
        FAIL() << "expected a checksum mismatch";
      } catch (const Error& err) {
        EXPECT_NE(std::string(err.what()).find("block P(1,0): checksum mismatch"), std::string::npos) << err.what();
        EXPECT_NE(std::string(err.what()).find(path), std::string::npos) << err.what();
      }
    }
    EXPECT_EQ(reader.read_block({0, 1}, threads).neighbors, g.block(0, 1).neighbors);  // others still read
    EXPECT_TRUE(reader.map_block({0, 1}, threads).has_value());
  }
}

// Packed blocks (--block-encoding packed): the same blocks read back on any thread count, a
// version-3 file with each block's encoding, fewer bytes; not mapped (read_block decodes);
// a flipped word fails the checksum, which covers the stored bytes, before any decoding.
TEST(BlockFormat, PackedBlocksReadBackAsTheirCsr) {
  TempDir dir;
  PartitionedGraph g = random_blocks(3, 20000, 200000, 13);
  const std::string csr = dir.file("csr.h5"), packed = dir.file("packed.h5");
  write_block_file(g, csr);
  g.header.encoding = BlockEncoding::packed;
  write_block_file(g, packed);
  EXPECT_LT(std::filesystem::file_size(packed), std::filesystem::file_size(csr) * 3 / 4);
  {
    BlockFileReader reader(packed);
    for (std::uint32_t i = 0; i < 3; ++i)
      for (std::uint32_t j = 0; j < 3; ++j)
        for (unsigned threads : {1u, 4u}) {
          BlockReadTimes times;
          const CsrBlock b = reader.read_block({i, j}, threads, &times);
          EXPECT_EQ(b.offsets, g.block(i, j).offsets);
          EXPECT_EQ(b.neighbors, g.block(i, j).neighbors);
          EXPECT_EQ(b.max_degree, g.block(i, j).max_degree);
          EXPECT_GT(times.decode, 0.0);
          EXPECT_FALSE(reader.map_block({i, j}, threads).has_value());
        }
  }
  // The words of P(1,2): one bit flipped in the middle.
  const haddr_t at = contiguous_offset(packed, "/blocks/P_1_2/words");
  const std::uint64_t words = BlockFileReader(packed).block_nnz({1, 2}) / 4;  // fewer than the words: inside them
  const int fd = ::open(packed.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  std::uint32_t w = 0;
  const off_t middle = static_cast<off_t>(at + (words / 8) * 4);
  ASSERT_EQ(::pread(fd, &w, 4, middle), 4);
  w ^= 1u << 5;
  ASSERT_EQ(::pwrite(fd, &w, 4, middle), 4);
  ::close(fd);
  BlockFileReader reader(packed);
  try {
    reader.read_block({1, 2}, 2);
    FAIL() << "expected a checksum mismatch";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("block P(1,2): checksum mismatch"), std::string::npos) << err.what();
    EXPECT_NE(std::string(err.what()).find(packed), std::string::npos) << err.what();
  }
  EXPECT_EQ(reader.read_block({2, 1}).neighbors, g.block(2, 1).neighbors);  // others still read
}

// A block file cut short after it was opened: mapping the missing bytes would be a SIGBUS
// on first touch; it is an error naming the file and the block instead.
TEST(BlockFormat, MappingATruncatedFileIsAClearError) {
  TempDir dir;
  const PartitionedGraph g = random_blocks(2, 3000, 60000, 12);
  const std::string path = dir.file("g.h5");
  write_block_file(g, path);
  BlockFileReader reader(path);  // header and attributes read while the file is whole
  std::uint64_t last_end = 0;    // the block whose data ends last
  BlockId last{0, 0};
  {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    for (std::uint32_t i = 0; i < 2; ++i)
      for (std::uint32_t j = 0; j < 2; ++j) {
        const std::string name = "/blocks/P_" + std::to_string(i) + "_" + std::to_string(j) + "/neighbors";
        const hid_t set = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
        ASSERT_GE(set, 0);
        const std::uint64_t end = H5Dget_offset(set) + g.block(i, j).nnz() * sizeof(vid_t);
        if (end > last_end) last_end = end, last = BlockId{i, j};
        H5Dclose(set);
      }
    H5Fclose(f);
  }
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(last_end - 4096)), 0);
  try {
    reader.map_block(last, 4);
    FAIL() << "expected an error";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find(path), std::string::npos) << err.what();
    EXPECT_NE(std::string(err.what()).find("block " + block_name(last) + ": the file ends early"), std::string::npos)
        << err.what();
  }
}

// A defect found by the parallel row check gets the same message as the serial check.
TEST(BlockFormat, ParallelValidationReportsLikeTheSerialOne) {
  const PartitionedGraph g = small_graph(1);
  CsrBlock bad = g.blocks[0];
  ASSERT_GT(bad.nnz(), 2u);
  bad.neighbors.back() = static_cast<vid_t>(bad.cols);
  std::string serial, parallel;
  try {
    validate_block(bad, "x.h5", 1);
  } catch (const Error& e) {
    serial = e.what();
  }
  try {
    validate_block(bad, "x.h5", 5);
  } catch (const Error& e) {
    parallel = e.what();
  }
  EXPECT_FALSE(serial.empty());
  EXPECT_EQ(parallel, serial);
  EXPECT_NO_THROW(validate_block(g.blocks[0], "x.h5", 5));
}

namespace {

// Overwrites the uint64 attribute `name` of `object` (a path inside the file).
void set_u64_attribute(hid_t file, const char* object, const char* name, std::uint64_t value) {
  const hid_t obj = H5Oopen(file, object, H5P_DEFAULT);
  ASSERT_GE(obj, 0) << object;
  const hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
  ASSERT_GE(attr, 0) << object << " " << name;
  EXPECT_GE(H5Awrite(attr, H5T_NATIVE_UINT64, &value), 0) << object << " " << name;
  H5Aclose(attr);
  H5Oclose(obj);
}

// Replaces dataset `name` by one of `length` uint64 entries that is never written: HDF5
// stores no bytes for it and would read fill values.
void replace_with_unwritten_dataset(hid_t file, const char* name, std::uint64_t length) {
  ASSERT_GE(H5Ldelete(file, name, H5P_DEFAULT), 0);
  const hsize_t dims[1] = {length};
  const hid_t space = H5Screate_simple(1, dims, nullptr);
  const hid_t set = H5Dcreate2(file, name, H5T_STD_U64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(set, 0);
  H5Dclose(set);
  H5Sclose(space);
}

// Opens `path` and reads everything in it (header, vertex map, task work, every block)
// within 1 GiB of address space, then exits: 0 when an Error names the file and mentions
// `expect`, 1 on another error, 2 if there is none. Runs in the child of EXPECT_EXIT.
[[noreturn]] void read_everything_bounded(const std::string& path, const std::string& expect) {
  const struct rlimit limit{std::uint64_t{1} << 30, std::uint64_t{1} << 30};
  ::setrlimit(RLIMIT_AS, &limit);
  try {
    BlockFileReader reader(path);
    reader.read_vertex_map();
    reader.read_task_work();
    const std::uint32_t n = reader.header().parts;
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = 0; j < n; ++j) reader.read_block({i, j});
  } catch (const Error& e) {
    const std::string m = e.what();
    std::fprintf(stderr, "%s\n", m.c_str());
    std::_Exit(m.find(path) != std::string::npos && m.find(expect) != std::string::npos ? 0 : 1);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "not an Error: %s\n", e.what());
    std::_Exit(1);
  }
  std::_Exit(2);
}

void expect_bounded_read_error(const std::string& path, const std::string& expect) {
  EXPECT_EXIT(read_everything_bounded(path, expect), ::testing::ExitedWithCode(0), "") << path;
}

}  // namespace

// A crafted 1-part file claiming 20,000 parts used 6.3 GB before failing: the claim is
// checked against the file's size before anything is sized by it.
TEST(BlockFormat, PartsAttributeBeyondTheFileSizeIsRefusedBeforeAllocating) {
  TempDir dir;
  const std::string path = dir.file("parts.h5");
  write_block_file(small_graph(1), path);
  for (const std::uint64_t parts : {std::uint64_t{1000}, std::uint64_t{20000}, std::uint64_t{4294967298}}) {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    set_u64_attribute(f, "/", "parts", parts);
    ASSERT_GE(H5Fclose(f), 0);
    expect_bounded_read_error(path, std::to_string(parts) + " parts");
  }
}

// A file claiming 2^31 vertices, with datasets of that length that hold no bytes, asked for
// 16 GiB: every dataset's length is checked against the bytes the file stores.
TEST(BlockFormat, DatasetLengthsBeyondTheStoredBytesAreRefusedBeforeAllocating) {
  TempDir dir;
  const std::string path = dir.file("vertices.h5");
  write_block_file(small_graph(1), path);
  const std::uint64_t vertices = std::uint64_t{1} << 31;
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  set_u64_attribute(f, "/", "vertices", vertices);
  set_u64_attribute(f, "/blocks/P_0_0", "rows", vertices);
  set_u64_attribute(f, "/blocks/P_0_0", "cols", vertices);
  replace_with_unwritten_dataset(f, "/blocks/P_0_0/offsets", vertices + 1);
  replace_with_unwritten_dataset(f, "/vertex_map", vertices);
  ASSERT_GE(H5Fclose(f), 0);
  expect_bounded_read_error(path, "dataset 'offsets' claims 2147483649 entries");
  // The same for the vertex map alone (the block's offsets stored again).
  f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  set_u64_attribute(f, "/", "vertices", small_graph(1).header.vertices);
  set_u64_attribute(f, "/blocks/P_0_0", "rows", small_graph(1).header.vertices);
  set_u64_attribute(f, "/blocks/P_0_0", "cols", small_graph(1).header.vertices);
  ASSERT_GE(H5Ldelete(f, "/blocks/P_0_0/offsets", H5P_DEFAULT), 0);
  {
    const CsrBlock& b = small_graph(1).blocks[0];
    const hsize_t dims[1] = {b.offsets.size()};
    const hid_t space = H5Screate_simple(1, dims, nullptr);
    const hid_t set = H5Dcreate2(f, "/blocks/P_0_0/offsets", H5T_STD_U64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(H5Dwrite(set, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, b.offsets.data()), 0);
    H5Dclose(set);
    H5Sclose(space);
  }
  set_u64_attribute(f, "/", "vertices", small_graph(1).header.vertices);
  ASSERT_GE(H5Fclose(f), 0);
  expect_bounded_read_error(path, "dataset 'vertex_map' claims 2147483648 entries");
}

// "worker rank 0 failed on max_degree = ... does not fit in 32 bits" named neither the file
// nor the block: a corrupt max_degree is now an error that names both.
TEST(BlockFormat, CorruptMaxDegreeNamesTheFileAndBlock) {
  TempDir dir;
  const std::string path = dir.file("degree.h5");
  write_block_file(small_graph(1), path);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  set_u64_attribute(f, "/blocks/P_0_0", "max_degree", std::uint64_t{1} << 33);
  ASSERT_GE(H5Fclose(f), 0);
  const BlockFileReader reader(path);
  for (const bool mapped : {false, true}) {
    try {
      if (mapped) reader.map_block({0, 0});
      else reader.read_block({0, 0});
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("'" + path + "' block P(0,0): the max_degree attribute 8589934592"),
                std::string::npos) << e.what();
    }
  }
}

// Groups P_1_2 and P_2_1 swapped by hand were counted as they were named: 21419 triangles
// for CA-HepTh's 28339, even with --verify. Each group's classes are checked against its
// name, and graph_checksum against the blocks' checksums, when the file is opened.
TEST(BlockFormat, BlocksUnderAnotherNameOrAnEditedGraphChecksumAreRefused) {
  TempDir dir;
  const std::string good = dir.file("good.h5");
  write_block_file(small_graph(3), good);
  auto refused = [&](const std::string& path, const std::string& expect) {
    try {
      BlockFileReader reader(path);
      ADD_FAILURE() << path << ": no error";
    } catch (const Error& e) {
      EXPECT_TRUE(contains(e.what(), "'" + path + "'" + expect)) << e.what();
      EXPECT_TRUE(contains(e.what(), "re-run tricount-partition")) << e.what();
    }
  };
  const std::string swapped = dir.file("swapped.h5");
  std::filesystem::copy_file(good, swapped);
  swap_block_groups(swapped, {1, 2}, {2, 1});
  refused(swapped, " block P(1,2) says row_class 2, col_class 1: the file is damaged or was edited");
  for (const std::uint64_t row_class : {std::uint64_t{2}, std::uint64_t{7}}) {
    const std::string path = dir.file("row_class" + std::to_string(row_class) + ".h5");
    std::filesystem::copy_file(good, path);
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    set_u64_attribute(f, "/blocks/P_1_2", "row_class", row_class);
    ASSERT_GE(H5Fclose(f), 0);
    refused(path, " block P(1,2) says row_class " + std::to_string(row_class) + ", col_class 2");
  }
  const std::string checksum = dir.file("graph_checksum.h5");
  std::filesystem::copy_file(good, checksum);
  const hid_t f = H5Fopen(checksum.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  set_u64_attribute(f, "/", "graph_checksum", 1);
  ASSERT_GE(H5Fclose(f), 0);
  refused(checksum, ": graph_checksum 1 is not the digest of the blocks' checksums");
  EXPECT_NO_THROW(BlockFileReader{good});
}

// A root attribute stored as an array (h5py: f.attrs['parts'] = [4, 4]) was read into one
// value's buffer: a crash (SIGSEGV) or a cut message. Every attribute must hold one value.
TEST(BlockFormat, AttributesHoldingSeveralValuesAreRefusedBeforeTheyAreRead) {
  TempDir dir;
  const std::string good = dir.file("good.h5");
  write_block_file(small_graph(2), good);
  struct Case {
    const char* object;
    const char* name;
    std::uint64_t count;
  };
  for (const Case& c : {Case{"/", "parts", 2}, Case{"/", "edges", 2}, Case{"/", "format_version", 2},
                        Case{"/", "vertices", 1000}, Case{"/", "format", 2}, Case{"/", "ordering", 3},
                        Case{"/", "graph_checksum", 0}, Case{"/blocks/P_1_0", "nnz", 2},
                        Case{"/blocks/P_0_1", "row_class", 64}, Case{"/blocks/P_1_1", "max_degree", 2}}) {
    SCOPED_TRACE(std::string(c.object) + " " + c.name);
    const std::string path = dir.file("array.h5");
    std::filesystem::remove(path);
    std::filesystem::copy_file(good, path);
    make_attribute_an_array(path, c.object, c.name, c.count);
    expect_bounded_read_error(path, std::string("attribute '") + c.name + "' holds " + std::to_string(c.count) +
                                        " values, not one: the file is damaged or was edited");
  }
}

TEST(BlockFormat, ReaderNamesTheFileForMissingAndForeignFiles) {
  TempDir dir;
  try {
    BlockFileReader r(dir.file("nope.h5"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nope.h5"), std::string::npos);
  }
  write_text_edges(dir.file("text.h5"), {{1, 2}});
  try {
    BlockFileReader r(dir.file("text.h5"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("text.h5"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("not an HDF5 file"), std::string::npos) << e.what();
  }
}

// Blocks mapped from the file cost the worker's host cache nothing: with a budget far below
// the file every block is still read (mapped and checked) once; blocks read into memory
// are evicted to keep within the budget, and read again when needed.
TEST(BlockCache, MappedBlocksAreReadOnceWhateverTheBudget) {
  TempDir dir;
  const PartitionedGraph g = random_blocks(4, 3000, 60000, 13);
  const std::string path = dir.file("g.h5");
  write_block_file(g, path);
  std::uint64_t file_bytes = 0;
  for (const CsrBlock& b : g.blocks) file_bytes += b.bytes();
  BlockFileReader reader(path);
  for (bool map : {true, false}) {
    SCOPED_TRACE(map ? "mapped" : "read");
    BlockCache cache(reader, /*budget_bytes=*/1, /*threads=*/2, map);
    double seconds = 0;
    std::uint64_t bytes = 0;
    for (int round = 0; round < 2; ++round)
      for (std::uint32_t i = 0; i < 4; ++i)
        for (std::uint32_t j = 0; j < 4; ++j) {
          const auto b = cache.get({i, j}, seconds, bytes);
          EXPECT_EQ(b->mapped.has_value(), map);
          EXPECT_TRUE(std::equal(g.block(i, j).neighbors.begin(), g.block(i, j).neighbors.end(), b->view().neighbors));
        }
    EXPECT_EQ(bytes, map ? file_bytes : 2 * file_bytes);
    if (map) {
      EXPECT_EQ(cache.resident_bytes(), 0u);
    }
  }
}

// ------------------------------------------------------------------------------------
// Damaged metadata (issue 14, item 7): block files are written with checksummed HDF5
// metadata (superblock v3, object headers v2), so a flipped byte in the first 4 KB is a
// clean error or, where the byte is unused, a correct read; never a crash inside libhdf5.

namespace {

// How a child process that opened and read all of `path` ended.
enum class ReadOutcome { Correct, CleanError, OtherException, WrongContent, Crashed };

ReadOutcome read_in_child(const std::string& path, const GraphHeader& expected, int* signal_number) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::alarm(30);  // a hang ends as SIGALRM, which the parent counts as a crash
    int code = 0;
    try {
      BlockFileReader reader(path);
      const GraphHeader& h = reader.header();
      for (std::uint32_t i = 0; i < h.parts; ++i)
        for (std::uint32_t j = 0; j < h.parts; ++j) {
          reader.read_block({i, j});  // checks the block's checksum
          reader.map_block({i, j});
        }
      reader.read_vertex_map();
      reader.read_task_work();
      const bool same = h.parts == expected.parts && h.vertices == expected.vertices && h.edges == expected.edges &&
                        h.graph_checksum == expected.graph_checksum && h.max_degree == expected.max_degree;
      code = same ? 0 : 3;
    } catch (const Error&) {
      code = 1;
    } catch (...) {
      code = 2;
    }
    std::exit(code);  // HDF5's exit handlers run, as they do in the programs
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    *signal_number = WTERMSIG(status);
    return ReadOutcome::Crashed;
  }
  switch (WEXITSTATUS(status)) {
    case 0: return ReadOutcome::Correct;
    case 1: return ReadOutcome::CleanError;
    case 3: return ReadOutcome::WrongContent;
    default: return ReadOutcome::OtherException;
  }
}

}  // namespace

TEST(BlockFormat, WrittenWithChecksummedMetadata) {
  TempDir dir;
  const std::string path = dir.file("g.h5");
  write_block_file(small_graph(2), path);
  const std::string bytes = read_file(path);
  ASSERT_GT(bytes.size(), 9u);
  EXPECT_EQ(std::string(bytes.data(), 8), std::string("\x89HDF\r\n\x1a\n", 8));
  EXPECT_GE(static_cast<int>(bytes[8]), 2) << "superblock version " << int(bytes[8]) << " has no checksums";
}

TEST(BlockFormat, ByteFlipsInTheMetadataNeverCrashTheReader) {
  TempDir dir;
  const std::string path = dir.file("g.h5");
  const PartitionedGraph g = small_graph(2);
  write_block_file(g, path);
  const GraphHeader expected = BlockFileReader(path).header();
  const std::string original = read_file(path);
  const std::size_t span = std::min<std::size_t>(original.size(), 4096);
  std::mt19937_64 rng(14);
  std::map<ReadOutcome, int> outcomes;
  std::vector<std::string> failures;
  const std::string flipped = dir.file("flipped.h5");
  // One flip in every 8 bytes (at a random place in each): 512 children, every header hit.
  constexpr std::size_t kWindow = 8;
  std::size_t flips = 0;
  for (std::size_t window = 0; window < span; window += kWindow, ++flips) {
    const std::size_t at = std::min(span - 1, window + rng() % kWindow);
    std::string bytes = original;
    const unsigned char mask = static_cast<unsigned char>(1 + rng() % 255);  // never 0: the byte changes
    bytes[at] = static_cast<char>(static_cast<unsigned char>(bytes[at]) ^ mask);
    write_file(flipped, bytes);
    int sig = 0;
    const ReadOutcome outcome = read_in_child(flipped, expected, &sig);
    ++outcomes[outcome];
    if (outcome == ReadOutcome::Crashed)
      failures.push_back("byte " + std::to_string(at) + " ^ " + std::to_string(mask) + ": signal " + std::to_string(sig));
    else if (outcome == ReadOutcome::WrongContent || outcome == ReadOutcome::OtherException)
      failures.push_back("byte " + std::to_string(at) + " ^ " + std::to_string(mask) +
                         (outcome == ReadOutcome::WrongContent ? ": read without error but different" : ": not a tricount::Error"));
  }
  std::string all;
  for (const std::string& f : failures) all += "\n  " + f;
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << flips << " flips:" << all;
  EXPECT_GT(outcomes[ReadOutcome::CleanError], 0) << "no flip was detected at all";
}

TEST(BlockFormat, FilesWithOldMetadataStayReadable) {
  // Files written before the checksummed metadata (superblock v0, object headers v1), made
  // here by h5repack with the earliest low bound.
  if (!on_path("h5repack")) GTEST_SKIP() << "h5repack is not on PATH";
  TempDir dir;
  const PartitionedGraph g = small_graph(2);
  write_block_file(g, dir.file("new.h5"));
  const ProcessResult r = run_process({"h5repack", "--low=0", "--high=2", dir.file("new.h5"), dir.file("old.h5")}, 60);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  ASSERT_EQ(read_file(dir.file("old.h5"))[8], 0) << "h5repack did not write superblock version 0";
  BlockFileReader reader(dir.file("old.h5"));
  EXPECT_EQ(reader.header().graph_checksum, BlockFileReader(dir.file("new.h5")).header().graph_checksum);
  EXPECT_EQ(reader.read_vertex_map(), g.vertex_map);
  for (std::uint32_t i = 0; i < 2; ++i)
    for (std::uint32_t j = 0; j < 2; ++j) EXPECT_EQ(reader.read_block({i, j}).neighbors, g.block(i, j).neighbors);
}
