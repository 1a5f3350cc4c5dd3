#include "nbcguard/stats.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace nbcguard {
namespace {

// 1, 2, ..., n (so x_(k) == k after sorting).
std::vector<double> Iota(int n) {
  std::vector<double> v;
  for (int i = 1; i <= n; ++i) v.push_back(i);
  return v;
}

// Exact reference: the largest k in [1, n/2] with
// 2^n - 2 * sum_{j<k} C(n, j) >= confidence * 2^n (k = 1 when none), with
// integer binomial coefficients (exact for n <= 62).
int ReferenceK(int n, double confidence, double* coverage) {
  std::vector<std::uint64_t> c(static_cast<std::size_t>(n) + 1, 0);
  c[0] = 1;
  for (int i = 1; i <= n; ++i) {
    for (int j = i; j >= 1; --j) c[static_cast<std::size_t>(j)] += c[static_cast<std::size_t>(j - 1)];
  }
  const long double total = std::ldexp(1.0L, n);
  int best = 1;
  std::uint64_t below = 0;  // sum_{j<k} C(n, j)
  for (int k = 1; k <= n / 2; ++k) {
    below += c[static_cast<std::size_t>(k - 1)];
    const long double cov = (total - 2.0L * below) / total;
    if (cov >= confidence) best = k;
  }
  std::uint64_t b = 0;
  for (int j = 0; j < best; ++j) b += c[static_cast<std::size_t>(j)];
  *coverage = static_cast<double>((total - 2.0L * b) / total);
  return best;
}

TEST(StatsTest, MedianOddEvenEmpty) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Median({7}), 7.0);
  EXPECT_TRUE(std::isnan(Median({})));
}

TEST(StatsTest, MedianDropsNaN) {
  EXPECT_DOUBLE_EQ(Median({kNaN, 5, 1, kNaN, 3}), 3.0);
  EXPECT_TRUE(std::isnan(Median({kNaN, kNaN})));
}

TEST(StatsTest, MedianKeepsInfinities) {
  EXPECT_DOUBLE_EQ(Median({1, 2, kInf}), 2.0);
  EXPECT_EQ(Median({kInf, kInf}), kInf);
}

TEST(StatsTest, TrimmedMeanDropsTheSameShareFromBothEnds) {
  // 10 values, 20 %: drop 2 on each side, average the middle 6.
  EXPECT_DOUBLE_EQ(TrimmedMean({100, 1, 2, 3, 4, 5, 6, 7, 8, -50}, 0.2), 4.5);
  EXPECT_DOUBLE_EQ(TrimmedMean({3, 1, 2}, 0.0), 2.0);
  EXPECT_DOUBLE_EQ(TrimmedMean({5, 1, 3, 2, 4}, 0.2), 3.0);  // floor(5 * 0.2) = 1 each side
  EXPECT_DOUBLE_EQ(TrimmedMean({7, std::nan(""), 7}, 0.2), 7.0);
  EXPECT_TRUE(std::isnan(TrimmedMean({}, 0.2)));
  EXPECT_TRUE(std::isnan(TrimmedMean({std::nan("")}, 0.2)));
  EXPECT_DOUBLE_EQ(TrimmedMean({1, 2, 3, 4}, 0.9), 2.5);  // clamped below 0.5: keeps the middle two
}

TEST(StatsTest, TrimmedMeanFollowsTheShareOfABimodalTime) {
  // A time that is 12 or 20 (one scheduler slice apart): the median jumps
  // from 12 to 20 as the share of slow runs passes one half; the trimmed
  // mean goes through the values in between, so a target of 16 is reachable.
  auto runs = [](int slow) {
    std::vector<double> v(15, 12.0);
    for (int i = 0; i < slow; ++i) v[i] = 20.0;
    return v;
  };
  EXPECT_DOUBLE_EQ(Median(runs(7)), 12.0);
  EXPECT_DOUBLE_EQ(Median(runs(8)), 20.0);
  double previous = TrimmedMean(runs(0), 0.2);
  for (int slow = 1; slow <= 15; ++slow) {
    const double t = TrimmedMean(runs(slow), 0.2);
    EXPECT_GE(t, previous) << slow;
    EXPECT_LE(t - previous, 8.0 / 9.0 + 1e-9) << slow;  // one more slow run among the 9 kept
    previous = t;
  }
  EXPECT_DOUBLE_EQ(TrimmedMean(runs(7), 0.2), 12.0 + 8.0 * 4.0 / 9.0);
  EXPECT_DOUBLE_EQ(TrimmedMean(runs(8), 0.2), 12.0 + 8.0 * 5.0 / 9.0);
}

