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

// Fixture of the sequential verdict: one destination with OL 27.8 us at
// 256 KiB, 10 % allowance; the synchronized clock's samples decide.
class BcastTrialTest : public ::testing::Test {
 protected:
  BcastTrialTest() {
    m_.relative = 0.1;
    ack_ = {AckLatency(1, std::vector<double>(30, 28e-6), std::vector<double>(30, 0.4e-6))};
  }
  BcastComparison Job(const std::vector<double>& sync) const {
    return CompareBcast(256 << 10, ack_, sync, m_);
  }
  BcastComparison Job(double sync) const { return Job(std::vector<double>(30, sync)); }
  // A job whose synchronized samples the sentinel found disturbed: 70 of
  // 100 tries redone for 100 kept.
  BcastComparison Disturbed(double sync) const {
    BcastComparison c = Job(sync);
    c.sentinel.wanted = 100;
    c.sentinel.kept = 100;
    c.sentinel.redone_foreign_wait = 70;
    c.sentinel.redone_slow_probe = 50;
    return c;
  }
  BcastComparison WithinNoise() const {
    std::vector<double> wide(30, 33e-6);
    for (int i = 0; i < 14; ++i) wide[i] = 28e-6;
    return Job(wide);
  }
  AgreementModel m_;
  std::vector<AckDestination> ack_;
};

TEST_F(BcastTrialTest, ALaterJobConfirmsOnlyBeyondNoiseOnTheSameSideOnAnUndisturbedMachine) {
  // First job: the synchronized clock reads 34 us against OL 27.8 us, beyond noise.
  const BcastComparison first = Job(34e-6);
  ASSERT_TRUE(first.disagree());
  ASSERT_LT(first.difference, 0);
  ASSERT_FALSE(nbcguard::Disturbed(first));
  EXPECT_EQ(JudgeLaterJob(first, Job(29e-6)), LaterJob::kAgrees);
  EXPECT_EQ(JudgeLaterJob(first, Job(40e-6)), LaterJob::kConfirms);
  // Within noise: neither confirms nor refutes.
  const BcastComparison noisy = WithinNoise();
  ASSERT_TRUE(noisy.within_noise);
  EXPECT_EQ(JudgeLaterJob(first, noisy), LaterJob::kUndecided);
  EXPECT_STREQ(Why(LaterJob::kUndecided, noisy), "within noise");
  // Past it on the other side (the acknowledgement now the longer): the
  // difference is not stable, which is no agreement either.
  EXPECT_EQ(JudgeLaterJob(first, Job(20e-6)), LaterJob::kUndecided);
  // Beyond noise, but taken while the sentinel refused most tries.
  const BcastComparison busy = Disturbed(40e-6);
  ASSERT_TRUE(busy.disagree());
  EXPECT_TRUE(nbcguard::Disturbed(busy));
  EXPECT_EQ(JudgeLaterJob(first, busy), LaterJob::kUndecided);
  // An agreement counts even on a disturbed machine.
  EXPECT_EQ(JudgeLaterJob(first, Disturbed(29e-6)), LaterJob::kAgrees);
  // No comparison in the later job (no synchronized sample): it stands.
  EXPECT_EQ(JudgeLaterJob(first, Job(std::vector<double>{})), LaterJob::kConfirms);
}

TEST_F(BcastTrialTest, TwoUndisturbedSightingsConfirmOneAgreementRefutesElseItStaysOpen) {
  {
    DisagreementTrial t(Job(34e-6));
    EXPECT_EQ(t.Add(Job(40e-6)), SizeVerdict::kConfirmed);
  }
  {
    DisagreementTrial t(Job(34e-6));
    EXPECT_EQ(t.Add(WithinNoise()), SizeVerdict::kOpen);
    EXPECT_EQ(t.Add(Job(29e-6)), SizeVerdict::kNotConfirmed);
    EXPECT_EQ(t.Add(Job(40e-6)), SizeVerdict::kNotConfirmed);  // decided stays decided
  }
  {
    // Undecided in every later job: still open (the caller's maximum makes it INCONCLUSIVE).
    DisagreementTrial t(Job(34e-6));
    EXPECT_EQ(t.Add(WithinNoise()), SizeVerdict::kOpen);
    EXPECT_EQ(t.Add(Disturbed(40e-6)), SizeVerdict::kOpen);
    EXPECT_EQ(t.Add(Job(20e-6)), SizeVerdict::kOpen);
  }
  {
    // A disturbed first job is no sighting: two later ones are needed.
    DisagreementTrial t(Disturbed(34e-6));
    EXPECT_EQ(t.Add(Job(40e-6)), SizeVerdict::kOpen);
    EXPECT_EQ(t.Add(Job(38e-6)), SizeVerdict::kConfirmed);
  }
}

}  // namespace
}  // namespace nbcguard
