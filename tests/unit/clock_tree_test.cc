#include "nbcguard/clock_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

namespace nbcguard {
namespace {

int CeilLog2(int p) {
  return p <= 1 ? 0 : static_cast<int>(std::ceil(std::log2(static_cast<double>(p)) - 1e-12));
}

// The schedule's contract, for every rank count up to 1000: every rank but 0
// synchronized exactly once, always against a rank synchronized in an earlier
// stage (or rank 0), ceil(log2 p) stages, no rank in two pairs of one stage.
TEST(ClockTree, ScheduleContractUpTo1000Ranks) {
  for (int p = 1; p <= 1000; ++p) {
    SCOPED_TRACE("ranks " + std::to_string(p));
    const auto stages = TreeSchedule(p);
    ASSERT_EQ(static_cast<int>(stages.size()), CeilLog2(p));
    ASSERT_EQ(TreeStages(p), CeilLog2(p));
    std::vector<int> synced_in(p, -2);  // stage of synchronization; rank 0 is the reference
    synced_in[0] = -1;
    std::vector<int> times(p, 0);
    for (int s = 0; s < static_cast<int>(stages.size()); ++s) {
      ASSERT_FALSE(stages[s].empty()) << "stage " << s << " does nothing";
      std::set<int> busy;
      for (const TreePair& pair : stages[s]) {
        EXPECT_EQ(pair.stage, s);
        ASSERT_GE(pair.client, 1);
        ASSERT_LT(pair.client, p);
        ASSERT_GE(pair.server, 0);
        ASSERT_LT(pair.server, p);
        EXPECT_TRUE(busy.insert(pair.client).second) << "rank " << pair.client << " twice in stage " << s;
        EXPECT_TRUE(busy.insert(pair.server).second) << "rank " << pair.server << " twice in stage " << s;
        ASSERT_NE(synced_in[pair.server], -2)
            << "server " << pair.server << " not synchronized before stage " << s;
        EXPECT_LT(synced_in[pair.server], s);
        ++times[pair.client];
      }
      for (const TreePair& pair : stages[s]) synced_in[pair.client] = s;
    }
    EXPECT_EQ(times[0], 0);
    for (int r = 1; r < p; ++r) EXPECT_EQ(times[r], 1) << "rank " << r;
  }
}

// The per-rank view the MPI code uses agrees with the schedule: a rank's
// server lists it among its clients, in stage order, and depth is the hop
// count to rank 0.
TEST(ClockTree, PerRankViewMatchesSchedule) {
  for (int p : {1, 2, 3, 5, 8, 13, 64, 100, 1000}) {
    SCOPED_TRACE("ranks " + std::to_string(p));
    std::vector<std::vector<int>> clients(p);
    for (const auto& stage : TreeSchedule(p))
      for (const TreePair& pair : stage) {
        EXPECT_EQ(TreeServer(pair.client), pair.server);
        EXPECT_EQ(TreeStage(pair.client), pair.stage);
        clients[pair.server].push_back(pair.client);
      }
    for (int r = 0; r < p; ++r) {
      EXPECT_EQ(TreeClients(r, p), clients[r]) << "rank " << r;
      int hops = 0;
      for (int x = r; x != 0; x = TreeServer(x)) ++hops;
      EXPECT_EQ(TreeDepth(r), hops) << "rank " << r;
    }
  }
}

TEST(ClockTree, SmallCasesByHand) {
  EXPECT_EQ(TreeServer(1), 0);
  EXPECT_EQ(TreeServer(2), 0);
  EXPECT_EQ(TreeServer(3), 1);
  EXPECT_EQ(TreeServer(6), 2);
  EXPECT_EQ(TreeServer(7), 3);
  EXPECT_EQ(TreeDepth(7), 3);
  EXPECT_EQ(TreeStage(0), -1);
  EXPECT_EQ(TreeServer(0), -1);
  EXPECT_EQ(TreeClients(0, 8), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(TreeClients(1, 8), (std::vector<int>{3, 5}));
  EXPECT_EQ(TreeClients(3, 8), (std::vector<int>{7}));
  EXPECT_TRUE(TreeClients(4, 5).empty());
  EXPECT_EQ(TreeStages(1), 0);
  EXPECT_EQ(TreeStages(2), 1);
  EXPECT_EQ(TreeStages(3), 2);
  EXPECT_EQ(TreeStages(1024), 10);
  EXPECT_EQ(TreeStages(1025), 11);
  EXPECT_EQ(TreeStages(10000), 14);
}

TEST(ClockTree, SequentialSteps) {
  EXPECT_EQ(SequentialSteps(ClockSyncMethod::kFlat, 1), 0);
  EXPECT_EQ(SequentialSteps(ClockSyncMethod::kFlat, 16), 15);
  EXPECT_EQ(SequentialSteps(ClockSyncMethod::kTree, 16), 4);
  EXPECT_EQ(SequentialSteps(ClockSyncMethod::kTree, 1000), 10);
  EXPECT_EQ(SequentialSteps(ClockSyncMethod::kFlat, 10000), 9999);
  EXPECT_EQ(SequentialSteps(ClockSyncMethod::kTree, 10000), 14);
}

TEST(ClockTree, MaxDepthIsTheDeepestRank) {
  for (int p : {2, 3, 7, 8, 9, 16, 100, 1000, 10000}) {
    int deepest = 0;
    for (int r = 1; r < p; ++r) deepest = std::max(deepest, TreeDepth(r));
    EXPECT_EQ(MaxDepth(ClockSyncMethod::kTree, p), deepest) << "ranks " << p;
    EXPECT_EQ(MaxDepth(ClockSyncMethod::kFlat, p), 1);
  }
  EXPECT_EQ(MaxDepth(ClockSyncMethod::kTree, 1000), 9);
  EXPECT_EQ(MaxDepth(ClockSyncMethod::kTree, 10000), 13);
  EXPECT_EQ(MaxDepth(ClockSyncMethod::kTree, 1), 0);
}

TEST(ClockTree, FitThroughOrigin) {
  const OriginFit exact = FitThroughOrigin({1, 2, 3, 4}, {2.5, 5, 7.5, 10});
  EXPECT_DOUBLE_EQ(exact.slope, 2.5);
  EXPECT_NEAR(exact.rms, 0, 1e-15);
  EXPECT_NEAR(exact.r2, 1, 1e-15);
  // A near constant is badly explained by a line through 0.
  const OriginFit flat = FitThroughOrigin({1, 2, 3, 4}, {5, 6, 5, 6});
  EXPECT_NEAR(flat.slope, 56.0 / 30.0, 1e-12);
  EXPECT_GT(flat.rms, 1);
  EXPECT_LT(flat.r2, 0);
  EXPECT_EQ(FitThroughOrigin({}, {}).n, 0);
}

TEST(ClockTree, ParseNamesTheAllowedValues) {
  std::string error;
  EXPECT_EQ(ParseClockSyncMethod("flat", &error), ClockSyncMethod::kFlat);
  EXPECT_EQ(ParseClockSyncMethod("tree", &error), ClockSyncMethod::kTree);
  EXPECT_EQ(ClockSyncMethodNames(), (std::vector<std::string>{"flat", "tree"}));
  for (const std::string& n : ClockSyncMethodNames())
    EXPECT_EQ(ToString(*ParseClockSyncMethod(n, nullptr)), n);
  EXPECT_FALSE(ParseClockSyncMethod("hierarchical", &error));
  EXPECT_EQ(error, "unknown clock synchronization 'hierarchical' (allowed: flat, tree)");
}

TEST(ClockTree, PerturbationDiffersAlongTheTree) {
  const ClockPerturbation r0 = RankPerturbation(0, 0.05, 1e-4);
  EXPECT_EQ(r0.offset, 0);
  EXPECT_EQ(r0.drift, 0);
  const ClockPerturbation r1 = RankPerturbation(1, 0.05, 1e-4);
  EXPECT_EQ(r1.offset, 0.05);  // rank 1 gets exactly what was asked (as clock-check on rank 1 alone)
  EXPECT_EQ(r1.drift, 1e-4);
  for (int r = 1; r < 64; ++r) {
    const ClockPerturbation c = RankPerturbation(r, 0.05, 1e-4);
    EXPECT_GE(std::abs(c.offset), 0.05);
    EXPECT_LE(std::abs(c.offset), 0.0875 + 1e-12);
    EXPECT_GE(std::abs(c.drift), 1e-4);
    EXPECT_LE(std::abs(c.drift), 1.75e-4 + 1e-12);
    // Each rank's clock differs from its server's in offset, so a server
    // answering with its local time instead of its global estimate shows:
    // opposite signs, at least twice the offset apart (rank 0: unperturbed).
    const ClockPerturbation s = RankPerturbation(TreeServer(r), 0.05, 1e-4);
    EXPECT_GE(std::abs(c.offset - s.offset), (TreeServer(r) == 0 ? 1 : 2) * 0.05 - 1e-12) << "rank " << r;
  }
}

}  // namespace
}  // namespace nbcguard
