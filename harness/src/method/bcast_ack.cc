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

bool ConfirmsDisagreement(const BcastComparison& first, const BcastComparison& second) {
  if (!std::isfinite(second.difference) || !std::isfinite(second.tolerance)) return true;
  if (second.agree) return false;
  return (first.difference > 0) == (second.difference > 0);
}

}  // namespace nbcguard
