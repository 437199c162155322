// The partitioned graph on disk: one self-describing HDF5 file holding n x n CSR blocks.
// The schema is documented in README.md ("HDF5 block file"); this is its only reader and
// writer, and both check it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/block_memory.hpp"
#include "src/checksum.hpp"
#include "src/task_plan.hpp"
#include "src/types.hpp"

namespace tricount {

inline constexpr const char* kBlockFormatName = "tricount-blocks";
// Version 2: block checksums over 1 MiB pieces (checksum.hpp), so that readers check them
// in parallel. Version 3: each block says its encoding (attribute "encoding": "csr", the
// offsets and neighbours of version 2, or "packed", src/packed_block.hpp); files whose blocks
// are all CSR are still written as version 2, which older readers take. Version 1 files are
// refused with a message to re-run tricount-partition.
inline constexpr std::uint32_t kBlockFormatVersion = 3;
inline constexpr std::uint32_t kCsrBlockFormatVersion = 2;

// How write_block stores a block's rows.
enum class BlockEncoding { csr, packed };

struct GraphHeader {
  std::uint32_t parts = 1;            // n
  std::uint64_t vertices = 0;         // |V| after cleaning (isolated vertices dropped)
  std::uint64_t edges = 0;            // |E|: undirected edges, each stored once (oriented)
  std::string ordering = "degree";    // the reordering step that produced the ids
  std::string source_file;            // input path as given
  std::uint64_t source_size = 0;      // input size in bytes (0 for generated input)
  std::string source_md5;             // md5sum lines of the input files (WebGraph), "" for other inputs
  std::uint64_t input_edges = 0;      // edges read, before cleaning
  std::uint64_t max_degree = 0;       // largest oriented out-degree over all blocks' rows
  std::uint64_t graph_checksum = 0;   // checksum of all blocks' checksums (set by the writer)
  // The exact triangle count known before the graph was generated (a Kronecker product's
  // closed form, input/kronecker_product.hpp), when the input came with one.
  std::optional<std::uint64_t> known_triangles;
  // What BlockFileWriter::write_block stores (blocks streamed in pieces are CSR; the
  // partitioner packs a block too large for memory a window at a time, allocate_packed_block).
  BlockEncoding encoding = BlockEncoding::csr;
};

// Bytes of a block's CSR arrays: rows + 1 offsets and nnz neighbours.
inline std::uint64_t csr_bytes(std::uint64_t rows, std::uint64_t nnz) { return (rows + 1) * sizeof(eoff_t) + nnz * sizeof(vid_t); }

// A block's shape and arrays wherever they live (a CsrBlock's vectors, a mapped file).
struct CsrSpan {
  BlockId id;
  std::uint64_t rows = 0, cols = 0;
  std::uint32_t max_degree = 0;
  const eoff_t* offsets = nullptr;   // rows + 1
  const vid_t* neighbors = nullptr;  // nnz
  std::uint64_t nnz = 0;
  std::uint64_t bytes() const { return csr_bytes(rows, nnz); }
  std::uint64_t rows_with_two(unsigned threads = 1) const;  // rows with at least two neighbours
  std::uint64_t checksum(unsigned threads = 1) const;       // of shape, offsets and neighbours (block_checksum)
};

// One block P(i,j) in host memory: a CSR over the rows of class i (local row r is global
// vertex r*n + i), neighbour ids local to class j (global y is stored as y / n), each row's
// neighbours sorted ascending.
struct CsrBlock {
  BlockId id;
  std::uint64_t rows = 0;                // rows of class i
  std::uint64_t cols = 0;                // vertices of class j (bound on neighbour ids)
  std::uint32_t max_degree = 0;          // longest row
  BlockArray<eoff_t> offsets;            // rows + 1 entries, offsets[0] == 0
  BlockArray<vid_t> neighbors;           // offsets[rows] entries
  std::uint64_t nnz() const { return neighbors.size(); }
  std::uint64_t rows_with_two(unsigned threads = 1) const;  // rows with at least two neighbours
  std::uint64_t checksum(unsigned threads = 1) const;  // of shape, offsets and neighbours (block_checksum)
  std::uint64_t bytes() const { return offsets.size() * sizeof(eoff_t) + neighbors.size() * sizeof(vid_t); }
  CsrSpan span() const;
};

// "P(i,j)" as messages and the HDF5 group name spell it.
std::string block_name(const BlockId& id);
// The block's HDF5 group in the file, "/blocks/P_i_j".
std::string block_group_path(const BlockId& id);

// Checks a block's invariants (offsets start at 0, never decrease, end at nnz; neighbours
// below cols and strictly increasing within a row; max_degree right). Throws Error naming
// `where` and the block. With threads > 1 the rows are checked in parallel (the message
// for a bad block is the same).
void validate_block(const CsrBlock& block, const std::string& where, unsigned threads = 1);
void validate_block(const CsrSpan& block, const std::string& where, unsigned threads = 1);

// A block whose arrays are the block file's own bytes, mapped read-only (see
// BlockFileReader::map_block). Unmapped when the last copy goes.
class MappedBlock {
 public:
  const CsrSpan& span() const { return span_; }

