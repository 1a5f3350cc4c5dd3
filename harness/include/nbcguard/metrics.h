// The four ratios of the BenchNBC paper (docs/method.md, "Metrics"), as pure
// functions of measured times (seconds). Always pass measured references,
// never target times. Two more metrics can be limited in threshold files:
// the CPU-busy fractions of Hoefler et al., 2006 (cpu_overhead.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace nbcguard {

// The first four are the overlap ratios; the CPU-busy fractions belong to
// overlap points too (cpu_overhead.h); kPartitioned is the ratio of
// partitioned tests (partitioned.h): partitioned bandwidth / best other
// mechanism's.
enum class Metric {
  kOverhead,
  kComm,
  kCompSlowdown,
  kMpiImpact,
  kCpuBusyNbc,       // process CPU / wall inside the nonblocking collective + MPI_Wait (busiest rank)
  kCpuBusyBlocking,  // the same inside the blocking collective
  kPartitioned,      // partitioned bandwidth / best other mechanism's
};

// Every metric, in the order above (threshold files, docs).
const std::vector<Metric>& AllMetrics();
// "r_overhead", "r_comm", "r_comp_slowdown", "r_mpi_impact", "cpu_busy_nbc",
// "cpu_busy_blocking", "r_partitioned".
const char* MetricName(Metric m);
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

// Peers' figures (docs/method.md, "The peers' figures"), for comparison
// only, never verdicts; peer_overlap.h feeds them the averaged times. NaN
// when an input is not finite or a denominator is not positive.
// OSU micro-benchmarks 7.x (print_stats_nbc in c/util/osu_util_mpi.c):
// max(0, 100 - 100 (t_overall - t_compute) / t_pure), on times averaged
// over iterations and ranks, so clamped once; t_compute excludes MPI_Test
// time. No upper clamp: t_overall >= t_compute keeps it <= 100.
double OsuOverlapPercent(double t_overall, double t_compute, double t_pure);
// Intel MPI Benchmarks, IMB-NBC (IMB_display_times in src_c/IMB_output.c):
// 100 max(0, min(1, (t_pure + t_cpu - t_ovrl) / max(t_pure, t_cpu))), the
// three times of one rank, each averaged over iterations.
double ImbOverlapPercent(double t_pure, double t_cpu, double t_ovrl);

}  // namespace nbcguard
