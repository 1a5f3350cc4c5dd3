#include "gemm.h"

#include <omp.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

namespace nbcguard {

double MonotonicNow() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double ComputeTiming::slowest() const {
  return per_thread.empty() ? wall : *std::max_element(per_thread.begin(), per_thread.end());
}

ComputeTeam::ComputeTeam(int threads) : threads_(std::max(1, threads)), per_thread_(threads_) {}

void ComputeTeam::Prepare(int n) {
  if (n == n_) return;
  n_ = n;
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num();
    Matrices& m = per_thread_[t];
    m.a.assign(nn, 0.0);
    m.b.assign(nn, 0.0);
    m.c.assign(nn, 0.0);
    for (std::size_t i = 0; i < nn; ++i) {
      m.a[i] = 1.0 + static_cast<double>((i * 7 + t) % 13) / 13.0;
      m.b[i] = 1.0 - static_cast<double>((i * 5 + t) % 11) / 22.0;
    }
  }
}

namespace {

// C += A * B, row-major, i-k-j order so the inner loop streams and vectorises.
void Gemm(int n, const double* a, const double* b, double* c) {
  for (int i = 0; i < n; ++i) {
    double* ci = c + static_cast<std::size_t>(i) * n;
    const double* ai = a + static_cast<std::size_t>(i) * n;
    for (int k = 0; k < n; ++k) {
      const double aik = ai[k];
      const double* bk = b + static_cast<std::size_t>(k) * n;
      for (int j = 0; j < n; ++j) ci[j] += aik * bk[j];
    }
  }
}

}  // namespace

ComputeTiming ComputeTeam::Run() {
  ComputeTiming timing;
  timing.per_thread.assign(threads_, 0.0);
  const double start = MonotonicNow();
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num();
    Matrices& m = per_thread_[t];
    const double t0 = MonotonicNow();
    Gemm(n_, m.a.data(), m.b.data(), m.c.data());
    timing.per_thread[t] = MonotonicNow() - t0;
  }
  timing.wall = MonotonicNow() - start;
  return timing;
}

int AutoThreads(int processes_on_node) {
  cpu_set_t set;
  CPU_ZERO(&set);
  int allowed = 1;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) allowed = CPU_COUNT(&set);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  int share = online > 0 ? static_cast<int>(online) / std::max(1, processes_on_node) : 1;
  return std::max(1, std::min(allowed, share));
}

}  // namespace nbcguard
