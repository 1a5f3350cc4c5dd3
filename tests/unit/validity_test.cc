// Imbalance between ranks, the validity gates, and how verdicts treat a
// flagged point (validity.h, verdict.h).
#include "nbcguard/validity.h"

#include <cmath>

#include <gtest/gtest.h>

#include "nbcguard/reduce.h"
#include "nbcguard/verdict.h"

namespace nbcguard {
namespace {

// The case that was read as overlap: MPICH, library defaults, ranks not
// bound; rank 0's GEMM 266 us against rank 1's 188 us for the same size,
// the collective alone 221 us.
TEST(Imbalance, UnequalComputingIsFlaggedWithItsEffectOnROverhead) {
  const Imbalance im = MeasureImbalance({266e-6, 188e-6}, {1279e-6, 697e-6}, 221e-6, 266e-6);
  EXPECT_NEAR(im.ref_slack, 78e-6, 1e-12);
  EXPECT_NEAR(im.ref_ratio, 266.0 / 188, 1e-12);
  EXPECT_EQ(im.slowest_rank, 0);
  EXPECT_EQ(im.fastest_rank, 1);
  EXPECT_NEAR(im.overlap_slack, 582e-6, 1e-12);
  EXPECT_NEAR(im.overlap_ratio, 1279.0 / 697, 1e-12);
  EXPECT_NEAR(im.effect, 78.0 / 221, 1e-9);  // the shorter reference divides, as in r_overhead
  EXPECT_TRUE(im.flagged);
}

TEST(Imbalance, BalancedRanksAreNotFlagged) {
  const Imbalance im = MeasureImbalance({2.00e-3, 2.05e-3}, {2.0e-3, 2.1e-3}, 2e-3, 2e-3);
  EXPECT_NEAR(im.effect, 0.025, 1e-9);
  EXPECT_FALSE(im.flagged);
  // At the bound exactly: not flagged (strictly above).
  EXPECT_FALSE(MeasureImbalance({1.2e-3, 1.0e-3}, {}, 1e-3, 1.2e-3).flagged);
  EXPECT_TRUE(MeasureImbalance({1.21e-3, 1.0e-3}, {}, 1e-3, 1.21e-3).flagged);
}

TEST(Imbalance, NotMeasuredWithOneRankOrNoTimes) {
  const Imbalance one = MeasureImbalance({1e-3}, {1e-3}, 1e-3, 1e-3);
  EXPECT_TRUE(std::isnan(one.effect));
  EXPECT_FALSE(one.flagged);
  const Imbalance bad = MeasureImbalance({1e-3, std::nan("")}, {}, 1e-3, 1e-3);
  EXPECT_TRUE(std::isnan(bad.ref_slack));
  EXPECT_FALSE(bad.flagged);
}

PointResult Flagged(double r_overhead, double r_comm) {
  PointResult p;
  p.comm_target = 1e-3;
  p.comp_target = 1e-3;
  p.t_comm_ref = 221e-6;
  p.t_comp_ref = 266e-6;
  p.t_measured = 400e-6;
  p.r_overhead = Summarize({r_overhead - 0.01, r_overhead, r_overhead + 0.01});
  p.r_comm = Summarize({r_comm - 0.01, r_comm, r_comm + 0.01});
  p.r_comp_slowdown = Summarize({0.99, 1.0, 1.01});
  p.imbalance = MeasureImbalance({266e-6, 188e-6}, {266e-6, 188e-6}, p.t_comm_ref, p.t_comp_ref);
  p.diagnosis = Diagnosis::kImbalance;
  return p;
}

TEST(Imbalance, HiddenShareIsPerMetricAndOnlyWhenFlagged) {
  PointResult p = Flagged(0.6, 0.6);
  EXPECT_NEAR(HiddenByImbalance(p, Metric::kOverhead), 78.0 / 221, 1e-9);
  EXPECT_NEAR(HiddenByImbalance(p, Metric::kComm), 78.0 / 221, 1e-9);
  EXPECT_EQ(HiddenByImbalance(p, Metric::kCompSlowdown), 0.0);
  p.imbalance.flagged = false;
  EXPECT_EQ(HiddenByImbalance(p, Metric::kOverhead), 0.0);
}

Rule OverlapRule(double max_overhead) {
  Rule r;
  r.name = "overlap";
  Limit l;
  l.metric = Metric::kOverhead;
  l.max = max_overhead;
  r.limits = {l};
  return r;
}

TestContext ValidityCtx() {
  TestContext t;
  t.collective = "ibcast";
  t.nodes = 2;
  return t;
}

// A flagged point cannot pass a limit that only the slack let it meet...
TEST(ImbalanceVerdict, LimitMetOnlyWithTheSlackIsInvalid) {
  const Verdict v = Evaluate({Flagged(0.6, 0.6)}, ValidityCtx(), {OverlapRule(0.7)});
  EXPECT_FALSE(v.pass);
  ASSERT_EQ(v.invalid.size(), 1u);
  EXPECT_NE(v.invalid[0].line.find("rank imbalance: rank 0 computed 1.41x as long as rank 1; r_overhead "
                                   "0.600 <= max 0.700 only with up to 0.353 hidden by slack"),
            std::string::npos)
      << v.invalid[0].line;
  EXPECT_TRUE(v.failures.empty());
  // Refused, nothing else wrong: inconclusive, not a pass and not a failure.
  EXPECT_TRUE(v.invalid[0].refused);
  EXPECT_TRUE(v.Inconclusive());
  EXPECT_EQ(v.Summary().rfind("INCONCLUSIVE: 1 point(s) refused", 0), 0u) << v.Summary();
}

// A point a validity gate refused is inconclusive too; beside a limit
// exceeded, or beside a point that could not be measured, the test fails.
TEST(ImbalanceVerdict, RefusedPointsAloneAreInconclusive) {
  PointResult refused = Flagged(0.2, 0.2);
  refused.valid = false;
  refused.refused = true;
  refused.invalid_reason = "clock error";
  EXPECT_TRUE(Evaluate({refused}, ValidityCtx(), {OverlapRule(0.7)}).Inconclusive());
  PointResult unmeasured = refused;
  unmeasured.refused = false;
  unmeasured.comp_target = 2e-3;
  const Verdict mixed = Evaluate({refused, unmeasured}, ValidityCtx(), {OverlapRule(0.7)});
  EXPECT_FALSE(mixed.Inconclusive());
  EXPECT_EQ(mixed.Summary().rfind("FAIL: 2 invalid point(s)", 0), 0u) << mixed.Summary();
  PointResult beyond = Flagged(0.9, 0.9);
  beyond.comp_target = 4e-3;
  const Verdict failed = Evaluate({refused, beyond}, ValidityCtx(), {OverlapRule(0.7)});
  EXPECT_FALSE(failed.Inconclusive());
  EXPECT_FALSE(failed.failures.empty());
  // Nothing applied: a failure whatever the points.
  EXPECT_FALSE(Evaluate({refused}, ValidityCtx(), {}).Inconclusive());
}

// ... passes one it meets even with all of the slack counted against it...
TEST(ImbalanceVerdict, LimitMetWithTheSlackCountedPasses) {
  const Verdict v = Evaluate({Flagged(0.2, 0.2)}, ValidityCtx(), {OverlapRule(0.7)});
  EXPECT_TRUE(v.pass) << v.Summary();
  EXPECT_TRUE(v.invalid.empty());
}

// ... and fails one it exceeds anyway.
TEST(ImbalanceVerdict, LimitExceededDespiteTheSlackFails) {
  const Verdict v = Evaluate({Flagged(0.9, 0.9)}, ValidityCtx(), {OverlapRule(0.7)});
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.failures.size(), 1u);
  EXPECT_TRUE(v.invalid.empty());
}

TEST(RelativeIqr, QuartilesOverMedian) {
  EXPECT_DOUBLE_EQ(RelativeIqr({1, 2, 3, 4, 5}), (4.0 - 2.0) / 3.0);
  EXPECT_TRUE(std::isnan(RelativeIqr({1, 2, 3})));
  EXPECT_TRUE(std::isnan(RelativeIqr({0, 0, 0, 0})));
}

// A quiet point of this machine: clock error 0.16 us, skews well under 1 us.
PointResult Quiet() {
  PointResult p;
  p.t_comm_ref = 500e-6;
  p.t_comp_ref = 500e-6;
  p.t_measured = 990e-6;
  p.r_comp_slowdown = Summarize({0.98, 0.99, 1.0});
  p.comp_ref_spread = 0.08;
  p.start_skew = 0.05e-6;
  return p;
}

TimingQuality QuietClock() { return {0.16e-6, 0.02e-6}; }

TEST(Gates, AQuietPointPassesEveryGate) { EXPECT_EQ(GateFailure(Quiet(), QuietClock()), ""); }

// Each gate alone: the figures of disturbed runs seen on this machine.
TEST(Gates, DisturbedClockFitIsRefused) {
  const std::string why = GateFailure(Quiet(), {177.38e-6, 0.02e-6});
  EXPECT_NE(why.find("clock error 2 x 177us exceeds 5 % of the shorter reference (25us)"), std::string::npos)
      << why;
  // At the bound: 2 x 12.5 us = 25 us is allowed.
  EXPECT_EQ(GateFailure(Quiet(), {12.5e-6, 0}), "");
}

TEST(Gates, BarrierExitSkewIsRefused) {
  const std::string why = GateFailure(Quiet(), {0.16e-6, 30e-6});
  EXPECT_NE(why.find("synchronized barrier exit skew"), std::string::npos) << why;
}

TEST(Gates, StartsFarApartAreRefused) {
  PointResult p = Quiet();
  p.start_skew = 5e-3;
  const std::string why = GateFailure(p, QuietClock());
  EXPECT_NE(why.find("the ranks started the overlap runs 5ms apart (median), over 25 % of the shorter "
                     "reference (125us)"),
            std::string::npos)
      << why;
  p.start_skew = 125e-6;  // at the bound: allowed
  EXPECT_EQ(GateFailure(p, QuietClock()), "");
}

TEST(Gates, UnstableComputationIsRefused) {
  PointResult p = Quiet();
  p.comp_ref_spread = 1.3;
  EXPECT_NE(GateFailure(p, QuietClock()).find("computation unstable"), std::string::npos);
  p.comp_ref_spread = 0.72;  // the largest of 194 points of a quiet pipeline run
  EXPECT_EQ(GateFailure(p, QuietClock()), "");
}

TEST(Gates, UnstableCommunicationIsRefused) {
  PointResult p = Quiet();
  p.comm_ref_spread = 1.83;  // t_comm_ref 1.0-10.4 ms for a 1 ms target, three busy processes beside
  EXPECT_NE(GateFailure(p, QuietClock())
                .find("communication unstable: interquartile range of the communication reference 1.83 x its "
                      "median (bound 1.00)"),
            std::string::npos)
      << GateFailure(p, QuietClock());
  p.comm_ref_spread = 0.36;  // the largest of 194 points of a quiet pipeline run
  EXPECT_EQ(GateFailure(p, QuietClock()), "");
}

TEST(Gates, AReferenceFarSlowerThanItsCalibratedTargetIsRefused) {
  PointResult p = Quiet();
  p.comm_target = 1e-3;
  p.comp_target = 500e-6;
  p.t_comm_ref = 5.05e-3;  // three busy processes started after calibration
  p.t_measured = 5.5e-3;
  EXPECT_NE(GateFailure(p, QuietClock())
                .find("communication reference 5.05ms, 5.0 x its calibrated target 1ms (bound 3 x): the "
                      "machine's speed changed since calibration"),
            std::string::npos)
      << GateFailure(p, QuietClock());
  p.t_comm_ref = 1.56e-3;  // the largest of a quiet pipeline run
  EXPECT_EQ(GateFailure(p, QuietClock()), "");
  p.t_comp_ref = 1.8e-3;  // 3.6 x
  EXPECT_NE(GateFailure(p, QuietClock()).find("computation reference 1.8ms, 3.6 x"), std::string::npos)
      << GateFailure(p, QuietClock());
  p.t_comp_ref = 100e-6;  // faster than calibrated: not this gate's concern
  p.t_measured = 1.6e-3;
  EXPECT_EQ(GateFailure(p, QuietClock()), "");
}

TEST(Gates, ComputationFasterThanAloneIsRefused) {
  PointResult p = Quiet();
  p.r_comp_slowdown = Summarize({0.3, 0.4, 0.45});
  EXPECT_NE(GateFailure(p, QuietClock()).find("r_comp_slowdown 0.40 below 0.50"), std::string::npos);
}

TEST(Gates, MeasuredFasterThanEitherAloneIsRefused) {
  PointResult p = Quiet();
  p.t_comm_ref = 2e-3;
  p.t_measured = 0.9e-3;
  EXPECT_NE(GateFailure(p, QuietClock()).find("t_measured"), std::string::npos);
}

TEST(Gates, UnmeasuredFiguresDoNotRefuse) {
  PointResult p = Quiet();
  p.comp_ref_spread = std::nan("");
  p.comm_ref_spread = std::nan("");
  p.start_skew = std::nan("");
  EXPECT_EQ(GateFailure(p, {std::nan(""), std::nan("")}), "");
}

TEST(TimingQuality, WorstRanksClockErrorAndTheSynchronizedSkew) {
  const nlohmann::json clock = nlohmann::json::parse(R"([
    {"rank": 0, "residual_rms_s": 0, "min_rtt_s": 0},
    {"rank": 1, "residual_rms_s": 1e-6, "min_rtt_s": 4e-6, "depth": 1},
    {"rank": 2, "residual_rms_s": 2e-6, "min_rtt_s": 2e-6, "depth": 2},
    {"rank": 3, "residual_rms_s": null, "min_rtt_s": null}])");
  const nlohmann::json barrier =
      nlohmann::json::parse(R"({"synchronized": {"median": 3e-7}, "mpi_barrier": {"median": 1e-6}})");
  const TimingQuality q = TimingQualityOf(clock, barrier);
  EXPECT_NEAR(q.clock_error, 2e-6 + 2 * 1e-6, 1e-15);  // rank 2: residual + 2 hops x RTT/2
  EXPECT_NEAR(q.barrier_skew, 3e-7, 1e-15);
  EXPECT_TRUE(std::isnan(TimingQualityOf(nlohmann::json::array(), nullptr).barrier_skew));
}

}  // namespace
}  // namespace nbcguard
