// Stage estimate: /task_work from the write stage's row degrees and column counts, in
// O(n |V|) instead of the O(n |E|) of estimate_task_work over the blocks.
#include "partitioner/pipeline_state.hpp"

#include <algorithm>
#include <atomic>

namespace tricount::pipeline {

// probes(i,j,k) = sum over columns v of P(i,j) of count_ij[v] * degree_jk[v]; the work adds
// the table insertions nnz(P(i,k)) (see estimate_task_work in partition.hpp).
void Pipeline::estimate(BlockOutput& out) {
  const std::uint64_t n = o_.parts;
  progress_.begin("estimate", n * n * n, "subtasks");
  std::vector<std::uint64_t> work(n * n * n, 0);
  for (std::uint64_t j = 0; j < n; ++j) {
    const std::uint64_t len = rows_in_class(vertices_, o_.parts, static_cast<std::uint32_t>(j));
    const std::uint64_t group = std::clamp<std::uint64_t>(work_budget_ / 2 / std::max<std::uint64_t>(4 * len, 1), 1, n);
    // Each block P(i,j)'s columns are cut into ranges, so that n blocks keep every thread busy
    // (at --parts 1 one block's columns are the whole stage).
    const std::uint64_t ranges = std::clamp<std::uint64_t>((threads_ + n - 1) / n, 1, std::max<std::uint64_t>(len >> 16, 1));
    for (std::uint64_t k0 = 0; k0 < n; k0 += group) {
      const std::uint64_t k1 = std::min(n, k0 + group);
      std::vector<VertexArray<std::uint32_t>> degree(k1 - k0);
      for (std::uint64_t k = k0; k < k1; ++k) {
        const std::string& path = row_degree_files_[j * n + k];
        degree[k - k0].resize(len);
        const int fd = pool_.fd(path);
        parallel_ranges(len, fill_threads(4 * len, threads_), [&](std::uint64_t a, std::uint64_t b) {
          runs::pread_all(fd, degree[k - k0].data() + a, (b - a) * 4, a * 4, path);
        });
        pool_.forget(path);
      }
      // probes[(i * ranges + r) * (k1 - k0) + k - k0]: range r of P(i,j)'s columns against P(j,k)'s rows.
      std::vector<std::uint64_t> probes(n * ranges * (k1 - k0), 0);
      std::atomic<std::uint64_t> next{0};
      runs::parallel_for(static_cast<unsigned>(std::min<std::uint64_t>(threads_, n * ranges)), [&](unsigned) {
        for (std::uint64_t item; (item = next.fetch_add(1)) < n * ranges;) {
          const std::uint64_t i = item / ranges, r = item % ranges;
          const std::string& path = col_count_files_[i * n + j];
          Run counts{{Span{path, 0, len}}};
          const std::uint64_t first = len * r / ranges, last = len * (r + 1) / ranges;
          RunCursor<std::uint32_t> cur(pool_, counts, first, last, io_ / 4);
          std::uint64_t* mine = probes.data() + item * (k1 - k0);
          for (std::uint64_t v = first; v < last; ++v, cur.pop()) {
            const std::uint64_t c = cur.head();
            if (c == 0) continue;
            for (std::uint64_t k = k0; k < k1; ++k) mine[k - k0] += c * degree[k - k0][v];
          }
        }
      });
      for (std::uint64_t i = 0; i < n; ++i)
        for (std::uint64_t k = k0; k < k1; ++k) {
          std::uint64_t sum = block_nnz_[i * n + k];
          for (std::uint64_t r = 0; r < ranges; ++r) sum += probes[(i * ranges + r) * (k1 - k0) + k - k0];
          work[(i * n + j) * n + k] = sum;
          progress_.add(1);
        }
    }
    for (std::uint64_t i = 0; i < n; ++i) pool_.forget(col_count_files_[i * n + j]);
  }
  for (const auto* files : {&row_degree_files_, &col_count_files_})
    for (const std::string& p : *files) runs::remove_scratch_file(p);
  out.task_work(std::move(work));
  progress_.end();
}

}  // namespace tricount::pipeline
