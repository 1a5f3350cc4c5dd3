#include "nbcguard/threshold_spec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "spec_fixture.h"

namespace nbcguard {
namespace {

const std::string kThresholdData = NBCGUARD_TEST_DATA;

const char* const kMinimal =
    "implementation: mpich\n"
    "versions: \">=4.0\"\n"
    "rules:\n"
    "  - name: r\n"
    "    source: s\n"
    "    limits: {r_overhead: {max: 1.3}}\n";

// ---------------------------------------------------------------- good files

TEST(ThresholdSpec, FullFileParsesToTheExpectedSpec) {
  const std::string path = kThresholdData + "/thresholds/good/full.yaml";
  Parsed<ThresholdSpec> parsed = LoadThresholdSpec(path);
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText();
  const ThresholdSpec& t = *parsed.value;
  EXPECT_EQ(t.file, path);
  EXPECT_EQ(t.implementation, "mpich");
  EXPECT_EQ(t.versions.text(), ">=4.0 <5");
  EXPECT_TRUE(t.versions.Contains("4.0.2"));
  EXPECT_FALSE(t.versions.Contains("5.0"));
  ASSERT_EQ(t.rules.size(), 2u);

  const Rule& basic = t.rules[0];
  EXPECT_EQ(basic.name, "basic overhead");
  EXPECT_EQ(basic.source, "measured on the CI runner, Debian 12, 2 ranks");
  EXPECT_EQ(basic.where.file, path);
  EXPECT_EQ(basic.where.line, 5);
  EXPECT_EQ(basic.where.column, 5);
  EXPECT_EQ(basic.match.deployments, std::vector<Deployment>{Deployment::kBasic});
  EXPECT_TRUE(basic.match.collectives.empty());
  EXPECT_TRUE(basic.match.nodes.empty());
  EXPECT_FALSE(basic.region.comm_min || basic.region.comm_max || basic.region.comp_min ||
               basic.region.comp_max || basic.region.comp_over_comm_min || basic.region.comp_over_comm_max);
  ASSERT_EQ(basic.limits.size(), 2u);
  EXPECT_EQ(basic.limits[0].metric, Metric::kOverhead);
  EXPECT_EQ(basic.limits[0].max, 1.3);
  EXPECT_FALSE(basic.limits[0].min.has_value());
  EXPECT_EQ(basic.limits[1].metric, Metric::kMpiImpact);
  EXPECT_EQ(basic.limits[1].max, 1.05);

  const Rule& band = t.rules[1];
  EXPECT_EQ(band.name, "progress-band");
  EXPECT_EQ(band.where.line, 9);
  EXPECT_EQ(band.match.deployments, (std::vector<Deployment>{Deployment::kProgress, Deployment::kDedicated}));
  EXPECT_EQ(band.match.collectives, (std::vector<std::string>{"ibcast", "ireduce"}));
  EXPECT_EQ(band.match.nodes, (std::vector<int>{2, 4}));
  EXPECT_EQ(band.match.labels, std::vector<std::string>{"quick"});
  EXPECT_EQ(band.region.comp_over_comm_min, 0.25);
  EXPECT_EQ(band.region.comp_over_comm_max, 4.0);
  EXPECT_DOUBLE_EQ(band.region.comm_min.value_or(-1), 1e-3);
  EXPECT_DOUBLE_EQ(band.region.comm_max.value_or(-1), 64e-3);
  EXPECT_DOUBLE_EQ(band.region.comp_min.value_or(-1), 500e-6);
  EXPECT_FALSE(band.region.comp_max.has_value());
  ASSERT_EQ(band.limits.size(), 3u);
  EXPECT_EQ(band.limits[1].metric, Metric::kCompSlowdown);
  EXPECT_EQ(band.limits[1].min, 0.9);
  EXPECT_EQ(band.limits[1].max, 1.5);
  EXPECT_EQ(band.limits[2].metric, Metric::kComm);
  EXPECT_EQ(band.limits[2].min, 0.0);
  EXPECT_FALSE(band.limits[2].max.has_value());
}

TEST(ThresholdSpec, PartitionedRulesGetTheirKind) {
  Parsed<ThresholdSpec> parsed = LoadThresholdSpec(kThresholdData + "/thresholds/good/partitioned.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText();
  const std::vector<Rule>& rules = parsed.value->rules;
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].kind, CaseKind::kOverlap);      // from r_overhead
  EXPECT_EQ(rules[1].kind, CaseKind::kPartitioned);  // from r_partitioned
  EXPECT_EQ(rules[1].region.partition_min, std::optional<std::uint64_t>(1u << 20));
  EXPECT_FALSE(rules[1].region.partition_max.has_value());
  ASSERT_EQ(rules[1].limits.size(), 1u);
  EXPECT_EQ(rules[1].limits[0].metric, Metric::kPartitioned);
  EXPECT_EQ(rules[1].limits[0].min, std::optional<double>(0.01));
  EXPECT_EQ(rules[2].kind, CaseKind::kPartitioned);
  EXPECT_EQ(rules[2].match.kind, std::optional<CaseKind>(CaseKind::kPartitioned));
  EXPECT_EQ(rules[2].region.orders, (std::vector<std::string>{"random", "neighbour"}));
  EXPECT_EQ(rules[2].region.threads, std::vector<int>{2});
  EXPECT_TRUE(rules[2].region.ContainsPartitioned(4096, "random", 2));
  EXPECT_TRUE(rules[2].region.ContainsPartitioned(65536, "neighbour", 2));
  EXPECT_FALSE(rules[2].region.ContainsPartitioned(65536ull * 2, "random", 2));  // above max
  EXPECT_FALSE(rules[2].region.ContainsPartitioned(4096, "left-right", 2));      // other order
  EXPECT_FALSE(rules[2].region.ContainsPartitioned(4096, "random", 1));          // other thread count
  EXPECT_TRUE(Region().ContainsPartitioned(1, "left-right", 1));                 // empty region: all
}

TEST(ThresholdSpec, MinimalTextParses) {
  Parsed<ThresholdSpec> parsed = ParseThresholdSpec(kMinimal, "inline.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText();
  EXPECT_EQ(parsed.value->file, "inline.yaml");
  ASSERT_EQ(parsed.value->rules.size(), 1u);
  EXPECT_EQ(parsed.value->rules[0].where.line, 4);
  EXPECT_TRUE(parsed.value->rules[0].match.deployments.empty());
}

// Known conformance failures: a check and the words of its variant label,
// within the entry's version range; a stale or mistyped entry is an error.
TEST(ThresholdSpec, KnownConformanceFailuresMatchCheckVariantAndVersion) {
  const std::string text = std::string(kMinimal) +
                           "known_conformance_failures:\n"
                           "  - collective: igather\n"
                           "    variant: persistent root=0\n"
                           "    versions: \"==4.0.2\"\n"
                           "    reason: upstream issue 1\n"
                           "  - collective: threads\n"
                           "    reason: upstream issue 2\n"
                           "  - collective: iallgather\n"
                           "    variant: persistent !count=0\n"
                           "    reason: upstream issue 3\n";
  Parsed<ThresholdSpec> parsed = ParseThresholdSpec(text, "inline.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText();
  const auto& k = parsed.value->known_conformance_failures;
  ASSERT_EQ(k.size(), 3u);
  EXPECT_EQ(k[0].where.line, 8);
  EXPECT_TRUE(k[0].Matches("igather", "root=0 datatype=int comm=world count=7 persistent", "4.0.2"));
  EXPECT_FALSE(k[0].Matches("igather", "root=0 datatype=int comm=world count=7", "4.0.2"));  // not persistent
  EXPECT_FALSE(k[0].Matches("igather", "root=3 datatype=int comm=world count=7 persistent", "4.0.2"));
  EXPECT_FALSE(k[0].Matches("igather", "root=0 datatype=int comm=world count=7 persistent", "4.1.0"));
  EXPECT_FALSE(k[0].Matches("igatherv", "root=0 datatype=int comm=world count=7 persistent", "4.0.2"));
  EXPECT_TRUE(k[1].Matches("threads", "threads=2 MPI_THREAD_MULTIPLE", "9.9"));  // no variant, no range: any
  EXPECT_TRUE(k[2].Matches("iallgather", "datatype=int comm=world count=7 persistent", "4.0.2"));
  EXPECT_FALSE(
      k[2].Matches("iallgather", "datatype=int comm=world count=0 persistent", "4.0.2"));  // !count=0

  Parsed<ThresholdSpec> bad = ParseThresholdSpec(std::string(kMinimal) +
                                                     "known_conformance_failures:\n"
                                                     "  - collective: ibcats\n"
                                                     "    reason: r\n",
                                                 "bad.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.ErrorText().find("bad.yaml:8"), std::string::npos) << bad.ErrorText();
  EXPECT_NE(bad.ErrorText().find("known_conformance_failures[0].collective: expected one of ibcast"),
            std::string::npos)
      << bad.ErrorText();
  Parsed<ThresholdSpec> no_reason = ParseThresholdSpec(
      std::string(kMinimal) + "known_conformance_failures:\n  - collective: ibcast\n", "r.yaml");
  ASSERT_FALSE(no_reason.ok());
  EXPECT_NE(no_reason.ErrorText().find("reason"), std::string::npos) << no_reason.ErrorText();
}

// The CPU-busy fractions of Hoefler et al., 2006 are limited like the ratios.
TEST(ThresholdSpec, CpuBusyMetricsParse) {
  Parsed<ThresholdSpec> parsed = ParseThresholdSpec(
      "implementation: openmpi\n"
      "versions: \"*\"\n"
      "rules:\n"
      "  - name: leaves the CPU free\n"
      "    source: s\n"
      "    limits: {cpu_busy_nbc: {max: 0.5}, cpu_busy_blocking: {min: 0.1, max: 1.2}}\n",
      "inline.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText();
  const Rule& r = parsed.value->rules.at(0);
  ASSERT_EQ(r.limits.size(), 2u);
  EXPECT_EQ(r.limits[0].metric, Metric::kCpuBusyNbc);
  EXPECT_EQ(r.limits[0].max, 0.5);
  EXPECT_EQ(r.limits[1].metric, Metric::kCpuBusyBlocking);
  EXPECT_EQ(r.limits[1].min, 0.1);
  EXPECT_EQ(r.limits[1].max, 1.2);
}

TEST(ThresholdSpec, UnreadableFileIsAnErrorWithoutLine) {
  Parsed<ThresholdSpec> parsed = LoadThresholdSpec(kThresholdData + "/thresholds/missing.yaml");
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_FALSE(parsed.value.has_value());
  EXPECT_EQ(parsed.errors[0].where.line, 0);
  EXPECT_NE(parsed.errors[0].message.find("cannot open"), std::string::npos);
}

TEST(ThresholdSpec, SchemaDocumentsNestedKeys) {
  std::vector<SchemaKey> schema = ThresholdSpecSchema();
  auto has = [&](const std::string& key, bool required) {
    for (const auto& k : schema) {
      if (k.key == key) return k.required == required;
    }
    return false;
  };
  EXPECT_TRUE(has("implementation", true));
  EXPECT_TRUE(has("versions", true));
  EXPECT_TRUE(has("rules", true));
  EXPECT_TRUE(has("rules[].name", true));
  EXPECT_TRUE(has("rules[].limits", true));
  EXPECT_TRUE(has("rules[].match", false));
  EXPECT_TRUE(has("rules[].match.collective", false));
  EXPECT_TRUE(has("rules[].region.comp_over_comm", false));
  EXPECT_TRUE(has("rules[].limits.<metric>.max", false));
}

// ---------------------------------------------------------------- bad files

class ThresholdSpecBadFile : public ::testing::TestWithParam<std::string> {};

TEST_P(ThresholdSpecBadFile, ReportsEachErrorWithItsLocation) {
  Parsed<ThresholdSpec> parsed = LoadThresholdSpec(GetParam());
  EXPECT_FALSE(parsed.ok());
  EXPECT_FALSE(parsed.value.has_value());
  testing::ExpectErrors(parsed.errors, GetParam());
}

INSTANTIATE_TEST_SUITE_P(ThresholdSpecFixtures, ThresholdSpecBadFile,
                         ::testing::ValuesIn(testing::YamlFiles(kThresholdData + "/thresholds/bad")),
                         [](const auto& p) { return testing::FixtureName(p.param); });

TEST(ThresholdSpecBadFiles, ThereAreEnoughFixtures) {
  EXPECT_GE(testing::YamlFiles(kThresholdData + "/thresholds/bad").size(), 8u);
}

// ---------------------------------------------------------------- project files

TEST(ThresholdSpecProjectFiles, EveryThresholdFileParses) {
  std::vector<std::string> files = testing::YamlFiles(std::string(NBCGUARD_SOURCE_DIR) + "/thresholds");
  if (files.empty()) GTEST_SKIP() << "no thresholds/*.yaml yet";
  for (const auto& path : files) {
    Parsed<ThresholdSpec> parsed = LoadThresholdSpec(path);
    EXPECT_TRUE(parsed.ok()) << parsed.ErrorText();
  }
}

// ---------------------------------------------------------------- region

TEST(ThresholdSpecRegion, EmptyRegionContainsEverything) {
  Region r;
  EXPECT_TRUE(r.Contains(1e-3, 1e-3));
  EXPECT_TRUE(r.Contains(1, 1e-9));
}

TEST(ThresholdSpecRegion, TimeBoundsAreInclusiveWithSlack) {
  Region r;
  r.comm_min = 1e-3;
  r.comm_max = 64e-3;
  r.comp_max = 16e-3;
  EXPECT_TRUE(r.Contains(1e-3, 1e-3));
  EXPECT_TRUE(r.Contains(64e-3, 16e-3));
  EXPECT_TRUE(r.Contains(1e-3 * (1 - 1e-12), 16e-3 * (1 + 1e-12)));  // rounding of a grid value
  EXPECT_FALSE(r.Contains(0.9e-3, 1e-3));
  EXPECT_FALSE(r.Contains(65e-3, 1e-3));
  EXPECT_FALSE(r.Contains(4e-3, 17e-3));
  EXPECT_FALSE(r.Contains(1e-3 * (1 - 1e-6), 1e-3));  // beyond the slack
}

TEST(ThresholdSpecRegion, CompOverCommUsesTheTargetRatio) {
  Region r;
  r.comp_over_comm_min = 0.25;
  r.comp_over_comm_max = 4;
  EXPECT_TRUE(r.Contains(4e-3, 1e-3));    // 0.25, on the edge
  EXPECT_TRUE(r.Contains(1e-3, 4e-3));    // 4, on the edge
  EXPECT_TRUE(r.Contains(2e-3, 2e-3));    // 1
  EXPECT_FALSE(r.Contains(16e-3, 1e-3));  // 1/16
  EXPECT_FALSE(r.Contains(1e-3, 16e-3));  // 16
  EXPECT_FALSE(r.Contains(0, 0));         // undefined ratio
}

TEST(ThresholdSpecRegion, AllBoundsMustHold) {
  Region r;
  r.comp_over_comm_min = 1;
  r.comm_min = 4e-3;
  EXPECT_TRUE(r.Contains(4e-3, 4e-3));
  EXPECT_FALSE(r.Contains(1e-3, 4e-3));  // ratio fine, comm too small
  EXPECT_FALSE(r.Contains(8e-3, 4e-3));  // comm fine, ratio too small
}

// ---------------------------------------------------------------- selection

ThresholdSpec Spec(const std::string& implementation, const std::string& versions, const std::string& file) {
  std::string text = kMinimal;
  text.replace(text.find("mpich"), 5, implementation);
  text.replace(text.find(">=4.0"), 5, versions);
  Parsed<ThresholdSpec> parsed = ParseThresholdSpec(text, file);
  EXPECT_TRUE(parsed.ok()) << parsed.ErrorText();
  return parsed.value.value_or(ThresholdSpec());
}

TEST(ThresholdSpecSelect, TheMatchingImplementationAndVersion) {
  std::vector<ThresholdSpec> specs = {
      Spec("mpich", ">=4.0 <4.1", "a.yaml"),
      Spec("openmpi", "*", "b.yaml"),
      Spec("mpich", ">=4.1", "c.yaml"),
      Spec("mpich", "<4.0", "d.yaml"),
  };
  const ThresholdSpec* s = SelectThresholds(specs, {"mpich", "4.0.2"});
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->file, "a.yaml");
  s = SelectThresholds(specs, {"mpich", "4.1"});
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->file, "c.yaml");
  s = SelectThresholds(specs, {"mpich", "3.4"});
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->file, "d.yaml");
  s = SelectThresholds(specs, {"openmpi", "4.1.4"});
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->file, "b.yaml");
}

TEST(ThresholdSpecSelect, TwoMatchingFilesAreAnErrorNamingBoth) {
  std::vector<ThresholdSpec> specs = {
      Spec("mpich", ">=4.0 <4.1", "a.yaml"),
      Spec("openmpi", "*", "b.yaml"),
      Spec("mpich", ">=4.0", "c.yaml"),
  };
  std::string why;
  EXPECT_EQ(SelectThresholds(specs, {"mpich", "4.0.2"}, &why), nullptr);
  EXPECT_NE(why.find("a.yaml and c.yaml both match"), std::string::npos) << why;
  EXPECT_NE(why.find("mpich 4.0.2"), std::string::npos) << why;
  // Where only one matches, it is the one.
  why.clear();
  const ThresholdSpec* s = SelectThresholds(specs, {"mpich", "4.1"}, &why);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->file, "c.yaml");
  EXPECT_EQ(why, "");
}

