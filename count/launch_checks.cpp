#include "count/launch_checks.hpp"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace tricount {

namespace {

// CPUs in a cpuset list such as "0-3,8,10-11"; 0 when it cannot be read.
unsigned count_cpu_list(const std::string& list) {
  unsigned count = 0;
  std::stringstream items(list);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty() || item == "\n") continue;
    unsigned lo = 0, hi = 0;
    const std::size_t dash = item.find('-');
    try {
      lo = static_cast<unsigned>(std::stoul(item.substr(0, dash)));
      hi = dash == std::string::npos ? lo : static_cast<unsigned>(std::stoul(item.substr(dash + 1)));
    } catch (const std::exception&) {
      return 0;
    }
    if (hi < lo) return 0;
    count += hi - lo + 1;
  }
  return count;
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The CPUs this process's cgroup allows (a container's or a batch job's cpuset), or 0. Only
// a launcher's binding inside that set is worth a warning; the set itself is the machine.
unsigned cgroup_cpus() {
  std::ifstream cgroup("/proc/self/cgroup");
  std::string line;
  while (std::getline(cgroup, line)) {
    if (line.rfind("0::", 0) == 0) {  // cgroup v2
      const unsigned n = count_cpu_list(first_line("/sys/fs/cgroup" + line.substr(3) + "/cpuset.cpus.effective"));
      if (n) return n;
    }
  }
  if (const unsigned n = count_cpu_list(first_line("/sys/fs/cgroup/cpuset.cpus.effective"))) return n;
  return count_cpu_list(first_line("/sys/fs/cgroup/cpuset/cpuset.effective_cpus"));  // cgroup v1
}

}  // namespace

CoreBinding core_binding() {
  CoreBinding b;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) b.usable = static_cast<unsigned>(CPU_COUNT(&set));
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  b.available = online > 0 ? static_cast<unsigned>(online) : b.usable;
  if (const unsigned allowed = cgroup_cpus(); allowed > 0 && allowed < b.available) b.available = allowed;
  if (b.usable < 1) b.usable = 1;
  return b;
}

std::string single_core_warning(MPI_Comm comm, bool rank0_works) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const CoreBinding mine = core_binding();
  const bool works = size == 1 || rank != 0 || rank0_works;
  int words[2] = {works && mine.usable == 1 && mine.available > 1 ? 1 : 0, static_cast<int>(mine.available)};
  std::vector<int> all(rank == 0 ? 2 * static_cast<std::size_t>(size) : 0);
  MPI_Gather(words, 2, MPI_INT, all.data(), 2, MPI_INT, 0, comm);
  if (rank != 0) return "";
  std::vector<int> bound;
  int cores = 0;
  for (int r = 0; r < size; ++r)
    if (all[2 * static_cast<std::size_t>(r)]) {
      bound.push_back(r);
      cores = all[2 * static_cast<std::size_t>(r) + 1];
    }
  if (bound.empty()) return "";
  std::string who = bound.size() == 1 ? "rank " : "ranks ";
  for (std::size_t k = 0; k < bound.size() && k < 8; ++k) who += (k ? "," : "") + std::to_string(bound[k]);
  if (bound.size() > 8) who += ",...";
  // What to pass depends on who started the ranks (rank 0's environment says).
  std::string fix;
  if (std::getenv("OMPI_COMM_WORLD_SIZE"))
    fix = "Open MPI's mpirun binds each rank to one core at 2 ranks or fewer: pass --bind-to none (scripts/mpi-env sets it)";
  else if (std::getenv("SLURM_STEP_ID"))
    fix = "give srun --cpus-per-task=N (the slurm/ scripts do)";
  else
    fix = "the launcher or taskset limited it: give it more cores (with mpirun, --bind-to none)";
  return "warning: " + who + (bound.size() == 1 ? " may" : " may each") + " run on only 1 of the node's " + std::to_string(cores) +
         " cores (CPU affinity), so block loading and counting there share one core; " + fix;
}

}  // namespace tricount
