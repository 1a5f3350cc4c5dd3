// The outcome of one grid point (target comm time x target comp time) after
// the harness ran and the driver reduced samples: medians, spreads, ratios.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "nbcguard/collective_speed.h"
#include "nbcguard/diagnosis.h"
#include "nbcguard/sentinel.h"
#include "nbcguard/stats.h"

namespace nbcguard {

// How unequal the ranks' computing was at a point (validity.h,
// MeasureImbalance). Times in seconds; NaN when not measured.
struct Imbalance {
  static constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();
  double ref_slack = kNotMeasured;           // slowest - fastest rank's median, computation reference
  double overlap_slack = kNotMeasured;       // the same for the computation inside the overlap run
  double ref_ratio = kNotMeasured;           // slowest / fastest rank's median, computation reference
  double overlap_ratio = kNotMeasured;       // the same inside the overlap run
  int slowest_rank = -1, fastest_rank = -1;  // in the computation reference
  // ref_slack / min(t_comm_ref, t_comp_ref): the most the slack can have
  // lowered r_overhead.
  double effect = kNotMeasured;
  bool flagged = false;  // effect > kImbalanceBound
};

struct PointResult {
  double comm_target = 0;  // seconds
  double comp_target = 0;  // seconds
  bool valid = true;       // false when calibration failed or no sample survived
  std::string invalid_reason;

  // Medians (seconds) of the measured times.
  double t_comm_ref = 0, t_comp_ref = 0, t_measured = 0;
  double t_call = 0, t_comp = 0, t_wait = 0;
  // The collective alone at the point's calibrated size: its time per
  // communication-reference sample (t_comm_ref is that median) and the
  // bandwidth bytes per rank / time, each with the CI of its median.
  CollectiveSpeed speed;

  // Ratios: median and confidence interval of the median over the
  // per-repetition ratios (references fixed at their medians).
  Spread r_overhead, r_comm, r_comp_slowdown;
  // r_mpi_impact belongs to the computation row (comp target); repeated here.
  Spread r_mpi_impact;
  // CPU-busy fractions (Hoefler et al., 2006): process CPU time / wall time inside the
  // nonblocking collective + MPI_Wait and inside its blocking twin, the
  // busiest rank per repetition. They belong to the communication row (comm
  // target), measured once per communication size; repeated here. Not
  // measured (NaN) unless the reduction sets them.
  Spread cpu_busy_nbc = Summarize({});
  Spread cpu_busy_blocking = Summarize({});

  Diagnosis diagnosis = Diagnosis::kInvalid;

  // The ranks' unequal computing (validity.h).
  Imbalance imbalance;
  // Interquartile range / median of the computation reference: how stable
  // the computation itself was during the point (a validity gate).
  double comp_ref_spread = Imbalance::kNotMeasured;
  // Invalid because a validity gate refused the measurement (the machine
  // was disturbed), not because the point could not be measured.
  bool refused = false;
  // The same for the communication reference (the collective alone).
  double comm_ref_spread = Imbalance::kNotMeasured;
  // Median over the overlap samples of the spread of the ranks' start
  // stamps (seconds, global clock): how far from "all at once" the
  // synchronized barrier's release really was (a validity gate).
  double start_skew = Imbalance::kNotMeasured;
  // The machine-noise sentinel at this point (sentinel.h): samples it had
  // measured again, and what the kept ones read; wanted 0 when the run had
  // no sentinel.
  SentinelTally sentinel;

  // Peers' figures from the same samples (percent; peer_overlap.h,
  // docs/method.md, "The peers' figures"): one figure per point, as the
  // peers print it, from times averaged over the samples; NaN when not
  // measured. Shown beside r_overhead, never used in verdicts.
  double osu_overlap_pct = std::numeric_limits<double>::quiet_NaN();
  double imb_overlap_pct = std::numeric_limits<double>::quiet_NaN();
  // Application-side progression (poll, thread-*): median MPI_Test calls
  // rank 0 made during one overlap run; negative when not measured.
  double progress_tests = -1;
  // Persistent collectives (case field persistent): seconds in
  // MPI_<Coll>_init at this point's size, the slowest rank's median of
  // kInitTimings calls; apart from every ratio. NaN when not persistent.
  double init_s = std::numeric_limits<double>::quiet_NaN();
  // Why r_mpi_impact is missing when a disturbance refused its jobs (a rank
  // fell behind twice: impact_jobs.h); empty otherwise. A rule limiting
  // r_mpi_impact then refuses the point (undecided), never fails it.
  std::string mpi_impact_refused;

  // Per rank, medians over the communication-alone samples, on the global
  // clock relative to the first rank's start: when each rank started, how
  // long its start call took, when it finished. A rank entering the
  // collective late shows a long start call; a rank finishing late, a late end.
  struct RankTiming {
    double start = 0, call = 0, end = 0;
  };
  std::vector<RankTiming> per_rank;
  // Ranks whose start call took clearly longer than the others' (late
  // entry), with the delay beyond the median rank's; empty when none.
  std::vector<std::pair<int, double>> late_ranks;
  // Ranks whose end came clearly after the others' (late exit), with the
  // delay beyond the median rank's end; empty when none.
  std::vector<std::pair<int, double>> late_exits;
};

}  // namespace nbcguard
