// Change points in a history of nightly values (nbcguard/changepoint.h).
#include "nbcguard/changepoint.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>
#include <utility>

#include "nbcguard/stats.h"

namespace nbcguard {
namespace {

// splitmix64: a small generator whose output is the same on every platform
// (std::shuffle and the standard distributions are not), so a stored
// history gives the same p-values wherever it is checked.
struct Rng {
  std::uint64_t s;
  std::uint64_t Next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::size_t Below(std::size_t n) { return static_cast<std::size_t>(Next() % n); }
};

void Shuffle(std::vector<double>* v, Rng* rng) {
  for (std::size_t i = v->size(); i > 1; --i) std::swap((*v)[i - 1], (*v)[rng->Below(i)]);
}

// The permutation p-value of a segment's best split: the share of random
// orders of its values whose best split reaches the observed statistic
// (the observed order counted once, so p >= 1 / (permutations + 1)).
double PermutationP(const std::vector<double>& z, double q, int permutations, Rng* rng) {
  std::vector<double> w = z;
  int reached = 0;
  for (int r = 0; r < permutations; ++r) {
    Shuffle(&w, rng);
    if (BestSplit(w).q >= q * (1 - 1e-12)) ++reached;
  }
  return (reached + 1.0) / (permutations + 1.0);
}

std::vector<double> Slice(const std::vector<double>& z, int from, int to) {
  return {z.begin() + from, z.begin() + to};
}

double MadSigma(const std::vector<double>& v) {
  const double m = Median(v);
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::fabs(x - m));
  return 1.4826 * Median(dev);
}

// 95 % percentile bootstrap interval of median(after) - median(before).
std::pair<double, double> ShiftInterval(const std::vector<double>& before, const std::vector<double>& after,
                                        int resamples, Rng* rng) {
  std::vector<double> d, b(before.size()), a(after.size());
  d.reserve(static_cast<std::size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    for (double& x : b) x = before[rng->Below(before.size())];
    for (double& x : a) x = after[rng->Below(after.size())];
    d.push_back(Median(a) - Median(b));
  }
  std::sort(d.begin(), d.end());
  const auto at = [&](double q) {
    return d[std::min(d.size() - 1, static_cast<std::size_t>(q * static_cast<double>(d.size())))];
  };
  return {at(0.025), at(0.975)};
}

// Residual sum of squares of the least-squares line through (i, z_i).
double LineRss(const std::vector<double>& z, double* slope) {
  const double n = static_cast<double>(z.size());
  const double mx = (n - 1) / 2;
  const double my = std::accumulate(z.begin(), z.end(), 0.0) / n;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    sxy += (static_cast<double>(i) - mx) * (z[i] - my);
    sxx += (static_cast<double>(i) - mx) * (static_cast<double>(i) - mx);
  }
  *slope = sxx > 0 ? sxy / sxx : 0;
  double rss = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    const double r = z[i] - (my + *slope * (static_cast<double>(i) - mx));
    rss += r * r;
  }
  return rss;
}

// The values minus the least-squares line of the given slope.
std::vector<double> Residuals(const std::vector<double>& z, double slope) {
  std::vector<double> r;
  for (std::size_t i = 0; i < z.size(); ++i) r.push_back(z[i] - slope * static_cast<double>(i));
  return r;
}

// Residual sum of squares of the best single step (two means).
double StepRss(const std::vector<double>& z) {
  double best = INFINITY;
  for (std::size_t t = 1; t < z.size(); ++t) {
    double rss = 0;
    for (auto [from, to] : {std::pair{std::size_t{0}, t}, std::pair{t, z.size()}}) {
      const double m =
          std::accumulate(z.begin() + static_cast<long>(from), z.begin() + static_cast<long>(to), 0.0) /
          static_cast<double>(to - from);
      for (std::size_t i = from; i < to; ++i) rss += (z[i] - m) * (z[i] - m);
    }
    best = std::min(best, rss);
  }
  return best;
}

