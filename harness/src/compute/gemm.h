// The computation of the BenchNBC method: one OpenMP thread per core, each
// running a sequential square GEMM on its own matrices. Knows nothing of MPI,
// so the same code runs in the harness and in nbcguard-compute (which never
// loads MPI) for r_mpi_impact.
#pragma once

#include <vector>

namespace nbcguard {

// Seconds on the monotonic clock (CLOCK_MONOTONIC).
double MonotonicNow();

struct ComputeTiming {
  double wall = 0;                  // fork to join of the team (what the overlap run sees)
  std::vector<double> per_thread;   // each thread's own GEMM time
  double slowest() const;
};

class ComputeTeam {
 public:
  explicit ComputeTeam(int threads);
  int threads() const { return threads_; }
  // Allocates and fills each thread's matrices for size n (first touch by
  // the owning thread). Cheap when n is already prepared.
  void Prepare(int n);
  // One GEMM of the prepared size on every thread.
  ComputeTiming Run();
  int size() const { return n_; }

 private:
  struct Matrices {
    std::vector<double> a, b, c;
  };
  int threads_;
  int n_ = 0;
  std::vector<Matrices> per_thread_;
};

// Threads of a process when "auto": the cores this process may run on,
// shared with the other processes of the same node.
int AutoThreads(int processes_on_node);

}  // namespace nbcguard
