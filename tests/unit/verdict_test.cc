#include "nbcguard/verdict.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "nbcguard/case_spec.h"
#include "nbcguard/stats.h"
#include "spec_fixture.h"

namespace nbcguard {
namespace {

Spread S(double median, double lo, double hi) {
  Spread s;
  s.n = 15;
  s.median = median;
  s.lo = lo;
  s.hi = hi;
  s.min = lo;
  s.max = hi;
  s.confidence = 0.96;
  return s;
}

// A valid point with every ratio fine (overlap).
PointResult Good(double comm, double comp) {
  PointResult p;
  p.comm_target = comm;
  p.comp_target = comp;
  p.valid = true;
  p.r_overhead = S(0.1, 0.05, 0.15);
  p.r_comm = S(0.1, 0.05, 0.15);
  p.r_comp_slowdown = S(1.0, 0.98, 1.02);
  p.r_mpi_impact = S(1.0, 0.99, 1.01);
  p.diagnosis = Diagnosis::kOverlap;
  return p;
}

PointResult Invalid(double comm, double comp, const std::string& reason) {
  PointResult p;
  p.comm_target = comm;
  p.comp_target = comp;
  p.valid = false;
  p.invalid_reason = reason;
  p.r_overhead = p.r_comm = p.r_comp_slowdown = p.r_mpi_impact = S(kNaN, kNaN, kNaN);
  p.diagnosis = Diagnosis::kInvalid;
  return p;
}

Limit Max(Metric m, double v) {
  Limit l;
  l.metric = m;
  l.max = v;
  return l;
}

Limit Min(Metric m, double v) {
  Limit l;
  l.metric = m;
  l.min = v;
  return l;
}

Rule MakeRule(const std::string& name, std::vector<Limit> limits) {
  Rule r;
  r.name = name;
  r.where.file = "thresholds/mpich.yaml";
  r.where.line = 12;
  r.where.column = 3;
  r.source = "measured";
  r.limits = std::move(limits);
  return r;
}

TestContext Ctx() {
  TestContext t;
  t.collective = "ibcast";
  t.nodes = 2;
  t.deployment = Deployment::kProgress;
  t.labels = {"nightly", "small"};
  return t;
}

// 3x3 grid, 1ms/4ms/16ms on each axis.
std::vector<PointResult> Grid() {
  std::vector<PointResult> g;
  for (double comm : {1e-3, 4e-3, 16e-3}) {
    for (double comp : {1e-3, 4e-3, 16e-3}) g.push_back(Good(comm, comp));
  }
  return g;
}

PointResult* Find(std::vector<PointResult>& g, double comm, double comp) {
  for (auto& p : g) {
    if (p.comm_target == comm && p.comp_target == comp) return &p;
  }
  return nullptr;
}

TEST(VerdictTest, RuleAppliesEmptyMatchesAnything) {
  const Rule r = MakeRule("any", {Max(Metric::kOverhead, 0.5)});
  EXPECT_TRUE(RuleApplies(r, Ctx()));
  EXPECT_TRUE(RuleApplies(r, TestContext()));
}

TEST(VerdictTest, RuleAppliesByEachField) {
  const TestContext t = Ctx();
  Rule r = MakeRule("r", {Max(Metric::kOverhead, 0.5)});
  r.match.deployments = {Deployment::kBasic};
  EXPECT_FALSE(RuleApplies(r, t));
  r.match.deployments = {Deployment::kBasic, Deployment::kProgress};
  EXPECT_TRUE(RuleApplies(r, t));

  r.match.collectives = {"ireduce"};
  EXPECT_FALSE(RuleApplies(r, t));
  r.match.collectives = {"ireduce", "ibcast"};
  EXPECT_TRUE(RuleApplies(r, t));

  r.match.nodes = {1, 4};
  EXPECT_FALSE(RuleApplies(r, t));
  r.match.nodes = {2};
  EXPECT_TRUE(RuleApplies(r, t));

  r.match.labels = {"weekly"};
  EXPECT_FALSE(RuleApplies(r, t));
  r.match.labels = {"weekly", "small"};  // any overlap is enough
  EXPECT_TRUE(RuleApplies(r, t));

  TestContext unlabeled = t;
  unlabeled.labels.clear();
  EXPECT_FALSE(RuleApplies(r, unlabeled));
}

// A rule for named systems applies on those only; a run with no system set
// is on none of them.
TEST(VerdictTest, RuleAppliesOnItsSystemsOnly) {
  TestContext t = Ctx();
  Rule r = MakeRule("r", {Max(Metric::kOverhead, 0.5)});
  r.match.systems = {"cluster-a", "cluster-b"};
  EXPECT_FALSE(RuleApplies(r, t));
  t.system = "cluster-c";
  EXPECT_FALSE(RuleApplies(r, t));
  t.system = "cluster-b";
  EXPECT_TRUE(RuleApplies(r, t));
  r.match.systems.clear();
  EXPECT_TRUE(RuleApplies(r, t));
}

TEST(VerdictTest, AllGoodPasses) {
  const Verdict v = Evaluate(Grid(), Ctx(), {MakeRule("ok", {Max(Metric::kOverhead, 0.5)})});
  EXPECT_TRUE(v.pass) << v.Summary();
  EXPECT_EQ(v.rules_applied, 1);
  EXPECT_EQ(v.points_checked, 9);
  EXPECT_TRUE(v.failures.empty());
  EXPECT_TRUE(v.within_noise.empty());
  EXPECT_TRUE(v.invalid.empty());
  EXPECT_EQ(v.Summary(), "PASS: 1 rule(s), 9 point check(s)");
}

TEST(VerdictTest, NoRulesFails) {
  const Verdict v = Evaluate(Grid(), Ctx(), {});
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.rules_applied, 0);
  EXPECT_EQ(v.Summary(), "FAIL: no threshold rule applies to this test");
}

TEST(VerdictTest, RuleThatDoesNotApplyIsIgnored) {
  auto grid = Grid();
  Find(grid, 4e-3, 4e-3)->r_overhead = S(3.0, 2.5, 3.5);  // would fail
  Rule r = MakeRule("basic only", {Max(Metric::kOverhead, 0.5)});
  r.match.deployments = {Deployment::kBasic};
  const Verdict v = Evaluate(grid, Ctx(), {r});
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.rules_applied, 0);
  EXPECT_EQ(v.points_checked, 0);
  EXPECT_TRUE(v.failures.empty());
  EXPECT_EQ(v.Summary(), "FAIL: no threshold rule applies to this test");
}

