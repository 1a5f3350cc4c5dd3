// Night-to-night regression detection: one run's results.json files against
// a baseline run's. Tests are matched by what they measure, grid points by
// their targets, and a ratio regresses only when it got worse by more than a
// tolerance AND both runs' per-repetition samples say so beyond noise (a
// one-sided Mann-Whitney rank-sum test on the samples shifted by the
// tolerance). The collective's own speed alone (bytes per rank / time of
// the communication-reference samples) is decided the same way, so a
// collective that got slower is a regression even when its ratios did not
// move. Anything that cannot be compared is listed, never compared
// silently. Pure: parsed JSON in, values out; no files, no MPI.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "nbcguard/collective_speed.h"
#include "nbcguard/metrics.h"
#include "nbcguard/stats.h"

namespace nbcguard {

// One-sided Mann-Whitney U test of "x tends to be larger than y".
struct RankSum {
  int n_x = 0, n_y = 0;
  double u = 0;  // pairs (x_i, y_j) with x_i > y_j, ties counted 1/2
  double z = 0;  // standardized, with continuity and tie corrections
  double p = 1;  // upper-tail p-value; 1 when a side is empty or all values tie
};

// Normal approximation with the tie-corrected variance and a 0.5
// continuity correction. NaN values are dropped first.
RankSum RankSumGreater(const std::vector<double>& x, const std::vector<double>& y);

// The smallest p-value RankSumGreater can give for these sample sizes (x
// entirely above y): with 3 and 3 samples it is 0.04, so no change on so
// few samples can be significant at alpha 0.01.
double SmallestP(int n_x, int n_y);

// How much one job's median of a ratio at one point moves between
// independent jobs of unchanged code: a series of the results history
// (nbcguard/history.h, BetweenRunSpreads). sigma is in the ratio's units,
// or of its natural logarithm for the relative ratios (r_comp_slowdown,
// r_mpi_impact); nights: the valid nights it was estimated from.
struct BetweenRunSpread {
  double sigma = 0;
  int nights = 0;
};

// The key of a series: "<test> <point> <ratio>", e.g.
// "openmpi.ibcast.n2.basic 500us x 2ms r_overhead".
std::string SeriesKey(const std::string& test, const std::string& point, const std::string& ratio);

// z with P(N(0,1) > z) = p, for p in (0, 1).
double UpperNormalQuantile(double p);

struct CompareOptions {
  double tolerance_absolute = 0.25;  // r_overhead, r_comm: new median - baseline median
  double tolerance_relative = 0.15;  // r_comp_slowdown, r_mpi_impact: new / baseline - 1
  // The collective alone: slower (or faster) by more than a factor 1 + this
  // in its speed, bytes per rank / time (docs/nightly.md, "The collective's
  // own speed"): 2 = a third (or three times) the baseline's bandwidth.
  double tolerance_speed = 2.0;
  double alpha = 0.01;  // significance level of each one-sided test
  // Compare tests whose reference behaviour differs (for testing the
  // comparison itself with reference behaviours; never for real use).
  bool ignore_reference = false;
  // Between-run spreads by SeriesKey (nbcguard compare --history); empty:
  // none known. Two runs are two jobs: where a series has at least
  // min_history_nights, a regression or improvement must also differ by
  // more than UpperNormalQuantile(alpha) x sqrt(2) x its sigma, or it is
  // within the between-run spread (a worsening then counts within noise).
  std::map<std::string, BetweenRunSpread> between;
  int min_history_nights = 6;
};

// r_comp_slowdown and r_mpi_impact scale around 1 and are compared
// relatively; r_overhead and r_comm are compared on their absolute scale.
bool IsRelative(Metric m);
double ToleranceOf(Metric m, const CompareOptions& o);

// Whether a baseline ratio summarized as `base` can resolve a change of
// `tol`: its median's confidence interval is at most 2 x tol wide (relative
// ratios: hi <= lo x (1 + tol)^2, lo > 0). A missing interval does not.
bool BaselineResolves(Metric m, const Spread& base, double tol);

// The per-sample values of one ratio of one test.
struct RatioSamples {
  std::vector<double> values;  // per repetition (r_mpi_impact: per round)
  Spread summary;              // median and CI, as results.json reports them
  std::string missing;         // non-empty: why there are no values
};

// The collective alone at one point of one run (docs/nightly.md): from
// results.json samples[], bytes_per_rank and the t_comm_ref times.
struct SpeedSamples {
  CollectiveSpeed summary;  // bytes per rank, time and bandwidth: median [CI]
  // What the decision tests, per sample: time / bytes per rank (the inverse
  // bandwidth; larger is slower), or the time itself when the collective
  // moves no data (ibarrier).
  RatioSamples cost;
  std::string missing = "not measured";  // non-empty: why the point has no speed
};

// Bytes per rank and per-sample times of the collective alone into its
// speed; bytes that are NaN or negative (not recorded) make it missing.
SpeedSamples SpeedFromTimes(double bytes_per_rank, const std::vector<double>& seconds);

struct PointSamples {
  double comm_target = 0, comp_target = 0;  // seconds
  bool valid = false;
  std::string invalid_reason;
  // A valid point whose overlap ratios are not the library's alone (its
  // ranks computed at unequal speeds: imbalance flagged): why, and the
  // ratios are not compared; the collective alone, timed without the
  // computation, still is.
  std::string ratios_refused;
  // With ratios_refused: the most the unequal computing can have lowered
  // r_overhead and r_comm (validity.h, HiddenByImbalance), per ratio.
  std::map<Metric, double> hidden_by_imbalance;
  std::string diagnosis;
  std::map<Metric, RatioSamples> ratios;  // r_overhead, r_comm, r_comp_slowdown
  SpeedSamples speed;
};

// The `where` of an Unmatched entry for a point's overlap ratios
// (PointSamples::ratios_refused): "<point> overlap ratios".
inline constexpr const char* kOverlapRatiosPlace = "overlap ratios";

// What makes two results the same test (library version and reference
// behaviour are checked after matching, so a change is reported by name).
struct TestKey {
  std::string implementation, case_name, collective, deployment;
  int nodes = 0;
  std::string Name() const;  // as CTest names it: mpich.ibcast.n2.basic
  bool operator<(const TestKey& o) const;
  bool operator==(const TestKey& o) const;
};

// Its implicit move members move nlohmann::json values, which do not throw (clang-tidy cannot see it).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct TestResults {
  TestKey key;
  std::string library_version;            // first line of MPI_Get_library_version
  nlohmann::json reference;               // null: the library's own progression
  nlohmann::json deployment_environment;  // variables set for the run
  std::string source;                     // where it was read from (messages only)
  std::vector<PointSamples> points;
  std::map<double, RatioSamples> mpi_impact;  // r_mpi_impact per computation target
};