 private:
  friend class BlockFileReader;
  CsrSpan span_;
  std::shared_ptr<void> offsets_map_, neighbors_map_;
};

// A packed block (encoding "packed") as stored, for a reader that decodes it elsewhere (the
// CUDA backend, on the GPU): its group index and words, and the figures a plan needs without
// decoding. The words are mapped from the file where they lie aligned (else read), the index
// is read (16 bytes per 128 rows). Unmapped when the last copy goes.
class MappedPackedBlock {
 public:
  const CsrSpan& shape() const { return shape_; }  // id, rows, cols, nnz, max_degree; no arrays
  const std::uint64_t* index() const { return index_; }       // 2 (groups + 1)
  const std::uint32_t* words() const { return words_; }
  std::uint64_t word_count() const { return word_count_; }
  std::uint64_t nonempty_rows() const { return nonempty_rows_; }
  std::uint64_t stored_bytes() const;

 private:
  friend class BlockFileReader;
  CsrSpan shape_;
  const std::uint64_t* index_ = nullptr;
  const std::uint32_t* words_ = nullptr;
  std::uint64_t word_count_ = 0, nonempty_rows_ = 0;
  std::shared_ptr<std::vector<std::uint64_t>> index_copy_;
  std::shared_ptr<BlockArray<std::uint32_t>> words_copy_;
  std::shared_ptr<void> words_map_;
};

// Writes to a temporary beside `path` (output::OutputFile: "PATH.tmp.tricount-HOST-PID-RANDOM",
// created exclusively) and renames it to `path` only in commit(); a writer destroyed without
// commit() (an exception, a signal) removes its temporary file, so an output that exists
// under the final name is always complete. `path` must be a regular file (or new).
// Every path writes the same file for the same data: each block's group and datasets (placed
// when created) in the order the blocks come, its attributes at commit().
class BlockFileWriter {
 public:
  BlockFileWriter(const std::string& path, const GraphHeader& header);
  ~BlockFileWriter();
  BlockFileWriter(const BlockFileWriter&) = delete;
  BlockFileWriter& operator=(const BlockFileWriter&) = delete;

  void write_vertex_map(const std::vector<raw_id_t>& new_to_input);  // |V| entries
  // Each vertex's undirected degree after cleaning (|V| entries, by id), with one checksum per
  // vertex class: what --per-vertex needs without a pass over every block. Optional: files
  // without it are read as before (the degrees are then counted from the blocks).
  void write_degrees(const std::vector<std::uint32_t>& degrees);
  // Its checksum and row statistics are computed on up to `threads` threads.
  void write_block(const CsrBlock& block, unsigned threads = 1);
  // The same from arrays held elsewhere.
  void write_block(const CsrSpan& block, unsigned threads = 1);
  // Estimated work of each subtask (i, j, k), indexed (i * n + j) * n + k: the 2-hop probes
  // plus the table insertions. The scheduler hands out the costliest first.
  void write_task_work(const std::vector<std::uint64_t>& work);
  void commit();  // checks every block was written, flushes, closes, renames

