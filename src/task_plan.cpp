#include "src/task_plan.hpp"

#include <algorithm>
#include <functional>

namespace tricount {

void check_parts(std::uint64_t parts) {
  if (parts == 0 || parts > kMaxParts)
    throw UsageError("--parts must be between 1 and " + std::to_string(kMaxParts) + " (got " + std::to_string(parts) +
                     "); n parts make n^2 blocks and n^3 subtasks: a few times the number of GPUs^(1/3) is plenty");
}

void check_workload_splits(std::uint64_t splits) {
  if (splits == 0 || splits > kMaxWorkloadSplits)
    throw UsageError("--workload-splits must be between 1 and " + std::to_string(kMaxWorkloadSplits) + " (got " +
                     std::to_string(splits) + "); use auto for a task per worker");
}

WorkloadSplits parse_workload_splits(const std::string& text) {
  if (text == "auto") return std::nullopt;
  std::uint64_t m = 0;
  bool digits = !text.empty() && text.size() <= 9;
  for (const char c : text) digits = digits && c >= '0' && c <= '9';
  if (!digits) throw UsageError("--workload-splits: '" + text + "' is not a positive number or auto");
  for (const char c : text) m = m * 10 + static_cast<std::uint64_t>(c - '0');
  check_workload_splits(m);
  return static_cast<std::uint32_t>(m);
}

std::uint32_t auto_workload_splits(std::uint32_t parts, std::uint64_t workers, std::uint32_t tasks_per_worker) {
  if (workers <= 1) return 1;
  const std::uint64_t subtasks = std::uint64_t(parts) * parts * parts;
  const std::uint64_t want = std::uint64_t(tasks_per_worker) * workers;
  const auto fewest = static_cast<std::uint32_t>(std::clamp<std::uint64_t>((want + subtasks - 1) / subtasks, 1, kMaxWorkloadSplits));
  // A worker's finish, in subtasks: its ceil(n^3 m / w) tasks of 1/m + the repeated share.
  const auto finish = [&](std::uint32_t m) {
    const std::uint64_t tasks = (subtasks * m + workers - 1) / workers;
    return double(tasks) * (1.0 / m + kSplitRepeatShare);
  };
  std::uint32_t best = fewest;
  double best_finish = finish(fewest);
  // Past the m whose repeated shares alone exceed the best finish, no m can beat it.
  for (std::uint32_t m = fewest + 1;
       m <= kMaxWorkloadSplits && double(subtasks) * m / double(workers) * kSplitRepeatShare < best_finish; ++m) {
    const double f = finish(m);
    if (f < best_finish * (1 - 1e-9)) best = m, best_finish = f;
  }
  return best;
}

TaskPlan::TaskPlan(std::uint32_t parts, std::uint32_t splits) : parts_(parts), splits_(splits) {
  // n^3 * m stays far below 63 bits within these limits.
  check_parts(parts);
  check_workload_splits(splits);
}

std::uint64_t TaskPlan::num_tasks() const {
  const std::uint64_t n = parts_;
  const unsigned __int128 total = static_cast<unsigned __int128>(n * n) * n * splits_;
  if (total >> 63) throw Error("task count n^3 * m overflows 63 bits");
  return static_cast<std::uint64_t>(total);
}

Task TaskPlan::decode(std::uint64_t id) const {
  if (id >= num_tasks()) throw Error("task id " + std::to_string(id) + " out of range");
  Task t;
  t.split = static_cast<std::uint32_t>(id % splits_);
  id /= splits_;
  t.k = static_cast<std::uint32_t>(id % parts_);
  id /= parts_;
  t.j = static_cast<std::uint32_t>(id % parts_);
  id /= parts_;
  t.i = static_cast<std::uint32_t>(id);
  return t;
}

std::uint64_t TaskPlan::encode(const Task& t) const {
  if (t.i >= parts_ || t.j >= parts_ || t.k >= parts_ || t.split >= splits_)
    throw Error("task (" + std::to_string(t.i) + "," + std::to_string(t.j) + "," +
                std::to_string(t.k) + "," + std::to_string(t.split) + ") out of range");
  const std::uint64_t n = parts_;
  return ((static_cast<std::uint64_t>(t.i) * n + t.j) * n + t.k) * splits_ + t.split;
}

std::vector<BlockId> file_blocks_of(const BlockId& count_block, std::uint32_t count_parts, std::uint32_t group) {
  std::vector<BlockId> out;
  out.reserve(std::size_t(group) * group);
  for (std::uint32_t a = 0; a < group; ++a)
    for (std::uint32_t b = 0; b < group; ++b)
      out.push_back({count_block.row_class + a * count_parts, count_block.col_class + b * count_parts});
  return out;
}

void check_count_parts(std::uint32_t count_parts, std::uint32_t file_parts) {
  if (count_parts == 0 || file_parts % count_parts != 0)
    throw UsageError("--count-parts " + std::to_string(count_parts) + " must divide the file's " + std::to_string(file_parts) +
                     " parts (1, or a divisor such as " + std::to_string(file_parts) + " itself)");
}

std::vector<std::uint64_t> coarsen_task_work(const std::vector<std::uint64_t>& work, std::uint32_t parts, std::uint32_t group) {
  if (group == 1 || work.empty()) return work;
  const std::uint64_t n = parts, c = parts / group;
  std::vector<std::uint64_t> out(c * c * c, 0);
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t j = 0; j < n; ++j)
      for (std::uint64_t k = 0; k < n; ++k) out[((i % c) * c + j % c) * c + k % c] += work[(i * n + j) * n + k];
  return out;
}

std::vector<std::uint64_t> coarsen_block_nnz(const std::vector<std::uint64_t>& nnz, std::uint32_t parts, std::uint32_t group) {
  if (group == 1) return nnz;
  const std::uint64_t n = parts, c = parts / group;
  std::vector<std::uint64_t> out(c * c, 0);
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t j = 0; j < n; ++j) out[(i % c) * c + j % c] += nnz[i * n + j];
  return out;
}

std::uint32_t auto_count_parts(std::uint32_t parts, const std::vector<std::uint64_t>& block_bytes, std::uint64_t device_bytes,
                               std::uint64_t min_tasks) {
  if (device_bytes == 0) return parts;
  const double budget = kCountPartsDeviceShare * static_cast<double>(device_bytes);
  for (std::uint32_t c = 1; c < parts; ++c) {
    if (parts % c != 0 || std::uint64_t(c) * c * c < min_tasks) continue;
    const std::vector<std::uint64_t> bytes = coarsen_block_nnz(block_bytes, parts, parts / c);
    std::vector<std::uint64_t> largest(bytes);
    std::sort(largest.begin(), largest.end(), std::greater<>());
    double need = 0;
    for (std::size_t b = 0; b < std::min<std::size_t>(3, largest.size()); ++b) need += 2.0 * static_cast<double>(largest[b]);
    if (need <= budget) return c;
  }
  return parts;
}

}  // namespace tricount