// One results.json ("nbcguard-results/1"). Per-repetition ratios are
// recomputed from `samples` as the driver's reduction does (references at
// their medians); r_mpi_impact uses `round_ratios`. nullopt with *error
// when the document is not such a file.
std::optional<TestResults> ParseTestResults(const nlohmann::json& j, const std::string& source,
                                            std::string* error);

// The verdict on one ratio at one point.
struct RatioDecision {
  double difference = 0;                // absolute: new - base medians; relative: new / base - 1
  double p_worse = 1;                   // shifted test: worse by more than the tolerance
  double p_better = 1;                  // shifted test: better by more than the tolerance
  bool worse_beyond_tolerance = false;  // the medians alone say "regression"
  // The baseline's median is known only to within more than the tolerance
  // (its confidence interval is wider than 2 x tolerance; relative: hi / lo >
  // (1 + tol)^2): no change of the tolerance's size can be told from it, in
  // either direction, so neither regression nor improvement is decided.
  // Within-run samples share the run's machine state; a baseline run that was
  // noisy as a whole says nothing its repetitions can make up for.
  bool baseline_unresolved = false;
  bool regression = false;  // ... and the shifted test confirms it
  bool improvement = false;
};

RatioDecision DecideRatio(Metric m, const RatioSamples& base, const RatioSamples& now,
                          const CompareOptions& o);

