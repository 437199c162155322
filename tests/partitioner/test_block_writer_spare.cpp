// The write stage's writer thread (partitioner/block_writer_thread.hpp) hands a written
// block's storage back for the next block (take_spare): the arrays a file's writer leaves are
// kept, at most one block's, the larger; an output that keeps the block (a graph in memory)
// leaves nothing; a block whose write failed is not kept, and its error comes back.
#include <gtest/gtest.h>

#include <vector>

#include "partitioner/block_writer_thread.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::pipeline;

namespace {

// Writes nothing and leaves the block's arrays (as FileOutput does); or keeps the block (as
// GraphOutput does); the third block fails when `fail` is set.
class RecordingOutput final : public BlockOutput {
 public:
  explicit RecordingOutput(bool keep, bool fail = false) : keep_(keep), fail_(fail) {}
  void open(const GraphHeader&) override {}
  void vertex_map(std::vector<raw_id_t>) override {}
  void degrees(std::vector<std::uint32_t>) override {}
  void block(CsrBlock& block) override {
    if (fail_ && ++blocks_ == 3) throw Error("cannot write block 3 (test)");
    if (keep_) kept.push_back(std::move(block));
  }
  BlockFileWriter* file() override { return nullptr; }
  void task_work(std::vector<std::uint64_t>) override {}
  void commit(std::uint64_t) override {}
  std::vector<CsrBlock> kept;

 private:
  bool keep_, fail_;
  int blocks_ = 0;
};

CsrBlock block_of(std::uint64_t rows, std::uint64_t nnz) {
  CsrBlock b;
  b.rows = rows;
  b.cols = rows;
  b.offsets.assign(rows + 1, 0);
  b.offsets[rows] = nnz;
  b.neighbors.assign(nnz, 0);
  return b;
}

}  // namespace

TEST(BlockWriterSpare, AWrittenBlocksArraysComeBackTheLargerKept) {
  RecordingOutput out(false);
  BlockWriterThread writer(out);
  EXPECT_EQ(writer.take_spare().neighbors.capacity(), 0u) << "nothing written yet";
  CsrBlock small = block_of(10, 100), large = block_of(1000, 50000);
  const vid_t* large_data = large.neighbors.data();
  writer.push(std::move(small));
  writer.push(std::move(large));
  writer.push(block_of(5, 7));
  writer.drain();
  CsrBlock spare = writer.take_spare();
  EXPECT_EQ(spare.neighbors.data(), large_data) << "the largest written block's storage";
  EXPECT_GE(spare.neighbors.capacity(), 50000u);
  EXPECT_GE(spare.offsets.capacity(), 1001u);
  EXPECT_EQ(writer.take_spare().neighbors.capacity(), 0u) << "one spare, taken once";
}

TEST(BlockWriterSpare, AnOutputThatKeepsTheBlockLeavesNoSpare) {
  RecordingOutput out(true);
  BlockWriterThread writer(out);
  writer.push(block_of(10, 100));
  writer.drain();
  EXPECT_EQ(writer.take_spare().neighbors.capacity(), 0u);
  ASSERT_EQ(out.kept.size(), 1u);
  EXPECT_EQ(out.kept[0].nnz(), 100u) << "the kept block is whole";
}

TEST(BlockWriterSpare, AFailedWritesBlockIsNotKeptAndItsErrorComesBack) {
  RecordingOutput out(false, true);
  BlockWriterThread writer(out);
  writer.push(block_of(10, 100));
  writer.push(block_of(10, 200));
  writer.drain();
  writer.push(block_of(10, 5000));  // the third: fails
  EXPECT_THROW(writer.drain(), Error);
  const CsrBlock spare = writer.take_spare();
  EXPECT_GE(spare.neighbors.capacity(), 200u) << "the written blocks' larger";
  EXPECT_LT(spare.neighbors.capacity(), 5000u) << "not the failed one";
}
