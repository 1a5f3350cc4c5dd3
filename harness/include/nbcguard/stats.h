// Robust statistics of repeated samples: medians and a distribution-free
// confidence interval of the median (binomial order statistics), so verdicts
// can tell "beyond noise" from "within noise". Pure; no I/O.
#pragma once

#include <limits>
#include <vector>

namespace nbcguard {

// A missing value (no sample, an undefined ratio) and an unbounded one.
// Defined once here rather than in each source file: file-local copies
// would collide when sources are compiled together (tools/lint.sh checks
// them in batches).
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Median of the values; NaN when empty. Average of the two middle values
// when the count is even. NaN inputs are dropped first (a lost sample is
// not a value); infinities are kept and ordered. All-NaN input -> NaN.
double Median(std::vector<double> values);

// Mean of the values left after dropping floor(n * fraction) of the
// smallest and as many of the largest; NaN inputs are dropped first; NaN
// when nothing is left. fraction is clamped to [0, 0.5). Unlike the median
// it moves continuously with the share of slow samples of a bimodal time,
// and still ignores rare outliers on either side.
double TrimmedMean(std::vector<double> values, double fraction);

struct Spread {
  int n = 0;
  double median = 0;  // NaN when n == 0
  double lo = 0;      // lower bound of the confidence interval of the median
  double hi = 0;      // upper bound
  double min = 0;
  double max = 0;
  double mad = 0;         // median absolute deviation from the median
  double confidence = 0;  // achieved coverage of [lo, hi] (>= requested when n allows)
};

// Summary with a confidence interval of the median from order statistics:
// [x_(k), x_(n-k+1)] with the largest k whose binomial(n, 1/2) coverage is
// >= `confidence`. When n is too small for that coverage, [min, max] is used
// and `confidence` reports what it really covers. n == 0: all fields NaN.
// NaN inputs are dropped before anything (n counts the values kept).
// `mad` is the raw median of |x - median| (not scaled by 1.4826).
// The requested confidence is clamped to [0, 1] (NaN is treated as 1, so
// the widest interval is returned). k never exceeds n/2, so the interval
// never collapses to a single order statistic with zero coverage; with
// n == 1 the interval is [x, x] and its coverage is 0. Coverage is computed
// from Binomial(n, 1/2) in a numerically stable way (n up to 1e5 and more).
Spread Summarize(const std::vector<double>& values, double confidence = 0.95);

}  // namespace nbcguard
