// The block writer on several threads (issue 30): a block's checksum and row statistics
// computed on threads, and a streamed block's read-back (BlockStream::finish) checked and
// summed on threads, give the file of one thread, and a bad streamed block the same message:
// the first bad entry's, wherever it lies among the pieces.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>

#include "src/block_format.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

// One block of rows past 2^20 (two offsets pieces of the read-back) and neighbours past
// 3 * 2^20 (four pieces, the last short), with empty rows, rows of one and a long row.
CsrBlock big_block() {
  CsrBlock b;
  b.id = {0, 0};
  b.rows = (std::uint64_t{1} << 20) + 37;
  b.cols = b.rows;  // one class: the columns are the vertices
  std::mt19937_64 rng(11);
  b.offsets.assign(b.rows + 1, 0);
  std::vector<vid_t> neighbors;
  for (std::uint64_t r = 0; r < b.rows; ++r) {
    const std::uint64_t degree = r == 777777 ? 3000 : rng() % 7;
    vid_t v = static_cast<vid_t>(rng() % 5);
    for (std::uint64_t k = 0; k < degree; ++k, v += 1 + static_cast<vid_t>(rng() % 3)) neighbors.push_back(v);
    b.offsets[r + 1] = neighbors.size();
  }
  b.neighbors.assign(neighbors.begin(), neighbors.end());
  std::uint64_t longest = 0;
  for (std::uint64_t r = 0; r < b.rows; ++r) longest = std::max<std::uint64_t>(longest, b.offsets[r + 1] - b.offsets[r]);
  b.max_degree = static_cast<std::uint32_t>(longest);
  return b;
}

GraphHeader header_for(const CsrBlock& b) {
  GraphHeader h;
  h.parts = 1;
  h.vertices = b.rows;
  h.edges = b.nnz();
  return h;
}

// Writes `b` streamed in pieces of 100003 entries, with `damage` applied to copies of its
// arrays first, and finishes on `threads` threads: the stats, or the error's message from
// the block's name on (the temporary's name differs from run to run).
std::string stream_block(const CsrBlock& b, unsigned threads, const std::string& path,
                         BlockFileWriter::StreamedBlockStats* stats,
                         const std::function<void(BlockArray<eoff_t>&, BlockArray<vid_t>&)>& damage = {}) {
  BlockArray<eoff_t> offsets = b.offsets;
  BlockArray<vid_t> neighbors = b.neighbors;
  if (damage) damage(offsets, neighbors);
  BlockFileWriter w(path, header_for(b));
  auto s = w.begin_block(b.id, b.rows, b.cols, b.nnz());
  constexpr std::uint64_t kPiece = 100003;
  for (std::uint64_t at = 0; at < offsets.size(); at += kPiece)
    s.write_offsets(at, offsets.data() + at, std::min<std::uint64_t>(kPiece, offsets.size() - at));
  for (std::uint64_t at = 0; at < neighbors.size(); at += kPiece)
    s.write_neighbors(at, neighbors.data() + at, std::min<std::uint64_t>(kPiece, neighbors.size() - at));
  try {
    *stats = s.finish(threads);
  } catch (const Error& e) {
    const std::string what = e.what();
    return what.substr(std::min(what.size(), what.find("block P(")));
  }
  return "";
}

}  // namespace

TEST(BlockWriterThreads, StreamedAndWholeBlocksGiveOneChecksumOnAnyThreads) {
  TempDir dir;
  const CsrBlock b = big_block();
  ASSERT_GT(b.nnz(), std::uint64_t{3} << 20);
  const std::uint64_t want = b.checksum(1);
  EXPECT_EQ(b.checksum(8), want);
  EXPECT_EQ(b.rows_with_two(5), b.rows_with_two(1));
  for (unsigned threads : {1u, 3u, 8u}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    BlockFileWriter::StreamedBlockStats st;
    ASSERT_EQ(stream_block(b, threads, dir.file("s" + std::to_string(threads) + ".h5"), &st), "");
    EXPECT_EQ(st.checksum, want);
    EXPECT_EQ(st.nnz, b.nnz());
    EXPECT_EQ(st.max_degree, b.max_degree);
    EXPECT_EQ(st.rows_with_two, b.rows_with_two(1));
    // A whole block written with its figures computed on threads: the same attributes.
    const std::string whole = dir.file("w" + std::to_string(threads) + ".h5");
    BlockFileWriter w(whole, header_for(b));
    w.write_vertex_map(std::vector<raw_id_t>(b.rows, 0));
    w.write_block(b, threads);
    w.write_task_work({b.nnz()});
    w.commit();
    BlockFileReader reader(whole);
    EXPECT_EQ(reader.block_checksum(b.id), want);
    EXPECT_EQ(reader.read_block(b.id, threads).neighbors, b.neighbors);
  }
}

TEST(BlockWriterThreads, AStreamedBlocksFirstBadEntryIsNamedOnAnyThreads) {
  TempDir dir;
  const CsrBlock b = big_block();
  const std::uint64_t late_row = (std::uint64_t{1} << 20) + 5, early_row = 4321;
  const std::uint64_t late_neighbor = b.nnz() - 3, early_neighbor = (std::uint64_t{1} << 20) + 17;
  const std::vector<std::function<void(BlockArray<eoff_t>&, BlockArray<vid_t>&)>> damages = {
      // Offsets that decrease in the second piece and, earlier, in the first.
      [&](BlockArray<eoff_t>& o, BlockArray<vid_t>&) {
        o[late_row + 1] = o[late_row] - 1;
        o[early_row + 1] = o[early_row] - 1;
      },
      [](BlockArray<eoff_t>& o, BlockArray<vid_t>&) { o[0] = 1; },
      [](BlockArray<eoff_t>& o, BlockArray<vid_t>&) { o.back() += 1; },
      // Neighbours past the columns in the last piece and, earlier, in the second.
      [&](BlockArray<eoff_t>&, BlockArray<vid_t>& nb) {
        nb[late_neighbor] = 3000000;
        nb[early_neighbor] = 2000000;
      },
  };
  for (std::size_t d = 0; d < damages.size(); ++d) {
    SCOPED_TRACE("damage " + std::to_string(d));
    BlockFileWriter::StreamedBlockStats st;
    const std::string serial = stream_block(b, 1, dir.file("d1.h5"), &st, damages[d]);
    ASSERT_NE(serial, "");
    for (unsigned threads : {2u, 7u}) EXPECT_EQ(stream_block(b, threads, dir.file("dn.h5"), &st, damages[d]), serial);
    if (d == 0) EXPECT_NE(serial.find("offsets decrease at row " + std::to_string(early_row)), std::string::npos) << serial;
    if (d == 1) EXPECT_NE(serial.find("offsets[0] is not 0"), std::string::npos) << serial;
    if (d == 2) EXPECT_NE(serial.find("offsets end at"), std::string::npos) << serial;
    if (d == 3)
      EXPECT_NE(serial.find("neighbour 2000000 but the block has " + std::to_string(b.cols) + " columns"), std::string::npos)
          << serial;
  }
}