TEST(VerdictTest, RegionFilteringDiagonalBand) {
  auto grid = Grid();
  // Off the band (comp/comm = 16 and 1/16): bad, but not checked.
  Find(grid, 1e-3, 16e-3)->r_overhead = S(3.0, 2.5, 3.5);
  Find(grid, 16e-3, 1e-3)->r_overhead = S(3.0, 2.5, 3.5);
  Rule r = MakeRule("diagonal", {Max(Metric::kOverhead, 0.5)});
  r.region.comp_over_comm_min = 0.25;
  r.region.comp_over_comm_max = 4;
  Verdict v = Evaluate(grid, Ctx(), {r});
  EXPECT_TRUE(v.pass) << v.Summary();
  EXPECT_EQ(v.points_checked, 7);  // 9 minus the two corners
  // The checked region lists each point once, without the corners.
  ASSERT_EQ(v.checked.size(), 7u);
  for (const auto& [comm, comp] : v.checked) EXPECT_LE(std::max(comm / comp, comp / comm), 4.0 + 1e-9);
  // A second rule over the same points adds checks, not points.
  v = Evaluate(grid, Ctx(), {r, r});
  EXPECT_EQ(v.points_checked, 14);
  EXPECT_EQ(v.checked.size(), 7u);

  // On the band edge (comp/comm = 4): checked.
  Find(grid, 1e-3, 4e-3)->r_overhead = S(3.0, 2.5, 3.5);
  v = Evaluate(grid, Ctx(), {r});
  EXPECT_FALSE(v.pass);
  ASSERT_EQ(v.failures.size(), 1u);
  EXPECT_EQ(v.failures[0].comm_target, 1e-3);
  EXPECT_EQ(v.failures[0].comp_target, 4e-3);
}

TEST(VerdictTest, MaxLimitBeyondAndWithinNoise) {
  auto grid = Grid();
  PointResult* beyond = Find(grid, 4e-3, 4e-3);
  beyond->r_overhead = S(1.42, 1.31, 1.55);
  beyond->diagnosis = Diagnosis::kNoProgression;
  PointResult* noisy = Find(grid, 1e-3, 1e-3);
  noisy->r_overhead = S(1.35, 1.2, 1.5);  // median past, interval reaches back
  const Verdict v = Evaluate(grid, Ctx(), {MakeRule("overlap", {Max(Metric::kOverhead, 1.3)})});
  EXPECT_FALSE(v.pass);
  ASSERT_EQ(v.failures.size(), 1u);
  ASSERT_EQ(v.within_noise.size(), 1u);
  const Finding& f = v.failures[0];
  EXPECT_TRUE(f.is_max);
  EXPECT_TRUE(f.beyond_noise);
  EXPECT_EQ(f.metric, Metric::kOverhead);
  EXPECT_DOUBLE_EQ(f.limit, 1.3);
  EXPECT_DOUBLE_EQ(f.measured.median, 1.42);
  EXPECT_EQ(f.diagnosis, Diagnosis::kNoProgression);
  EXPECT_FALSE(v.within_noise[0].beyond_noise);
  EXPECT_EQ(v.within_noise[0].comm_target, 1e-3);
  EXPECT_EQ(v.Summary(),
            "FAIL: 1 limit(s) exceeded beyond noise; 1 rule(s), 9 point check(s), 1 within noise");
}

TEST(VerdictTest, WithinNoiseAloneStillPasses) {
  auto grid = Grid();
  Find(grid, 1e-3, 1e-3)->r_overhead = S(0.55, 0.45, 0.65);
  const Verdict v = Evaluate(grid, Ctx(), {MakeRule("ok", {Max(Metric::kOverhead, 0.5)})});
  EXPECT_TRUE(v.pass);
  EXPECT_EQ(v.within_noise.size(), 1u);
  EXPECT_EQ(v.Summary(), "PASS: 1 rule(s), 9 point check(s), 1 within noise");
}

TEST(VerdictTest, LimitExactlyAtBoundIsNotExceeded) {
  auto grid = Grid();
  Find(grid, 1e-3, 1e-3)->r_overhead = S(0.5, 0.5, 0.5);
  const Verdict v = Evaluate(grid, Ctx(), {MakeRule("ok", {Max(Metric::kOverhead, 0.5)})});
  EXPECT_TRUE(v.pass);
  EXPECT_TRUE(v.within_noise.empty());
}

TEST(VerdictTest, MinLimit) {
  auto grid = Grid();
  Find(grid, 4e-3, 4e-3)->r_mpi_impact = S(0.5, 0.4, 0.6);    // hi < min: failure
  Find(grid, 1e-3, 1e-3)->r_mpi_impact = S(0.85, 0.8, 0.95);  // median < min, hi >= min
  const Verdict v = Evaluate(grid, Ctx(), {MakeRule("sane", {Min(Metric::kMpiImpact, 0.9)})});
  EXPECT_FALSE(v.pass);
  ASSERT_EQ(v.failures.size(), 1u);
  EXPECT_FALSE(v.failures[0].is_max);
  EXPECT_EQ(v.failures[0].metric, Metric::kMpiImpact);
  ASSERT_EQ(v.within_noise.size(), 1u);
  EXPECT_FALSE(v.within_noise[0].is_max);
  EXPECT_NE(v.failures[0].Message().find("< min 0.900"), std::string::npos) << v.failures[0].Message();
}

TEST(VerdictTest, MinAndMaxOnOneLimitAndEachMetric) {
  auto grid = Grid();
  Find(grid, 4e-3, 4e-3)->r_comm = S(1.0, 0.9, 1.1);
  Find(grid, 4e-3, 16e-3)->r_comp_slowdown = S(1.5, 1.4, 1.6);
  Find(grid, 16e-3, 4e-3)->r_comp_slowdown = S(0.5, 0.4, 0.6);
  Limit band;
  band.metric = Metric::kCompSlowdown;
  band.min = 0.8;
  band.max = 1.2;
  const Verdict v =
      Evaluate(grid, Ctx(), {MakeRule("comm", {Max(Metric::kComm, 0.5)}), MakeRule("comp", {band})});
  EXPECT_EQ(v.rules_applied, 2);
  EXPECT_EQ(v.points_checked, 18);
  ASSERT_EQ(v.failures.size(), 3u);
  EXPECT_EQ(v.failures[0].rule, "comm");
  EXPECT_EQ(v.failures[0].metric, Metric::kComm);
  EXPECT_EQ(v.failures[1].rule, "comp");
  EXPECT_TRUE(v.failures[1].is_max);
  EXPECT_EQ(v.failures[1].comp_target, 16e-3);
  EXPECT_FALSE(v.failures[2].is_max);
  EXPECT_EQ(v.failures[2].comm_target, 16e-3);
}

TEST(VerdictTest, InvalidPointInRegionFails) {
  auto grid = Grid();
  *Find(grid, 4e-3, 4e-3) = Invalid(4e-3, 4e-3, "calibration did not converge");
  Rule r = MakeRule("diagonal", {Max(Metric::kOverhead, 0.5), Max(Metric::kComm, 0.5)});
  r.region.comp_over_comm_min = 0.25;
  r.region.comp_over_comm_max = 4;
  const Verdict v = Evaluate(grid, Ctx(), {r});
  EXPECT_FALSE(v.pass);
  EXPECT_TRUE(v.failures.empty());
  ASSERT_EQ(v.invalid.size(), 1u);  // once per point per rule, not per limit
  EXPECT_EQ(v.invalid[0].line, "comm=4ms comp=4ms: INVALID (calibration did not converge) [rule 'diagonal']");
  EXPECT_EQ(v.points_checked, 6);
  EXPECT_EQ(v.Summary(), "FAIL: 1 invalid point(s); 1 rule(s), 6 point check(s)");
}

