// Named causes of bad overlap (Denis et al., CCPE 2022, section 3.3; docs/method.md, "Metrics"),
// from the ratios of one grid point. Pure.
#pragma once

#include <string>

namespace nbcguard {

enum class Diagnosis {
  kOverlap,                  // r_comm ~ 0, r_comp_slowdown ~ 1: communication progressed in background
  kPartialOverlap,           // r_comm between ~0 and ~1, computation not slowed
  kNoProgression,            // r_comm ~ 1, r_comp_slowdown ~ 1: all the work happened in MPI_Wait
  kComputationSlowdown,      // r_comm ~ 0 (or partial), r_comp_slowdown > 1: progress stole CPU
  kContention,               // r_comm > 1 and r_comp_slowdown > 1
  kCommSlowedByComputation,  // r_comm > 1, r_comp_slowdown ~ 1
  kPassiveImpact,            // r_mpi_impact > 1 (and none of the above is worse)
  kImbalance,                // the ranks computed at unequal speeds: slack, not progression (validity.h)
  kInvalid,                  // a ratio is not finite (point not measured)
};

// Where "~0", "~1" and "> 1" start. Documented in README.md, "Reading the ratios".
struct DiagnosisBands {
  double comm_background = 0.3;  // r_comm below this: communication done in background
  double comm_above = 1.15;      // r_comm above this: communication slowed
  double slowdown_above = 1.10;  // r_comp_slowdown above this: computation slowed
  double impact_above = 1.05;    // r_mpi_impact above this: idle runtime slows computing
  // r_comm at or above this (and not above comm_above), computation not
  // slowed: no progression. Between comm_background and this: partial overlap.
  double comm_no_progress = 0.7;
};

// Decision order (all comparisons strict except comm_no_progress):
//   r_comm or r_comp_slowdown not finite          -> kInvalid
//   r_comm > comm_above:  slowed ? kContention : kCommSlowedByComputation
//   slowed (r_comp_slowdown > slowdown_above)      -> kComputationSlowdown
//   r_comm < comm_background                       -> kOverlap, or kPassiveImpact
//                                                     when PassiveImpact(r_mpi_impact)
//   r_comm >= comm_no_progress                     -> kNoProgression
//   otherwise                                      -> kPartialOverlap
// A passive impact under partial overlap or no progression keeps the primary
// diagnosis (the worse one); callers that want both ask PassiveImpact().
// A non-finite r_mpi_impact is "not measured": never a passive impact.
// kImbalance is not decided here but by the reduction, from the ranks'
// computation times (validity.h): it replaces the diagnosis of a flagged point.
Diagnosis Diagnose(double r_comm, double r_comp_slowdown, double r_mpi_impact,
                   const DiagnosisBands& bands = DiagnosisBands());

// r_mpi_impact is finite and > bands.impact_above: the idle runtime slows
// computing, whatever the overlap diagnosis is.
bool PassiveImpact(double r_mpi_impact, const DiagnosisBands& bands = DiagnosisBands());

const char* ToString(Diagnosis d);  // short id: "overlap", "no-progression", ...
const char* Explain(Diagnosis d);   // one sentence a library developer understands

}  // namespace nbcguard
