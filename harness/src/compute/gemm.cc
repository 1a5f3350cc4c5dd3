#include "gemm.h"

#include <omp.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

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

void ComputeTeam::FreeDeleter::operator()(double* p) const { std::free(p); }

void ComputeTeam::Prepare(int n) {
  if (n == n_) return;
  n_ = n;
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  // Each matrix rounded up to whole pages, then B and C shifted by 17 and
  // 34 cache lines so the three never share an offset within a page.
  constexpr std::size_t kPage = 4096 / sizeof(double), kLine = 64 / sizeof(double);
  const std::size_t stride = (nn + kPage - 1) / kPage * kPage + kPage;
  const std::size_t bytes = 3 * stride * sizeof(double);
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num();
    Matrices& m = per_thread_[t];
    m.block.reset(static_cast<double*>(std::aligned_alloc(4096, bytes)));
    m.a = m.block.get();
    m.b = m.a + stride + 17 * kLine;
    m.c = m.b + stride + 17 * kLine;
    for (std::size_t i = 0; i < nn; ++i) {  // first touch by the owning thread
      m.a[i] = 1.0 + static_cast<double>((i * 7 + t) % 13) / 13.0;
      m.b[i] = 1.0 - static_cast<double>((i * 5 + t) % 11) / 22.0;
      m.c[i] = 0.0;
    }
  }
}

namespace {

// C += A * B, row-major, i-k-j order so the inner loop streams and vectorises.
// tick() after every row (a no-op lambda compiles to the plain kernel).
template <class Tick>
void Gemm(int n, const double* a, const double* b, double* c, Tick tick) {
  for (int i = 0; i < n; ++i) {
    double* ci = c + static_cast<std::size_t>(i) * n;
    const double* ai = a + static_cast<std::size_t>(i) * n;
    for (int k = 0; k < n; ++k) {
      const double aik = ai[k];
      const double* bk = b + static_cast<std::size_t>(k) * n;
      for (int j = 0; j < n; ++j) ci[j] += aik * bk[j];
    }
    tick();
  }
}

}  // namespace

bool ComputeTeam::Bind(const std::vector<int>& cpus, std::string* error) {
  if (static_cast<int>(cpus.size()) != threads_) {
    *error = "binding needs one cpu per computation thread (" + std::to_string(threads_) + "), got " +
             std::to_string(cpus.size());
    return false;
  }
  int failed = -1;
  // libgomp keeps the same threads for every region of the same size, so a
  // binding made here holds for the following Run()s.
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num();
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpus[t], &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
#pragma omp critical
      failed = cpus[t];
    }
  }
  if (failed >= 0) *error = "sched_setaffinity refused cpu " + std::to_string(failed);
  return failed < 0;
}

std::vector<pid_t> ComputeTeam::ThreadIds() {
  std::vector<pid_t> ids(static_cast<std::size_t>(threads_), 0);
#pragma omp parallel num_threads(threads_)
  ids[static_cast<std::size_t>(omp_get_thread_num())] = static_cast<pid_t>(syscall(SYS_gettid));
  return ids;
}

ComputeTiming ComputeTeam::Run(const std::function<void()>* tick) {
  ComputeTiming timing;
  timing.per_thread.assign(threads_, 0.0);
  const double start = MonotonicNow();
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num();
    Matrices& m = per_thread_[t];
    const double t0 = MonotonicNow();
    if (tick && t == 0) Gemm(n_, m.a, m.b, m.c, [tick] { (*tick)(); });
    else Gemm(n_, m.a, m.b, m.c, [] {});
    timing.per_thread[t] = MonotonicNow() - t0;
  }
  timing.wall = MonotonicNow() - start;
  return timing;
}

double RealtimeNow() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

namespace {
constexpr double kSpinBefore = 0.1;  // seconds
}  // namespace

double BlockSlot(int reps, double target) {
  // 3x the warm-up (3 runs, at least 20 ms) and the repetitions, and 30 ms
  // for the processes' clocks and wake-ups. The next block's processes are
  // warm: they computed until shortly before it, and spin the rest.
  return 3 * (std::max(3 * target, 20e-3) + reps * target) + 30e-3;
}

std::vector<double> RunFromInstant(ComputeTeam& team, int reps, double start,
                                   const std::function<double()>& now, bool* late) {
  *late = now() > start;
  // Sleep until 100 ms before the instant, then spin: a virtual CPU that
  // slept runs slower for a while, and both sides must start equally warm.
  for (double left = start - now(); left > kSpinBefore; left = start - now()) {
    const double nap = std::min(left - kSpinBefore, 10e-3);
    timespec ts{0, static_cast<long>(nap * 1e9)};
    nanosleep(&ts, nullptr);
  }
  while (now() < start) {
  }
  // Warm-up: at least 3 runs and 20 ms, not recorded.
  const double warm_until = MonotonicNow() + 20e-3;
  for (int i = 0; i < 3 || MonotonicNow() < warm_until; ++i) team.Run();
  std::vector<double> times;
  times.reserve(reps);  // no allocation between two timed runs
  for (int i = 0; i < reps; ++i) times.push_back(team.Run().wall);
  return times;
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
