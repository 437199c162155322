// The task plan: which blocks a task needs, and task id <-> (i, j, k, s). Words used one
// way throughout (README, --help, code): a subtask is a block triple (i, j, k), one of n^3;
// a task (i, j, k, s) is one of its m workload splits, the unit that is scheduled, counted
// and journaled (n^3 * m task ids).
//
// With n parts, vertex x belongs to class x mod n. An oriented triangle u -> v -> w with
// u -> w has u in class i, v in class j, w in class k, so it is found exactly once, by
// subtask (i, j, k), from the three blocks
//   P(i,k): each row u gives the neighbours hashed into u's table,
//   P(i,j): each row u gives the 1-hop neighbours v,
//   P(j,k): each row v gives the 2-hop neighbours w, probed in u's table.
// Workload splits divide the rows u of class i into m disjoint parts by a hash of the
// local row id, so one subtask (i, j, k) becomes m tasks of similar work.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/types.hpp"

namespace tricount {

// Most parts (n) a graph may be split into: n^2 blocks (HDF5 groups of about 2.4 KiB each,
// 2.5 GB at this limit) and n^3 subtasks (a billion). The one limit of tricount-partition,
// the block file reader and the task plan, all checked by check_parts.
inline constexpr std::uint32_t kMaxParts = 1u << 10;
// Most workload splits (m): a split divides the rows of a vertex class, so beyond a few per
// worker it only adds tasks that cost scheduling and find nothing.
inline constexpr std::uint32_t kMaxWorkloadSplits = 1u << 12;

// Throws UsageError naming --parts unless 1 <= parts <= kMaxParts.
void check_parts(std::uint64_t parts);
// Throws UsageError naming --workload-splits unless 1 <= splits <= kMaxWorkloadSplits.
void check_workload_splits(std::uint64_t splits);

// --workload-splits as given: a number m, or auto (no value: m from the number of workers).
using WorkloadSplits = std::optional<std::uint32_t>;
// "auto" or a number within check_workload_splits; throws UsageError naming --workload-splits.
WorkloadSplits parse_workload_splits(const std::string& text);
// The fewest tasks per worker that --workload-splits auto allows: one.
inline constexpr std::uint32_t kAutoTasksPerWorker = 1;
// The share of a subtask's count that each of its splits repeats (the row walk, the hub
// rows' tables): splits cost alike, since they divide the rows by a hash, but every split
// more lengthens the count (bench/RESULTS.md, section 4, workload splits).
inline constexpr double kSplitRepeatShare = 0.04;
// The one rule for --workload-splits auto (tricount-count, tricount-simulate --model and
// --plan): among the m that give every worker at least `tasks_per_worker` of the n^3 * m
// tasks, the one with the shortest finish, counting each worker's tasks as
// ceil(n^3 m / workers) of cost 1/m + kSplitRepeatShare (ties: the fewer splits), within
// kMaxWorkloadSplits; 1 for a single worker, who has nobody to share with. So one task per
// worker on a --parts 1 file, and more only where the tasks would not divide evenly.
std::uint32_t auto_workload_splits(std::uint32_t parts, std::uint64_t workers,
                                   std::uint32_t tasks_per_worker = kAutoTasksPerWorker);
// m as given, or auto_workload_splits's.
inline std::uint32_t resolve_workload_splits(const WorkloadSplits& splits, std::uint32_t parts, std::uint64_t workers) {
  return splits ? *splits : auto_workload_splits(parts, workers);
}

struct BlockId {
  std::uint32_t row_class = 0;  // i: rows are the vertices x with x mod n == i
  std::uint32_t col_class = 0;  // j: columns are the vertices y with y mod n == j
  friend bool operator==(const BlockId&, const BlockId&) = default;
};

struct Task {
  std::uint32_t i = 0, j = 0, k = 0;  // vertex classes of u, v, w
  std::uint32_t split = 0;            // s in 0..m-1: which part of class i's rows
  BlockId hash_block() const { return {i, k}; }     // P(i,k)
  BlockId one_hop_block() const { return {i, j}; }  // P(i,j)
  BlockId two_hop_block() const { return {j, k}; }  // P(j,k)
  // The task's three blocks, in the order hash, one-hop, two-hop (may repeat a block).
  std::array<BlockId, 3> blocks() const { return {hash_block(), one_hop_block(), two_hop_block()}; }
  friend bool operator==(const Task&, const Task&) = default;
};

class TaskPlan {
 public:
  TaskPlan(std::uint32_t parts, std::uint32_t splits);

