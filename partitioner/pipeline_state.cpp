// class Pipeline (pipeline_state.hpp): the stages in order (run), the read, clean and
// degrees stages alone (clean_only), and the budget helpers that the stages share.
#include "partitioner/pipeline_state.hpp"

#include <sys/resource.h>

#include <algorithm>

#include "src/threads.hpp"

namespace tricount::pipeline {

namespace {

// Open files this process may have (after raise_open_file_limit); a merge holds one or two per run.
std::size_t open_file_limit() {
  struct rlimit r {};
  if (::getrlimit(RLIMIT_NOFILE, &r) != 0) return 1024;
  return r.rlim_cur == RLIM_INFINITY ? std::size_t{1} << 20 : static_cast<std::size_t>(r.rlim_cur);
}

}  // namespace

Pipeline::Pipeline(const PartitionOptions& options, const PipelineTuning& tuning, Progress& progress, bool runs_in_memory)
    : o_(options),
      tune_(tuning),
      progress_(progress),
      threads_(options.threads ? options.threads : usable_cores()),
      budget_(options.memory_budget ? options.memory_budget : default_memory_budget()),
      work_budget_(runs_in_memory ? std::max<std::uint64_t>(budget_ / 2, 1) : budget_),
      // A reader's or writer's buffer is at most 1/1024 of a small input's edges (fresh pages,
      // each used once, cost more than the system calls they save); from 2^28 edges, as before.
      io_(std::clamp<std::size_t>(std::min<std::uint64_t>(work_budget_ / (64 * threads_),
                                                          options.expected_input_edges
                                                              ? options.expected_input_edges * sizeof(RawEdge) / 1024
                                                              : std::uint64_t(-1)),
                                  kMinIo, kMaxIo)),
      scratch_(options.tmpdir, runs_in_memory) {
  report_.memory_budget = budget_;
  report_.runs_in_memory = runs_in_memory;
}

PipelineReport Pipeline::run(EdgeSource& source, BlockOutput& out, const std::string& source_file, std::uint64_t source_size) {
  const std::uint64_t start_bytes = runs::scratch_bytes_written();
  read(source, source_file);
  GraphHeader header;
  header.source_md5 = source.input_md5();
  clean();
  degrees();
  reorder();
  header.parts = o_.parts;
  header.vertices = vertices_;
  header.edges = edges_;
  header.ordering = std::string(to_string(order_));
  header.source_file = source_file;
  header.source_size = source_size;
  header.input_edges = input_edges_;
  header.encoding = o_.encoding;
  carry_known_counts(o_, header);
  out.open(header);
  write_vertex_map(out);
  blocks();
  write_blocks(out);
  estimate(out);
  header.max_degree = max_degree_;
  progress_.begin("commit", 0, "files");
  out.commit(max_degree_);
  progress_.add(1);
  progress_.end();
  report_.header = header;
  report_.scratch_bytes = runs::scratch_bytes_written() - start_bytes;
  report_.peak_memory_run_bytes = runs::peak_memory_run_bytes();
  return report_;
}

CleanGraph Pipeline::clean_only(EdgeSource& source) {
  read(source, "");
  clean();
  degrees();
  CleanGraph g;
  g.input_edges = input_edges_;
  g.input_id.resize(vertices_);
  if (vertices_) runs::pread_all(pool_.fd(ids_file_), g.input_id.data(), vertices_ * sizeof(raw_id_t), 0, ids_file_);
  g.edges.reserve(edges_);
  ensure_index();
  for_each_unique([&](auto tag) {
    using T = decltype(tag);
    RunCursor<T> cur(pool_, unique_edges_, 0, edges_, io_ / sizeof(T));
    for (; !cur.empty(); cur.pop()) g.edges.emplace_back((*index_)(first_of(cur.head())), (*index_)(second_of(cur.head())));
  });
  return g;
}

// ---- budget helpers ---------------------------------------------------------------------

std::size_t Pipeline::max_fanin() const {
  if (tune_.max_fanin) return std::max<std::size_t>(2, tune_.max_fanin);
  // A memory file is held open twice (its registry and the readers' pool): a quarter of the
  // open-file limit leaves room for everything else.
  const std::size_t most = std::clamp<std::size_t>(open_file_limit() / 4, 2, kMaxFanin);
  return std::clamp<std::size_t>(work_budget_ / 2 / (std::uint64_t(threads_) * kMinIo), 2, most);
}

std::size_t Pipeline::cursor_bytes(std::size_t runs, unsigned threads) const {
  return std::clamp<std::size_t>(work_budget_ / 2 / (std::max<std::size_t>(runs, 1) * threads), kMinIo, kMaxCursorIo);
}

void Pipeline::require_vertex_memory(std::uint64_t vertex_bytes, const char* what) const {
  const std::uint64_t need = vertex_bytes + std::uint64_t(threads_) * 4 * kMinIo;
  if (need > budget_)
    throw Error("the graph has " + std::to_string(vertices_) + " vertices; " + what + " need " + mib(need) +
                " of memory, more than --memory-budget " + mib(budget_) + ". Vertex arrays stay in memory in the " +
                "partitioner: raise --memory-budget to at least " + mib(need + need / 4) +
                " (or use fewer --threads)");
}

void Pipeline::remove_mine(const std::vector<Run>& runs, const std::vector<bool>& mine) {
  std::vector<Run> done;
  for (std::size_t r = 0; r < runs.size(); ++r)
    if (mine[r]) done.push_back(runs[r]);
  runs::remove_run_files(done, pool_, threads_);
}

}  // namespace tricount::pipeline
