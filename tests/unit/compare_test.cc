#include "nbcguard/compare.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace nbcguard {
namespace {

using json = nlohmann::json;

// n values evenly spread over [center - width/2, center + width/2]: a
// deterministic stand-in for noisy repetitions (only ranks matter).
std::vector<double> Spreadout(double center, double width, int n = 15) {
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v.push_back(center + width * (n == 1 ? 0.0 : i / (n - 1.0) - 0.5));
  return v;
}

RatioSamples R(std::vector<double> values) {
  RatioSamples r;
  r.values = std::move(values);
  r.summary = Summarize(r.values);
  return r;
}

// ------------------------------------------------------------ rank sum --

TEST(RankSumTest, SeparatedSamplesHaveTheSmallestNormalApproximationP) {
  // U = 9 of 9 pairs; mean 4.5, variance 3*3*7/12; z = (9 - 4.5 - 0.5) / sd.
  const RankSum r = RankSumGreater({4, 5, 6}, {1, 2, 3});
  EXPECT_DOUBLE_EQ(r.u, 9);
  EXPECT_NEAR(r.p, 0.0404278, 1e-6);
  // The other direction is not significant at all.
  EXPECT_GT(RankSumGreater({1, 2, 3}, {4, 5, 6}).p, 0.95);
}

TEST(RankSumTest, TiesGetMidRanksAndShrinkTheVariance) {
  // Pool 0y 1x 2x 2y 2y 3x: the three 2s share rank 4; R_x = 2 + 4 + 6,
  // U = 12 - 6 = 6; variance 9/12 * (7 - (27 - 3) / 30) = 4.65.
  const RankSum r = RankSumGreater({1, 2, 3}, {2, 2, 0});
  EXPECT_DOUBLE_EQ(r.u, 6);
  EXPECT_NEAR(r.z, 1.0 / std::sqrt(4.65), 1e-12);
  EXPECT_NEAR(r.p, 0.3214174, 1e-6);
}

TEST(RankSumTest, SmallestPossiblePDependsOnlyOnTheSampleSizes) {
  EXPECT_NEAR(SmallestP(3, 3), 0.0404278, 1e-6);
  EXPECT_GT(SmallestP(4, 4), 0.01);  // r_mpi_impact's 3-4 rounds can never be significant at 0.01
  EXPECT_LT(SmallestP(5, 5), 0.01);
  EXPECT_LT(SmallestP(9, 9), 3e-4);
  EXPECT_EQ(SmallestP(0, 9), 1);
}

TEST(RankSumTest, NoEvidenceGivesPOne) {
  EXPECT_EQ(RankSumGreater({}, {1, 2}).p, 1);
  EXPECT_EQ(RankSumGreater({1, 2}, {}).p, 1);
  EXPECT_EQ(RankSumGreater({2, 2, 2}, {2, 2}).p, 1);  // all tied: variance 0
  EXPECT_EQ(RankSumGreater({NAN, NAN}, {1, 2}).n_x, 0);
}

// ------------------------------------------------------- one ratio --

TEST(DecideRatioTest, ClearShiftBeyondToleranceIsARegression) {
  const RatioDecision d = DecideRatio(Metric::kOverhead, R(Spreadout(0.1, 0.1)), R(Spreadout(0.9, 0.1)), {});
  EXPECT_NEAR(d.difference, 0.8, 1e-12);
  EXPECT_TRUE(d.regression);
  EXPECT_LT(d.p_worse, 1e-4);
  EXPECT_FALSE(d.improvement);
}

TEST(DecideRatioTest, SameDistributionIsNothing) {
  const RatioDecision d = DecideRatio(Metric::kComm, R(Spreadout(1.0, 0.2)), R(Spreadout(1.0, 0.2)), {});
  EXPECT_FALSE(d.regression);
  EXPECT_FALSE(d.improvement);
  EXPECT_GT(d.p_worse, 0.5);
}

TEST(DecideRatioTest, ShiftSmallerThanToleranceIsNotARegressionEvenWhenSignificant) {
  const RatioSamples base = R(Spreadout(0.1, 0.02)), now = R(Spreadout(0.3, 0.02));
  // The shift itself is beyond doubt ...
  EXPECT_LT(RankSumGreater(now.values, base.values).p, 1e-4);
  // ... but 0.2 is within the 0.25 tolerance.
  const RatioDecision d = DecideRatio(Metric::kOverhead, base, now, {});
  EXPECT_FALSE(d.regression);
  EXPECT_FALSE(d.worse_beyond_tolerance);
  // A tolerance below the shift makes it one: the test above can fail.
  CompareOptions tight;
  tight.tolerance_absolute = 0.1;
  EXPECT_TRUE(DecideRatio(Metric::kOverhead, base, now, tight).regression);
}

TEST(DecideRatioTest, MedianJustPastToleranceInWideNoiseIsNotSignificant) {
  // Medians 0.30 apart (> 0.25), but the samples spread over 2.0: that the
  // worsening exceeds 0.25 is not shown.
  const RatioDecision d = DecideRatio(Metric::kOverhead, R(Spreadout(0.1, 2.0)), R(Spreadout(0.4, 2.0)), {});
  EXPECT_GT(d.difference, 0.25);
  EXPECT_TRUE(d.worse_beyond_tolerance);
  EXPECT_FALSE(d.regression);
  EXPECT_GT(d.p_worse, 0.1);
}

TEST(DecideRatioTest, BigShiftOnTooFewSamplesIsNotSignificant) {
  // 3 against 3 (r_mpi_impact's fewest rounds): the smallest p is 0.04.
  const RatioSamples base = R({1.0, 1.01, 1.02}), now = R({3.0, 3.01, 3.02});
  const RatioDecision d = DecideRatio(Metric::kMpiImpact, base, now, {});
  EXPECT_GT(d.difference, 1.9);
  EXPECT_FALSE(d.regression);
  EXPECT_NEAR(d.p_worse, 0.0404278, 1e-6);
  // At alpha 0.05 the same samples would be: the decision rests on alpha.
  CompareOptions loose;
  loose.alpha = 0.05;
  EXPECT_TRUE(DecideRatio(Metric::kMpiImpact, base, now, loose).regression);
  // Nine rounds a side, separated, are enough at the default alpha.
  EXPECT_TRUE(
      DecideRatio(Metric::kMpiImpact, R(Spreadout(1.0, 0.05, 9)), R(Spreadout(2.0, 0.1, 9)), {}).regression);
}

TEST(DecideRatioTest, OverlappingBimodalSamplesWithABigMedianShiftAreNotSignificant) {
  // Serialized or not, sample by sample: 7 of 15 slow before, 8 of 15 now.
  // The median jumps from 0 to 1, the samples barely changed.
  std::vector<double> base(15, 0.0), now(15, 0.0);
  for (int i = 0; i < 7; ++i) base[i] = 1.0;
  for (int i = 0; i < 8; ++i) now[i] = 1.0;
  const RatioDecision d = DecideRatio(Metric::kOverhead, R(base), R(now), {});
  EXPECT_DOUBLE_EQ(d.difference, 1.0);
  EXPECT_FALSE(d.regression);
}

TEST(DecideRatioTest, RelativeRatiosUseTheRelativeTolerance) {
  const RatioSamples base = R(Spreadout(1.0, 0.02));
  EXPECT_TRUE(DecideRatio(Metric::kCompSlowdown, base, R(Spreadout(1.3, 0.02)), {}).regression);
  // 10 % slower, beyond noise, but within 15 %.
  EXPECT_FALSE(DecideRatio(Metric::kCompSlowdown, base, R(Spreadout(1.1, 0.02)), {}).regression);
  // Near 2 (an idle progress thread's r_mpi_impact), +0.2 is 10 %: within 15 %.
  EXPECT_FALSE(
      DecideRatio(Metric::kMpiImpact, R(Spreadout(2.0, 0.02, 9)), R(Spreadout(2.2, 0.02, 9)), {}).regression);
  EXPECT_NEAR(
      DecideRatio(Metric::kMpiImpact, R(Spreadout(2.0, 0.02, 9)), R(Spreadout(2.2, 0.02, 9)), {}).difference,
      0.1, 1e-12);
}

TEST(DecideRatioTest, ImprovementsAreTheSameTestTheOtherWay) {
  const RatioDecision d = DecideRatio(Metric::kOverhead, R(Spreadout(1.0, 0.1)), R(Spreadout(0.1, 0.1)), {});
  EXPECT_TRUE(d.improvement);
  EXPECT_FALSE(d.regression);
  EXPECT_LT(d.p_better, 1e-4);
  // Relative: better by 15 % is new < base / 1.15.
  EXPECT_TRUE(
      DecideRatio(Metric::kCompSlowdown, R(Spreadout(1.5, 0.02)), R(Spreadout(1.0, 0.02)), {}).improvement);
  EXPECT_FALSE(
      DecideRatio(Metric::kCompSlowdown, R(Spreadout(1.1, 0.02)), R(Spreadout(1.0, 0.02)), {}).improvement);
}

TEST(DecideRatioTest, ABaselineNoisierThanTheToleranceDecidesNothing) {
  // The CI run behind this rule: baseline 0.13 [-0.77, 0.38], new 0.91
  // [0.84, 0.94], same build. The baseline's interval is 1.15 wide.
  const RatioSamples noisy = R(Spreadout(0.13, 1.6)), tight_new = R(Spreadout(0.91, 0.1));
  ASSERT_GT(noisy.summary.hi - noisy.summary.lo, 0.5);
  const RatioDecision d = DecideRatio(Metric::kOverhead, noisy, tight_new, {});
  EXPECT_TRUE(d.baseline_unresolved);
  EXPECT_FALSE(d.regression);
  EXPECT_LT(d.p_worse, 0.01);  // the samples alone would have called it a regression
  EXPECT_FALSE(DecideRatio(Metric::kOverhead, noisy, R(Spreadout(-0.7, 0.1)), {}).improvement);
  // The same new run against a baseline that knew its median: a regression.
  const RatioDecision t = DecideRatio(Metric::kOverhead, R(Spreadout(0.13, 0.1)), tight_new, {});
  EXPECT_FALSE(t.baseline_unresolved);
  EXPECT_TRUE(t.regression);
  // A noisy NEW run against a precise baseline is still decided (a library
  // that got worse and noisier must not hide behind its noise).
  EXPECT_FALSE(DecideRatio(Metric::kOverhead, R(Spreadout(0.13, 0.1)), R(Spreadout(1.5, 1.6)), {})
                   .baseline_unresolved);
  EXPECT_TRUE(DecideRatio(Metric::kOverhead, R(Spreadout(0.13, 0.1)), R(Spreadout(1.5, 1.6)), {}).regression);
}

TEST(BaselineResolvesTest, IntervalAtMostTwiceTheTolerance) {
  Spread s;
  s.median = 0.5;
  s.lo = 0.25;
  s.hi = 0.75;  // exactly 2 x 0.25
  EXPECT_TRUE(BaselineResolves(Metric::kOverhead, s, 0.25));
  s.hi = 0.76;
  EXPECT_FALSE(BaselineResolves(Metric::kOverhead, s, 0.25));
  // Relative: ends within (1 + tol)^2 of each other.
  s.median = 1.0;
  s.lo = 0.9;
  s.hi = 0.9 * 1.15 * 1.15 - 1e-9;
  EXPECT_TRUE(BaselineResolves(Metric::kCompSlowdown, s, 0.15));
  s.hi = 0.9 * 1.15 * 1.15 + 1e-9;
  EXPECT_FALSE(BaselineResolves(Metric::kCompSlowdown, s, 0.15));
  s.lo = 0;  // no positive lower end: no relative precision
  s.hi = 0.01;
  EXPECT_FALSE(BaselineResolves(Metric::kMpiImpact, s, 0.15));
  s.lo = NAN;
  EXPECT_FALSE(BaselineResolves(Metric::kOverhead, s, 0.25));
}

// ------------------------------------------- the collective's speed --

// A point's collective alone: `bytes` per rank, times spread 2 % around `seconds`.
SpeedSamples Speed(double bytes, double seconds, double spread = 0.02, int n = 15) {
  return SpeedFromTimes(bytes, Spreadout(seconds, spread * seconds, n));
}

TEST(DecideSpeedTest, SlowerBeyondToleranceIsARegressionAcrossCalibratedSizes) {
  // The same 500 us target filled by 1.61 MB, then by 0.47 MB: the
  // collective got 3.4 times slower, which the sizes show and the times do not.
  const RatioDecision d = DecideSpeed(Speed(1.61e6, 0.5e-3), Speed(0.47e6, 0.5e-3), {});
  EXPECT_TRUE(d.regression);
  EXPECT_FALSE(d.improvement);
  EXPECT_NEAR(d.difference, 0.47 / 1.61 - 1, 1e-9);  // -71 %
  EXPECT_LT(d.p_worse, 1e-4);
}

TEST(DecideSpeedTest, FasterIsAnImprovement) {
  const RatioDecision d = DecideSpeed(Speed(0.47e6, 0.5e-3), Speed(1.61e6, 0.5e-3), {});
  EXPECT_FALSE(d.regression);
  EXPECT_TRUE(d.improvement);
  EXPECT_NEAR(d.difference, 1.61 / 0.47 - 1, 1e-9);
}

TEST(DecideSpeedTest, SlowerWithinTheToleranceIsNothingEvenWhenSignificant) {
  // 1.5 times the time for the same bytes: 33 % slower, clear in the samples,
  // within the default factor 3; past a factor 1.25.
  const SpeedSamples base = Speed(1e6, 1e-3), now = Speed(1e6, 1.5e-3);
  const RatioDecision d = DecideSpeed(base, now, {});
  EXPECT_FALSE(d.regression || d.improvement || d.worse_beyond_tolerance);
  EXPECT_NEAR(d.difference, 1 / 1.5 - 1, 1e-9);
  CompareOptions tight;
  tight.tolerance_speed = 0.25;
  EXPECT_TRUE(DecideSpeed(base, now, tight).regression);
  EXPECT_FALSE(DecideSpeed(base, Speed(1e6, 1.2e-3), tight).regression);
}

TEST(DecideSpeedTest, ANoisyBaselineDecidesNothing) {
  // Baseline times 0.1 ms in 7 samples, 2 ms in 8: its median's interval
  // spans both, a factor 20, above (1 + 2)^2.
  std::vector<double> times(7, 0.1e-3);
  times.resize(15, 2e-3);
  const RatioDecision d = DecideSpeed(SpeedFromTimes(1e6, times), Speed(1e5, 1e-3), {});
  EXPECT_TRUE(d.baseline_unresolved);
  EXPECT_FALSE(d.regression);
}

TEST(DecideSpeedTest, ACollectiveWithoutDataComparesItsTime) {
  const SpeedSamples base = Speed(0, 1e-3), now = Speed(0, 4e-3);
  EXPECT_EQ(base.summary.bandwidth.n, 0);
  const RatioDecision d = DecideSpeed(base, now, {});
  EXPECT_TRUE(d.regression);
  EXPECT_NEAR(d.difference, 1.0 / 4 - 1, 1e-9);
}

TEST(DecideSpeedTest, UnknownBytesAreMissingNotZero) {
  EXPECT_EQ(SpeedFromTimes(NAN, {1e-3, 2e-3, 3e-3}).missing, "no bytes_per_rank in its samples");
  EXPECT_EQ(SpeedFromTimes(64, {}).missing, "no finite communication-alone times");
  EXPECT_TRUE(SpeedFromTimes(0, {1e-3, 2e-3, 3e-3}).missing.empty());
  EXPECT_FALSE(SpeedSamples{}.missing.empty());
}

// ------------------------------------------------------- whole runs --

PointSamples Point(double comm, double comp, double overhead_center) {
  PointSamples p;
  p.comm_target = comm;
  p.comp_target = comp;
  p.valid = true;
  p.diagnosis = "overlap";
  p.ratios[Metric::kOverhead] = R(Spreadout(overhead_center, 0.1));
  p.ratios[Metric::kComm] = R(Spreadout(0.1, 0.1));
  p.ratios[Metric::kCompSlowdown] = R(Spreadout(1.0, 0.05));
  p.speed = Speed(1e6, comm);
  return p;
}

PointSamples InvalidSamples(double comm, double comp, const std::string& why) {
  PointSamples p;
  p.comm_target = comm;
  p.comp_target = comp;
  p.invalid_reason = why;
  p.diagnosis = "invalid";
  return p;
}

TestResults Run1(const std::string& name, const std::string& version = "MPICH Version:\t4.0.2") {
  TestResults t;
  t.key = {"mpich", name, "ibcast", "basic", 2};
  t.library_version = version;
  t.source = name + "/results.json";
  t.points = {Point(1e-3, 2e-3, 0.05), Point(1e-3, 4e-3, 0.05)};
  t.mpi_impact[2e-3] = R(Spreadout(1.0, 0.05, 9));
  t.mpi_impact[4e-3] = R(Spreadout(1.0, 0.05, 9));
  return t;
}

bool Has(const Comparison& c, const std::string& test, const std::string& where,
         const std::string& reason_part) {
  for (const Unmatched& u : c.unmatched)
    if (u.test == test && u.where == where && u.reason.find(reason_part) != std::string::npos) return true;
  return false;
}

TEST(CompareTest, IdenticalRunsHaveNothingToReport) {
  const std::vector<TestResults> run = {Run1("a"), Run1("b")};
  const Comparison c = Compare(run, run, {});
  EXPECT_TRUE(c.regressions.empty());
  EXPECT_TRUE(c.improvements.empty());
  EXPECT_TRUE(c.unmatched.empty());
  EXPECT_EQ(c.tests, 2);
  EXPECT_EQ(c.points, 4);
  EXPECT_EQ(c.checks, 4 * 3 + 2 * 2);  // 3 ratios per point, r_mpi_impact per computation row
  EXPECT_EQ(c.speed_checks, 4);        // and the collective's speed per point
}

TEST(CompareTest, ASlowerCollectiveIsARegressionWithBothSizesAndTimes) {
  TestResults now = Run1("a");
  now.points[0].speed = Speed(0.29e6, 1e-3);  // 1 MB -> 0.29 MB in the same 1 ms
  const Comparison c = Compare({Run1("a")}, {now}, {});
  ASSERT_EQ(c.regressions.size(), 1u);
  const Change& r = c.regressions[0];
  EXPECT_TRUE(r.speed);
  EXPECT_EQ(PointName(r.comm_target, r.comp_target), "1ms x 2ms");
  EXPECT_EQ(r.base_speed.bytes_per_rank, 1e6);
  EXPECT_EQ(r.now_speed.bytes_per_rank, 0.29e6);
  EXPECT_DOUBLE_EQ(r.now_speed.time.median, 1e-3);
  EXPECT_NEAR(r.base.median, 1e9, 1);  // the bandwidths
  EXPECT_NEAR(r.now.median, 0.29e9, 1);
  EXPECT_NEAR(r.difference, -0.71, 1e-9);
  EXPECT_EQ(r.tolerance, 2.0);
  EXPECT_TRUE(c.improvements.empty());
  // The ratios did not move: nothing else is reported.
  EXPECT_TRUE(c.within_noise.empty());
  // The other way round, faster: an improvement.
  const Comparison back = Compare({now}, {Run1("a")}, {});
  EXPECT_TRUE(back.regressions.empty());
  ASSERT_EQ(back.improvements.size(), 1u);
  EXPECT_TRUE(back.improvements[0].speed);
}

// A point whose ranks computed at unequal speeds (imbalance flagged): its
// overlap ratios are not the library's alone and are listed as not
// compared, however much they moved; the collective alone, timed without
// the computation, is still compared there.
TEST(CompareTest, RefusedRatiosAreListedAndTheSpeedStillCompared) {
  TestResults now = Run1("a");
  now.points[0].ratios[Metric::kOverhead] = R(Spreadout(0.9, 0.05));  // far worse, but refused
  now.points[0].ratios_refused = "rank imbalance: rank 1 computed 1.42x as long as rank 0";
  now.points[0].speed = Speed(0.29e6, 1e-3);
  const Comparison c = Compare({Run1("a")}, {now}, {});
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_TRUE(c.regressions[0].speed);
  EXPECT_TRUE(Has(c, "mpich.a.n2.basic", std::string("1ms x 2ms ") + kOverlapRatiosPlace,
                  "refused in the new run: rank imbalance"));
  EXPECT_EQ(c.checks, 3 + 2);  // the other point's ratios and the two rows' r_mpi_impact
  EXPECT_EQ(c.speed_checks, 2);
}

// A regression of a first job, looked at in the comparison of a second,
// independent job with the same baseline: the nightly test fails only on a
// confirmed one, and is INCONCLUSIVE on an undecided one.
TEST(SecondLookTest, ConfirmedNotConfirmedOrUndecidedByWhatTheSecondComparisonSaw) {
  TestResults first = Run1("a");
  first.points[0].ratios[Metric::kOverhead] = R(Spreadout(0.9, 0.05));  // 0.05 -> 0.9
  first.points[1].speed = Speed(0.29e6, 1e-3);                          // 1 MB -> 0.29 MB in the same 1 ms
  const Comparison c1 = Compare({Run1("a")}, {first}, {});
  ASSERT_EQ(c1.regressions.size(), 2u);
  const Change& ratio = c1.regressions[0].speed ? c1.regressions[1] : c1.regressions[0];
  const Change& speed = c1.regressions[0].speed ? c1.regressions[0] : c1.regressions[1];
  ASSERT_EQ(ratio.metric, Metric::kOverhead);
  ASSERT_TRUE(speed.speed);

  // The second job saw both again.
  const Comparison same = Compare({Run1("a")}, {first}, {});
  EXPECT_EQ(LookAgain(ratio, &same), SecondLook::kConfirmed);
  EXPECT_EQ(LookAgain(speed, &same), SecondLook::kConfirmed);

  // It compared both places and found nothing: a phase of the first job.
  const Comparison quiet = Compare({Run1("a")}, {Run1("a")}, {});
  EXPECT_EQ(LookAgain(ratio, &quiet), SecondLook::kNotConfirmed);
  EXPECT_EQ(LookAgain(speed, &quiet), SecondLook::kNotConfirmed);

  // A regression elsewhere does not confirm this one: another point, another ratio.
  TestResults elsewhere = Run1("a");
  elsewhere.points[1].ratios[Metric::kOverhead] = R(Spreadout(0.9, 0.05));
  elsewhere.points[0].ratios[Metric::kComm] = R(Spreadout(0.9, 0.05));
  const Comparison other = Compare({Run1("a")}, {elsewhere}, {});
  ASSERT_EQ(other.regressions.size(), 2u);
  EXPECT_EQ(LookAgain(ratio, &other), SecondLook::kNotConfirmed);

  // Its point invalid: neither place compared.
  TestResults invalid = Run1("a");
  invalid.points[0] = InvalidSamples(1e-3, 2e-3, "barrier exit skew 2.86 ms");
  invalid.points[1] = InvalidSamples(1e-3, 4e-3, "refused 40 of 60 samples");
  const Comparison none = Compare({Run1("a")}, {invalid}, {});
  EXPECT_EQ(LookAgain(ratio, &none), SecondLook::kUndecided);
  EXPECT_EQ(LookAgain(speed, &none), SecondLook::kUndecided);

  // Its ratios refused for rank imbalance: the ratio undecided, the speed still compared.
  TestResults imbalanced = Run1("a");
  for (PointSamples& p : imbalanced.points)
    p.ratios_refused = "rank imbalance: rank 0 computed 1.64x as long";
  const Comparison refused = Compare({Run1("a")}, {imbalanced}, {});
  EXPECT_EQ(LookAgain(ratio, &refused), SecondLook::kUndecided);
  EXPECT_EQ(LookAgain(speed, &refused), SecondLook::kNotConfirmed);

  // No second comparison at all (its results unreadable, no baseline matched).
  EXPECT_EQ(LookAgain(ratio, nullptr), SecondLook::kUndecided);
}

TEST(CompareTest, ResultsWithoutTheSpeedSayItOnceAndCompareTheRatios) {
  TestResults old = Run1("a");
  for (PointSamples& p : old.points) p.speed = SpeedFromTimes(NAN, {1e-3, 1e-3, 1e-3});
  for (const Comparison& c : {Compare({old}, {Run1("a")}, {}), Compare({Run1("a")}, {old}, {})}) {
    ASSERT_EQ(c.unmatched.size(), 1u);
    EXPECT_EQ(c.unmatched[0].where, "collective speed");
    EXPECT_NE(c.unmatched[0].reason.find("speed not compared: "), std::string::npos);
    EXPECT_NE(c.unmatched[0].reason.find("no bytes_per_rank"), std::string::npos);
    EXPECT_EQ(c.speed_checks, 0);
    EXPECT_EQ(c.checks, 2 * 3 + 2);
    EXPECT_TRUE(c.regressions.empty());
  }
}

TEST(CompareTest, RegressionsNameTestPointRatioAndDiagnosis) {
  TestResults now = Run1("a");
  now.points[1].ratios[Metric::kOverhead] = R(Spreadout(1.0, 0.1));
  now.points[1].diagnosis = "no-progression";
  now.mpi_impact[4e-3] = R(Spreadout(2.0, 0.1, 9));
  const Comparison c = Compare({Run1("a")}, {now}, {});
  ASSERT_EQ(c.regressions.size(), 2u);
  const Change& r = c.regressions[0];
  EXPECT_EQ(r.test.Name(), "mpich.a.n2.basic");
  EXPECT_EQ(PointName(r.comm_target, r.comp_target), "1ms x 4ms");
  EXPECT_EQ(r.metric, Metric::kOverhead);
  EXPECT_EQ(r.diagnosis, "no-progression");
  EXPECT_NEAR(r.difference, 0.95, 1e-12);
  // r_mpi_impact: one line for the computation row, not one per point.
  EXPECT_EQ(c.regressions[1].metric, Metric::kMpiImpact);
  EXPECT_EQ(PointName(c.regressions[1].comm_target, c.regressions[1].comp_target), "* x 4ms");
  // The other way round it is an improvement, not a regression.
  const Comparison back = Compare({now}, {Run1("a")}, {});
  EXPECT_TRUE(back.regressions.empty());
  EXPECT_EQ(back.improvements.size(), 2u);
}

TEST(CompareTest, WhatCannotBeComparedIsListed) {
  TestResults version_b = Run1("version"), version_n = Run1("version", "MPICH Version:\t4.1.0");
  TestResults ref_b = Run1("ref"), ref_n = Run1("ref");
  ref_b.reference = {{"behaviour", "background"}};
  ref_n.reference = {{"behaviour", "deferred"}};
  TestResults grid_b = Run1("grid"), grid_n = Run1("grid");
  grid_b.points.push_back(Point(2e-3, 2e-3, 0.05));  // only in the baseline
  grid_n.points.push_back(Point(4e-3, 2e-3, 0.05));  // only in the new run
  grid_b.points.push_back(Point(2e-3, 4e-3, 0.05));
  grid_n.points.push_back(InvalidSamples(2e-3, 4e-3, "communication calibration failed for 2ms"));
  grid_n.mpi_impact[4e-3].missing = "no measurement without MPI for this size";
  const std::vector<TestResults> base = {Run1("removed"), version_b, ref_b, grid_b};
  const std::vector<TestResults> now = {Run1("added"), version_n, ref_n, grid_n};
  const Comparison c = Compare(base, now, {});
  EXPECT_TRUE(Has(c, "mpich.removed.n2.basic", "", "only in the baseline"));
  EXPECT_TRUE(Has(c, "mpich.added.n2.basic", "", "only in the new run"));
  EXPECT_TRUE(Has(c, "mpich.version.n2.basic", "", "not comparable: library version changed"));
  EXPECT_TRUE(Has(c, "mpich.ref.n2.basic", "",
                  "not comparable: reference behaviour changed (background -> deferred)"));
  EXPECT_TRUE(Has(c, "mpich.grid.n2.basic", "2ms x 2ms", "only in the baseline"));
  EXPECT_TRUE(Has(c, "mpich.grid.n2.basic", "4ms x 2ms", "only in the new run"));
  EXPECT_TRUE(
      Has(c, "mpich.grid.n2.basic", "2ms x 4ms", "invalid in the new run: communication calibration"));
  EXPECT_TRUE(Has(c, "mpich.grid.n2.basic", "* x 4ms r_mpi_impact", "not measured in the new run"));
  EXPECT_EQ(c.unmatched.size(), 8u);
  EXPECT_EQ(c.tests, 1);   // only "grid" was compared
  EXPECT_EQ(c.points, 2);  // its two common valid points
  EXPECT_TRUE(c.regressions.empty());

  // For testing the comparison itself, reference behaviours may be compared.
  CompareOptions ignore;
  ignore.ignore_reference = true;
  const Comparison i = Compare({ref_b}, {ref_n}, ignore);
  EXPECT_TRUE(i.unmatched.empty());
  EXPECT_EQ(i.tests, 1);
  ASSERT_EQ(i.notes.size(), 1u);
  EXPECT_NE(i.notes[0].find("background -> deferred"), std::string::npos);
}

TEST(CompareTest, AWorseningTheSamplesCannotConfirmIsWithinNoise) {
  // r_mpi_impact from 1.0 to 3.0, on 3 rounds a side (p >= 0.04).
  TestResults b = Run1("a"), n = Run1("a");
  b.mpi_impact[2e-3] = R({1.0, 1.01, 1.02});
  n.mpi_impact[2e-3] = R({3.0, 3.01, 3.02});
  const Comparison c = Compare({b}, {n}, {});
  EXPECT_TRUE(c.regressions.empty());
  ASSERT_EQ(c.within_noise.size(), 1u);
  EXPECT_EQ(c.within_noise[0].metric, Metric::kMpiImpact);
  EXPECT_NEAR(c.within_noise[0].p, SmallestP(3, 3), 1e-12);
  // The way back is not listed as within noise (only worsenings are).
  EXPECT_TRUE(Compare({n}, {b}, {}).within_noise.empty());
}

TEST(CompareTest, ANoisyBaselineRatioIsListedWithBothRunsValues) {
  TestResults b = Run1("a"), n = Run1("a");
  b.points[0].ratios[Metric::kOverhead] = R(Spreadout(0.13, 1.6));
  n.points[0].ratios[Metric::kOverhead] = R(Spreadout(0.91, 0.1));
  const Comparison c = Compare({b}, {n}, {});
  EXPECT_TRUE(c.regressions.empty());
  EXPECT_TRUE(c.within_noise.empty());
  ASSERT_EQ(c.unmatched.size(), 1u);
  EXPECT_TRUE(
      Has(c, "mpich.a.n2.basic", "1ms x 2ms r_overhead", "baseline too noisy to resolve a change of 0.25"));
  EXPECT_NE(c.unmatched[0].reason.find("(new run: 0.91 [0.88, 0.94])"), std::string::npos)
      << c.unmatched[0].reason;
  EXPECT_EQ(c.checks, 2 * 3 + 2 - 1);  // every other ratio still compared
}

TEST(CompareTest, ASpeedTheBaselineCannotResolveIsListedWithBothTimes) {
  TestResults b = Run1("a");
  std::vector<double> times(7, 0.1e-3);
  times.resize(15, 2e-3);
  b.points[0].speed = SpeedFromTimes(1e6, times);
  const Comparison c = Compare({b}, {Run1("a")}, {});
  ASSERT_EQ(c.unmatched.size(), 1u);
  EXPECT_TRUE(
      Has(c, "mpich.a.n2.basic", "1ms x 2ms collective speed",
          "speed not compared: baseline too noisy to resolve a factor 3.00: its time alone 2ms [100us, 2ms] "
          "(new run: 1ms [994us, 1.01ms])"))
      << c.unmatched[0].reason;
  EXPECT_EQ(c.speed_checks, 1);
}

TEST(CompareTest, TwoResultsForOneTestAreAmbiguous) {
  const Comparison c = Compare({Run1("a"), Run1("a")}, {Run1("a")}, {});
  EXPECT_TRUE(Has(c, "mpich.a.n2.basic", "", "not comparable: 2 results for this test in the baseline"));
  EXPECT_EQ(c.tests, 0);
}

TEST(CompareTest, DeploymentEnvironmentChangesAreNotedNotRefused) {
  TestResults b = Run1("a"), n = Run1("a");
  b.deployment_environment = {{"MPIR_CVAR_ASYNC_PROGRESS", "1"}};
  n.deployment_environment = {{"MPIR_CVAR_ASYNC_PROGRESS", "0"}};
  const Comparison c = Compare({b}, {n}, {});
  EXPECT_EQ(c.tests, 1);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("MPIR_CVAR_ASYNC_PROGRESS \"1\" -> \"0\""), std::string::npos);
}

