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
  std::string error;              // non-empty: conformance failure (agreed)
};

// The nonblocking collective followed at once by MPI_Wait (the
// communication reference of Algorithm 1, never the blocking call): t[0]
// before the start call, t[1] when MPI_Wait returned, on the local clock.
void TimeStartWait(Collective& coll, const GlobalClock& clock, double* t);

class Measurer {
 public:
  Measurer(const Comm& comm, GlobalClock& clock, SyncBarrier& barrier);

  // Runs `reps` repetitions of: prepare(rep) (untimed), synchronized barrier,
  // body(rep, stamps) writing `k` local timestamps, verify(rep) (untimed).
  // A repetition where any rank was late is redone (at most 4*reps+8 tries).
  // `durations` holds, per sample, `duration(global stamps of all ranks)` on
  // the real-time global clock, identical on every rank. With `extra` > 0
  // the body writes that many other values after the stamps (stamps[k ..
  // k + extra)), gathered as they are into `values`.
  SampleSet Run(int k, int reps, const std::function<void(int)>& prepare,
                const std::function<void(int, double*)>& body, const std::function<std::string(int)>& verify,
                const std::function<double(const std::vector<double>&, int k)>& duration, int extra = 0);

  // Collective time: max over ranks of stamp k-1 minus min over ranks of stamp 0.
  static double GlobalSpan(const std::vector<double>& stamps, int k);
  // Slowest rank: max over ranks of (stamp k-1 - stamp 0).
  static double SlowestRank(const std::vector<double>& stamps, int k);

  const GlobalClock& clock() const { return clock_; }

 private:
  const Comm& comm_;
  GlobalClock& clock_;
  SyncBarrier& barrier_;
};

}  // namespace nbcguard
