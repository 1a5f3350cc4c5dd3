// The four ratios of the BenchNBC paper (METHOD.md section 3), as pure
// functions of measured times (seconds). Always pass measured references,
// never target times.
#pragma once

#include <optional>
#include <string>

namespace nbcguard {

enum class Metric { kOverhead, kComm, kCompSlowdown, kMpiImpact };

const char* MetricName(Metric m);  // "r_overhead", "r_comm", "r_comp_slowdown", "r_mpi_impact"
std::optional<Metric> ParseMetric(const std::string& name);

// (1) (t_measured - max(comp_ref, comm_ref)) / min(comp_ref, comm_ref).
// 0 = perfect overlap, 1 = serialized, > 1 = worse than serialized.
double OverheadRatio(double t_measured, double t_comp_ref, double t_comm_ref);
// (2) t_comp_passive_mpi / t_comp_ref_without_mpi.
double MpiImpactRatio(double t_comp_passive_mpi, double t_comp_no_mpi);
// (3) t_comp / t_comp_ref.
double CompSlowdownRatio(double t_comp, double t_comp_ref);
// (4) (t_call + t_wait) / t_comm_ref.
double CommRatio(double t_call, double t_wait, double t_comm_ref);

}  // namespace nbcguard
