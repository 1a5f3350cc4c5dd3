// `nbcguard cost DIR...`: the tool's own cost, from the "cost" and
// "calibration" records of results.json files: per test the wall time and
// where it went (clock synchronization, calibration, measurement, the
// r_mpi_impact jobs), size evaluations per calibrated target and how the
// calibration cache served them; then the sums. A benchmark's report, not
// a check: it never fails on a figure.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace nbcguard {

// 0 when at least one results.json with a cost record was read, else 2
// (nothing to report; the message says why).
int CostCommand(const std::vector<std::string>& dirs, std::ostream& out);

}  // namespace nbcguard
