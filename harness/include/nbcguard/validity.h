// What a point's figures are worth on an imperfect machine: how unequal the
// ranks' computing was (imbalance), and the gates a point must pass before
// its ratios are used at all (docs/method.md, "Validity gates"). Pure.
#pragma once

#include <string>
#include <vector>

#include "nbcguard/metrics.h"
#include "nbcguard/point_result.h"

namespace nbcguard {

// The most a point's r_overhead can be lowered by the ranks' unequal
// computing before the point is flagged (Imbalance::flagged): 0.2, a fifth
// of the distance between overlap (0) and serialization (1).
constexpr double kImbalanceBound = 0.2;

// Imbalance of one point from the ranks' median computation times (seconds,
// one per rank) in the computation reference and in the overlap run.
// effect = reference slack / min(t_comm_ref, t_comp_ref): a rank that
// finishes computing `slack` before the slowest one can do that much of the
// transfer inside MPI_Wait while the slowest still computes, which shortens
// the collective's time from first start to last end without any progress
// during computation. Flagged when effect > kImbalanceBound. NaN fields
// (and not flagged) when fewer than 2 ranks or a time is not positive.
Imbalance MeasureImbalance(const std::vector<double>& ref_per_rank,
                           const std::vector<double>& overlap_per_rank, double t_comm_ref, double t_comp_ref);

// How much of a limited ratio an imbalance can have hidden at a point: for
// r_overhead the effect, for r_comm the reference slack / t_comm_ref, 0 for
// the other metrics and for points not flagged.
double HiddenByImbalance(const PointResult& p, Metric m);

// The run's timing quality, worst over ranks: the clock error (fit residual
// RMS + the offset uncertainty, min RTT / 2 per synchronization hop) and
// the median exit skew of the synchronized barrier; NaN when not recorded.
struct TimingQuality {
  double clock_error = 0;   // seconds
  double barrier_skew = 0;  // seconds
};

// Bounds of the validity gates (docs/method.md, "Validity gates").
struct GateBounds {
  // A clock error e moves a time between two ranks' stamps by up to 2 e;
  // that, and the barrier's exit skew, each at most this share of the
  // point's shorter reference (the denominator of r_overhead).
  double timing_share = 0.05;
  // The ranks' median start spread in the overlap samples, at most this
  // share of the shorter reference. Wider than timing_share: where
  // progress threads share the cores with the computation (the progress
  // deployment on 2 cores) the scheduler delays a rank's start after the
  // barrier by up to 14 % of the point (1.99 ms at 14.6 ms, MPICH, quiet
  // pipeline run); a run disturbed by other processes reaches 10-33 %.
  double start_share = 0.25;
  // Interquartile range of either reference (computation alone,
  // communication alone) over its median. Quiet CI run of the whole
  // pipeline, 194 points: computation median 0.08, largest 0.72;
  // communication median 0.08, largest 0.36. Under three busy processes:
  // communication 1.8 (t_comm_ref 1.0-10.4 ms for a 1 ms target).
  double comp_spread = 1.0;
  // A reference (median) more than this many times its target: the sizes
  // were calibrated on a machine several times faster than the one that
  // measured the point. Quiet CI run, 386 points: t_comm_ref 0.57-1.56 x
  // its target, t_comp_ref 0.36-1.76 x. Three busy processes started after
  // calibration: t_comm_ref 5.05 ms for 1 ms, whose points read r_overhead
  // -0.11 and -0.70 ("overlap") with IQR / median still under 1.
  double target_factor = 3.0;
  // r_comp_slowdown below this: the computation ran more than twice as fast
  // beside the collective as alone, which no collective causes (a vCPU of
  // this kind of machine runs a GEMM up to 1.8x faster while the other idles).
  double comp_faster_floor = 0.5;
  // t_measured below this share of the longer reference: the collective and
  // the computation together took less than half of either alone.
  double measured_floor = 0.5;
};

// (Q3 - Q1) / median of the values; NaN with fewer than 4 values or a
// median that is not positive.
double RelativeIqr(std::vector<double> values);

// "" when a measured point passes every gate; otherwise the first gate it
// fails, naming the figure and the bound, e.g. "clock error 177 us exceeds
// 5 % of the shorter reference (25 us): the clocks were disturbed".
std::string GateFailure(const PointResult& p, const TimingQuality& q, const GateBounds& b = GateBounds());

}  // namespace nbcguard
