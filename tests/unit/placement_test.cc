#include "nbcguard/placement.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nbcguard/case_spec.h"

namespace nbcguard {
namespace {

NodeTopology Numa(int nodes, int cores_each) {
  NodeTopology t;
  for (int j = 0; j < nodes; ++j) {
    t.numa_cores.emplace_back();
    for (int c = 0; c < cores_each; ++c) t.numa_cores.back().push_back(j * cores_each + c);
  }
  return t;
}

std::vector<int> ProgressCores(const Placement& p) {
  std::vector<int> out;
  for (const RankPlacement& r : p.ranks) out.push_back(r.progress_core);
  return out;
}

// Denis et al. (IJHPCA 2019), figure 2: progress threads on their rank's own core.
TEST(Placement, BindSharesTheRanksFirstCore) {
  const Placement p = PlaceRanks(Numa(2, 4), 4, PlacementPolicy::kBind, 0);
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_TRUE(p.free_cores.empty());
  ASSERT_EQ(p.ranks.size(), 4u);
  for (std::size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(p.ranks[r].compute_cores,
              (std::vector<int>{2 * static_cast<int>(r), 2 * static_cast<int>(r) + 1}));
    EXPECT_EQ(p.ranks[r].progress_core, p.ranks[r].compute_cores.front());
  }
}

// Denis et al. (IJHPCA 2019), figure 3 and eq. 1: 6 ranks on 8 cores in 2 NUMA nodes; the
// one free core of each NUMA node (3 and 7) gathers its ranks' threads.
TEST(Placement, NumaGathersOnTheFreeCoreOfEachNumaNode) {
  const Placement p = PlaceRanks(Numa(2, 4), 6, PlacementPolicy::kNuma, 0);
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(p.free_cores, (std::vector<int>{3, 7}));
  EXPECT_EQ(ProgressCores(p), (std::vector<int>{3, 3, 3, 7, 7, 7}));
  std::vector<int> compute;
  for (const RankPlacement& r : p.ranks) compute.push_back(r.compute_cores.at(0));
  EXPECT_EQ(compute, (std::vector<int>{0, 1, 2, 4, 5, 6}));
}

// Denis et al. (IJHPCA 2019), eq. 2: p = 64 cores, n = 62 ranks: even ranks' threads on core
// p/(p-n) - 1 = 31, odd ranks' on 2 p/(p-n) - 1 = 63.
TEST(Placement, OddEvenMatchesThePapersFormula) {
  const int p_cores = 64, n = 62;
  const Placement p = PlaceRanks(Numa(1, p_cores), n, PlacementPolicy::kOddEven, 0);
  ASSERT_TRUE(p.error.empty()) << p.error;
  const int delta = p_cores / (p_cores - n);
  for (int r = 0; r < n; ++r)
    EXPECT_EQ(p.ranks[r].progress_core, delta * (r % (p_cores - n)) + delta - 1) << r;
  // Neighbours in a chain never share a progress core; computation never
  // runs on a progress core.
  for (int r = 0; r + 1 < n; ++r) EXPECT_NE(p.ranks[r].progress_core, p.ranks[r + 1].progress_core);
  for (const RankPlacement& rp : p.ranks)
    for (int c : rp.compute_cores) EXPECT_TRUE(c != 31 && c != 63) << c;
}

TEST(Placement, ThreadsAskedAreHonouredOrRefused) {
  const Placement two = PlaceRanks(Numa(1, 8), 2, PlacementPolicy::kNuma, 2);
  ASSERT_TRUE(two.error.empty()) << two.error;
  EXPECT_EQ(two.ranks[1].compute_cores, (std::vector<int>{2, 3}));
  const Placement too_many = PlaceRanks(Numa(1, 8), 2, PlacementPolicy::kNuma, 4);
  EXPECT_NE(too_many.error.find("4 thread(s) each asked"), std::string::npos) << too_many.error;
}

// This machine's shape (2 cores, 2 ranks): bind fits, the policies that
// keep cores free do not, and say why.
TEST(Placement, NoFreeCoreLeftIsAnErrorThatSaysWhy) {
  EXPECT_TRUE(PlaceRanks(Numa(1, 2), 2, PlacementPolicy::kBind, 0).error.empty());
  const Placement numa = PlaceRanks(Numa(1, 2), 2, PlacementPolicy::kNuma, 0);
  EXPECT_EQ(numa.error,
            "placement numa keeps 1 of the 2 cores free for progress threads and leaves 1 core(s) for the "
            "computation of 2 rank(s) on this node (1 NUMA node, 2 cores (0,1)), at least one each needed");
  EXPECT_NE(PlaceRanks(Numa(1, 2), 2, PlacementPolicy::kOddEven, 0).error.find("keeps 2 of the 2 cores"),
            std::string::npos);
}

// hwloc's view, on synthetic machines: cores are named by their first PU's
// OS index (what sched_setaffinity takes), grouped by NUMA node.
TEST(Placement, HwlocTopologyGroupsCoresByNumaNode) {
  std::string error;
  std::optional<NodeTopology> t = TopologyFromHwloc("pack:1 numa:2 core:4 pu:2", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->numa_cores, (std::vector<std::vector<int>>{{0, 2, 4, 6}, {8, 10, 12, 14}}));
  EXPECT_EQ(t->Describe(), "2 NUMA nodes, 8 cores (0,2,4,6 | 8,10,12,14)");
  const Placement p = PlaceRanks(*t, 2, PlacementPolicy::kNuma, 0);
  EXPECT_EQ(ProgressCores(p), (std::vector<int>{6, 14}));
  EXPECT_FALSE(TopologyFromHwloc("not a topology", &error));
  EXPECT_NE(error.find("synthetic"), std::string::npos);
}

TEST(Placement, ThisMachineHasCores) {
  std::string error;
  std::optional<NodeTopology> t = TopologyFromHwloc("", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_GE(t->cores(), 1);
}

TEST(ProgressionCase, IntervalAndDeploymentsParse) {
  Parsed<CaseSpec> p = ParseCaseSpec(
      "name: x\ncollective: ibcast\nnodes: 2\ndeployment: [poll, thread-bind, thread-numa, thread-odd-even]\n"
      "grid: {comm: [1ms], comp: [1ms]}\nprogression: {interval: 50us}\n",
      "x.yaml");
  ASSERT_TRUE(p.ok()) << p.ErrorText();
  EXPECT_EQ(p.value->deployments,
            (std::vector<Deployment>{Deployment::kPoll, Deployment::kThreadBind, Deployment::kThreadNuma,
                                     Deployment::kThreadOddEven}));
  EXPECT_DOUBLE_EQ(p.value->progress_interval, 50e-6);
  Parsed<CaseSpec> d =
      ParseCaseSpec("name: x\ncollective: ibcast\nnodes: 2\ngrid: {comm: [1ms], comp: [1ms]}\n", "x.yaml");
  ASSERT_TRUE(d.ok());
  EXPECT_DOUBLE_EQ(d.value->progress_interval, 100e-6);
  for (Deployment dep : d.value->deployments) EXPECT_FALSE(IsApplicationProgression(dep));
  EXPECT_TRUE(IsApplicationProgression(Deployment::kThreadOddEven));
}

}  // namespace
}  // namespace nbcguard
