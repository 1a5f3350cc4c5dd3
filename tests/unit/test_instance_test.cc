// The tests of a case as `nbcguard list` gives them: names, labels and run
// arguments decided once (instance/test_instance), as JSON for a CMake
// discover function and as CMake code for CTest.
#include "nbcguard/test_instance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "spec_fixture.h"

namespace nbcguard {
namespace {

const std::string kCaseData = std::string(NBCGUARD_TEST_DATA) + "/cases";
const std::string kOverlap = kCaseData + "/good/full.yaml";  // nodes 8, 2, 4 x progress, basic, dedicated
const std::string kPartitioned = kCaseData + "/good/partitioned.yaml";  // nodes 2
const std::string kBroken = kCaseData + "/bad/bad_name.yaml";

const ListSettings kSettings{"mpich", "/b/nbcguard-config.json", "/nightly"};

const ListedTest* Find(const std::vector<ListedTest>& tests, const std::string& name) {
  for (const ListedTest& t : tests)
    if (t.name == name) return &t;
  return nullptr;
}

TEST(TestInstance, OneTestPerRankCountAndDeployment) {
  const std::vector<ListedTest> tests = ListTests({kOverlap, kPartitioned, kBroken}, kSettings);
  ASSERT_EQ(tests.size(), 3u * 3u + 1u + 1u);
  const ListedTest* t = Find(tests, "mpich.iallreduce-full_1.n4.dedicated");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->args, (std::vector<std::string>{"run", kOverlap, "--nodes", "4", "--deployment", "dedicated",
                                               "--config", "/b/nbcguard-config.json", "--baseline",
                                               "/nightly", "--ctest"}));
  EXPECT_EQ(t->labels, (std::vector<std::string>{"cases", "iallreduce-full_1", "iallreduce", "n4",
                                                 "dedicated", "persistent", "mpich", "quick", "nightly"}));
  EXPECT_EQ(t->timeout, 16);  // 15.5 s, whole seconds up
  EXPECT_EQ(t->processors, 4);
  EXPECT_EQ(t->kind, "overlap");
  EXPECT_EQ(t->case_file, kOverlap);
}

TEST(TestInstance, PartitionedHasNoDeploymentNorBaseline) {
  const std::vector<ListedTest> tests = ListTests({kPartitioned}, kSettings);
  ASSERT_EQ(tests.size(), 1u);
  const ListedTest& t = tests[0];
  EXPECT_EQ(t.name, "mpich.partitioned-full.n2.partitioned");
  EXPECT_EQ(t.args, (std::vector<std::string>{"run", kPartitioned, "--nodes", "2", "--config",
                                              "/b/nbcguard-config.json", "--ctest"}));
  // "partitioned" stands where an overlap test has its collective, once.
  EXPECT_EQ(t.labels,
            (std::vector<std::string>{"cases", "partitioned-full", "partitioned", "n2", "mpich", "quick"}));
  EXPECT_EQ(t.timeout, 90);
  EXPECT_EQ(t.processors, 2);
  EXPECT_EQ(t.kind, "partitioned");
}

TEST(TestInstance, BrokenCaseFileIsATestThatChecksIt) {
  const std::vector<ListedTest> tests = ListTests({kBroken}, kSettings);
  ASSERT_EQ(tests.size(), 1u);
  EXPECT_EQ(tests[0].name, "mpich.case-file.bad_name");
  EXPECT_EQ(tests[0].args, (std::vector<std::string>{"check", kBroken}));
  EXPECT_EQ(tests[0].labels, (std::vector<std::string>{"cases", "invalid-case"}));
  EXPECT_EQ(tests[0].kind, "invalid-case");
}

// Case files written for one test, removed at its end.
using TestInstanceFiles = testing::ScratchDirTest;

TEST_F(TestInstanceFiles, ASecondCaseOfOneNameIsAFailingCheckOfBothFiles) {
  const std::string kCase = "name: same\ncollective: ibcast\nnodes: 2\ngrid: {comm: [1ms], comp: [1ms]}\n";
  const std::string a = Write("a.yaml", kCase);
  const std::string b = Write("b.yaml", kCase);
  const std::string c =
      Write("c.yaml", "name: other\ncollective: ibcast\nnodes: 2\ngrid: {comm: [1ms], comp: [1ms]}\n");
  const std::vector<ListedTest> tests = ListTests({a, b, c}, kSettings);
  ASSERT_EQ(tests.size(), 3u);
  EXPECT_EQ(tests[0].name, "mpich.same.n2.basic");
  EXPECT_EQ(tests[1].name, "mpich.case-file.b");
  EXPECT_EQ(tests[1].args, (std::vector<std::string>{"check", a, b}));
  EXPECT_EQ(tests[1].kind, "invalid-case");
  EXPECT_EQ(tests[1].case_file, b);
  EXPECT_EQ(tests[2].name, "mpich.other.n2.basic");  // the others are listed as before
}

TEST_F(TestInstanceFiles, BrokenFilesOfOneStemGetTestsOfTheirOwn) {
  const std::string yaml = Write("bad.yaml", "name: [\n");
  const std::string yml = Write("bad.yml", "nodes: 0\n");
  const std::vector<ListedTest> tests = ListTests({yaml, yml}, kSettings);
  ASSERT_EQ(tests.size(), 2u);
  EXPECT_EQ(tests[0].name, "mpich.case-file.bad");
  EXPECT_EQ(tests[1].name, "mpich.case-file.bad.yml");
  EXPECT_EQ(tests[1].args, (std::vector<std::string>{"check", yml}));
}

TEST(TestInstance, ListingUsesTheInstancesNamesAndLabels) {
  Parsed<CaseSpec> p = LoadCaseSpec(kOverlap);
  ASSERT_TRUE(p.ok()) << p.ErrorText();
  const std::vector<TestInstance> instances = Instances(*p.value);
  const std::vector<ListedTest> tests = ListTests({kOverlap}, kSettings);
  ASSERT_EQ(instances.size(), tests.size());
  for (std::size_t i = 0; i < tests.size(); ++i) {
    EXPECT_EQ(tests[i].name, instances[i].Name("mpich"));
    EXPECT_EQ(tests[i].labels, instances[i].Labels("mpich"));
    EXPECT_EQ(instances[i].ResultsSubdir(), "iallreduce-full_1/n" + std::to_string(instances[i].nodes) + "/" +
                                                ToString(*instances[i].deployment));
  }
  // --nodes and --deployment of `run` narrow the same instances.
  const std::vector<TestInstance> two = Instances(*p.value, {2}, {Deployment::kBasic});
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0].Id(), "iallreduce-full_1 n2 basic");
}

