// Reduce on a small synthetic raw log whose answers are worked out by hand
// below: 2 ranks, rank 1's clock 1 s ahead of rank 0's, times in seconds
// chosen so the arithmetic is easy to follow (the reduction does not care
// about the scale).
#include "nbcguard/reduce.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "nbcguard/binding.h"
#include "nbcguard/raw_records.h"

namespace nbcguard {
namespace {

using json = nlohmann::json;

constexpr double kRank1Offset = 1.0;  // rank 1's local clock reads global + 1 s

// A sample set with k = 4 from global stamps [sample][rank][stamp]: rank 1's
// stamps are written on its own clock, as the harness does.
json SampleSet(const std::vector<std::vector<std::vector<double>>>& global) {
  json local = json::array();
  for (const auto& sample : global) {
    json row = json::array();
    for (std::size_t r = 0; r < sample.size(); ++r)
      for (double t : sample[r]) row.push_back(t + (r == 1 ? kRank1Offset : 0.0));
    local.push_back(row);
  }
  return {{"k", 4}, {"local", local}, {"exits", json::array()}, {"late_redone", 0}};
}

json Rec(std::string_view type, json fields) {
  fields["type"] = std::string(type);
  return fields;
}

// The communication references: every sample alike, rank 0 [0, .25, .25, 2]
// and rank 1 [.5, .75, .75, 3]. The collective's time is the first rank's
// start to the last rank's end: 3 - 0 = 3 (the mean of the ranks' own
// durations would be (2 + 2.5) / 2 = 2.25, the longest own 2.5).
json CommRef() {
  return SampleSet({{{0, .25, .25, 2}, {.5, .75, .75, 3}},
                    {{0, .25, .25, 2}, {.5, .75, .75, 3}},
                    {{0, .25, .25, 2}, {.5, .75, .75, 3}}});
}

// The computation references: the longest rank's t4 - t1, max(4, 3) = 4.
json CompRef() {
  return SampleSet(
      {{{0, 0, 0, 4}, {0, 0, 0, 3}}, {{0, 0, 0, 4}, {0, 0, 0, 3}}, {{0, 0, 0, 4}, {0, 0, 0, 3}}});
}

// Overlap samples, stamps t1 start, t2 after the call, t3 after compute, t4
// after the wait; t_comm_ref = 3, t_comp_ref = 4 (above).
//   A: r0 [0, .5, 4.5, 5],     r1 [1, 1.25, 5.25, 6]
//      t_measured = 6 - 0 = 6; t_comp = max(4, 4) = 4; critical rank (last
//      t3) = 1: t_call = .25, t_wait = .75, MPI time 1.
//      r_overhead = (6 - max(4, 3)) / min(4, 3) = 2/3; r_comm = 1/3;
//      r_comp_slowdown = 4/4 = 1.
//   B: r0 [0, 1, 5, 5.5],      r1 [0, .5, 5.5, 7]
//      t_measured = 7; t_comp = max(4, 5) = 5; critical rank 1: t_call = .5,
//      t_wait = 1.5, MPI time 2. r_overhead = 3/3 = 1; r_comm = 2/3;
//      r_comp_slowdown = 5/4.
//   C: r0 [2, 2.25, 6.25, 6.5], r1 [0, .5, 4.5, 6]
//      t_measured = 6.5 - 0 = 6.5; t_comp = 4; critical rank 0: t_call = .25,
//      t_wait = .25, MPI time .5. r_overhead = 2.5/3 = 5/6; r_comm = 1/6;
//      r_comp_slowdown = 1.
// r_comm counts every rank's start call + wait beyond its slack (the time
// until the last rank finished computing), the largest over ranks:
//   A: last t3 5.25; r0 (.5 + .5) - .75 = .25, r1 1 - 0 = 1: 1/3.
//   B: last t3 5.5; r0 1.5 - .5 = 1, r1 2 - 0 = 2: 2/3.
//   C: last t3 6.25; r0 .5 - 0 = .5, r1 2 - 1.75 = .25: 1/6.
// Medians: t_measured 6.5 (the mean of the ranks' own durations would give
// median(5, 6.25, 5.25) = 5.25), t_call .25 (rank 0's calls would give .5),
// t_comp 4, t_wait .75, r_overhead 5/6, r_comm 1/3, r_comp_slowdown 1. With
// 3 samples the 95 % interval of the median is [min, max] (stats.h).
// The ranks start 1, 0 and 2 apart (median 1, a third of t_comm_ref): a
// validity gate refuses the point (validity.h), its figures are kept.
// Rank 0 computes 4 in the reference, rank 1 3: imbalance slack 1, effect
// 1 / min(3, 4) = 1/3 > 0.2: flagged.
json Overlap() {
  return SampleSet({{{0, .5, 4.5, 5}, {1, 1.25, 5.25, 6}},
                    {{0, 1, 5, 5.5}, {0, .5, 5.5, 7}},
                    {{2, 2.25, 6.25, 6.5}, {0, .5, 4.5, 6}}});
}

// Grid comm {1 ms, 2 ms} x comp {2 ms, 4 ms, 8 ms}:
//   (1 ms, 2 ms): the samples above, valid.
//   (1 ms, 4 ms): 2 overlap samples only: invalid.
//   (1 ms, 8 ms): calibrated, no point record: not measured.
//   (2 ms, any): its communication calibration failed.
// r_mpi_impact of comp 2 ms over two rounds (ranks' times [rank * 3 + i]):
//   round 0: with MPI, slowest per repetition of [1, 2, 3] and [1.5, 1, 4] =
//            [1.5, 2, 4], median 2; without MPI median(1, 1.6, 2) = 1.6;
//            ratio 2 / 1.6 = 1.25.
//   round 1: with MPI [3, 3, 3], median 3; without MPI 2; ratio 1.5.
//   r_mpi_impact = median(1.25, 1.5) = 1.375, interval [1.25, 1.5].
//   Row medians: with MPI median(1.5, 2, 4, 3, 3, 3) = 3, without MPI
//   median(1, 1.6, 2, 2, 2, 2) = 2.
// comp 4 ms: its only passive record is late: an error, no ratio.
RawRun SyntheticRun() {
  RawRun run;
  run.context = Rec(record::kContext,
                    {{"ranks", 2}, {"comm_targets", {1e-3, 2e-3}}, {"comp_targets", {2e-3, 4e-3, 8e-3}}});
  run.records.push_back(run.context);
  auto add = [&](std::string_view type, json fields) { run.records.push_back(Rec(type, std::move(fields))); };
  // One offset point per rank: rank 1's local - global = 1 s.
  add(record::kClock,
      {{"points", {json::array({{0.0, 0.0, 1e-6}}), json::array({{100.0, kRank1Offset, 1e-6}})}}});
  for (double t : {2e-3, 4e-3, 8e-3})
    add(record::kCompCalibration, {{"target", t}, {"converged", true}, {"reason", ""}});
  add(record::kCommCalibration, {{"target", 1e-3}, {"converged", true}, {"reason", ""}});
  add(record::kCommCalibration, {{"target", 2e-3}, {"converged", false}, {"reason", "a step"}});
  add(record::kPoint, {{"comm_target", 1e-3},
                       {"comp_target", 2e-3},
                       {"bytes", 64},
                       {"n", 100},
                       {"comm_ref", CommRef()},
                       {"comp_ref", CompRef()},
                       {"overlap", Overlap()},
                       {"progress_tests", nullptr}});
  json two = Overlap();
  two["local"].erase(2);
  two["late_redone"] = 3;
  add(record::kPoint, {{"comm_target", 1e-3},
                       {"comp_target", 4e-3},
                       {"bytes", 64},
                       {"n", 200},
                       {"comm_ref", CommRef()},
                       {"comp_ref", CompRef()},
                       {"overlap", two},
                       {"progress_tests", 7}});
  add(record::kPassive,
      {{"comp_target", 2e-3}, {"n", 100}, {"round", 0}, {"times", {1, 2, 3, 1.5, 1, 4}}, {"late", false}});
  add(record::kPassive,
      {{"comp_target", 2e-3}, {"n", 100}, {"round", 1}, {"times", {3, 3, 3, 2, 2, 2}}, {"late", false}});
  add(record::kPassive,
      {{"comp_target", 4e-3}, {"n", 200}, {"round", 0}, {"times", {1, 1, 1, 1, 1, 1}}, {"late", true}});
  return run;
}

NoMpiTimes SyntheticNoMpi() {
  NoMpiTimes t;
  t[100][0] = {1, 1.6, 2};
  t[100][1] = {2, 2, 2};
  t[200][0] = {1, 1, 1};
  return t;
}

void ExpectSpread(const Spread& s, double median, double lo, double hi, int n) {
  EXPECT_DOUBLE_EQ(s.median, median);
  EXPECT_DOUBLE_EQ(s.lo, lo);
  EXPECT_DOUBLE_EQ(s.hi, hi);
  EXPECT_EQ(s.n, n);
}

TEST(Reduce, GridIsCommMajorWithEveryPoint) {
  const Reduction red = Reduce(SyntheticRun(), SyntheticNoMpi());
  ASSERT_EQ(red.points.size(), 6u);
  EXPECT_EQ(red.points[0].comm_target, 1e-3);
  EXPECT_EQ(red.points[0].comp_target, 2e-3);
  EXPECT_EQ(red.points[2].comp_target, 8e-3);
  EXPECT_EQ(red.points[3].comm_target, 2e-3);
}

// The synthetic point's figures, measured though a gate refused it.
PointResult Measured() {
  PointResult p = Reduce(SyntheticRun(), SyntheticNoMpi()).points[0];
  EXPECT_FALSE(p.valid);
  EXPECT_NE(p.invalid_reason.find("the ranks started the overlap runs 1s apart (median)"), std::string::npos)
      << p.invalid_reason;
  return p;
}

TEST(Reduce, ReferencesAreFirstStartToLastEndAndLongestComputation) {
  const PointResult p = Measured();
  EXPECT_DOUBLE_EQ(p.t_comm_ref, 3.0);  // not 2.25 (mean of own durations) nor 2.5 (longest own)
  EXPECT_DOUBLE_EQ(p.t_comp_ref, 4.0);
}

TEST(Reduce, OverlapTimesAreTheCollectivesAndTheCriticalRanks) {
  const PointResult p = Measured();
  EXPECT_DOUBLE_EQ(p.t_measured, 6.5);  // first start to last end; not 5.25
  EXPECT_DOUBLE_EQ(p.t_call, 0.25);     // the critical rank's; rank 0's would be 0.5
  EXPECT_DOUBLE_EQ(p.t_comp, 4.0);
  EXPECT_DOUBLE_EQ(p.t_wait, 0.75);
  EXPECT_EQ(p.progress_tests, -1);  // null in the record: not measured
}

TEST(Reduce, RatiosFromTheFormulasOfMetricsH) {
  const PointResult p = Measured();
  ExpectSpread(p.r_overhead, 5.0 / 6, 2.0 / 3, 1.0, 3);
  ExpectSpread(p.r_comm, 1.0 / 3, 1.0 / 6, 2.0 / 3, 3);
  ExpectSpread(p.r_comp_slowdown, 1.0, 1.0, 1.25, 3);
  ExpectSpread(p.r_mpi_impact, 1.375, 1.25, 1.5, 2);
  EXPECT_EQ(p.diagnosis, Diagnosis::kInvalid);
}

TEST(Reduce, ImbalanceFromTheRanksMedianComputationTimes) {
  const PointResult p = Measured();
  // Reference: rank 0 4, rank 1 3. Overlap run (t3 - t2): rank 0 4, 4, 4;
  // rank 1 4, 5, 4: medians 4 and 4.
  EXPECT_DOUBLE_EQ(p.imbalance.ref_slack, 1.0);
  EXPECT_DOUBLE_EQ(p.imbalance.ref_ratio, 4.0 / 3);
  EXPECT_EQ(p.imbalance.slowest_rank, 0);
  EXPECT_EQ(p.imbalance.fastest_rank, 1);
  EXPECT_DOUBLE_EQ(p.imbalance.overlap_slack, 0.0);
  EXPECT_DOUBLE_EQ(p.imbalance.effect, 1.0 / 3);
  EXPECT_TRUE(p.imbalance.flagged);
  EXPECT_DOUBLE_EQ(p.start_skew, 1.0);
}

// One sample of the issue this guards against, on 2 ranks: no progression,
// rank 1 computes faster (188 us against rank 0's 266 us), then does the
// whole transfer (210 us) inside MPI_Wait while rank 0 still computes; rank
// 0's wait is 3 us. The critical rank's MPI time alone reads 3 us; rank 1's
// beyond its slack of 78 us reads 132 us.
TEST(Reduce, RankThatTransferredWhileAnotherComputedCountsBeyondItsSlack) {
  const std::vector<std::vector<double>> s = {{0, 1e-6, 267e-6, 270e-6}, {0, 1e-6, 189e-6, 399e-6}};
  EXPECT_NEAR(UnhiddenMpiTime(s), 1e-6 + 210e-6 - 78e-6, 1e-12);
}

// The peers' figures (peer_overlap.h) from the same samples. Per rank, means
// over the samples: communication alone, t4 - t1: rank 0 2, rank 1 2.5.
// Overlapped, t4 - t1: rank 0 (5 + 5.5 + 4.5) / 3 = 5, rank 1 (5 + 7 + 6) / 3
// = 6; t3 - t2: rank 0 4, rank 1 (4 + 5 + 4) / 3 = 13/3.
//   OSU: over ranks 5.5, 25/6 and 2.25: 100 - 100 (5.5 - 25/6) / 2.25 =
//        100 - 100 (4/3) / (9/4) = 1100/27 (per sample and rank, clamped,
//        then averaged, it would have been 47.5).
//   IMB: rank 1 (largest t_ovrl 6): 100 (2.5 + 13/3 - 6) / max(2.5, 13/3)
//        = 100 (5/6) / (13/3) = 250/13.
TEST(Reduce, PeerFiguresFromTheSamePointsSamples) {
  const Reduction red = Reduce(SyntheticRun(), SyntheticNoMpi());
  EXPECT_NEAR(red.points[0].osu_overlap_pct, 1100.0 / 27, 1e-9);
  EXPECT_NEAR(red.points[0].imb_overlap_pct, 250.0 / 13, 1e-9);
  EXPECT_TRUE(std::isnan(red.points[1].osu_overlap_pct));  // invalid point: not computed
  EXPECT_TRUE(std::isnan(red.points[1].imb_overlap_pct));
}

// The collective alone: each communication-reference sample's span (first
// start to last end) against the point record's bytes per rank. Spans 2, 3
// and 6 s for 64 bytes: bandwidths 32, 64/3 and 64/6 B/s; 3 samples give
// [min, max] as the interval.
TEST(Reduce, CollectiveSpeedIsBytesPerRankOverEachCommunicationAloneSpan) {
  RawRun run = SyntheticRun();
  for (json& rec : run.records)
    if (rec["type"] == record::kPoint && rec["comp_target"] == 2e-3)
      rec["comm_ref"] = SampleSet({{{0, .25, .25, 2}, {.5, .75, .75, 1}},
                                   {{0, .25, .25, 2}, {.5, .75, .75, 3}},
                                   {{1, 1.25, 1.25, 2}, {.5, .75, .75, 6.5}}});
  // The longer references make the synthetic overlap's 1 s start spread
  // fail the start gate; the speed, a figure of the references alone, is
  // still measured and kept as evidence.
  const PointResult p = Reduce(run, SyntheticNoMpi()).points[0];
  EXPECT_EQ(p.speed.bytes_per_rank, 64);
  ExpectSpread(p.speed.time, 3, 2, 6, 3);
  EXPECT_DOUBLE_EQ(p.t_comm_ref, p.speed.time.median);
  ExpectSpread(p.speed.bandwidth, 64.0 / 3, 64.0 / 6, 32, 3);
  // Invalid points have none.
  EXPECT_FALSE(Reduce(run, SyntheticNoMpi()).points[3].speed.Measured());
}

TEST(Reduce, PerRankTimingFindsTheLateExit) {
  // Communication references, relative to each sample's first start: rank 0
  // starts at 0, calls .25, ends at 2; rank 1 at .5, .25, 3. Rank 1's end
  // exceeds the other's by 1 > max(10 % of 3, 20 us): a late exit. The
  // calls are equal: no late entry.
  const PointResult p = Reduce(SyntheticRun(), SyntheticNoMpi()).points[0];
  ASSERT_EQ(p.per_rank.size(), 2u);
  EXPECT_DOUBLE_EQ(p.per_rank[1].start, 0.5);
  EXPECT_DOUBLE_EQ(p.per_rank[1].call, 0.25);
  EXPECT_DOUBLE_EQ(p.per_rank[1].end, 3.0);
  EXPECT_TRUE(p.late_ranks.empty());
  ASSERT_EQ(p.late_exits.size(), 1u);
  EXPECT_EQ(p.late_exits[0].first, 1);
  EXPECT_DOUBLE_EQ(p.late_exits[0].second, 1.0);
}

TEST(Reduce, InvalidPointsSayWhy) {
  const Reduction red = Reduce(SyntheticRun(), SyntheticNoMpi());
  EXPECT_FALSE(red.points[1].valid);
  EXPECT_EQ(red.points[1].invalid_reason, "fewer than 3 samples survived the synchronized barrier");
  EXPECT_EQ(red.points[1].progress_tests, 7);
  EXPECT_FALSE(red.points[2].valid);
  EXPECT_EQ(red.points[2].invalid_reason, "not measured (run ended before this point)");
  for (int i = 3; i < 6; ++i) {
    EXPECT_FALSE(red.points[i].valid);
    EXPECT_EQ(red.points[i].invalid_reason, "communication calibration failed for 2ms: a step");
    EXPECT_EQ(red.points[i].diagnosis, Diagnosis::kInvalid);
  }
  // Only the valid point's samples are kept; the short point's redone
  // samples still count.
  ASSERT_EQ(red.samples.size(), 1u);
  EXPECT_EQ(red.samples[0]["overlap"].size(), 3u);
  EXPECT_DOUBLE_EQ(red.samples[0]["overlap"][1][0].get<double>(), 7.0);
  EXPECT_EQ(red.late_redone, 3);
}

TEST(Reduce, MpiImpactRowsPerComputationTarget) {
  const Reduction red = Reduce(SyntheticRun(), SyntheticNoMpi());
  ASSERT_EQ(red.mpi_impact.size(), 2u);
  const json& row = red.mpi_impact[0];
  EXPECT_DOUBLE_EQ(row["r_mpi_impact"].get<double>(), 1.375);
  EXPECT_EQ(row["rounds"], 2);
  EXPECT_DOUBLE_EQ(row["with_mpi_median"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(row["without_mpi_median"].get<double>(), 2.0);
  EXPECT_EQ(red.mpi_impact[1]["error"], "a rank started its paced runs late; runs were not simultaneous");
  // Points of a row without a ratio carry an empty one.
  EXPECT_EQ(red.points[1].r_mpi_impact.n, 0);
  EXPECT_TRUE(std::isnan(red.points[1].r_mpi_impact.median));
}

TEST(Reduce, CalibrationAndClockSections) {
  const Reduction red = Reduce(SyntheticRun(), SyntheticNoMpi());
  EXPECT_EQ(red.calibration["comm"].size(), 2u);
  EXPECT_EQ(red.calibration["comp"].size(), 3u);
  ASSERT_EQ(red.clock.size(), 2u);
  EXPECT_DOUBLE_EQ(red.clock[1]["offset_s"].get<double>(), kRank1Offset);
  EXPECT_EQ(red.clock[1]["method"], "flat");
  EXPECT_TRUE(red.barrier.is_null());  // no barrier_skew record
  EXPECT_TRUE(red.conformance_error.empty());
}

TEST(Reduce, ConformanceFailureIsNamed) {
  RawRun run = SyntheticRun();
  run.records.push_back(
      Rec(record::kConformanceFailure,
          {{"collective", "ibcast"}, {"count", 5}, {"bytes", 20}, {"error", "byte 3 is 7"}}));
  EXPECT_EQ(Reduce(run, {}).conformance_error, "ibcast with count 5 (20 bytes per rank): byte 3 is 7");
}

// oversubscribe: allow: the run is measured and reduced, its binding kept
// in results.json, and every point INVALID with the reason, so no verdict
// counts it. Without oversubscription the binding changes nothing.
TEST(Reduce, OversubscribedRunsPointsAreInvalid) {
  RawRun run = SyntheticRun();
  const std::string why = "oversubscribed: 4 ranks x 1 thread(s) on this node's 2 cores (vm: 2 cores)";
  run.records.push_back(Rec(
      record::kBinding,
      {{"policy", "cores"}, {"oversubscribed", true}, {"oversubscription", why}, {"ranks", json::array()}}));
  const Reduction red = Reduce(run, SyntheticNoMpi());
  EXPECT_EQ(red.binding["policy"], "cores");
  EXPECT_FALSE(red.binding.contains("type"));
  ASSERT_EQ(red.points.size(), 6u);
  for (const PointResult& p : red.points) {
    EXPECT_FALSE(p.valid);
    EXPECT_EQ(p.invalid_reason, OversubscribedPointReason(why));
    EXPECT_EQ(p.diagnosis, Diagnosis::kInvalid);
  }
  run.records.back()["oversubscribed"] = false;
  run.records.back()["oversubscription"] = "";
  // Not oversubscribed: the synthetic point is back to what measured it
  // (the start gate refuses it, as without a binding record).
  EXPECT_EQ(Reduce(run, SyntheticNoMpi()).points[0].invalid_reason,
            Reduce(SyntheticRun(), SyntheticNoMpi()).points[0].invalid_reason);
  EXPECT_TRUE(Reduce(SyntheticRun(), SyntheticNoMpi()).binding.is_null());
}

TEST(Reduce, NoRecordsNoPoints) {
  RawRun run;
  run.context = json::object();
  const Reduction red = Reduce(run, {});
  EXPECT_TRUE(red.points.empty());
  EXPECT_TRUE(red.samples.empty());
  EXPECT_TRUE(red.mpi_impact.empty());
}

}  // namespace
}  // namespace nbcguard
