#include "nbcguard/history.h"

#include <algorithm>
#include <cmath>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "nbcguard/metrics.h"
#include "nbcguard/stats.h"
#include "synthetic_noise.h"

namespace nbcguard {
namespace {

// One series of nights: values[i] on day i + 1 (NaN: a refused night).
std::vector<SeriesNight> Series(const std::string& ratio, const std::vector<double>& values,
                                const std::vector<std::string>& references = {}) {
  std::vector<SeriesNight> s;
  for (std::size_t i = 0; i < values.size(); ++i) {
    SeriesNight n;
    char date[32];
    std::snprintf(date, sizeof date, "2026-09-%02dT03:00:00Z", static_cast<int>(i) + 1);
    n.run.run_date = date;
    n.run.run_id = "r" + std::to_string(i);
    n.run.library_version = "Open MPI v4.1.4";
    n.obs.test = "openmpi.ibcast.n2.basic";
    n.obs.point = "1ms x 2ms";
    n.obs.ratio = ratio;
    n.obs.valid = values[i] == values[i];
    if (n.obs.valid) n.obs.median = values[i];
    n.obs.reference = i < references.size() ? references[i] : "";
    s.push_back(n);
  }
  return s;
}

const HistoryFinding* First(const HistoryReport& r, HistoryKind k) {
  for (const HistoryFinding& f : r.findings)
    if (f.kind == k) return &f;
  return nullptr;
}

std::vector<double> Step(double from, double to, int before, int after) {
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(before) + static_cast<std::size_t>(after));
  const double wiggle[] = {0.01, -0.02, 0.015, 0.0, -0.01, 0.02, -0.015, 0.005};
  for (int i = 0; i < before + after; ++i) v.push_back((i < before ? from : to) + wiggle[i % 8]);
  return v;
}

TEST(HistoryCheck, ARecentStepFailsAnOldOneIsKnown) {
  const HistoryReport recent = CheckHistory({Series("r_overhead", Step(0.1, 0.8, 12, 3))}, 15, {});
  const HistoryFinding* f = First(recent, HistoryKind::kRegression);
  ASSERT_NE(f, nullptr) << recent.Summary();
  EXPECT_TRUE(f->fails);
  EXPECT_EQ(f->night, "2026-09-13T03:00:00Z");
  EXPECT_EQ(f->revision, "Open MPI v4.1.4");
  EXPECT_TRUE(recent.Fails());

  const HistoryReport old = CheckHistory({Series("r_overhead", Step(0.1, 0.8, 8, 10))}, 18, {});
  f = First(old, HistoryKind::kRegression);
  ASSERT_NE(f, nullptr) << old.Summary();
  EXPECT_FALSE(f->fails);
  EXPECT_TRUE(f->known);
  EXPECT_FALSE(old.Fails());
  EXPECT_NE(f->Line().find("known: began before"), std::string::npos) << f->Line();
}

TEST(HistoryCheck, AnImprovementDoesNotFail) {
  const HistoryReport r = CheckHistory({Series("r_overhead", Step(0.8, 0.1, 12, 3))}, 15, {});
  ASSERT_NE(First(r, HistoryKind::kImprovement), nullptr) << r.Summary();
  EXPECT_EQ(First(r, HistoryKind::kRegression), nullptr);
  EXPECT_FALSE(r.Fails());
}

// A shift with one night on its new level is PENDING, and its line says
// what the next night would make of it: a regression upward, an improvement
// downward.
TEST(HistoryCheck, APendingShiftSaysWhatItWouldBecome) {
  for (const bool up : {true, false}) {
    const HistoryReport r =
        CheckHistory({Series("r_overhead", up ? Step(0.1, 0.8, 12, 1) : Step(0.8, 0.1, 12, 1))}, 13, {});
    const HistoryFinding* f = First(r, HistoryKind::kPending);
    ASSERT_NE(f, nullptr) << r.Summary();
    EXPECT_NE(f->Line().find(up ? "1 night(s) on the new level, a regression at 2"
                                : "1 night(s) on the new level, an improvement at 2"),
              std::string::npos)
        << f->Line();
  }
}

// r_mpi_impact measured by one test and reused by others is one series of
// values stored under each test: one step, judged once, naming the tests
// that share it. Series that differ on one night, or are not r_mpi_impact,
// are judged apart.
TEST(HistoryCheck, ASharedMeasurementIsJudgedOnce) {
  const auto as = [](const std::string& test, std::vector<SeriesNight> s) {
    for (SeriesNight& n : s) n.obs.test = test;
    return s;
  };
  const std::vector<SeriesNight> impact = Series("r_mpi_impact", Step(1.0, 1.5, 12, 3));
  const HistoryReport r =
      CheckHistory({as("mpich.iallgather.n2.basic", impact), as("mpich.ibcast.n2.basic", impact),
                    as("mpich.ialltoall.n2.basic", impact)},
                   15, {});
  std::vector<const HistoryFinding*> regressions;
  for (const HistoryFinding& f : r.findings)
    if (f.kind == HistoryKind::kRegression) regressions.push_back(&f);
  ASSERT_EQ(regressions.size(), 1u) << r.Summary();
  EXPECT_EQ(regressions[0]->test, "mpich.iallgather.n2.basic");
  EXPECT_EQ(regressions[0]->shared_with,
            (std::vector<std::string>{"mpich.ibcast.n2.basic", "mpich.ialltoall.n2.basic"}));
  EXPECT_NE(regressions[0]->Line().find(
                "; the same measurement as mpich.ibcast.n2.basic, mpich.ialltoall.n2.basic"),
            std::string::npos)
      << regressions[0]->Line();
  EXPECT_EQ(r.series, 3);
  EXPECT_EQ(r.shared, 2);
  EXPECT_NE(r.Summary().find("2 judged with the test that shares them"), std::string::npos) << r.Summary();

  std::vector<SeriesNight> own = as("mpich.ibcast.n2.basic", impact);
  own[4].obs.median = *own[4].obs.median + 1e-9;  // measured by this test that night
  const std::vector<SeriesNight> overhead = Series("r_overhead", Step(0.1, 0.8, 12, 3));
  const HistoryReport apart =
      CheckHistory({as("mpich.iallgather.n2.basic", impact), own, as("mpich.iallgather.n2.basic", overhead),
                    as("mpich.ibcast.n2.basic", overhead)},
                   15, {});
  int n = 0;
  for (const HistoryFinding& f : apart.findings) {
    n += f.kind == HistoryKind::kRegression ? 1 : 0;
    EXPECT_TRUE(f.shared_with.empty()) << f.Line();
  }
  EXPECT_EQ(n, 4) << apart.Summary();
  EXPECT_EQ(apart.shared, 0);
}

// Runs minutes apart reuse one r_mpi_impact measurement: nights that repeat
// the last value bit for bit are one measurement, not a steady level. Two
// measurements 11 % apart, each repeated over four nights, are no step; the
// same values measured anew each night (a hair apart) are one.
TEST(HistoryCheck, RepeatedMeasurementsCountOnce) {
  std::vector<double> v(12, 0.962992);
  std::fill(v.begin(), v.begin() + 8, 0.968095);
  std::fill(v.begin(), v.begin() + 4, 0.870947);
  const HistoryReport reused = CheckHistory({Series("r_mpi_impact", v)}, 12, {});
  EXPECT_EQ(First(reused, HistoryKind::kRegression), nullptr) << reused.Summary();
  EXPECT_EQ(reused.repeated_nights, 9);
  EXPECT_EQ(reused.undecided.size(), 1u) << reused.Summary();  // 3 measurements: too few
  EXPECT_NE(reused.Summary().find("9 night(s) repeating an earlier r_mpi_impact measurement"),
            std::string::npos);

  for (std::size_t i = 0; i < v.size(); ++i) v[i] += 1e-6 * static_cast<double>(i % 3);
  const HistoryReport anew = CheckHistory({Series("r_mpi_impact", v)}, 12, {});
  EXPECT_EQ(anew.repeated_nights, 0);
  EXPECT_NE(First(anew, HistoryKind::kRegression), nullptr) << anew.Summary();
}

// r_comp_slowdown is analysed on its logarithm and reported in percent.
TEST(HistoryCheck, RelativeRatiosShiftInPercent) {
  const HistoryReport r = CheckHistory({Series("r_comp_slowdown", Step(1.0, 1.5, 12, 3))}, 15, {});
  const HistoryFinding* f = First(r, HistoryKind::kRegression);
  ASSERT_NE(f, nullptr) << r.Summary();
  EXPECT_NEAR(f->size, 0.5, 0.05);
  EXPECT_NE(f->Line().find("1.00 -> 1.49 (+49 %"), std::string::npos) << f->Line();
}

TEST(HistoryCheck, AReferenceChangeIsNamedAndRefusedNightsCounted) {
  std::vector<double> v = Step(0.0, 1.0, 12, 3);
  v[4] = NAN;
  std::vector<std::string> refs(15, "background");
  for (std::size_t i = 12; i < refs.size(); ++i) refs[i] = "deferred";
  const HistoryReport r = CheckHistory({Series("r_overhead", v, refs)}, 15, {});
  const HistoryFinding* f = First(r, HistoryKind::kRegression);
  ASSERT_NE(f, nullptr) << r.Summary();
  EXPECT_EQ(f->night, "2026-09-13T03:00:00Z");
  EXPECT_NE(f->Line().find("reference behaviour background -> deferred"), std::string::npos) << f->Line();
  EXPECT_EQ(r.refused_nights, 1);
}

// Open MPI's background reference changed to deferred on night 13 of this
// machine, whose ranks computed at unequal speeds on night 14 at this point:
// night 14's r_overhead, refused as a value, is kept as a lower bound
// (0.90) and is the second night on the new level. The regression is named
// at night 13 on the second night; a series whose first new night is the
// lower bound is named at that night. Without the bounds: pending.
TEST(HistoryCheck, ALowerBoundIsANightOnANewLevelAbove) {
  std::vector<double> v = Step(0.05, 1.0, 12, 2);
  std::vector<std::string> refs(14, "background");
  refs[12] = refs[13] = "deferred";
  std::vector<SeriesNight> s = Series("r_overhead", v, refs);
  s[13].obs.valid = false;
  s[13].obs.bound = "lower";
  s[13].obs.median = 0.90;
  s[13].obs.reason = "rank imbalance";
  const HistoryReport r = CheckHistory({s}, 14, {});
  const HistoryFinding* f = First(r, HistoryKind::kRegression);
  ASSERT_NE(f, nullptr) << r.Summary();
  EXPECT_TRUE(f->fails);
  EXPECT_EQ(f->night, "2026-09-13T03:00:00Z");
  EXPECT_EQ(f->n_after, 2);
  EXPECT_EQ(f->floors, 1);
  EXPECT_NE(f->Line().find("1 of them a lower bound"), std::string::npos) << f->Line();
  EXPECT_EQ(r.refused_nights, 1);
  EXPECT_EQ(r.bounded_nights, 1);
  EXPECT_NE(r.Summary().find("1 kept as lower bounds"), std::string::npos) << r.Summary();

  std::vector<SeriesNight> first_bound = s;
  std::swap(first_bound[12].obs, first_bound[13].obs);  // the bound on night 13, the valid night after it
  const HistoryReport b = CheckHistory({first_bound}, 14, {});
  f = First(b, HistoryKind::kRegression);
  ASSERT_NE(f, nullptr) << b.Summary();
  EXPECT_EQ(f->night, "2026-09-13T03:00:00Z");
  EXPECT_EQ(f->reference_before, "background");
  EXPECT_EQ(f->reference_after, "deferred");

  // Lower bounds alone on the new level: pending from the first of them,
  // with their diagnosis; never a regression.
  std::vector<SeriesNight> bounds_only = Series("r_overhead", Step(0.05, 1.0, 12, 2), refs);
  for (std::size_t i = 12; i < 14; ++i) {
    bounds_only[i].obs.valid = false;
    bounds_only[i].obs.bound = "lower";
    bounds_only[i].obs.diagnosis = "rank-imbalance";
  }
  const HistoryReport o = CheckHistory({bounds_only}, 14, {});
  EXPECT_EQ(First(o, HistoryKind::kRegression), nullptr) << o.Summary();
  f = First(o, HistoryKind::kPending);
  ASSERT_NE(f, nullptr) << o.Summary();
  EXPECT_EQ(f->night, "2026-09-13T03:00:00Z");
  EXPECT_EQ(f->floors, 2);
  EXPECT_EQ(f->diagnosis_after, "rank-imbalance");
  EXPECT_FALSE(o.Fails());

  std::vector<SeriesNight> no_bound = s;
  no_bound[13].obs.bound = "";
  const HistoryReport p = CheckHistory({no_bound}, 14, {});
  EXPECT_EQ(First(p, HistoryKind::kRegression), nullptr) << p.Summary();
  EXPECT_NE(First(p, HistoryKind::kPending), nullptr) << p.Summary();
  EXPECT_EQ(p.bounded_nights, 0);
}

// What one run stores for a point whose ranks computed at unequal speeds:
// r_overhead and r_comm as lower bounds with their figures, r_comp_slowdown
// refused without a value (unequal ranks move it either way).
TEST(ObservationsOf, AnImbalanceFlaggedPointKeepsLowerBounds) {
  TestResults t;
  t.key = {"openmpi", "ibcast", "ibcast", "basic", 2};
  PointSamples p;
  p.comm_target = 1e-3;
  p.comp_target = 2e-3;
  p.valid = true;
  p.ratios_refused = "rank imbalance: rank 0 computed 1.49x as long as rank 1";
  for (Metric m : {Metric::kOverhead, Metric::kComm, Metric::kCompSlowdown}) {
    RatioSamples r;
    r.values = {0.9, 0.95, 1.0};
    r.summary = Summarize(r.values);
    p.ratios[m] = r;
  }
  p.hidden_by_imbalance = {{Metric::kOverhead, 0.4}, {Metric::kComm, 0.3}};
  t.points.push_back(p);
  PointSamples valid = p;
  valid.comp_target = 4e-3;
  valid.ratios_refused.clear();
  valid.hidden_by_imbalance.clear();
  t.points.push_back(valid);
  int bounds = 0, values = 0;
  for (const HistoryObservation& o : ObservationsOf(t)) {
    if (o.comp_target == 4e-3) {
      EXPECT_TRUE(o.valid) << o.ratio;
      EXPECT_EQ(o.bound, "");
      ++values;
      continue;
    }
    EXPECT_FALSE(o.valid) << o.ratio;
    EXPECT_EQ(o.reason, p.ratios_refused);
    if (o.ratio == "r_comp_slowdown") {
      EXPECT_EQ(o.bound, "");
      EXPECT_FALSE(o.median.has_value());
    } else {
      EXPECT_EQ(o.bound, "lower") << o.ratio;
      ASSERT_TRUE(o.median.has_value()) << o.ratio;
      EXPECT_DOUBLE_EQ(*o.median, 0.95);
      ASSERT_TRUE(o.hidden.has_value()) << o.ratio;
      EXPECT_DOUBLE_EQ(*o.hidden, o.ratio == "r_overhead" ? 0.4 : 0.3);
      ++bounds;
    }
  }
  EXPECT_EQ(bounds, 2);
  EXPECT_EQ(values, 3);
}

// A point the first job refused and a later job of the same run measured
// cleanly is that job's: every ratio of the point from it, with its job
// number. A point the first job kept, a later job that refused the point
// too, and r_mpi_impact stay the first job's.
TEST(ObservationsOf, ALaterJobMeasuresWhatTheFirstRefused) {
  const auto point = [](double comm, double comp, double level) {
    PointSamples p;
    p.comm_target = comm;
    p.comp_target = comp;
    p.valid = true;
    for (Metric m : {Metric::kOverhead, Metric::kComm, Metric::kCompSlowdown}) {
      RatioSamples r;
      r.values = {level - 0.01, level, level + 0.01};
      r.summary = Summarize(r.values);
      p.ratios[m] = r;
    }
    return p;
  };
  TestResults first;
  first.key = {"mpich", "ibcast", "ibcast", "progress", 2};
  PointSamples flagged = point(16e-3, 32e-3, 0.5);  // imbalance: bounds in the first job
  flagged.ratios_refused = "rank imbalance: rank 0 computed 1.46x as long as rank 1";
  first.points.push_back(flagged);
  PointSamples gated = point(16e-3, 16e-3, 0.4);  // a validity gate
  gated.valid = false;
  gated.invalid_reason = "communication unstable";
  first.points.push_back(gated);
  first.points.push_back(point(16e-3, 64e-3, 0.2));  // kept by the first job
  RatioSamples impact;
  impact.values = {2.0, 2.1};
  impact.summary = Summarize(impact.values);
  first.mpi_impact[32e-3] = impact;

  TestResults second = first;  // the confirmation job: flagged again at 16ms x 32ms
  second.points = {flagged, point(16e-3, 16e-3, 1.0), point(16e-3, 64e-3, 0.9)};
  second.mpi_impact[32e-3].summary.median = 1.0;
  TestResults third = first;  // the third job: clean at 16ms x 32ms
  third.points = {point(16e-3, 32e-3, 0.95)};

  std::map<std::string, HistoryObservation> by;
  for (const HistoryObservation& o : ObservationsOf(first, {second, third})) by[o.point + " " + o.ratio] = o;
  ASSERT_EQ(by.size(), 10u);
  for (const char* ratio : {"r_overhead", "r_comm", "r_comp_slowdown"}) {
    const HistoryObservation& a = by["16ms x 32ms " + std::string(ratio)];
    EXPECT_TRUE(a.valid) << ratio;
    EXPECT_EQ(a.job, 3) << ratio;
    EXPECT_EQ(a.bound, "") << ratio;
    ASSERT_TRUE(a.median.has_value()) << ratio;
    EXPECT_DOUBLE_EQ(*a.median, 0.95) << ratio;
    EXPECT_EQ(a.test, "mpich.ibcast.n2.progress");
    const HistoryObservation& b = by["16ms x 16ms " + std::string(ratio)];
    EXPECT_TRUE(b.valid) << ratio;
    EXPECT_EQ(b.job, 2) << ratio;
    EXPECT_DOUBLE_EQ(*b.median, 1.0) << ratio;
    const HistoryObservation& c = by["16ms x 64ms " + std::string(ratio)];
    EXPECT_EQ(c.job, 1) << ratio;
    EXPECT_DOUBLE_EQ(*c.median, 0.2) << ratio;  // not the later job's 0.9
  }
  EXPECT_EQ(by["* x 32ms r_mpi_impact"].job, 1);
  EXPECT_DOUBLE_EQ(*by["* x 32ms r_mpi_impact"].median, 2.05);

  // With no later job measuring it cleanly, the first job's refusal stands:
  // lower bounds for the flagged point, no value for the gated one.
  by.clear();
  for (const HistoryObservation& o : ObservationsOf(first, {second})) by[o.point + " " + o.ratio] = o;
  EXPECT_FALSE(by["16ms x 32ms r_overhead"].valid);
  EXPECT_EQ(by["16ms x 32ms r_overhead"].bound, "lower");
  EXPECT_EQ(by["16ms x 32ms r_overhead"].job, 1);
  by.clear();
  for (const HistoryObservation& o : ObservationsOf(first)) by[o.point + " " + o.ratio] = o;
  EXPECT_FALSE(by["16ms x 16ms r_comm"].valid);
  EXPECT_EQ(by["16ms x 16ms r_comm"].reason, "communication unstable");
  EXPECT_EQ(by["16ms x 16ms r_comm"].job, 1);
}

TEST(HistoryCheck, FewNightsAreUndecidedNotPassedSilently) {
  const HistoryReport r = CheckHistory({Series("r_comm", {0.1, 0.9, 0.1})}, 3, {});
  EXPECT_EQ(r.decided, 0);
  ASSERT_EQ(r.undecided.size(), 1u);
  EXPECT_NE(r.Summary().find("1 with too few valid nights"), std::string::npos) << r.Summary();
}

// The between-run spread recovers the noise's sd from the nights, is
// hardly moved by one level shift or one wild night, and is on log values
// for the relative ratios.
TEST(BetweenRunSpreads, RecoverTheNightToNightSd) {
  SyntheticNoise noise{7};
  std::vector<double> flat, step, relative;
  for (int i = 0; i < 40; ++i) {
    flat.push_back(0.3 + noise.Normal(0.05));
    step.push_back((i < 20 ? 0.3 : 0.8) + noise.Normal(0.05));
    relative.push_back(1.2 * std::exp(noise.Normal(0.05)));
  }
  step[10] = 3.0;  // one wild night
  std::vector<std::vector<SeriesNight>> series = {Series("r_overhead", flat), Series("r_comm", step),
                                                  Series("r_comp_slowdown", relative),
                                                  Series("r_mpi_impact", {1.0, NAN, 1.1})};
  const auto spreads = BetweenRunSpreads(series, HistoryCheckOptions{});
  const std::string at = "openmpi.ibcast.n2.basic 1ms x 2ms ";
  ASSERT_EQ(spreads.count(at + "r_overhead"), 1u);
  EXPECT_NEAR(spreads.at(at + "r_overhead").sigma, 0.05, 0.015);
  EXPECT_EQ(spreads.at(at + "r_overhead").nights, 40);
  EXPECT_NEAR(spreads.at(at + "r_comm").sigma, 0.05, 0.02);  // the step and the wild night barely count
  EXPECT_NEAR(spreads.at(at + "r_comp_slowdown").sigma, 0.05, 0.015);  // of log values, not 1.2 x 0.05
  EXPECT_EQ(spreads.count(at + "r_mpi_impact"), 0u);                   // 2 valid nights: no spread
  // The plain sd of the stepped series would be about 0.25: the step is not noise.
  HistoryCheckOptions newest;
  newest.max_nights = 15;  // only the newest nights count
  EXPECT_EQ(BetweenRunSpreads(series, newest).at(at + "r_overhead").nights, 15);
  // An r_mpi_impact measurement reused by the nights after it is one value:
  // its copies are no nights, and their zero steps no spread.
  const auto reused = BetweenRunSpreads({Series("r_mpi_impact", {1.0, 1.0, 1.0, 1.1, 1.1, 1.1, 1.05, 1.05})},
                                        HistoryCheckOptions{});
  ASSERT_EQ(reused.count(at + "r_mpi_impact"), 1u);
  EXPECT_EQ(reused.at(at + "r_mpi_impact").nights, 3);
  EXPECT_GT(reused.at(at + "r_mpi_impact").sigma, 0.03);
}

// The trend of a series is the check's own reading of it: the levels
// either side of the change it reports, each with the between-run band, the
// change at the night the check names, the outlier it names ringed, a
// refused night without a value.
TEST(Trends, LevelsBandsChangesAndOutliersComeFromTheCheck) {
  std::vector<double> v = Step(0.1, 0.8, 12, 4);
  v[5] = 0.9;  // one wild night on the old level
  v[8] = NAN;  // one refused night
  const std::vector<TrendSeries> trends = Trends({Series("r_overhead", v)}, HistoryCheckOptions{});
  ASSERT_EQ(trends.size(), 1u);
  const TrendSeries& t = trends[0];
  EXPECT_EQ(t.test, "openmpi.ibcast.n2.basic");
  EXPECT_EQ(t.ratio, "r_overhead");
  ASSERT_EQ(t.nights.size(), 16u);
  EXPECT_FALSE(t.nights[8].median.has_value());
  EXPECT_TRUE(t.nights[5].outlier);
  EXPECT_EQ(std::count_if(t.nights.begin(), t.nights.end(), [](const TrendNight& n) { return n.outlier; }),
            1);
  ASSERT_EQ(t.changes, std::vector<int>{12});
  EXPECT_EQ(t.nights[12].date, "2026-09-13T03:00:00Z");
  ASSERT_EQ(t.levels.size(), 2u);
  EXPECT_EQ(t.levels[0].first, 0);
  EXPECT_EQ(t.levels[0].last, 11);
  EXPECT_EQ(t.levels[1].first, 12);
  EXPECT_EQ(t.levels[1].last, 15);
  EXPECT_NEAR(t.levels[0].level, 0.1, 0.02);  // the wild night is not in the level
  EXPECT_NEAR(t.levels[1].level, 0.8, 0.02);
  const double sd = BetweenRunSpreads({Series("r_overhead", v)}, HistoryCheckOptions{}).begin()->second.sigma;
  EXPECT_GT(sd, 0);
  EXPECT_NEAR(t.levels[0].band_hi - t.levels[0].level, 3 * sd, 1e-12);
  EXPECT_NEAR(t.levels[0].level - t.levels[0].band_lo, 3 * sd, 1e-12);
  ASSERT_FALSE(t.findings.empty());
  EXPECT_TRUE(t.undecided.empty());
}

TEST(Trends, AShortSeriesIsDrawnWithoutLevels) {
  const std::vector<TrendSeries> trends = Trends({Series("r_comp_slowdown", {1.0, 1.1, 1.05})}, {});
  ASSERT_EQ(trends.size(), 1u);
  EXPECT_EQ(trends[0].nights.size(), 3u);
  EXPECT_TRUE(trends[0].levels.empty());
  EXPECT_TRUE(trends[0].changes.empty());
  EXPECT_FALSE(trends[0].undecided.empty());
}

}  // namespace
}  // namespace nbcguard
