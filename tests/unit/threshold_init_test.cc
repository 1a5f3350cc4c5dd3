#include "nbcguard/threshold_init.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nbcguard/threshold_spec.h"
#include "nbcguard/verdict.h"

namespace nbcguard {
namespace {

// One sample per run and ratio; the runs' CI lower bounds in the order given.
std::vector<EnvelopeSample> Runs(const std::string& collective, const std::vector<double>& ci_lo) {
  std::vector<EnvelopeSample> out;
  for (std::size_t r = 0; r < ci_lo.size(); ++r)
    for (const std::string& m : InitMetrics())
      out.push_back({collective, "basic", 2, "run" + std::to_string(r), m, ci_lo[r] + 0.1, ci_lo[r]});
  return out;
}

ThresholdInit Init() {
  ThresholdInit init;
  init.library = {"mpich", "4.0.2"};
  init.system = "lab-a";
  init.margin = 0.25;
  init.min_runs = 3;
  init.measured = "2026-11-26 (test)";
  return init;
}

TEST(ThresholdInit, LimitIsTheMarginAboveTheLargestLowerBoundRoundedUp) {
  EXPECT_DOUBLE_EQ(StartingLimit(1.23, 0.25), 1.54);  // 1.5375
  EXPECT_DOUBLE_EQ(StartingLimit(1.0, 0.2), 1.2);     // exactly a hundredth: not one more
  EXPECT_DOUBLE_EQ(StartingLimit(0.801, 0.0), 0.81);
}

// The file parses, has one rule per test, each applies to its test on the
// named system only, and its limits sit above every lower bound measured:
// the runs it was set from pass it.
TEST(ThresholdInit, TheFileParsesAndItsRulesPassTheRunsTheyCameFrom) {
  // largest CI lower bound 1.1 (not the last run's), x 1.25 = 1.375 -> 1.38
  std::vector<EnvelopeSample> samples = Runs("ibcast", {0.9, 1.1, 1.0});
  for (const EnvelopeSample& s : Runs("ireduce", {0.9, 0.92, 0.94, 0.96})) samples.push_back(s);
  std::string error;
  const std::string text = StartingThresholdFile(Init(), samples, &error);
  ASSERT_FALSE(text.empty()) << error;
  Parsed<ThresholdSpec> parsed = ParseThresholdSpec(text, "start.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText() << "\n" << text;
  const ThresholdSpec& spec = *parsed.value;
  EXPECT_EQ(spec.implementation, "mpich");
  EXPECT_TRUE(spec.versions.Contains("4.0.2"));
  EXPECT_FALSE(spec.versions.Contains("4.0.3"));
  ASSERT_EQ(spec.rules.size(), 2u);
  const Rule& ibcast = spec.rules[0];
  EXPECT_EQ(ibcast.name, "ibcast-basic-n2");
  ASSERT_EQ(ibcast.limits.size(), 3u);
  for (const Limit& l : ibcast.limits) {
    ASSERT_TRUE(l.max.has_value());
    EXPECT_DOUBLE_EQ(*l.max, 1.38);
  }
  EXPECT_NE(ibcast.source.find("3 runs, margin 0.25"), std::string::npos) << ibcast.source;
  EXPECT_NE(ibcast.source.find("largest CI lower bound 1.100"), std::string::npos) << ibcast.source;
  EXPECT_NE(spec.rules[1].source.find("4 runs"), std::string::npos) << spec.rules[1].source;

  TestContext test{"ibcast", 2, Deployment::kBasic, {"quick"}, CaseKind::kOverlap, "lab-a"};
  EXPECT_TRUE(RuleApplies(ibcast, test));
  EXPECT_FALSE(RuleApplies(spec.rules[1], test));  // ireduce's
  test.system = "lab-b";
  EXPECT_FALSE(RuleApplies(ibcast, test));
}

TEST(ThresholdInit, TooFewRunsOfATestWriteNothing) {
  std::vector<EnvelopeSample> samples = Runs("ibcast", {1.0, 1.0, 1.0});
  for (const EnvelopeSample& s : Runs("ireduce", {1.0, 1.0})) samples.push_back(s);
  std::string error;
  EXPECT_EQ(StartingThresholdFile(Init(), samples, &error), "");
  EXPECT_NE(error.find("too few runs of ireduce basic n2 (2)"), std::string::npos) << error;
  EXPECT_EQ(error.find("ibcast"), std::string::npos) << error;
  EXPECT_EQ(StartingThresholdFile(Init(), {}, &error), "");
  EXPECT_NE(error.find("no valid grid point"), std::string::npos) << error;
}

// A library the built-in table does not know: the file names it and says
// how to recognise it, and the running library is then identified by it.
TEST(ThresholdInit, AnUnknownLibraryIsIdentifiedByTheFile) {
  ThresholdInit init = Init();
  init.library = {"site-mpi", ""};
  init.identified_by = "Acme \"Fast\"\tMPI 2.3";  // a quote and a tab: escaped in YAML
  std::string error;
  const std::string text = StartingThresholdFile(init, Runs("ibcast", {1.0, 1.0, 1.0}), &error);
  Parsed<ThresholdSpec> parsed = ParseThresholdSpec(text, "start.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText() << "\n" << text;
  const std::vector<ThresholdSpec> specs = {*parsed.value};
  EXPECT_EQ(specs[0].identified_by, std::vector<std::string>{init.identified_by});
  EXPECT_EQ(IdentifyLibrary("Acme \"Fast\"\tMPI 2.3 (build 7)", specs).implementation, "site-mpi");
  EXPECT_NE(SelectThresholds(specs, IdentifyLibrary("Acme \"Fast\"\tMPI 2.3", specs)), nullptr);
}

}  // namespace
}  // namespace nbcguard
