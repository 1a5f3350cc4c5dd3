#include "nbcguard/collective_speed.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace nbcguard {
namespace {

TEST(BandwidthPerSample, BytesPerRankOverEachSamplesTime) {
  const std::vector<double> bw = BandwidthPerSample(1.61e6, {0.5e-3, 1e-3, 2e-3});
  ASSERT_EQ(bw.size(), 3u);
  EXPECT_DOUBLE_EQ(bw[0], 3.22e9);
  EXPECT_DOUBLE_EQ(bw[1], 1.61e9);
  EXPECT_DOUBLE_EQ(bw[2], 0.805e9);
}

TEST(BandwidthPerSample, ATimeThatIsNoTimeIsALostSample) {
  const std::vector<double> bw = BandwidthPerSample(100, {0.0, -1.0, NAN, 2.0});
  ASSERT_EQ(bw.size(), 4u);
  EXPECT_TRUE(std::isnan(bw[0]) && std::isnan(bw[1]) && std::isnan(bw[2]));
  EXPECT_DOUBLE_EQ(bw[3], 50);
}

TEST(BandwidthPerSample, NoBytesNoBandwidth) {
  EXPECT_TRUE(BandwidthPerSample(0, {1.0, 2.0}).empty());  // ibarrier
  EXPECT_TRUE(BandwidthPerSample(NAN, {1.0, 2.0}).empty());
}

TEST(SpeedOf, MediansAndIntervalsOfTimeAndBandwidthPerSample) {
  // Times 1..9 s for 90 bytes: bandwidths 90, 45, 30, ..., 10 B/s. The
  // median bandwidth is that of the median time (5 s: 18 B/s), and the
  // interval's ends are those of the times, swapped: 9 samples give the
  // 2nd and 8th order statistics at 95 % (stats.h).
  const std::vector<double> times = {5, 1, 9, 2, 8, 3, 7, 4, 6};
  const CollectiveSpeed s = SpeedOf(90, times);
  EXPECT_EQ(s.bytes_per_rank, 90);
  EXPECT_EQ(s.time.n, 9);
  EXPECT_DOUBLE_EQ(s.time.median, 5);
  EXPECT_DOUBLE_EQ(s.time.lo, 2);
  EXPECT_DOUBLE_EQ(s.time.hi, 8);
  EXPECT_EQ(s.bandwidth.n, 9);
  EXPECT_DOUBLE_EQ(s.bandwidth.median, 18);
  EXPECT_DOUBLE_EQ(s.bandwidth.lo, 90.0 / 8);
  EXPECT_DOUBLE_EQ(s.bandwidth.hi, 45);
  EXPECT_TRUE(s.Measured());
}

TEST(SpeedOf, ACollectiveWithoutDataHasATimeOnly) {
  const CollectiveSpeed s = SpeedOf(0, {1e-3, 2e-3, 3e-3});
  EXPECT_EQ(s.bytes_per_rank, 0);
  EXPECT_DOUBLE_EQ(s.time.median, 2e-3);
  EXPECT_EQ(s.bandwidth.n, 0);
  EXPECT_TRUE(std::isnan(s.bandwidth.median));
  EXPECT_FALSE(SpeedOf(64, {}).Measured());
}

}  // namespace
}  // namespace nbcguard
