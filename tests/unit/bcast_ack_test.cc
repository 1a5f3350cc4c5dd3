#include "nbcguard/bcast_ack.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace nbcguard {
namespace {

TEST(BcastAckTest, OperationLatencySubtractsHalfTheMedianRoundTrip) {
  // E_i and RTT_i are medians of the root's per-iteration times; an outlier
  // (a descheduled iteration) does not move them.
  AckDestination d = AckLatency(3, {10e-6, 11e-6, 12e-6, 500e-6, 11e-6}, {2e-6, 2e-6, 90e-6});
  EXPECT_EQ(d.rank, 3);
  EXPECT_DOUBLE_EQ(d.e.median, 11e-6);
  EXPECT_DOUBLE_EQ(d.rtt.median, 2e-6);
  EXPECT_DOUBLE_EQ(d.ol, 10e-6);
}

TEST(BcastAckTest, TheBroadcastTimeIsTheLargestDestinationLatency) {
  std::vector<AckDestination> dests = {AckLatency(1, {10e-6}, {2e-6}), AckLatency(2, {30e-6}, {4e-6}),
                                       AckLatency(3, {20e-6}, {2e-6})};
  AgreementModel m;
  BcastComparison c = CompareBcast(1024, dests, {28e-6, 27e-6, 29e-6}, m);
  EXPECT_EQ(c.ol_rank, 2);
  EXPECT_DOUBLE_EQ(c.ol, 28e-6);
  EXPECT_DOUBLE_EQ(c.global.median, 28e-6);
  EXPECT_NEAR(c.difference, 0.0, 1e-15);
  EXPECT_TRUE(c.agree);
  EXPECT_EQ(c.bytes, 1024u);
}

TEST(BcastAckTest, ToleranceAddsEveryKnownErrorToTheRelativeNoise) {
  AgreementModel m;
  m.relative = 0.1;
  m.rtt_max = 4e-6;
  m.clock_error = 0.5e-6;
  m.skew = 0.25e-6;
  // 10 % of 100 us + 4/2 + 2 x 0.5 + 0.25 us
  EXPECT_NEAR(m.Tolerance(100e-6), 13.25e-6, 1e-12);
}

TEST(BcastAckTest, RoundTripOfTheDestinationsSetsTheModelsAllowance) {
  // Largest median RTT 6 us -> 3 us allowance; 10 % of 100 us = 10 us.
  std::vector<AckDestination> dests = {AckLatency(1, {100e-6}, {6e-6}), AckLatency(2, {90e-6}, {2e-6})};
  AgreementModel m;  // rtt_max ignored on input
  m.rtt_max = 1.0;
  BcastComparison inside = CompareBcast(8, dests, {109.9e-6}, m);
  EXPECT_NEAR(inside.tolerance, 0.1 * 109.9e-6 + 3e-6, 1e-12);
  EXPECT_TRUE(inside.agree);
  // OL 97 us against 120 us: 23 us apart, tolerance 12 + 3 = 15 us.
  BcastComparison outside = CompareBcast(8, dests, {120e-6}, m);
  EXPECT_FALSE(outside.agree);
  EXPECT_NEAR(outside.difference, -23e-6, 1e-12);
}

TEST(BcastAckTest, ADifferenceWithinTheMediansNoiseIsNotADisagreement) {
  AgreementModel m;
  m.relative = 0.1;
  // Acknowledgement: E_i 84 us, tight (30 samples 83..85); RTT 0.4 us.
  std::vector<double> e, rtt(30, 0.4e-6);
  for (int i = 0; i < 30; ++i) e.push_back((83.0 + 2.0 * i / 29.0) * 1e-6);
  // Synchronized clock: bimodal 88 or 105 us, median 101 us, wide interval.
  std::vector<double> sync;
  sync.reserve(30);
  for (int i = 0; i < 12; ++i) sync.push_back(88e-6);
  for (int i = 0; i < 18; ++i) sync.push_back(105e-6);
  sync[12] = 101e-6;
  BcastComparison c = CompareBcast(1 << 20, {AckLatency(1, e, rtt)}, sync, m);
  EXPECT_FALSE(c.agree);        // medians 17 us apart, tolerance ~10.8 us
  EXPECT_TRUE(c.within_noise);  // but the sync interval reaches down to 88 us
  EXPECT_FALSE(c.disagree());
  EXPECT_LE(c.difference_lo, c.difference);
  EXPECT_GE(c.difference_hi, c.difference);
  // The same acknowledgement against a tight synchronized time 30 % off:
  // beyond noise.
  BcastComparison far = CompareBcast(1 << 20, {AckLatency(1, e, rtt)}, std::vector<double>(30, 120e-6), m);
  EXPECT_FALSE(far.agree);
  EXPECT_FALSE(far.within_noise);
  EXPECT_TRUE(far.disagree());
}

TEST(BcastAckTest, MissingDataNeverAgrees) {
  AgreementModel m;
  EXPECT_TRUE(CompareBcast(8, {}, {10e-6}, m).disagree());                           // no destination
  EXPECT_TRUE(CompareBcast(8, {AckLatency(1, {10e-6}, {1e-6})}, {}, m).disagree());  // no synchronized sample
  EXPECT_EQ(CompareBcast(8, {}, {10e-6}, m).ol_rank, -1);
}

TEST(BcastAckTest, ADisagreementStandsOnlyWhenASecondJobSeesItOnTheSameSide) {
  AgreementModel m;
  m.relative = 0.1;
  const std::vector<AckDestination> ack = {
      AckLatency(1, std::vector<double>(30, 28e-6), std::vector<double>(30, 0.4e-6))};
  // First job: the synchronized clock reads 34 us against OL 27.8 us, beyond noise.
  const BcastComparison first = CompareBcast(256 << 10, ack, std::vector<double>(30, 34e-6), m);
  ASSERT_TRUE(first.disagree());
  ASSERT_LT(first.difference, 0);
  // The second job agrees: not confirmed.
  EXPECT_FALSE(ConfirmsDisagreement(first, CompareBcast(256 << 10, ack, std::vector<double>(30, 29e-6), m)));
  // Past the tolerance on the same side, beyond noise or only within it: confirmed.
  EXPECT_TRUE(ConfirmsDisagreement(first, CompareBcast(256 << 10, ack, std::vector<double>(30, 40e-6), m)));
  std::vector<double> wide(30, 33e-6);
  for (int i = 0; i < 14; ++i) wide[i] = 28e-6;
  const BcastComparison noisy = CompareBcast(256 << 10, ack, wide, m);
  ASSERT_TRUE(noisy.within_noise);
  EXPECT_TRUE(ConfirmsDisagreement(first, noisy));
  // Past it on the other side (the acknowledgement now the longer): a
  // different finding, not this one confirmed.
  EXPECT_FALSE(ConfirmsDisagreement(first, CompareBcast(256 << 10, ack, std::vector<double>(30, 20e-6), m)));
  // No comparison in the second job (no synchronized sample): it stands.
  EXPECT_TRUE(ConfirmsDisagreement(first, CompareBcast(256 << 10, ack, {}, m)));
}

}  // namespace
}  // namespace nbcguard