// ------------------------------------------------- results.json files --

json LoadJson(const std::string& relative) {
  std::ifstream f(std::string(NBCGUARD_TEST_DATA) + "/compare/" + relative);
  return json::parse(f);
}

TEST(ParseTestResultsTest, RecomputedRatiosAreThoseTheRunReported) {
  for (const char* file :
       {"baseline/ibcast/n2/basic/results.json", "baseline/ireduce/n2/basic/results.json"}) {
    const json j = LoadJson(file);
    std::string error;
    const std::optional<TestResults> t = ParseTestResults(j, file, &error);
    ASSERT_TRUE(t) << error;
    EXPECT_EQ(t->key.Name(), "openmpi." + j["case"]["name"].get<std::string>() + ".n2.basic");
    EXPECT_EQ(t->library_version.find('\n'), std::string::npos);
    ASSERT_EQ(t->points.size(), j["points"].size());
    for (std::size_t i = 0; i < t->points.size(); ++i) {
      const json& jp = j["points"][i];
      ASSERT_TRUE(t->points[i].valid);
      for (Metric m : {Metric::kOverhead, Metric::kComm, Metric::kCompSlowdown}) {
        const Spread& s = t->points[i].ratios.at(m).summary;
        EXPECT_DOUBLE_EQ(s.median, jp[MetricName(m)]["median"].get<double>()) << file << " " << MetricName(m);
        EXPECT_DOUBLE_EQ(s.lo, jp[MetricName(m)]["ci_lo"].get<double>());
        EXPECT_DOUBLE_EQ(s.hi, jp[MetricName(m)]["ci_hi"].get<double>());
        EXPECT_EQ(s.n, jp[MetricName(m)]["n"].get<int>());
      }
    }
    for (const json& row : j["mpi_impact"])
      EXPECT_DOUBLE_EQ(t->mpi_impact.at(row["comp_target"].get<double>()).summary.median,
                       row["r_mpi_impact"].get<double>());
    // The collective's speed from the same samples: t_comm_ref is its median time.
    for (std::size_t i = 0; i < t->points.size(); ++i) {
      const SpeedSamples& sp = t->points[i].speed;
      EXPECT_TRUE(sp.missing.empty()) << sp.missing;
      EXPECT_DOUBLE_EQ(sp.summary.time.median, j["points"][i]["t_comm_ref"].get<double>());
      EXPECT_EQ(sp.summary.bytes_per_rank, j["samples"][i]["bytes_per_rank"].get<double>());
      EXPECT_DOUBLE_EQ(sp.summary.bandwidth.median,
                       Median(BandwidthPerSample(sp.summary.bytes_per_rank,
                                                 j["samples"][i]["t_comm_ref"].get<std::vector<double>>())));
    }
  }
}

