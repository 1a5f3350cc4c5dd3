// The outcome of one grid point (target comm time x target comp time) after
// the harness ran and the driver reduced samples: medians, spreads, ratios.
#pragma once

#include <string>

#include "nbcguard/diagnosis.h"
#include "nbcguard/stats.h"

namespace nbcguard {

struct PointResult {
  double comm_target = 0;  // seconds
  double comp_target = 0;  // seconds
  bool valid = true;       // false when calibration failed or no sample survived
  std::string invalid_reason;

  // Medians (seconds) of the measured times.
  double t_comm_ref = 0, t_comp_ref = 0, t_measured = 0;
  double t_call = 0, t_comp = 0, t_wait = 0;

  // Ratios: median and confidence interval of the median over the
  // per-repetition ratios (references fixed at their medians).
  Spread r_overhead, r_comm, r_comp_slowdown;
  // r_mpi_impact belongs to the computation row (comp target); repeated here.
  Spread r_mpi_impact;

  Diagnosis diagnosis = Diagnosis::kInvalid;
};

}  // namespace nbcguard
