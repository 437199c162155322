#include "count/prepare_input.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <thread>

#include "count/collective.hpp"
#include "partitioner/pipeline.hpp"     // estimated_input_edges (the partitioner's own estimate)
#include "partitioner/partition.hpp"
#include "partitioner/run_files.hpp"    // runs::ScratchDir, runs::default_tmpdir
#include "src/node_share.hpp"
#include "src/output_file.hpp"
#include "src/task_plan.hpp"

namespace tricount {

namespace fs = std::filesystem;

PreparedInput::PreparedInput() = default;
PreparedInput::~PreparedInput() = default;
PreparedInput::PreparedInput(PreparedInput&&) noexcept = default;
PreparedInput& PreparedInput::operator=(PreparedInput&&) noexcept = default;

bool is_block_file(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".h5" || ext == ".hdf5") return true;
  // Only a regular file is looked into: a pipe's first bytes would be lost to its reader.
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  unsigned char head[8] = {0};
  const bool hdf5 = ::pread(fd, head, sizeof head, 0) == static_cast<ssize_t>(sizeof head) &&
                    std::memcmp(head, output::kHdf5Signature.data(), sizeof head) == 0;
  ::close(fd);
  return hdf5;
}

namespace {

std::string mebibytes(double bytes) {
  char buf[32];
  if (bytes >= 0x1p30) std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / 0x1p30);
  else std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 0x1p20);
  return buf;
}

// Sleeps until every rank of `comm` got here: the ranks waiting for rank 0's partition step
// leave its cores to it (a blocking MPI call would spin on them).
void quiet_barrier(MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &request);
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// Where a temporary block file goes: --tmpdir; else, when every rank runs on this node,
// $TMPDIR or /tmp; else the input's folder, which ranks on other nodes are likelier to see.
std::string temporary_parent(bool one_node, const InputRequest& request) {
  if (!request.tmpdir.empty()) return request.tmpdir;
  if (one_node) return runs::default_tmpdir();
  const fs::path folder = fs::path(request.input).parent_path();
  return folder.empty() ? "." : folder.string();
}

// The input's format, for the one line: what --format says, else what the partitioner will
// detect (a pipe is not read here: its bytes are the partitioner's).
std::string format_name(const std::string& path, InputFormat format) {
  if (format != InputFormat::Auto) return std::string(to_string(format));
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) format = detect_input_format(path);
  else format = format_from_name(path);
  return format == InputFormat::Auto ? "text" : std::string(to_string(format));
}

void partition_on_rank0(bool one_node, int workers_here, const InputRequest& request, PreparedInput& out) {
  // The count's own checks see only the block file (and name it --input): the edge file here.
  // Each output against the input and the outputs before it, before the partition's work.
  std::vector<output::NamedPath> before = input_paths(request.input, "GRAPH", "a file GRAPH reads");
  for (const auto& [path, option] : request.outputs) {
    output::refuse_same_file(path, option, before);
    before.push_back({path, option});
  }
  if (!request.save_blocks.empty()) output::refuse_same_file(request.save_blocks, "--save-blocks", before);
  const std::string format = format_name(request.input, request.format);
  const std::uint64_t edges = estimated_input_edges(request.input, request.format);
  std::string why = "as --parts asks";
  std::uint32_t parts = request.parts;
  if (parts == 0 && edges == UINT64_MAX) {
    parts = 1;
    why = "1 part, as the input's size is unknown (a pipe; give --parts for a graph larger than a worker's --cache-size)";
  } else if (parts == 0) {
    // The workers' --cache-size, or its default: their share of this node's available memory.
    const std::uint64_t cache =
        request.cache_bytes ? request.cache_bytes : default_cache_bytes(available_memory_bytes(), workers_here);
    parts = choose_parts(edges, cache, &why, request.cache_bytes != 0);
  }
  PartitionOptions options;
  options.parts = parts;
  options.progress = request.progress;
  options.tmpdir = request.tmpdir;
  options.memory_budget = request.memory_budget;
  std::string target = request.save_blocks;
  options.output_option = target.empty() ? "the temporary block file (--tmpdir)" : "--save-blocks";
  if (target.empty()) {
    out.scratch = std::make_unique<runs::ScratchDir>(temporary_parent(one_node, request));
    std::string stem = fs::path(request.input).filename().string();
    if (stem.empty() || stem == "." || stem == "..") stem = "graph";
    target = out.scratch->path() + "/" + stem + ".h5";
    out.temporary = true;
  }
  // A file size limit (ulimit -f) would kill the process with SIGXFSZ; ignored, the write
  // fails with EFBIG and is reported like a full disk.
  std::signal(SIGXFSZ, SIG_IGN);
  const auto t0 = std::chrono::steady_clock::now();
  const GraphHeader h = partition_file(request.input, request.format, target, options);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.block_file = target;
  out.partitioned = true;
  out.parts = h.parts;
  out.format = format;
  char line[1024];
  std::snprintf(line, sizeof line, "partitioned '%s' (%s) into %u x %u blocks in %.3f s: %s; ", printable(request.input).c_str(),
                out.format.c_str(), h.parts, h.parts, out.seconds, why.c_str());
  out.note = line;
  out.note += out.temporary ? "the block file is temporary (--save-blocks PATH keeps it)"
                            : "block file saved as '" + printable(target) + "'";
}

}  // namespace

