// Stages orient, reorder and map: the new ids (partitioner/reorder.hpp defines the orders)
// and the vertex map they give (new id -> input id). Degree order needs only the degrees;
// collective order first takes two orientation passes over the edges for the out-degrees
// and the collective degrees (vertex arrays in memory, edges in the runs).
#include "partitioner/pipeline_state.hpp"

#include <atomic>
#include <cstdio>

namespace tricount::pipeline {

namespace {

template <class T>
void atomic_inc(T& x) {
  std::atomic_ref<T>(x).fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

// Calls fn(x, y) for every oriented edge x -> y (compact ids), in parallel.
template <class Fn>
void Pipeline::for_each_oriented(Fn fn) {
  ensure_index();
  const auto cut = runs::even_cuts(edges_, threads_);
  for_each_unique([&](auto tag) {
    using T = decltype(tag);
    runs::parallel_for(threads_, [&](unsigned t) {
      RunCursor<T> cur(pool_, unique_edges_, cut[t], cut[t + 1], io_ / sizeof(T));
      std::uint64_t since = 0;
      for (; !cur.empty(); cur.pop()) {
        const vid_t a = (*index_)(first_of(cur.head())), b = (*index_)(second_of(cur.head()));
        if (lower(a, b)) fn(a, b);
        else fn(b, a);
        if (++since == 65536) {
          progress_.add(since);
          since = 0;
        }
      }
      progress_.add(since);
    });
  });
}

void Pipeline::reorder() {
  order_ = o_.order;
  const std::uint64_t V = vertices_;
  if (order_ == VertexOrder::Collective) {
    // degree 4 + out-degree 4 + collective 8 + rank 4 + new id 4 bytes a vertex, and the
    // index that relabels the edges in the orientation passes.
    const std::uint64_t need = 24 * V + index_bytes() + std::uint64_t(threads_) * 4 * kMinIo;
    if (need > budget_) {
      order_ = VertexOrder::Degree;
      report_.ordering_fell_back = true;
      const std::string note = "note: --order collective needs " + mib(need) + " for " + std::to_string(V) +
                               " vertices, more than --memory-budget " + mib(budget_) +
                               "; using degree order instead (the file says ordering = degree)";
      if (progress_.mode() != Progress::Mode::Off) progress_.message("[partition] " + note);
      else std::fprintf(stderr, "tricount-partition: %s\n", note.c_str());
    }
  }
  if (order_ == VertexOrder::Degree) {
    progress_.begin("reorder", V, "vertices");
    // Rank by (degree, compact id). This is also the orientation order, so oriented edges go
    // from the lower new id to the higher. The counting sort's counts, the degrees and the new
    // ids take about 12 bytes a vertex, within the 16 that the ids stage required of the budget
    // (and 16 bytes for each vertex of degree 4096 or more: |E| / 128 bytes at most).
    new_id_ = degree_order(degree_, threads_);
    progress_.add(V);
    keep_new_degrees();
    runs::release(degree_);
    progress_.end("degree order");
    return;
  }
  // Collective (TRUST): orientation passes over the edges on disk, vertex arrays in memory.
  progress_.begin("orient", 2 * edges_, "edges");
  VertexArray<vid_t> outdeg;
  assign_zeros(outdeg, V, threads_);
  for_each_oriented([&](vid_t x, vid_t) { atomic_inc(outdeg[x]); });
  VertexArray<std::uint64_t> collective(V);
  parallel_ranges(V, fill_threads(8 * V, threads_), [&](std::uint64_t a, std::uint64_t b) {
    std::copy(outdeg.begin() + a, outdeg.begin() + b, collective.begin() + a);
  });
  for_each_oriented([&](vid_t x, vid_t y) {
    std::atomic_ref<std::uint64_t>(collective[x]).fetch_add(outdeg[y], std::memory_order_relaxed);
  });
  progress_.end("out-degrees and collective degrees");
  progress_.begin("reorder", V, "vertices");
  // Rank by (collective, out-degree, compact id).
  new_id_ = collective_order(collective, outdeg, threads_);
  progress_.add(V);
  keep_new_degrees();
  progress_.end("collective order");
}

// The degrees by new id, for the file (BlockOutput::degrees): 4 bytes a vertex until the map is written.
void Pipeline::keep_new_degrees() {
  new_degree_.resize(vertices_);
  runs::parallel_for(threads_, [&](unsigned t) {
    for (std::uint64_t x = vertices_ * t / threads_; x < vertices_ * (t + 1) / threads_; ++x) new_degree_[new_id_[x]] = degree_[x];
  });
}

void Pipeline::write_vertex_map(BlockOutput& out) {
  progress_.begin("map", vertices_, "vertices");
  std::vector<raw_id_t> map(vertices_);
  Run ids{{Span{ids_file_, 0, vertices_}}};
  RunCursor<raw_id_t> cur(pool_, ids, 0, vertices_, io_ / sizeof(raw_id_t));
  for (std::uint64_t x = 0; x < vertices_; ++x, cur.pop()) map[new_id_[x]] = cur.head();
  if (index_) runs::remove_run_files({ids}, pool_);  // else ensure_index reads them once more
  out.vertex_map(std::move(map));
  out.degrees(std::move(new_degree_));
  runs::release(new_degree_);
  progress_.add(vertices_);
  progress_.end();
}

}  // namespace tricount::pipeline