TEST(VerdictTest, InvalidPointOutsideRegionDoesNotFail) {
  auto grid = Grid();
  *Find(grid, 1e-3, 16e-3) = Invalid(1e-3, 16e-3, "no sample survived");
  Rule r = MakeRule("diagonal", {Max(Metric::kOverhead, 0.5)});
  r.region.comp_over_comm_min = 0.25;
  r.region.comp_over_comm_max = 4;
  const Verdict v = Evaluate(grid, Ctx(), {r});
  EXPECT_TRUE(v.pass) << v.Summary();
  EXPECT_TRUE(v.invalid.empty());
}

// cpu_busy_* are judged like the ratios: the whole interval past the limit
// fails, a median past it with the interval reaching back is within noise.
TEST(VerdictTest, CpuBusyLimitsUseTheConfidenceInterval) {
  auto grid = Grid();
  for (PointResult& p : grid) {
    p.cpu_busy_nbc = S(0.05, 0.02, 0.1);
    p.cpu_busy_blocking = S(1.0, 0.99, 1.0);
  }
  // The 4 ms communication row polls in MPI_Wait; 16 ms mostly, not surely.
  for (double comp : {1e-3, 4e-3, 16e-3}) {
    Find(grid, 4e-3, comp)->cpu_busy_nbc = S(0.98, 0.9, 1.0);
    Find(grid, 16e-3, comp)->cpu_busy_nbc = S(0.6, 0.3, 0.9);
  }
  const Verdict v = Evaluate(grid, Ctx(), {MakeRule("free", {Max(Metric::kCpuBusyNbc, 0.5)})});
  EXPECT_FALSE(v.pass);
  ASSERT_EQ(v.failures.size(), 3u);
  for (const Finding& f : v.failures) {
    EXPECT_EQ(f.metric, Metric::kCpuBusyNbc);
    EXPECT_EQ(f.comm_target, 4e-3);
  }
  EXPECT_NE(v.failures[0].Message().find("cpu_busy_nbc = 0.980 [0.900, 1.00] > max 0.500"), std::string::npos)
      << v.failures[0].Message();
  ASSERT_EQ(v.within_noise.size(), 3u);
  EXPECT_EQ(v.within_noise[0].comm_target, 16e-3);
  // The blocking fraction has its own limit.
  EXPECT_TRUE(Evaluate(grid, Ctx(), {MakeRule("polls", {Min(Metric::kCpuBusyBlocking, 0.9)})}).pass);
}

// A point without the CPU phase (a results file or a run from before it) is
// not measured, never 0: a limit on it makes the point invalid.
TEST(VerdictTest, CpuBusyNotMeasuredIsInvalidNotZero) {
  const PointResult fresh;
  EXPECT_TRUE(std::isnan(fresh.cpu_busy_nbc.median));
  EXPECT_TRUE(std::isnan(fresh.cpu_busy_blocking.median));
  const Verdict v = Evaluate(Grid(), Ctx(), {MakeRule("free", {Max(Metric::kCpuBusyNbc, 0.5)})});
  EXPECT_FALSE(v.pass);
  EXPECT_TRUE(v.failures.empty());
  ASSERT_EQ(v.invalid.size(), 9u);
  EXPECT_NE(v.invalid[0].line.find("no measured cpu_busy_nbc"), std::string::npos) << v.invalid[0].line;
}

// r_mpi_impact left unmeasured by a disturbance (its job's rank fell behind
// twice) refuses the points a rule on it judges: INCONCLUSIVE, not FAIL;
// another metric unmeasured at the same point still makes it invalid.
TEST(VerdictTest, ImpactRefusedByADisturbanceIsUndecided) {
  auto grid = Grid();
  PointResult* p = Find(grid, 1e-3, 1e-3);
  p->r_mpi_impact = S(kNaN, kNaN, kNaN);
  p->mpi_impact_refused = "a rank of the computation with MPI idle fell behind its start times twice";
  Verdict v = Evaluate(grid, Ctx(), {MakeRule("impact", {Max(Metric::kMpiImpact, 1.1)})});
  EXPECT_FALSE(v.pass);
  EXPECT_TRUE(v.Inconclusive()) << v.Summary();
  ASSERT_EQ(v.invalid.size(), 1u);
  EXPECT_TRUE(v.invalid[0].refused);
  EXPECT_NE(
      v.invalid[0].line.find("no measured r_mpi_impact: refused, a rank of the computation with MPI idle"),
      std::string::npos)
      << v.invalid[0].line;
  p->cpu_busy_nbc = S(kNaN, kNaN, kNaN);
  v = Evaluate(grid, Ctx(),
               {MakeRule("both", {Max(Metric::kMpiImpact, 1.1), Max(Metric::kCpuBusyNbc, 0.5)})});
  EXPECT_FALSE(v.Inconclusive()) << v.Summary();
  EXPECT_EQ(v.invalid.size(), 10u);  // the refused line, and cpu_busy_nbc nowhere measured
  // Without the reason, a missing r_mpi_impact is a point not measured.
  p->mpi_impact_refused.clear();
  v = Evaluate(grid, Ctx(), {MakeRule("impact", {Max(Metric::kMpiImpact, 1.1)})});
  EXPECT_FALSE(v.Inconclusive()) << v.Summary();
}

// What a confirming job must measure: a metric some applying rule limits
// at one of its points (its region), and nothing else.
TEST(VerdictTest, RulesLimitLooksAtTheRulesThatApplyAndTheirRegions) {
  Rule impact = MakeRule("impact", {Max(Metric::kMpiImpact, 1.3)});
  impact.region.comm_min = 4e-3;
  const Rule overhead = MakeRule("overhead", {Max(Metric::kOverhead, 0.5)});
  const std::vector<std::pair<double, double>> small = {{1e-3, 1e-3}}, large = {{1e-3, 1e-3}, {16e-3, 4e-3}};
  EXPECT_FALSE(RulesLimit({overhead}, Ctx(), Metric::kMpiImpact, large));
  EXPECT_TRUE(RulesLimit({overhead}, Ctx(), Metric::kOverhead, small));
  EXPECT_FALSE(RulesLimit({overhead, impact}, Ctx(), Metric::kMpiImpact, small));  // outside its region
  EXPECT_TRUE(RulesLimit({overhead, impact}, Ctx(), Metric::kMpiImpact, large));
  EXPECT_FALSE(RulesLimit({overhead, impact}, Ctx(), Metric::kMpiImpact, {}));
  Rule other = impact;
  other.match.deployments = {Deployment::kBasic};  // the context is the progress deployment
  EXPECT_FALSE(RulesLimit({other}, Ctx(), Metric::kMpiImpact, large));
}

TEST(VerdictTest, NaNMedianOfCheckedMetricIsInvalid) {
  auto grid = Grid();
  Find(grid, 1e-3, 1e-3)->r_mpi_impact = S(kNaN, kNaN, kNaN);
  // A rule on another metric does not care.
  Verdict v = Evaluate(grid, Ctx(), {MakeRule("overhead", {Max(Metric::kOverhead, 0.5)})});
  EXPECT_TRUE(v.pass) << v.Summary();
  // A rule on that metric does.
  v = Evaluate(grid, Ctx(), {MakeRule("impact", {Max(Metric::kMpiImpact, 1.1)})});
  EXPECT_FALSE(v.pass);
  ASSERT_EQ(v.invalid.size(), 1u);
  EXPECT_NE(v.invalid[0].line.find("comm=1ms comp=1ms: INVALID ("), std::string::npos) << v.invalid[0].line;
  EXPECT_NE(v.invalid[0].line.find("r_mpi_impact"), std::string::npos) << v.invalid[0].line;
  EXPECT_NE(v.invalid[0].line.find("[rule 'impact']"), std::string::npos) << v.invalid[0].line;
}

