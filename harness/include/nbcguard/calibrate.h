// Calibration by time (Denis et al., CCPE 2022, sections 4.3, 5.1): find the size whose
// measured time is within `tolerance` of a target, by geometric bracketing
// then quadratic interpolation of (size, time) points. Independent of MPI:
// the cost is a callback, so the search is unit-tested with synthetic costs.
// In the harness the callback returns a median agreed by all ranks, so every
// rank takes the same path.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nbcguard {

struct CalibrationOptions {
  double tolerance = 0.10;  // converged when |time - target| <= tolerance * target
  int max_iterations = 24;  // cost evaluations before giving up
  std::uint64_t min_size = 1;
  std::uint64_t max_size = std::uint64_t(1) << 24;
  std::uint64_t start_size = 0;  // 0 = min_size
  // How steeply the cost can grow with size beyond a fixed start-up cost:
  // time ~ a + c size^growth_exponent (1: message sizes; 3: GEMM matrix
  // order). Bracketing extrapolates with that law, so a GEMM behind a
  // start-up cost is not overshot by 100x in time. Must be > 0.
  double growth_exponent = 1;
  // How many times an apparent step (see below) is measured again before it
  // is believed: both ends of the bracket are evaluated once more and the
  // search goes on from the new times. On a machine whose speed drifts
  // within seconds (shared vCPUs), one slow median at the upper end of a
  // bracket looks exactly like a step; a real step shows up again. 0: trust
  // every measurement (a step is reported at once).
  int recheck_steps = 0;
  // A start size taken from an earlier run (the calibration cache) is
  // trusted only as far as its first time is within this factor of the
  // target (either way): further off, the point is dropped
  // (CalibrationResult::dropped_start) and the search starts again from
  // fallback_start_size as if there had been none. 0: every start trusted.
  double start_trust_factor = 0;
  std::uint64_t fallback_start_size = 0;  // 0 = min_size
};

struct CalibrationStep {
  std::uint64_t size = 0;
  double time = 0;
};

struct CalibrationResult {
  bool converged = false;
  std::uint64_t size = 0;              // best size found (closest to target); 0 when nothing measured
  double time = 0;                     // its measured time
  std::vector<CalibrationStep> steps;  // every evaluation, in order
  std::string reason;                  // why it did not converge (empty when converged)
  // The start size and its time when start_trust_factor dropped it (not in
  // steps; size 0 when it was kept).
  CalibrationStep dropped_start;
};

// cost(size) returns the (median) time in seconds for `size`; sizes are
// integers in [min_size, max_size]. Never evaluates outside that range and
// never evaluates the same size twice, except the two ends of an apparent
// step re-measured under recheck_steps (the newer time then counts). Not converged when the target is
// below cost(min_size) or above cost(max_size) (beyond tolerance), or when
// max_iterations is exhausted (e.g. a cost that is not monotonic); `reason`
// says which.
//
// Search (see calibrate.cc for details):
// - Bracketing: from the start size, step geometrically toward the target.
//   The step is extrapolated from the last two points: the smaller of a
//   power-law fit (t = c size^p) and of t = a + b size^growth_exponent;
//   from one point, t ~ size^3 when growing (t ~ size when shrinking). It
//   is clamped to at most 64x in size and at least 2x in predicted time
//   (2x in size for linear costs). Sizes stay in [min_size, max_size].
// - Once a size below and a size above the target are known (the bracket),
//   the next size solves time(size) = target on the parabola through the
//   bracket ends and the evaluated point nearest to it (linear with two
//   points). A proposal that is not strictly inside the bracket, or an
//   interpolation step that did not halve the bracket (in log size), leads
//   to a bisection in log size (geometric mean), so every two evaluations
//   at least halve the bracket.
// - A point below the target replaces the bracket's lower end only when it
//   lies inside the bracket (and likewise above), so non-monotonic costs
//   cannot make it inconsistent.
// - A step: no integer left in the bracket, or a bracket narrower than 0.1 %
//   across which the time grows like size^100 or faster -> both ends are
//   measured again (up to recheck_steps times, within max_iterations) and
//   the search resumes from the new times; otherwise not converged, "the time
//   jumps from ... to ...".
// size/time are those of the evaluated point closest to the target
// (relative error; a re-measured size counts with its newest time), also
// when not converged. A non-finite or negative
// time from `cost` stops the search (not converged). A non-positive or
// non-finite target, a negative tolerance, a non-positive growth_exponent
// or min_size > max_size are not converged with no evaluation.
CalibrationResult CalibrateSize(const std::function<double(std::uint64_t)>& cost, double target,
                                const CalibrationOptions& options);

}  // namespace nbcguard
