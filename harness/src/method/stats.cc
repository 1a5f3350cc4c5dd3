// Robust statistics: median, MAD and a distribution-free confidence interval
// of the median from binomial order statistics.
#include "nbcguard/stats.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace nbcguard {
namespace {

void DropNaN(std::vector<double>& values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }),
               values.end());
}

// Median of already sorted, NaN-free values.
double SortedMedian(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  if (n == 0) return kNaN;
  if (n % 2 == 1) return sorted[n / 2];
  const double a = sorted[n / 2 - 1];
  const double b = sorted[n / 2];
  if (a == b) return a;  // also keeps equal infinities from becoming NaN
  return a + (b - a) / 2;
}

// cdf[j] = P(B <= j) for B ~ Binomial(n, 1/2), j = 0 .. n/2 - 1 (only the
// lower half is needed: coverage(k) = 1 - 2 P(B <= k - 1), k <= n/2).
// The probability at the mode comes from a sum of logs (no overflow, no
// lgamma global state); lower probabilities follow by the exact recurrence
// pmf(j-1) = pmf(j) * j / (n - j + 1), in linear space, walking down from the
// mode so relative errors stay at a few ulps per step and tiny tail values
// underflow harmlessly to 0. The cumulative sum runs from the small end.
std::vector<double> LowerHalfBinomialCdf(int n) {
  const int half = n / 2;
  std::vector<double> pmf(static_cast<std::size_t>(half) + 1, 0.0);
  // log C(n, half) = sum_{i=1..half} log((n - half + i) / i).
  double log_choose = 0;
  for (int i = 1; i <= half; ++i) {
    log_choose += std::log(static_cast<double>(n - half + i) / static_cast<double>(i));
  }
  pmf[static_cast<std::size_t>(half)] = std::exp(log_choose - n * std::log(2.0));
  for (int j = half; j >= 1; --j) {
    pmf[static_cast<std::size_t>(j - 1)] =
        pmf[static_cast<std::size_t>(j)] * static_cast<double>(j) / static_cast<double>(n - j + 1);
  }
  std::vector<double> cdf(static_cast<std::size_t>(half), 0.0);
  double running = 0;
  for (int j = 0; j < half; ++j) {
    running += pmf[static_cast<std::size_t>(j)];
    cdf[static_cast<std::size_t>(j)] = running;
  }
  return cdf;
}

}  // namespace

double Median(std::vector<double> values) {
  DropNaN(values);
  std::sort(values.begin(), values.end());
  return SortedMedian(values);
}

double TrimmedMean(std::vector<double> values, double fraction) {
  DropNaN(values);
  if (!(fraction >= 0)) fraction = 0;
  fraction = std::min(fraction, 0.4999);
  std::sort(values.begin(), values.end());
  const std::size_t drop =
      static_cast<std::size_t>(std::floor(static_cast<double>(values.size()) * fraction));
  if (values.size() <= 2 * drop) return kNaN;
  double sum = 0;
  for (std::size_t i = drop; i < values.size() - drop; ++i) sum += values[i];
  return sum / static_cast<double>(values.size() - 2 * drop);
}

Spread Summarize(const std::vector<double>& values, double confidence) {
  std::vector<double> x = values;
  DropNaN(x);
  std::sort(x.begin(), x.end());

  Spread s;
  s.n = static_cast<int>(x.size());
  if (x.empty()) {
    s.median = s.lo = s.hi = s.min = s.max = s.mad = s.confidence = kNaN;
    return s;
  }
  s.median = SortedMedian(x);
  s.min = x.front();
  s.max = x.back();

  std::vector<double> deviations;
  deviations.reserve(x.size());
  for (double v : x) deviations.push_back(std::fabs(v - s.median));
  DropNaN(deviations);  // inf - inf when the median itself is infinite
  std::sort(deviations.begin(), deviations.end());
  s.mad = SortedMedian(deviations);

  const int n = s.n;
  if (n < 2) {
    // One value: the interval is that value and covers nothing.
    s.lo = s.hi = x.front();
    s.confidence = 0;
    return s;
  }

  double wanted = std::isnan(confidence) ? 1.0 : std::clamp(confidence, 0.0, 1.0);
  // Coverages are dyadic rationals; accept a requested value a hair above
  // the exact coverage (rounding) rather than dropping to a wider interval.
  wanted -= 1e-12;

  const std::vector<double> cdf = LowerHalfBinomialCdf(n);
  auto coverage = [&](int k) {  // of [x_(k), x_(n-k+1)], 1 <= k <= n/2
    return std::max(0.0, 1.0 - 2.0 * cdf[static_cast<std::size_t>(k - 1)]);
  };
  // Coverage decreases with k: take the largest k that still reaches it;
  // when even k = 1 does not, k = 1 is [min, max] with its real coverage.
  int k = 1;
  for (int candidate = n / 2; candidate >= 1; --candidate) {
    if (coverage(candidate) >= wanted) {
      k = candidate;
      break;
    }
  }
  s.lo = x[static_cast<std::size_t>(k - 1)];
  s.hi = x[static_cast<std::size_t>(n - k)];
  s.confidence = coverage(k);
  return s;
}

}  // namespace nbcguard