TEST(ThresholdSpecSelect, NoMatchIsNull) {
  std::vector<ThresholdSpec> specs = {Spec("mpich", ">=4.0", "a.yaml")};
  EXPECT_EQ(SelectThresholds(specs, {"mpich", "3.4"}), nullptr);
  EXPECT_EQ(SelectThresholds(specs, {"mpich", ""}), nullptr);
  EXPECT_EQ(SelectThresholds(specs, {"openmpi", "4.1.4"}), nullptr);
  EXPECT_EQ(SelectThresholds({}, {"mpich", "4.0"}), nullptr);
}

// A site's directory (layer 0) over the shipped one (layer 1): per library
// the lowest layer with a matching file wins; libraries the site says
// nothing about keep the shipped file; two matches in one layer are still
// ambiguous.
TEST(ThresholdSpecSelect, ASiteLayerWinsOverTheShippedOnePerLibrary) {
  std::vector<ThresholdSpec> specs = {
      Spec("mpich", "*", "site/mpich.yaml"),
      Spec("mpich", ">=4.0", "shipped/mpich.yaml"),
      Spec("openmpi", "*", "shipped/openmpi.yaml"),
  };
  specs[1].layer = specs[2].layer = 1;
  const ThresholdSpec* s = SelectThresholds(specs, {"mpich", "4.0.2"});
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->file, "site/mpich.yaml");
  s = SelectThresholds(specs, {"openmpi", "4.1.4"});
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->file, "shipped/openmpi.yaml");
  // Listed in the other order, the layer still decides.
  std::vector<ThresholdSpec> reversed(specs.rbegin(), specs.rend());
  s = SelectThresholds(reversed, {"mpich", "4.0.2"});
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->file, "site/mpich.yaml");
  // Two matches of a higher layer listed before the lowest layer's one:
  // not an ambiguity.
  std::vector<ThresholdSpec> shuffled = {specs[1], Spec("mpich", "*", "shipped/mpich-too.yaml"), specs[0]};
  shuffled[1].layer = 1;
  std::string none;
  s = SelectThresholds(shuffled, {"mpich", "4.0.2"}, &none);
  ASSERT_NE(s, nullptr) << none;
  EXPECT_EQ(s->file, "site/mpich.yaml");
  specs.push_back(Spec("mpich", ">=3", "site/mpich-too.yaml"));
  std::string why;
  EXPECT_EQ(SelectThresholds(specs, {"mpich", "4.0.2"}, &why), nullptr);
  EXPECT_NE(why.find("site/mpich.yaml and site/mpich-too.yaml both match"), std::string::npos) << why;
}

