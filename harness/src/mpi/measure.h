// Timed repetitions under the synchronized barrier (Denis et al., CCPE 2022, Algorithm 1
// and section 5.1). Every decision (late sample, wrong result, converged
// calibration) is agreed across ranks, so ranks never take different paths.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "clock_sync.h"
#include "collectives.h"
#include "comm.h"
#include "gemm.h"
#include "nbcguard/calibrate.h"
#include "nbcguard/sentinel.h"
#include "nbcguard/stopping.h"
#include "sentinel_probe.h"
#include "sync_barrier.h"

namespace nbcguard {

// The samples of one measurement on rank 0: for each kept repetition, every
// rank's `k` local timestamps (rank-major), its barrier exit and slack.
struct SampleSet {
  int k = 0;
  std::vector<std::vector<double>> local;  // [sample][rank * k + j]
  std::vector<std::vector<double>> exits;  // [sample][rank] local exit time of the barrier
  // Per-rank values that are not clock readings (CPU seconds), when Run was
  // asked for `extra` of them: [sample][rank * extra + j].
  int extra = 0;
  std::vector<std::vector<double>> values;
  std::vector<double> durations;  // [sample] agreed duration (see Measurer::Run)
  int late_redone = 0;            // samples redone because a rank was late
  // The machine-noise sentinel (nbcguard/sentinel.h): tries refused as
  // disturbed, by reason (agreed; a late try counts as late only), the
  // samples wanted, and on rank 0 each kept sample's readings,
  // [sample][rank * kSentinelValues + j]; empty when the sentinel is off.
  int disturbed_slow_probe = 0;
  int disturbed_foreign_wait = 0;
  int wanted = 0;
  std::vector<std::vector<double>> sentinel;
  std::string error;  // non-empty: conformance failure (agreed)
};

// The nonblocking collective followed at once by MPI_Wait (the
// communication reference of Algorithm 1, never the blocking call): t[0]
// before the start call, t[1] when MPI_Wait returned, on the local clock.
void TimeStartWait(Collective& coll, const GlobalClock& clock, double* t);

class Measurer {
 public:
  // With `sentinel`, every try is watched by the machine-noise sentinel and
  // a disturbed one is redone like a late one.
  Measurer(const Comm& comm, GlobalClock& clock, SyncBarrier& barrier, bool sentinel = true);

  // Runs `reps` repetitions of: prepare(rep) (untimed), synchronized barrier,
  // body(rep, stamps) writing `k` local timestamps, verify(rep) (untimed).
  // A repetition where any rank was late, or that the sentinel found
  // disturbed on any rank, is redone (at most 4*reps+8 tries in all).
  // `durations` holds, per sample, `duration(global stamps of all ranks)` on
  // the real-time global clock, identical on every rank. With `extra` > 0
  // the body writes that many other values after the stamps (stamps[k ..
  // k + extra)), gathered as they are into `values`. `kinds` interleaved
  // kinds of sample (kind = rep % kinds) each have their own usual wait in
  // the sentinel's rule. With `stop`, `reps` is the most and the run ends
  // as soon as EnoughSamples(durations, kinds, *stop) (stopping.h): every
  // rank holds the same durations, so every rank ends at the same sample.
  SampleSet Run(int k, int reps, const std::function<void(int)>& prepare,
                const std::function<void(int, double*)>& body, const std::function<std::string(int)>& verify,
                const std::function<double(const std::vector<double>&, int k)>& duration, int extra = 0,
                int kinds = 1, const StoppingRule* stop = nullptr);

  // Collective. This rank's computation threads (the calling thread is
  // always one): with every rank's, and the job's processes on each node,
  // they tell the sentinel which waits the job caused itself
  // (sentinel_probe.h). Until it is called, only this process's other
  // threads count as the job's.
  void SetWorkers(const std::vector<pid_t>& tids);
  bool sentinel() const { return sentinel_; }
  const SentinelBounds& sentinel_bounds() const { return detector_.bounds(); }
  // Tries the sentinel refused over every Run so far, by reason (agreed).
  int redone_slow_probe() const { return redone_slow_probe_; }
  int redone_foreign_wait() const { return redone_foreign_wait_; }

  // Collective time: max over ranks of stamp k-1 minus min over ranks of stamp 0.
  static double GlobalSpan(const std::vector<double>& stamps, int k);
  // Slowest rank: max over ranks of (stamp k-1 - stamp 0).
  static double SlowestRank(const std::vector<double>& stamps, int k);

  const GlobalClock& clock() const { return clock_; }

 private:
  const Comm& comm_;
  GlobalClock& clock_;
  SyncBarrier& barrier_;
  bool sentinel_;
  SentinelProbe probe_;
  DisturbanceDetector detector_{1};
  int redone_slow_probe_ = 0, redone_foreign_wait_ = 0;
};

}  // namespace nbcguard