TEST(TestInstance, JsonDocumentHasExactlyTheAgreedKeys) {
  const nlohmann::json doc = TestsJson(ListTests({kPartitioned, kBroken}, kSettings));
  EXPECT_EQ(doc["format"], "nbcguard-tests");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc.size(), 3u);
  ASSERT_EQ(doc["tests"].size(), 2u);
  const nlohmann::json& t = doc["tests"][0];
  std::vector<std::string> keys;
  for (const auto& [k, v] : t.items()) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"args", "case_file", "kind", "labels", "name", "processors",
                                            "timeout"}));
  EXPECT_EQ(t["name"], "mpich.partitioned-full.n2.partitioned");
  EXPECT_EQ(t["args"][0], "run");
  EXPECT_EQ(t["timeout"], 90);
  EXPECT_EQ(t["processors"], 2);
  EXPECT_EQ(t["case_file"], kPartitioned);
  EXPECT_EQ(doc["tests"][1]["kind"], "invalid-case");
}

// The case's binding and oversubscribe reach the harness in every overlap
// deployment (and so the calibration cache's key).
TEST(TestInstance, PlansCarryTheBinding) {
  Parsed<CaseSpec> p = ParseCaseSpec(
      "name: x\ncollective: ibcast\nnodes: 2\ngrid: {comm: [1ms], comp: [1ms]}\nbinding: none\n"
      "oversubscribe: allow\n",
      "x.yaml");
  ASSERT_TRUE(p.ok()) << p.ErrorText();
  const std::vector<std::string> binding = {"--binding", "none", "--oversubscribe", "allow"};
  for (Deployment d :
       {Deployment::kBasic, Deployment::kDedicated, Deployment::kPoll, Deployment::kThreadNuma}) {
    const std::vector<std::string> args = PlanDeployment(d, "mpich", *p.value).harness_args;
    ASSERT_GE(args.size(), 4u) << ToString(d);
    EXPECT_EQ(std::vector<std::string>(args.begin(), args.begin() + 4), binding) << ToString(d);
  }
  const std::vector<std::string> poll = PlanDeployment(Deployment::kPoll, "mpich", *p.value).harness_args;
  EXPECT_EQ(poll.at(4), "--progression");
  const CaseSpec defaults = *ParseCaseSpec(
                                 "name: x\ncollective: ibcast\nnodes: 2\ngrid: {comm: [1ms], comp: "
                                 "[1ms]}\n",
                                 "x.yaml")
                                 .value;
  EXPECT_EQ(PlanDeployment(Deployment::kBasic, "openmpi", defaults).harness_args,
            (std::vector<std::string>{"--binding", "cores", "--oversubscribe", "refuse"}));
  // A persistent case tells the harness so, and the calibration cache keeps
  // its sizes apart from the nonblocking call's.
  CaseSpec persistent = defaults;
  persistent.persistent = true;
  EXPECT_EQ(PlanDeployment(Deployment::kBasic, "openmpi", persistent).harness_args,
            (std::vector<std::string>{"--binding", "cores", "--oversubscribe", "refuse", "--persistent"}));
  CaseSpec last_root = defaults;
  last_root.root = -1;
  EXPECT_EQ(PlanDeployment(Deployment::kBasic, "openmpi", last_root).harness_args,
            (std::vector<std::string>{"--binding", "cores", "--oversubscribe", "refuse", "--root", "-1"}));
  CaseSpec reversed = defaults;
  reversed.communicator = "reversed";
  EXPECT_EQ(PlanDeployment(Deployment::kBasic, "openmpi", reversed).harness_args,
            (std::vector<std::string>{"--binding", "cores", "--oversubscribe", "refuse", "--communicator",
                                      "reversed"}));
}

TEST(TestInstance, DeploymentPlans) {
  Parsed<CaseSpec> p = LoadCaseSpec(kOverlap);
  ASSERT_TRUE(p.ok());
  const DeploymentPlan dedicated = PlanDeployment(Deployment::kDedicated, "mpich", *p.value);
  EXPECT_EQ(dedicated.env.at("MPIR_CVAR_ASYNC_PROGRESS"), "1");
  EXPECT_EQ(dedicated.reserve, 1);
  EXPECT_FALSE(PlanDeployment(Deployment::kProgress, "openmpi", *p.value).skip.empty());
  EXPECT_TRUE(PlanDeployment(Deployment::kBasic, "openmpi", *p.value).skip.empty());
  const TestInstance partitioned{*LoadCaseSpec(kPartitioned).value, 2, std::nullopt};
  EXPECT_EQ(partitioned.Plan("mpich").env.at("OMP_WAIT_POLICY"), "PASSIVE");
  EXPECT_TRUE(partitioned.Plan("mpich").harness_args.empty());
  EXPECT_EQ(partitioned.Context().kind, CaseKind::kPartitioned);
}

}  // namespace
}  // namespace nbcguard
