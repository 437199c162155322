// Partitioning on several MPI ranks (mpirun -np R tricount-partition, srun): the file of
// partition_file / partition_generated, byte for byte, made by R processes on one or many
// nodes. Each rank holds its share of the edges in memory (the one-process pipeline's runs on
// disk are for one node; more ranks are how a larger graph fits):
//   1. read       each rank its share of the input: a range of edge indexes of a generator or
//                 an uncompressed binary file, the whole lines of a byte range of an
//                 uncompressed edge list or Matrix Market file, a run of a WebGraph's node
//                 ranges (by .offsets); of a gzip stream, every rank parses it all and keeps
//                 every R-th batch;
//   2. clean      canonical pairs (self-loops dropped) go to the rank of their hash, which sorts
//                 them and drops the duplicates;
//   3. degrees    counted per input id, summed over the ranks; the compact ids and the new
//                 ids (degree or collective order) are then the same on every rank;
//   4. blocks     oriented, relabelled edges go to the rank that owns their row (new-id ranges
//                 of about |E| / R edges each), which builds its rows of every block;
//   5. write      rank 0 writes the header, vertex map and degrees and places every block in
//                 the file; each rank writes its rows of every block at their place (pwrite)
//                 and hashes the checksum pieces within them, rank 0 the few that straddle
//                 ranks; the task work is summed over the ranks. No rank holds a whole block.
// Vertex arrays (about 20 bytes a vertex, and 4 per input id up to the largest) are on every
// rank, as in one process.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>

#include "input/generator_spec.hpp"
#include "partitioner/pipeline.hpp"

namespace tricount {

// What to partition: a generator input, else the file at `path`.
struct DistributedInput {
  std::string path;
  InputFormat format = InputFormat::Auto;
  std::optional<GeneratorArgs> generator;
};

struct DistributedReport {
  GraphHeader header;  // as written
  int ranks = 1;
};

// Collective over `comm` (every rank calls it with the same arguments): partitions `input` into
// the block file `output`, which rank 0 writes (temporary name + rename). options.threads and
// options.memory_budget are per rank (0: the node's cores and half its memory, shared by the
// ranks on the node). When anything fails on any rank, every rank throws the same error and
// no output exists.
DistributedReport partition_distributed(MPI_Comm comm, const DistributedInput& input, const std::string& output,
                                        const PartitionOptions& options);

// Whether an MPI launcher (mpirun, mpiexec, srun) started this process: tricount-partition
// then joins the job's ranks; a process started alone never initializes MPI.
bool started_by_mpi_launcher();

}  // namespace tricount