std::uint32_t choose_parts(std::uint64_t edges, std::uint64_t cache_bytes, std::string* why, bool cache_given) {
  // CSR bytes at n parts: 4 per neighbour, 8 per row offset of each block (n |V| in all);
  // |V| is taken as |E|, generous for the sparse graphs this is for.
  const double e = static_cast<double>(edges), cache = static_cast<double>(std::max<std::uint64_t>(cache_bytes, 1));
  const double whole = 4 * e + 8 * e;
  if (whole <= cache / 2) {
    if (why) *why = "1 part, as the graph (about " + mebibytes(whole) + ") fits each worker's --cache-size";
    return 1;
  }
  const double most = std::min<double>(kMaxParts, std::max(32.0, std::sqrt(e)));
  std::uint32_t n = 2;
  auto triple = [&](double parts) { return 3 * (4 * e / (parts * parts) + 8 * e / parts); };
  while (n < most && triple(n) > cache / 2) ++n;
  if (cache_given && triple(n) > cache / 2)
    throw UsageError("--cache-size " + std::to_string(cache_bytes) + " bytes is too small for this graph (about " +
                     std::to_string(edges) + " edges): a task's three blocks need about " + mebibytes(triple(n)) +
                     " even at " + std::to_string(n) + " parts, and half the cache must hold them; give --cache-size " +
                     std::to_string(static_cast<std::uint64_t>(std::ceil(2 * triple(n) / 0x1p20))) + "M or more, or leave it out");
  if (why)
    *why = std::to_string(n) + " parts, as a task's three blocks (about " + mebibytes(triple(n)) +
           ") fit each worker's --cache-size and the graph (about " + mebibytes(whole) + ") does not";
  return n;
}

PreparedInput prepare_input(MPI_Comm comm, const InputRequest& request) {
  int rank = 0, size = 1, local = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  node_local_rank(comm, &local);  // collective: whether every rank shares rank 0's node
  PreparedInput out;
  std::exception_ptr failure;
  if (rank == 0) {
    try {
      if (request.format == InputFormat::Auto && is_block_file(request.input)) {
        if (!request.save_blocks.empty())
          throw UsageError("--save-blocks: '" + request.input + "' is a block file already (it is counted as it is)");
        if (request.parts != 0)
          throw UsageError("--parts: '" + request.input + "' is a block file already, partitioned into its own parts; "
                           "to partition again give the edge list, or run tricount-partition");
        out.block_file = request.input;
      } else {
        partition_on_rank0(local == size, size == 1 ? 1 : std::max(1, local - 1), request, out);
      }
    } catch (...) {
      failure = std::current_exception();
    }
  }
  quiet_barrier(comm);
  collective_step(comm, [&] {
    if (failure) std::rethrow_exception(failure);
  });
  // Every rank counts the file rank 0 names.
  std::uint64_t length = out.block_file.size();
  int flag = out.partitioned ? 1 : 0;
  MPI_Bcast(&length, 1, MPI_UINT64_T, 0, comm);
  MPI_Bcast(&flag, 1, MPI_INT, 0, comm);
  if (length > INT_MAX) throw Error("block file path too long");
  out.block_file.resize(length);
  MPI_Bcast(out.block_file.data(), static_cast<int>(length), MPI_CHAR, 0, comm);
  out.partitioned = flag != 0;
  return out;
}

}  // namespace tricount