// The same decision on the collective's own speed (the ratios' shifted
// rank-sum test, relative, on the per-sample costs with tolerance_speed).
// difference is the change in speed: base cost / new cost - 1 on the
// medians (-0.71: 71 % slower; +1.5: 2.5 times as fast).
RatioDecision DecideSpeed(const SpeedSamples& base, const SpeedSamples& now, const CompareOptions& o);

struct Change {
  TestKey test;
  double comm_target = 0;  // NaN for r_mpi_impact: it belongs to a computation row
  double comp_target = 0;
  Metric metric = Metric::kOverhead;
  Spread base, now;
  double difference = 0;
  double tolerance = 0;
  double p = 1;
  std::string diagnosis;  // the new run's, at this point
  // The series' between-run spread, when the history knows it (nights > 0),
  // and whether the change stays within it (then not a regression).
  BetweenRunSpread between;
  bool within_between = false;
  // A ratio change whose series the history knows on fewer than
  // CompareOptions::min_history_nights nights (history_nights of them,
  // perhaps none): its between-run spread is unknown, and two runs cannot
  // tell a change of the library from a phase of the machine that lasts
  // minutes, which a second job of the same run shares. nbcguard run
  // --baseline holds such a regression undecided (INCONCLUSIVE), however
  // many jobs of the new run see it. A speed change is never marked: its
  // tolerance (a factor) is set above the between-run spread itself.
  bool spread_unknown = false;
  int history_nights = 0;
  // A change of the collective's own speed rather than of a ratio (metric
  // unused; base and now are the bandwidths, or the times when the
  // collective moves no data): both runs' sizes, times and bandwidths.
  bool speed = false;
  CollectiveSpeed base_speed, now_speed;
};

struct Unmatched {
  std::string test;   // TestKey::Name()
  std::string where;  // grid point or ratio; empty for the whole test
  std::string reason;
};

struct Comparison {
  std::vector<Change> regressions, improvements;
  // Worse by more than the tolerance in the medians, but not significantly
  // (p = the shifted test's): a possible regression the samples do not
  // confirm, like a threshold "within noise". Never fails.
  std::vector<Change> within_noise;
  std::vector<Unmatched> unmatched;
  std::vector<std::string> notes;  // context that changed but does not prevent comparing
  int tests = 0, points = 0, checks = 0;
  int speed_checks = 0;  // points whose collective speed was decided
};

Comparison Compare(const std::vector<TestResults>& base, const std::vector<TestResults>& now,
                   const CompareOptions& o);

// "16ms x 32ms"; "* x 32ms" when comm_target is NaN (a computation row).
std::string PointName(double comm_target, double comp_target);

// Whether two comparisons found a change at the same place: the same test,
// grid point (or computation row, for r_mpi_impact) and ratio (or speed).
bool SameChangePlace(const Change& a, const Change& b);

// A regression of one comparison, looked at again in a second, independent
// one (the second job of a nightly test against the same baseline).
enum class SecondLook {
  kConfirmed,     // the second found a regression at the same place
  kNotConfirmed,  // the second compared the place and found none
  kUndecided,     // the second could not compare the place (listed as not compared)
};

// `second` null: the second comparison could not be made at all (undecided).
// The place is not compared when its test, point (or computation row) or
// ratio (or speed) is listed in second->unmatched: invalid in either run,
// a baseline too noisy, overlap ratios refused for rank imbalance, ...
SecondLook LookAgain(const Change& first, const Comparison* second);

}  // namespace nbcguard