TEST(VerdictTest, RuleWithEmptyRegionChecksNothingAndFails) {
  Rule r = MakeRule("huge only", {Max(Metric::kOverhead, 0.5)});
  r.region.comm_min = 1.0;  // no grid point has a 1 s communication
  const Verdict v = Evaluate(Grid(), Ctx(), {r});
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.rules_applied, 1);
  EXPECT_EQ(v.points_checked, 0);
  EXPECT_EQ(v.Summary(), "FAIL: no grid point in any rule's region; 1 rule(s), 0 point check(s)");
}

TEST(VerdictTest, CountsOverSeveralRules) {
  auto grid = Grid();
  Find(grid, 4e-3, 4e-3)->r_overhead = S(2.0, 1.8, 2.2);
  Find(grid, 16e-3, 16e-3)->r_overhead = S(2.0, 1.8, 2.2);
  *Find(grid, 1e-3, 1e-3) = Invalid(1e-3, 1e-3, "late barrier");
  Rule a = MakeRule("a", {Max(Metric::kOverhead, 1.0)});
  Rule b = MakeRule("b", {Max(Metric::kComm, 0.5)});
  Rule c = MakeRule("c", {Max(Metric::kCompSlowdown, 1.2)});
  Rule skipped = MakeRule("skipped", {Max(Metric::kOverhead, 0.0)});
  skipped.match.nodes = {64};
  const Verdict v = Evaluate(grid, Ctx(), {a, skipped, b, c});
  EXPECT_EQ(v.rules_applied, 3);
  EXPECT_EQ(v.points_checked, 24);
  EXPECT_EQ(v.failures.size(), 2u);
  EXPECT_EQ(v.invalid.size(), 3u);  // once per applicable rule
  EXPECT_EQ(v.Summary(),
            "FAIL: 2 limit(s) exceeded beyond noise, 3 invalid point(s); 3 rule(s), 24 point "
            "check(s)");
}

TEST(VerdictTest, MessageNamesRulePointValueLimitAndDiagnosis) {
  auto grid = Grid();
  PointResult* p = Find(grid, 4e-3, 1e-3);
  p->r_overhead = S(1.42, 1.31, 1.55);
  p->diagnosis = Diagnosis::kNoProgression;
  Rule r = MakeRule("x", {Max(Metric::kOverhead, 1.3)});
  const Verdict v = Evaluate(grid, Ctx(), {r});
  ASSERT_EQ(v.failures.size(), 1u);
  const std::string m = v.failures[0].Message();
  EXPECT_EQ(m, std::string("rule 'x' (thresholds/mpich.yaml:12) at comm=4ms comp=1ms: r_overhead = "
                           "1.42 [1.31, 1.55] > max 1.30 -- no-progression: ") +
                   Explain(Diagnosis::kNoProgression));
}

TEST(VerdictTest, MessageWithinNoiseAndFormatting) {
  Finding f;
  f.rule = "impact";
  f.comm_target = 5e-4;
  f.comp_target = 2;
  f.metric = Metric::kMpiImpact;
  f.measured = S(0.05, 0.0123456, 123.4);
  f.limit = 0.1;
  f.is_max = false;
  f.beyond_noise = false;
  f.diagnosis = Diagnosis::kPassiveImpact;
  const std::string m = f.Message();
  EXPECT_EQ(m.find("rule 'impact' at comm=500us comp=2s: r_mpi_impact = 0.0500 [0.0123, 123] "
                   "< min 0.100 (within noise) -- passive-runtime-impact: "),
            0u)
      << m;
}

// ---------------------------------------------------------------- project files

// A test that some rule of a library's threshold file applies to, but whose
// grid has no point in any applying rule's region, checks nothing and fails
// with "no grid point in any rule's region" on every run: a case moved to
// another tier or given another grid without its rules following. Caught
// here, before a pipeline runs it. (Tests no rule applies to at all are
// left to the run: they SKIP where the library lacks the deployment.)
TEST(VerdictProjectFiles, EveryRuledCaseHasAPointInARegion) {
  const std::string root = NBCGUARD_SOURCE_DIR;
  std::vector<ThresholdSpec> specs;
  for (const auto& path : testing::YamlFiles(root + "/thresholds")) {
    Parsed<ThresholdSpec> t = LoadThresholdSpec(path);
    ASSERT_TRUE(t.ok()) << t.ErrorText();
    specs.push_back(*t.value);
  }
  std::vector<std::string> cases = testing::YamlFiles(root + "/cases");
  if (cases.empty() || specs.empty()) GTEST_SKIP() << "no cases/ or thresholds/ files yet";
  int ruled = 0;
  for (const auto& path : cases) {
    Parsed<CaseSpec> c = LoadCaseSpec(path);
    ASSERT_TRUE(c.ok()) << c.ErrorText();
    if (c.value->kind != CaseKind::kOverlap) continue;
    for (const ThresholdSpec& spec : specs) {
      for (int nodes : c.value->nodes) {
        for (Deployment d : c.value->deployments) {
          const TestContext test{c.value->collective, nodes, d, c.value->labels, c.value->kind, ""};
          bool applies = false, checks = false;
          for (const Rule& rule : spec.rules) {
            if (!RuleApplies(rule, test)) continue;
            applies = true;
            for (double comm : c.value->comm_times) {
              for (double comp : c.value->comp_times) checks |= rule.region.Contains(comm, comp);
            }
          }
          if (!applies) continue;
          ++ruled;
          EXPECT_TRUE(checks) << path << " (" << ToString(d) << ", " << nodes << " ranks) under " << spec.file
                              << ": rules apply but no grid point lies in their regions";
        }
      }
    }
  }
  EXPECT_GT(ruled, 0) << "no case is judged by any rule";
}

// Confirm: the first job fails r_overhead <= 0.8 beyond noise at two
// points; the second job measures them again.
// The 16ms x 16ms point of g with r_overhead r, flagged for a rank
// imbalance whose share of r_overhead is effect.
PointResult* Imbalanced(std::vector<PointResult>& g, const Spread& r, double effect) {
  PointResult* p = Find(g, 16e-3, 16e-3);
  p->r_overhead = r;
  p->imbalance.flagged = true;
  p->imbalance.effect = effect;
  return p;
}

struct TwoFailures {
  Rule rule = MakeRule("progress", {Max(Metric::kOverhead, 0.8)});
  std::vector<PointResult> first = Grid();
  Verdict v;
  TwoFailures() {
    Find(first, 16e-3, 16e-3)->r_overhead = S(1.09, 0.82, 1.31);
    Find(first, 4e-3, 16e-3)->r_overhead = S(1.0, 0.9, 1.1);
    v = Evaluate(first, Ctx(), {rule});
  }
};

