#include "model/load_phase.hpp"

#include <algorithm>
#include <array>

#include "src/types.hpp"

namespace tricount {

LoadPhaseTerms load_phase(const CostModel& model, const GraphShape& shape, const TaskPlan& plan,
                          const std::vector<std::vector<std::uint64_t>>& tasks, const MachineParameters& machine,
                          const std::string& path) {
  if (path != "file" && path != "forward") throw Error("load path '" + path + "' is not file or forward");
  if (machine.gpus_per_node < 1) throw Error("a node needs at least one GPU");
  const std::size_t n = plan.parts(), blocks = n * n;
  const std::size_t gpus = tasks.size(), per_node = static_cast<std::size_t>(machine.gpus_per_node);
  const std::size_t nodes = (gpus + per_node - 1) / per_node;
  // 1. Each block's bytes and check seconds (per-block and per-row terms of the model).
  std::vector<double> check(blocks);
  for (std::size_t b = 0; b < blocks; ++b)
    check[b] = model.load_seconds_per_block +
               model.load_seconds_per_row *
                   static_cast<double>(rows_in_class(shape.vertices, shape.parts, static_cast<std::uint32_t>(b / n)));
  // 2. The blocks each GPU holds, and how many GPUs of each node need each block.
  std::vector<std::uint64_t> gpu_bytes(gpus, 0);
  std::vector<double> gpu_check(gpus, 0);
  std::vector<std::vector<std::uint32_t>> needers(nodes, std::vector<std::uint32_t>(blocks, 0));
  for (std::size_t w = 0; w < gpus; ++w) {
    std::vector<bool> held(blocks, false);
    for (std::uint64_t id : tasks[w])
      for (const BlockId& id_b : plan.decode(id).blocks()) {
        const std::size_t b = std::size_t(id_b.row_class) * n + id_b.col_class;
        if (held[b]) continue;
        held[b] = true;
        gpu_bytes[w] += shape.loaded_bytes()[b], gpu_check[w] += check[b];
        ++needers[w / per_node][b];
      }
  }
  auto node_size = [&](std::size_t v) { return static_cast<double>(std::min(per_node, gpus - v * per_node)); };
  LoadPhaseTerms t;
  t.path = path;
  t.nodes = static_cast<int>(nodes);
  for (std::uint64_t bytes : gpu_bytes) t.max_bytes_per_gpu = std::max(t.max_bytes_per_gpu, bytes);
  const double link = machine.network_bytes_per_second, fs = machine.file_system_bytes_per_second;
  const bool separate = machine.node_file_system_bytes_per_second > 0;  // file-system reads off the link
  const double node_fs = separate ? machine.node_file_system_bytes_per_second : link;
  if (path == "file") {
    // 3. Every GPU reads its own blocks: a node's reads cross its link, the job's the file system.
    std::vector<std::uint64_t> node_read(nodes, 0);
    for (std::size_t w = 0; w < gpus; ++w) node_read[w / per_node] += gpu_bytes[w], t.total_read_bytes += gpu_bytes[w];
    for (std::uint64_t r : node_read) t.max_read_bytes_per_node = std::max(t.max_read_bytes_per_node, r);
    if (!separate) t.max_network_bytes_per_node = t.max_read_bytes_per_node;
    t.file_system_seconds = static_cast<double>(t.total_read_bytes) / fs;
    for (std::size_t w = 0; w < gpus; ++w) {
      const double bytes = static_cast<double>(gpu_bytes[w]);
      // The node's reads over its path to the file system: the link, or a path of their own.
      const double read = bytes * model.load_seconds_per_byte, net = static_cast<double>(node_read[w / per_node]) / node_fs;
      double& pipe = separate ? t.node_file_system_seconds : t.network_seconds;
      pipe = std::max(pipe, net);
      const double up = bytes * model.upload_seconds_per_byte * shape.upload_cost;
      t.read_seconds = std::max(t.read_seconds, read);
      t.check_seconds = std::max(t.check_seconds, gpu_check[w]);
      t.upload_seconds = std::max(t.upload_seconds, up);
      t.load_phase_seconds = std::max(t.load_phase_seconds, std::max({read, net, t.file_system_seconds}) + gpu_check[w] + up);
    }
    return t;
  }
  // 4. Forward: each needed block read once, by the needing node that has read least so far.
  std::vector<std::uint64_t> node_read(nodes, 0), node_need(nodes, 0), node_received_blocks(nodes, 0), node_sent(nodes, 0);
  std::vector<double> node_check(nodes, 0);
  for (std::size_t b = 0; b < blocks; ++b) {
    std::size_t reader = nodes;
    for (std::size_t v = 0; v < nodes; ++v)
      if (needers[v][b] > 0) {
        node_need[v] += shape.loaded_bytes()[b];
        ++node_received_blocks[v];
        if (reader == nodes || node_read[v] < node_read[reader]) reader = v;
      }
    if (reader == nodes) continue;  // no GPU needs it
    node_read[reader] += shape.loaded_bytes()[b], node_check[reader] += check[b];
    --node_received_blocks[reader];
    // The reader sends it to one rank of each other node needing it.
    for (std::size_t v = 0; v < nodes; ++v)
      if (v != reader && needers[v][b] > 0) node_sent[reader] += shape.loaded_bytes()[b];
    t.total_read_bytes += shape.loaded_bytes()[b];
  }
  // 5. The pipes: file system, each node's reads (spread over its ranks), link, copies; each GPU's upload.
  t.file_system_seconds = static_cast<double>(t.total_read_bytes) / fs;
  std::vector<std::uint64_t> node_gpu_bytes(nodes, 0);
  for (std::size_t w = 0; w < gpus; ++w) {
    node_gpu_bytes[w / per_node] += gpu_bytes[w];
    t.upload_seconds = std::max(t.upload_seconds, static_cast<double>(gpu_bytes[w]) * model.upload_seconds_per_byte * shape.upload_cost);
  }
  for (std::size_t v = 0; v < nodes; ++v) {
    const double ranks = node_size(v);
    t.max_read_bytes_per_node = std::max(t.max_read_bytes_per_node, node_read[v]);
    // Over the link: every block the node needs, less its own reads when those take a path of their own.
    const std::uint64_t in = node_need[v] - (separate ? node_read[v] : 0);
    t.max_network_bytes_per_node = std::max(t.max_network_bytes_per_node, in);
    if (separate) t.node_file_system_seconds = std::max(t.node_file_system_seconds, static_cast<double>(node_read[v]) / node_fs);
    // Each block lands once in the node, in a GPU's rank that needs it; the node's other GPUs take copies.
    const std::uint64_t copy = node_gpu_bytes[v] - node_need[v];
    t.max_copy_bytes_per_node = std::max(t.max_copy_bytes_per_node, copy);
    t.read_seconds = std::max(t.read_seconds, static_cast<double>(node_read[v]) * model.load_seconds_per_byte / ranks);
    t.check_seconds = std::max(t.check_seconds, node_check[v] / ranks);
    t.max_sent_bytes_per_node = std::max(t.max_sent_bytes_per_node, node_sent[v]);
    // A full-duplex link: the larger of what enters and what leaves.
    t.network_seconds = std::max(t.network_seconds, static_cast<double>(std::max(in, node_sent[v])) / link +
                                                        static_cast<double>(node_received_blocks[v]) * machine.network_latency_seconds);
    t.copy_seconds = std::max(t.copy_seconds, static_cast<double>(copy) / machine.intra_node_bytes_per_second);
  }
  double read_stage = 0;
  for (std::size_t v = 0; v < nodes; ++v)
    read_stage = std::max(read_stage, (static_cast<double>(node_read[v]) * model.load_seconds_per_byte + node_check[v]) / node_size(v));
  t.load_phase_seconds =
      std::max({t.file_system_seconds, t.node_file_system_seconds, read_stage, t.network_seconds}) + t.copy_seconds +
      t.upload_seconds;
  return t;
}

}  // namespace tricount
