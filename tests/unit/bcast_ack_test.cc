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

TEST(BcastAckTest, MissingDataNeverAgrees) {
  AgreementModel m;
  EXPECT_FALSE(CompareBcast(8, {}, {10e-6}, m).agree);                       // no destination
  EXPECT_FALSE(CompareBcast(8, {AckLatency(1, {10e-6}, {1e-6})}, {}, m).agree);  // no synchronized sample
  EXPECT_EQ(CompareBcast(8, {}, {10e-6}, m).ol_rank, -1);
}

}  // namespace
}  // namespace nbcguard
