// Change points in a history of runs: one value per night (a ratio's median
// at one grid point of one test), judged against the spread between nights
// rather than the spread of one night's repetitions.
//
// Segmentation is E-divisive means (Matteson and James, "A Nonparametric
// Approach for Multiple Change Point Analysis of Multivariate Data", JASA
// 2014) with the simplification and the permutation test of Daly et al.,
// "Change Point Detection in Software Performance Testing", ICPE 2020: the
// split of a segment that maximizes the energy distance between its two
// sides (exponent 1), accepted when fewer than alpha of the segment's random
// permutations reach the same statistic, then each side searched again. It
// assumes nothing about the distribution, which matters for ratios that are
// skewed, clipped at 0 and sometimes bimodal.
//
// The series is read the way an MPI developer reads a trend line
// (docs/history.md):
//   - first, one night off the median of its five neighbours on each side
//     by more than their band (4 x 1.4826 MAD) and min_effect, while the
//     nights beside it are not off the same way, is an outlier: left out of
//     the segmentation, never a change;
//   - a shift with fewer than min_after nights behind it (the newest night
//     alone off included) is pending, not yet a regression: one disturbed
//     night must not fail a pipeline;
//   - a step at the very end that the permutation test cannot separate yet
//     (too few nights for any split to reach alpha) is a shift when its
//     newest nights all lie beyond every night of the old level, the same
//     way, with the one-sided p-value of that order (NewestRankP) at most
//     alpha; else pending. Nights known only from below (Floor) count on a
//     level above the old one when their bound is beyond its band and every
//     old night and they can be on that level;
//   - a newest level the old one had already reached (old nights, outliers
//     included, beyond its band that way and at least half-way to the new
//     level, each of which came back) needs one more night per such
//     excursion: a series whose disturbed phases have lasted a night or two
//     has shown that two high nights in a row are something it does;
//   - a shift smaller than min_effect, or whose new level is still inside
//     the old segment's between-night band (median +- 3 x 1.4826 MAD), is
//     not reported: it is the machine, not the library;
//   - values that alternate between two separated levels, switching at
//     least four times, are bimodal: a library (or machine) with two modes
//     is reported as such, not as a regression at every flip;
//   - a series a straight line fits better than its best single step is a
//     drift, reported with its slope.
// Pure: values in, findings out; the permutations and the bootstrap use a
// fixed seed, so the same history gives the same answer every time.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace nbcguard {

struct ChangePointOptions {
  double alpha = 0.05;     // significance of a split (permutation test)
  int permutations = 199;  // per tested split; the smallest p is 1 / (permutations + 1)
  int bootstrap = 2000;    // resamples for the interval of a shift's size
  int min_after = 2;       // nights on the new level before a shift is a regression
  int min_nights = 6;      // fewer valid nights: nothing is decided
  // The smallest shift worth reporting, in the series' own units (the caller
  // passes log values for ratios compared relatively, and log(1 + d) here).
  double min_effect = 0.15;
  std::uint64_t seed = 20141;
};

// A night whose value is known only from below: the library's own value
// was at least `value` (a point whose ranks computed at unequal speeds,
// which can only have lowered r_overhead and r_comm; docs/method.md, "Rank
// imbalance"). `after`: how many of z's finite values precede it. A floor
// is never a value of the segmentation; it can only add a night to a new
// level above the old one (a step upward at the newest nights), or count
// as an excursion of an old level that had already reached it. `reach`:
// the most the value can have been (the bound plus what the imbalance can
// have hidden); a floor stands on a new level its reach gets to. NaN: the
// bound itself.
struct Floor {
  int after = 0;
  double value = 0;
  double reach = std::numeric_limits<double>::quiet_NaN();
};

// E-divisive's best split of z: the index of the first value of the second
// side (1 .. n-1) and its statistic q (sample sizes' harmonic weight times
// the energy distance). at = -1 when z has fewer than 2 values.
struct Split {
  int at = -1;
  double q = 0;
};
Split BestSplit(const std::vector<double>& z);

// Change points of z by E-divisive means with the permutation test: sorted
// indexes of the first value of each new segment; *p_values (when given)
// holds each one's p-value, in the same order.
std::vector<int> EDivisive(const std::vector<double>& z, const ChangePointOptions& o,
                           std::vector<double>* p_values = nullptr);

// A persistent change of level.
struct Shift {
  // Index of the first valid night on the new level; z's count of finite
  // values when the level holds only lower bounds (then first_floor names
  // its first night).
  int at = 0;
  int n_before = 0, n_after = 0;  // nights on each level (outliers left out)
  double before = 0, after = 0;   // the levels' medians
  double size = 0;                // after - before
  double lo = 0, hi = 0;          // 95 % bootstrap interval of size
  double p = 1;          // E-divisive's permutation p-value of the split, or the newest nights' order p
  int excursions = 0;    // old nights that had reached the new level and came back
  int needed = 0;        // nights on the new level a regression needs (newest level only)
  int floors = 0;        // of the n_after nights, lower bounds (Floor)
  int first_floor = -1;  // index into the floors given when the new level's first night is one (else -1)
};

struct SeriesAnalysis {
  int nights = 0;                  // values analysed
  std::string undecided;           // non-empty: why nothing was decided (too few nights)
  std::vector<int> change_points;  // E-divisive's, before interpretation
  std::vector<Shift> shifts;       // persistent, beyond min_effect and the old band
  std::optional<Shift> pending;    // the newest nights moved, too few of them yet (Shift::needed)
  std::vector<int> outliers;       // single nights off neighbours that agree
  bool bimodal = false;
  double low_mode = 0, high_mode = 0;  // medians of the two levels
  int low_count = 0, high_count = 0, switches = 0;
  bool drift = false;
  double slope = 0;  // per night (least squares), when drift
  double total = 0;  // slope x (nights - 1)
};

// Non-finite values are dropped first; every index in the result is into
// z's finite values, in order, but Shift::first_floor (into `floors`) and a
// Shift::at of a level of lower bounds only. `floors`: nights known only
// from below, in order of `after`.
SeriesAnalysis AnalyzeSeries(const std::vector<double>& z, const ChangePointOptions& o,
                             const std::vector<Floor>& floors = {});

// The one-sided p-value of "the newest k of n nights are the k most
// extreme ones the same way", were the nights exchangeable: 1 / C(n, k).
// The check asks it each night, of a k the data chose, after its band
// filters; a p-value of that order, not of the whole procedure.
double NewestRankP(int n, int k);

}  // namespace nbcguard