// Two levels: the split of the sorted values with the least within-level
// sum of squares, then how often the series switches between them.
void CheckBimodal(const std::vector<double>& z, const ChangePointOptions& o, SeriesAnalysis* a) {
  std::vector<double> s = z;
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  std::size_t cut = 0;
  double best = INFINITY;
  for (std::size_t k = 2; k + 2 <= n; ++k) {  // at least two values per level
    double rss = 0;
    for (auto [from, to] : {std::pair{std::size_t{0}, k}, std::pair{k, n}}) {
      const double m =
          std::accumulate(s.begin() + static_cast<long>(from), s.begin() + static_cast<long>(to), 0.0) /
          static_cast<double>(to - from);
      for (std::size_t i = from; i < to; ++i) rss += (s[i] - m) * (s[i] - m);
    }
    if (rss < best) best = rss, cut = k;
  }
  if (cut == 0) return;
  const std::vector<double> low(s.begin(), s.begin() + static_cast<long>(cut));
  const std::vector<double> high(s.begin() + static_cast<long>(cut), s.end());
  const double gap = Median(high) - Median(low);
  const double within = std::sqrt(best / static_cast<double>(n - 2));
  const double threshold = s[cut];  // the smallest value of the high level
  int switches = 0;
  for (std::size_t i = 1; i < z.size(); ++i) switches += (z[i] >= threshold) != (z[i - 1] >= threshold);
  // Separated levels (the gap well beyond the spread within each and worth
  // reporting), visited back and forth (a step switches once, an outlier
  // twice, a step and an outlier three times), each level at least a fifth
  // of the nights and three of them (two disturbed nights are outliers).
  const std::size_t minority = std::min(low.size(), high.size());
  if (gap >= o.min_effect && gap >= 4 * within && switches >= 4 &&
      minority >= std::max<std::size_t>(3, (n + 4) / 5)) {
    a->bimodal = true;
    a->low_mode = Median(low);
    a->high_mode = Median(high);
    a->low_count = static_cast<int>(low.size());
    a->high_count = static_cast<int>(high.size());
    a->switches = switches;
  }
}

}  // namespace

Split BestSplit(const std::vector<double>& z) {
  const std::size_t n = z.size();
  Split best;
  if (n < 2) return best;
  // wl[t]: sum of |z_i - z_k| over i < k < t; wr[t]: over t <= i < k.
  std::vector<double> wl(n + 1, 0.0), wr(n + 1, 0.0);
  for (std::size_t t = 1; t < n; ++t) {
    double row = 0;
    for (std::size_t i = 0; i < t; ++i) row += std::fabs(z[i] - z[t]);
    wl[t + 1] = wl[t] + row;
  }
  for (std::size_t t = n - 1; t-- > 0;) {
    double row = 0;
    for (std::size_t k = t + 1; k < n; ++k) row += std::fabs(z[t] - z[k]);
    wr[t] = wr[t + 1] + row;
  }
  const double total = wl[n];
  for (std::size_t t = 1; t < n; ++t) {
    const double m = static_cast<double>(t), k = static_cast<double>(n - t);
    const double between = total - wl[t] - wr[t];
    double e = 2 * between / (m * k);
    if (t >= 2) e -= wl[t] / (m * (m - 1) / 2);
    if (n - t >= 2) e -= wr[t] / (k * (k - 1) / 2);
    const double q = m * k / (m + k) * e;
    if (best.at < 0 || q > best.q) best = {static_cast<int>(t), q};
  }
  return best;
}

std::vector<int> EDivisive(const std::vector<double>& z, const ChangePointOptions& o,
                           std::vector<double>* p_values) {
  Rng rng{o.seed};
  std::vector<std::pair<int, double>> found;  // (index, p)
  std::vector<std::pair<int, int>> todo = {{0, static_cast<int>(z.size())}};
  while (!todo.empty()) {
    const auto [from, to] = todo.back();
    todo.pop_back();
    if (to - from < 3) continue;  // two values: any order is as extreme as theirs
    const std::vector<double> seg = Slice(z, from, to);
    const Split s = BestSplit(seg);
    if (s.at < 0 || !(s.q > 0)) continue;
    const double p = PermutationP(seg, s.q, o.permutations, &rng);
    if (p > o.alpha) continue;
    found.emplace_back(from + s.at, p);
    todo.emplace_back(from, from + s.at);
    todo.emplace_back(from + s.at, to);
  }
  std::sort(found.begin(), found.end());
  std::vector<int> cps;
  if (p_values) p_values->clear();
  for (const auto& [at, p] : found) {
    cps.push_back(at);
    if (p_values) p_values->push_back(p);
  }
  return cps;
}

