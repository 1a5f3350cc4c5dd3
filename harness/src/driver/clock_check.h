// `nbcguard clock-check` and `nbcguard clock-scaling`: clock synchronization
// against a known truth. All ranks of one host share CLOCK_MONOTONIC, which
// is rank 0's (reference) clock; the harness perturbs rank 1's clock, or
// every rank's but 0, with a known offset and drift, so the true offset of
// every rank is known at every instant and the recovered one can be compared
// with it, per rank, right after the sync and at the end of a probe window.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "launcher.h"

namespace nbcguard {

struct ClockCheckOptions {
  int nodes = 2;
  double offset = 0.05, drift = 100e-6;  // injected on rank 1 (or around these on every rank)
  bool inject_all = false;               // every rank but 0, rank-dependent (RankPerturbation)
  std::string clock_sync = "flat";       // flat | tree
  double wait = 2.0;                     // probe window after the sync, seconds
  int skew_rounds = 100;                 // barrier exit skew rounds after the window (0: none)
  double bound_us = 0;                   // fail beyond (0: report only)
  std::string out;
};

// One rank's errors |recovered offset - true offset| (= |global estimate -
// true time|), seconds; extrapolated = the real-time model the synchronized
// barrier uses, interpolated = the driver's post-mortem fit over all points.
struct RankClockError {
  int rank = 0;
  int depth = 1;  // exchanges between this rank and rank 0 (tree: popcount)
  double after_sync_extrapolated = 0, after_sync_interpolated = 0;
  double end_extrapolated = 0, end_interpolated = 0;  // last probe of the window
  double drift_ppm = 0, true_drift_ppm = 0;
  double min_rtt = 0;
};

struct ClockCheckRun {
  int status = 0;  // kPass, or kHarnessFailed with `error`
  std::string error;
  std::string library;
  int ranks = 0;
  std::string method;
  double sync_seconds =
      0;  // the start calibration (10 x 100 ping-pongs per rank), rank 0, barrier to barrier
  nlohmann::json phase_seconds = nlohmann::json::object();       // every calibration phase (first of each)
  double window = 0;                                             // first probe to last, seconds
  std::vector<RankClockError> per_rank;                          // ranks 1..p-1
  double all_extrapolated_median = 0, all_extrapolated_max = 0;  // over every probe of every rank
  double all_interpolated_median = 0, all_interpolated_max = 0;
  nlohmann::json barrier;
  double load_before = 0, load_after = 0;  // 1-minute load average around the run
  std::string dir;
};

// Launches the harness in clock-check mode under `dir` and evaluates it.
ClockCheckRun MeasureClockCheck(const Config& cfg, const ClockCheckOptions& o, const std::string& dir);

// Per-run report (clock-check.json) and the command: prints, fails beyond bound_us.
nlohmann::json ClockCheckJson(const ClockCheckOptions& o, const ClockCheckRun& r);
int ClockCheck(const Config& cfg, const ClockCheckOptions& o);

struct ClockScalingOptions {
  std::vector<int> nodes = {2, 4, 8, 16};
  std::vector<std::string> methods = {"flat", "tree"};
  int repetitions = 3;
  double offset = 0.05, drift = 100e-6;  // around these on every rank but 0
  double wait = 10.0;
  std::vector<int> predict = {1000, 10000};
  std::string out;
};

// Benchmark: clock-check with every rank perturbed, per method and rank
// count, `repetitions` runs each; prints medians over runs of the sync time
// and of the max / median over ranks of the error, fits the growth models
// (time per sequential step; error per tree hop, linear or sqrt in depth)
// and predicts them for `predict` ranks. Writes clock-scaling.json.
int ClockScaling(const Config& cfg, const ClockScalingOptions& o);

}  // namespace nbcguard
