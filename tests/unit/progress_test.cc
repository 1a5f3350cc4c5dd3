#include "nbcguard/progress.h"

#include <gtest/gtest.h>

namespace nbcguard {
namespace {

ProgressState Base() {
  ProgressState s;
  s.id = "ibcast n2 basic";
  s.comp_targets = 2;
  s.comm_targets = 2;
  s.points = 4;
  s.timeout_left = 250;
  return s;
}

TEST(ProgressTest, PhasesInOrder) {
  ProgressState s = Base();
  s.elapsed = 3;
  s.points = 0;  // the harness has not said its grid yet
  s.comp_targets = s.comm_targets = 0;
  EXPECT_EQ(FormatProgress(s), "ibcast n2 basic: clock sync, 3s elapsed, timeout in 250s");
  s = Base();
  s.comp_done = 1;
  EXPECT_NE(FormatProgress(s).find("calibrating computation 2/2"), std::string::npos) << FormatProgress(s);
  s.comp_done = 2;
  EXPECT_NE(FormatProgress(s).find("calibrating communication 1/2"), std::string::npos);
  s.comm_done = 2;
  EXPECT_NE(FormatProgress(s).find("grid point 1/4"), std::string::npos);
  s.points_done = 4;
  EXPECT_NE(FormatProgress(s).find("grid done"), std::string::npos);
  s.impact_round = 3;
  s.impact_max_rounds = 9;
  EXPECT_NE(FormatProgress(s).find("r_mpi_impact round 3 (of up to 9)"), std::string::npos);
}

TEST(ProgressTest, TimeLeftFromFinishedPoints) {
  ProgressState s = Base();
  s.comp_done = s.comm_done = 2;
  s.grid_started = 10;
  s.elapsed = 16;
  s.points_done = 1;  // 6 s for one point, 3 to go
  EXPECT_EQ(FormatProgress(s), "ibcast n2 basic: grid point 2/4, 16s elapsed, ~18s left in the grid");
  s.timeout_left = 5;  // never promise more than the timeout allows
  EXPECT_EQ(FormatProgress(s), "ibcast n2 basic: grid point 2/4, 16s elapsed, ~5s left in the grid");
}

}  // namespace
}  // namespace nbcguard
