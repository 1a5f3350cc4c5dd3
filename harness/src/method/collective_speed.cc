#include "nbcguard/collective_speed.h"

#include <cmath>
#include <limits>

namespace nbcguard {

std::vector<double> BandwidthPerSample(double bytes_per_rank, const std::vector<double>& seconds) {
  std::vector<double> out;
  if (!(bytes_per_rank > 0) || !std::isfinite(bytes_per_rank)) return out;
  out.reserve(seconds.size());
  for (double t : seconds)
    out.push_back(t > 0 && std::isfinite(t) ? bytes_per_rank / t : std::numeric_limits<double>::quiet_NaN());
  return out;
}

CollectiveSpeed SpeedOf(double bytes_per_rank, const std::vector<double>& seconds) {
  CollectiveSpeed s;
  s.bytes_per_rank = std::isfinite(bytes_per_rank) && bytes_per_rank > 0 ? bytes_per_rank : 0;
  s.time = Summarize(seconds);
  s.bandwidth = Summarize(BandwidthPerSample(s.bytes_per_rank, seconds));
  return s;
}

}  // namespace nbcguard