TEST(VerdictConfirmTest, SecondJobOnTheRightSideUnconfirmsThatPointOnly) {
  TwoFailures t;
  ASSERT_EQ(t.v.failures.size(), 2u);
  ASSERT_FALSE(t.v.pass);
  std::vector<PointResult> again = Grid();
  Find(again, 16e-3, 16e-3)->r_overhead = S(0.62, 0.41, 0.77);  // right side: not confirmed
  Find(again, 4e-3, 16e-3)->r_overhead = S(0.95, 0.85, 1.05);   // still past: confirmed
  const Verdict c = Confirm(t.v, again, Ctx(), {t.rule});
  EXPECT_FALSE(c.pass);
  ASSERT_EQ(c.failures.size(), 1u);
  EXPECT_EQ(c.failures[0].comm_target, 4e-3);
  EXPECT_DOUBLE_EQ(c.failures[0].again.median, 0.95);
  ASSERT_EQ(c.unconfirmed.size(), 1u);
  EXPECT_EQ(c.unconfirmed[0].comm_target, 16e-3);
  EXPECT_DOUBLE_EQ(c.unconfirmed[0].measured.median, 1.09);  // the first job's figure is kept
  EXPECT_DOUBLE_EQ(c.unconfirmed[0].again.median, 0.62);
  EXPECT_NE(c.unconfirmed[0].Message().find("measured again: 0.620 [0.410, 0.770]"), std::string::npos)
      << c.unconfirmed[0].Message();
  EXPECT_NE(c.Summary().find("1 not confirmed by a second job"), std::string::npos) << c.Summary();
}

TEST(VerdictConfirmTest, PassesWhenNoFailureIsConfirmed) {
  TwoFailures t;
  const Verdict c = Confirm(t.v, Grid(), Ctx(), {t.rule});  // the second job overlaps everywhere
  EXPECT_TRUE(c.pass) << c.Summary();
  EXPECT_TRUE(c.failures.empty());
  EXPECT_EQ(c.unconfirmed.size(), 2u);
  EXPECT_EQ(c.Summary().rfind("PASS", 0), 0u) << c.Summary();
}

TEST(VerdictConfirmTest, MedianPastTheLimitConfirmsEvenWithinNoise) {
  TwoFailures t;
  std::vector<PointResult> again = Grid();
  Find(again, 16e-3, 16e-3)->r_overhead = S(0.85, 0.6, 1.0);  // would be within noise alone
  Find(again, 4e-3, 16e-3)->r_overhead = S(0.81, 0.5, 1.2);
  const Verdict c = Confirm(t.v, again, Ctx(), {t.rule});
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.failures.size(), 2u);
  EXPECT_TRUE(c.unconfirmed.empty());
}

// A second job past a maximum only by what its own rank imbalance can add
// (median - effect <= limit) neither confirms nor clears: the finding is
// left to a further job (one_job), the other point confirms as before; the
// further job then decides on its median, unless its own imbalance accounts
// for the excess too (then undecided).
TEST(VerdictConfirmTest, PastTheLimitOnlyByImbalanceIsLeftToAFurtherJob) {
  TwoFailures t;
  std::vector<PointResult> again = Grid();
  PointResult* slow = Imbalanced(again, S(0.95, 0.9, 1.1), 0.3);  // 0.95 - 0.3 = 0.65 <= 0.8
  Find(again, 4e-3, 16e-3)->r_overhead = S(0.81, 0.5, 1.2);
  const Verdict c = Confirm(t.v, again, Ctx(), {t.rule});
  EXPECT_FALSE(c.pass);
  ASSERT_EQ(c.failures.size(), 1u);
  EXPECT_EQ(c.failures[0].comm_target, 4e-3);
  ASSERT_EQ(c.one_job.size(), 1u);
  EXPECT_EQ(c.one_job[0].comm_target, 16e-3);
  EXPECT_TRUE(c.unconfirmed.empty());
  // An imbalance too small to explain it: confirmed.
  slow->imbalance.effect = 0.1;  // 0.95 - 0.1 = 0.85 > 0.8
  EXPECT_EQ(Confirm(t.v, again, Ctx(), {t.rule}).failures.size(), 2u);
  // The further job decides on its median: past the limit confirms, on the
  // right side does not.
  std::vector<PointResult> third = Grid();
  Find(third, 16e-3, 16e-3)->r_overhead = S(0.95, 0.9, 1.1);
  const Verdict d = ConfirmOneJobFailures(c, third);
  EXPECT_EQ(d.failures.size(), 2u);
  EXPECT_TRUE(d.one_job.empty());
  Find(third, 16e-3, 16e-3)->r_overhead = S(0.7, 0.6, 0.75);
  const Verdict e = ConfirmOneJobFailures(c, third);
  EXPECT_EQ(e.failures.size(), 1u);
  EXPECT_EQ(e.unconfirmed.size(), 1u);
  // The further job past the limit only by its own imbalance: undecided,
  // not a failure (the verdict is INCONCLUSIVE, not FAIL, on that finding).
  PointResult* slow_third = Find(third, 16e-3, 16e-3);
  slow_third->r_overhead = S(0.95, 0.9, 1.1);
  slow_third->imbalance.flagged = true;
  slow_third->imbalance.effect = 0.3;
  const Verdict f = ConfirmOneJobFailures(c, third);
  EXPECT_EQ(f.failures.size(), 1u);
  ASSERT_EQ(f.one_job.size(), 1u);
  EXPECT_EQ(f.one_job[0].comm_target, 16e-3);
  EXPECT_TRUE(f.unconfirmed.empty());
  // That finding alone: the verdict is INCONCLUSIVE, not a failure.
  Verdict only = c;
  only.failures.clear();
  const Verdict g = ConfirmOneJobFailures(only, third);
  EXPECT_TRUE(g.failures.empty());
  EXPECT_FALSE(g.pass);
  EXPECT_TRUE(g.Inconclusive());
}

