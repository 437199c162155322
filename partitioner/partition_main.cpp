// tricount-partition: edge list, or a generator input (kronecker:26), -> HDF5 block file.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <new>
#include <optional>
#include <unistd.h>

#include <mpi.h>

#include "partitioner/distributed.hpp"
#include "partitioner/partition.hpp"
#include "partitioner/rank_exchange.hpp"
#include "partitioner/run_files.hpp"
#include "src/cli.hpp"

int main(int argc, char** argv) {
  // A file size limit (ulimit -f) would kill the process with SIGXFSZ before it could clean
  // up; ignored, the write fails with EFBIG and is reported like a full disk.
  std::signal(SIGXFSZ, SIG_IGN);
  using namespace tricount;
  // Before any thread starts: SIGTERM/SIGINT/SIGHUP remove the temporary files and exit.
  runs::install_signal_cleanup("tricount-partition");
  // Under mpirun or srun the ranks partition together (partitioner/distributed.hpp); rank 0
  // prints, the others only fail with it.
  const bool mpi = started_by_mpi_launcher();
  int rank = 0, rank_count = 1;
  if (mpi) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &rank_count);
    if (rank != 0) {
      std::cerr.setstate(std::ios::failbit);
      std::cout.setstate(std::ios::failbit);
    }
  }
  bool partitioning = false;  // an error before it is the same on every rank
  const int rc = cli::run_main("tricount-partition", [&] {
    cli::po::options_description opts("options");
    std::string input, output, format, order, budget, tmpdir, encoding;
    std::uint64_t parts = 1;
    unsigned threads = 0;
    opts.add_options()
      ("input,i", cli::po::value(&input)->required(), "edge list to read (text, Matrix Market, bin32/bin64; .gz for text), a WebGraph BV graph "
       "(DIR/NAME.graph or DIR/NAME), or a generator input KIND:PARAMETERS, generated here on every thread without an edge "
       "file: kronecker:SCALE, uniform:SCALE, grid3d:SIDE, kronecker-product:FACTORS, or NAME=VALUE,... with tricount-generate's "
       "option names (kronecker:scale=20,edge-factor=8,seed=2); a file that exists is read as a file, whatever its name")
      ("output,o", cli::po::value(&output)->required(), "HDF5 block file to write (written to a temporary name, renamed when complete)")
      ("parts,n", cli::po::value(&parts)->default_value(1), "n: split the graph into n x n blocks by vertex id mod n")
      ("format,f", cli::po::value(&format)->default_value("auto"), "input format: auto, edgelist, mtx, bin32, bin64 or webgraph")
      ("order", cli::po::value(&order)->default_value("degree"), "vertex reordering: degree or collective (TRUST)")
      ("block-encoding", cli::po::value(&encoding)->default_value(PartitionOptions{}.encoding == BlockEncoding::packed ? "packed" : "csr"),
       "how blocks are stored: packed (rows coded in bit-packed gaps, 0.35-0.7 of CSR's bytes; decoded on the GPU, or on "
       "the CPU by the CPU backend) or csr (offsets and 4-byte neighbours, block format version 2, which tricounts before "
       "packed blocks read)")
      ("threads,t", cli::po::value(&threads)->default_value(0), "threads for parsing text or generating edges, sorting and merging (0 = all cores)")
      ("memory-budget,m", cli::po::value(&budget), "memory to use, e.g. 4G or 512M (default: half of the machine's "
       "memory); the sorted runs are held in memory when they fit in half of it, else written to --tmpdir")
      ("tmpdir", cli::po::value(&tmpdir), "directory for the sorted runs when they do not fit in memory (default: $TMPDIR "
       "or /tmp); needs up to about 32 bytes per input edge free")
      ("runs-on-disk", "write the sorted runs to --tmpdir even when they fit in memory (for tests and benchmarks)")
      ("debug-memory", "each progress line also shows the process's resident set (VmRSS) and peak (VmHWM)")
      ("quiet,q", "print nothing but errors");
    // The old spelling of --runs-on-disk, from when the runs on disk were a second pipeline.
    cli::po::options_description hidden("deprecated");
    hidden.add_options()("force-external", "same as --runs-on-disk");
    cli::po::variables_map vm;
    if (!cli::parse(argc, argv, opts, vm, "tricount-partition --input FILE|KIND:PARAMETERS --output FILE.h5 [--parts N]",
                    "Cleans an edge list (drops self-loops, duplicates and isolated vertices; symmetrizes), orients\n"
                    "every edge from lower to higher (degree, id), reorders the vertices, and writes n x n hashed\n"
                    "CSR blocks into one HDF5 file for tricount-count, in passes over sorted runs held in memory\n"
                    "or, when they do not fit --memory-budget, on disk (--tmpdir), with the same result. An input FILE\n"
                    "with a FILE.known beside it (tricount-generate --kind kronecker-product) must have the vertices and\n"
                    "edges it gives; its triangle count goes into the block file for tricount-count to check against.\n"
                    "A generator input (--input kronecker:26) gives the block file that tricount-generate's file of that\n"
                    "graph would, with no edge file written; a Kronecker product's known triangle count goes in likewise.",
                    &hidden))
      return cli::kExitOk;
    // A negative count is refused by cli::parse as typed; bound every count explicitly.
    check_parts(parts);
    if (threads > 4096) throw UsageError("--threads must be between 0 and 4096");
    PartitionOptions options;
    options.parts = static_cast<std::uint32_t>(parts);
    options.order = parse_vertex_order(order);
    options.threads = threads;
    if (!budget.empty()) {
      options.memory_budget = cli::parse_size(budget, "--memory-budget");
      if (options.memory_budget < (std::uint64_t{1} << 20)) throw UsageError("--memory-budget must be at least 1M");
    }
    options.tmpdir = tmpdir;
    options.runs_on_disk = vm.count("runs-on-disk") > 0 || vm.count("force-external") > 0;
    options.debug_memory = vm.count("debug-memory") > 0;
    if (encoding != "csr" && encoding != "packed") throw UsageError("--block-encoding must be csr or packed, not '" + encoding + "'");
    options.encoding = encoding == "packed" ? BlockEncoding::packed : BlockEncoding::csr;

    // A generator input, or nullopt for a file; a bad spec is a usage error here.
    const std::optional<GeneratorArgs> generated = generator_input(input);
    if (generated && format != "auto")
      throw UsageError("--format " + format + " applies to files; '" + printable(input) + "' is a generator input");
    const bool quiet = vm.count("quiet") > 0 || rank != 0;
    options.progress = !quiet;
    const auto t0 = std::chrono::steady_clock::now();
    GraphHeader h;
    partitioning = true;
    try {
      if (rank_count > 1)
        h = partition_distributed(MPI_COMM_WORLD, {.path = input, .format = parse_input_format(format), .generator = generated},
                                  output, options).header;
      else
        h = generated ? partition_generated(*generated, output, options)
                      : partition_file(input, parse_input_format(format), output, options);
    } catch (const std::bad_alloc&) {
      runs::wait_if_interrupted();
      throw Error("out of memory partitioning '" + printable(input) + "': give a smaller --memory-budget (the graph is then "
                  "partitioned in passes over sorted runs in --tmpdir) or run where more memory is free");
    } catch (...) {
      runs::wait_if_interrupted();  // a signal removed the files under the workers' feet
      throw;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!quiet) {
      std::printf("partitioned %s: %llu vertices, %llu edges (%llu read) into %u x %u blocks in %.3f s%s -> %s",
                  printable(input).c_str(), static_cast<unsigned long long>(h.vertices), static_cast<unsigned long long>(h.edges),
                  static_cast<unsigned long long>(h.input_edges), h.parts, h.parts, s,
                  rank_count > 1 ? (" on " + std::to_string(rank_count) + " ranks").c_str() : "", printable(output).c_str());
      // The file's bytes per edge: what every GPU of a run loads, offsets and all (issue 28 compares formats by it).
      std::error_code size_error;
      const std::uintmax_t bytes = std::filesystem::file_size(output, size_error);
      if (!size_error && h.edges > 0)
        std::printf(" (%.1f MB, %.2f bytes per edge)", double(bytes) / 1e6, double(bytes) / double(h.edges));
      if (h.known_triangles && generated)  // the vertices and edges matched the closed form's
        std::printf("; known triangle count %llu from the generator (in closed form)",
                    static_cast<unsigned long long>(*h.known_triangles));
      else if (h.known_triangles)  // the vertices and edges matched the sidecar's
        std::printf("; known triangle count %llu carried from '%s'", static_cast<unsigned long long>(*h.known_triangles),
                    printable(known_sidecar_path(input)).c_str());
      std::printf("\n");
    }
    // Damage that still decodes is not found by any check of the format: the digests are
    // what a user compares with the publisher's (also in the block file, /source_md5).
    if (!quiet && !h.source_md5.empty())
      std::printf("input MD5 (compare with the publisher's checksums, e.g. NAME.md5sums):\n%s", h.source_md5.c_str());
    return cli::kExitOk;
  });
  if (mpi && (rc == cli::kExitOk || !partitioning || ranks::failed_on_every_rank())) MPI_Finalize();
  if (rc != cli::kExitOk) {
    // A rank that failed alone leaves without MPI_Finalize: the launcher then ends the others.
    // The temporary files are gone already. After a failed write (disk full), HDF5's exit
    // handler can crash closing the file whose close failed: leave without running it.
    std::cout.flush();
    std::fflush(nullptr);
    ::_exit(rc);
  }
  return rc;
}
