// CPU backend: TRUST's vertex-centric hashing, one thread per chunk of rows.
//
// For each row u of class i (in this task's split): hash u's neighbours from P(i,k) into an
// open-addressing table sized to a power of two >= 2 * degree, then for every 1-hop
// neighbour v of u in P(i,j) probe every 2-hop neighbour w of v in P(j,k). Each hit is one
// triangle u -> v -> w with u -> w. The table is cleared by revisiting only the slots it
// filled, so a row costs O(deg) to build and O(sum of 2-hop lengths) to probe. Where a
// 2-hop list is far longer than u's own list, u's neighbours are binary-searched in it.
// Rows are handed to threads in chunks from an atomic counter: hubs make static splits
// uneven.
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <thread>
#include <vector>

#include "src/threads.hpp"
#include "worker/backend.hpp"

namespace tricount {
namespace {

constexpr vid_t kEmpty = ~vid_t{0};  // local ids are < 2^32 - 1, so this is never a key
// Probing costs ~1 per 2-hop entry, a binary search ~log2 of the list per own entry.
constexpr std::uint64_t kSearchRatio = 32;

class RowHashTable {
 public:
  void build(const vid_t* keys, std::uint64_t n) {
    const std::uint64_t want = std::bit_ceil(std::max<std::uint64_t>(2 * n, 8));
    if (slots_.size() < want) slots_.assign(want, kEmpty);
    mask_ = want - 1;
    used_.clear();
    for (std::uint64_t e = 0; e < n; ++e) {
      std::uint64_t s = slot(keys[e]);
      while (slots_[s] != kEmpty) s = (s + 1) & mask_;  // linear probing; load <= 1/2
      slots_[s] = keys[e];
      used_.push_back(s);
    }
  }
  bool contains(vid_t key) const {
    std::uint64_t s = slot(key);
    while (true) {
      const vid_t k = slots_[s];
      if (k == key) return true;
      if (k == kEmpty) return false;
      s = (s + 1) & mask_;
    }
  }
  void clear() {
    for (std::uint64_t s : used_) slots_[s] = kEmpty;
  }

 private:
  std::uint64_t slot(vid_t key) const { return (static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ULL >> 20) & mask_; }
  std::vector<vid_t> slots_;
  std::vector<std::uint64_t> used_;
  std::uint64_t mask_ = 0;
};

count_t count_rows(const SubtaskBlocks& b, std::atomic<std::uint64_t>& next_row, RowHashTable& table) {
  constexpr std::uint64_t kChunk = 64;
  const std::uint64_t rows = b.one_hop.rows;
  count_t total = 0;
  // Rows go out from the last: in degree order the heaviest rows have the highest ids, and
  // starting with them leaves only light chunks for the end.
  for (std::uint64_t taken; (taken = next_row.fetch_add(kChunk, std::memory_order_relaxed)) < rows;) {
    const std::uint64_t end = rows - taken;
    const std::uint64_t begin = end > kChunk ? end - kChunk : 0;
    for (std::uint64_t u = begin; u < end; ++u) {
      if (b.splits > 1 && split_of_row(u, b.splits) != b.split) continue;
      const eoff_t h0 = b.hash.offsets[u], h1 = b.hash.offsets[u + 1];
      const eoff_t o0 = b.one_hop.offsets[u], o1 = b.one_hop.offsets[u + 1];
      if (h0 == h1 || o0 == o1) continue;
      const vid_t* mine = b.hash.neighbors + h0;
      const std::uint64_t my_degree = h1 - h0;
      table.build(mine, my_degree);
      count_t found = 0;
      for (eoff_t e = o0; e < o1; ++e) {
        const vid_t v = b.one_hop.neighbors[e];
        const vid_t* theirs = b.two_hop.neighbors + b.two_hop.offsets[v];
        const std::uint64_t their_degree = b.two_hop.offsets[v + 1] - b.two_hop.offsets[v];
        if (their_degree > kSearchRatio * my_degree) {
          // A hub's list dwarfs u's: search u's few neighbours in it (rows are sorted)
          // instead of probing every element of it.
          for (std::uint64_t x = 0; x < my_degree; ++x) found += std::binary_search(theirs, theirs + their_degree, mine[x]);
        } else {
          for (std::uint64_t f = 0; f < their_degree; ++f) found += table.contains(theirs[f]);
        }
      }
      table.clear();
      total += found;
    }
  }
  return total;
}

class CpuBackend final : public CountBackend {
 public:
  explicit CpuBackend(const BackendOptions& options)
      : threads_(options.threads ? options.threads : usable_cores()),
        tables_(threads_) {}

  std::string_view name() const override { return "cpu"; }
  std::string device_name() const override { return std::to_string(threads_) + " CPU threads"; }

  count_t count(const SubtaskBlocks& b, CountStats& stats) override {
    TRICOUNT_EXPECTS(b.one_hop.rows == b.hash.rows, "blocks " + std::to_string(b.one_hop.id.row_class) +
                                                        ": P(i,j) and P(i,k) disagree on the rows of class i");
    TRICOUNT_EXPECTS(b.two_hop.rows == b.one_hop.cols, "P(j,k) rows do not match the columns of P(i,j)");
    TRICOUNT_EXPECTS(b.two_hop.cols == b.hash.cols, "P(j,k) and P(i,k) disagree on the columns of class k");
    const auto t0 = std::chrono::steady_clock::now();
    std::atomic<std::uint64_t> next_row{0};
    count_t total = 0;
    // Small tasks are not worth a thread start.
    const unsigned use = b.one_hop.nnz + b.two_hop.nnz < 65536 ? 1u : threads_;
    if (use == 1) {
      total = count_rows(b, next_row, tables_[0]);
    } else {
      std::vector<count_t> partial(use, 0);
      std::vector<std::jthread> pool;
      for (unsigned t = 0; t < use; ++t)
        pool.emplace_back([&, t] { partial[t] = count_rows(b, next_row, tables_[t]); });
      pool.clear();  // joins
      for (count_t p : partial) total += p;
    }
    stats.count_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return total;
  }

 private:
  unsigned threads_;
  std::vector<RowHashTable> tables_;
};

}  // namespace

std::unique_ptr<CountBackend> make_cpu_backend(const BackendOptions& options) {
  return std::make_unique<CpuBackend>(options);
}

}  // namespace tricount
