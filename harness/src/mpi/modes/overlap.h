// The overlap mode's steps (overlap_mode.cc), shared with the files of its
// calibration (overlap_calibration.cc) and CPU overhead phase (overlap_cpu.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "gemm.h"
#include "mode_context.h"

namespace nbcguard {

// The calibrated grid: a matrix size per computation target and a count per
// communication target (empty: that target's calibration failed).
struct CalibratedSizes {
  std::vector<std::optional<int>> comp;
  std::vector<std::optional<std::uint64_t>> comm;
};

// Calibrates every target of the grid (`threads`: the computation's team
// size, part of the calibration cache key). Returns 0, or the exit status
// of a conformance failure.
int CalibrateGrid(ModeContext& c, Measurer& m, Collective& coll, ComputeTeam& team, CalibratedSizes* sizes);

// The CPU overhead of one communication size ("cpu" record). Returns 0, or
// the exit status of a conformance failure.
int MeasureCpu(ModeContext& c, Measurer& m, Collective& coll, double target, std::uint64_t count);

}  // namespace nbcguard
