#include "count/setup_times.hpp"

#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

namespace tricount {
namespace {

// The fallback origin: set while the program is loaded, before main.
const std::chrono::steady_clock::time_point loaded = std::chrono::steady_clock::now();

// /proc/self/stat's starttime (field 22: clock ticks after boot) against CLOCK_BOOTTIME; < 0
// when either cannot be read.
double from_proc() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  if (!std::getline(in, line)) return -1;
  const std::size_t close = line.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return -1;
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  unsigned long long ticks = 0;
  for (int k = 3; k <= 22 && fields >> field; ++k)
    if (k == 22) ticks = std::stoull(field);
  const long per_second = ::sysconf(_SC_CLK_TCK);
  timespec now{};
  if (ticks == 0 || per_second <= 0 || ::clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1;
  const double since = double(now.tv_sec) + double(now.tv_nsec) * 1e-9 - double(ticks) / double(per_second);
  return since >= 0 ? since : -1;
}

// The launcher's word on this process's rank and the job's size (Open MPI, PMIx, Slurm);
// -1 where none says.
long launcher_value(std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (const char* v = std::getenv(name); v && *v) return std::strtol(v, nullptr, 10);
  return -1;
}

}  // namespace

std::optional<int> early_gpu_rank(int argc, char** argv) {
  const long rank = launcher_value({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID"});
  const long size = launcher_value({"OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS"});
  if (rank == 0 && size > 1) return std::nullopt;
  for (int a = 1; a < argc; ++a) {
    const std::string_view arg = argv[a];
    const std::string_view next = a + 1 < argc ? std::string_view(argv[a + 1]) : std::string_view();
    if (arg == "--backend=cpu" || arg == "-bcpu" || ((arg == "--backend" || arg == "-b") && next == "cpu")) return std::nullopt;
  }
  // This worker's node-local rank (count_job.cpp's start_backends picks its GPU by it): a
  // process alone (no launcher) is rank 0; unknown otherwise (the driver only).
  const long local_rank = launcher_value({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"});
  if (local_rank < 0) return size <= 1 ? 0 : -1;
  return static_cast<int>(local_rank);
}

std::future<bool> start_gpu_driver(int argc, char** argv) {
  const std::optional<int> local_rank = early_gpu_rank(argc, argv);
  if (!local_rank) return {};
  // The backend's start touches every kernel variant: loaded with the context, beside MPI_Init,
  // not one by one on the critical path as lazy loading would (bench/RESULTS.md). Set before
  // any thread reads the environment; a user's own setting stays.
  ::setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  // The driver's start reads the environment (getenv) and MPI_Init changes it (setenv): glibc's
  // getenv is not safe beside setenv (a run crashed so on the GPU host), so MPI_Init waits for the
  // driver; only the GPU's context is made beside it.
  auto driver = std::make_shared<std::promise<void>>();
  std::future<void> driver_started = driver->get_future();
  std::future<bool> started = std::async(std::launch::async, [r = *local_rank, driver] {
    bool told = false;
    const auto tell = [&] {
      if (!told) told = true, driver->set_value();
    };
    try {
      const bool ok = start_gpu(r, tell);
      tell();
      return ok;
    } catch (...) {
      tell();
      throw;
    }
  });
  driver_started.wait();
  return started;
}

double seconds_since_process_start() {
  double s = -1;
  try {
    s = from_proc();
  } catch (const std::exception&) {
    s = -1;
  }
  if (s >= 0) return s;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - loaded).count();
}

}  // namespace tricount
