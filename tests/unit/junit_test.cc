#include "nbcguard/junit.h"

#include <string>

#include <gtest/gtest.h>

namespace nbcguard {
namespace {

TEST(JunitReasons, FailureIsTheLastLineThatNamesIt) {
  EXPECT_EQ(FailureReason("nbcguard: ibcast on 2 ranks\n  comm=2ms comp=2ms r_overhead 0.95\n"
                          "verdict: FAIL (1 limit exceeded)\nresults: build/x/results.json\n"),
            "verdict: FAIL (1 limit exceeded)");
  // Two candidates: the last one wins.
  EXPECT_EQ(FailureReason("an error was retried\nstill failed: exit 3\n"), "still failed: exit 3");
}

TEST(JunitReasons, CMakeErrorIsJoinedToItsMessage) {
  EXPECT_EQ(
      FailureReason("CMake Error at /src/tests/mpi/check_cache.cmake:70 (message):\n"
                    "  the 4ms target was measured again\n\n"),
      "CMake Error at /src/tests/mpi/check_cache.cmake:70 (message): the 4ms target was measured again");
}

TEST(JunitReasons, WithoutAMatchTheLastLineElseNothing) {
  EXPECT_EQ(FailureReason("first\n  last  \n\n"), "last");
  EXPECT_EQ(FailureReason(""), "");
  EXPECT_EQ(FailureReason("\n \n"), "");
}

TEST(JunitReasons, LongReasonsAreCut) {
  const std::string reason = FailureReason("FAIL " + std::string(400, 'x'));
  EXPECT_EQ(reason.size(), kJunitReasonLength + 3);
  EXPECT_EQ(reason.substr(reason.size() - 3), "...");
}

TEST(JunitReasons, SkipPrefersInconclusiveThenSkipLines) {
  const char* inconclusive =
      "nbcguard: iallreduce on 2 ranks\nSKIP nothing\n"
      "INCONCLUSIVE iallreduce n2 basic: points refused in both jobs\nresults: x\n";
  EXPECT_EQ(SkipReason(inconclusive), "INCONCLUSIVE iallreduce n2 basic: points refused in both jobs");
  EXPECT_EQ(InconclusiveReason(inconclusive), SkipReason(inconclusive));
  EXPECT_EQ(SkipReason("nbcguard: ibcast\nSKIP ibcast n2 dedicated: no free core for the progress thread\n"),
            "SKIP ibcast n2 dedicated: no free core for the progress thread");
  EXPECT_EQ(SkipReason("report: SKIP: chromium not installed\n"), "report: SKIP: chromium not installed");
  EXPECT_EQ(SkipReason("nothing to say\n"), "");
  EXPECT_EQ(InconclusiveReason("SKIP x: y\n"), "");
}

}  // namespace
}  // namespace nbcguard
