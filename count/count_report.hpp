// What a count reports (CountResult in count/count_job.hpp): each rank's statistics,
// gathered to rank 0, and the run as the --json report and the one-line summary
// (count_report.cpp, where one table of the statistics' fields drives the gather and the JSON).
#pragma once

#include <mpi.h>

#include <vector>

#include "count/count_job.hpp"

namespace tricount {

// Every rank's statistics, in rank order, on rank 0 (empty on the others). Collective.
std::vector<RankStats> gather_rank_stats(MPI_Comm comm, const RankStats& mine);

}  // namespace tricount