  std::uint32_t parts() const { return parts_; }
  std::uint32_t splits() const { return splits_; }
  std::uint64_t num_tasks() const;  // n^3 * m

  // Task ids enumerate (i, j, k, s) with s fastest, then k, j, i.
  Task decode(std::uint64_t id) const;
  std::uint64_t encode(const Task& t) const;

 private:
  std::uint32_t parts_;
  std::uint32_t splits_;
};

// Counting an n-part file as n_c = n / g parts (tricount-count --count-parts): class C of n_c
// is the g classes C + a n_c of n (a = 0 .. g-1), and the vertex l n + C + a n_c has the
// n_c-local id l g + a. So count block P'(I,K) is the g x g file blocks P(I + a n_c, K + b n_c)
// with their rows interleaved and each row the merge of g sorted lists, neighbour m of block
// (a, b) becoming m g + b: exactly the block an n_c-part file holds, and counted at its cost
// (an n-part count walks each edge and tables each row about n / n_c times as often:
// bench/RESULTS.md, issue 28). file_blocks_of lists them row-major by (a, b).
std::vector<BlockId> file_blocks_of(const BlockId& count_block, std::uint32_t count_parts, std::uint32_t group);
// Throws UsageError naming --count-parts unless it divides the file's parts.
void check_count_parts(std::uint32_t count_parts, std::uint32_t file_parts);
// The share of a worker's device memory that --count-parts auto lets a task's blocks take
// (the rest is the kernels' working memory).
inline constexpr double kCountPartsDeviceShare = 0.5;
// The one rule for --count-parts auto (tricount-count): the fewest parts n_c, a divisor of
// the file's n, whose blocks fit every worker's device and that give at least `min_tasks`
// subtasks (n_c^3 >= min_tasks: a given --workload-splits m leaves no worker idle). A task
// holds up to three count blocks, each beside its file blocks while it is re-blocked: at
// most twice the CSR bytes of the three largest, within kCountPartsDeviceShare of
// `device_bytes`, the smallest worker's. `block_bytes` holds the file blocks' CSR bytes
// (n^2, row-major). n where device_bytes is 0 (the CPU backend counts from host memory).
std::uint32_t auto_count_parts(std::uint32_t parts, const std::vector<std::uint64_t>& block_bytes, std::uint64_t device_bytes,
                               std::uint64_t min_tasks = 1);
// auto_count_parts's `min_tasks` for `workers` workers: a given m must leave none idle
// (ceil(workers / m) subtasks); auto's m gives every worker a task at any parts (1).
inline std::uint64_t count_parts_min_tasks(const WorkloadSplits& splits, std::uint64_t workers) {
  return splits ? (workers + *splits - 1) / *splits : 1;
}
// The partitioner's per-subtask work (n^3 entries, empty: none) and per-block edges (n^2) summed
// into n_c = n / group parts, for the task queue's costs.
std::vector<std::uint64_t> coarsen_task_work(const std::vector<std::uint64_t>& work, std::uint32_t parts, std::uint32_t group);
std::vector<std::uint64_t> coarsen_block_nnz(const std::vector<std::uint64_t>& nnz, std::uint32_t parts, std::uint32_t group);

// Host and device code share split_of_row: the CPU and GPU backends must split rows alike.
#ifdef __CUDACC__
#define TRICOUNT_HOST_DEVICE __host__ __device__
#else
#define TRICOUNT_HOST_DEVICE
#endif

// Which workload split a block-local row of class i belongs to. A multiplicative hash
// spreads hubs (renumbered by degree, hence adjacent ids) across splits.
TRICOUNT_HOST_DEVICE inline std::uint32_t split_of_row(std::uint64_t local_row, std::uint32_t splits) {
  if (splits <= 1) return 0;
  std::uint64_t x = local_row + 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  x ^= x >> 31;
  return static_cast<std::uint32_t>(x % splits);
}

// Rows of class c among `vertices` renumbered vertices split into `parts` classes.
inline std::uint64_t rows_in_class(std::uint64_t vertices, std::uint32_t parts, std::uint32_t c) {
  return vertices > c ? (vertices - c + parts - 1) / parts : 0;
}

}  // namespace tricount
