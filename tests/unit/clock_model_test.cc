#include "nbcguard/clock_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace nbcguard {
namespace {

// A synthetic local clock: local = true_time + offset + drift * true_time.
struct SyntheticClock {
  double offset;
  double drift;
  double Local(double t) const { return t + offset + drift * t; }
};

// One ping-pong starting at true time t with one-way delays d_out, d_back
// (reference clock = true time).
PingPong Exchange(const SyntheticClock& c, double t, double d_out, double d_back) {
  return PingPong{c.Local(t), t + d_out, c.Local(t + d_out + d_back)};
}

TEST(ClockModel, BestOffsetPicksSmallestRoundTrip) {
  SyntheticClock c{0.050, 0};
  std::vector<PingPong> round = {Exchange(c, 1.0, 5e-6, 40e-6),  // asymmetric, slow
                                 Exchange(c, 1.1, 1e-6, 1e-6),   // symmetric, fast
                                 Exchange(c, 1.2, 30e-6, 2e-6)};
  OffsetPoint p = BestOffset(round);
  EXPECT_NEAR(p.rtt, 2e-6, 1e-12);
  EXPECT_NEAR(p.offset, 0.050, 1e-9);  // symmetric delays: exact
}

TEST(ClockModel, AsymmetricDelayErrorIsBoundedByHalfRoundTrip) {
  SyntheticClock c{-0.3, 0};
  OffsetPoint p = BestOffset({Exchange(c, 2.0, 9e-6, 1e-6)});
  EXPECT_LE(std::abs(p.offset - (-0.3)), p.rtt / 2 + 1e-12);
  EXPECT_GT(std::abs(p.offset - (-0.3)), 1e-6);  // it is not exact
}

TEST(ClockModel, FitRecoversOffsetAndDrift) {
  // 50 ms offset, 100 ppm drift, noisy asymmetric exchanges: keep the best
  // of 100 per round, 20 rounds over 2 s, as the harness does.
  SyntheticClock c{0.050, 100e-6};
  std::mt19937 rng(42);
  std::exponential_distribution<double> jitter(1.0 / 3e-6);
  std::vector<OffsetPoint> points;
  for (int r = 0; r < 20; ++r) {
    std::vector<PingPong> round;
    for (int i = 0; i < 100; ++i) {
      double t = 10.0 + r * 0.1 + i * 1e-5;
      round.push_back(Exchange(c, t, 0.5e-6 + jitter(rng), 0.5e-6 + jitter(rng)));
    }
    points.push_back(BestOffset(round));
  }
  ClockFit fit = FitClock(points);
  EXPECT_EQ(fit.points, 20);
  EXPECT_NEAR(fit.model.drift(), 100e-6 / (1 + 100e-6), 1e-6);
  // Global time of a local reading 10 s after the last point must be the
  // true time within 1 us (extrapolation).
  double t = 22.0;
  EXPECT_NEAR(fit.model.ToGlobal(c.Local(t)), t, 1e-6);
  EXPECT_LT(fit.residual_rms, 2e-6);
  EXPECT_GT(fit.span, 1.8);
}

TEST(ClockModel, SlowRoundDoesNotPullTheFit) {
  // 20 rounds whose best exchange took 1 us, and one where every exchange
  // waited for the scheduler: 250 us round trip, 100 us of asymmetry. With
  // equal weights the line would move by ~100 us / 21 ~ 5 us.
  SyntheticClock c{0.050, 100e-6};
  std::vector<OffsetPoint> pts;
  pts.reserve(21);
  for (int r = 0; r < 20; ++r) pts.push_back(BestOffset({Exchange(c, 1.0 + 0.01 * r, 0.5e-6, 0.5e-6)}));
  pts.push_back(BestOffset({Exchange(c, 1.1, 225e-6, 25e-6)}));
  ASSERT_NEAR(pts.back().offset - 0.050 - 100e-6 * 1.1, -100e-6, 0.1e-6);  // the slow point is 100 us off
  const ClockFit fit = FitClock(pts);
  for (double t : {1.0, 1.1, 1.2, 11.2}) EXPECT_NEAR(fit.model.ToGlobal(c.Local(t)), t, 0.05e-6) << "t=" << t;
  EXPECT_NEAR(fit.min_rtt, 1e-6, 1e-9);
}

TEST(ClockModel, InterpolationBetweenStartAndEndCalibrations) {
  SyntheticClock c{-1.25, -40e-6};
  std::vector<OffsetPoint> pts;
  for (double t : {1.0, 1.01, 1.02, 31.0, 31.01, 31.02})
    pts.push_back(BestOffset({Exchange(c, t, 1e-6, 1e-6)}));
  ClockFit fit = FitClock(pts);
  for (double t : {1.0, 7.5, 16.0, 30.9}) EXPECT_NEAR(fit.model.ToGlobal(c.Local(t)), t, 1e-9) << "t=" << t;
}

TEST(ClockModel, OnePointIsOffsetOnlyAndNoPointsIsIdentity) {
  ClockFit one = FitClock({OffsetPoint{5.0, 0.25, 1e-6}});
  EXPECT_EQ(one.model.drift(), 0.0);
  EXPECT_DOUBLE_EQ(one.model.ToGlobal(100.0), 99.75);
  ClockFit none = FitClock({});
  EXPECT_EQ(none.points, 0);
  EXPECT_DOUBLE_EQ(none.model.ToGlobal(3.0), 3.0);
}

TEST(ClockModel, OffsetOnlyModelDriftsAwayWhileFittedModelDoesNot) {
  // The reason drift is modelled: 100 ppm over 10 s is 1 ms of error.
  SyntheticClock c{0.0, 100e-6};
  std::vector<OffsetPoint> pts;
  for (double t : {0.0, 1.0, 2.0}) pts.push_back(BestOffset({Exchange(c, t, 1e-6, 1e-6)}));
  ClockModel offset_only(pts[0].offset, 0.0, pts[0].local);
  ClockModel fitted = FitClock(pts).model;
  double t = 12.0;
  EXPECT_GT(std::abs(offset_only.ToGlobal(c.Local(t)) - t), 1e-3);
  EXPECT_LT(std::abs(fitted.ToGlobal(c.Local(t)) - t), 1e-9);
}

// Ranks of one host read one clock: their offset is constant, and a drift
// fitted over one calibration's few milliseconds is its noise extrapolated
// over the run. drift_free fits the offset alone.
TEST(ClockModel, DriftFreeFitKeepsTheOffsetAndExtrapolatesNoNoise) {
  SyntheticClock c{2e-6, 0.0};
  std::vector<OffsetPoint> pts;
  pts.reserve(10);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> delay(0.2e-6, 1.5e-6);  // asymmetric: offset errors < rtt / 2
  for (int i = 0; i < 10; ++i)
    pts.push_back(BestOffset({Exchange(c, 1.0 + 5e-4 * i, delay(rng), delay(rng))}));
  const ClockFit line = FitClock(pts);
  const ClockFit flat = FitClock(pts, true);
  EXPECT_EQ(flat.model.drift(), 0.0);
  EXPECT_NEAR(flat.model.OffsetAt(c.Local(1.0)), 2e-6, 1e-6);
  // 60 s later: the drift-free model is still within the offset's error,
  // the line over 5 ms is not.
  const double t = 61.0;
  EXPECT_LT(std::abs(flat.model.ToGlobal(c.Local(t)) - t), 1e-6);
  EXPECT_GT(std::abs(line.model.ToGlobal(c.Local(t)) - t), 1e-5);
}

}  // namespace
}  // namespace nbcguard
