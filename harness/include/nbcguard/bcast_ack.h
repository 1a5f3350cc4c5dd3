// An independent check of the collective's time (de Supinski and Karonis, HPDC 1999: de Supinski and
// Karonis, "Accurately Measuring MPI Broadcasts in a Computational Grid",
// HPDC 1999). Rank 0, the root, times broadcast + an acknowledgement from
// destination i, back to back (the acknowledgement stops the next broadcast
// from pipelining behind this one along the path to i), and subtracts the
// acknowledgement's own latency, half the round trip to i:
//     OL_i = E_i - RTT_i / 2,   OL = max over i of OL_i.
// It needs no global clock, so it checks the synchronized-clock time
// (first rank's start to last rank's end) of the same broadcast. Pure.
#pragma once

#include <cstdint>
#include <vector>

#include "nbcguard/stats.h"

namespace nbcguard {

struct AckDestination {
  int rank = 0;
  Spread e;       // root's time per iteration: broadcast + acknowledgement from `rank`
  Spread rtt;     // root's round trip to `rank` with the acknowledgement's message
  double ol = 0;  // OL_i = median E_i - median RTT_i / 2
};

// OL_i from the root's per-iteration times (medians: robust on a shared
// machine; the paper divides a loop's total by its count).
AckDestination AckLatency(int rank, const std::vector<double>& e, const std::vector<double>& rtt);

// What the two measurements may differ by without disagreeing (seconds):
//   rtt_max / 2          the acknowledgement's one-way latency is taken as
//                        half its round trip; an asymmetric path is off by
//                        at most that much;
//   2 * clock_error      start and end are read on two ranks' clocks, each
//                        known to its sync error (min RTT / 2 to rank 0);
//   skew                 the synchronized barrier releases ranks this far
//                        apart (median exit skew), which the global time
//                        includes and the acknowledgement loop does not;
//   relative * time      noise of two medians measured at different
//                        moments on the same machine.
struct AgreementModel {
  double relative = 0.10;
  double rtt_max = 0;
  double clock_error = 0;
  double skew = 0;
  double Tolerance(double time) const { return relative * time + rtt_max / 2 + 2 * clock_error + skew; }
};

struct BcastComparison {
  std::uint64_t bytes = 0;
  std::vector<AckDestination> destinations;
  double ol = 0;          // max over destinations of OL_i (NaN without destinations)
  int ol_rank = -1;       // the destination that gives it
  Spread global;          // synchronized-clock times of the same broadcast
  double difference = 0;  // ol - global.median
  // The difference's range from the 95 % confidence intervals of the two
  // medians: [OL_lo - global_hi, OL_hi - global_lo] (OL_lo/hi: E_i's
  // interval minus RTT_i / 2 at the destination that gives OL).
  double difference_lo = 0, difference_hi = 0;
  double tolerance = 0;
  bool agree = false;         // |difference| <= tolerance
  bool within_noise = false;  // not agree, but the range reaches into [-tolerance, tolerance]
  // A disagreement beyond noise: the whole range is past the tolerance, as
  // a threshold limit fails only beyond noise (docs/thresholds.md).
  bool disagree() const { return !agree && !within_noise; }
};

// Compares the two estimates for one message size. rtt_max of the model is
// taken from the destinations' median round trips.
BcastComparison CompareBcast(std::uint64_t bytes, std::vector<AckDestination> destinations,
                             const std::vector<double>& global_times, AgreementModel model);

// One job's repetitions share its machine state, and between jobs the two
// methods' medians spread more than one job's intervals say (one
// clean-clone run on MPICH read 34.2 us [33.7, 35.0] on the synchronized
// clock against 27.8 us by acknowledgement at 256 KiB, where other runs
// agree within 5 %). So a disagreement beyond noise is measured again by a
// second, independent job, as a threshold limit is (docs/thresholds.md). It
// stands when the second job's difference is past the tolerance on the same
// side, beyond noise or within it, or when the second job has no comparison
// at that size (NaN: no sample or no destination); otherwise it is not
// confirmed.
bool ConfirmsDisagreement(const BcastComparison& first, const BcastComparison& second);

}  // namespace nbcguard
