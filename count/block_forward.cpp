#include "count/block_forward.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <map>
#include <memory>
#include <string>

#include "src/threads.hpp"

namespace tricount {

namespace {

constexpr int kTag = 29;  // on the exchange's own communicator: nothing else travels there
// Array pieces of at most this many elements per message (MPI counts are int).
constexpr std::uint64_t kPiece = std::uint64_t{1} << 28;

// A block's header as it travels: status (0 good, 1 failed), rows, cols, nnz, max_degree and
// the length of the failure message that follows instead of the arrays.
struct Header {
  std::uint64_t words[6] = {0, 0, 0, 0, 0, 0};
};

template <class T>
MPI_Datatype mpi_type() {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);
  return sizeof(T) == 4 ? MPI_UINT32_T : MPI_UINT64_T;
}

template <class T>
void send_array(const T* data, std::uint64_t count, int to, MPI_Comm comm, std::vector<MPI_Request>& pending) {
  for (std::uint64_t first = 0; first < count; first += kPiece) {
    pending.emplace_back();
    MPI_Isend(data + first, static_cast<int>(std::min(kPiece, count - first)), mpi_type<T>(), to, kTag, comm, &pending.back());
  }
}

// Maps every page of `v`'s (uninitialised, BlockAllocator) array on `threads` threads: a
// receive then copies into memory that is there, instead of faulting a GB in on one thread.
template <class T>
void touch_pages(BlockArray<T>& v, unsigned threads) {
  constexpr std::uint64_t kStep = 4096 / sizeof(T);
  parallel_ranges(v.size(), threads, [&](std::uint64_t first, std::uint64_t last) {
    for (std::uint64_t i = first; i < last; i += kStep) v[i] = T{};
  });
}

template <class T>
void receive_array(T* data, std::uint64_t count, int from, MPI_Comm comm) {
  for (std::uint64_t first = 0; first < count; first += kPiece)
    MPI_Recv(data + first, static_cast<int>(std::min(kPiece, count - first)), mpi_type<T>(), from, kTag, comm, MPI_STATUS_IGNORE);
}

}  // namespace

ForwardPlan plan_forwarding(const TaskPlan& plan, const std::vector<std::vector<std::uint64_t>>& assigned,
                            const std::vector<int>& node_of_rank, const std::vector<std::uint64_t>& block_bytes) {
  const std::uint64_t n = plan.parts();
  const int ranks = static_cast<int>(assigned.size());
  // 1. Per block, the ranks that need it (ascending).
  std::vector<std::vector<int>> needers(n * n);
  std::vector<bool> seen(n * n);
  for (int r = 0; r < ranks; ++r) {
    std::fill(seen.begin(), seen.end(), false);
    for (std::uint64_t id : assigned[static_cast<std::size_t>(r)])
      for (const BlockId& b : plan.decode(id).blocks()) {
        const std::uint64_t x = std::uint64_t(b.row_class) * n + b.col_class;
        if (!seen[x]) seen[x] = true, needers[x].push_back(r);
      }
  }
  // 2. Per block, in order: the reader, each other node's holder, the others from their holder.
  int nodes = 0;
  for (int node : node_of_rank) nodes = std::max(nodes, node + 1);
  std::vector<std::uint64_t> node_read(static_cast<std::size_t>(nodes), 0), rank_read(static_cast<std::size_t>(ranks), 0),
      rank_received(static_cast<std::size_t>(ranks), 0);
  ForwardPlan out;
  for (std::uint64_t x = 0; x < n * n; ++x) {
    if (needers[x].empty()) continue;
    const std::uint64_t bytes = block_bytes[x];
    std::map<int, std::vector<int>> by_node;  // node -> its needers, ascending
    for (int r : needers[x]) by_node[node_of_rank[static_cast<std::size_t>(r)]].push_back(r);
    int read_node = by_node.begin()->first;
    for (const auto& [node, list] : by_node)
      if (node_read[static_cast<std::size_t>(node)] < node_read[static_cast<std::size_t>(read_node)]) read_node = node;
    std::map<int, int> source;  // needer -> source (-1: the file)
    int reader = -1;
    for (const auto& [node, list] : by_node) {
      std::vector<std::uint64_t>& load = node == read_node ? rank_read : rank_received;
      int holder = list.front();
      for (int r : list)
        if (load[static_cast<std::size_t>(r)] < load[static_cast<std::size_t>(holder)]) holder = r;
      load[static_cast<std::size_t>(holder)] += bytes;
      if (node == read_node) reader = holder, node_read[static_cast<std::size_t>(node)] += bytes;
      for (int r : list) source[r] = r == holder ? -2 : holder;  // -2: the node's holder, filled in below
    }
    for (auto& [r, s] : source) {
      if (s == -2) s = r == reader ? -1 : reader;
      out.triples.insert(out.triples.end(), {x, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(static_cast<std::int64_t>(s))});
    }
  }
  return out;
}

void broadcast_plan(MPI_Comm comm, ForwardPlan& plan) {
  std::uint64_t words = plan.triples.size();
  MPI_Bcast(&words, 1, MPI_UINT64_T, 0, comm);
  plan.triples.resize(words);
  for (std::uint64_t first = 0; first < words; first += kPiece)
    MPI_Bcast(plan.triples.data() + first, static_cast<int>(std::min(kPiece, words - first)), MPI_UINT64_T, 0, comm);
}

