// Where a rank's time goes outside the count itself: from the process's start to the
// report's clock (tricount-count's main), the setup steps of run_count, the backend's
// creation on its own thread, and the release of what the workers held. Each rank keeps its
// own (SetupTimes); the report gives them per rank and as min / mean / max timers.
#pragma once

#include <chrono>
#include <future>
#include <optional>
#include <utility>

#include "worker/backend.hpp"

namespace tricount {

struct SetupTimes {
  // Before the report's clock starts (tricount-count's main; 0 from other callers of run_count).
  double before_main = 0;    // process start (the kernel's record of it) to main()
  double mpi_init = 0;       // MPI_Init
  double launch_checks = 0;  // the core-binding check (collective)
  double prepare_input = 0;  // GRAPH checked, or partitioned first by rank 0 (the others wait)
  // Filled by run_count. Its setup, each step on this rank including its wait for the others:
  double process_start = 0;  // process start to run_count's start (the report's t0)
  double setup = 0;          // this rank's setup: run_count's start to its step 4's end
  double worker_comm = 0;    // 0. the workers' communicator, node-local rank (the backend starts)
  double check_input = 0;    // 1. rank 0 checks the file, plan and journal (the others wait)
  double share_identity = 0; // 2. m and the file's identity broadcast
  double open_file = 0;      // 3. a worker opens the block file (HDF5 open, header)
  double identity_check = 0; //    ... checks it is the file rank 0 checked (every block's checksum attribute)
  double backend_wait = 0;   //    ... waits for its backend to be ready
  double node_window = 0;    // 3b. the node's shared record of checked blocks
  double share_backend = 0;  // 4. the backend's and device's names broadcast
  // Creating the backend, on its own thread from step 0 (overlapping steps 1 to 3):
  double backend = 0;
  BackendStartTimes backend_steps;
  double teardown = 0;       // 9. the backend, resident blocks and node window released
};

// Starts the GPU driver on a thread of its own and returns once the driver has started (it
// reads the environment, which MPI_Init changes), leaving the context of this worker's GPU
// to be made on that thread beside MPI_Init (each takes a large share of a second), where the
// launcher's variables give its node-local rank: the backend, created later on its own
// thread, finds them, its kernels loaded with the context (CUDA_MODULE_LOADING=EAGER unless
// the user set the variable). Not
// where the launcher's variables name this process rank 0 of several (the scheduler counts
// nothing) nor with --backend cpu among the arguments. The future says whether a GPU is
// visible; its destructor waits for the thread.
std::future<bool> start_gpu_driver(int argc, char** argv);
// Its decision: nullopt (nothing started), -1 (the driver only) or the node-local rank whose
// GPU context it creates.
std::optional<int> early_gpu_rank(int argc, char** argv);

// Seconds since this process started (the kernel's start time, to its 10 ms tick; where
// /proc cannot tell, since the program was loaded).
double seconds_since_process_start();

// Adds the wall seconds `step` takes to `into` (also when it throws) and returns its result:
// the one way the setup steps are timed.
template <class Step>
decltype(auto) timed(double& into, Step&& step) {
  struct Add {
    double& into;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    ~Add() { into += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
  } add{into};
  return std::forward<Step>(step)();
}

}  // namespace tricount
