// The partition pipeline's shared state, inside partitioner/ only: class Pipeline, whose
// member functions are the stages of pipeline.hpp, one file each, and the state that passes
// from stage to stage (the runs, the vertex arrays, the per-block files). Its run() (in
// pipeline_state.cpp, with the budget helpers the stages share) calls the stages in order;
// partition.cpp's entry points make one and run it.
//
//   stage_read.cpp      read      input -> sorted runs of canonical pairs
//   stage_clean.cpp     clean     runs -> unique edges (one run), distinct input ids
//   stage_degrees.cpp   degrees   degrees of the compact ids, the input id -> compact id index
//   stage_reorder.cpp   orient, reorder, map   new ids and the vertex map
//   stage_blocks.cpp    blocks    oriented edges -> sorted segments per block
//   stage_write.cpp     write     segments -> each block's CSR -> the output
//   stage_estimate.cpp  estimate  /task_work from the write stage's row degrees and column counts
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "partitioner/id_index.hpp"
#include "partitioner/pipeline.hpp"
#include "partitioner/progress.hpp"
#include "partitioner/run_files.hpp"
#include "partitioner/vertex_array.hpp"

namespace tricount::pipeline {

using runs::FilePool;
using runs::FileWriter;
using runs::MergeRange;
using runs::Run;
using runs::RunCursor;
using runs::Span;

inline constexpr std::size_t kMinIo = std::size_t{64} << 10;
inline constexpr std::size_t kMaxIo = std::size_t{4} << 20;
// A merge's cursors read at most 512 KiB at a time: Kronecker 26's clean stage (258 runs, 16
// threads) took 15.4 s with 2 MiB per cursor (--memory-budget 16G: 8 GB of cursor buffers)
// and 13.9 s with 0.5 MiB (4G), on the GPU host.
inline constexpr std::size_t kMaxCursorIo = std::size_t{512} << 10;
// Runs of 2^22 edges: Kronecker 26 makes 256 and a few; with a cap of 256 those took a second
// merge pass over all the edges (17 GB more read and written; measured on the GPU host).
inline constexpr std::size_t kMaxFanin = 1024;

struct EdgeLess {
  bool operator()(const RawEdge& a, const RawEdge& b) const { return a.u != b.u ? a.u < b.u : a.v < b.v; }
};
struct KeyLess {
  bool operator()(std::uint64_t a, std::uint64_t b) const { return a < b; }
};
struct Same {
  template <class T>
  T operator()(const T& x) const { return x; }
};
struct RowStart {  // a cut between blocks' rows never splits a row
  std::uint64_t operator()(std::uint64_t key) const { return key & ~std::uint64_t{0xFFFFFFFF}; }
};

// Edge records of the runs: 64-bit keys u << 32 | v when every id is below 2^32 (8 bytes an
// edge), else 16-byte pairs; both ordered by (u, v).
inline raw_id_t first_of(const RawEdge& e) { return e.u; }
inline raw_id_t second_of(const RawEdge& e) { return e.v; }
inline raw_id_t first_of(std::uint64_t key) { return key >> 32; }
inline raw_id_t second_of(std::uint64_t key) { return key & 0xFFFFFFFFu; }
template <class T>
using LessOf = std::conditional_t<std::is_same_v<T, RawEdge>, EdgeLess, KeyLess>;

class Pipeline {
 public:
  // `runs_in_memory`: the runs are memory files, and half the budget is left for them.
  Pipeline(const PartitionOptions& options, const PipelineTuning& tuning, Progress& progress, bool runs_in_memory);
  // Every stage in order, into `out`.
  PipelineReport run(EdgeSource& source, BlockOutput& out, const std::string& source_file, std::uint64_t source_size);
  // The read, clean and degrees stages alone: the cleaned graph (for tests and tools).
  CleanGraph clean_only(EdgeSource& source);

 private:
  // ---- the stages, in order ------------------------------------------------------------
  void read(EdgeSource& source, const std::string& source_file);  // stage_read.cpp
  void clean();                                                    // stage_clean.cpp
  void degrees();                                                  // stage_degrees.cpp
  void reorder();                                                  // stage_reorder.cpp
  void write_vertex_map(BlockOutput& out);                         // stage_reorder.cpp (and the degrees)
  void keep_new_degrees();                                         // stage_reorder.cpp
  void blocks();                                                   // stage_blocks.cpp
  void write_blocks(BlockOutput& out);                             // stage_write.cpp
  void estimate(BlockOutput& out);                                 // stage_estimate.cpp

  // ---- within one stage ----------------------------------------------------------------
  void widen_key_runs();  // clean
  template <class T>
  void clean_as(std::vector<Run> input_runs);  // clean, over runs of records T
  void check_vertex_count() const;              // clean
  template <class Fn>
  void for_each_oriented(Fn fn);  // reorder (collective): fn(x, y) for every oriented edge x -> y