// A second job within a maximum only with its own rank imbalance's slack
// in the library's favour (median <= max < median + hidden) clears
// nothing: its median is no better than a lower bound there. Seen with
// MPICH, asynchronous progress off: r_overhead 1.00 [0.88, 1.30] past max
// 0.80 in the first job, then 0.69 with up to 0.59 hidden by slack in the
// second (rank 0 computing 1.38x as long as rank 1), which had passed the
// test as "not confirmed". The finding goes to a further job, which
// decides on its median the same way; a second job within the limit even
// with all the slack counted against the library does clear it.
TEST(VerdictConfirmTest, WithinTheLimitOnlyByImbalanceClearsNothing) {
  TwoFailures t;
  std::vector<PointResult> again = Grid();
  PointResult* slow = Imbalanced(again, S(0.69, 0.10, 1.09), 0.59);  // 0.69 + 0.59 = 1.28 > 0.8
  Find(again, 4e-3, 16e-3)->r_overhead = S(0.95, 0.85, 1.05);
  const Verdict c = Confirm(t.v, again, Ctx(), {t.rule});
  EXPECT_FALSE(c.pass);
  ASSERT_EQ(c.failures.size(), 1u);
  EXPECT_EQ(c.failures[0].comm_target, 4e-3);
  ASSERT_EQ(c.one_job.size(), 1u);
  EXPECT_EQ(c.one_job[0].comm_target, 16e-3);
  EXPECT_DOUBLE_EQ(c.one_job[0].again.median, 0.69);
  EXPECT_TRUE(c.unconfirmed.empty());
  // The same with only the imbalanced point failing: not a pass.
  Verdict only = t.v;
  only.failures.erase(std::remove_if(only.failures.begin(), only.failures.end(),
                                     [](const Finding& f) { return f.comm_target == 4e-3; }),
                      only.failures.end());
  const Verdict o = Confirm(only, again, Ctx(), {t.rule});
  EXPECT_FALSE(o.pass);
  EXPECT_TRUE(o.Inconclusive());
  // A further job past the limit with balanced ranks confirms it.
  std::vector<PointResult> third = Grid();
  Find(third, 16e-3, 16e-3)->r_overhead = S(1.0, 0.9, 1.1);
  const Verdict d = ConfirmOneJobFailures(o, third);
  EXPECT_EQ(d.failures.size(), 1u);
  EXPECT_TRUE(d.one_job.empty());
  // A further job within the limit only by its own slack: still undecided.
  PointResult* slow_third = Find(third, 16e-3, 16e-3);
  *slow_third = *slow;
  const Verdict e = ConfirmOneJobFailures(o, third);
  EXPECT_TRUE(e.failures.empty());
  EXPECT_EQ(e.one_job.size(), 1u);
  EXPECT_TRUE(e.Inconclusive());
  // Within the limit even with all its slack counted: not confirmed.
  slow->imbalance.effect = 0.05;  // 0.69 + 0.05 = 0.74 <= 0.8
  const Verdict f = Confirm(only, again, Ctx(), {t.rule});
  EXPECT_TRUE(f.pass);
  EXPECT_EQ(f.unconfirmed.size(), 1u);
}

TEST(VerdictConfirmTest, NoSecondMeasurementLeavesTheFailure) {
  TwoFailures t;
  std::vector<PointResult> again = Grid();
  *Find(again, 16e-3, 16e-3) = Invalid(16e-3, 16e-3, "calibration did not converge");
  again.erase(
      std::remove_if(again.begin(), again.end(), [](const PointResult& p) { return p.comm_target == 4e-3; }),
      again.end());
  const Verdict c = Confirm(t.v, again, Ctx(), {t.rule});
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.failures.size(), 2u);
  EXPECT_TRUE(c.unconfirmed.empty());
  EXPECT_EQ(c.failures[0].again.n, 0);
}

TEST(VerdictConfirmTest, MinLimitsConfirmBelow) {
  Rule r = MakeRule("impact-floor", {Min(Metric::kMpiImpact, 0.9)});
  std::vector<PointResult> first = Grid();
  Find(first, 1e-3, 1e-3)->r_mpi_impact = S(0.7, 0.6, 0.8);
  const Verdict v = Evaluate(first, Ctx(), {r});
  ASSERT_EQ(v.failures.size(), 1u);
  std::vector<PointResult> again = Grid();
  Find(again, 1e-3, 1e-3)->r_mpi_impact = S(0.85, 0.8, 0.95);
  EXPECT_FALSE(Confirm(v, again, Ctx(), {r}).pass);
  Find(again, 1e-3, 1e-3)->r_mpi_impact = S(0.95, 0.9, 1.0);
  EXPECT_TRUE(Confirm(v, again, Ctx(), {r}).pass);
}

// A point the first job could not measure (here also failing a limit at
// two others) is measured by the second job.
struct InvalidInFirstJob {
  TwoFailures t;
  Verdict v;
  InvalidInFirstJob() {
    std::vector<PointResult> first = t.first;
    *Find(first, 1e-3, 1e-3) = Invalid(1e-3, 1e-3, "calibration: the time jumps from 266us to 581us");
    v = Evaluate(first, Ctx(), {t.rule});
  }
};

TEST(VerdictConfirmTest, InvalidInBothJobsStillFails) {
  InvalidInFirstJob j;
  ASSERT_EQ(j.v.invalid.size(), 1u);
  EXPECT_EQ(j.v.invalid[0].at, std::make_pair(1e-3, 1e-3));
  std::vector<PointResult> again = Grid();
  *Find(again, 1e-3, 1e-3) = Invalid(1e-3, 1e-3, "calibration did not converge");
  const Verdict c = Confirm(j.v, again, Ctx(), {j.t.rule});
  EXPECT_FALSE(c.pass);
  EXPECT_TRUE(c.failures.empty());  // the two limits were not confirmed
  EXPECT_EQ(c.invalid, j.v.invalid);
  EXPECT_TRUE(c.remeasured.empty());
  // No second measurement of it at all: the same.
  again.erase(
      std::remove_if(again.begin(), again.end(), [](const PointResult& p) { return p.comm_target == 1e-3; }),
      again.end());
  EXPECT_EQ(Confirm(j.v, again, Ctx(), {j.t.rule}).invalid, j.v.invalid);
}

// The first job's calibration broke (a disturbed machine can do that) and
// the second job measured the point but a validity gate refused it: nothing
// was decided there, so the point is refused (INCONCLUSIVE), not a failure.
TEST(VerdictConfirmTest, InvalidThenRefusedIsInconclusive) {
  InvalidInFirstJob j;
  std::vector<PointResult> again = Grid();
  PointResult refused = Invalid(1e-3, 1e-3, "computation unstable: interquartile range 7.27 x its median");
  refused.refused = true;
  *Find(again, 1e-3, 1e-3) = refused;
  const Verdict c = Confirm(j.v, again, Ctx(), {j.t.rule});
  EXPECT_FALSE(c.pass);
  EXPECT_TRUE(c.failures.empty());
  ASSERT_EQ(c.invalid.size(), 1u);
  EXPECT_TRUE(c.invalid[0].refused);
  EXPECT_NE(c.invalid[0].line.find("266us to 581us"), std::string::npos) << c.invalid[0].line;
  EXPECT_NE(c.invalid[0].line.find("refused too: computation unstable"), std::string::npos)
      << c.invalid[0].line;
  EXPECT_TRUE(c.Inconclusive()) << c.Summary();
}

TEST(VerdictConfirmTest, InvalidInTheFirstJobIsJudgedOnTheSecond) {
  InvalidInFirstJob j;
  const int checked = j.v.points_checked;
  const Verdict c = Confirm(j.v, Grid(), Ctx(), {j.t.rule});  // valid and overlapping everywhere
  EXPECT_TRUE(c.pass) << c.Summary();
  EXPECT_TRUE(c.invalid.empty());
  ASSERT_EQ(c.remeasured.size(), 1u);
  EXPECT_NE(c.remeasured[0].find("266us to 581us"), std::string::npos) << c.remeasured[0];
  EXPECT_NE(c.remeasured[0].find("measured by a second job: within every limit"), std::string::npos)
      << c.remeasured[0];
  EXPECT_EQ(c.points_checked, checked + 1);
  EXPECT_NE(std::find(c.checked.begin(), c.checked.end(), std::make_pair(1e-3, 1e-3)), c.checked.end());
  EXPECT_NE(c.Summary().find("1 invalid measured by a second job"), std::string::npos) << c.Summary();
}

