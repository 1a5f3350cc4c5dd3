// The machine-noise sentinel's rule, its tally and the refusal of a point
// the machine kept disturbing (sentinel.h), through the reduction too.
#include "nbcguard/sentinel.h"

#include <gtest/gtest.h>

#include "nbcguard/raw_records.h"
#include "nbcguard/reduce.h"
#include "nbcguard/validity.h"

namespace nbcguard {
namespace {

using json = nlohmann::json;

SentinelReading Reading(double probe_us, double wait_us, double duration_us) {
  SentinelReading r;
  r.probe = probe_us * 1e-6;
  r.foreign_wait = wait_us * 1e-6;
  r.duration = duration_us * 1e-6;
  return r;
}

// Quiet probes of about 28 us (the figure of docs/method.md) with their
// small wobble are never disturbed; one preempted probe is.
TEST(Sentinel, ASlowProbeAgainstTheRanksRecentProbesIsDisturbed) {
  DisturbanceDetector d(1);
  for (double p : {28.3, 28.1, 28.9, 28.3, 31.2, 28.2, 35.7, 28.4})
    EXPECT_EQ(d.Judge(0, Reading(p, 0, 1000)), Disturbance::kNone) << p;
  EXPECT_EQ(d.Judge(0, Reading(198.0, 0, 1000)), Disturbance::kSlowProbe);
  EXPECT_EQ(d.Judge(0, Reading(28.3, 0, 1000)), Disturbance::kNone);
  // At the bound exactly it is not disturbed (strictly above 1.5x the median 28.3).
  EXPECT_EQ(d.Judge(0, Reading(1.5 * 28.3 - 0.01, 0, 1000)), Disturbance::kNone);
}

// A slower phase of the vCPU that lasts becomes the norm: every kind of a
// point sees it alike, so only the step into it is refused.
TEST(Sentinel, APersistentSlowerPhaseBecomesTheNorm) {
  DisturbanceDetector d(1);
  for (int i = 0; i < 20; ++i) d.Judge(0, Reading(28, 0, 1000));
  int disturbed = 0;
  for (int i = 0; i < 40; ++i)
    if (d.Judge(0, Reading(60, 0, 1000)) != Disturbance::kNone) ++disturbed;
  EXPECT_GT(disturbed, 0);
  EXPECT_LE(disturbed, 16);  // at most until 60 us is the median of the last 31 probes
  EXPECT_EQ(d.Judge(0, Reading(60, 0, 1000)), Disturbance::kNone);
}

// Foreign waits: compared with the usual wait of the same kind, so a kind
// that always waits (a thread the job's accounting cannot see sharing the
// core) is refused only until it has 3 readings, while a kind that never
// waits is refused for a wait over 5 % of the sample.
TEST(Sentinel, AForeignWaitBeyondTheKindsUsualIsDisturbed) {
  DisturbanceDetector d(2);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(d.Judge(0, Reading(28, 0, 1000)), Disturbance::kNone);
    EXPECT_EQ(d.Judge(1, Reading(28, 400, 1000)), i < 3 ? Disturbance::kForeignWait : Disturbance::kNone)
        << "wait of kind 1 number " << i;
  }
  EXPECT_EQ(d.Judge(0, Reading(28, 60, 1000)), Disturbance::kForeignWait);
  EXPECT_EQ(d.Judge(0, Reading(28, 40, 1000)), Disturbance::kNone);
  EXPECT_EQ(d.Judge(1, Reading(28, 440, 1000)), Disturbance::kNone);
  EXPECT_EQ(d.Judge(1, Reading(28, 460, 1000)), Disturbance::kForeignWait);
  // Not measured (no schedstat): only the probe decides.
  EXPECT_EQ(d.Judge(0, Reading(28, -1, 1000)), Disturbance::kNone);
  // A new measurement forgets the waits: 400 us is no longer kind 1's usual.
  d.NewMeasurement(2);
  EXPECT_EQ(d.Judge(1, Reading(28, 400, 1000)), Disturbance::kForeignWait);
}

TEST(Sentinel, TallyOfTheKeptReadings) {
  // Two ranks; rank 1's probes 30, 30, 45: its slowest 1.5x its median.
  const std::vector<std::vector<double>> readings = {
      {28e-6, 0, 1e-3, 0, 30e-6, 10e-6, 1e-3, 1},
      {28e-6, 20e-6, 1e-3, 2, 30e-6, 0, 1e-3, 0},
      {28e-6, 0, 2e-3, 0, 45e-6, 30e-6, 1e-3, 1},
  };
  const SentinelTally t = TallySentinel(2, 1, 3, readings);
  EXPECT_EQ(t.kept, 3);
  EXPECT_EQ(t.redone(), 3);
  EXPECT_NEAR(t.max_probe_ratio, 1.5, 1e-12);
  // Largest share per sample: .01, .02, .03: median .02.
  EXPECT_NEAR(t.median_foreign_share, 0.02, 1e-12);
  EXPECT_EQ(t.preemptions, 4);
}

TEST(Sentinel, APointIsRefusedWhenTheTriesRanOutOrMostWereDisturbed) {
  SentinelTally t;
  t.wanted = t.kept = 45;
  EXPECT_EQ(SentinelRefusal(t), "");
  t.redone_slow_probe = 30;
  t.redone_foreign_wait = 15;  // 45 of 90 tries: half, not more
  EXPECT_EQ(SentinelRefusal(t), "");
  t.redone_foreign_wait = 16;
  EXPECT_EQ(
      SentinelRefusal(t),
      "the machine was disturbed during the point: the sentinel refused 46 of 91 samples (30 slow probe, "
      "16 waited for a CPU taken by another process)");
  SentinelTally short_of;
  short_of.wanted = 45;
  short_of.kept = 40;
  short_of.redone_foreign_wait = 5;
  EXPECT_NE(SentinelRefusal(short_of).find("the tries ran out before enough were kept"), std::string::npos);
}

// The reduction: a point record whose sentinel refused most tries is
// refused (measured again by a second job), with the sentinel's reason
// first, whatever the other gates say; its tally is kept.
TEST(Sentinel, TheReductionRefusesADisturbedPoint) {
  auto samples = [](double comm, double comp, int n) {
    json local = json::array();
    for (int i = 0; i < n; ++i) local.push_back({0.0, 0.0, comp, comp + comm, 0.0, 0.0, comp, comp + comm});
    return json{{"k", 4}, {"local", local}, {"exits", json::array()}, {"late_redone", 0}};
  };
  auto point = [&](int slow, int wait, int kept, int wanted) {
    json readings = json::array();
    for (int i = 0; i < kept; ++i) readings.push_back({28e-6, 0.0, 1e-3, 0.0, 28e-6, 0.0, 1e-3, 0.0});
    return json{{"type", record::kPoint},
                {"comm_target", 1e-3},
                {"comp_target", 1e-3},
                {"bytes", 8},
                {"n", 10},
                {"comm_ref", samples(1e-3, 0, kept)},
                {"comp_ref", samples(0, 1e-3, kept)},
                {"overlap", samples(1e-3, 1e-3, kept)},
                {"progress_tests", nullptr},
                {"sentinel",
                 {{"wanted", wanted},
                  {"kept", kept},
                  {"redone_slow_probe", slow},
                  {"redone_foreign_wait", wait},
                  {"readings", readings}}}};
  };
  auto reduce = [&](const json& rec) {
    RawRun run;
    run.context = {
        {"type", record::kContext}, {"ranks", 2}, {"comm_targets", {1e-3}}, {"comp_targets", {1e-3}}};
    run.records = {
        run.context,
        {{"type", record::kClock},
         {"points", {json::array({{0.0, 0.0, 1e-7}}), json::array({{0.0, 0.0, 1e-7}})}}},
        {{"type", record::kCompCalibration}, {"target", 1e-3}, {"converged", true}, {"reason", ""}},
        {{"type", record::kCommCalibration}, {"target", 1e-3}, {"converged", true}, {"reason", ""}},
        rec,
        {{"type", record::kSentinel},
         {"enabled", true},
         {"redone_slow_probe", 20},
         {"redone_foreign_wait", 1}}};
    return Reduce(run, {});
  };
  const Reduction quiet = reduce(point(1, 0, 5, 5));
  EXPECT_TRUE(quiet.points[0].valid) << quiet.points[0].invalid_reason;
  EXPECT_EQ(quiet.points[0].sentinel.redone_slow_probe, 1);
  EXPECT_EQ(quiet.machine_noise["points_refused"], 0);

  const Reduction disturbed = reduce(point(12, 5, 15, 15));  // 17 of 32 tries
  const PointResult& p = disturbed.points[0];
  EXPECT_FALSE(p.valid);
  EXPECT_TRUE(p.refused);
  EXPECT_EQ(
      p.invalid_reason.rfind("the machine was disturbed during the point: the sentinel refused 17 of 32", 0),
      0u)
      << p.invalid_reason;
  EXPECT_EQ(disturbed.machine_noise["points_refused"], 1);
  EXPECT_EQ(disturbed.machine_noise["redone_slow_probe"], 20);

  // Too few samples kept because of the machine: refused, not "fewer than 3".
  const Reduction starved = reduce(point(60, 8, 2, 15));
  EXPECT_TRUE(starved.points[0].refused);
  EXPECT_NE(starved.points[0].invalid_reason.find("the tries ran out"), std::string::npos)
      << starved.points[0].invalid_reason;
}

}  // namespace
}  // namespace nbcguard
