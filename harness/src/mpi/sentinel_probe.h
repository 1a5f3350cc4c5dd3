// The machine-noise sentinel's readings on one rank (the rule that judges
// them is nbcguard/sentinel.h): a fixed probe computation timed, the timing
// thread's run-queue wait and involuntary context switches, and the CPU
// time of the process's other threads, from Linux's /proc/<tid>/schedstat
// and getrusage(RUSAGE_THREAD). Where the kernel offers no schedstat the
// waits read as not measured and only the probe decides.
#pragma once

#include <sys/types.h>

#include <vector>

#include "nbcguard/sentinel.h"

namespace nbcguard {

class SentinelProbe {
 public:
  // On the thread that runs the timed samples.
  SentinelProbe();
  ~SentinelProbe();
  SentinelProbe(const SentinelProbe&) = delete;
  SentinelProbe& operator=(const SentinelProbe&) = delete;

  // The job's processes on this node (this one included) and the threads
  // among them that do the measured work (every rank's computation team
  // and timing thread). Their other threads (the library's progress and
  // helper threads, a harness progress thread) are the job's own: the CPU
  // time they take is not counted against the machine.
  void SetJob(const std::vector<pid_t>& pids, const std::vector<pid_t>& workers);
  // Lists those other threads again (a library may start one late).
  void Refresh();

  // Around one sample: Before() just before the synchronized barrier,
  // After() just after the timed body; duration is the sample on this
  // rank's clock.
  void Before();
  SentinelReading After(double duration);

  // Seconds of one probe computation (about 30 us on a 3 GHz core).
  static double TimeProbe();

 private:
  struct Thread {
    int fd = -1;
  };
  static long long Field(int fd, int index);  // schedstat field, nanoseconds; -1 when unreadable
  long long OthersCpu() const;

  int self_fd_ = -1;
  std::vector<pid_t> pids_;
  std::vector<pid_t> workers_;
  std::vector<Thread> others_;
  double probe_before_ = -1;
  long long wait_before_ = -1, others_before_ = -1;
  long preempt_before_ = 0;
};

}  // namespace nbcguard