void forward_blocks(MPI_Comm comm, const ForwardPlan& plan, const TaskPlan& task_plan, const BlockFileReader& file,
                    BlockCache& cache, WorkerStats& stats) {
  const auto start = std::chrono::steady_clock::now();
  int me = 0;
  MPI_Comm_rank(comm, &me);
  const std::uint64_t n = task_plan.parts();
  const std::vector<std::uint64_t>& t = plan.triples;
  std::vector<MPI_Request> pending;
  // What must outlive the sends: the blocks sent and the headers and messages.
  std::vector<std::shared_ptr<const LoadedBlock>> sent_blocks;
  std::vector<std::unique_ptr<Header>> headers;
  std::vector<std::unique_ptr<std::string>> messages;
  std::string first_failure;
  for (std::size_t e = 0; e < t.size();) {
    // 1. This block's entries, my source and the ranks that take it from me.
    const std::uint64_t x = t[e];
    std::size_t end = e;
    bool needed = false;
    std::int64_t source = -1;
    std::vector<int> targets;
    for (; end < t.size() && t[end] == x; end += 3) {
      const int needer = static_cast<int>(t[end + 1]);
      const std::int64_t from = static_cast<std::int64_t>(t[end + 2]);
      if (needer == me) needed = true, source = from;
      if (from == me) targets.push_back(needer);
    }
    e = end;
    if (!needed) continue;
    const BlockId id{static_cast<std::uint32_t>(x / n), static_cast<std::uint32_t>(x % n)};
    // 2. The block: read and checked here, or received (or the error in its place).
    std::shared_ptr<const LoadedBlock> block;
    std::string failure;
    if (source < 0) {
      try {
        double seconds = 0;
        block = cache.get(id, seconds, stats.bytes_loaded);
        stats.load_seconds += seconds;
      } catch (const std::exception& err) {
        failure = err.what();
      }
    } else {
      const int from = static_cast<int>(source);
      Header h;
      MPI_Recv(h.words, 6, MPI_UINT64_T, from, kTag, comm, MPI_STATUS_IGNORE);
      if (h.words[0] != 0) {
        failure.resize(h.words[5]);
        MPI_Recv(failure.data(), static_cast<int>(failure.size()), MPI_CHAR, from, kTag, comm, MPI_STATUS_IGNORE);
      } else {
        try {
          CsrBlock b;
          b.id = id;
          b.rows = h.words[1];
          b.cols = h.words[2];
          b.max_degree = static_cast<std::uint32_t>(h.words[4]);
          b.offsets.resize(b.rows + 1);
          b.neighbors.resize(h.words[3]);
          touch_pages(b.offsets, cache.threads());
          touch_pages(b.neighbors, cache.threads());
          receive_array(b.offsets.data(), b.offsets.size(), from, comm);
          receive_array(b.neighbors.data(), b.neighbors.size(), from, comm);
          // The bytes were checked where they were read; here only that they are the block
          // the file describes, in one piece.
          if (b.nnz() != file.block_nnz(id) || b.offsets.back() != b.nnz() ||
              b.rows != rows_in_class(file.header().vertices, task_plan.parts(), id.row_class))
            throw Error("block " + block_name(id) + " received from rank " + std::to_string(from) + " has " +
                        std::to_string(b.rows) + " rows and " + std::to_string(b.nnz()) + " entries but '" + file.path() +
                        "' describes " + std::to_string(file.block_nnz(id)) + " entries: the ranks opened different files (internal error otherwise)");
          stats.blocks_received += 1;
          stats.bytes_received += b.bytes();
          block = cache.insert(std::move(b));
        } catch (const std::exception& err) {
          failure = err.what();
        }
      }
    }
    if (!failure.empty() && source >= 0 && failure.find("rank ") != 0)
      failure = "rank " + std::to_string(source) + " read " + block_name(id) + " for this rank: " + failure;
    if (!failure.empty() && first_failure.empty()) first_failure = failure;
    // 3. On to the ranks that take it from me, without waiting.
    for (int to : targets) {
      headers.push_back(std::make_unique<Header>());
      Header& h = *headers.back();
      pending.emplace_back();
      if (block) {
        const CsrSpan s = block->span();
        h.words[1] = s.rows, h.words[2] = s.cols, h.words[3] = s.nnz, h.words[4] = s.max_degree;
        MPI_Isend(h.words, 6, MPI_UINT64_T, to, kTag, comm, &pending.back());
        send_array(s.offsets, s.rows + 1, to, comm, pending);
        send_array(s.neighbors, s.nnz, to, comm, pending);
        stats.blocks_sent += 1;
        stats.bytes_sent += s.bytes();
      } else {
        messages.push_back(std::make_unique<std::string>(failure.substr(0, INT_MAX / 2)));
        h.words[0] = 1, h.words[5] = messages.back()->size();
        MPI_Isend(h.words, 6, MPI_UINT64_T, to, kTag, comm, &pending.back());
        pending.emplace_back();
        MPI_Isend(messages.back()->data(), static_cast<int>(messages.back()->size()), MPI_CHAR, to, kTag, comm, &pending.back());
      }
    }
    if (block && !targets.empty()) sent_blocks.push_back(block);
  }
  MPI_Waitall(static_cast<int>(pending.size()), pending.data(), MPI_STATUSES_IGNORE);
  stats.forward_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!first_failure.empty()) throw Error(first_failure);
}

}  // namespace tricount