TEST(StatsTest, EmptyIsAllNaN) {
  const Spread s = Summarize({});
  EXPECT_EQ(s.n, 0);
  EXPECT_TRUE(std::isnan(s.median));
  EXPECT_TRUE(std::isnan(s.lo));
  EXPECT_TRUE(std::isnan(s.hi));
  EXPECT_TRUE(std::isnan(s.min));
  EXPECT_TRUE(std::isnan(s.max));
  EXPECT_TRUE(std::isnan(s.mad));
  EXPECT_TRUE(std::isnan(s.confidence));
}

TEST(StatsTest, AllNaNIsEmpty) {
  const Spread s = Summarize({kNaN, kNaN, kNaN});
  EXPECT_EQ(s.n, 0);
  EXPECT_TRUE(std::isnan(s.median));
}

TEST(StatsTest, OneValue) {
  const Spread s = Summarize({2.5});
  EXPECT_EQ(s.n, 1);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.lo, 2.5);
  EXPECT_DOUBLE_EQ(s.hi, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 2.5);
  EXPECT_DOUBLE_EQ(s.max, 2.5);
  EXPECT_DOUBLE_EQ(s.mad, 0.0);
  EXPECT_DOUBLE_EQ(s.confidence, 0.0);
}

TEST(StatsTest, TwoValuesFallBackToMinMax) {
  const Spread s = Summarize({3.0, 1.0});
  EXPECT_EQ(s.n, 2);
  EXPECT_DOUBLE_EQ(s.median, 2.0);
  EXPECT_DOUBLE_EQ(s.lo, 1.0);
  EXPECT_DOUBLE_EQ(s.hi, 3.0);
  // P(1 <= B <= 1), B ~ Bin(2, 1/2) = 1/2.
  EXPECT_DOUBLE_EQ(s.confidence, 0.5);
  EXPECT_DOUBLE_EQ(s.mad, 1.0);
}

TEST(StatsTest, FifteenAt95PercentIsX4ToX12) {
  // Hand computation: P(B <= 3) = (1 + 15 + 105 + 455) / 2^15 = 576 / 32768,
  // coverage(k=4) = 1 - 2 * 576/32768 = 0.96484375 >= 0.95;
  // P(B <= 4) = (576 + 1365) / 32768, coverage(k=5) = 0.88153... < 0.95.
  std::vector<double> v = {15, 3, 9, 1, 12, 7, 5, 14, 2, 11, 8, 4, 13, 6, 10};  // unsorted
  const Spread s = Summarize(v, 0.95);
  EXPECT_EQ(s.n, 15);
  EXPECT_DOUBLE_EQ(s.median, 8.0);
  EXPECT_DOUBLE_EQ(s.lo, 4.0);
  EXPECT_DOUBLE_EQ(s.hi, 12.0);
  EXPECT_DOUBLE_EQ(s.confidence, 1.0 - 2.0 * 576.0 / 32768.0);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 15.0);
  // |x - 8| over 1..15: 0,1,1,2,2,...,7,7 -> median 4.
  EXPECT_DOUBLE_EQ(s.mad, 4.0);
}

TEST(StatsTest, EvenCountTen) {
  // P(B <= 1) = 11/1024 -> coverage(2) = 0.978515625;
  // P(B <= 2) = 56/1024 -> coverage(3) = 0.890625. So [x2, x9].
  const Spread s = Summarize(Iota(10), 0.95);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.lo, 2.0);
  EXPECT_DOUBLE_EQ(s.hi, 9.0);
  EXPECT_DOUBLE_EQ(s.confidence, 0.978515625);
}

TEST(StatsTest, TooFewForCoverageReportsAchieved) {
  // n = 5: even [min, max] covers only 1 - 2/32 = 0.9375 < 0.95.
  const Spread s = Summarize({5, 4, 3, 2, 1}, 0.95);
  EXPECT_DOUBLE_EQ(s.lo, 1.0);
  EXPECT_DOUBLE_EQ(s.hi, 5.0);
  EXPECT_DOUBLE_EQ(s.confidence, 0.9375);
  EXPECT_LT(s.confidence, 0.95);
  // n = 6: [min, max] covers 1 - 2/64 = 0.96875 and k = 2 does not.
  const Spread six = Summarize(Iota(6), 0.95);
  EXPECT_DOUBLE_EQ(six.lo, 1.0);
  EXPECT_DOUBLE_EQ(six.hi, 6.0);
  EXPECT_DOUBLE_EQ(six.confidence, 0.96875);
}

