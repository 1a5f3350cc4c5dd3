// Imbalance and validity gates (docs/method.md, "Rank imbalance" and
// "Validity gates").
#include "nbcguard/validity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "nbcguard/stats.h"
#include "nbcguard/units.h"

namespace nbcguard {
namespace {

bool Positive(double t) { return std::isfinite(t) && t > 0; }

// Slowest - fastest and slowest / fastest of per-rank times, with the ranks.
struct Extremes {
  double slack = Imbalance::kNotMeasured, ratio = Imbalance::kNotMeasured;
  int slowest = -1, fastest = -1;
};

Extremes ExtremesOf(const std::vector<double>& per_rank) {
  Extremes e;
  if (per_rank.size() < 2) return e;
  for (std::size_t r = 0; r < per_rank.size(); ++r)
    if (!Positive(per_rank[r])) return e;
  const auto [lo, hi] = std::minmax_element(per_rank.begin(), per_rank.end());
  e.slack = *hi - *lo;
  e.ratio = *hi / *lo;
  e.slowest = static_cast<int>(hi - per_rank.begin());
  e.fastest = static_cast<int>(lo - per_rank.begin());
  return e;
}

std::string RoundPercent(double share) {
  return std::to_string(static_cast<int>(std::lround(share * 100))) + " %";
}

std::string Fixed(double x, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

}  // namespace

Imbalance MeasureImbalance(const std::vector<double>& ref_per_rank,
                           const std::vector<double>& overlap_per_rank, double t_comm_ref,
                           double t_comp_ref) {
  Imbalance im;
  const Extremes ref = ExtremesOf(ref_per_rank);
  const Extremes ovl = ExtremesOf(overlap_per_rank);
  im.ref_slack = ref.slack;
  im.ref_ratio = ref.ratio;
  im.slowest_rank = ref.slowest;
  im.fastest_rank = ref.fastest;
  im.overlap_slack = ovl.slack;
  im.overlap_ratio = ovl.ratio;
  if (Positive(t_comm_ref) && Positive(t_comp_ref) && std::isfinite(ref.slack)) {
    im.effect = ref.slack / std::min(t_comm_ref, t_comp_ref);
    im.flagged = im.effect > kImbalanceBound;
  }
  return im;
}

double HiddenByImbalance(const PointResult& p, Metric m) {
  if (!p.imbalance.flagged) return 0;
  if (m == Metric::kOverhead) return p.imbalance.effect;
  if (m == Metric::kComm && Positive(p.t_comm_ref)) return p.imbalance.ref_slack / p.t_comm_ref;
  return 0;
}

double RelativeIqr(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }),
               values.end());
  if (values.size() < 4) return Imbalance::kNotMeasured;
  std::sort(values.begin(), values.end());
  auto quantile = [&](double q) {
    const double at = q * static_cast<double>(values.size() - 1);
    const auto i = static_cast<std::size_t>(at);
    const double frac = at - static_cast<double>(i);
    return i + 1 < values.size() ? values[i] + frac * (values[i + 1] - values[i]) : values[i];
  };
  const double median = quantile(0.5);
  if (!Positive(median)) return Imbalance::kNotMeasured;
  return (quantile(0.75) - quantile(0.25)) / median;
}

std::string GateFailure(const PointResult& p, const TimingQuality& q, const GateBounds& b) {
  const double shorter = std::min(p.t_comm_ref, p.t_comp_ref);
  const double longer = std::max(p.t_comm_ref, p.t_comp_ref);
  if (!Positive(shorter)) return "";
  if (std::string disturbed = SentinelRefusal(p.sentinel); !disturbed.empty()) return disturbed;
  const double allowed = b.timing_share * shorter;
  const std::string of_ref = " exceeds " + RoundPercent(b.timing_share) + " of the shorter reference (" +
                             FormatDuration(allowed) + ")";
  if (std::isfinite(q.clock_error) && 2 * q.clock_error > allowed)
    return "clock error 2 x " + FormatDuration(q.clock_error) + of_ref +
           ": the clock synchronization was disturbed (fit residual + offset uncertainty)";
  if (std::isfinite(q.barrier_skew) && q.barrier_skew > allowed)
    return "synchronized barrier exit skew " + FormatDuration(q.barrier_skew) + of_ref +
           ": the ranks did not start together";
  if (std::isfinite(p.start_skew) && p.start_skew > b.start_share * shorter)
    return "the ranks started the overlap runs " + FormatDuration(p.start_skew) + " apart (median), over " +
           RoundPercent(b.start_share) + " of the shorter reference (" +
           FormatDuration(b.start_share * shorter) + ")" +
           ": a rank was descheduled after the synchronized barrier, or the clocks were disturbed";
  for (const auto& [spread, what] :
       {std::pair{p.comp_ref_spread, "computation"}, std::pair{p.comm_ref_spread, "communication"}})
    if (std::isfinite(spread) && spread > b.comp_spread)
      return std::string(what) + " unstable: interquartile range of the " + what + " reference " +
             Fixed(spread, 2) + " x its median (bound " + Fixed(b.comp_spread, 2) +
             "): the machine's speed changed during the point";
  for (const auto& [ref, target, what] : {std::tuple{p.t_comm_ref, p.comm_target, "communication"},
                                          std::tuple{p.t_comp_ref, p.comp_target, "computation"}})
    if (Positive(target) && ref > b.target_factor * target)
      return std::string(what) + " reference " + FormatDuration(ref) + ", " + Fixed(ref / target, 1) +
             " x its calibrated target " + FormatDuration(target) + " (bound " + Fixed(b.target_factor, 0) +
             " x): the machine's speed changed since calibration";
  if (std::isfinite(p.r_comp_slowdown.median) && p.r_comp_slowdown.median < b.comp_faster_floor)
    return "r_comp_slowdown " + Fixed(p.r_comp_slowdown.median, 2) + " below " +
           Fixed(b.comp_faster_floor, 2) +
           ": the computation ran more than twice as fast beside the collective as alone, which no "
           "collective causes; the machine's speed changed between the runs";
  if (Positive(p.t_measured) && p.t_measured < b.measured_floor * longer)
    return "t_measured " + FormatDuration(p.t_measured) + " below " + RoundPercent(b.measured_floor) +
           " of the longer reference (" + FormatDuration(longer) +
           "): collective and computation together cannot be that fast; the machine's speed changed";
  return "";
}

}  // namespace nbcguard
