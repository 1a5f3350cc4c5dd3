// The progress line a person sees on a terminal during a long run: which
// phase the run is in, how far along, and how long it should still take.
// Pure: the driver feeds it counts read from the harness's raw records.
#pragma once

#include <string>

namespace nbcguard {

struct ProgressState {
  std::string id;        // "ibcast n2 basic"
  int comp_targets = 0;  // computation sizes to calibrate
  int comm_targets = 0;  // communication sizes to calibrate
  int points = 0;        // grid points
  int comp_done = 0, comm_done = 0, points_done = 0;
  int impact_round = 0;  // > 0: r_mpi_impact round in progress (1-based)
  int impact_max_rounds = 0;
  double elapsed = 0;        // seconds since the run started
  double grid_started = -1;  // elapsed when the first grid point began (< 0: not yet)
  double timeout_left = -1;  // seconds before the test's timeout (< 0: unknown)
};

// "ibcast n2 basic: grid point 3/4 (calibrated 2+2 sizes), 41s elapsed, ~12s left"
// The estimate of time left is the mean time per finished grid point times
// the points left; before a point has finished it says how long until the
// test's timeout instead, and it never promises more than that.
std::string FormatProgress(const ProgressState& s);

}  // namespace nbcguard
