#include "progress_thread.h"

#include <pthread.h>
#include <sched.h>
#include <chrono>

#include "comm.h"
#include "gemm.h"

namespace nbcguard {

bool BindThisThread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

InlinePoller::InlinePoller(MPI_Request* req, double interval)
    : req_(req), interval_(interval), next_(MonotonicNow() + interval) {}

void InlinePoller::Tick() {
  if (done_) return;
  const double now = MonotonicNow();
  if (now < next_) return;
  int flag = 0;
  CheckMpi(MPI_Test(req_, &flag, MPI_STATUS_IGNORE), "MPI_Test (poll)");
  ++tests_;
  done_ = flag != 0;
  next_ = now + interval_;
}

ProgressThread::ProgressThread(int core, double interval) : interval_(interval) {
  thread_ = std::thread([this, core] { Loop(core); });
}

ProgressThread::~ProgressThread() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    state_ = State::kQuit;
  }
  cv_.notify_all();
  thread_.join();
}

void ProgressThread::Begin(MPI_Request* req) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    req_ = req;
    tests_ = 0;
    state_ = State::kPolling;
  }
  cv_.notify_all();
}

int ProgressThread::End() {
  std::unique_lock<std::mutex> lock(mu_);
  // The thread holds mu_ during MPI_Test: once we own it, the thread is
  // sleeping or waiting, never inside MPI.
  state_ = State::kStopping;
  cv_.notify_all();
  cv_.wait(lock, [this] { return state_ == State::kIdle; });
  return tests_;
}

bool ProgressThread::WaitBound() const {
  while (!tried_.load()) std::this_thread::yield();
  return bound_.load();
}

void ProgressThread::Loop(int core) {
  bound_ = core >= 0 && BindThisThread(core);
  tried_ = true;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return state_ != State::kIdle; });
    if (state_ == State::kQuit) return;
    bool done = false;
    while (state_ == State::kPolling) {
      if (!done) {
        int flag = 0;
        CheckMpi(MPI_Test(req_, &flag, MPI_STATUS_IGNORE), "MPI_Test (progress thread)");
        ++tests_;
        done = flag != 0;
      }
      // Asleep without the lock until the next test, or until End(): a
      // finished collective needs no more tests.
      auto stop = [this] { return state_ != State::kPolling; };
      if (done) cv_.wait(lock, stop);
      else cv_.wait_for(lock, std::chrono::duration<double>(interval_), stop);
    }
    if (state_ == State::kQuit) return;
    state_ = State::kIdle;
    cv_.notify_all();
  }
}

}  // namespace nbcguard
