// Binding (binding.h): which ranks share a node, each rank's block of cores
// (on synthetic hwloc topologies, as placement_test does), whether a node's
// ranks fit on its cores, and the lines that say so.
#include "nbcguard/binding.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace nbcguard {
namespace {

using json = nlohmann::json;

NodeTopology Hwloc(const std::string& synthetic) {
  std::string error;
  std::optional<NodeTopology> t = TopologyFromHwloc(synthetic, &error);
  EXPECT_TRUE(t) << error;
  return t.value_or(NodeTopology{});
}

TEST(Binding, PoliciesParseAndNameThemselves) {
  EXPECT_EQ(ParseBindingPolicy("cores"), BindingPolicy::kCores);
  EXPECT_EQ(ParseBindingPolicy("none"), BindingPolicy::kNone);
  EXPECT_FALSE(ParseBindingPolicy("core"));
  EXPECT_EQ(BindingPolicyNames(), (std::vector<std::string>{"cores", "none"}));
  EXPECT_STREQ(ToString(OversubscribePolicy::kAllow), "allow");
  EXPECT_EQ(ParseOversubscribePolicy("refuse"), OversubscribePolicy::kRefuse);
  EXPECT_EQ(OversubscribePolicyNames(), (std::vector<std::string>{"refuse", "allow"}));
}

// Ranks are numbered within their node in rank order, whatever order the
// launcher interleaved the nodes in.
TEST(Binding, NodeSlotsNumberTheRanksOfEachNode) {
  const std::vector<NodeSlot> s = NodeSlots({"a", "b", "a", "a", "b"});
  std::vector<int> local, count;
  for (const NodeSlot& n : s) {
    local.push_back(n.local_rank);
    count.push_back(n.local_ranks);
  }
  EXPECT_EQ(local, (std::vector<int>{0, 0, 1, 2, 1}));
  EXPECT_EQ(count, (std::vector<int>{3, 2, 3, 3, 2}));
}

TEST(Binding, AutoSharesTheNodesCoresAtLeastOneEach) {
  EXPECT_EQ(AutoCoresPerRank(8, 2), 4);
  EXPECT_EQ(AutoCoresPerRank(2, 2), 1);
  EXPECT_EQ(AutoCoresPerRank(2, 4), 1);     // 4 ranks on 2 cores: 1 each (then oversubscribed)
  EXPECT_EQ(AutoCoresPerRank(8, 2, 1), 1);  // binding none: within the launcher's mask
  EXPECT_EQ(AutoCoresPerRank(8, 2, 0), 4);  // no mask given
}

// 2 NUMA nodes x 4 cores x 2 hardware threads: cores are named 0, 2, ..., 14.
TEST(Binding, BlocksAreConsecutiveCoresOfTheirOwn) {
  const NodeTopology t = Hwloc("pack:1 numa:2 core:4 pu:2");
  std::set<int> seen;
  for (int r = 0; r < 4; ++r) {
    const RankBlock b = BlockOf(t, r, 2, 0);
    EXPECT_EQ(b.compute, (std::vector<int>{4 * r, 4 * r + 2})) << r;
    EXPECT_EQ(b.cores, b.compute) << r;
    for (int c : b.cores) EXPECT_TRUE(seen.insert(c).second) << "core " << c << " given twice";
  }
}

// dedicated: the reserved core is the block's last, so a rank's progress
// thread stays beside its computation, and no other rank computes there.
TEST(Binding, ReservedCoresAreInsideTheRanksBlock) {
  const NodeTopology t = Hwloc("pack:1 numa:2 core:4 pu:2");
  const RankBlock r0 = BlockOf(t, 0, 1, 1), r1 = BlockOf(t, 1, 1, 1);
  EXPECT_EQ(r0.compute, std::vector<int>{0});
  EXPECT_EQ(r0.cores, (std::vector<int>{0, 2}));
  EXPECT_EQ(r1.compute, std::vector<int>{4});
  EXPECT_EQ(r1.cores, (std::vector<int>{4, 6}));
  const RankBlock three = BlockOf(t, 1, 3, 1);
  EXPECT_EQ(three.cores, (std::vector<int>{8, 10, 12, 14}));
  EXPECT_EQ(three.compute, (std::vector<int>{8, 10, 12}));
}

// A Slurm or cgroup cpuset leaves hwloc only some cores: blocks come from those.
TEST(Binding, BlocksUseOnlyTheAllowedCores) {
  NodeTopology t;
  t.numa_cores = {{2, 3, 6, 7}};
  EXPECT_EQ(BlockOf(t, 0, 2, 0).compute, (std::vector<int>{2, 3}));
  EXPECT_EQ(BlockOf(t, 1, 2, 0).compute, (std::vector<int>{6, 7}));
}

// oversubscribe: allow on a node too small: blocks wrap round and overlap.
TEST(Binding, TooFewCoresWrapRound) {
  const NodeTopology t = Hwloc("core:2 pu:1");
  std::vector<int> first;
  first.reserve(4);
  for (int r = 0; r < 4; ++r) first.push_back(BlockOf(t, r, 1, 0).compute.at(0));
  EXPECT_EQ(first, (std::vector<int>{0, 1, 0, 1}));
  const RankBlock big = BlockOf(t, 0, 3, 0);
  EXPECT_EQ(big.compute, (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(big.cores, (std::vector<int>{0, 1}));
}

TEST(Binding, MasksAreReadAsCores) {
  const NodeTopology t = Hwloc("core:2 pu:2");  // cores 0 (PUs 0, 1) and 2 (PUs 2, 3)
  EXPECT_EQ(t.CoreOf(1), 0);
  EXPECT_EQ(MaskCores(t, {1, 3}), (std::vector<int>{0, 2}));
  EXPECT_EQ(MaskCores(t, {0, 1}), std::vector<int>{0});
  EXPECT_TRUE(MaskCores(t, {5}).empty());  // not a unit of this node's allowed cores
}

TEST(Binding, DistinctCoresIsAMatching) {
  EXPECT_EQ(DistinctCores({{0}, {0}}, 1), 1);
  EXPECT_EQ(DistinctCores({{0, 1}, {0, 1}}, 1), 2);
  EXPECT_EQ(DistinctCores({{0, 1}, {0}}, 1), 2);  // rank 0 must give core 0 up to rank 1
  EXPECT_EQ(DistinctCores({{0, 1}, {0, 1}}, 2), 2);
  EXPECT_EQ(DistinctCores({{0, 1, 2, 3}, {0, 1, 2, 3}}, 2), 4);
}

NodeDemand TwoCores(int ranks, int threads, int reserve) {
  NodeDemand d;
  d.host = "vm";
  d.topology = "1 NUMA node, 2 cores (0,1)";
  d.usable_cores = 2;
  d.ranks = ranks;
  d.threads = threads;
  d.reserve = reserve;
  return d;
}

TEST(Binding, OversubscriptionNamesTheNumbers) {
  EXPECT_EQ(Oversubscription(TwoCores(2, 1, 0)), "");  // exactly fits
  EXPECT_NE(Oversubscription(TwoCores(3, 1, 0)), "");  // one core short
  EXPECT_EQ(Oversubscription(TwoCores(4, 1, 0)),
            "oversubscribed: 4 ranks x 1 thread(s) on this node's 2 cores (vm: 1 NUMA node, 2 cores (0,1))");
  EXPECT_EQ(
      Oversubscription(TwoCores(2, 1, 1)),
      "oversubscribed: 2 ranks x (1 thread(s) + 1 core(s) kept free) on this node's 2 cores (vm: 1 NUMA "
      "node, 2 cores (0,1))");
  EXPECT_NE(Oversubscription(TwoCores(2, 2, 0)).find("2 ranks x 2 thread(s)"), std::string::npos);
}

// binding none keeps the launcher's masks: two ranks masked to one core
// share it though the node has two.
TEST(Binding, OverlappingLauncherMasksOversubscribe) {
  NodeDemand d = TwoCores(2, 1, 0);
  d.launcher_cores = {{0, 1}, {0, 1}};
  EXPECT_EQ(Oversubscription(d), "");
  d.launcher_cores = {{0}, {1}};
  EXPECT_EQ(Oversubscription(d), "");
  d.launcher_cores = {{0}, {0}};
  EXPECT_EQ(
      Oversubscription(d),
      "oversubscribed: binding none keeps the launcher's masks, which give 2 ranks x 1 thread(s) only 1 "
      "core(s) of their own of the 2 needed on this node (vm: 1 NUMA node, 2 cores (0,1)), node-local "
      "rank 0: 0, rank 1: 0");
}

TEST(Binding, SkipAndPointReasonsCarryTheNumbers) {
  const std::string why = Oversubscription(TwoCores(4, 1, 0));
  EXPECT_EQ(OversubscribedSkipReason(why).rfind(why, 0), 0u);
  EXPECT_NE(OversubscribedSkipReason(why).find("oversubscribe: allow"), std::string::npos);
  EXPECT_NE(OversubscribedPointReason(why).find("share cores (" + why), std::string::npos);
}

json Rank(int r, const std::string& host, std::vector<int> launcher, std::vector<int> process,
          std::vector<std::vector<int>> threads) {
  return {{"rank", r},
          {"host", host},
          {"launcher_cpus", launcher},
          {"process_cpus", process},
          {"thread_cpus", threads}};
}

TEST(Binding, ConsoleLineSaysWhereEachRankComputed) {
  json b = {{"policy", "cores"},
            {"ranks", {Rank(0, "vm", {0, 1}, {0}, {{0}}), Rank(1, "vm", {0, 1}, {1}, {{1}})}}};
  EXPECT_EQ(BindingLine(b),
            "binding: cores (by nbcguard): rank 0 cpu 0, rank 1 cpu 1; launcher gave 0,1 / 0,1");
  // dedicated: the process keeps its reserved core; two hosts are named.
  b["ranks"] = {Rank(0, "a", {0, 1, 2, 3}, {0, 1}, {{0}}), Rank(1, "b", {0, 1, 2, 3}, {2, 3}, {{2}})};
  EXPECT_EQ(BindingLine(b),
            "binding: cores (by nbcguard): rank 0 cpu 0 (process 0,1) on a, rank 1 cpu 2 (process 2,3) on b; "
            "launcher gave 0-3 / 0-3");
  json none = {{"policy", "none"},
               {"ranks", {Rank(0, "vm", {0, 1}, {0, 1}, {{0, 1}, {0, 1}}), Rank(1, "vm", {0}, {0}, {{0}})}}};
  EXPECT_EQ(BindingLine(none),
            "binding: none (the launcher's): rank 0 cpus 0,1, rank 1 cpu 0; launcher gave 0,1 / 0");
  json placed = {
      {"policy", "placement"}, {"placement", "numa"}, {"ranks", {Rank(0, "vm", {0, 1}, {0, 1}, {{0}})}}};
  EXPECT_EQ(
      BindingLine(placed),
      "binding: placement numa (by nbcguard, thread-numa): rank 0 cpu 0 (process 0,1); launcher gave 0,1");
}

TEST(Binding, RankCpusArgJoinsRanksAndCpus) {
  EXPECT_EQ(RankCpusArg({{0}, {1}}), "0/1");
  EXPECT_EQ(RankCpusArg({{0, 1}, {2, 3}}), "0,1/2,3");
  EXPECT_EQ(RankCpusArg({}), "");
}

}  // namespace
}  // namespace nbcguard
