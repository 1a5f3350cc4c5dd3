// The machine-noise sentinel (docs/method.md, "Machine-noise sentinel"):
// what each rank reads of its own machine around every timed sample, and
// the rule that calls a sample disturbed so that it is measured again, as a
// sample with a late rank is. Pure: the readings are taken by the harness
// (harness/src/mpi/sentinel_probe.h); this decides on them.
//
// Two signals, each aimed at one way a shared or virtual machine spoils a
// sample without the library having any part in it:
// - a fixed, tiny computation (the probe) timed just before and just after
//   the sample: a vCPU that the host slows, or a probe preempted by another
//   task, reads slower than the rank's recent probes;
// - the time the rank's timing thread spent runnable but waiting for a CPU
//   during the sample (the kernel's run-queue delay, /proc schedstat), less
//   the CPU time the process's own other threads (a progress thread, the
//   library's helpers) got meanwhile: what is left is another process or
//   the host taking the rank's CPU.
#pragma once

#include <deque>
#include <string>
#include <vector>

namespace nbcguard {

// One rank's readings around one sample (seconds; negative when not read).
struct SentinelReading {
  double probe = -1;         // the slower of the probes just before and just after the sample
  double foreign_wait = -1;  // run-queue wait of the timing thread less the own threads' CPU time
  double duration = 0;       // the sample on this rank's clock, last stamp - first stamp
  long preemptions = 0;      // involuntary context switches of the timing thread during it
};

// Bounds of the disturbance rule (docs/method.md gives the figures they
// were set from).
struct SentinelBounds {
  // A probe slower than this times the median of the rank's recent probes.
  // Quiet 2-vCPU VM, 20 s of probes every millisecond on both cores at
  // once: 99th percentile 1.10-1.26x the median.
  double probe_factor = 1.5;
  // Foreign wait beyond the usual one of the sample's kind, as a share of
  // the sample: another process ran on the rank's CPU for this long.
  double wait_share = 0.05;
  // Recent probes (all kinds) and recent waits (per kind) kept.
  std::size_t probe_window = 31;
  std::size_t wait_window = 15;
};

// Why a sample was called disturbed, for the tally of a point.
enum class Disturbance { kNone, kSlowProbe, kForeignWait };
const char* ToString(Disturbance d);

// The rule, on one rank: Judge is called once per sample, in order, with
// the sample's kind (rep % kinds of interleaved kinds). Probes are compared
// with the rank's recent probes whatever their kind (a persistent slower
// phase becomes the norm: it slows every kind of a point alike, which the
// ratios cancel); waits with the recent waits of the same kind (0 before
// there are 3). Every reading joins the history, disturbed or not.
class DisturbanceDetector {
 public:
  explicit DisturbanceDetector(int kinds, SentinelBounds bounds = SentinelBounds());
  Disturbance Judge(int kind, const SentinelReading& r);
  // Forget the waits (a new measurement); the probes' history is kept.
  void NewMeasurement(int kinds);
  const SentinelBounds& bounds() const { return bounds_; }

 private:
  SentinelBounds bounds_;
  std::deque<double> probes_;
  std::vector<std::deque<double>> waits_;
};

// The tally of one measurement (a point) from rank 0's record: how many
// tries the sentinel refused and why, and the readings of the kept samples.
struct SentinelTally {
  int redone_slow_probe = 0;
  int redone_foreign_wait = 0;
  int kept = 0;
  int wanted = 0;
  double max_probe_ratio = 0;       // slowest kept probe / its rank's median probe
  double median_foreign_share = 0;  // median over kept samples of the largest foreign wait / duration
  long preemptions = 0;             // over kept samples and ranks
  int redone() const { return redone_slow_probe + redone_foreign_wait; }
};

// Values per rank in a kept sample's readings: probe, foreign wait,
// duration, preemptions (SentinelReading's fields in that order).
constexpr int kSentinelValues = 4;

// The tally from the counts and the kept samples' readings,
// readings[sample][rank * kSentinelValues + j].
SentinelTally TallySentinel(int redone_slow_probe, int redone_foreign_wait, int wanted,
                            const std::vector<std::vector<double>>& readings);

// "" when a measurement's tally leaves its samples usable; otherwise why
// they are not: the tries ran out before `wanted` samples were kept, or
// more than half of all tries were disturbed (the machine, not the library,
// set the pace of the point).
std::string SentinelRefusal(const SentinelTally& t);

}  // namespace nbcguard