// A point flagged for rank imbalance: its ratios refused, with what the
// imbalance can have hidden of r_overhead (its effect) and of r_comm (the
// reference slack over t_comm_ref); nothing for an unflagged point.
TEST(ParseTestResultsTest, AFlaggedPointCarriesWhatTheImbalanceCanHaveHidden) {
  const char* file = "baseline/ibcast/n2/basic/results.json";
  json j = LoadJson(file);
  json& jp = j["points"][0];
  jp["imbalance"]["flagged"] = true;
  jp["imbalance"]["effect"] = 0.45;
  jp["imbalance"]["ref_slack"] = 0.25 * jp["t_comm_ref"].get<double>();
  jp["imbalance"]["slowest_rank"] = 1;
  jp["imbalance"]["fastest_rank"] = 0;
  jp["imbalance"]["ref_ratio"] = 1.6;
  std::string error;
  const std::optional<TestResults> t = ParseTestResults(j, file, &error);
  ASSERT_TRUE(t) << error;
  const PointSamples& flagged = t->points[0];
  EXPECT_NE(flagged.ratios_refused.find("rank 1 computed 1.60x as long as rank 0"), std::string::npos)
      << flagged.ratios_refused;
  ASSERT_EQ(flagged.hidden_by_imbalance.size(), 2u);
  EXPECT_DOUBLE_EQ(flagged.hidden_by_imbalance.at(Metric::kOverhead), 0.45);
  EXPECT_NEAR(flagged.hidden_by_imbalance.at(Metric::kComm), 0.25, 1e-12);
  EXPECT_TRUE(t->points[1].hidden_by_imbalance.empty());
}

