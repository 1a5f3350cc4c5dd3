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

ClockFit FitClock(const std::vector<OffsetPoint>& points) {
  ClockFit fit;
  fit.points = static_cast<int>(points.size());
  if (points.empty()) return fit;

  double mean_x = 0, mean_y = 0;
  double min_x = points[0].local, max_x = points[0].local;
  fit.min_rtt = points[0].rtt;
  for (const OffsetPoint& p : points) {
    mean_x += p.local;
    mean_y += p.offset;
    min_x = std::min(min_x, p.local);
    max_x = std::max(max_x, p.local);
    fit.min_rtt = std::min(fit.min_rtt, p.rtt);
  }
  mean_x /= points.size();
  mean_y /= points.size();
  fit.span = max_x - min_x;

  // Centre on the mean local time: slope and intercept stay well conditioned
  // even when local times are large (seconds since boot) and spans are short.
  double sxx = 0, sxy = 0;
  for (const OffsetPoint& p : points) {
    sxx += (p.local - mean_x) * (p.local - mean_x);
    sxy += (p.local - mean_x) * (p.offset - mean_y);
  }
  const double drift = sxx > 0 ? sxy / sxx : 0.0;
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
