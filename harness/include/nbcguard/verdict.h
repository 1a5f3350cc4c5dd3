// Threshold rules applied to point results: pass/fail with the rule, point,
// measured value (with spread), limit and diagnosis. Pure.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nbcguard/compare.h"
#include "nbcguard/deployment.h"
#include "nbcguard/point_result.h"
#include "nbcguard/threshold_spec.h"

namespace nbcguard {

// What identifies a test for rule matching.
struct TestContext {
  std::string collective;
  int nodes = 0;
  Deployment deployment = Deployment::kBasic;
  std::vector<std::string> labels;
  CaseKind kind = CaseKind::kOverlap;  // a rule applies to tests of its own kind only
  std::string system;                  // the run's system (empty: none); rules' match.system
};

bool RuleApplies(const Rule& rule, const TestContext& test);

// Whether a rule applying to `test` limits `metric` at any of the points
// `at` ((comm, comp) seconds): what judging those points needs measured.
bool RulesLimit(const std::vector<Rule>& rules, const TestContext& test, Metric metric,
                const std::vector<std::pair<double, double>>& at);

struct Finding {
  std::string rule;  // rule name
  SourceLocation rule_where;
  double comm_target = 0, comp_target = 0;
  // The point's name when it is not a comm x comp one (partitioned tests:
  // "partition=1MiB order=random threads=2"); empty for overlap points.
  std::string at;
  Metric metric = Metric::kOverhead;
  Spread measured;  // the ratio at that point
  double limit = 0;
  bool is_max = true;  // limit was a max (else a min)
  Diagnosis diagnosis = Diagnosis::kInvalid;
  // True when the whole confidence interval is past the limit (a failure);
  // false when only the median is (reported within noise). Message() says so.
  bool beyond_noise = true;
  // Within noise because the results history knows how far this figure
  // moves between jobs of the same test, and the median is not past the
  // limit by more than that (BetweenRunNoise); `between` is that spread.
  bool within_between = false;
  BetweenRunSpread between;
  // The same point and metric measured again by a second, independent job
  // (Confirm); n == 0 when there was none.
  Spread again;
  // "rule 'x' (file:line) at comm=4ms comp=1ms: r_overhead = 1.42 [1.31, 1.55]
  //  > max 1.30 -- no-progression: ..."
  // Ratios with 3 significant digits; within noise adds " (within noise)"
  // after the limit. "(file:line)" is omitted when the rule has no location.
  std::string Message() const;
};

// One invalid point inside one rule's region, as reported:
// "comm=4ms comp=1ms: INVALID (reason) [rule 'x']", and where the point is
// (comm_target, comp_target) for overlap points; partitioned points have no
// grid location (their line starts with the point's name).
struct InvalidPoint {
  std::string line;
  std::optional<std::pair<double, double>> at;
  // Measured, but refused: by a validity gate, or a limit met only with the
  // ranks' unequal computing in its favour. Not the library's failure.
  bool refused = false;
  bool operator==(const InvalidPoint& o) const { return line == o.line && at == o.at; }
};

struct Verdict {
  bool pass = false;
  int rules_applied = 0;
  int points_checked = 0;  // (point, rule) pairs evaluated
  // Grid points (comm_target, comp_target) that at least one rule checked,
  // each once, in grid order: the region a test is judged on.
  std::vector<std::pair<double, double>> checked;
  // The same for partitioned tests, by point name (PointName), in grid order.
  std::vector<std::string> checked_names;
  // Exceeded beyond noise: the whole confidence interval is past the limit.
  std::vector<Finding> failures;
  // Median past the limit but the interval reaches back inside it: reported, not failed.
  std::vector<Finding> within_noise;
  // Exceeded beyond noise in one job, but a second, independent job measured
  // the point on the right side of the limit (Confirm): reported, not failed.
  std::vector<Finding> unconfirmed;
  // Exceeded beyond noise by the only job that judged the point: the first
  // job could not measure it or refused its measurement, and the second job
  // found this; or the first job found it and the second was past the limit
  // only by its own rank imbalance (Confirm). One job is not a failure: a
  // further job looks (ConfirmOneJobFailures); while none has decided, the
  // test is INCONCLUSIVE.
  std::vector<Finding> one_job;
  // Invalid points inside a rule's region, one per (point, rule): the test
  // cannot pass with them.
  std::vector<InvalidPoint> invalid;
  // Points invalid in the first job that a second, independent job measured
  // (Confirm): the first job's INVALID lines, one per (point, rule); the
  // first of a point's lines goes on with what the second job found there.
  // The rules were applied to the second job's figures there.
  std::vector<std::string> remeasured;
  // The distinct grid points (comm_target, comp_target) behind `remeasured`
  // that the second job measured, in the order of their first line.
  std::vector<std::pair<double, double>> remeasured_at;
  // Not passed, but only because of refused points (InvalidPoint::refused)
  // or limits exceeded by one job alone (one_job): no failure seen by two
  // jobs, something applied. INCONCLUSIVE, exit kInconclusive.
  bool Inconclusive() const;
  std::string Summary() const;                    // one line: PASS/FAIL/INCONCLUSIVE and counts
  std::vector<std::string> InvalidLines() const;  // the lines of `invalid`, one per (point, rule), in order
};

// How far one job's median moves between independent jobs of this test,
// from the results history (compare.h, BetweenRunSpread; docs/history.md).
// A limit is exceeded beyond noise only when the whole confidence interval
// is past it and, where the series of (test, point, ratio) has min_nights
// valid nights, the median is past it by more than
// UpperNormalQuantile(alpha) x sigma as well (on log values for the
// relative ratios). One job's interval is over its repetitions, which share
// the job's state of the machine; the history's sigma is over jobs.
struct BetweenRunNoise {
  std::string test;  // as CTest names it: mpich.ibcast.n2.basic (TestKey::Name)
  std::map<std::string, BetweenRunSpread> between;  // by SeriesKey
  int min_nights = 6;
  double alpha = 0.01;
  // The spread of `metric` at a point, when the history knows it well
  // enough; r_mpi_impact's series are per computation target ("* x 2ms").
  const BetweenRunSpread* Find(const PointResult& p, Metric metric) const;
};

// Applies every rule that matches `test` to every point in its region.
// Fails when any failure or invalid point exists, or when no rule applied
// (nothing checked is not a pass).
// An invalid point (valid == false), or a valid point whose median of a
// limited metric is NaN, inside a rule's region adds one line to `invalid`
// per (point, rule): "comm=4ms comp=1ms: INVALID (reason) [rule 'x']".
// points_checked counts the (point, rule) pairs of valid points in the
// region; a rule whose region holds no point at all checks nothing, and
// when no pair is checked the verdict fails.
// With `noise`, a limit exceeded only within the spread between jobs is
// reported within noise, with that spread (BetweenRunNoise).
Verdict Evaluate(const std::vector<PointResult>& points, const TestContext& test,
                 const std::vector<Rule>& rules, const BetweenRunNoise* noise = nullptr);

// A failed limit confirmed by a second, independent job: the verdict of the
// first job, with each of its failures looked up at the same point in
// `again` (the second job's points). A failure stays one when the second
// job's median is past the same limit too (beyond noise or within it), or
// when the second job has no valid median there; when its median is on the
// right side of the limit the failure moves to `unconfirmed`. Each looked-up
// failure carries the second job's figure in `again`. Within-noise findings
// are kept as they are: only limits exceeded beyond noise are confirmed.
//
// A point the first job could not measure (invalid: a calibration that
// did not converge, no samples) or measured but refused (a validity gate,
// rank imbalance) is judged on the second job's measurement of it when that
// one is valid: `rules` are applied to it for `test` as Evaluate does, its
// within-noise findings join the verdict's, its limits exceeded beyond
// noise go to `one_job` (only one job judged that point: a failure must be
// seen by two), and the first job's INVALID lines move to `remeasured`, in
// their order. When the second job cannot measure it either, the point
// stays invalid; so do lines without a grid location (partitioned points).
// pass is recomputed as in Evaluate.
//
// Why: the confidence interval of a median is over one job's repetitions,
// which share that job's state (where the scheduler put the ranks and
// progress threads, a vCPU's speed phase, where the buffers landed). Between
// jobs the medians spread more than one job's interval says, so one job
// alone sometimes lies beyond a limit that the same library meets in the
// next job; and a calibration target can fall, in one job only, on a step
// of the cost (MPICH's ialltoall on this VM once took 250 us below a size
// and 580 us above it, for a target of 500 us, where other jobs found it).
Verdict Confirm(const Verdict& first, const std::vector<PointResult>& again, const TestContext& test,
                const std::vector<Rule>& rules, const BetweenRunNoise* noise = nullptr);

// The limits `confirmed` exceeded in one job only (Verdict::one_job), looked
// up in a further job's points `again` as Confirm looks up the first job's
// failures: a median past the same limit there makes a failure (seen by two
// jobs), a median on the right side makes it not confirmed; no valid median
// there, or a median past a maximum only by that job's own rank imbalance,
// leaves it in one_job, and the test INCONCLUSIVE. Each looked-up
// finding carries the further job's figure in `again`.
Verdict ConfirmOneJobFailures(const Verdict& confirmed, const std::vector<PointResult>& again);

}  // namespace nbcguard