TEST(VerdictConfirmTest, InvalidInTheFirstJobFailsOnTheSecondsFigures) {
  InvalidInFirstJob j;
  std::vector<PointResult> again = Grid();
  Find(again, 1e-3, 1e-3)->r_overhead = S(0.95, 0.9, 1.0);    // past 0.8 beyond noise
  Find(again, 16e-3, 16e-3)->r_overhead = S(0.85, 0.7, 0.9);  // past within noise: the first failure stands
  const Verdict c = Confirm(j.v, again, Ctx(), {j.t.rule});
  EXPECT_FALSE(c.pass);
  EXPECT_TRUE(c.invalid.empty());
  ASSERT_EQ(c.failures.size(), 1u);
  EXPECT_EQ(c.failures[0].comm_target, 16e-3);  // the confirmed one
  // The second job's own finding: seen by one job only, a third decides.
  ASSERT_EQ(c.one_job.size(), 1u);
  EXPECT_EQ(c.one_job[0].comm_target, 1e-3);
  EXPECT_DOUBLE_EQ(c.one_job[0].measured.median, 0.95);
  EXPECT_FALSE(c.Inconclusive());  // a confirmed failure besides: FAIL
  EXPECT_NE(c.Summary().find("FAIL: 1 limit(s) exceeded beyond noise, 1 limit(s) exceeded in one job only"),
            std::string::npos)
      << c.Summary();
  ASSERT_EQ(c.remeasured.size(), 1u);
  EXPECT_NE(c.remeasured[0].find("r_overhead = 0.950"), std::string::npos) << c.remeasured[0];
  // Within noise in the second job: reported, and the test passes if
  // nothing else fails.
  Find(again, 1e-3, 1e-3)->r_overhead = S(0.85, 0.7, 1.0);
  Find(again, 16e-3, 16e-3)->r_overhead = S(0.5, 0.4, 0.6);
  Find(again, 4e-3, 16e-3)->r_overhead = S(0.5, 0.4, 0.6);
  const Verdict d = Confirm(j.v, again, Ctx(), {j.t.rule});
  EXPECT_TRUE(d.pass) << d.Summary();
  ASSERT_EQ(d.within_noise.size(), 1u);
  EXPECT_EQ(d.within_noise[0].comm_target, 1e-3);
}

// The first job refused a point (ranks computing unequally; the limit held
// only with the slack's help) and the second job exceeded the limit there:
// the case of Open MPI's Ibcast at 500us x 500us (r_mpi_impact 1.61 [1.48,
// 1.69] in the second job, 1.15 [0.85, 1.69] in the first). One job's word
// is not a failure: undecided until a third job looks.
struct RefusedThenExceeded {
  Rule rule = MakeRule("impact", {Max(Metric::kMpiImpact, 1.3)});
  Verdict first, confirmed;
  std::vector<PointResult> again = Grid();
  RefusedThenExceeded() {
    std::vector<PointResult> one = Grid();
    PointResult refused = Invalid(4e-3, 4e-3, "rank imbalance: rank 1 computed 1.31x as long as rank 0");
    refused.refused = true;
    *Find(one, 4e-3, 4e-3) = refused;
    first = Evaluate(one, Ctx(), {rule});
    Find(again, 4e-3, 4e-3)->r_mpi_impact = S(1.61, 1.48, 1.69);
    confirmed = Confirm(first, again, Ctx(), {rule});
  }
};

TEST(VerdictConfirmTest, RefusedThenExceededIsOneJobOnlyAndInconclusive) {
  RefusedThenExceeded r;
  ASSERT_TRUE(r.first.Inconclusive()) << r.first.Summary();
  const Verdict& c = r.confirmed;
  EXPECT_FALSE(c.pass);
  EXPECT_TRUE(c.failures.empty());
  EXPECT_TRUE(c.invalid.empty());
  ASSERT_EQ(c.one_job.size(), 1u);
  EXPECT_DOUBLE_EQ(c.one_job[0].measured.median, 1.61);
  EXPECT_TRUE(c.Inconclusive()) << c.Summary();
  EXPECT_NE(c.Summary().find("INCONCLUSIVE: 1 limit(s) exceeded by the only job that could judge the point, "
                             "no limit exceeded in two jobs"),
            std::string::npos)
      << c.Summary();
}

TEST(VerdictConfirmTest, AThirdJobDecidesWhatOneJobAloneExceeded) {
  RefusedThenExceeded r;
  std::vector<PointResult> third = Grid();
  // Past the same limit in the third job (within its noise is enough, as
  // for the second job of a first job's failure): a failure of two jobs.
  Find(third, 4e-3, 4e-3)->r_mpi_impact = S(1.35, 1.2, 1.5);
  Verdict d = ConfirmOneJobFailures(r.confirmed, third);
  EXPECT_FALSE(d.pass);
  EXPECT_FALSE(d.Inconclusive());
  ASSERT_EQ(d.failures.size(), 1u);
  EXPECT_TRUE(d.one_job.empty());
  EXPECT_DOUBLE_EQ(d.failures[0].measured.median, 1.61);
  EXPECT_DOUBLE_EQ(d.failures[0].again.median, 1.35);
  // On the right side: not confirmed, and nothing else stands in the way.
  Find(third, 4e-3, 4e-3)->r_mpi_impact = S(1.1, 1.0, 1.2);
  d = ConfirmOneJobFailures(r.confirmed, third);
  EXPECT_TRUE(d.pass) << d.Summary();
  ASSERT_EQ(d.unconfirmed.size(), 1u);
  EXPECT_DOUBLE_EQ(d.unconfirmed[0].again.median, 1.1);
  // Refused or not measured in the third job: still undecided.
  PointResult refused = Invalid(4e-3, 4e-3, "rank imbalance");
  refused.refused = true;
  *Find(third, 4e-3, 4e-3) = refused;
  d = ConfirmOneJobFailures(r.confirmed, third);
  EXPECT_TRUE(d.Inconclusive()) << d.Summary();
  EXPECT_EQ(d.one_job.size(), 1u);
  EXPECT_TRUE(ConfirmOneJobFailures(r.confirmed, {}).Inconclusive());
}