TEST(ParseTestResultsTest, ResultsWithoutBytesPerRankAreReadAndTheirSpeedNotCompared) {
  const char* file = "baseline/ibcast/n2/basic/results.json";
  json old = LoadJson(file);
  for (json& s : old["samples"]) s.erase("bytes_per_rank");
  std::string error;
  const std::optional<TestResults> b = ParseTestResults(old, file, &error);
  ASSERT_TRUE(b) << error;
  const Comparison c = Compare({*b}, {*ParseTestResults(LoadJson(file), file, nullptr)}, {});
  EXPECT_TRUE(Has(c, "openmpi.ibcast.n2.basic", "collective speed",
                  "speed not compared: baseline has no bytes_per_rank in its samples"));
  EXPECT_EQ(c.speed_checks, 0);
  EXPECT_GT(c.checks, 0);
}

TEST(ParseTestResultsTest, OtherDocumentsAreRefusedWithTheReason) {
  std::string error;
  EXPECT_FALSE(ParseTestResults(json{{"schema", "nbcguard-results/0"}}, "x.json", &error));
  EXPECT_NE(error.find("x.json: schema is 'nbcguard-results/0'"), std::string::npos);
  EXPECT_FALSE(ParseTestResults(json::array(), "y.json", &error));
}

TEST(ParseTestResultsTest, FixtureRunWithOverheadWorseBy06RegressesAtEveryResolvablePointAndNothingElse) {
  std::vector<TestResults> base, now;
  for (const char* f : {"baseline/ibcast/n2/basic/results.json", "baseline/ireduce/n2/basic/results.json"})
    base.push_back(*ParseTestResults(LoadJson(f), f, nullptr));
  for (const char* f : {"run/ibcast/n2/basic/results.json", "run/iallgather/n2/basic/results.json"})
    now.push_back(*ParseTestResults(LoadJson(f), f, nullptr));
  const Comparison c = Compare(base, now, {});
  // The real baseline's 500us x 500us point is noisy (r_overhead 1.03 [0.05,
  // 1.18], r_comp_slowdown 1.00 [0.71, 1.04]): listed, not decided. The
  // other three points regress.
  ASSERT_EQ(c.regressions.size(), 3u);
  for (const Change& r : c.regressions) {
    EXPECT_EQ(r.metric, Metric::kOverhead);
    EXPECT_EQ(r.test.Name(), "openmpi.ibcast.n2.basic");
    EXPECT_NEAR(r.difference, 0.6, 0.05);  // the reference medians moved nothing
  }
  EXPECT_TRUE(Has(c, "openmpi.ireduce.n2.basic", "", "only in the baseline"));
  EXPECT_TRUE(Has(c, "openmpi.iallgather.n2.basic", "", "only in the new run"));
  EXPECT_TRUE(Has(c, "openmpi.ibcast.n2.basic", "500us x 500us r_overhead", "baseline too noisy"));
  EXPECT_TRUE(Has(c, "openmpi.ibcast.n2.basic", "500us x 500us r_comp_slowdown",
                  "baseline too noisy to resolve a change of 15 %"));
  EXPECT_EQ(c.unmatched.size(), 4u);
  // And the real baseline against itself: nothing decided, the same two noisy
  // ratios listed, and ireduce's r_mpi_impact row (0.99 [0.25, 1.02], 3 rounds).
  const Comparison same = Compare(base, base, {});
  EXPECT_TRUE(same.regressions.empty() && same.improvements.empty());
  EXPECT_TRUE(Has(same, "openmpi.ireduce.n2.basic", "* x 4ms r_mpi_impact", "baseline too noisy"));
  EXPECT_EQ(same.unmatched.size(), 3u);
  EXPECT_EQ(same.speed_checks, 6);  // every valid point of both tests
}

