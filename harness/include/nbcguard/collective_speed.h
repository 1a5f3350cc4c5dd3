// The collective's own speed at one grid point: how long the collective
// took alone (the communication-reference samples, first rank's start to
// last rank's end) at the size calibrated for the point's communication
// target, and the bandwidth that implies. A library whose collective got
// slower needs a smaller size to fill the same target time, which the
// overlap ratios do not show; its bandwidth does (docs/method.md,
// "The collective's own speed"). Pure.
#pragma once

#include <vector>

#include "nbcguard/stats.h"

namespace nbcguard {

// Bytes per rank over seconds, one value per sample: the per-rank send
// buffer of one call (the harness's BytesPerRank: 4 bytes per int32 element
// the rank sends) divided by the time of that call. A time that is not a
// positive finite number gives NaN (a lost sample, which Summarize drops);
// bytes that are not positive and finite give no values at all.
std::vector<double> BandwidthPerSample(double bytes_per_rank, const std::vector<double>& seconds);

struct CollectiveSpeed {
  double bytes_per_rank = 0;         // per-rank send buffer at the calibrated size
  Spread time = Summarize({});       // seconds per call, alone
  Spread bandwidth = Summarize({});  // bytes_per_rank / time, B/s; n == 0 when no bytes (ibarrier)
  bool Measured() const { return time.n > 0; }
};

// The times' and bandwidths' medians with the confidence interval of the
// median (Summarize). Bytes that are not positive (ibarrier moves none, or
// the size is unknown) give the time alone.
CollectiveSpeed SpeedOf(double bytes_per_rank, const std::vector<double>& seconds);

}  // namespace nbcguard
