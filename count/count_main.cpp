// tricount-count: the MPI program. Rank 0 schedules, every other rank counts; with one rank,
// rank 0 does both. Run under mpirun -np P or srun.
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "count/count_job.hpp"
#include "count/verify.hpp"
#include "src/cli.hpp"

namespace {

void write_json(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::endl;
    return;
  }
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp);
    out << text << '\n';
    if (!out.flush()) throw tricount::Error("cannot write JSON to '" + temp + "'");
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw tricount::Error("cannot rename '" + temp + "' to '" + path + "'");
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tricount;
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) std::cerr.setstate(std::ios::failbit);  // rank 0 speaks for the job
  const int code = cli::run_main("tricount-count", [&] {
    cli::po::options_description opts("options");
    CountOptions options;
    std::string backend, json, splits = "1", cuda_tuning;
    std::uint64_t fault_task = kNoTask;
    std::string cache = "4G";
    opts.add_options()
      ("input,i", cli::po::value(&options.input)->required(), "HDF5 block file written by tricount-partition")
      ("workload-splits,m", cli::po::value(&splits)->default_value("1"),
       "split each (i,j,k) subtask into m tasks (m * n^3 in all); auto: about 4 tasks per worker")
      ("backend,b", cli::po::value(&backend)->default_value("auto"), "counting backend: auto (GPU when there is one), cpu or cuda")
      ("threads,t", cli::po::value(&options.backend_options.threads)->default_value(0), "CPU backend threads per worker (0 = all cores)")
      ("cta-threshold", cli::po::value(&options.backend_options.cta_degree_threshold)->default_value(100),
       "CUDA: vertices with at least this many neighbours get a whole CTA")
      ("chunk-size", cli::po::value(&options.backend_options.chunk_size)->default_value(0), "CUDA: vertices per dynamic grab (0 = default)")
      ("cuda-tuning", cli::po::value(&cuda_tuning),
       ("CUDA, for tests and benchmarks: kernel variants as key=value,... over the defaults; keys:\n" + cuda_tuning_keys()).c_str())
      ("cache-size", cli::po::value(&cache)->default_value("4G"), "host memory per worker for cached blocks")
      ("loader-threads", cli::po::value(&options.worker_options.loader_threads)->default_value(0),
       "threads per worker that read and check blocks (0 = the node's cores shared among its workers, within the cores the rank may use)")
      ("allow-idle-workers", "run even when there are more workers than tasks")
      ("journal", cli::po::value(&options.journal), "append each finished task to this journal (fsynced per record)")
      ("resume", "skip the tasks that --journal records as finished and add their counts")
      ("no-prefetch", "do not load the next task's blocks while counting")
      ("no-mmap", "read blocks into memory instead of mapping the block file (for file systems where mapping is slow)")
      ("verify", "re-count on rank 0 with an independent merge-based counter and fail if the counts differ")
      ("json", cli::po::value(&json), "write a JSON report to PATH (- for stdout)")
      ("quiet,q", "print no summary line");
    cli::po::options_description testing("options for tests only");
    testing.add_options()
      ("test-fault-at-task", cli::po::value(&fault_task), "the worker given this task id fails with an error")
      ("test-crash", "with --test-fault-at-task: the worker kills itself with SIGKILL instead");
    opts.add(testing);
    cli::po::variables_map vm;
    const bool go = cli::parse(argc, argv, opts, vm, "mpirun -np P tricount-count --input FILE.h5 [options]",
                               "Counts the triangles of a partitioned graph exactly. Rank 0 hands out the n^3 * m subtasks\n"
                               "dynamically; every other rank loads each subtask's three blocks and counts them; the 64-bit\n"
                               "counts are summed with MPI_Reduce. With one rank, rank 0 does both jobs.");
    if (!go) return cli::kExitOk;
    if (splits == "auto") {
      options.splits = 0;
    } else {
      try {
        std::size_t used = 0;
        const unsigned long m = std::stoul(splits, &used);
        if (used != splits.size() || m == 0 || m > (1u << 20)) throw std::invalid_argument(splits);
        options.splits = static_cast<std::uint32_t>(m);
      } catch (const std::exception&) {
        throw UsageError("--workload-splits: '" + splits + "' is not a positive number or auto");
      }
    }
    if (options.backend_options.threads > 4096) throw UsageError("--threads must be between 0 and 4096");
    if (options.worker_options.loader_threads > 4096) throw UsageError("--loader-threads must be between 0 and 4096");
    if (options.backend_options.cta_degree_threshold == 0 || options.backend_options.cta_degree_threshold > (1u << 30))
      throw UsageError("--cta-threshold must be between 1 and 2^30");
    if (options.backend_options.chunk_size > (1u << 20)) throw UsageError("--chunk-size must be at most 2^20");
    options.resume = vm.count("resume") > 0;
    options.worker_options.prefetch = vm.count("no-prefetch") == 0;
    options.worker_options.map_blocks = vm.count("no-mmap") == 0;
    options.worker_options.fault_at_task = fault_task;
    options.worker_options.crash_on_fault = vm.count("test-crash") > 0;
    options.backend = parse_backend_kind(backend);
    options.backend_options.cuda_tuning = parse_cuda_tuning(cuda_tuning);
    options.worker_options.cache_bytes = cli::parse_size(cache, "--cache-size");
    options.allow_idle_workers = vm.count("allow-idle-workers") > 0;
    const CountResult result = run_count(MPI_COMM_WORLD, options);
    int verified_ok = 1;
    std::string verify_message;
    if (vm.count("verify") && rank == 0) {
      const count_t expected = verify_count(BlockFileReader(options.input));
      verified_ok = expected == result.triangles;
      verify_message = verified_ok ? "verified: the independent counter agrees (" + std::to_string(expected) + ")"
                                   : "VERIFICATION FAILED: the independent counter found " + std::to_string(expected) +
                                         " triangles, the run " + std::to_string(result.triangles);
    }
    MPI_Bcast(&verified_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      if (!json.empty()) write_json(json, result.to_json().str());
      if (!vm.count("quiet")) (json == "-" ? std::cerr : std::cout) << "tricount: " << result.summary() << std::endl;
      if (!verify_message.empty()) (json == "-" ? std::cerr : std::cout) << "tricount: " << verify_message << std::endl;
    }
    if (!verified_ok) throw Error("the count does not match the verifier");
    return cli::kExitOk;
  });
  MPI_Finalize();
  return code;
}
