// Application-side progression of a running nonblocking collective (paper
// 001; deployments poll and thread-*): the harness, not the library, calls
// MPI_Test while the computation runs.
#pragma once

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace nbcguard {

// Binds the calling thread to one CPU (OS index); false if refused.
bool BindThisThread(int cpu);

// Polling from inside the computation (deployment poll): Tick() is called by
// the computation's master thread after every row of its GEMM and calls
// MPI_Test when `interval` has passed since its last call, until the
// collective completed. The master thread is the one that initialised MPI,
// so MPI_THREAD_FUNNELED is enough.
class InlinePoller {
 public:
  InlinePoller(MPI_Request* req, double interval);
  void Tick();
  int tests() const { return tests_; }

 private:
  MPI_Request* req_;
  double interval_, next_;
  bool done_ = false;
  int tests_ = 0;
};

// A progress thread of the rank (deployments thread-*), bound to one core.
// Between Begin() and End() it calls MPI_Test on the request every
// `interval` (sleeping in between) until the collective completed; outside
// them it sleeps on a condition variable. The main thread makes no MPI call
// between Begin and End, and End returns only once the thread is out of
// MPI: MPI calls never overlap, so MPI_THREAD_SERIALIZED is enough.
class ProgressThread {
 public:
  ProgressThread(int core, double interval);
  ~ProgressThread();
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;

  void Begin(MPI_Request* req);
  // Stops polling; returns the MPI_Test calls made since Begin.
  int End();
  // Waits until the thread tried to bind itself; true if it is bound.
  bool WaitBound() const;

 private:
  enum class State { kIdle, kPolling, kStopping, kQuit };
  void Loop(int core);

  double interval_;
  std::mutex mu_;
  std::condition_variable cv_;
  State state_ = State::kIdle;
  MPI_Request* req_ = nullptr;
  int tests_ = 0;
  std::atomic<bool> bound_{false}, tried_{false};
  std::thread thread_;
};

}  // namespace nbcguard
