// How the ranks were started, checked before any work: a rank that a launcher bound to one
// core of several (Open MPI's mpirun binds each rank to a core at 2 ranks or fewer, taskset,
// srun without --cpus-per-task) loads blocks and counts on that one core, several times
// slower, with no error to show for it. The program warns, saying what to pass.
#pragma once

#include <mpi.h>

#include <string>

namespace tricount {

struct CoreBinding {
  unsigned usable = 1;     // cores this process may run on (its CPU affinity)
  unsigned available = 1;  // cores its node offers it: its cgroup's cpuset, else the online cores
};
CoreBinding core_binding();

// Collective. On rank 0: one warning line naming the working ranks (every rank but a
// scheduler-only rank 0; rank 0 too when `rank0_works`) that may run on a single core of
// several, and what to pass to the launcher at hand; "" when there are none (and on the
// other ranks).
std::string single_core_warning(MPI_Comm comm, bool rank0_works);

}  // namespace tricount
