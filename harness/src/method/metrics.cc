// The four ratios of the BenchNBC paper (docs/method.md, "Metrics").
#include "nbcguard/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "nbcguard/stats.h"

namespace nbcguard {
namespace {

// A measured time usable as a denominator: finite and strictly positive.
bool UsableDenominator(double t) { return std::isfinite(t) && t > 0; }

// Never return inf: a non-finite numerator or result becomes NaN.
double Finite(double x) { return std::isfinite(x) ? x : kNaN; }

}  // namespace

const char* MetricName(Metric m) {
  switch (m) {
    case Metric::kOverhead:
      return "r_overhead";
    case Metric::kComm:
      return "r_comm";
    case Metric::kCompSlowdown:
      return "r_comp_slowdown";
    case Metric::kMpiImpact:
      return "r_mpi_impact";
    case Metric::kPartitioned:
      return "r_partitioned";
    case Metric::kCpuBusyNbc:
      return "cpu_busy_nbc";
    case Metric::kCpuBusyBlocking:
      return "cpu_busy_blocking";
  }
  return "unknown";
}

const std::vector<Metric>& AllMetrics() {
  static const std::vector<Metric> all = {Metric::kOverhead,   Metric::kComm,       Metric::kCompSlowdown,
                                          Metric::kMpiImpact,  Metric::kCpuBusyNbc, Metric::kCpuBusyBlocking,
                                          Metric::kPartitioned};
  return all;
}

std::optional<Metric> ParseMetric(const std::string& name) {
  for (Metric m : AllMetrics()) {
    if (name == MetricName(m)) return m;
  }
  return std::nullopt;
}

double OverheadRatio(double t_measured, double t_comp_ref, double t_comm_ref) {
  if (!UsableDenominator(t_comp_ref) || !UsableDenominator(t_comm_ref)) return kNaN;
  if (!std::isfinite(t_measured)) return kNaN;
  const double longest = std::max(t_comp_ref, t_comm_ref);
  const double shortest = std::min(t_comp_ref, t_comm_ref);
  return Finite((t_measured - longest) / shortest);
}

double MpiImpactRatio(double t_comp_passive_mpi, double t_comp_no_mpi) {
  if (!UsableDenominator(t_comp_no_mpi) || !std::isfinite(t_comp_passive_mpi)) return kNaN;
  return Finite(t_comp_passive_mpi / t_comp_no_mpi);
}

double CompSlowdownRatio(double t_comp, double t_comp_ref) {
  if (!UsableDenominator(t_comp_ref) || !std::isfinite(t_comp)) return kNaN;
  return Finite(t_comp / t_comp_ref);
}

double CommRatio(double t_call, double t_wait, double t_comm_ref) {
  if (!UsableDenominator(t_comm_ref) || !std::isfinite(t_call) || !std::isfinite(t_wait)) {
    return kNaN;
  }
  return Finite((t_call + t_wait) / t_comm_ref);
}

double OsuOverlapPercent(double t_overall, double t_compute, double t_pure) {
  if (!UsableDenominator(t_pure) || !std::isfinite(t_overall) || !std::isfinite(t_compute)) return kNaN;
  return std::max(0.0, 100.0 - 100.0 * (t_overall - t_compute) / t_pure);
}

double ImbOverlapPercent(double t_pure, double t_cpu, double t_ovrl) {
  if (!std::isfinite(t_pure) || !std::isfinite(t_cpu) || !std::isfinite(t_ovrl)) return kNaN;
  if (t_pure < 0 || t_cpu < 0 || !UsableDenominator(std::max(t_pure, t_cpu))) return kNaN;
  return 100.0 * std::clamp((t_pure + t_cpu - t_ovrl) / std::max(t_pure, t_cpu), 0.0, 1.0);
}

}  // namespace nbcguard