  const std::string& path() const;  // the output, as given
  const std::string& temp_path() const;
  // Seconds write_block has spent writing blocks, and of those, starting the disk's writeback.
  std::pair<double, double> block_write_seconds() const;

  // --- Streaming writes, for blocks too large for memory (runs on disk) ---
  // The same group, datasets and attributes as write_block, filled in pieces.
  struct StreamedBlockStats {
    std::uint64_t nnz = 0;
    std::uint64_t rows_with_two = 0;
    std::uint64_t checksum = 0;
    std::uint32_t max_degree = 0;
  };
  class BlockStream {
   public:
    BlockStream(BlockStream&&) noexcept;
    BlockStream& operator=(BlockStream&&) noexcept;
    ~BlockStream();
    // Entries [first, first + count) of the offsets (rows + 1) or neighbours (nnz) dataset.
    // Pieces may come in any order and from several threads; together they must cover both
    // datasets exactly once.
    void write_offsets(std::uint64_t first, const eoff_t* data, std::size_t count);
    void write_neighbors(std::uint64_t first, const vid_t* data, std::size_t count);
    // Reads both datasets back (in bounded pieces, checked and summed on up to `threads`
    // threads) to check the offsets and compute max_degree, rows_with_two and the checksum
    // (equal to CsrBlock::checksum() of the same data), writes the attributes and counts the
    // block as written.
    StreamedBlockStats finish(unsigned threads = 1);

   private:
    friend class BlockFileWriter;
    struct Impl;
    explicit BlockStream(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
  };
  // Creates block id's group and its datasets at their final sizes.
  BlockStream begin_block(const BlockId& id, std::uint64_t rows, std::uint64_t cols, std::uint64_t nnz);
  // Rewrites the header's max_degree attribute (known only once every block is built).
  void set_max_degree(std::uint64_t max_degree);

  // --- Blocks whose data other processes write (partitioning on several ranks) ---
  // Creates block id's group and datasets, as write_block would, and returns where in the
  // temporary file its offsets and neighbours start (UINT64_MAX for an empty one): the
  // callers write their bytes there (pwrite) and report the block with block_written.
  std::pair<std::uint64_t, std::uint64_t> allocate_block(const BlockId& id, std::uint64_t rows, std::uint64_t cols,
                                                         std::uint64_t nnz);
  // The same for a packed block (packed_block.hpp) of `words` words: where its group index and
  // its words start.
  std::pair<std::uint64_t, std::uint64_t> allocate_packed_block(const BlockId& id, std::uint64_t rows, std::uint64_t cols,
                                                                std::uint64_t nnz, std::uint64_t words);
  // The figures of a block made with allocate_block or allocate_packed_block, once its bytes are in the file.
  void block_written(const BlockId& id, std::uint32_t max_degree, std::uint64_t rows_with_two, std::uint64_t checksum);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Where a block read spends its time (BlockFileReader::read_block), summed over reads.
struct BlockReadTimes {
  double metadata = 0;  // HDF5 group, attributes and dataset layouts
  double read = 0;      // bytes from the file (and, for contiguous datasets, their checksums)
  double validate = 0;  // validate_block
  double checksum = 0;  // the block checksum against the file's
  double decode = 0;    // packed blocks: their rows decoded (unpack_block)
  double total() const { return metadata + read + validate + checksum + decode; }
  BlockReadTimes& operator+=(const BlockReadTimes& o) {
    metadata += o.metadata, read += o.read, validate += o.validate, checksum += o.checksum, decode += o.decode;
    return *this;
  }
};

// Opens and checks a block file (format name, version, n, |V|, every block's presence and
// sizes). Reading a block validates it. Errors name the file and the block.
class BlockFileReader {
 public:
  explicit BlockFileReader(const std::string& path);
  ~BlockFileReader();
  BlockFileReader(const BlockFileReader&) = delete;
  BlockFileReader& operator=(const BlockFileReader&) = delete;

