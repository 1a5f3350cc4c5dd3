// Named causes of bad overlap (docs/method.md, "Metrics"; Denis et al., CCPE 2022, section 3.3).
#include "nbcguard/diagnosis.h"

#include <cmath>

namespace nbcguard {

bool PassiveImpact(double r_mpi_impact, const DiagnosisBands& bands) {
  return std::isfinite(r_mpi_impact) && r_mpi_impact > bands.impact_above;
}

Diagnosis Diagnose(double r_comm, double r_comp_slowdown, double r_mpi_impact, const DiagnosisBands& bands) {
  if (!std::isfinite(r_comm) || !std::isfinite(r_comp_slowdown)) return Diagnosis::kInvalid;
  const bool slowed = r_comp_slowdown > bands.slowdown_above;
  if (r_comm > bands.comm_above) {
    return slowed ? Diagnosis::kContention : Diagnosis::kCommSlowedByComputation;
  }
  if (slowed) return Diagnosis::kComputationSlowdown;
  if (r_comm < bands.comm_background) {
    return PassiveImpact(r_mpi_impact, bands) ? Diagnosis::kPassiveImpact : Diagnosis::kOverlap;
  }
  if (r_comm >= bands.comm_no_progress) return Diagnosis::kNoProgression;
  return Diagnosis::kPartialOverlap;
}

const char* ToString(Diagnosis d) {
  switch (d) {
    case Diagnosis::kOverlap:
      return "overlap";
    case Diagnosis::kPartialOverlap:
      return "partial-overlap";
    case Diagnosis::kNoProgression:
      return "no-progression";
    case Diagnosis::kComputationSlowdown:
      return "computation-slowdown";
    case Diagnosis::kContention:
      return "contention";
    case Diagnosis::kCommSlowedByComputation:
      return "comm-slowed-by-computation";
    case Diagnosis::kPassiveImpact:
      return "passive-runtime-impact";
    case Diagnosis::kImbalance:
      return "rank-imbalance";
    case Diagnosis::kInvalid:
      return "invalid";
  }
  return "invalid";
}

const char* Explain(Diagnosis d) {
  switch (d) {
    case Diagnosis::kOverlap:
      return "the collective progressed in the background during computation: little time was "
             "left for MPI calls (r_comm ~ 0) and the computation was not slowed "
             "(r_comp_slowdown ~ 1)";
    case Diagnosis::kPartialOverlap:
      return "the collective progressed only partly during computation: part of its work still "
             "happened in MPI_Wait (0 < r_comm < 1), the computation was not slowed "
             "(r_comp_slowdown ~ 1)";
    case Diagnosis::kNoProgression:
      return "nothing progressed the collective during computation: the work happened in "
             "MPI_Wait (r_comm ~ 1, r_comp_slowdown ~ 1)";
    case Diagnosis::kComputationSlowdown:
      return "the collective progressed, but progression stole CPU from the computation "
             "(a polling progress thread or interrupts on the compute cores): r_comm below 1, "
             "r_comp_slowdown > 1";
    case Diagnosis::kContention:
      return "contention without overlap: communication and computation slowed each other "
             "down (shared cores, memory bandwidth or network interface): r_comm > 1 and "
             "r_comp_slowdown > 1";
    case Diagnosis::kCommSlowedByComputation:
      return "the computation slowed the communication: the collective took longer inside MPI "
             "calls than alone (r_comm > 1) while the computation ran at full speed "
             "(r_comp_slowdown ~ 1), e.g. progress starved of CPU or memory bandwidth";
    case Diagnosis::kPassiveImpact:
      return "the idle MPI runtime slows computing even with no communication in flight "
             "(polling or a progress thread competes with the compute threads): "
             "r_mpi_impact > 1";
    case Diagnosis::kImbalance:
      return "the ranks computed at unequal speeds: a rank that finished computing early did (part "
             "of) the transfer inside MPI_Wait while a slower rank still computed, which shortens "
             "the collective's time without any progress during computation; the overlap ratios "
             "cannot tell progression from this slack (bind the ranks to cores, or look for what "
             "slows one rank)";
    case Diagnosis::kInvalid:
      return "the point was not measured: a ratio is not finite (calibration failed or no "
             "sample survived)";
  }
  return "unknown diagnosis";
}

}  // namespace nbcguard
