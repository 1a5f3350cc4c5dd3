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

#include "nbcguard/sentinel.h"
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
  // The machine-noise sentinel over the synchronized-clock samples (the
  // acknowledgement loops are not watched); zero counts when off.
  SentinelTally sentinel;
};

// Compares the two estimates for one message size. rtt_max of the model is
// taken from the destinations' median round trips.
BcastComparison CompareBcast(std::uint64_t bytes, std::vector<AckDestination> destinations,
                             const std::vector<double>& global_times, AgreementModel model);

// One job's repetitions share its machine state, and between jobs the two
// methods' medians spread more than one job's intervals say (one
// clean-clone run on MPICH read 34.2 us [33.7, 35.0] on the synchronized
// clock against 27.8 us by acknowledgement at 256 KiB, where other runs
// agree within 5 %; beside a neighbour keeping one CPU 30 % busy, Open MPI
// at 4 MiB read 1.33 ms against 0.93 ms in one job and agreed within 3 % in
// the next). So a disagreement beyond noise is measured again by later,
// independent jobs while it is undecided, as a threshold limit is
// (docs/thresholds.md), and stands only when a second job sees it beyond
// noise too.
//
// Whether the machine-noise sentinel found the job's synchronized samples
// taken on a disturbed machine (SentinelRefusal of their tally: the tries
// ran out, or more than half were disturbed). Such a job's difference is no
// sighting of a disagreement.
bool Disturbed(const BcastComparison& c);

// What a later job says of a size the first job found disagreeing beyond noise.
enum class LaterJob {
  kAgrees,     // within the tolerance: the disagreement is not confirmed
  kConfirms,   // beyond noise on the same side, on an undisturbed machine; or no
               // comparison at all at that size (NaN: no sample or no destination)
  kUndecided,  // within noise, beyond it on the other side, or disturbed
};
LaterJob JudgeLaterJob(const BcastComparison& first, const BcastComparison& later);
const char* Why(LaterJob verdict, const BcastComparison& later);  // why undecided: for the output

// The sequential verdict of one size over jobs: a first job's disagreement
// beyond noise stands when two jobs, undisturbed, saw it beyond noise on the
// same side (the first among them, or two later ones); it falls when a later
// job agrees; undecided after the last job allowed it is INCONCLUSIVE.
enum class SizeVerdict { kOpen, kConfirmed, kNotConfirmed };
class DisagreementTrial {
 public:
  explicit DisagreementTrial(const BcastComparison& first)
      : first_(first), sightings_(Disturbed(first) ? 0 : 1) {}
  // One more job's comparison at the size; returns the verdict so far.
  SizeVerdict Add(const BcastComparison& later);
  SizeVerdict verdict() const { return verdict_; }
  LaterJob last() const { return last_; }  // what the last job added said

 private:
  BcastComparison first_;
  int sightings_;
  SizeVerdict verdict_ = SizeVerdict::kOpen;
  LaterJob last_ = LaterJob::kUndecided;
};

}  // namespace nbcguard
