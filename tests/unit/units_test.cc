#include "nbcguard/units.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "nbcguard/deployment.h"
#include "nbcguard/spec_error.h"

namespace nbcguard {
namespace {

double Parse(const std::string& text) {
  std::string error = "untouched";
  std::optional<double> s = ParseDuration(text, &error);
  EXPECT_TRUE(s.has_value()) << text << ": " << error;
  return s.value_or(std::nan(""));
}

TEST(UnitsParseDuration, AcceptsEveryUnit) {
  EXPECT_DOUBLE_EQ(Parse("500ns"), 500e-9);
  EXPECT_DOUBLE_EQ(Parse("500us"), 500e-6);
  EXPECT_DOUBLE_EQ(Parse("4ms"), 4e-3);
  EXPECT_DOUBLE_EQ(Parse("2s"), 2.0);
}

TEST(UnitsParseDuration, AcceptsDecimalsExponentsAndOneSpace) {
  EXPECT_DOUBLE_EQ(Parse("1.5ms"), 1.5e-3);
  EXPECT_DOUBLE_EQ(Parse(".5s"), 0.5);
  EXPECT_DOUBLE_EQ(Parse("1e3us"), 1e-3);
  EXPECT_DOUBLE_EQ(Parse("2.5E-1s"), 0.25);
  EXPECT_DOUBLE_EQ(Parse("+3ms"), 3e-3);
  EXPECT_DOUBLE_EQ(Parse("10 ms"), 10e-3);
}

TEST(UnitsParseDuration, RejectsWithAMessageThatSaysWhatIsAllowed) {
  for (const char* bad : {"5", "5min", "ms", "-1ms", "0s", "0.0ms", "1e-400s", "1e400s", "nan s", "infs",
                          "1.5.2ms", "5  ms", "5 m s", "", "1ms2", "0x10ms", "1es", "5MS"}) {
    std::string error;
    EXPECT_FALSE(ParseDuration(bad, &error).has_value()) << bad;
    EXPECT_EQ(error, std::string("expected a positive duration with a unit (ns, us, ms, s), e.g. "
                                 "500us, 4ms, 1s; got \"") +
                         bad + "\"");
  }
}

TEST(UnitsParseDuration, NullErrorPointerIsAllowed) {
  EXPECT_FALSE(ParseDuration("5min", nullptr).has_value());
  EXPECT_TRUE(ParseDuration("5ms", nullptr).has_value());
}

TEST(UnitsParseBytes, BinaryAndDecimalUnits) {
  EXPECT_EQ(ParseBytes("4096B", nullptr), 4096u);
  EXPECT_EQ(ParseBytes("64KiB", nullptr), 65536u);
  EXPECT_EQ(ParseBytes("1MiB", nullptr), 1048576u);
  EXPECT_EQ(ParseBytes("2GiB", nullptr), 2147483648u);
  EXPECT_EQ(ParseBytes("1.5KiB", nullptr), 1536u);
  EXPECT_EQ(ParseBytes("8 kB", nullptr), 8000u);
  EXPECT_EQ(ParseBytes("3MB", nullptr), 3000000u);
  EXPECT_EQ(ParseBytes("1GB", nullptr), 1000000000u);
}

TEST(UnitsParseBytes, RejectsWithAMessageThatSaysWhatIsAllowed) {
  for (const char* bad :
       {"64", "64k", "64kib", "0B", "-1KiB", "0.5B", "1.1B", "KiB", "", "1e30GiB", "nanB"}) {
    std::string error;
    EXPECT_FALSE(ParseBytes(bad, &error).has_value()) << bad;
    EXPECT_EQ(error,
              std::string("expected a positive whole number of bytes with a unit (B, KiB, MiB, GiB, kB, "
                          "MB, GB), e.g. 64KiB; got \"") +
                  bad + "\"");
  }
}

TEST(UnitsFormatBytes, LargestBinaryUnitThatDividesExactly) {
  EXPECT_EQ(FormatBytes(4), "4B");
  EXPECT_EQ(FormatBytes(1000), "1000B");
  EXPECT_EQ(FormatBytes(65536), "64KiB");
  EXPECT_EQ(FormatBytes(1536), "1536B");
  EXPECT_EQ(FormatBytes(4u << 20), "4MiB");
  EXPECT_EQ(FormatBytes(3ull << 30), "3GiB");
  EXPECT_EQ(FormatBytes(1ull << 40), "1024GiB");
}

TEST(UnitsFormatDuration, PicksTheLargestUnitAboveOne) {
  EXPECT_EQ(FormatDuration(1e-3), "1ms");
  EXPECT_EQ(FormatDuration(5e-4), "500us");
  EXPECT_EQ(FormatDuration(1.5), "1.5s");
  EXPECT_EQ(FormatDuration(0.000125), "125us");
  EXPECT_EQ(FormatDuration(2.5e-3), "2.5ms");
  EXPECT_EQ(FormatDuration(250e-9), "250ns");
  EXPECT_EQ(FormatDuration(64e-3), "64ms");
}

TEST(UnitsFormatDuration, RoundsToThreeSignificantDigits) {
  EXPECT_EQ(FormatDuration(1.23456e-3), "1.23ms");
  EXPECT_EQ(FormatDuration(0.99999e-3), "1ms");  // not "1e+03us"
  EXPECT_EQ(FormatDuration(3600), "3600s");
  EXPECT_EQ(FormatDuration(12345), "12300s");
}

TEST(UnitsFormatDuration, EdgeValues) {
  EXPECT_EQ(FormatDuration(0), "0s");
  EXPECT_EQ(FormatDuration(-2e-3), "-2ms");
  EXPECT_EQ(FormatDuration(std::nan("")), "nan");
  EXPECT_EQ(FormatDuration(1e-12), "0.001ns");
}

TEST(UnitsFormatDuration, RoundTripsThroughParse) {
  for (double s : {1e-6, 3e-5, 4e-3, 0.25, 7.0}) {
    EXPECT_DOUBLE_EQ(Parse(FormatDuration(s)), s) << FormatDuration(s);
  }
}

TEST(UnitsGeometricRange, IncludesTheEndDespiteRounding) {
  std::vector<double> r = GeometricRange(1e-3, 64e-3, 4);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_DOUBLE_EQ(r[0], 1e-3);
  EXPECT_DOUBLE_EQ(r[1], 4e-3);
  EXPECT_DOUBLE_EQ(r[2], 16e-3);
  EXPECT_DOUBLE_EQ(r[3], 64e-3);
  // 0.1ms * 10^k has rounding error; 1ms still belongs to the range.
  std::vector<double> tens = GeometricRange(100e-6, 1e-3, 10);
  ASSERT_EQ(tens.size(), 2u);
  EXPECT_DOUBLE_EQ(tens[1], 1e-3);
}

TEST(UnitsGeometricRange, StopsBeforeTo) {
  std::vector<double> r = GeometricRange(1e-3, 60e-3, 4);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_DOUBLE_EQ(r.back(), 16e-3);
  EXPECT_EQ(GeometricRange(2, 2, 3), std::vector<double>{2});
}

TEST(UnitsGeometricRange, InvalidArgumentsGiveNothing) {
  EXPECT_TRUE(GeometricRange(0, 1, 2).empty());
  EXPECT_TRUE(GeometricRange(-1, 1, 2).empty());
  EXPECT_TRUE(GeometricRange(2, 1, 2).empty());
  EXPECT_TRUE(GeometricRange(1, 2, 1).empty());
  EXPECT_TRUE(GeometricRange(1, 2, 0.5).empty());
  EXPECT_TRUE(GeometricRange(1, std::numeric_limits<double>::infinity(), 2).empty());
  EXPECT_TRUE(GeometricRange(std::nan(""), 2, 2).empty());
}

TEST(UnitsGeometricRange, SizeMatchesTheRangeWithoutBuildingIt) {
  EXPECT_EQ(GeometricRangeSize(1e-3, 64e-3, 4), 4u);
  EXPECT_EQ(GeometricRangeSize(1e-3, 64e-3, 2), 7u);
  EXPECT_EQ(GeometricRangeSize(1e-3, 1e-3, 2), 1u);
  EXPECT_EQ(GeometricRangeSize(1, 2, 1), 0u);
  EXPECT_GT(GeometricRangeSize(1e-9, 1e3, 1.0001), 100000u);
  EXPECT_EQ(GeometricRangeSize(1e-300, 1e300, 1e300), 3u);  // 1e-300, 1, 1e300: 1e300^2 overflows on the way
  EXPECT_EQ(GeometricRangeSize(1.7e308, 1.7e308, 2), 1u);
  for (double factor : {1.5, 2.0, 3.0, 10.0}) {
    EXPECT_EQ(GeometricRangeSize(1e-6, 1.0, factor), GeometricRange(1e-6, 1.0, factor).size());
  }
}

TEST(UnitsGeometricRange, HugeRangesAreSizedAtOnceAndExactly) {
  // factor^k beyond a double on the way: the size comes from logarithms.
  EXPECT_EQ(GeometricRangeSize(1e-200, 1e200, 4), 665u);  // 4^664 <= 1e400 < 4^665
  EXPECT_EQ(GeometricRangeSize(1e-200, 1e200, 1e10), 41u);
  // About 9.2e11 steps: answered without counting them.
  const std::size_t n = GeometricRangeSize(1e-200, 1e200, 1.000000001);
  EXPECT_GT(n, 921000000000u);
  EXPECT_LT(n, 921100000000u);
  const std::vector<double> r = GeometricRange(1e-200, 1e200, 1e10);
  ASSERT_EQ(r.size(), 41u);
  EXPECT_TRUE(std::isfinite(r.back()));
  EXPECT_NEAR(r.back() / 1e200, 1.0, 1e-9);
  const std::vector<double> wide = GeometricRange(1e-300, 1e300, 1e300);
  ASSERT_EQ(wide.size(), 3u);
  EXPECT_NEAR(wide[1], 1.0, 1e-9);
  EXPECT_NEAR(wide[2] / 1e300, 1.0, 1e-9);
}

TEST(UnitsDeployment, NamesRoundTrip) {
  EXPECT_EQ(DeploymentNames(), (std::vector<std::string>{"basic", "progress", "dedicated", "poll",
                                                         "thread-bind", "thread-numa", "thread-odd-even"}));
  for (const auto& name : DeploymentNames()) {
    std::optional<Deployment> d = ParseDeployment(name);
    ASSERT_TRUE(d.has_value()) << name;
    EXPECT_EQ(ToString(*d), name);
  }
  EXPECT_FALSE(ParseDeployment("Basic").has_value());
  EXPECT_FALSE(ParseDeployment("").has_value());
}

TEST(UnitsDeployment, CollectiveNamesAreTheHarnessRegistry) {
  const std::vector<std::string> names = {
      // equal blocks
      "ibcast", "ireduce", "iallreduce", "iallgather", "ialltoall", "igather", "iscatter",
      "ireduce_scatter_block", "iscan", "iexscan", "ibarrier",
      // per-block counts
      "igatherv", "iscatterv", "iallgatherv", "ialltoallv", "ialltoallw", "ireduce_scatter",
      // neighbourhood
      "ineighbor_allgather", "ineighbor_allgatherv", "ineighbor_alltoall", "ineighbor_alltoallv",
      "ineighbor_alltoallw"};
  EXPECT_EQ(CollectiveNames(), names);
}

TEST(UnitsSpecError, ToStringOmitsUnknownLine) {
  EXPECT_EQ((SpecError{{"a.yaml", 3, 7}, "bad"}.ToString()), "a.yaml:3:7: bad");
  EXPECT_EQ((SpecError{{"a.yaml", 0, 0}, "cannot open"}.ToString()), "a.yaml: cannot open");
  EXPECT_EQ((SpecError{{"a.yaml", 3, 0}, "bad"}.ToString()), "a.yaml:3: bad");
}

TEST(UnitsSpecError, ParsedJoinsErrorsByLine) {
  Parsed<int> p;
  p.errors.push_back({{"f", 1, 2}, "one"});
  p.errors.push_back({{"f", 0, 0}, "two"});
  EXPECT_EQ(p.ErrorText(), "f:1:2: one\nf: two");
  EXPECT_FALSE(p.ok());
}

TEST(FormatBandwidth, DecimalUnitsThreeDigits) {
  EXPECT_EQ(FormatBandwidth(5.94e9), "5.94GB/s");
  EXPECT_EQ(FormatBandwidth(151.2e6), "151MB/s");
  EXPECT_EQ(FormatBandwidth(999.96e6), "1.00GB/s");
  EXPECT_EQ(FormatBandwidth(12e3), "12.0kB/s");
  EXPECT_EQ(FormatBandwidth(800), "800B/s");
  EXPECT_EQ(FormatBandwidth(0), "0.00B/s");
  EXPECT_EQ(FormatBandwidth(-1), "-");
  EXPECT_EQ(FormatBandwidth(std::numeric_limits<double>::quiet_NaN()), "-");
}

TEST(FormatDecimalBytes, DecimalUnitsThreeDigits) {
  EXPECT_EQ(FormatDecimalBytes(1.61e6), "1.61MB");
  EXPECT_EQ(FormatDecimalBytes(470312), "470kB");
  EXPECT_EQ(FormatDecimalBytes(999.96e6), "1.00GB");
  EXPECT_EQ(FormatDecimalBytes(800), "800B");
  EXPECT_EQ(FormatDecimalBytes(-1), "-");
}

}  // namespace
}  // namespace nbcguard
