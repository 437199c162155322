// Checks shared by the partitioner's tests (tests/partitioner/): an edge source over a
// vector, the file of the pipeline with its runs in memory, the same graph in two block
// files, and a directory's entries.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "input/edge_source.hpp"
#include "partitioner/partition.hpp"

namespace tricount::testing {

// An edge stream over a vector, handed out in small batches.
class VectorSource final : public EdgeSource {
 public:
  explicit VectorSource(std::vector<RawEdge> edges, std::size_t batch = 1000) : edges_(std::move(edges)), batch_(batch) {}
  bool next_batch(std::vector<RawEdge>& out, std::size_t max_edges) override {
    out.clear();
    const std::size_t n = std::min({max_edges, batch_, edges_.size() - next_});
    out.assign(edges_.begin() + next_, edges_.begin() + next_ + n);
    next_ += n;
    return n > 0;
  }
  std::string description() const override { return "vector"; }

 private:
  std::vector<RawEdge> edges_;
  std::size_t batch_, next_ = 0;
};

// The file of partition_edges (runs in memory, the budget's own tuning) for `edges`.
void write_in_memory(const std::vector<RawEdge>& edges, const PartitionOptions& o, const std::string& path);

// Same graph content: header counts, every block's checksum (and, when `deep`, data), the
// graph checksum, the vertex map and the task work.
void expect_same_blocks(const std::string& expected_path, const std::string& actual_path, bool deep);

// The names in `dir`, sorted (none when it cannot be read), and joined for a message.
std::vector<std::string> entries(const std::string& dir);
std::string join(const std::vector<std::string>& v);

}  // namespace tricount::testing
