#include "nbcguard/reference.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

namespace nbcguard {
namespace {

std::optional<ReferenceSpec> Read(const std::map<std::string, std::string>& env, std::string* error) {
  return FromEnvironment(
      [&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      error);
}

TEST(ReferenceTest, NamesRoundTrip) {
  for (const std::string& n : ReferenceBehaviourNames()) {
    auto b = ParseReferenceBehaviour(n);
    ASSERT_TRUE(b) << n;
    EXPECT_EQ(ToString(*b), n);
  }
  EXPECT_FALSE(ParseReferenceBehaviour("deffered"));
}

// Which behaviours change what MPI does while idle decides whether their
// runs may share the library's r_mpi_impact (overlap_run.cc, ImpactKey).
// Every behaviour is listed here, so a new one fails this test until it is
// classified: one that takes CPU from MPI_Init on and is shared would hide
// its own r_mpi_impact behind another run's.
TEST(ReferenceTest, EveryBehaviourIsClassifiedForItsIdleState) {
  const std::map<std::string, bool> changes_idle = {
      {"background", false}, {"deferred", false},      {"cpu-thief", false},     {"late-rank", false},
      {"late-exit", false},  {"passive-impact", true}, {"sleeping-wait", false}, {"slow-rank", true}};
  ASSERT_EQ(ReferenceBehaviourNames().size(), changes_idle.size());
  for (const std::string& name : ReferenceBehaviourNames()) {
    const auto it = changes_idle.find(name);
    ASSERT_NE(it, changes_idle.end()) << name << ": classify it (ReferenceSpec::ChangesIdleState)";
    ReferenceSpec spec;
    spec.behaviour = *ParseReferenceBehaviour(name);
    EXPECT_EQ(spec.ChangesIdleState(), it->second) << name;
  }
  EXPECT_FALSE(ReferenceSpec{}.ChangesIdleState());
}

TEST(ReferenceTest, EnvironmentRoundTripsExactly) {
  ReferenceSpec s;
  s.behaviour = ReferenceBehaviour::kLateRank;
  s.latency = 1.0 / 3.0 * 1e-5;
  s.bandwidth = 123456789.25;
  s.late_rank = 3;
  s.late_delay = 0.0017;
  s.share = 0.3;
  s.period = 2e-3;
  std::string error;
  auto back = Read(ToEnvironment(s), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->behaviour, s.behaviour);
  EXPECT_EQ(back->latency, s.latency);
  EXPECT_EQ(back->bandwidth, s.bandwidth);
  EXPECT_EQ(back->late_rank, s.late_rank);
  EXPECT_EQ(back->late_delay, s.late_delay);
  EXPECT_EQ(back->share, s.share);
  EXPECT_EQ(back->period, s.period);
}

TEST(ReferenceTest, NothingSetIsInactive) {
  std::string error;
  auto s = Read({}, &error);
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->active());
}

TEST(ReferenceTest, BadValuesNameTheVariableAndWhatIsAllowed) {
  std::string error;
  EXPECT_FALSE(Read({{"NBCGUARD_REFERENCE", "fast"}}, &error));
  EXPECT_NE(error.find("NBCGUARD_REFERENCE='fast': expected one of none, background"), std::string::npos)
      << error;
  EXPECT_FALSE(Read({{"NBCGUARD_REFERENCE", "deferred"}, {"NBCGUARD_REFERENCE_LATENCY", "2ms"}}, &error));
  EXPECT_NE(error.find("NBCGUARD_REFERENCE_LATENCY='2ms': expected a number"), std::string::npos) << error;
  EXPECT_FALSE(Read({{"NBCGUARD_REFERENCE", "deferred"}, {"NBCGUARD_REFERENCE_SHARE", "1.5"}}, &error));
  EXPECT_NE(error.find("share must be a fraction in (0, 0.9]"), std::string::npos) << error;
  // The computing thread must keep part of every period, or it never ends.
  EXPECT_FALSE(Read({{"NBCGUARD_REFERENCE", "passive-impact"}, {"NBCGUARD_REFERENCE_SHARE", "1"}}, &error));
  EXPECT_NE(error.find("share must be a fraction in (0, 0.9]"), std::string::npos) << error;
  EXPECT_FALSE(Read({{"NBCGUARD_REFERENCE_LATE_RANK", "-2"}}, &error));
  EXPECT_NE(error.find("NBCGUARD_REFERENCE_LATE_RANK='-2'"), std::string::npos) << error;
}

TEST(ReferenceTest, DurationIsLatencyPlusBytesOverBandwidth) {
  ReferenceSpec s;
  s.latency = 20e-6;
  s.bandwidth = 50e6;
  EXPECT_DOUBLE_EQ(s.Duration(0), 20e-6);
  EXPECT_DOUBLE_EQ(s.Duration(50000), 20e-6 + 1e-3);
}

}  // namespace
}  // namespace nbcguard
