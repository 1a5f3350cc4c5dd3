// The order of outcomes when `nbcguard run` runs several tests (Worse).
#include <gtest/gtest.h>

#include "nbcguard/driver_common.h"

namespace nbcguard {
namespace {

int Over(std::initializer_list<int> codes) {
  int worst = kSkip;
  for (int rc : codes) worst = Worse(worst, rc);
  return worst;
}

TEST(ExitCode, InconclusiveIsWorseThanAPassAndBetterThanAnyFailure) {
  EXPECT_EQ(Over({kPass, kInconclusive, kPass}), kInconclusive);
  EXPECT_EQ(Over({kInconclusive, kFail}), kFail);
  EXPECT_EQ(Over({kFail, kInconclusive}), kFail);
  EXPECT_EQ(Over({kInconclusive, kConformance}), kConformance);
  EXPECT_EQ(Over({kSkip, kInconclusive, kSkip}), kInconclusive);
}

TEST(ExitCode, FailuresByCodeAndSkipsOnlyAlone) {
  EXPECT_EQ(Over({kSkip, kSkip}), kSkip);
  EXPECT_EQ(Over({kSkip, kPass}), kPass);
  EXPECT_EQ(Over({kHarnessFailed, kFail}), kHarnessFailed);
  EXPECT_EQ(Over({kFail, kConformance, kPass}), kConformance);
}

}  // namespace
}  // namespace nbcguard
