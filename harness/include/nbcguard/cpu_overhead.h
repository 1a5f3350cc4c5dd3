// CPU overhead of a collective (Hoefler et al. 2006; docs/method.md, "CPU overhead"): the CPU
// time a process uses while one of its threads is inside a collective,
// against the wall time it spends there. A library that polls keeps the
// core busy the whole time (busy fraction ~1); one that blocks in the kernel
// or leaves the transfer to hardware leaves it free (~0). With a progress
// thread polling beside MPI_Wait the process uses more than one core, and
// the fraction exceeds 1: it is reported as measured, never clamped.
//
// Pure, except ProcessCpuTimes (one getrusage call).
#pragma once

#include <limits>
#include <vector>

#include "nbcguard/stats.h"

namespace nbcguard {

// CPU seconds the calling process has used so far, every thread included
// (getrusage RUSAGE_SELF): a library's progress thread counts, since its
// CPU is what the collective costs the application.
//
// Only the sum is meaningful over a short interval. Linux measures the
// total exactly (nanoseconds; getrusage truncates each field to
// microseconds), but splits it into user and system time in proportion to
// the clock ticks the process has collected over its whole life: a 50 ms
// user-space spin read as 26 ms user + 24 ms system on this VM after
// 0.2 s of system calls. The split is kept in the raw records, not
// reported.
struct CpuTimes {
  double user = 0;    // seconds
  double system = 0;  // seconds
  double Total() const { return user + system; }
};
CpuTimes ProcessCpuTimes();

// cpu / wall. NaN when wall is not a positive finite time, or cpu is not
// finite or is negative (a reading that went backwards is not a value).
double BusyFraction(double cpu_seconds, double wall_seconds);

// One rank's reading in one repetition: the process's CPU seconds between
// two instants and the wall seconds between the same instants.
struct CpuReading {
  double cpu = std::numeric_limits<double>::quiet_NaN();
  double wall = std::numeric_limits<double>::quiet_NaN();
};

// The busy fractions of one kind of call (blocking, or nonblocking + wait)
// over the repetitions of one communication size.
struct CpuBusy {
  // Per repetition, the fraction of the busiest rank (the largest finite
  // one; NaN when no rank has one): the rank whose application would get
  // the least CPU back. Summarized with the confidence interval of the
  // median, as every ratio is.
  std::vector<double> busiest;
  Spread summary;
  // Per rank, the median of its own fractions over the repetitions.
  std::vector<double> per_rank;
  // Median wall time inside the call, over ranks and repetitions (seconds):
  // getrusage's microseconds bound one fraction's error by 2 us / wall.
  double median_wall = std::numeric_limits<double>::quiet_NaN();
};

// readings[repetition][rank]. Repetitions with fewer ranks than the first
// one are used for what they have.
CpuBusy SummarizeCpuBusy(const std::vector<std::vector<CpuReading>>& readings);

}  // namespace nbcguard