TEST(ThresholdSpecIdentity, AFileNamesALibraryTheTableDoesNotKnow) {
  const std::string text =
      "implementation: sitempi\n"
      "identified_by: [SiteMPI Version, \"SiteMPI-NG v\"]\n"
      "versions: \">=3.2\"\n"
      "rules:\n"
      "  - name: r\n"
      "    source: s\n"
      "    match: {system: [cluster-a, cluster-b]}\n"
      "    limits: {r_overhead: {max: 1.3}}\n";
  Parsed<ThresholdSpec> parsed = ParseThresholdSpec(text, "site.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText();
  const std::vector<ThresholdSpec> specs = {*parsed.value};
  EXPECT_EQ(specs[0].identified_by, (std::vector<std::string>{"SiteMPI Version", "SiteMPI-NG v"}));
  EXPECT_EQ(specs[0].rules[0].match.systems, (std::vector<std::string>{"cluster-a", "cluster-b"}));
  // Without the file the built-in table does not know the library.
  const std::string version = "SiteMPI Version 3.4.1 (based on MPICH Version: 4.1)";
  EXPECT_EQ(IdentifyLibrary(version).implementation, "mpich");
  const LibraryId id = IdentifyLibrary(version, specs);
  EXPECT_EQ(id.implementation, "sitempi");
  EXPECT_EQ(id.version, "3.4.1");
  const ThresholdSpec* s = SelectThresholds(specs, id);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(IdentifyLibrary("SiteMPI-NG v5.0rc1", specs).version, "5.0rc1");
  // Other libraries are named by the table as before.
  EXPECT_EQ(IdentifyLibrary("Open MPI v4.1.4, package: Debian", specs).implementation, "openmpi");
}

TEST(ThresholdSpecSystem, NamesAreHostLikeWords) {
  for (const char* ok : {"lab-a", "CI-Runner", "node1.site.example", "a", "x_1"})
    EXPECT_TRUE(IsSystemName(ok)) << ok;
  for (const char* bad : {"", "-lab", "_lab", ".x", "Lab A", "a/b", "caf\xc3\xa9"})
    EXPECT_FALSE(IsSystemName(bad)) << bad;
  EXPECT_TRUE(IsSystemName(std::string(64, 'a')));
  EXPECT_FALSE(IsSystemName(std::string(65, 'a')));
}

}  // namespace
}  // namespace nbcguard
