// The static schedule's load phase on nodes (issue 29): how long the GPUs take to hold the
// blocks of their assigned tasks, on a machine of nodes of G GPUs sharing one network link
// each and one file system, by either load path of tricount-count:
//
//   file     every GPU reads its own blocks from the shared file system (as before). A GPU
//            ends at  max(its bytes x the measured read rate, its node's reads / the node's
//            link, the job's reads / the file system) + its blocks' per-block and per-row
//            checks + its bytes x the upload rate. With every GPU reading as many bytes this
//            is the earlier model's per-GPU share (min(own, link / G, file system / P)).
//   forward  each block needed anywhere is read once per job, by a node that needs it (the
//            needing node that has read the fewest bytes so far, one of its ranks), checked
//            there, and sent by that rank to one rank of each other node needing it (point to
//            point, as tricount-count's count/block_forward.hpp does); within a node the
//            holder passes it to the node's other GPUs needing it, then each GPU uploads its
//            own. As with the file path, a node's blocks arrive as fast as the slowest of the
//            pipes that carry them, then the copies, then the upload:
//              file system   the job's reads / its aggregate bandwidth
//              read          a node's reads x the measured rate + their checks, spread over
//                            the node's ranks
//              network       the larger of the bytes entering a node (read or received) and
//                            those it sends (each of its reads once per other node needing
//                            it), over its full-duplex link, + one latency per block received
//            then  copy      the bytes its GPUs take beyond the one landing copy / the
//                            node's intra-node copy bandwidth
//            and   upload    a GPU's bytes x the measured upload rate.
//            On one GPU this is the file path's time (one read, check and upload per block).
//
// A node's file-system reads cross its network link (GPFS or Lustre over the cluster's
// fabric) unless MachineParameters::node_file_system_bytes_per_second gives them a path of
// their own (a storage network, or a node-local copy); then they take that path, at that
// bandwidth, and only the blocks received from other nodes cross the link. That is where the
// file path can win: a file system that outruns the network.
//
// Bytes entering a node are those of the blocks its GPUs need. With the runtime's assignment
// by nodes (TaskQueue::assign_static(workers, workers_per_node): one sub-cube of (i,j,k)
// per node), they fall with the number of nodes, as N^(-2/3) of the graph, while every GPU
// still uploads its own blocks. Not modelled: the file system's per-request latency, network
// congestion beyond each node's link, and memory for the node's staging buffers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/cost_model.hpp"
#include "model/graph_shape.hpp"
#include "src/task_plan.hpp"

namespace tricount {

// The machine the prediction is for (defaults: a Summit-class node).
struct MachineParameters {
  int gpus_per_node = 6;
  double network_bytes_per_second = 25e9;        // per node, each way
  double file_system_bytes_per_second = 2.5e12;  // shared by every reader at once
  // "" : the earlier model (the static assignment without nodes, each GPU at its share of the
  // link and file system); "file" or "forward": the load path by nodes; "auto" (--plan): the
  // faster of the two.
  std::string load_path;
  // A node's bandwidth from the file system when its reads do not cross its network link (a
  // storage network of their own, or a node-local copy); 0: they share the link.
  double node_file_system_bytes_per_second = 0;
  double network_latency_seconds = 2e-6;            // per message (forward)
  double intra_node_bytes_per_second = 100e9;       // per node: host-memory copies to its GPUs' ranks
};

// What one load path costs for one assignment, and the terms it rests on (largest over nodes
// or GPUs; seconds are each pipe's time alone).
struct LoadPhaseTerms {
  std::string path;  // file or forward
  int nodes = 1;
  std::uint64_t total_read_bytes = 0;            // the job's reads from the file system
  std::uint64_t max_read_bytes_per_node = 0;     // read from the file system by one node
  std::uint64_t max_network_bytes_per_node = 0;  // entering one node over its link (its reads, unless off the link)
  std::uint64_t max_sent_bytes_per_node = 0;     // forward: sent by one node to the others needing its reads
  std::uint64_t max_copy_bytes_per_node = 0;     // forward: copied within one node to its GPUs
  std::uint64_t max_bytes_per_gpu = 0;           // held and uploaded by one GPU
  double file_system_seconds = 0, node_file_system_seconds = 0, network_seconds = 0, read_seconds = 0, check_seconds = 0, copy_seconds = 0,
         upload_seconds = 0;
  double load_phase_seconds = 0;
};

// The load phase of `tasks` (per worker, workers grouped in nodes of machine.gpus_per_node in
// order, the last one possibly smaller) of `shape` at `plan`, by `path` ("file" or "forward").
LoadPhaseTerms load_phase(const CostModel& model, const GraphShape& shape, const TaskPlan& plan,
                          const std::vector<std::vector<std::uint64_t>>& tasks, const MachineParameters& machine,
                          const std::string& path);

}  // namespace tricount
