// Prints how often the history check (nbcguard/changepoint.h, default
// options) reports something in series that hold no change: 1000 series of
// 20 nights of Gaussian noise per noise level, the level given as a
// fraction of min_effect; then how many nights after a step it takes to
// report it; then the same two questions on a machine with slow phases
// that can last more than one night. Figures for docs/history.md, not a
// test.
//   nbcguard-changepoint-bench
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <utility>
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

  // A machine with slow phases: each night a phase begins with probability
  // `enter` and, once in one, the next night is in it too with probability
  // `stay`; a night in a phase reads 2 x min_effect higher. What counts
  // against the check is a regression anywhere in a series of unchanged
  // code; what the excursion rule costs is the nights a real step of the
  // same size, and of 6 x min_effect, takes to be reported.
  const auto phased = [&](nbcguard::SyntheticNoise* n, bool* in_phase, double enter, double stay) {
    *in_phase = n->Uniform() < (*in_phase ? stay : enter);
    return 1.26 + n->Normal(o.min_effect / 5) + (*in_phase ? 2 * o.min_effect : 0);
  };
  std::printf(
      "\nslow phases of 2 x min_effect (noise sd min_effect / 5), 1000 series of 14 nights of unchanged code\n"
      "  enter | stay | series with a regression | pending at the end | nights a step needs: 2 x, 6 x "
      "min_effect (median, 90th percentile of 200)\n");
  for (const auto& [enter, stay] :
       std::vector<std::pair<double, double>>{{0.05, 0.5}, {0.1, 0.5}, {0.1, 0.8}}) {
    int with_regression = 0, pending = 0;
    for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
      nbcguard::SyntheticNoise n{seed};
      bool in = false;
      std::vector<double> z(14);
      for (double& x : z) x = phased(&n, &in, enter, stay);
      const auto a = AnalyzeSeries(z, o);
      with_regression +=
          std::any_of(a.shifts.begin(), a.shifts.end(), [](const auto& s) { return s.size > 0; });
      pending += a.pending && a.pending->size > 0 ? 1 : 0;
    }
    std::printf("  %5.2f | %4.1f | %24d | %18d |", enter, stay, with_regression, pending);
    for (double k : {2.0, 6.0}) {
      std::vector<int> needed;
      for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        nbcguard::SyntheticNoise n{seed + 5000};
        bool in = false;
        std::vector<double> z(12);
        for (double& x : z) x = phased(&n, &in, enter, stay);
        int after = 0;
        for (after = 1; after <= 10; ++after) {
          z.push_back(1.26 + k * o.min_effect + n.Normal(o.min_effect / 5));
          const auto a = AnalyzeSeries(z, o);
          if (std::any_of(a.shifts.begin(), a.shifts.end(),
                          [](const auto& s) { return s.size > 0 && s.at >= 12; }))
            break;
        }
        needed.push_back(after);
      }
      std::sort(needed.begin(), needed.end());
      std::printf(" %d, %d%s", needed[needed.size() / 2], needed[needed.size() * 9 / 10],
                  k == 2.0 ? ";" : "\n");
    }
  }
  return 0;
}
