// Stage blocks: every unique edge is relabelled (input id -> compact id -> new id), oriented,
// and goes to its block's bucket buffer (one per block and thread); a full buffer is sorted
// and written as a segment of that block.
#include "partitioner/pipeline_state.hpp"

#include <algorithm>
#include <memory>

#include "partitioner/radix_sort.hpp"

namespace tricount::pipeline {

void Pipeline::blocks() {
  const std::uint32_t n = o_.parts;
  const std::uint64_t nb = std::uint64_t(n) * n;
  progress_.begin("blocks", edges_, "edges");
  // Relabel while cutting: input id -> compact id (the index) -> new id. In degree order a
  // direct index is composed with the new ids first: one load per endpoint.
  ensure_index();
  runs::remove_run_files({Run{{Span{ids_file_, 0, vertices_}}}}, pool_);
  const bool degree_order = order_ == VertexOrder::Degree;
  const bool composed = degree_order && index_->direct();
  if (composed) {
    index_->compose(new_id_, threads_);
    runs::release(new_id_);
  }
  const std::uint64_t vertex_bytes = (new_id_.size() + degree_.size()) * sizeof(vid_t) + index_->bytes();
  const std::uint64_t io_bytes = std::uint64_t(threads_) * 2 * io_;
  // 85%: the rest of the budget covers the small buffers and allocations around them.
  const std::uint64_t avail =
      work_budget_ > vertex_bytes + io_bytes ? (work_budget_ - vertex_bytes - io_bytes) / 20 * 17 : 0;
  unsigned threads = threads_;
  std::uint64_t cap = tune_.block_buffer;
  if (!cap) {
    // nb buffers per thread and one radix scratch of the same size.
    cap = avail / 8 / ((nb + 1) * threads);
    if (cap < 4096) {
      threads = static_cast<unsigned>(std::clamp<std::uint64_t>(avail / 8 / ((nb + 1) * 4096), 1, threads_));
      cap = std::max<std::uint64_t>(avail / 8 / ((nb + 1) * threads), 256);
    }
    // At most about an eighth of a block's edges per buffer: under 8 threads a thread flushes
    // a few segments and refills the same pages instead of touching fresh ones for its whole
    // share (bench/notes/partitioner-passes.md); from 8 threads on, a share is below it anyway.
    cap = std::min(cap, std::max<std::uint64_t>(edges_ / (8 * nb), std::uint64_t{1} << 16));
  }
  std::vector<std::vector<std::vector<Span>>> segs(threads, std::vector<std::vector<Span>>(nb));
  const auto cut = runs::even_cuts(edges_, threads);
  const IdIndex& index = *index_;
  for_each_unique([&](auto tag) {
    using T = decltype(tag);
    runs::parallel_for(threads, [&](unsigned t) {
      std::unique_ptr<std::uint64_t[]> buf(new std::uint64_t[nb * cap]);  // untouched until filled
      std::unique_ptr<std::uint64_t[]> scratch(new std::uint64_t[cap]);
      std::vector<std::uint64_t> fill(nb, 0);
      FileWriter out(scratch_.new_file("bucket"), io_);
      std::uint64_t written = 0;
      auto flush = [&](std::uint64_t b) {
        std::uint64_t* p = buf.get() + b * cap;
        radix_sort<std::uint64_t, KeyDigits>(p, scratch.get(), fill[b]);
        out.write(p, fill[b] * 8);
        segs[t][b].push_back(Span{out.path(), written, fill[b]});
        written += fill[b];
        fill[b] = 0;
      };
      RunCursor<T> cur(pool_, unique_edges_, cut[t], cut[t + 1], io_ / sizeof(T));
      std::uint64_t since = 0;
      for (; !cur.empty(); cur.pop()) {
        const vid_t a = index(first_of(cur.head())), c = index(second_of(cur.head()));
        vid_t u, v;
        if (composed) {
          u = std::min(a, c);
          v = std::max(a, c);
        } else if (degree_order) {
          u = std::min(new_id_[a], new_id_[c]);
          v = std::max(new_id_[a], new_id_[c]);
        } else if (lower(a, c)) {
          u = new_id_[a];
          v = new_id_[c];
        } else {
          u = new_id_[c];
          v = new_id_[a];
        }
        const std::uint64_t b = std::uint64_t(u % n) * n + v % n;
        buf[b * cap + fill[b]++] = (std::uint64_t(u / n) << 32) | (v / n);
        if (fill[b] == cap) flush(b);
        if (++since == 65536) {
          progress_.add(since);
          since = 0;
        }
      }
      progress_.add(since);
      for (std::uint64_t b = 0; b < nb; ++b)
        if (fill[b]) flush(b);
      out.close();
    });
  });
  runs::remove_run_files({unique_edges_}, pool_, threads_);
  unique_edges_ = {};
  index_.reset();
  runs::release(input_id_);
  runs::release(new_id_);
  runs::release(degree_);
  block_segments_.assign(nb, {});
  block_nnz_.assign(nb, 0);
  std::uint64_t segments = 0;
  for (unsigned t = 0; t < threads; ++t)
    for (std::uint64_t b = 0; b < nb; ++b)
      for (Span& s : segs[t][b]) {
        block_nnz_[b] += s.count;
        bucket_files_.insert(s.path);
        block_segments_[b].push_back(Run{{std::move(s)}});
        ++segments;
      }
  progress_.end(std::to_string(nb) + " blocks, " + std::to_string(segments) + " sorted segments");
}

}  // namespace tricount::pipeline
