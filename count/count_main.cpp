// tricount-count: the MPI program. Rank 0 schedules, every other rank counts; with one rank,
// rank 0 does both. Runs as one process (tricount-count GRAPH), under mpirun -np P or srun.
// GRAPH is a block file, or an edge file that rank 0 first partitions (count/prepare_input.hpp).
#include <mpi.h>

#include <exception>
#include <iostream>
#include <new>
#include <unistd.h>

#include "count/count_job.hpp"
#include "count/launch_checks.hpp"
#include "count/prepare_input.hpp"
#include "count/setup_times.hpp"
#include "count/verify.hpp"
#include "src/cli.hpp"
#include "src/output_file.hpp"
#include "src/version.hpp"

int main(int argc, char** argv) {
  using namespace tricount;
  // Before any thread starts: SIGTERM/SIGINT/SIGHUP remove the outputs' temporaries (and the
  // scheduler says which tasks were in flight), then exit.
  output::install_signal_cleanup("tricount-count", "no table or report written");
  SetupTimes started;  // before the report's clock: given to run_count
  started.before_main = seconds_since_process_start();
  const std::future<bool> gpu_driver = start_gpu_driver(argc, argv);  // beside MPI_Init
  timed(started.mpi_init, [&] { MPI_Init(&argc, &argv); });
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) std::cerr.setstate(std::ios::failbit);  // rank 0 speaks for the job
  const int code = cli::run_main("tricount-count", [&] {
    cli::po::options_description opts("options");
    CountOptions options;
    std::string backend, json, splits = "auto", cuda_tuning;
    std::uint64_t fault_task = kNoTask;
    std::string cache, schedule = "dynamic", format = "auto";
    InputRequest graph;
    std::uint64_t parts = 0;
    opts.add_options()
      ("input,i", cli::po::value(&graph.input),
       "GRAPH (also the first bare argument): a block file written by tricount-partition, or an edge list, Matrix "
       "Market, bin32/bin64 or WebGraph file, which rank 0 first partitions into a block file")
      ("format,f", cli::po::value(&format)->default_value("auto"),
       "GRAPH's format: auto (a block file by its HDF5 signature or .h5 name, else as tricount-partition detects), "
       "edgelist, mtx, bin32, bin64 or webgraph")
      ("parts,n", cli::po::value(&parts),
       "with an edge-file GRAPH: partition into n x n blocks (default: 1 when the graph fits half of each worker's "
       "--cache-size, else the fewest parts whose block triple does)")
      ("save-blocks", cli::po::value(&graph.save_blocks),
       "with an edge-file GRAPH: write the block file to PATH and keep it (default: a temporary block file, removed at exit)")
      ("tmpdir", cli::po::value(&graph.tmpdir),
       "with an edge-file GRAPH: folder for the temporary block file and the partitioner's sorted runs (default: $TMPDIR "
       "or /tmp; with ranks on several nodes the block file goes next to GRAPH, where every node must see it)")
      ("workload-splits,m", cli::po::value(&splits)->default_value("auto"),
       "split each (i,j,k) subtask into m tasks (n^3 * m in all); auto: a task per worker at least, and the m that "
       "finishes soonest when each split repeats a little of its subtask (m = 1 for one worker)")
      ("count-parts", cli::po::value(&options.count_parts),
       "count the block file's n parts as n_c, a divisor of n: each task's blocks are re-blocked from the file's "
       "(n / n_c)^2 blocks as it needs them (on the GPU with the CUDA backend), so the count costs what an n_c-part "
       "file's would (an n-part count walks each edge about n / n_c times as often), with n_c^3 * m tasks holding "
       "(n / n_c)^2 times the bytes each (default: the fewest parts whose blocks fit every worker's GPU, within half "
       "its memory; n with the CPU backend, --per-edge or --load-path forward)")
      ("schedule", cli::po::value(&schedule)->default_value("dynamic"),
       "dynamic: rank 0 hands out task ids as workers ask, blocks loaded on demand; static: rank 0 assigns every task "
       "before counting (costliest first, to the least loaded worker, preferring one holding the task's blocks), each "
       "worker loads and checks all its blocks (they must fit --cache-size), all ranks meet, then the count phase runs "
       "with the blocks resident (the report gives both phases)")
      ("ranks-per-node", cli::po::value(&options.ranks_per_node),
       "group the ranks into nodes of K consecutive ranks of each host (default: the hosts, as MPI_COMM_TYPE_SHARED "
       "groups them), so that one host runs the multi-node path: with --schedule static a node's workers share one "
       "sub-cube of the tasks and --load-path forward reads each block once per job; GPUs, cores and --cache-size "
       "still follow the host")
      ("load-path", cli::po::value(&options.load_path)->default_value("auto"),
       "how --schedule static's workers get their blocks: file (each worker reads and checks what it needs from the "
       "file), forward (each block is read and checked once per job by one worker and sent over MPI to one worker on "
       "each other node that needs it, which passes it to the others of its node: for a file system slower than the "
       "network), or auto (forward on several hosts, else file). The dynamic schedule reads from the file: forward "
       "with it is an error")
      ("backend,b", cli::po::value(&backend)->default_value("auto"), "counting backend: auto (GPU when there is one), cpu or cuda")
      ("threads,t", cli::po::value(&options.backend_options.threads)->default_value(0), "CPU backend threads per worker (0 = the node's cores shared among its workers, within the cores the rank may use)")
      ("cta-threshold", cli::po::value(&options.backend_options.cta_degree_threshold)->default_value(0),
       "CUDA: vertices with at least this many neighbours get a whole CTA (0 = by the task: 100, or 128 for blocks of at "
       "least 2^19 rows)")
      ("chunk-size", cli::po::value(&options.backend_options.chunk_size)->default_value(0), "CUDA: vertices per dynamic grab (0 = default)")
      ("cuda-tuning", cli::po::value(&cuda_tuning),
       ("CUDA, for tests and benchmarks: kernel variants as key=value,... over the defaults; keys:\n" + cuda_tuning_keys()).c_str())
      ("cache-size", cli::po::value(&cache),
       "host memory per worker for cached blocks (e.g. 16G; default: half the memory the node has available, or its "
       "cgroup's limit when lower, shared among the node's workers)")
      ("loader-threads", cli::po::value(&options.worker_options.loader_threads)->default_value(0),
       "threads per worker that read and check blocks (0 = the node's cores shared among its workers, within the cores the rank may use)")
      ("allow-idle-workers", "run even when there are more workers than tasks")
      ("journal", cli::po::value(&options.journal), "append each finished task to this journal (fsynced per record)")
      ("resume", "skip the tasks that --journal records as finished and add their counts")
      ("no-prefetch", "do not load the next task's blocks while counting")
      ("no-mmap", "read blocks into memory instead of mapping the block file (for file systems where mapping is slow)")
      ("verify", "re-count on rank 0 with an independent merge-based counter and fail if the counts differ")
      ("json", cli::po::value(&json), "write a JSON report to PATH (- for stdout; checked before counting, written "
       "after the summary line; a device, a FIFO or /dev/stdout is written in place, a symlink written through)")
      ("per-vertex", cli::po::value(&options.per_vertex),
       "also write each vertex's input id, degree, triangles and local clustering coefficient to PATH: a text table "
       "if PATH ends in .tsv, else HDF5 (/vertex, /degree, /triangles, /clustering); adds global_clustering, "
       "average_clustering and top_vertices to the report (checked before counting)")
      ("per-edge", cli::po::value(&options.per_edge),
       "also write each undirected edge's input ids u < v and its triangles (its support) to PATH: a text table if "
       "PATH ends in .tsv, else HDF5 (/u, /v, /triangles), block by block; adds edges_in_triangles and top_edges to "
       "the report (checked before counting)")
      ("progress-interval", cli::po::value(&options.progress_interval_seconds)->default_value(10),
       "rank 0 prints a progress line (tasks done, in flight, waiting; the task in flight longest) to stderr every "
       "this many seconds while counting, so that a stalled job shows in a batch log (0 = never)")
      ("quiet,q", "print no summary line and no progress lines");
    cli::po::options_description testing("options for tests only");
    testing.add_options()
      ("test-fault-at-task", cli::po::value(&fault_task), "the worker given this task id fails with an error")
      ("test-crash", "with --test-fault-at-task: the worker kills itself with SIGKILL instead")
      ("test-stop-at-task", cli::po::value(&options.test_stop_at_task),
       "the worker given this task id stops itself with SIGSTOP (send it SIGCONT to go on)")
      ("test-replace-input", cli::po::value(&options.test_replace_input_with),
       "rank 0 moves this block file over --input once it has checked --input (as a re-run of tricount-partition would)");
    opts.add(testing);
    cli::po::variables_map vm;
    cli::po::positional_options_description positional;
    positional.add("input", 1);
    const bool go = cli::parse(argc, argv, opts, vm,
                               "tricount-count GRAPH [options]\n"
                               "       mpirun -np P tricount-count GRAPH [options]   (or srun -n P ...)",
                               "Counts the triangles of a graph exactly. GRAPH is an edge list (SNAP, GraphChallenge),\n"
                               "Matrix Market, binary or WebGraph file, which rank 0 first partitions into a block file,\n"
                               "or a block file from tricount-partition. Rank 0 hands out the n^3 * m tasks dynamically;\n"
                               "every other rank loads each task's three blocks and counts them; the 64-bit counts are\n"
                               "summed with MPI_Reduce. With one rank (no mpirun), rank 0 does both jobs.",
                               /*hidden=*/nullptr, {"cuda-tuning"}, &positional);
    if (!go) return cli::kExitOk;
    if (graph.input.empty()) throw UsageError("give the graph to count: tricount-count GRAPH, or --input GRAPH (see --help)");
    graph.format = parse_input_format(format);
    if (vm.count("parts")) {
      check_parts(parts);
      graph.parts = static_cast<std::uint32_t>(parts);
    }
    if (vm.count("count-parts") && options.count_parts == 0)
      throw UsageError("--count-parts must be a divisor of the block file's parts (got 0); leave it out to count them as they are");
    options.splits = parse_workload_splits(splits);
    if (options.backend_options.threads > 4096) throw UsageError("--threads must be between 0 and 4096");
    if (options.worker_options.loader_threads > 4096) throw UsageError("--loader-threads must be between 0 and 4096");
    if (options.backend_options.cta_degree_threshold > (1u << 30))
      throw UsageError("--cta-threshold must be between 1 and 2^30 (or 0: by the task)");
    if (options.backend_options.chunk_size > (1u << 20)) throw UsageError("--chunk-size must be at most 2^20");
    if (!(options.progress_interval_seconds >= 0 && options.progress_interval_seconds <= 86400))
      throw UsageError("--progress-interval must be between 0 (no progress lines) and 86400 seconds");
    if (vm.count("quiet")) options.progress_interval_seconds = 0;
    if (schedule != "dynamic" && schedule != "static")
      throw UsageError("--schedule: '" + schedule + "' is not dynamic or static");
    options.static_schedule = schedule == "static";
    if (vm.count("ranks-per-node") && options.ranks_per_node < 1)
      throw UsageError("--ranks-per-node must be at least 1 (got " + std::to_string(options.ranks_per_node) +
                       "); leave it out to group ranks by host");
    if (options.load_path != "auto" && options.load_path != "file" && options.load_path != "forward")
      throw UsageError("--load-path: '" + options.load_path + "' is not auto, file or forward");
    if (options.load_path == "forward" && !options.static_schedule)
      throw UsageError("--load-path forward needs --schedule static (the dynamic schedule reads each task's blocks from "
                       "the file when it is handed out): add --schedule static, or leave --load-path out");
    options.resume = vm.count("resume") > 0;
    options.worker_options.prefetch = vm.count("no-prefetch") == 0;
    options.worker_options.map_blocks = vm.count("no-mmap") == 0;
    options.worker_options.fault_at_task = fault_task;
    options.worker_options.crash_on_fault = vm.count("test-crash") > 0;
    options.backend = parse_backend_kind(backend);
    options.backend_options.cuda_tuning = parse_cuda_tuning(cuda_tuning);
    if (!cache.empty()) {
      options.worker_options.cache_bytes = cli::parse_size(cache, "--cache-size");
      if (options.worker_options.cache_bytes == 0) throw UsageError("--cache-size must be positive (got '" + cache + "')");
    }
    options.allow_idle_workers = vm.count("allow-idle-workers") > 0;
    options.json = json;
    // Before any work: a launcher that bound a working rank to one core makes it several times slower.
    // Rank 0 works when it is the only rank or partitions GRAPH first (only its own view counts).
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const bool rank0_works = ranks == 1 || graph.format != InputFormat::Auto || !is_block_file(graph.input);
    const std::string warning = timed(started.launch_checks, [&] { return single_core_warning(MPI_COMM_WORLD, rank0_works); });
    if (!warning.empty()) std::cerr << "tricount-count: " << warning << std::endl;
    // GRAPH: a block file as it is, anything else partitioned first by rank 0 (count/prepare_input.hpp).
    graph.cache_bytes = options.worker_options.cache_bytes;
    graph.progress = !vm.count("quiet") && ::isatty(STDERR_FILENO);
    graph.outputs = {{json, "--json"}, {options.journal, "--journal"}, {options.per_vertex, "--per-vertex"},
                     {options.per_edge, "--per-edge"}};
    const PreparedInput prepared = timed(started.prepare_input, [&] { return prepare_input(MPI_COMM_WORLD, graph); });
    options.input = prepared.block_file;
    options.setup_times = started;
    std::ostream& say = output::is_standard_output(json) ? std::cerr : std::cout;
    if (rank == 0 && !prepared.note.empty() && !vm.count("quiet")) say << "tricount: " << prepared.note << std::endl;
    const CountResult result = [&] {
      try {
        return run_count(MPI_COMM_WORLD, options);
      } catch (const std::bad_alloc&) {
        throw Error("out of memory counting '" + printable(options.input) + "': give a smaller --cache-size, partition with more "
                    "--parts (smaller blocks) or run fewer ranks per node");
      }
    }();
    int verified_ok = 1;
    std::string verify_message;
    // Rank 0 verifies; an error there ends every rank (the others wait for its verdict).
    if (vm.count("verify")) collective_step(MPI_COMM_WORLD, [&] {
      if (rank != 0) return;
      const BlockFileReader counted(options.input);
      check_same_input(counted, result.input_identity);
      const count_t expected = verify_count(counted);
      verified_ok = expected == result.triangles;
      verify_message = verified_ok ? "verified: the independent counter agrees (" + std::to_string(expected) + ")"
                                   : "VERIFICATION FAILED: the independent counter found " + std::to_string(expected) +
                                         " triangles, the run " + std::to_string(result.triangles);
    });
    MPI_Bcast(&verified_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    // A step for every rank: an output that fails on rank 0 (a full disk) ends the others too,
    // which otherwise wait in the next collective for a rank that has left.
    collective_step(MPI_COMM_WORLD, [&] {
      if (rank != 0) return;
      // The summary first: a JSON or per-vertex write that fails (disk full) still leaves the
      // count on record.
      if (!vm.count("quiet")) say << "tricount: " << result.summary() << std::endl;
      if (!verify_message.empty()) say << "tricount: " << verify_message << std::endl;
      // The per-vertex and per-edge tables go into place even when the report could not be written, and
      // never for a count the verifier refuted.
      std::exception_ptr report_failed;
      try {
        if (!json.empty()) {
          JsonObject report = result.to_json();
          report.add("version", std::string(kVersion) + " (commit " + kCommit + ")");
          if (prepared.partitioned) {
            JsonObject partition;
            partition.add("source", graph.input).add("format", prepared.format).add("parts", prepared.parts)
                .add("seconds", prepared.seconds);
            if (prepared.temporary) partition.add_raw("blocks", "null");
            else partition.add("blocks", prepared.block_file);
            report.add("partition", partition);
          } else {
            report.add_raw("partition", "null");
          }
          output::write_text_file(json, "--json", report.str() + "\n");
        }
      } catch (const std::exception&) {
        report_failed = std::current_exception();
      }
      if (verified_ok) result.commit_outputs();
      if (report_failed) std::rethrow_exception(report_failed);
    });
    if (!verified_ok) throw Error("the count does not match the verifier");
    // The block file's known count (from the generator's closed form): a mismatch fails.
    std::uint64_t known_mismatch = rank == 0 && result.header.known_triangles && *result.header.known_triangles != result.triangles;
    MPI_Bcast(&known_mismatch, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (known_mismatch) {
      if (rank != 0) throw Error("the count differs from the block file's known count");
      throw Error("the count, " + std::to_string(result.triangles) + " triangles, differs from the known count in '" +
                  printable(options.input) + "', " + std::to_string(*result.header.known_triangles) +
                  " (the generator's closed form, carried from its FILE.known by tricount-partition): the count or the "
                  "generator is wrong; re-count with --verify to tell which");
    }
    return cli::kExitOk;
  });
  MPI_Finalize();
  return code;
}