// ------------------------------------------- the between-run spread --

// The history says how far one job's median moves between jobs of
// unchanged code; two runs are two jobs, so a change must also exceed
// z(alpha) x sqrt(2) x that spread (about 3.3 sd at alpha 0.01).
TEST(CompareTest, AChangeWithinTheBetweenRunSpreadIsWithinNoise) {
  TestResults now = Run1("a");
  now.points[1].ratios[Metric::kOverhead] = R(Spreadout(1.0, 0.1));  // +0.95, significant in-run
  now.mpi_impact[4e-3] = R(Spreadout(2.0, 0.1, 9));                  // x2
  const std::string overhead = SeriesKey("mpich.a.n2.basic", "1ms x 4ms", "r_overhead");
  const std::string impact = SeriesKey("mpich.a.n2.basic", "* x 4ms", "r_mpi_impact");
  CompareOptions o;
  o.between[overhead] = {0.35, 20};  // 3.29 x 0.35 = 1.15 > 0.95: within
  o.between[impact] = {0.05, 20};    // log 2 = 0.69 > 3.29 x 0.05: beyond
  const Comparison c = Compare({Run1("a")}, {now}, o);
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_EQ(c.regressions[0].metric, Metric::kMpiImpact);
  EXPECT_EQ(c.regressions[0].between.nights, 20);
  EXPECT_FALSE(c.regressions[0].within_between);
  ASSERT_EQ(c.within_noise.size(), 1u);
  EXPECT_EQ(c.within_noise[0].metric, Metric::kOverhead);
  EXPECT_TRUE(c.within_noise[0].within_between);
  EXPECT_DOUBLE_EQ(c.within_noise[0].between.sigma, 0.35);
  // A narrower spread: the same change is a regression.
  o.between[overhead] = {0.25, 20};  // 3.29 x 0.25 = 0.82 < 0.95
  EXPECT_EQ(Compare({Run1("a")}, {now}, o).regressions.size(), 2u);
  // A spread from too few nights is not used.
  o.between[overhead] = {0.35, 5};
  EXPECT_EQ(Compare({Run1("a")}, {now}, o).regressions.size(), 2u);
  // An improvement within the spread is no change at all.
  o.between[overhead] = {0.35, 20};
  const Comparison back = Compare({now}, {Run1("a")}, o);
  ASSERT_EQ(back.improvements.size(), 1u);
  EXPECT_EQ(back.improvements[0].metric, Metric::kMpiImpact);
  EXPECT_TRUE(back.within_noise.empty());
}

