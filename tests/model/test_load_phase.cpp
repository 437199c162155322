// The static schedule's load phase by nodes (model/load_phase.hpp, issue 29): bytes entering
// a node fall with the nodes under forward with the runtime's assignment by nodes, each block
// is read once per job, one GPU costs the same by both paths and as the earlier model, and
// the pipes each path rests on.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "model/load_phase.hpp"
#include "model/predict.hpp"
#include "model/simulate.hpp"
#include "src/task_plan.hpp"

namespace tricount {
namespace {

CostModel test_model() {
  CostModel m;
  m.backend = "cuda";
  m.task_overhead_seconds = 1e-3;
  m.seconds_per_work = 1e-12;
  m.load_seconds_per_byte = 1e-10;   // 10 GB/s
  m.load_seconds_per_block = 1e-3;
  m.load_seconds_per_row = 1e-10;
  m.upload_seconds_per_byte = 5e-11;  // 20 GB/s
  return m;
}

// A graph of even tasks and blocks at n = 8 (512 tasks at m = 1).
GraphShape test_shape() { return synthetic_shape("test", 1u << 22, 1ull << 28, 1ull << 36, 8); }

// The runtime's assignment by nodes of `per_node` workers, and both paths' load phases.
struct Both {
  LoadPhaseTerms file, forward;
};
Both load_both(int workers, int per_node, const MachineParameters& base) {
  const CostModel model = test_model();
  const GraphShape shape = test_shape();
  const JournalContents run = model_task_run(model, shape, 1);
  std::vector<std::vector<std::uint64_t>> assignment;
  simulate_static(run, workers, nullptr, -1, per_node, &assignment);
  MachineParameters machine = base;
  machine.gpus_per_node = per_node;
  const TaskPlan plan(shape.parts, 1);
  return {load_phase(model, shape, plan, assignment, machine, "file"),
          load_phase(model, shape, plan, assignment, machine, "forward")};
}

std::uint64_t graph_bytes() {
  const GraphShape s = test_shape();
  return std::accumulate(s.block_bytes.begin(), s.block_bytes.end(), std::uint64_t{0});
}

TEST(LoadPhase, ForwardBytesEnteringANodeFallWithTheNodes) {
  const MachineParameters machine;
  const std::uint64_t graph = graph_bytes();
  std::uint64_t last = 0;
  // 1, 8 and 64 nodes of 2 GPUs: a node's sub-cube of side n, n/2, n/4 needs all, 3/4 and
  // 3/16 of the blocks (3 faces of the cube); the file path's node bytes do not fall so.
  const std::vector<std::pair<int, double>> nodes_and_most = {{1, 1.0}, {8, 0.76}, {64, 0.2}};
  for (const auto& [nodes, most] : nodes_and_most) {
    const Both b = load_both(2 * nodes, 2, machine);
    EXPECT_EQ(b.forward.nodes, nodes);
    EXPECT_EQ(b.forward.total_read_bytes, graph) << nodes << " nodes: every block read once per job";
    EXPECT_LE(static_cast<double>(b.forward.max_network_bytes_per_node), most * static_cast<double>(graph)) << nodes << " nodes";
    if (last > 0) EXPECT_LT(b.forward.max_network_bytes_per_node, last) << nodes << " nodes";
    last = b.forward.max_network_bytes_per_node;
    // The file path: every GPU reads its own, so the job reads more and a node takes more in.
    EXPECT_GE(b.file.total_read_bytes, b.forward.total_read_bytes);
    EXPECT_GE(b.file.max_network_bytes_per_node, b.forward.max_network_bytes_per_node);
    EXPECT_EQ(b.file.max_bytes_per_gpu, b.forward.max_bytes_per_gpu) << "the same blocks held, by either path";
  }
  // At 64 nodes the job reads the graph once by forward, several times by file.
  const Both many = load_both(128, 2, machine);
  EXPECT_GT(many.file.total_read_bytes, 4 * many.forward.total_read_bytes);
}

TEST(LoadPhase, OneGpuCostsTheSameByBothPathsAndAsTheEarlierModel) {
  const CostModel model = test_model();
  const GraphShape shape = test_shape();
  MachineParameters machine;
  const std::vector<StaticPrediction> earlier = predict_static(model, shape, 1, {1}, machine, PlanRequest{});
  machine.load_path = "file";
  const std::vector<StaticPrediction> file = predict_static(model, shape, 1, {1}, machine, PlanRequest{});
  machine.load_path = "forward";
  const std::vector<StaticPrediction> forward = predict_static(model, shape, 1, {1}, machine, PlanRequest{});
  // The earlier model charges a block's fixed costs as whole bytes at its rate: equal to a byte's time.
  EXPECT_NEAR(file[0].point.load_phase_seconds, earlier[0].point.load_phase_seconds, 1e-6 * earlier[0].point.load_phase_seconds);
  EXPECT_DOUBLE_EQ(forward[0].point.load_phase_seconds, file[0].point.load_phase_seconds);
  EXPECT_DOUBLE_EQ(file[0].point.count_phase_seconds, earlier[0].point.count_phase_seconds);
  EXPECT_NEAR(file[0].point.efficiency, 1.0, 1e-6);
  EXPECT_EQ(forward[0].path, "forward");
}

TEST(LoadPhase, EachPathRestsOnItsPipes) {
  MachineParameters machine;
  machine.file_system_bytes_per_second = 1e9;  // a slow shared file system
  const Both slow_fs = load_both(16, 2, machine);
  // File: every GPU's reads through the shared pipe; forward reads the graph once.
  EXPECT_DOUBLE_EQ(slow_fs.file.file_system_seconds, static_cast<double>(slow_fs.file.total_read_bytes) / 1e9);
  EXPECT_DOUBLE_EQ(slow_fs.forward.file_system_seconds, static_cast<double>(graph_bytes()) / 1e9);
  EXPECT_LT(slow_fs.forward.load_phase_seconds, slow_fs.file.load_phase_seconds);
  // Forward copies within a node what its GPUs share; file copies nothing.
  EXPECT_EQ(slow_fs.file.max_copy_bytes_per_node, 0u);
  EXPECT_GT(slow_fs.forward.max_copy_bytes_per_node, 0u);
  // A file system on a path of its own that outruns a slow network: file takes nothing over
  // the link and wins.
  machine.file_system_bytes_per_second = 1e15;
  machine.node_file_system_bytes_per_second = 1e12;
  machine.network_bytes_per_second = 1e8;
  const Both fast_fs = load_both(16, 2, machine);
  EXPECT_EQ(fast_fs.file.max_network_bytes_per_node, 0u);
  EXPECT_DOUBLE_EQ(fast_fs.file.network_seconds, 0.0);
  EXPECT_GT(fast_fs.forward.network_seconds, 0.0);
  EXPECT_LT(fast_fs.file.load_phase_seconds, fast_fs.forward.load_phase_seconds);
  // Network latency: one per block a node receives.
  machine = MachineParameters{};
  const Both quick = load_both(16, 2, machine);
  machine.network_latency_seconds = 0.5;
  const Both slow = load_both(16, 2, machine);
  EXPECT_GT(slow.forward.network_seconds, quick.forward.network_seconds + 0.5);
  EXPECT_DOUBLE_EQ(slow.file.load_phase_seconds, quick.file.load_phase_seconds);
}

// Packed blocks (issue 28): a GPU reads, receives and uploads their stored bytes (each byte's
// upload dearer: decoded on the GPU), but holds their CSR; every path's load phase falls.
TEST(LoadPhase, PackedBlocksLoadTheirStoredBytesAndHoldTheirCsr) {
  const CostModel model = test_model();
  const GraphShape csr = test_shape();
  GraphShape packed = csr;
  pack_shape(packed);
  ASSERT_EQ(packed.stored_bytes.size(), csr.block_bytes.size());
  EXPECT_GT(packed.upload_cost, 1.0);
  for (std::size_t b = 0; b < csr.block_bytes.size(); ++b) {
    EXPECT_LT(packed.stored_bytes[b], csr.block_bytes[b] / 2);
    EXPECT_EQ(packed.block_bytes[b], csr.block_bytes[b]);
  }
  EXPECT_EQ(&csr.loaded_bytes(), &csr.block_bytes);
  MachineParameters machine;
  for (const std::string path : {"", "file", "forward"}) {
    SCOPED_TRACE("load path '" + path + "'");
    machine.load_path = path;
    const StaticPrediction a = predict_static(model, csr, 1, {64}, machine, PlanRequest{}).front();
    const StaticPrediction b = predict_static(model, packed, 1, {64}, machine, PlanRequest{}).front();
    EXPECT_LT(b.point.load_phase_seconds, 0.7 * a.point.load_phase_seconds);
    EXPECT_DOUBLE_EQ(b.point.count_phase_seconds, a.point.count_phase_seconds);
    EXPECT_EQ(b.point.max_bytes, a.point.max_bytes);  // what the GPU holds: the CSR
  }
}

TEST(LoadPhase, RefusesAnUnknownPath) {
  const CostModel model = test_model();
  const GraphShape shape = test_shape();
  EXPECT_THROW(load_phase(model, shape, TaskPlan(8, 1), {{0}}, MachineParameters{}, "nfs"), Error);
}

}  // namespace
}  // namespace tricount
