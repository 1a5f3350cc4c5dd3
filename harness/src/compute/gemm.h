// The computation of the BenchNBC method: one OpenMP thread per core, each
// running a sequential square GEMM on its own matrices. Knows nothing of MPI,
// so the same code runs in the harness and in nbcguard-compute (which never
// loads MPI) for r_mpi_impact.
#pragma once

#include <sys/types.h>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace nbcguard {

// Seconds on the monotonic clock (CLOCK_MONOTONIC).
double MonotonicNow();

struct ComputeTiming {
  double wall = 0;                 // fork to join of the team (what the overlap run sees)
  std::vector<double> per_thread;  // each thread's own GEMM time
  double slowest() const;
};

class ComputeTeam {
 public:
  explicit ComputeTeam(int threads);
  int threads() const { return threads_; }
  // Allocates and fills each thread's matrices for size n (first touch by
  // the owning thread). Cheap when n is already prepared.
  void Prepare(int n);
  // One GEMM of the prepared size on every thread. With `tick`, the
  // master thread (the one that called Run) calls it after every row of its
  // GEMM: application-side polling of MPI from inside the computation.
  ComputeTiming Run(const std::function<void()>* tick = nullptr);
  // Binds computation thread t to cpus[t] (OS indexes; one per thread).
  // Returns false with *error set when the system refuses.
  bool Bind(const std::vector<int>& cpus, std::string* error);
  // The kernel's thread ids of the team (gettid), for the machine-noise
  // sentinel, which tells the computation's threads from the library's.
  std::vector<pid_t> ThreadIds();
  int size() const { return n_; }

 private:
  // One 4 KiB-aligned block per thread holding A, B and C at fixed,
  // staggered offsets: the kernel's speed must not depend on the allocator
  // of the process it runs in (MPI libraries hook malloc, which moves
  // matrices relative to each other and can make rows alias in the cache).
  struct FreeDeleter {
    void operator()(double* p) const;
  };
  struct Matrices {
    std::unique_ptr<double[], FreeDeleter> block;
    double *a = nullptr, *b = nullptr, *c = nullptr;
  };
  int threads_;
  int n_ = 0;
  std::vector<Matrices> per_thread_;
};

// Repetitions that start together: wait (sleeping) until `start` on the
// clock `now`, one warm-up GEMM, then `reps` GEMMs back to back, exactly as
// the harness's measurements run. Processes of one node that agree on
// `start` compute at the same time whether or not they use MPI, so
// r_mpi_impact compares like with like (on a machine whose cores share
// resources, a process computing alone runs faster). Returns each
// repetition's wall time; *late is set when `start` had already passed.
std::vector<double> RunFromInstant(ComputeTeam& team, int reps, double start,
                                   const std::function<double()>& now, bool* late);
// A time slot for one such block of a computation calibrated to `target`
// seconds (allows 3x contention: a process slower than that is late for
// the next block, which the caller sees), so blocks of successive sizes can
// be given start instants in advance.
double BlockSlot(int reps, double target);
// CLOCK_REALTIME in seconds: agreed between processes that share no MPI.
double RealtimeNow();

// Threads of a process when "auto": the cores this process may run on,
// shared with the other processes of the same node.
int AutoThreads(int processes_on_node);

}  // namespace nbcguard
