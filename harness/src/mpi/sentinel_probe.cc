#include "sentinel_probe.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "gemm.h"

namespace nbcguard {
namespace {

pid_t ThreadId() { return static_cast<pid_t>(syscall(SYS_gettid)); }

long InvoluntarySwitches() {
  rusage u{};
  if (getrusage(RUSAGE_THREAD, &u) != 0) return 0;
  return u.ru_nivcsw;
}

int OpenSchedstat(pid_t pid, pid_t tid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/schedstat";
  return open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

// A dependent chain of multiply-adds: its time is the core's speed, with no
// memory traffic and no vectorization to change with the compiler.
double ProbeChain(int n) {
  volatile double seed = 1.0;
  double x = seed;
  for (int i = 0; i < n; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

constexpr int kProbeSteps = 20000;

}  // namespace

SentinelProbe::SentinelProbe()
    : self_fd_(OpenSchedstat(getpid(), ThreadId())), pids_{getpid()}, workers_{ThreadId()} {
  Refresh();
}

SentinelProbe::~SentinelProbe() {
  if (self_fd_ >= 0) close(self_fd_);
  for (const Thread& t : others_)
    if (t.fd >= 0) close(t.fd);
}

void SentinelProbe::SetJob(const std::vector<pid_t>& pids, const std::vector<pid_t>& workers) {
  pids_ = pids;
  if (std::find(pids_.begin(), pids_.end(), getpid()) == pids_.end()) pids_.push_back(getpid());
  workers_ = workers;
  workers_.push_back(ThreadId());
  Refresh();
}

void SentinelProbe::Refresh() {
  for (const Thread& t : others_)
    if (t.fd >= 0) close(t.fd);
  others_.clear();
  for (const pid_t pid : pids_) {
    DIR* dir = opendir(("/proc/" + std::to_string(pid) + "/task").c_str());
    if (dir == nullptr) continue;  // gone, or not visible: counts as no thread
    while (const dirent* e = readdir(dir)) {
      const pid_t tid = static_cast<pid_t>(std::atol(e->d_name));
      if (tid <= 0 || std::find(workers_.begin(), workers_.end(), tid) != workers_.end()) continue;
      const int fd = OpenSchedstat(pid, tid);
      if (fd >= 0) others_.push_back({fd});
    }
    closedir(dir);
  }
}

long long SentinelProbe::Field(int fd, int index) {
  if (fd < 0) return -1;
  char buf[128];
  const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return -1;
  buf[n] = '\0';
  char* p = buf;
  long long v = -1;
  for (int i = 0; i <= index; ++i) {
    char* end = nullptr;
    v = std::strtoll(p, &end, 10);
    if (end == p) return -1;
    p = end;
  }
  return v;
}

long long SentinelProbe::OthersCpu() const {
  long long sum = 0;
  for (const Thread& t : others_) {
    const long long v = Field(t.fd, 0);  // a thread that ended reads -1: counts as no time
    if (v > 0) sum += v;
  }
  return sum;
}

double SentinelProbe::TimeProbe() {
  const double t0 = MonotonicNow();
  volatile double sink = ProbeChain(kProbeSteps);
  (void)sink;
  return MonotonicNow() - t0;
}

void SentinelProbe::Before() {
  probe_before_ = TimeProbe();
  others_before_ = OthersCpu();
  preempt_before_ = InvoluntarySwitches();
  wait_before_ = Field(self_fd_, 1);  // last: nearest the barrier
}

SentinelReading SentinelProbe::After(double duration) {
  SentinelReading r;
  const long long wait_after = Field(self_fd_, 1);
  r.preemptions = InvoluntarySwitches() - preempt_before_;
  const long long others_after = OthersCpu();
  r.duration = duration;
  if (wait_before_ >= 0 && wait_after >= 0) {
    const long long own = std::max(0LL, others_after - others_before_);
    r.foreign_wait = static_cast<double>(std::max(0LL, wait_after - wait_before_ - own)) * 1e-9;
  }
  r.probe = std::max(probe_before_, TimeProbe());
  return r;
}

}  // namespace nbcguard