double NewestRankP(int n, int k) {
  if (k < 0 || k > n) return 1;
  double c = 1;  // C(n, k), as a product of ratios
  for (int i = 1; i <= k; ++i) c = c * (n - k + i) / i;
  return 1 / c;
}

SeriesAnalysis AnalyzeSeries(const std::vector<double>& z_in, const ChangePointOptions& o,
                             const std::vector<Floor>& floors) {
  SeriesAnalysis a;
  std::vector<double> z;
  for (double x : z_in)
    if (std::isfinite(x)) z.push_back(x);
  a.nights = static_cast<int>(z.size());
  if (a.nights < o.min_nights) {
    a.undecided = std::to_string(a.nights) + " valid night(s), fewer than the " +
                  std::to_string(o.min_nights) + " a change needs";
    return a;
  }
  CheckBimodal(z, o, &a);
  if (a.bimodal) return a;

  // Outliers first (a single night tells E-divisive little and disturbs
  // its levels): a night off the median of its neighbours by more than
  // their band and min_effect, off the same way from the nights on each
  // side by as much (the last night before a step is off the median of a
  // window that straddles the step, but not off the nights before it),
  // while the nights beside it are not off the same way. The newest night
  // alone off is not an outlier yet: pending.
  const std::size_t n = z.size();
  constexpr std::size_t kReach = 5;
  std::vector<bool> out(n, false);
  bool newest_off = false;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> w;
    for (std::size_t j = i >= kReach ? i - kReach : 0; j < std::min(n, i + kReach + 1); ++j)
      if (j != i) w.push_back(z[j]);
    const double m = Median(w);
    const double limit = std::max(o.min_effect, 4 * MadSigma(w));
    const auto off = [&](std::size_t j) {
      return (z[j] - m) * (z[i] - m) > 0 && std::fabs(z[j] - m) > limit;
    };
    if (!off(i)) continue;
    const auto off_side = [&](std::size_t from, std::size_t to) {  // [from, to): one side's nights
      if (to - from < 2) return true;                              // too few to say otherwise
      const double side =
          Median(std::vector<double>(z.begin() + static_cast<long>(from), z.begin() + static_cast<long>(to)));
      return (z[i] - side) * (z[i] - m) > 0 && std::fabs(z[i] - side) > limit;
    };
    if (!off_side(i >= kReach ? i - kReach : 0, i) || !off_side(i + 1, std::min(n, i + kReach + 1))) continue;
    // Against the same median and band: a neighbour off the same way makes
    // it the start (or end) of a new level, not a lone night.
    if ((i > 0 && off(i - 1)) || (i + 1 < n && off(i + 1))) continue;
    out[i] = true;
    if (i + 1 == n) newest_off = true;
    else a.outliers.push_back(static_cast<int>(i));
  }
  std::vector<double> clean;
  std::vector<int> night;  // clean[k] is z[night[k]]
  for (std::size_t i = 0; i < n; ++i)
    if (!out[i]) clean.push_back(z[i]), night.push_back(static_cast<int>(i));

  std::vector<double> p;
  const std::vector<int> cps = EDivisive(clean, o, &p);
  for (int c : cps) a.change_points.push_back(night[static_cast<std::size_t>(c)]);

  // A line that fits better than any single step, by more than min_effect
  // over the window: a drift, not a step.
  // The change over the window must also clear 3 x 1.4826 MAD of the
  // nights around the line: a tilt in noise is not a drift. Its valid
  // nights are then one level, walked by no change point; only nights known
  // from below after them can still stand on a new level (the step at the
  // end, below): a drift's own newest nights are the drift, but refused
  // nights whose bounds lie above every night of it are not.
  double slope = 0;
  const double line_rss = cps.empty() ? 0 : LineRss(clean, &slope);
  const double total = slope * static_cast<double>(clean.size() - 1);
  if (!cps.empty() && line_rss <= StepRss(clean) && std::fabs(total) >= o.min_effect &&
      std::fabs(total) > 3 * MadSigma(Residuals(clean, slope))) {
    a.drift = true;
    a.slope = slope;
    a.total = total;
  }

  // Walk the change points: a shift is reported when it is large enough and
  // leaves the old level's band; otherwise the two levels are one.
  Rng rng{o.seed ^ 0x5bd1e995ULL};
  std::vector<int> bounds = {0};
  bounds.insert(bounds.end(), cps.begin(), cps.end());
  bounds.push_back(static_cast<int>(clean.size()));
  int start = 0;  // first (clean) night of the current level
  const auto make = [&](int at, const std::vector<double>& before, const std::vector<double>& after) {
    Shift s;
    s.at = at;
    s.n_before = static_cast<int>(before.size());
    s.n_after = static_cast<int>(after.size());
    s.before = Median(before);
    s.after = Median(after);
    s.size = s.after - s.before;
    std::tie(s.lo, s.hi) = ShiftInterval(before, after, o.bootstrap, &rng);
    return s;
  };
  // The first night (an index into z) after the level ending at clean night
  // `to` (exclusive); the newest night, when it is off alone, belongs to no
  // old level.
  const auto level_end = [&](int to) {
    return to < static_cast<int>(clean.size()) ? night[static_cast<std::size_t>(to)]
                                               : static_cast<int>(n) - (newest_off ? 1 : 0);
  };
  // The nights of the level from clean night `from` up to clean night `to`
  // (exclusive) as they were read, outliers included.
  const auto old_level = [&](int from, int to) {
    return Slice(z, night[static_cast<std::size_t>(from)], level_end(to));
  };
  // A level's between-night band half-width: min_effect, or 3 x 1.4826 MAD
  // of its nights when larger.
  const auto band = [&](const std::vector<double>& v) { return std::max(o.min_effect, 3 * MadSigma(v)); };
  // Beyond the old level's between-night band: its median +- the larger of
  // min_effect and 3 x 1.4826 MAD of its nights (outliers included: they
  // are part of how much that level moved from night to night), or of the
  // new level's when it has three nights or more and moves more; an old
  // level of fewer than three nights has no band yet. A new level
  // of at most three nights must have every night beyond it, a longer one
  // its median: two nights that happen to read low are not a level.
  const auto beyond = [&](int from, int to, const std::vector<double>& before,
                          const std::vector<double>& after) {
    const std::vector<double> old_nights = old_level(from, to);
    if (old_nights.size() < 3) return false;  // no level to leave yet
    const double m = Median(before);
    const double sigma = std::max(MadSigma(old_nights), after.size() >= 3 ? MadSigma(after) : 0.0);
    const double h = std::max(o.min_effect, 3 * sigma);
    const double size = Median(after) - m;
    if (std::fabs(size) <= h) return false;
    if (after.size() > 3) return true;
    return std::all_of(after.begin(), after.end(),
                       [&](double x) { return (x - m) * size > 0 && std::fabs(x - m) > h; });
  };
  // The old level's excursions toward a new one: its nights (outliers
  // included: a night left out of the segmentation still showed how far
  // the level can move) beyond its band the same way and at least half-way
  // to the new level. Each came back, so a newest level it had reached
  // needs one more night of it per excursion before it is a regression:
  // on a machine whose phases last minutes, two disturbed runs in a row
  // are something the series has done before (docs/history.md).
  // A night known only from below inside the old level counts as an
  // excursion when its bound already is one (upward only). Sets s's
  // excursions and the nights it needs: min_after plus one per excursion,
  // and at least `least`.
  const auto set_needed = [&](Shift* s, int from, int to, const std::vector<double>& before, int least) {
    const std::vector<double> old_nights = old_level(from, to);
    const double m = Median(before);
    const double h = band(old_nights);
    const auto excursion = [&](double x) {
      return (x - m) * s->size > 0 && std::fabs(x - m) > h && std::fabs(x - m) >= std::fabs(s->size) / 2;
    };
    s->excursions = static_cast<int>(std::count_if(old_nights.begin(), old_nights.end(), excursion));
    const int first = night[static_cast<std::size_t>(from)], end = level_end(to);
    if (s->size > 0)
      s->excursions += static_cast<int>(std::count_if(floors.begin(), floors.end(), [&](const Floor& f) {
        return f.after > first && f.after < end && excursion(f.value);
      }));
    s->needed = std::max(least, o.min_after + s->excursions);
  };
  // The nights known only from below that stand on a new level above the
  // old one (clean nights from .. to, exclusive; `before` their clean
  // values): after the old level's last night, their bound beyond the old
  // level's band and above every old night (certainly off the old level),
  // and, when the new level has valid nights, within the band width of
  // `before` of their median: the bound not above it (a night read higher
  // than the level is not on it) and the reach not below it (a night that
  // cannot reach it is half-way, no night of it). Indexes into `floors`, in
  // order.
  const auto floors_on = [&](int from, int to, const std::vector<double>& before,
                             const std::vector<double>& valid_new) {
    std::vector<std::size_t> on;
    const std::vector<double> old_nights = old_level(from, to);
    const int end = level_end(to);
    const double m = Median(before), h = band(old_nights), width = band(before);
    const double highest = *std::max_element(old_nights.begin(), old_nights.end());
    const bool any_level = valid_new.empty();
    const double level = any_level ? 0 : Median(valid_new);
    if (!any_level && !(level > m)) return on;  // a level below: a bound says nothing of it
    for (std::size_t i = 0; i < floors.size(); ++i) {
      const Floor& f = floors[i];
      const double reach = std::isnan(f.reach) ? f.value : std::max(f.value, f.reach);
      if (f.after >= end && f.value - m > h && f.value > highest &&
          (any_level || (f.value <= level + width && reach >= level - width)))
        on.push_back(i);
    }
    return on;
  };
  // Counts them among the shift's nights after; the first night of the new
  // level is a floor when one comes before its first valid night (z index
  // first_valid).
  const auto add_floors = [&](Shift* s, const std::vector<std::size_t>& on, int first_valid) {
    s->floors = static_cast<int>(on.size());
    s->n_after += s->floors;
    if (!on.empty() && floors[on.front()].after <= first_valid) s->first_floor = static_cast<int>(on.front());
  };
  for (std::size_t i = 1; !a.drift && i + 1 < bounds.size(); ++i) {
    const std::vector<double> before = Slice(clean, start, bounds[i]);
    const std::vector<double> after = Slice(clean, bounds[i], bounds[i + 1]);
    if (!beyond(start, bounds[i], before, after)) continue;  // one level
    Shift s = make(night[static_cast<std::size_t>(bounds[i])], before, after);
    s.p = p[i - 1];
    if (i + 2 == bounds.size()) {
      set_needed(&s, start, bounds[i], before, 0);
      add_floors(&s, floors_on(start, bounds[i], before, after), s.at);
      if (s.n_after < s.needed) {
        a.pending = s;
        return a;
      }
    }
    a.shifts.push_back(s);
    start = bounds[i];
  }
  // A step at the very end that the permutation test cannot separate yet:
  // with few nights before it, two or three new ones are too few for any
  // split to reach alpha (7 + 2 nights: p >= 2/36), however far they moved.
  // The newest k valid nights (k = 3 .. 1, or 0: the newest night off
  // alone, or none), with the nights known only from below after the old
  // level's last night (floors_on), each beyond the band of the level
  // before them, the same way, and together as one level (each within the
  // old level's band width of their median: a night half-way is not on
  // it). Such a step is a shift when every new valid night lies beyond
  // every night of the old level (outliers included) and the one-sided
  // p-value of that order, 1 / C(old + new, new), is at most alpha: were
  // the nights exchangeable (no change), every order would be as likely,
  // and the question a regression asks is whether the newest nights are
  // worse. A new level of lower bounds only is pending at most. Else it is
  // pending, from its first night, and the nights after decide. After a
  // drift, only a level of lower bounds beyond the whole drift, with the
  // newest night when it is off alone on it: pending, never a shift (the
  // next nights decide whether the drift was a step after all).
  const int nights = static_cast<int>(clean.size());
  for (int k = a.drift ? 0 : std::min(3, nights - 3); k >= 0; --k) {
    const int at = nights - k;
    if (at - start < 3) continue;  // no level to leave yet
    const std::vector<double> before = Slice(clean, start, at);
    std::vector<double> valid_new = Slice(clean, at, nights);
    if (k == 0 && newest_off) valid_new.push_back(z[n - 1]);
    // The newest night off alone and left out of these k: only when it lies
    // beyond the old level the same way as they do.
    if (k >= 1 && newest_off && (z[n - 1] - Median(before)) * (Median(valid_new) - Median(before)) <= 0)
      continue;
    const int end = level_end(at);  // the first valid night after the old level (n: none)
    const std::vector<double> old_nights = old_level(start, at);
    const double width = band(before);
    const double lowest = *std::min_element(old_nights.begin(), old_nights.end());
    const double highest = *std::max_element(old_nights.begin(), old_nights.end());
    const std::vector<std::size_t> on = floors_on(start, at, before, valid_new);
    // After a drift (k = 0 only: its valid nights are the drift), a level
    // needs bounds on it; the newest night off alone may join them.
    if (a.drift && on.empty()) continue;
    // One or no valid night: a new level only with a bound beside it, or
    // the newest night off alone (pending until the next night).
    if (valid_new.size() < 2 && on.empty() && !(k == 0 && newest_off)) continue;
    if (valid_new.empty() && on.empty()) continue;
    if (!valid_new.empty() && !beyond(start, at, before, valid_new)) continue;
    if (valid_new.size() >= 2) {
      const double level = Median(valid_new);
      if (!std::all_of(valid_new.begin(), valid_new.end(),
                       [&](double x) { return std::fabs(x - level) <= width; }))
        continue;
    }
    // The new level and its size from its valid nights; from the bounds
    // (the size then at least that) only when it has none.
    std::vector<double> bounds_on(on.size());
    for (std::size_t j = 0; j < on.size(); ++j) bounds_on[j] = floors[on[j]].value;
    Shift s = make(end, before, valid_new.empty() ? bounds_on : valid_new);
    s.n_after = static_cast<int>(valid_new.size());
    add_floors(&s, on, end);
    // The order of the valid nights; the bounds on the level are above
    // every old night by floors_on.
    const bool ordered = std::all_of(valid_new.begin(), valid_new.end(),
                                     [&](double x) { return s.size > 0 ? x > highest : x < lowest; });
    const int old_count = static_cast<int>(old_nights.size());
    s.p = ordered ? NewestRankP(old_count + s.n_after, s.n_after) : 1;
    set_needed(&s, start, at, before, 0);
    // Lower bounds confirm a valid night, never stand for one alone: the
    // same vCPU slowdown that made the ranks unequal can slow the
    // collective too (MPICH's Ibcast at 500us x 2ms read r_overhead 1.79 on
    // a flagged night against 1.21 on the valid ones).
    if (!a.drift && s.p <= o.alpha && s.n_after >= s.needed && !valid_new.empty()) {
      a.shifts.push_back(s);
      return a;
    }
    // Pending: the nights it needs, were each next one to keep the order;
    // with the order broken by an old night, at least one more (E-divisive
    // decides when it can).
    int needs = s.n_after + 1;
    if (ordered)
      while (NewestRankP(old_count + needs, needs) > o.alpha) ++needs;
    s.needed = std::max(s.needed, needs);
    a.pending = s;
    return a;
  }
  return a;
}

}  // namespace nbcguard
