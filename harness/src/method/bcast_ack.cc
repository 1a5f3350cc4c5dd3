#include "nbcguard/bcast_ack.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nbcguard {

AckDestination AckLatency(int rank, const std::vector<double>& e, const std::vector<double>& rtt) {
  AckDestination d;
  d.rank = rank;
  d.e = Summarize(e);
  d.rtt = Summarize(rtt);
  d.ol = d.e.median - d.rtt.median / 2;
  return d;
}

BcastComparison CompareBcast(std::uint64_t bytes, std::vector<AckDestination> destinations,
                             const std::vector<double>& global_times, AgreementModel model) {
  BcastComparison c;
  c.bytes = bytes;
  c.destinations = std::move(destinations);
  c.global = Summarize(global_times);
  c.ol = std::numeric_limits<double>::quiet_NaN();
  model.rtt_max = 0;
  const AckDestination* at = nullptr;
  for (const AckDestination& d : c.destinations) {
    if (!at || d.ol > at->ol) at = &d;
    if (std::isfinite(d.rtt.median)) model.rtt_max = std::max(model.rtt_max, d.rtt.median);
  }
  if (at) {
    c.ol = at->ol;
    c.ol_rank = at->rank;
  }
  const double half_rtt = at ? at->rtt.median / 2 : std::numeric_limits<double>::quiet_NaN();
  c.difference = c.ol - c.global.median;
  c.difference_lo = (at ? at->e.lo : c.ol) - half_rtt - c.global.hi;
  c.difference_hi = (at ? at->e.hi : c.ol) - half_rtt - c.global.lo;
  c.tolerance = model.Tolerance(std::max(c.ol, c.global.median));
  // NaN on either side (no destination, no sample) never agrees, and is not
  // within noise either.
  c.agree = std::fabs(c.difference) <= c.tolerance;
  c.within_noise = !c.agree && c.difference_lo <= c.tolerance && c.difference_hi >= -c.tolerance;
  return c;
}

bool Disturbed(const BcastComparison& c) { return !SentinelRefusal(c.sentinel).empty(); }

LaterJob JudgeLaterJob(const BcastComparison& first, const BcastComparison& later) {
  if (!std::isfinite(later.difference) || !std::isfinite(later.tolerance)) return LaterJob::kConfirms;
  if (later.agree) return LaterJob::kAgrees;
  if (later.within_noise || Disturbed(later)) return LaterJob::kUndecided;
  return (first.difference > 0) == (later.difference > 0) ? LaterJob::kConfirms : LaterJob::kUndecided;
}

const char* Why(LaterJob verdict, const BcastComparison& later) {
  if (verdict != LaterJob::kUndecided) return "";
  if (later.within_noise) return "within noise";
  if (Disturbed(later)) return "the machine-noise sentinel found the machine disturbed";
  return "beyond noise on the other side";
}

SizeVerdict DisagreementTrial::Add(const BcastComparison& later) {
  if (verdict_ != SizeVerdict::kOpen) return verdict_;
  last_ = JudgeLaterJob(first_, later);
  switch (last_) {
    case LaterJob::kAgrees:
      verdict_ = SizeVerdict::kNotConfirmed;
      break;
    case LaterJob::kConfirms:
      if (++sightings_ >= 2 || !std::isfinite(later.difference)) verdict_ = SizeVerdict::kConfirmed;
      break;
    case LaterJob::kUndecided:
      break;
  }
  return verdict_;
}

}  // namespace nbcguard
