#include "nbcguard/diagnosis.h"

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "nbcguard/stats.h"

namespace nbcguard {
namespace {

const std::vector<Diagnosis>& AllDiagnoses() {
  static const std::vector<Diagnosis> all = {Diagnosis::kOverlap,       Diagnosis::kPartialOverlap,
                                             Diagnosis::kNoProgression, Diagnosis::kComputationSlowdown,
                                             Diagnosis::kContention,    Diagnosis::kCommSlowedByComputation,
                                             Diagnosis::kPassiveImpact, Diagnosis::kInvalid};
  return all;
}

struct Case {
  const char* what;
  double r_comm, r_comp_slowdown, r_mpi_impact;
  Diagnosis expected;
};

// Default bands: comm_background 0.3, comm_no_progress 0.7, comm_above 1.15,
// slowdown_above 1.10, impact_above 1.05.
const Case kCases[] = {
    // Invalid first, whatever else.
    {"nan comm", kNaN, 1.0, 1.0, Diagnosis::kInvalid},
    {"inf comm", kInf, 2.0, 1.0, Diagnosis::kInvalid},
    {"nan slowdown", 0.0, kNaN, 1.0, Diagnosis::kInvalid},
    {"-inf slowdown", 0.0, -kInf, 2.0, Diagnosis::kInvalid},
    // r_comm > comm_above.
    {"contention", 1.5, 1.5, 1.0, Diagnosis::kContention},
    {"comm slowed", 1.5, 1.0, 1.0, Diagnosis::kCommSlowedByComputation},
    {"comm slowed beats impact", 1.5, 1.0, 2.0, Diagnosis::kCommSlowedByComputation},
    {"comm_above edge is not above", 1.15, 1.0, 1.0, Diagnosis::kNoProgression},
    {"just above comm_above", 1.1501, 1.0, 1.0, Diagnosis::kCommSlowedByComputation},
    {"slowdown edge is not slowed", 1.5, 1.10, 1.0, Diagnosis::kCommSlowedByComputation},
    {"just above slowdown edge", 1.5, 1.1001, 1.0, Diagnosis::kContention},
    // Computation slowed, communication fine or partial.
    {"slowdown comm ~0", 0.05, 1.4, 1.0, Diagnosis::kComputationSlowdown},
    {"slowdown comm partial", 0.5, 1.4, 1.0, Diagnosis::kComputationSlowdown},
    {"slowdown comm ~1", 1.0, 1.4, 1.0, Diagnosis::kComputationSlowdown},
    {"slowdown beats impact", 0.05, 1.4, 2.0, Diagnosis::kComputationSlowdown},
    // Not slowed: overlap / partial / no progression.
    {"overlap", 0.0, 1.0, 1.0, Diagnosis::kOverlap},
    {"overlap slowdown at edge", 0.1, 1.10, 1.0, Diagnosis::kOverlap},
    {"overlap just below background", 0.2999, 1.0, 1.0, Diagnosis::kOverlap},
    {"background edge is partial", 0.3, 1.0, 1.0, Diagnosis::kPartialOverlap},
    {"partial", 0.5, 1.0, 1.0, Diagnosis::kPartialOverlap},
    {"just below no-progress edge", 0.6999, 1.0, 1.0, Diagnosis::kPartialOverlap},
    {"no-progress edge", 0.7, 1.0, 1.0, Diagnosis::kNoProgression},
    {"no progression", 1.0, 1.0, 1.0, Diagnosis::kNoProgression},
    {"negative comm is overlap", -0.1, 0.9, 1.0, Diagnosis::kOverlap},
    // Passive impact only replaces overlap.
    {"overlap with impact", 0.0, 1.0, 1.2, Diagnosis::kPassiveImpact},
    {"overlap impact edge", 0.0, 1.0, 1.05, Diagnosis::kOverlap},
    {"overlap just above impact edge", 0.0, 1.0, 1.0501, Diagnosis::kPassiveImpact},
    {"overlap impact nan", 0.0, 1.0, kNaN, Diagnosis::kOverlap},
    {"overlap impact inf", 0.0, 1.0, kInf, Diagnosis::kOverlap},
    {"partial keeps primary", 0.5, 1.0, 1.2, Diagnosis::kPartialOverlap},
    {"no progression keeps primary", 1.0, 1.0, 1.2, Diagnosis::kNoProgression},
};

TEST(DiagnosisTest, TableWithDefaultBands) {
  for (const Case& c : kCases) {
    EXPECT_EQ(Diagnose(c.r_comm, c.r_comp_slowdown, c.r_mpi_impact), c.expected)
        << c.what << ": got " << ToString(Diagnose(c.r_comm, c.r_comp_slowdown, c.r_mpi_impact)) << ", want "
        << ToString(c.expected);
  }
}

TEST(DiagnosisTest, TableCoversEveryDiagnosis) {
  std::set<Diagnosis> seen;
  for (const Case& c : kCases) seen.insert(c.expected);
  EXPECT_EQ(seen.size(), AllDiagnoses().size());
}

TEST(DiagnosisTest, CustomBandsMoveTheEdges) {
  DiagnosisBands bands;
  bands.comm_background = 0.1;
  bands.comm_no_progress = 0.9;
  bands.comm_above = 2.0;
  bands.slowdown_above = 1.5;
  bands.impact_above = 1.3;
  EXPECT_EQ(Diagnose(0.2, 1.0, 1.0, bands), Diagnosis::kPartialOverlap);
  EXPECT_EQ(Diagnose(0.05, 1.0, 1.0, bands), Diagnosis::kOverlap);
  EXPECT_EQ(Diagnose(0.8, 1.0, 1.0, bands), Diagnosis::kPartialOverlap);
  EXPECT_EQ(Diagnose(0.9, 1.0, 1.0, bands), Diagnosis::kNoProgression);
  EXPECT_EQ(Diagnose(1.5, 1.0, 1.0, bands), Diagnosis::kNoProgression);
  EXPECT_EQ(Diagnose(2.5, 1.0, 1.0, bands), Diagnosis::kCommSlowedByComputation);
  EXPECT_EQ(Diagnose(2.5, 1.6, 1.0, bands), Diagnosis::kContention);
  EXPECT_EQ(Diagnose(0.05, 1.4, 1.0, bands), Diagnosis::kOverlap);
  EXPECT_EQ(Diagnose(0.05, 1.0, 1.2, bands), Diagnosis::kOverlap);
  EXPECT_EQ(Diagnose(0.05, 1.0, 1.31, bands), Diagnosis::kPassiveImpact);
}

TEST(DiagnosisTest, PassiveImpactPredicate) {
  EXPECT_TRUE(PassiveImpact(1.2));
  EXPECT_TRUE(PassiveImpact(1.0501));
  EXPECT_FALSE(PassiveImpact(1.05));
  EXPECT_FALSE(PassiveImpact(1.0));
  EXPECT_FALSE(PassiveImpact(kNaN));
  EXPECT_FALSE(PassiveImpact(kInf));
  DiagnosisBands bands;
  bands.impact_above = 1.5;
  EXPECT_FALSE(PassiveImpact(1.2, bands));
  EXPECT_TRUE(PassiveImpact(1.6, bands));
}

TEST(DiagnosisTest, PassiveImpactReportedAlongsideWorseDiagnosis) {
  // The primary stays no-progression, but the impact is still detectable.
  EXPECT_EQ(Diagnose(1.0, 1.0, 1.3), Diagnosis::kNoProgression);
  EXPECT_TRUE(PassiveImpact(1.3));
}

TEST(DiagnosisTest, Ids) {
  EXPECT_STREQ(ToString(Diagnosis::kOverlap), "overlap");
  EXPECT_STREQ(ToString(Diagnosis::kPartialOverlap), "partial-overlap");
  EXPECT_STREQ(ToString(Diagnosis::kNoProgression), "no-progression");
  EXPECT_STREQ(ToString(Diagnosis::kComputationSlowdown), "computation-slowdown");
  EXPECT_STREQ(ToString(Diagnosis::kContention), "contention");
  EXPECT_STREQ(ToString(Diagnosis::kCommSlowedByComputation), "comm-slowed-by-computation");
  EXPECT_STREQ(ToString(Diagnosis::kPassiveImpact), "passive-runtime-impact");
  EXPECT_STREQ(ToString(Diagnosis::kInvalid), "invalid");
}

TEST(DiagnosisTest, ExplanationsAreDistinctAndNameTheRatios) {
  std::set<std::string> texts;
  for (Diagnosis d : AllDiagnoses()) {
    const std::string text = Explain(d);
    EXPECT_GT(text.size(), 40u) << ToString(d);
    texts.insert(text);
  }
  EXPECT_EQ(texts.size(), AllDiagnoses().size());
  EXPECT_NE(std::string(Explain(Diagnosis::kNoProgression)).find("MPI_Wait"), std::string::npos);
  EXPECT_NE(std::string(Explain(Diagnosis::kNoProgression)).find("r_comm ~ 1"), std::string::npos);
  EXPECT_NE(std::string(Explain(Diagnosis::kPassiveImpact)).find("r_mpi_impact"), std::string::npos);
  EXPECT_NE(std::string(Explain(Diagnosis::kContention)).find("r_comp_slowdown > 1"), std::string::npos);
}

}  // namespace
}  // namespace nbcguard
