// The pipeline's sizes and budget (pipeline.hpp): the default budget, the input's
// estimated size, whether the runs fit in memory, and the parts worth making.
#include "partitioner/pipeline.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>

#include "input/webgraph.hpp"

namespace tricount {

std::uint64_t default_memory_budget() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  std::uint64_t ram = pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : (std::uint64_t{8} << 30);
  for (const char* limit_file : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(limit_file);
    std::uint64_t limit = 0;
    if (in >> limit && limit > 0 && limit < ram) ram = limit;
  }
  return std::max<std::uint64_t>(ram / 2, std::uint64_t{64} << 20);
}

std::uint64_t estimated_input_edges(const std::string& path, InputFormat format) {
  // Only the name: the content is read once, by the reader (the text formats estimate alike).
  if (format == InputFormat::Auto) format = format_from_name(path);
  if (format == InputFormat::WebGraph) return webgraph_arc_count(path);
  // A pipe, FIFO or device (/dev/stdin, <(...), /dev/zero) has no size: it may be any
  // length, so only runs on disk keep it within the budget.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return 0;
  const bool gz = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  switch (format) {
    case InputFormat::Bin64: return gz ? size / 4 : size / 16;
    case InputFormat::Bin32: return gz ? size / 2 : size / 8;
    default: return gz ? size / 2 : size / 8;  // text: at least ~8 bytes a line, gzip ~4x
  }
}

bool runs_fit_in_memory(std::uint64_t expected_input_edges, std::uint64_t memory_budget) {
  if (memory_budget == 0) memory_budget = default_memory_budget();
  return expected_input_edges <= memory_budget / 2 / kRunBytesPerEdge;
}

void check_parts_for_graph(std::uint32_t parts, std::uint64_t edges) {
  std::uint64_t root = 0;
  while ((root + 1) * (root + 1) <= edges) ++root;  // runs once per graph; at most 2^32 steps
  const std::uint64_t most = std::max<std::uint64_t>(32, root);
  if (parts > most)
    throw UsageError("--parts " + std::to_string(parts) + " is too many for " + std::to_string(edges) + " edges: " +
                     std::to_string(std::uint64_t{parts} * parts) + " blocks would be almost all empty (about 2.4 KiB "
                     "of file each); use --parts " + std::to_string(most) + " or fewer");
}

}  // namespace tricount
