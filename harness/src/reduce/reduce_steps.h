// The steps of Reduce (reduce.h) that live in files of their own; internal
// to harness/src/reduce.
#pragma once

#include <cmath>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "nbcguard/clock_model.h"
#include "nbcguard/raw_log.h"
#include "nbcguard/stats.h"

namespace nbcguard {

inline constexpr double kReduceNaN = std::numeric_limits<double>::quiet_NaN();

// A number for results.json: null when not finite.
inline nlohmann::json FiniteOrNull(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

// CPU overhead per communication row (Hoefler et al., 2006), from the "cpu"
// records: results.json cpu_overhead, and per comm target the busiest
// rank's CPU-busy fraction (nonblocking + wait, blocking).
struct CpuOverhead {
  nlohmann::json rows = nlohmann::json::array();
  std::map<double, std::pair<Spread, Spread>> per_comm;
};
CpuOverhead CpuOverheadOf(const RawRun& run, const std::vector<ClockFit>& clocks);

}  // namespace nbcguard
