// This process's rank and the number of ranks in MPI_COMM_WORLD, for the tests that run
// under mpiexec (tricount_mpi_gtest).
#pragma once

#include <mpi.h>

namespace tricount::testing {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

}  // namespace tricount::testing
