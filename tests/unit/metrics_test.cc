#include "nbcguard/metrics.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "nbcguard/stats.h"

namespace nbcguard {
namespace {

TEST(MetricsTest, NamesRoundTrip) {
  for (Metric m : {Metric::kOverhead, Metric::kComm, Metric::kCompSlowdown, Metric::kMpiImpact,
                   Metric::kCpuBusyNbc, Metric::kCpuBusyBlocking}) {
    auto parsed = ParseMetric(MetricName(m));
    ASSERT_TRUE(parsed.has_value()) << MetricName(m);
    EXPECT_EQ(*parsed, m);
  }
  EXPECT_STREQ(MetricName(Metric::kOverhead), "r_overhead");
  EXPECT_STREQ(MetricName(Metric::kComm), "r_comm");
  EXPECT_STREQ(MetricName(Metric::kCompSlowdown), "r_comp_slowdown");
  EXPECT_STREQ(MetricName(Metric::kMpiImpact), "r_mpi_impact");
  EXPECT_STREQ(MetricName(Metric::kCpuBusyNbc), "cpu_busy_nbc");
  EXPECT_STREQ(MetricName(Metric::kCpuBusyBlocking), "cpu_busy_blocking");
  EXPECT_STREQ(MetricName(Metric::kPartitioned), "r_partitioned");
  EXPECT_EQ(AllMetrics().size(), 7u);
}

TEST(MetricsTest, ParseRejectsUnknownNames) {
  EXPECT_FALSE(ParseMetric("").has_value());
  EXPECT_FALSE(ParseMetric("overhead").has_value());
  EXPECT_FALSE(ParseMetric("R_OVERHEAD").has_value());
  EXPECT_FALSE(ParseMetric("r_overhead ").has_value());
}

TEST(MetricsTest, OverheadPerfectOverlapIsZero) {
  // comm 4 ms, comp 1 ms, measured = max -> 0.
  EXPECT_DOUBLE_EQ(OverheadRatio(4e-3, 1e-3, 4e-3), 0.0);
  EXPECT_DOUBLE_EQ(OverheadRatio(4e-3, 4e-3, 1e-3), 0.0);
}

TEST(MetricsTest, OverheadSerializedIsOne) {
  EXPECT_DOUBLE_EQ(OverheadRatio(5e-3, 1e-3, 4e-3), 1.0);
  EXPECT_DOUBLE_EQ(OverheadRatio(5e-3, 4e-3, 1e-3), 1.0);
}

TEST(MetricsTest, OverheadOpenScale) {
  // Worse than serialized: 4 + 2*1 ms.
  EXPECT_DOUBLE_EQ(OverheadRatio(6e-3, 1e-3, 4e-3), 2.0);
  // Faster than the ideal (imprecision): negative.
  EXPECT_DOUBLE_EQ(OverheadRatio(3.5e-3, 1e-3, 4e-3), -0.5);
  // Equal references: partial overlap.
  EXPECT_DOUBLE_EQ(OverheadRatio(3e-3, 2e-3, 2e-3), 0.5);
}

TEST(MetricsTest, MpiImpactAndSlowdown) {
  EXPECT_DOUBLE_EQ(MpiImpactRatio(1.2, 1.0), 1.2);
  EXPECT_DOUBLE_EQ(MpiImpactRatio(1.0, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(CompSlowdownRatio(3.0, 2.0), 1.5);
  EXPECT_DOUBLE_EQ(CompSlowdownRatio(2.0, 2.0), 1.0);
}

TEST(MetricsTest, CommRatio) {
  EXPECT_DOUBLE_EQ(CommRatio(0.0, 0.0, 1e-3), 0.0);
  EXPECT_DOUBLE_EQ(CommRatio(1e-4, 9e-4, 1e-3), 1.0);
  EXPECT_DOUBLE_EQ(CommRatio(1e-4, 1.9e-3, 1e-3), 2.0);
}

TEST(MetricsTest, BadDenominatorsGiveNaN) {
  for (double bad : {0.0, -1.0, kInf, -kInf, kNaN}) {
    EXPECT_TRUE(std::isnan(OverheadRatio(1.0, bad, 1.0))) << bad;
    EXPECT_TRUE(std::isnan(OverheadRatio(1.0, 1.0, bad))) << bad;
    EXPECT_TRUE(std::isnan(MpiImpactRatio(1.0, bad))) << bad;
    EXPECT_TRUE(std::isnan(CompSlowdownRatio(1.0, bad))) << bad;
    EXPECT_TRUE(std::isnan(CommRatio(0.5, 0.5, bad))) << bad;
  }
}

TEST(MetricsTest, NonFiniteNumeratorsGiveNaNNotInf) {
  for (double bad : {kInf, -kInf, kNaN}) {
    EXPECT_TRUE(std::isnan(OverheadRatio(bad, 1.0, 1.0))) << bad;
    EXPECT_TRUE(std::isnan(MpiImpactRatio(bad, 1.0))) << bad;
    EXPECT_TRUE(std::isnan(CompSlowdownRatio(bad, 1.0))) << bad;
    EXPECT_TRUE(std::isnan(CommRatio(bad, 0.5, 1.0))) << bad;
    EXPECT_TRUE(std::isnan(CommRatio(0.5, bad, 1.0))) << bad;
  }
  // Overflow of a finite division must not produce inf either.
  EXPECT_TRUE(std::isnan(CompSlowdownRatio(1e300, 1e-300)));
}

// Peer figures on averaged times: perfect overlap reads 100 %, serialization
// 0 %; OSU cannot go below 0 % where r_overhead shows worse than serialized.
TEST(MetricsTest, OsuOverlapPercent) {
  EXPECT_DOUBLE_EQ(OsuOverlapPercent(1.0, 1.0, 1.0), 100.0);  // communication hidden
  EXPECT_DOUBLE_EQ(OsuOverlapPercent(2.0, 1.0, 1.0), 0.0);    // serialized
  EXPECT_DOUBLE_EQ(OsuOverlapPercent(1.5, 1.0, 1.0), 50.0);
  EXPECT_DOUBLE_EQ(OsuOverlapPercent(1.5, 1.0, 2.0), 75.0);  // t_pure divides
  EXPECT_DOUBLE_EQ(OsuOverlapPercent(3.0, 1.0, 1.0), 0.0);   // worse than serialized: floored
  EXPECT_TRUE(std::isnan(OsuOverlapPercent(1.0, 1.0, 0.0)));
  EXPECT_TRUE(std::isnan(OsuOverlapPercent(kNaN, 1.0, 1.0)));
}

// IMB-NBC divides by the larger of t_pure and t_CPU (IMB_display_times in
// src_c/IMB_output.c; its non-NBC branch, IMB-EXT, takes the smaller).
TEST(MetricsTest, ImbOverlapPercent) {
  EXPECT_DOUBLE_EQ(ImbOverlapPercent(1.0, 1.0, 1.0), 100.0);
  EXPECT_DOUBLE_EQ(ImbOverlapPercent(1.0, 1.0, 2.0), 0.0);
  // (1 + 2 - 2.5) / max(1, 2) = 25 %; min(1, 2) would give 50 %.
  EXPECT_DOUBLE_EQ(ImbOverlapPercent(1.0, 2.0, 2.5), 25.0);
  // (3 + 1 - 3.5) / max(3, 1) = 16.7 %; the smaller would give 50 %.
  EXPECT_DOUBLE_EQ(ImbOverlapPercent(3.0, 1.0, 3.5), 100.0 / 6);
  EXPECT_DOUBLE_EQ(ImbOverlapPercent(1.0, 1.0, 0.5), 100.0);  // capped
  EXPECT_DOUBLE_EQ(ImbOverlapPercent(1.0, 1.0, 4.0), 0.0);
  // No computation at all: IMB still divides by t_pure.
  EXPECT_DOUBLE_EQ(ImbOverlapPercent(1.0, 0.0, 1.0), 0.0);
  EXPECT_TRUE(std::isnan(ImbOverlapPercent(0.0, 0.0, 1.0)));
  EXPECT_TRUE(std::isnan(ImbOverlapPercent(1.0, -1.0, 1.0)));
  EXPECT_TRUE(std::isnan(ImbOverlapPercent(1.0, 1.0, kInf)));
}

}  // namespace
}  // namespace nbcguard