  // ---- shared by the stages (pipeline_state.cpp, stage_degrees.cpp) ---------------------
  std::size_t max_fanin() const;
  std::size_t cursor_bytes(std::size_t runs, unsigned threads) const;
  // Throws when `vertex_bytes` of vertex arrays plus the stage's minimum buffers exceed the budget.
  void require_vertex_memory(std::uint64_t vertex_bytes, const char* what) const;
  void remove_mine(const std::vector<Run>& runs, const std::vector<bool>& mine);
  // The index from input ids to compact ids, rebuilt from the input ids on disk when the
  // degrees stage dropped it.
  void ensure_index();
  std::uint64_t index_bytes() const;

  // Calls fn(T{}) with the record type of the unique edges: packed keys or pairs.
  template <class Fn>
  void for_each_unique(Fn fn) {
    if (packed_) fn(std::uint64_t{});
    else fn(RawEdge{});
  }
  // The orientation: from lower to higher (degree, compact id).
  bool lower(vid_t a, vid_t b) const { return degree_[a] != degree_[b] ? degree_[a] < degree_[b] : a < b; }

  // Merges `group` into one run (one file per thread), dropping duplicates when `dedup`.
  template <class T, class Less>
  Run merge_to_run(const std::vector<Run>& group, bool dedup, const char* stem, Less less) {
    std::vector<Span> parts(threads_);
    runs::parallel_merge<T>(pool_, group, threads_, cursor_bytes(group.size(), threads_), less, Same{},
                           [&](const MergeRange<T>& range, runs::MergeStream<T, Less>& stream) {
                             FileWriter out(scratch_.new_file(stem), io_);
                             std::uint64_t n = 0;
                             T x, last{};
                             bool have = false;
                             while (stream.next(x)) {
                               if (dedup && have && !less(last, x)) continue;
                               out.put(x);
                               last = x;
                               have = true;
                               ++n;
                             }
                             out.close();
                             parts[range.part] = Span{out.path(), 0, n};
                           });
    Run run;
    for (Span& s : parts) run.append(std::move(s));
    return run;
  }

  // Merges groups of runs until at most max_fanin are left. `owned`: the inputs' files may
  // be deleted once merged. Returns the runs and, for each, whether its files are to be
  // deleted by the caller after use.
  template <class T, class Less>
  std::pair<std::vector<Run>, std::vector<bool>> reduce_fanin(std::vector<Run> runs, bool owned, bool dedup,
                                                             const char* stem, Less less) {
    std::vector<bool> mine(runs.size(), owned);
    const std::size_t fanin = max_fanin();
    while (runs.size() > fanin) {
      ++report_.merge_passes;
      std::vector<Run> next;
      std::vector<bool> next_mine;
      for (std::size_t g = 0; g < runs.size(); g += fanin) {
        const std::size_t end = std::min(runs.size(), g + fanin);
        if (end - g == 1) {
          next.push_back(runs[g]);
          next_mine.push_back(mine[g]);
          continue;
        }
        std::vector<Run> group(runs.begin() + g, runs.begin() + end);
        next.push_back(merge_to_run<T>(group, dedup, stem, less));
        next_mine.push_back(true);
        std::vector<Run> done;
        for (std::size_t r = g; r < end; ++r)
          if (mine[r]) done.push_back(runs[r]);
        runs::remove_run_files(done, pool_, threads_);
      }
      runs = std::move(next);
      mine = std::move(next_mine);
    }
    return {std::move(runs), std::move(mine)};
  }

  const PartitionOptions& o_;
  const PipelineTuning& tune_;
  Progress& progress_;
  unsigned threads_;
  std::uint64_t budget_;       // --memory-budget: decides what must fit (vertex arrays)
  std::uint64_t work_budget_;  // what the stages' buffers may use (the budget less the runs' share)
  std::size_t io_;
  runs::ScratchDir scratch_;
  FilePool pool_;
  PipelineReport report_;

  // read -> clean
  std::uint64_t input_edges_ = 0;
  raw_id_t max_raw_id_ = 0;
  std::vector<Run> key_runs_;   // the read stage's runs of packed keys
  std::vector<Run> edge_runs_;  // and of pairs (some id of 2^32 or more)
  // clean -> degrees, reorder, blocks
  Run unique_edges_;
  bool packed_ = false;  // unique_edges_ are packed keys (else pairs)
  VertexArray<std::uint32_t> raw_degree_;  // per input id, when counted in the clean stage
  std::uint64_t vertices_ = 0, edges_ = 0;
  VertexArray<raw_id_t> input_id_;
  // degrees -> reorder, map, blocks
  std::optional<IdIndex> index_;  // input id -> compact id (composed: -> new id)
  std::string ids_file_;          // the input ids, on disk until the vertex map is written
  VertexArray<vid_t> degree_, new_id_;
  std::vector<std::uint32_t> new_degree_;  // reorder -> map: the degrees by new id, stored in the file
  VertexOrder order_ = VertexOrder::Degree;
  // blocks -> write, estimate
  std::vector<std::vector<Run>> block_segments_;
  std::vector<std::uint64_t> block_nnz_;
  std::set<std::string> bucket_files_;
  // write -> estimate
  std::vector<std::string> row_degree_files_, col_count_files_;
  std::uint64_t max_degree_ = 0;
};

}  // namespace tricount::pipeline
