// Stage estimate: /task_work from the write stage's row degrees and column counts, in
// O(n |V|) instead of the O(n |E|) of estimate_task_work over the blocks.
#include "partitioner/pipeline_state.hpp"

#include <algorithm>

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
    for (std::uint64_t k0 = 0; k0 < n; k0 += group) {
      const std::uint64_t k1 = std::min(n, k0 + group);
      std::vector<std::vector<std::uint32_t>> degree(k1 - k0, std::vector<std::uint32_t>(len));
      for (std::uint64_t k = k0; k < k1; ++k) {
        const std::string& path = row_degree_files_[j * n + k];
        if (len) runs::pread_all(pool_.fd(path), degree[k - k0].data(), len * 4, 0, path);
        pool_.forget(path);
      }
      runs::parallel_for(static_cast<unsigned>(std::min<std::uint64_t>(threads_, n)), [&](unsigned t) {
        for (std::uint64_t i = t; i < n; i += std::min<std::uint64_t>(threads_, n)) {
          const std::string& path = col_count_files_[i * n + j];
          Run counts{{Span{path, 0, len}}};
          RunCursor<std::uint32_t> cur(pool_, counts, 0, len, io_ / 4);
          std::vector<std::uint64_t> probes(k1 - k0, 0);
          for (std::uint64_t v = 0; v < len; ++v, cur.pop()) {
            const std::uint64_t c = cur.head();
            if (c == 0) continue;
            for (std::uint64_t k = k0; k < k1; ++k) probes[k - k0] += c * degree[k - k0][v];
          }
          for (std::uint64_t k = k0; k < k1; ++k) {
            work[(i * n + j) * n + k] = probes[k - k0] + block_nnz_[i * n + k];
            progress_.add(1);
          }
          pool_.forget(path);
        }
      });
    }
  }
  for (const auto* files : {&row_degree_files_, &col_count_files_})
    for (const std::string& p : *files) runs::remove_scratch_file(p);
  out.task_work(std::move(work));
  progress_.end();
}

}  // namespace tricount::pipeline