TEST(StatsTest, Ties) {
  const Spread s = Summarize({2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 9}, 0.95);
  EXPECT_DOUBLE_EQ(s.median, 2.0);
  EXPECT_DOUBLE_EQ(s.lo, 2.0);
  EXPECT_DOUBLE_EQ(s.hi, 2.0);
  EXPECT_DOUBLE_EQ(s.mad, 0.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  EXPECT_GE(s.confidence, 0.95);

  const Spread t = Summarize({1, 1, 1, 3, 3, 3, 3, 3, 5, 5}, 0.95);  // [x2, x9]
  EXPECT_DOUBLE_EQ(t.median, 3.0);
  EXPECT_DOUBLE_EQ(t.lo, 1.0);
  EXPECT_DOUBLE_EQ(t.hi, 5.0);
}

TEST(StatsTest, UnsortedInputGivesSameAsSorted) {
  std::vector<double> sorted = {0.9, 1.0, 1.1, 1.2, 1.25, 1.3, 1.4, 1.7, 2.0, 2.2, 3.0, 4.0};
  std::vector<double> shuffled = {1.3, 4.0, 0.9, 2.0, 1.25, 1.1, 3.0, 1.0, 2.2, 1.4, 1.2, 1.7};
  const Spread a = Summarize(sorted, 0.9);
  const Spread b = Summarize(shuffled, 0.9);
  EXPECT_DOUBLE_EQ(a.median, b.median);
  EXPECT_DOUBLE_EQ(a.lo, b.lo);
  EXPECT_DOUBLE_EQ(a.hi, b.hi);
  EXPECT_DOUBLE_EQ(a.mad, b.mad);
  EXPECT_DOUBLE_EQ(a.confidence, b.confidence);
  EXPECT_DOUBLE_EQ(b.median, 1.35);
}

TEST(StatsTest, NaNSamplesAreDropped) {
  std::vector<double> v = Iota(15);
  v.push_back(kNaN);
  v.insert(v.begin(), kNaN);
  const Spread s = Summarize(v, 0.95);
  EXPECT_EQ(s.n, 15);
  EXPECT_DOUBLE_EQ(s.lo, 4.0);
  EXPECT_DOUBLE_EQ(s.hi, 12.0);
}

TEST(StatsTest, IntervalContainsMedianAndWidensWithConfidence) {
  const std::vector<double> v = Iota(101);
  double previous_width = -1;
  for (double conf : {0.5, 0.8, 0.9, 0.95, 0.99, 0.999}) {
    const Spread s = Summarize(v, conf);
    EXPECT_LE(s.lo, s.median);
    EXPECT_GE(s.hi, s.median);
    EXPECT_GE(s.confidence, conf);
    EXPECT_GE(s.hi - s.lo, previous_width) << conf;
    previous_width = s.hi - s.lo;
  }
}

TEST(StatsTest, MatchesExactIntegerBinomialsUpTo60) {
  for (int n = 2; n <= 60; ++n) {
    for (double conf : {0.5, 0.8, 0.9, 0.95, 0.99}) {
      double ref_cov = 0;
      const int k = ReferenceK(n, conf, &ref_cov);
      const Spread s = Summarize(Iota(n), conf);
      EXPECT_DOUBLE_EQ(s.lo, k) << "n=" << n << " conf=" << conf;
      EXPECT_DOUBLE_EQ(s.hi, n - k + 1) << "n=" << n << " conf=" << conf;
      EXPECT_NEAR(s.confidence, ref_cov, 1e-12) << "n=" << n << " conf=" << conf;
    }
  }
}

TEST(StatsTest, LargeNIsStable) {
  const int n = 100000;
  const Spread s = Summarize(Iota(n), 0.95);
  EXPECT_EQ(s.n, n);
  EXPECT_DOUBLE_EQ(s.median, 50000.5);
  // Normal approximation: k ~ n/2 - 1.96 sqrt(n)/2 ~ 49690.
  EXPECT_NEAR(s.lo, 49690, 5);
  EXPECT_DOUBLE_EQ(s.hi, n - s.lo + 1);
  EXPECT_GE(s.confidence, 0.95);
  EXPECT_LT(s.confidence, 0.951);  // the largest k: barely above the request
  EXPECT_TRUE(std::isfinite(s.confidence));
}

TEST(StatsTest, ConfidenceOutOfRangeIsClamped) {
  const Spread one = Summarize(Iota(20), 1.5);  // nothing reaches 1: [min, max]
  EXPECT_DOUBLE_EQ(one.lo, 1.0);
  EXPECT_DOUBLE_EQ(one.hi, 20.0);
  EXPECT_LT(one.confidence, 1.0);
  const Spread zero = Summarize(Iota(20), -1.0);  // narrowest: k = n/2
  EXPECT_DOUBLE_EQ(zero.lo, 10.0);
  EXPECT_DOUBLE_EQ(zero.hi, 11.0);
  const Spread nan = Summarize(Iota(20), kNaN);
  EXPECT_DOUBLE_EQ(nan.lo, 1.0);
  EXPECT_DOUBLE_EQ(nan.hi, 20.0);
}

}  // namespace
}  // namespace nbcguard
