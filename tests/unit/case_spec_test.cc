#include "nbcguard/case_spec.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "nbcguard/deployment.h"
#include "spec_fixture.h"

namespace nbcguard {
namespace {

const std::string kData = NBCGUARD_TEST_DATA;

const SchemaKey* FindKey(const std::vector<SchemaKey>& schema, const std::string& key) {
  for (const auto& k : schema) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

// ---------------------------------------------------------------- good files

TEST(CaseSpec, FullFileParsesToTheExpectedSpec) {
  const std::string path = kData + "/cases/good/full.yaml";
  Parsed<CaseSpec> parsed = LoadCaseSpec(path);
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText();
  const CaseSpec& c = *parsed.value;
  EXPECT_EQ(c.file, path);
  EXPECT_EQ(c.name, "iallreduce-full_1");
  EXPECT_EQ(c.collective, "iallreduce");
  EXPECT_EQ(c.nodes, (std::vector<int>{2, 4, 8}));  // sorted
  EXPECT_EQ(c.threads, 6);
  EXPECT_EQ(c.deployments,
            (std::vector<Deployment>{Deployment::kProgress, Deployment::kBasic, Deployment::kDedicated}));
  ASSERT_EQ(c.comm_times.size(), 3u);
  EXPECT_DOUBLE_EQ(c.comm_times[0], 1e-3);
  EXPECT_DOUBLE_EQ(c.comm_times[1], 4e-3);
  EXPECT_DOUBLE_EQ(c.comm_times[2], 16e-3);
  ASSERT_EQ(c.comp_times.size(), 4u);
  EXPECT_DOUBLE_EQ(c.comp_times[0], 1e-3);
  EXPECT_DOUBLE_EQ(c.comp_times[3], 64e-3);
  EXPECT_EQ(c.repetitions, 21);
  EXPECT_EQ(c.labels, (std::vector<std::string>{"quick", "nightly"}));
  EXPECT_DOUBLE_EQ(c.timeout, 15.5);
  EXPECT_EQ(c.binding, BindingPolicy::kNone);
  EXPECT_EQ(c.oversubscribe, OversubscribePolicy::kAllow);
  EXPECT_TRUE(c.persistent);
  EXPECT_EQ(c.communicator, "dup");
}

TEST(CaseSpec, MinimalFileGetsTheDefaults) {
  Parsed<CaseSpec> parsed = LoadCaseSpec(kData + "/cases/good/minimal.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText();
  const CaseSpec& c = *parsed.value;
  EXPECT_EQ(c.nodes, std::vector<int>{2});
  EXPECT_EQ(c.threads, 0);
  EXPECT_EQ(c.deployments, std::vector<Deployment>{Deployment::kBasic});
  EXPECT_EQ(c.comm_times, std::vector<double>{500e-6});
  EXPECT_EQ(c.comp_times, std::vector<double>{2e-3});
  EXPECT_EQ(c.repetitions, 15);
  EXPECT_TRUE(c.labels.empty());
  EXPECT_DOUBLE_EQ(c.timeout, 600);
  EXPECT_EQ(c.binding, BindingPolicy::kCores);
  EXPECT_EQ(c.oversubscribe, OversubscribePolicy::kRefuse);
  EXPECT_FALSE(c.persistent);
  EXPECT_EQ(c.root, 0);
  EXPECT_EQ(c.communicator, "world");
}

// root: a rank of every test, or last (-1); the schema's text names the
// collectives RootedCollectives() gives.
TEST(CaseSpec, RootIsARankOrLast) {
  auto parse = [](const std::string& root) {
    return ParseCaseSpec(
        "name: x\ncollective: iscatterv\nnodes: [4, 3]\ngrid: {comm: [1ms], comp: [1ms]}\n"
        "root: " +
            root + "\n",
        "x.yaml");
  };
  Parsed<CaseSpec> last = parse("last");
  ASSERT_TRUE(last.ok()) << last.ErrorText();
  EXPECT_EQ(last.value->root, -1);
  Parsed<CaseSpec> two = parse("2");
  ASSERT_TRUE(two.ok()) << two.ErrorText();
  EXPECT_EQ(two.value->root, 2);
  EXPECT_FALSE(parse("3").ok());  // not a rank of the 3-rank test
  EXPECT_FALSE(parse("-1").ok());
  const std::vector<SchemaKey> schema = CaseSpecSchema();  // FindKey points into it
  const SchemaKey* root = FindKey(schema, "root");
  ASSERT_NE(root, nullptr);
  std::string rooted;
  for (const std::string& c : RootedCollectives()) rooted += (rooted.empty() ? "" : ", ") + c;
  EXPECT_NE(root->meaning.find("(" + rooted + ")"), std::string::npos) << root->meaning;
}

TEST(CaseSpec, BlockStyleAndScalarForms) {
  Parsed<CaseSpec> parsed = LoadCaseSpec(kData + "/cases/good/block_style.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText();
  const CaseSpec& c = *parsed.value;
  EXPECT_EQ(c.name, "iscan");
  EXPECT_EQ(c.nodes, (std::vector<int>{2, 4}));
  EXPECT_EQ(c.threads, 0);
  EXPECT_EQ(c.deployments, std::vector<Deployment>{Deployment::kDedicated});
  ASSERT_EQ(c.comm_times.size(), 2u);
  EXPECT_DOUBLE_EQ(c.comm_times[0], 100e-6);
  EXPECT_DOUBLE_EQ(c.comm_times[1], 1e-3);
  ASSERT_EQ(c.comp_times.size(), 2u);
  EXPECT_DOUBLE_EQ(c.comp_times[0], 1e-3);
  EXPECT_DOUBLE_EQ(c.comp_times[1], 2e-3);
  EXPECT_EQ(c.repetitions, 3);
  EXPECT_DOUBLE_EQ(c.timeout, 30);
}

TEST(CaseSpec, ParseFromTextUsesTheGivenFileName) {
  Parsed<CaseSpec> parsed = ParseCaseSpec(
      "name: x\ncollective: ibcast\nnodes: 3\n"
      "grid: {comm: [1ms], comp: [1ms]}\nrepetitions: 0\n",
      "inline.yaml");
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_FALSE(parsed.value.has_value());
  EXPECT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.errors[0].where.file, "inline.yaml");
  EXPECT_EQ(parsed.errors[0].where.line, 5);
  EXPECT_EQ(parsed.errors[0].where.column, 14);
  EXPECT_EQ(parsed.ErrorText().rfind("inline.yaml:5:14: repetitions: ", 0), 0u) << parsed.ErrorText();
}

TEST(CaseSpec, UnreadableFileIsAnErrorWithoutLine) {
  const std::string path = kData + "/cases/does-not-exist.yaml";
  Parsed<CaseSpec> parsed = LoadCaseSpec(path);
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_EQ(parsed.errors[0].where.line, 0);
  EXPECT_NE(parsed.errors[0].message.find("No such file"), std::string::npos);
  EXPECT_EQ(parsed.errors[0].ToString().rfind(path + ": cannot open", 0), 0u);
}

TEST(CaseSpec, DirectoryIsRefusedAsADirectory) {
  Parsed<CaseSpec> parsed = LoadCaseSpec(kData + "/cases");
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_EQ(parsed.errors[0].where.line, 0);
  EXPECT_NE(parsed.errors[0].message.find("is a directory"), std::string::npos) << parsed.ErrorText();
}

using CaseSpecFiles = testing::ScratchDirTest;

TEST_F(CaseSpecFiles, FifoIsRefusedWithoutWaitingForAWriter) {
  const std::string fifo = Path("pipe.yaml");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Parsed<CaseSpec> parsed = LoadCaseSpec(fifo);  // would block forever if opened for a blocking read
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_EQ(parsed.errors[0].where.line, 0);
  EXPECT_NE(parsed.errors[0].message.find("is not a regular file"), std::string::npos) << parsed.ErrorText();
}

TEST_F(CaseSpecFiles, FileOverOneMebibyteIsRefusedUnread) {
  const std::string big = Write("big.yaml", "name: big\n# " + std::string((1 << 20) + 1, 'x') + "\n");
  Parsed<CaseSpec> parsed = LoadCaseSpec(big);
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_NE(parsed.errors[0].message.find("at most 1 MiB"), std::string::npos) << parsed.ErrorText();
  const Parsed<std::string> text = ReadSpecText(big);
  EXPECT_FALSE(text.ok());
}

TEST_F(CaseSpecFiles, SpecTextOfARegularFile) {
  const std::string f = Write("a.yaml", "name: a\n");
  const Parsed<std::string> text = ReadSpecText(f);
  ASSERT_TRUE(text.ok()) << text.ErrorText();
  EXPECT_EQ(*text.value, "name: a\n");
}

// ---------------------------------------------------------------- file kinds

// yaml-cpp 0.7's LoadAll never returns on a token that cannot start a node
// at the top level; the loader walks at most two documents instead and
// reports the token. Each input ends in one located error, quickly (the
// flow ends are yaml-cpp's own error, with a hint).
TEST(CaseSpecYaml, ATokenThatCannotStartAValueIsAnErrorNotAHang) {
  const struct {
    const char* text;
    int line;
    const char* message;
  } cases[] = {
      {",\n", 1, "invalid YAML: ',' cannot start a value here"},
      {"# a comment\n,\nname: x\n", 2, "invalid YAML: ',' cannot start a value here"},
      {"]\n", 1, "invalid YAML: illegal flow end (a ']' or '}' that closes no '[' or '{'"},
      {"name: x\n}\n", 2, "invalid YAML: illegal flow end (a ']' or '}' that closes no '[' or '{'"},
      {", expect: 8:10\nname: ibcast\ngrid:\n  comp: [.nan\ntimeout: 5min\n", 1,
       "invalid YAML: ',' cannot start a value here"},
      {"name: x\n---\n,\n", 2, "a case file holds one YAML document; remove this second one"},
      {"name: x\n---\nname: y\n", 2, "a case file holds one YAML document; remove this second one"},
      {"# nothing but a comment\n", 1, "the file is empty"},
  };
  for (const auto& c : cases) {
    Parsed<CaseSpec> parsed = ParseCaseSpec(c.text, "t.yaml");
    ASSERT_EQ(parsed.errors.size(), 1u) << c.text << parsed.ErrorText();
    EXPECT_EQ(parsed.errors[0].where.line, c.line) << c.text << parsed.ErrorText();
    EXPECT_NE(parsed.errors[0].message.find(c.message), std::string::npos) << c.text << parsed.ErrorText();
  }
}

// yaml-cpp stops at its depth limit with the message "bad file"; the user
// reads what is wrong.
TEST(CaseSpecYaml, DeepNestingIsNamed) {
  for (const std::string& text : {std::string(100000, '['), "grid: " + std::string(5000, '{'), [] {
                                    std::string s;
                                    for (int i = 0; i < 50000; ++i) s += "- ";
                                    return s + "x\n";
                                  }()}) {
    Parsed<CaseSpec> parsed = ParseCaseSpec(text, "t.yaml");
    ASSERT_EQ(parsed.errors.size(), 1u) << parsed.ErrorText();
    EXPECT_NE(parsed.errors[0].message.find("invalid YAML: nested more than "), std::string::npos)
        << parsed.ErrorText();
  }
}

TEST(CaseSpecFileKind, TheTopLevelKeysTellTheKindNotTheText) {
  // "rules:" in a comment does not make a case file a threshold file.
  EXPECT_EQ(SpecFileKindOf("# see the rules: in thresholds/\nname: a\ncollective: ibcast\n"),
            SpecFileKind::kCase);
  EXPECT_EQ(SpecFileKindOf("name: p\nkind: partitioned\n"), SpecFileKind::kCase);
  EXPECT_EQ(SpecFileKindOf("implementation: mpich\nversions: \"*\"\nrules: []\n"), SpecFileKind::kThreshold);
  EXPECT_EQ(SpecFileKindOf("# name: x\nrules: []\n"), SpecFileKind::kThreshold);
  EXPECT_EQ(SpecFileKindOf("foo: 1\n"), SpecFileKind::kNeither);
  EXPECT_EQ(SpecFileKindOf("- a\n- b\n"), SpecFileKind::kNeither);
  EXPECT_EQ(SpecFileKindOf("name: a\nrules: []\n"), SpecFileKind::kNeither);
  EXPECT_EQ(SpecFileKindOf("name: [a\n"), SpecFileKind::kUnreadable);
  EXPECT_EQ(SpecFileKindOf(""), SpecFileKind::kUnreadable);
}

// ---------------------------------------------------------------- long lists

TEST(CaseSpecLongLists, ARepeatInALongListIsFoundWithItsFirstLine) {
  constexpr int kLabels = 40000;
  std::string text = "name: long\ncollective: ibcast\nnodes: 2\ngrid: {comm: [1ms], comp: [1ms]}\nlabels:\n";
  for (int i = 0; i < kLabels; ++i) text += "  - l" + std::to_string(i) + "\n";
  text += "  - l17\n";  // line 5 + 18 = 23 has l17 first
  Parsed<CaseSpec> parsed = ParseCaseSpec(text, "long.yaml");
  ASSERT_EQ(parsed.errors.size(), 1u) << parsed.ErrorText().substr(0, 2000);
  EXPECT_EQ(parsed.errors[0].where.line, 6 + kLabels);
  EXPECT_NE(parsed.errors[0].message.find("\"l17\" is listed twice (first at line 23)"), std::string::npos)
      << parsed.errors[0].message;
  // Without the repeat every label is kept, in order.
  text.erase(text.rfind("  - l17"));
  parsed = ParseCaseSpec(text, "long.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText().substr(0, 2000);
  ASSERT_EQ(parsed.value->labels.size(), static_cast<std::size_t>(kLabels));
  EXPECT_EQ(parsed.value->labels.back(), "l" + std::to_string(kLabels - 1));
}

// ---------------------------------------------------------------- names

TEST(CaseSpecNames, ADuplicateNameIsReportedAtTheLaterName) {
  Parsed<CaseSpec> later = ParseCaseSpec(
      "# x\ncollective: ibcast\nname: same\nnodes: 2\ngrid: {comm: [1ms], comp: [1ms]}\n", "b.yaml");
  ASSERT_TRUE(later.ok()) << later.ErrorText();
  const SpecError e = DuplicateCaseName(*later.value, "a.yaml");
  EXPECT_EQ(e.where.file, "b.yaml");
  EXPECT_EQ(e.where.line, 3);
  EXPECT_EQ(e.where.column, 7);
  EXPECT_EQ(e.ToString().rfind("b.yaml:3:7: name: \"same\" is also the name of a.yaml", 0), 0u)
      << e.ToString();
}

// ---------------------------------------------------------------- partitioned

TEST(CaseSpec, PartitionedFileParses) {
  Parsed<CaseSpec> parsed = LoadCaseSpec(kData + "/cases/good/partitioned.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText();
  const CaseSpec& c = *parsed.value;
  EXPECT_EQ(c.kind, CaseKind::kPartitioned);
  EXPECT_EQ(c.name, "partitioned-full");
  EXPECT_EQ(c.nodes, std::vector<int>{2});
  EXPECT_EQ(c.partitioned.buffer, 1u << 20);
  EXPECT_EQ(c.partitioned.partition_bytes, (std::vector<std::uint64_t>{4096, 65536, 1u << 20}));
  EXPECT_EQ(c.partitioned.orders, (std::vector<ReadyOrder>{ReadyOrder::kRandom, ReadyOrder::kNeighbour}));
  EXPECT_EQ(c.partitioned.pready_threads, (std::vector<int>{0, 2}));  // 0 = auto
  EXPECT_EQ(c.partitioned.seed, 42u);
  EXPECT_EQ(c.repetitions, 7);
  EXPECT_EQ(c.labels, std::vector<std::string>{"quick"});
  // Overlap keys keep their empty values.
  EXPECT_TRUE(c.collective.empty());
  EXPECT_TRUE(c.deployments.empty());
  EXPECT_TRUE(c.comm_times.empty());
}

TEST(CaseSpec, PartitionedDefaultsArePaper004s) {
  Parsed<CaseSpec> parsed = LoadCaseSpec(kData + "/cases/good/partitioned_defaults.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText();
  const PartitionedSpec& p = parsed.value->partitioned;
  EXPECT_EQ(p.buffer, 8u << 20);
  EXPECT_EQ(p.partition_bytes, DefaultPartitionSizes(8u << 20));
  EXPECT_EQ(p.orders, std::vector<ReadyOrder>{ReadyOrder::kLeftRight});
  EXPECT_EQ(p.pready_threads, std::vector<int>{1});
  EXPECT_EQ(p.seed, 1u);
}

TEST(CaseSpec, OverlapCasesDefaultToKindOverlap) {
  Parsed<CaseSpec> parsed = LoadCaseSpec(kData + "/cases/good/minimal.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText();
  EXPECT_EQ(parsed.value->kind, CaseKind::kOverlap);
  Parsed<CaseSpec> explicit_kind = ParseCaseSpec(
      "name: x\nkind: overlap\ncollective: ibcast\nnodes: 2\ngrid: {comm: [1ms], comp: [1ms]}\n", "k.yaml");
  ASSERT_TRUE(explicit_kind.ok()) << explicit_kind.ErrorText();
  EXPECT_EQ(explicit_kind.value->kind, CaseKind::kOverlap);
}

// No case file per collective (each would add CI time): a case naming any
// registered collective must still parse.
TEST(CaseSpec, EveryCollectiveNameMakesAValidCase) {
  for (const std::string& name : CollectiveNames()) {
    Parsed<CaseSpec> parsed = ParseCaseSpec(
        "name: x\ncollective: " + name + "\nnodes: 2\ngrid: {comm: [1ms], comp: [1ms]}\n", "c.yaml");
    ASSERT_TRUE(parsed.ok()) << name << ": " << parsed.ErrorText();
    EXPECT_EQ(parsed.value->collective, name);
  }
}

TEST(CaseSpec, PartitionCountsBecomeSizes) {
  Parsed<CaseSpec> parsed = ParseCaseSpec(
      "name: x\nkind: partitioned\nnodes: 2\npartitioned: {buffer: 1MiB, partition_counts: [1, 256, 16]}\n",
      "c.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText();
  EXPECT_EQ(parsed.value->partitioned.partition_bytes, (std::vector<std::uint64_t>{4096, 65536, 1u << 20}));
}

TEST(CaseSpec, PartitionRangeExpands) {
  Parsed<CaseSpec> parsed = ParseCaseSpec(
      "name: x\nkind: partitioned\nnodes: 2\n"
      "partitioned: {buffer: 1MiB, partitions: {from: 1KiB, to: 1MiB, factor: 4}}\n",
      "r.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.ErrorText();
  EXPECT_EQ(parsed.value->partitioned.partition_bytes,
            (std::vector<std::uint64_t>{1024, 4096, 16384, 65536, 262144, 1048576}));
}

// ---------------------------------------------------------------- schema

TEST(CaseSpec, SchemaDocumentsWhatTheParserDoes) {
  std::vector<SchemaKey> schema = CaseSpecSchema();
  for (const char* key : {"name", "collective", "nodes", "grid"}) {
    const SchemaKey* k = FindKey(schema, key);
    ASSERT_NE(k, nullptr) << key;
    EXPECT_TRUE(k->required) << key;
    EXPECT_FALSE(k->meaning.empty()) << key;
  }
  const SchemaKey* repetitions = FindKey(schema, "repetitions");
  ASSERT_NE(repetitions, nullptr);
  EXPECT_FALSE(repetitions->required);
  EXPECT_EQ(repetitions->default_value, std::to_string(CaseSpec().repetitions));
  ASSERT_NE(FindKey(schema, "grid.comm"), nullptr);
  ASSERT_NE(FindKey(schema, "grid.<axis>.factor"), nullptr);
  const SchemaKey* collective = FindKey(schema, "collective");
  EXPECT_NE(collective->type.find("ireduce_scatter_block"), std::string::npos);
  // The partitioned kind's keys are in the same tables.
  const SchemaKey* kind = FindKey(schema, "kind");
  ASSERT_NE(kind, nullptr);
  EXPECT_EQ(kind->default_value, "overlap");
  for (const char* key : {"partitioned", "partitioned.buffer", "partitioned.partitions",
                          "partitioned.partition_counts", "partitioned.orders", "partitioned.pready_threads",
                          "partitioned.seed", "partitioned.partitions.factor"})
    EXPECT_NE(FindKey(schema, key), nullptr) << key;
  EXPECT_EQ(FindKey(schema, "partitioned.buffer")->default_value, "8MiB");
  EXPECT_NE(FindKey(schema, "partitioned.orders")->type.find("neighbour"), std::string::npos);
}

// ---------------------------------------------------------------- bad files

class CaseSpecBadFile : public ::testing::TestWithParam<std::string> {};

TEST_P(CaseSpecBadFile, ReportsEachErrorWithItsLocation) {
  Parsed<CaseSpec> parsed = LoadCaseSpec(GetParam());
  EXPECT_FALSE(parsed.ok());
  EXPECT_FALSE(parsed.value.has_value());
  testing::ExpectErrors(parsed.errors, GetParam());
}

INSTANTIATE_TEST_SUITE_P(CaseSpecFixtures, CaseSpecBadFile,
                         ::testing::ValuesIn(testing::YamlFiles(kData + "/cases/bad")),
                         [](const auto& p) { return testing::FixtureName(p.param); });

TEST(CaseSpecBadFiles, ThereAreEnoughFixtures) {
  EXPECT_GE(testing::YamlFiles(kData + "/cases/bad").size(), 15u);
}

// ---------------------------------------------------------------- project files

TEST(CaseSpecProjectFiles, EveryCaseFileParses) {
  std::vector<std::string> files = testing::YamlFiles(std::string(NBCGUARD_SOURCE_DIR) + "/cases");
  if (files.empty()) GTEST_SKIP() << "no cases/*.yaml yet";
  std::vector<std::string> names;
  for (const auto& path : files) {
    Parsed<CaseSpec> parsed = LoadCaseSpec(path);
    EXPECT_TRUE(parsed.ok()) << parsed.ErrorText();
    if (parsed.ok()) names.push_back(parsed.value->name);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end()) << "two case files share a name";
}

}  // namespace
}  // namespace nbcguard
