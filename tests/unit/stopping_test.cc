// The stopping rule on the interval of the median (stopping.h).
#include "nbcguard/stopping.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace nbcguard {
namespace {

// `rounds` rounds of three kinds: kind k's sample is base[k] x (1 + noise[k] x u), u uniform in [-1, 1].
std::vector<double> Rounds(int rounds, const std::vector<double>& noise, unsigned seed = 1) {
  const std::vector<double> base = {1e-3, 2e-3, 2.5e-3};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> out;
  for (int r = 0; r < rounds; ++r)
    for (std::size_t k = 0; k < base.size(); ++k) out.push_back(base[k] * (1 + noise[k] * u(rng)));
  return out;
}

TEST(StoppingRule, WithoutPrecisionEveryPointTakesTheMaximum) {
  const StoppingRule fixed{15, 15, 0};
  EXPECT_FALSE(EnoughSamples(Rounds(14, {0, 0, 0}), 3, fixed));
  EXPECT_TRUE(EnoughSamples(Rounds(15, {0, 0, 0}), 3, fixed));
}

TEST(StoppingRule, AQuietPointStopsAtTheMinimum) {
  const StoppingRule rule{9, 31, 0.05};
  EXPECT_FALSE(EnoughSamples(Rounds(8, {0.01, 0.01, 0.01}), 3, rule));  // below the minimum
  EXPECT_TRUE(EnoughSamples(Rounds(9, {0.01, 0.01, 0.01}), 3, rule));
}

// One noisy kind keeps the point going; at the maximum it stops all the same.
TEST(StoppingRule, ANoisyKindTakesMoreSamplesUpToTheMaximum) {
  const StoppingRule rule{9, 31, 0.05};
  for (int rounds = 9; rounds < 31; ++rounds)
    EXPECT_FALSE(EnoughSamples(Rounds(rounds, {0.01, 0.6, 0.01}), 3, rule)) << rounds << " rounds";
  EXPECT_TRUE(EnoughSamples(Rounds(31, {0.01, 0.6, 0.01}), 3, rule));
}

// Between the two: more samples narrow the interval until it is within the precision.
TEST(StoppingRule, AModeratelyNoisyPointStopsBetween) {
  const StoppingRule rule{9, 301, 0.05};
  int stopped = 0;
  for (int rounds = 9; rounds <= 301 && stopped == 0; ++rounds)
    if (EnoughSamples(Rounds(rounds, {0.01, 0.3, 0.01}, 3), 3, rule)) stopped = rounds;
  EXPECT_GT(stopped, 9);
  EXPECT_LT(stopped, 301);
}

// Below 6 samples no interval of the median covers 95 %: a point does not
// stop there on a narrow spread, whatever min says.
TEST(StoppingRule, NeverOnFewerSamplesThanA95PercentIntervalNeeds) {
  const StoppingRule rule{3, 31, 0.5};
  EXPECT_FALSE(EnoughSamples(Rounds(5, {0.01, 0.01, 0.01}), 3, rule));
  EXPECT_TRUE(EnoughSamples(Rounds(6, {0.01, 0.01, 0.01}), 3, rule));
}

// Only after a whole round, and never on a median of 0 or less.
TEST(StoppingRule, OnlyWholeRoundsAndPositiveMedians) {
  const StoppingRule rule{3, 31, 0.05};
  std::vector<double> samples = Rounds(6, {0, 0, 0});
  EXPECT_TRUE(EnoughSamples(samples, 3, rule));
  samples.push_back(1e-3);
  EXPECT_FALSE(EnoughSamples(samples, 3, rule));
  EXPECT_FALSE(EnoughSamples(std::vector<double>(15, 0.0), 3, rule));
  EXPECT_FALSE(EnoughSamples(samples, 0, rule));
}

}  // namespace
}  // namespace nbcguard
