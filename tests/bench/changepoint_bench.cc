// Prints how often the history check (nbcguard/changepoint.h, default
// options) reports something in series that hold no change: 1000 series of
// 20 nights of Gaussian noise per noise level, the level given as a
// fraction of min_effect; then how many nights after a step it takes to
// report it. Figures for docs/history.md, not a test.
//   nbcguard-changepoint-bench
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "../unit/synthetic_noise.h"
#include "nbcguard/changepoint.h"

int main() {
  using nbcguard::AnalyzeSeries;
  const nbcguard::ChangePointOptions o;
  std::printf(
      "noise sd / min_effect | outlier nights | pending | drift | regressions | improvements  (1000 series "
      "of 20 nights each)\n");
  for (double frac : {0.33, 0.5, 0.67, 1.0}) {
    int outliers = 0, pending = 0, drift = 0, regressions = 0, improvements = 0;
    for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
      nbcguard::SyntheticNoise n{seed};
      std::vector<double> z(20);
      for (double& x : z) x = 0.5 + n.Normal(frac * o.min_effect);
      const auto a = AnalyzeSeries(z, o);
      for (const auto& s : a.shifts) (s.size > 0 ? regressions : improvements) += 1;
      outliers += static_cast<int>(a.outliers.size());
      pending += a.pending ? 1 : 0;
      drift += a.drift ? 1 : 0;
    }
    std::printf("%20.2f | %14d | %7d | %5d | %11d | %d\n", frac, outliers, pending, drift, regressions,
                improvements);
  }
  std::printf(
      "\nstep of k x min_effect after 12 nights (noise sd min_effect / 3): nights until reported as a "
      "regression, median of 200 series (pending before)\n");
  for (double k : {1.5, 3.0, 6.0}) {
    std::vector<int> needed;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
      nbcguard::SyntheticNoise n{seed};
      std::vector<double> z(12);
      for (double& x : z) x = 0.2 + n.Normal(o.min_effect / 3);
      int after = 0;
      for (after = 1; after <= 10; ++after) {
        z.push_back(0.2 + k * o.min_effect + n.Normal(o.min_effect / 3));
        const auto a = AnalyzeSeries(z, o);
        bool found = false;
        for (const auto& s : a.shifts) found = found || (s.size > 0 && s.at == 12);
        if (found) break;
      }
      needed.push_back(after);
    }
    std::vector<int> sorted = needed;
    std::sort(sorted.begin(), sorted.end());
    int missed = 0;
    for (int v : needed) missed += v > 10 ? 1 : 0;
    std::printf("  %.1f x min_effect: median %d night(s), 90th percentile %d, not within 10 nights: %d\n", k,
                sorted[sorted.size() / 2], sorted[sorted.size() * 9 / 10], missed);
  }
  return 0;
}