// Without a spread from enough nights a ratio regression is still listed,
// marked as one whose between-run spread is unknown, with how many nights
// the history holds and how many it needs; a speed regression is never
// marked (its factor tolerance is above the between-run spread).
TEST(CompareTest, ARatioRegressionWithoutAKnownBetweenRunSpreadIsMarked) {
  TestResults now = Run1("a");
  now.points[1].ratios[Metric::kOverhead] = R(Spreadout(1.0, 0.1));  // +0.95
  now.points[0].speed = Speed(0.29e6, 1e-3);                         // 3.4 x slower
  const std::string overhead = SeriesKey("mpich.a.n2.basic", "1ms x 4ms", "r_overhead");
  CompareOptions o;
  auto find = [](const Comparison& c, bool speed) {
    const auto it = std::find_if(c.regressions.begin(), c.regressions.end(),
                                 [&](const Change& r) { return r.speed == speed; });
    EXPECT_NE(it, c.regressions.end());
    return it == c.regressions.end() ? Change{} : *it;
  };
  const Comparison none = Compare({Run1("a")}, {now}, o);  // no history at all
  ASSERT_EQ(none.regressions.size(), 2u);
  EXPECT_TRUE(find(none, false).spread_unknown);
  EXPECT_EQ(find(none, false).history_nights, 0);
  EXPECT_FALSE(find(none, true).spread_unknown);
  o.between[overhead] = {0.05, 5};  // a spread from too few nights
  const Comparison few = Compare({Run1("a")}, {now}, o);
  ASSERT_EQ(few.regressions.size(), 2u);
  EXPECT_TRUE(find(few, false).spread_unknown);
  EXPECT_EQ(find(few, false).history_nights, 5);
  CompareOptions five = o;  // the nights needed are the options'
  five.min_history_nights = 5;
  EXPECT_FALSE(find(Compare({Run1("a")}, {now}, five), false).spread_unknown);
  o.between[overhead] = {0.05, 6};  // known: beyond it, a decided regression
  const Comparison known = Compare({Run1("a")}, {now}, o);
  ASSERT_EQ(known.regressions.size(), 2u);
  EXPECT_FALSE(find(known, false).spread_unknown);
  EXPECT_EQ(find(known, false).between.nights, 6);
}

TEST(UpperNormalQuantileTest, KnownValues) {
  EXPECT_NEAR(UpperNormalQuantile(0.5), 0.0, 1e-9);
  EXPECT_NEAR(UpperNormalQuantile(0.05), 1.644854, 1e-5);
  EXPECT_NEAR(UpperNormalQuantile(0.01), 2.326348, 1e-5);
  EXPECT_NEAR(UpperNormalQuantile(0.975), -1.959964, 1e-5);
}

}  // namespace
}  // namespace nbcguard
