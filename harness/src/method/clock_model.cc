#include "nbcguard/clock_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nbcguard {

OffsetPoint BestOffset(const std::vector<PingPong>& round) {
  OffsetPoint best;
  best.rtt = std::numeric_limits<double>::infinity();
  for (const PingPong& p : round) {
    if (p.rtt() < 0 || p.rtt() >= best.rtt) continue;
    best.local = 0.5 * (p.t_send + p.t_recv);
    best.offset = best.local - p.t_ref;
    best.rtt = p.rtt();
  }
  return best;
}

ClockFit FitClock(const std::vector<OffsetPoint>& points, bool drift_free) {
  ClockFit fit;
  fit.points = static_cast<int>(points.size());
  if (points.empty()) return fit;

  // A point's offset is off by at most half its round trip, so its weight
  // is 1 / rtt^2 (inverse variance of an error bounded by rtt / 2): a round
  // whose every exchange waited for the scheduler (250 us instead of 1 us on
  // a shared host) no longer pulls the line by its 100 us error, while
  // points of similar round trips count alike, as unweighted.
  auto weight = [](const OffsetPoint& p) {
    constexpr double kMinRtt = 1e-9;  // synthetic points may have a zero round trip
    const double r = p.rtt > kMinRtt ? p.rtt : kMinRtt;
    return 1.0 / (r * r);
  };
  double mean_x = 0, mean_y = 0, sw = 0;
  double min_x = points[0].local, max_x = points[0].local;
  fit.min_rtt = points[0].rtt;
  for (const OffsetPoint& p : points) {
    const double w = weight(p);
    sw += w;
    mean_x += w * p.local;
    mean_y += w * p.offset;
    min_x = std::min(min_x, p.local);
    max_x = std::max(max_x, p.local);
    fit.min_rtt = std::min(fit.min_rtt, p.rtt);
  }
  mean_x /= sw;
  mean_y /= sw;
  fit.span = max_x - min_x;

  // Centre on the (weighted) mean local time: slope and intercept stay well
  // conditioned even when local times are large (seconds since boot) and
  // spans are short.
  double sxx = 0, sxy = 0;
  for (const OffsetPoint& p : points) {
    sxx += weight(p) * (p.local - mean_x) * (p.local - mean_x);
    sxy += weight(p) * (p.local - mean_x) * (p.offset - mean_y);
  }
  const double drift = !drift_free && sxx > 0 ? sxy / sxx : 0.0;
  fit.model = ClockModel(mean_y, drift, mean_x);

  double ss = 0;
  for (const OffsetPoint& p : points) {
    const double r = p.offset - fit.model.OffsetAt(p.local);
    ss += r * r;
  }
  fit.residual_rms = std::sqrt(ss / points.size());
  return fit;
}

}  // namespace nbcguard