  const GraphHeader& header() const;
  const std::string& path() const;
  // Reads, validates and checks block P(i,j); threads > 1 reads contiguous datasets with
  // parallel pread() and validates and checksums in parallel (the same block either way).
  // Adds the time of each step to *times when given.
  CsrBlock read_block(const BlockId& id, unsigned threads = 1, BlockReadTimes* times = nullptr) const;
  // Block P(i,j) without a copy: its two datasets are mapped from the file (mmap, shared
  // read-only), then validated and checksummed like read_block, on up to `threads` threads.
  // The pages are the page cache's, shared by every worker of the node, and nothing is
  // copied or zero-filled. Returns nullopt where a dataset is not stored as plain
  // contiguous, aligned bytes, and for packed blocks (read_block decodes those). The file must not be changed in
  // place while mapped (tricount-partition never does: it writes a new file and renames).
  // With check = false the bytes are mapped but not checked: the caller must either call
  // check_mapped on them or know that a worker of this node checked the same pages
  // (worker/block_cache.hpp, NodeBlockChecks) before using them.
  std::optional<MappedBlock> map_block(const BlockId& id, unsigned threads = 1, BlockReadTimes* times = nullptr,
                                       bool check = true) const;
  // Whether block P(i,j) is stored packed (format version 3, encoding "packed").
  bool is_packed(const BlockId& id) const;
  // Its arrays' bytes as stored (a packed block's index and words; else csr_bytes).
  std::uint64_t block_stored_bytes(const BlockId& id) const;
  // A packed block's stored arrays (not decoded), checked against the block checksum and for
  // a consistent group index (each group's words and edges inside the block's); the decoder
  // (worker/cuda/unpack.cuh) guards the rest. nullopt for a CSR block.
  std::optional<MappedPackedBlock> map_packed(const BlockId& id, unsigned threads = 1, BlockReadTimes* times = nullptr) const;
  // The checks of map_block (checksum against the file's, validate_block); throws Error
  // naming the file and the block.
  void check_mapped(const MappedBlock& block, unsigned threads = 1, BlockReadTimes* times = nullptr) const;
  // Device and inode of the file this reader opened (not of whatever the path names now):
  // readers of one node with equal ones map the very same page-cache pages.
  std::pair<std::uint64_t, std::uint64_t> opened_inode() const;
  std::uint64_t block_nnz(const BlockId& id) const;  // from the attributes, no data read
  std::uint64_t block_csr_bytes(const BlockId& id) const;  // its CSR in memory (csr_bytes), no data read
  std::vector<raw_id_t> read_vertex_map() const;
  // The input ids of class c's vertices only (global ids c, c + n, c + 2n, ...), in that order.
  // A contiguous dataset is mapped and gathered on `threads` threads without the HDF5 lock
  // (the count's own HDF5 calls do not wait for it); another layout goes through HDF5.
  std::vector<raw_id_t> read_vertex_map_class(std::uint32_t c, unsigned threads = 1) const;
  // Whether the file stores the degrees (BlockFileWriter::write_degrees; older files do not).
  bool has_degrees() const;
  // The degrees of class c's vertices (ids c, c + n, ...), checked against the class's
  // checksum (Error naming the file and the class when they differ); read as the ids are.
  std::vector<std::uint64_t> read_degrees_class(std::uint32_t c, unsigned threads = 1) const;
  // The per-subtask work estimates (n^3 entries), or empty if the file has none.
  std::vector<std::uint64_t> read_task_work() const;
  std::uint64_t block_checksum(const BlockId& id) const;  // from the attributes

 private:
  struct Placement;
  Placement place_block(const BlockId& id, bool raw) const;
  int raw_fd_locked() const;  // under the HDF5 lock: the descriptor for pread and mmap, or -1
  template <class T>
  std::vector<T> read_class(const char* name, std::uint32_t c, unsigned threads) const;  // a root dataset's class c
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tricount
