#include "nbcguard/stopping.h"

#include <cmath>

#include "nbcguard/stats.h"

namespace nbcguard {

bool EnoughSamples(const std::vector<double>& durations, int kinds, const StoppingRule& rule) {
  if (kinds < 1 || durations.size() % static_cast<std::size_t>(kinds) != 0) return false;
  const int per_kind = static_cast<int>(durations.size()) / kinds;
  if (per_kind >= rule.max) return true;
  if (rule.precision <= 0 || per_kind < rule.min) return false;
  for (int kind = 0; kind < kinds; ++kind) {
    std::vector<double> mine;
    mine.reserve(static_cast<std::size_t>(per_kind));
    for (std::size_t i = static_cast<std::size_t>(kind); i < durations.size();
         i += static_cast<std::size_t>(kinds))
      mine.push_back(durations[i]);
    const Spread s = Summarize(mine, 0.95);
    // Below 6 samples no interval covers 95 % ([min, max] covers 94 % at
    // 5): too few to know the median, whatever their spread.
    if (s.confidence < 0.95 - 1e-12) return false;
    if (!(s.median > 0) || !((s.hi - s.lo) / 2 <= rule.precision * s.median)) return false;
  }
  return true;
}

}  // namespace nbcguard
