// Stage degrees: the undirected degree of every compact id and the index from input ids to
// compact ids. When the clean stage counted the degrees per input id, its table becomes the
// index; else every edge is relabelled and counted here. The input ids then wait on disk.
#include "partitioner/pipeline_state.hpp"

#include <atomic>

#include "partitioner/count_cache.hpp"

namespace tricount::pipeline {

void Pipeline::degrees() {
  if (!raw_degree_.empty()) {
    // Counted during the merge, per input id: pick the vertices' degrees, then the same table
    // becomes the direct index (input id -> compact id).
    progress_.begin("degrees", vertices_, "vertices");
    degree_.resize(vertices_);  // not zeroed: every entry is set below
    const auto cut = runs::even_cuts(vertices_, threads_);
    runs::parallel_for(threads_, [&](unsigned t) {
      for (std::uint64_t p = cut[t]; p < cut[t + 1]; ++p) {
        degree_[p] = raw_degree_[input_id_[p]];
        raw_degree_[input_id_[p]] = static_cast<vid_t>(p);
      }
    });
    index_.emplace(std::move(raw_degree_));
    runs::release(raw_degree_);
    progress_.add(vertices_);
  } else {
    progress_.begin("degrees", edges_, "edges");
    // The direct table takes at most a quarter of the stage's budget (the bitmap of the
    // clean stage had as much, in bits).
    index_.emplace(input_id_, work_budget_ / 4, threads_);
    assign_zeros(degree_, vertices_, threads_);
    for_each_unique([&](auto tag) {
      using T = decltype(tag);
      const auto cut = runs::even_cuts(edges_, threads_);
      runs::parallel_for(threads_, [&](unsigned t) {
        RunCursor<T> cur(pool_, unique_edges_, cut[t], cut[t + 1], io_ / sizeof(T));
        CountCache second_degree(degree_.data());
        raw_id_t last_u = 0;
        vid_t cu = 0;
        std::uint32_t pending = 0;  // degree of cu counted locally
        bool have = false;
        std::uint64_t since = 0;
        for (; !cur.empty(); cur.pop()) {
          const raw_id_t u = first_of(cur.head());
          if (!have || u != last_u) {
            if (pending) std::atomic_ref<vid_t>(degree_[cu]).fetch_add(pending, std::memory_order_relaxed);
            pending = 0;
            cu = (*index_)(u);
            last_u = u;
            have = true;
          }
          ++pending;
          second_degree.inc((*index_)(second_of(cur.head())));
          if (++since == 65536) {
            progress_.add(since);
            since = 0;
          }
        }
        if (pending) std::atomic_ref<vid_t>(degree_[cu]).fetch_add(pending, std::memory_order_relaxed);
        second_degree.flush();
        progress_.add(since);
      });
    });
  }
  // The input ids wait on disk until the vertex map is written; an index that searches them
  // is rebuilt when the edges are relabelled (ensure_index), so that the vertex arrays of the
  // reorder stage stay within 16 bytes a vertex.
  ids_file_ = scratch_.new_file("input_ids");
  runs::write_file(ids_file_, input_id_.data(), input_id_.size() * sizeof(raw_id_t));
  if (!index_->direct()) index_.reset();
  runs::release(input_id_);
  progress_.end();
}

void Pipeline::ensure_index() {
  if (index_) return;
  input_id_.resize(vertices_);
  const int fd = pool_.fd(ids_file_);
  parallel_ranges(vertices_, fill_threads(vertices_ * sizeof(raw_id_t), threads_), [&](std::uint64_t a, std::uint64_t b) {
    runs::pread_all(fd, input_id_.data() + a, (b - a) * sizeof(raw_id_t), a * sizeof(raw_id_t), ids_file_);
  });
  index_.emplace(input_id_, work_budget_ / 4, threads_);
}

std::uint64_t Pipeline::index_bytes() const {
  return index_ ? index_->bytes() : vertices_ * sizeof(raw_id_t) + IdIndex::bytes_for(vertices_);
}

}  // namespace tricount::pipeline