// Each invalid point is judged once, however many rules cover it: every
// line of a point the second job measured moves to remeasured, in the first
// job's order (rule by rule), and only a point's first line says what the
// second job found; a point the second job could not measure, or measured
// without the limited metric, stays invalid with all its lines.
TEST(VerdictConfirmTest, InvalidUnderTwoRulesIsJudgedOncePerPoint) {
  const std::vector<Rule> rules = {MakeRule("overhead", {Max(Metric::kOverhead, 0.8)}),
                                   MakeRule("comm", {Max(Metric::kComm, 0.8)})};
  std::vector<PointResult> first = Grid();
  const std::vector<std::pair<double, double>> points = {
      {1e-3, 1e-3}, {4e-3, 16e-3}, {16e-3, 1e-3}, {16e-3, 4e-3}};
  for (const auto& [comm, comp] : points)
    *Find(first, comm, comp) = Invalid(comm, comp, "calibration did not converge");
  const Verdict v = Evaluate(first, Ctx(), rules);
  ASSERT_EQ(v.invalid.size(), 8u);  // four points x two rules
  std::vector<PointResult> again = Grid();
  *Find(again, 4e-3, 16e-3) = Invalid(4e-3, 16e-3, "fewer than 3 reference samples");
  Find(again, 16e-3, 4e-3)->r_comm = S(kNaN, kNaN, kNaN);    // valid, but no r_comm
  Find(again, 16e-3, 1e-3)->r_overhead = S(0.95, 0.9, 1.0);  // past 0.8 beyond noise
  const Verdict c = Confirm(v, again, Ctx(), rules);
  EXPECT_FALSE(c.pass);
  // A line as "<point> [rule 'x']", plus " +found" where it says what the
  // second job found.
  auto brief = [](const std::string& line) {
    const std::size_t rule = line.find("[rule");
    return line.substr(0, line.find(':')) + " " + line.substr(rule, line.find(']', rule) - rule + 1) +
           (line.find("measured by a second job") == std::string::npos ? "" : " +found");
  };
  std::vector<std::string> remeasured, still;
  for (const std::string& line : c.remeasured) remeasured.push_back(brief(line));
  for (const InvalidPoint& i : c.invalid) still.push_back(brief(i.line));
  ASSERT_EQ(remeasured.size(), 4u);
  EXPECT_EQ(remeasured,
            (std::vector<std::string>{
                "comm=1ms comp=1ms [rule 'overhead'] +found", "comm=16ms comp=1ms [rule 'overhead'] +found",
                "comm=1ms comp=1ms [rule 'comm']", "comm=16ms comp=1ms [rule 'comm']"}));
  EXPECT_NE(c.remeasured[0].find("within every limit"), std::string::npos) << c.remeasured[0];
  EXPECT_NE(c.remeasured[1].find("r_overhead = 0.950"), std::string::npos) << c.remeasured[1];
  EXPECT_EQ(still, (std::vector<std::string>{
                       "comm=4ms comp=16ms [rule 'overhead']", "comm=16ms comp=4ms [rule 'overhead']",
                       "comm=4ms comp=16ms [rule 'comm']", "comm=16ms comp=4ms [rule 'comm']"}));
  EXPECT_TRUE(c.failures.empty());
  ASSERT_EQ(c.one_job.size(), 1u);  // the second job's own finding at 16ms x 1ms
  EXPECT_EQ(c.one_job[0].comm_target, 16e-3);
  EXPECT_EQ(c.points_checked, v.points_checked + 4);  // two points, once each, under both rules
  // The two points measured again, each once (the summary's "+2 in 2nd job").
  EXPECT_EQ(c.remeasured_at, (std::vector<std::pair<double, double>>{{1e-3, 1e-3}, {16e-3, 1e-3}}));
}

}  // namespace
}  // namespace nbcguard

namespace nbcguard {
namespace {

// A limit judged against the spread between jobs the history knows
// (BetweenRunNoise): the case, MPICH's Ibcast at 500us x 2ms read
// r_comm 1.24 [1.08, 1.37] in one job and 0.03 minutes later. One job's
// interval says "beyond noise"; a history whose nights move by sd 0.3 says
// it is within the spread between jobs, so it is not a failure.
TEST(VerdictBetweenJobs, ALimitExceededWithinTheSpreadBetweenJobsIsWithinNoise) {
  PointResult p = Good(500e-6, 2e-3);
  p.r_comm = S(1.24, 1.08, 1.37);
  const std::vector<Rule> rules = {MakeRule("r", {Max(Metric::kComm, 0.9)})};
  BetweenRunNoise noise;
  noise.test = "mpich.ibcast.n2.progress";
  const std::string key = SeriesKey(noise.test, "500us x 2ms", "r_comm");

  // Without a history: one job's interval decides (the first job fails, a
  // second one confirms or not).
  EXPECT_EQ(Evaluate({p}, Ctx(), rules).failures.size(), 1u);

  // sd 0.3 over 10 nights: 1.24 - 0.9 = 0.34 < 2.33 x 0.3.
  noise.between[key] = {0.3, 10};
  Verdict v = Evaluate({p}, Ctx(), rules, &noise);
  EXPECT_TRUE(v.pass);
  ASSERT_EQ(v.within_noise.size(), 1u);
  EXPECT_TRUE(v.within_noise[0].within_between);
  EXPECT_NE(v.within_noise[0].Message().find("within the spread between jobs: sd 0.3 over 10 nights"),
            std::string::npos)
      << v.within_noise[0].Message();

  // sd 0.1: 0.34 > 0.233, a failure.
  noise.between[key] = {0.1, 10};
  v = Evaluate({p}, Ctx(), rules, &noise);
  ASSERT_EQ(v.failures.size(), 1u);
  EXPECT_FALSE(v.failures[0].within_between);

  // Too few nights to know the spread: the job's interval decides.
  noise.between[key] = {0.3, 5};
  EXPECT_EQ(Evaluate({p}, Ctx(), rules, &noise).failures.size(), 1u);

  // Another test's series is not this one's.
  noise.between.clear();
  noise.between[SeriesKey("openmpi.ibcast.n2.progress", "500us x 2ms", "r_comm")] = {0.3, 10};
  EXPECT_EQ(Evaluate({p}, Ctx(), rules, &noise).failures.size(), 1u);
}

// Relative ratios are judged on log values, as the history stores their
// spread; a min limit the same way; r_mpi_impact's series is per
// computation target.
TEST(VerdictBetweenJobs, RelativeRatiosMinLimitsAndMpiImpact) {
  PointResult p = Good(1e-3, 4e-3);
  p.r_comp_slowdown = S(1.5, 1.4, 1.6);
  p.r_mpi_impact = S(1.3, 1.2, 1.4);
  p.r_overhead = S(-0.5, -0.6, -0.4);
  const std::vector<Rule> rules = {MakeRule(
      "r", {Max(Metric::kCompSlowdown, 1.2), Max(Metric::kMpiImpact, 1.1), Min(Metric::kOverhead, -0.3)})};
  BetweenRunNoise noise;
  noise.test = "t";
  // log(1.5 / 1.2) = 0.223: within 2.33 x 0.1, beyond 2.33 x 0.09.
  noise.between[SeriesKey("t", "1ms x 4ms", "r_comp_slowdown")] = {0.1, 8};
  // log(1.3 / 1.1) = 0.167, within 2.33 x 0.08 = 0.186.
  noise.between[SeriesKey("t", "* x 4ms", "r_mpi_impact")] = {0.08, 8};
  // -0.3 - (-0.5) = 0.2, within 2.33 x 0.1.
  noise.between[SeriesKey("t", "1ms x 4ms", "r_overhead")] = {0.1, 8};
  Verdict v = Evaluate({p}, Ctx(), rules, &noise);
  EXPECT_TRUE(v.failures.empty());
  EXPECT_EQ(v.within_noise.size(), 3u);
  noise.between[SeriesKey("t", "1ms x 4ms", "r_comp_slowdown")] = {0.09, 8};
  noise.between[SeriesKey("t", "1ms x 4ms", "r_overhead")] = {0.08, 8};
  v = Evaluate({p}, Ctx(), rules, &noise);
  ASSERT_EQ(v.failures.size(), 2u);
  EXPECT_EQ(v.failures[0].metric, Metric::kCompSlowdown);
  EXPECT_EQ(v.failures[1].metric, Metric::kOverhead);
}

}  // namespace
}  // namespace nbcguard
