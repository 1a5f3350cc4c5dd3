// The peers' figures from samples, worked out by hand from their formulas:
// OSU micro-benchmarks 7.x (calculate_and_print_stats, print_stats_nbc in
// c/util/osu_util_mpi.c) and IMB-NBC (IMB_ibcast in src_c/IMB_bcast.c,
// IMB_display_times in src_c/IMB_output.c). Stamps per rank: t1 start call,
// t2 after it, t3 after the computation, t4 after MPI_Wait (seconds).
#include "nbcguard/peer_overlap.h"

#include <cmath>

#include <gtest/gtest.h>

namespace nbcguard {
namespace {

// The communication alone, every sample alike: rank 0 [0, 1], rank 1 [.5,
// 2]: own durations 1 and 1.5, t_pure 1.25 over ranks (the collective's span,
// first start to last end, would be 2).
GlobalSamples CommAlone() {
  const std::vector<std::vector<double>> sample = {{0, 0, 0, 1}, {.5, .5, .5, 2}};
  return {sample, sample, sample};
}

TEST(MeanPerRank, MeansOverSamplesPerRank) {
  const GlobalSamples s = {{{0, 1, 2, 4}, {0, 1, 1, 2}}, {{0, 2, 3, 6}, {1, 1, 1, 4}}};
  EXPECT_EQ(MeanPerRank(s, 0, 3), (std::vector<double>{5, 2.5}));  // (4 + 6) / 2, (2 + 3) / 2
  EXPECT_EQ(MeanPerRank(s, 1, 2), (std::vector<double>{1, 0}));
  GlobalSamples odd = s;
  odd.push_back({{0, 0, 0, 100}});  // one rank only: not a sample of this run
  EXPECT_EQ(MeanPerRank(odd, 0, 3), (std::vector<double>{5, 2.5}));
  EXPECT_TRUE(MeanPerRank({}, 0, 3).empty());
}

// The case where nbcguard used to read 25 and OSU prints 0. Rank 0 computes
// 1 s (t3 - t2) within 1.5 s overall in both samples: per sample 100 - 100
// (1.5 - 1) / 1 = 50. Rank 1 takes 1.5 + 2 in the first sample and 1.5 in
// the second: per sample 100 - 100 (3.5 - 1) / 1.5 < 0 and 100 - 100 (1.5 -
// 1) / 1.5 = 66.7. Clamping each and averaging gives (50 + 0 + 50 + 66.7) /
// 4 = 41.7. OSU averages first: overall (1.5 + 1.5 + 3.5 + 1.5) / 4 = 2,
// compute 1, pure 1.25: 100 - 100 (2 - 1) / 1.25 = 20. With rank 1's first
// sample 2 s longer still (5.5), clamping per sample still gives 41.7, but
// overall is 2.5 and OSU prints 100 - 100 (1.5 / 1.25) < 0 -> 0.
TEST(PeerOverlap, OsuAveragesFirstAndClampsOnce) {
  GlobalSamples overlapped = {{{0, .1, 1.1, 1.5}, {0, .2, 1.2, 3.5}}, {{0, .1, 1.1, 1.5}, {0, .2, 1.2, 1.5}}};
  EXPECT_NEAR(PeerOverlapOf(overlapped, CommAlone()).osu_pct, 20.0, 1e-12);
  overlapped[0][1][3] = 5.5;
  EXPECT_EQ(PeerOverlapOf(overlapped, CommAlone()).osu_pct, 0.0);
}

// IMB's t_CPU is the computation measured in the overlapped run (t3 - t2),
// slowed here to 2 s where alone it took 1 s; t_pure 1, t_ovrl 2.2:
// 100 (1 + 2 - 2.2) / max(1, 2) = 40. With the computation alone (1 s) as
// t_CPU it would read 100 max(0, (1 + 1 - 2.2) / 1) = 0.
TEST(PeerOverlap, ImbUsesTheComputationOfTheOverlappedRun) {
  const std::vector<std::vector<double>> alone = {{0, 0, 0, 1}, {0, 0, 0, 1}};
  const std::vector<std::vector<double>> run = {{0, .1, 2.1, 2.2}, {0, .1, 2.1, 2.2}};
  const PeerOverlap p = PeerOverlapOf({run, run, run}, {alone, alone, alone});
  EXPECT_NEAR(p.imb_pct, 40.0, 1e-12);
}

// IMB takes all three times of one rank, the one with the largest t_ovrl:
// rank 1 (t_ovrl 2.2, t_CPU 1, t_pure 1.5): 100 (1.5 + 1 - 2.2) / 1.5 = 20.
// The largest of each over ranks (1.5, 1.8, 2.2) would give 100 (1.5 + 1.8
// - 2.2) / 1.8 = 61.
TEST(PeerOverlap, ImbTakesTheSlowestRanksOwnTimes) {
  const std::vector<std::vector<double>> run = {{0, 0, 1.8, 2.0}, {0, .2, 1.2, 2.2}};
  const PeerOverlap p = PeerOverlapOf({run, run}, CommAlone());
  EXPECT_EQ(p.imb_rank, 1);
  EXPECT_NEAR(p.imb_pct, 20.0, 1e-12);
}

TEST(PeerOverlap, ImbTieGoesToTheFirstRank) {
  // Both ranks 2 s overall; rank 0: t_pure 1, t_CPU 1.5: (1 + 1.5 - 2) / 1.5
  // (rank 1's, t_pure 1.5 and t_CPU .5, would give 0).
  const std::vector<std::vector<double>> run = {{0, 0, 1.5, 2}, {0, 0, .5, 2}};
  const PeerOverlap p = PeerOverlapOf({run}, CommAlone());
  EXPECT_EQ(p.imb_rank, 0);
  EXPECT_NEAR(p.imb_pct, 100.0 / 3, 1e-12);
}

TEST(PeerOverlap, NothingToAverageIsNaN) {
  const GlobalSamples one_rank = {{{0, 0, 1, 2}}};
  for (const PeerOverlap& p :
       {PeerOverlapOf({}, CommAlone()), PeerOverlapOf(one_rank, {}), PeerOverlapOf(one_rank, CommAlone())}) {
    EXPECT_TRUE(std::isnan(p.osu_pct));
    EXPECT_TRUE(std::isnan(p.imb_pct));
    EXPECT_EQ(p.imb_rank, -1);
  }
}

}  // namespace
}  // namespace nbcguard
