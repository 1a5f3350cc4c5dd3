#include "nbcguard/cpu_overhead.h"

#include <time.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include <gtest/gtest.h>

#include "nbcguard/stats.h"

namespace nbcguard {
namespace {

// ------------------------------------------------------------- fractions

TEST(CpuOverheadTest, BusyFractionIsCpuOverWall) {
  EXPECT_DOUBLE_EQ(BusyFraction(1e-3, 1e-3), 1.0);
  EXPECT_DOUBLE_EQ(BusyFraction(0.25e-3, 1e-3), 0.25);
  EXPECT_DOUBLE_EQ(BusyFraction(0.0, 2e-3), 0.0);
  // A progress thread polling beside MPI_Wait: two cores busy, not clamped.
  EXPECT_DOUBLE_EQ(BusyFraction(2e-3, 1e-3), 2.0);
}

TEST(CpuOverheadTest, BusyFractionWithoutAUsableReadingIsNaN) {
  EXPECT_TRUE(std::isnan(BusyFraction(1e-3, 0.0)));
  EXPECT_TRUE(std::isnan(BusyFraction(1e-3, -1e-3)));
  EXPECT_TRUE(std::isnan(BusyFraction(1e-3, kNaN)));
  EXPECT_TRUE(std::isnan(BusyFraction(1e-3, kInf)));
  EXPECT_TRUE(std::isnan(BusyFraction(-1e-6, 1e-3)));  // a reading that went backwards
  EXPECT_TRUE(std::isnan(BusyFraction(kNaN, 1e-3)));
  EXPECT_TRUE(std::isnan(BusyFraction(kInf, 1e-3)));
}

// Five repetitions on two ranks, by hand:
//   rep  rank 0 (cpu/wall)   rank 1 (cpu/wall)   busiest
//   0    0.9 ms / 1 ms       0.5 ms / 1 ms        0.9
//   1    1.0 ms / 1 ms       0.2 ms / 0.5 ms      1.0
//   2    0.3 ms / 1 ms       1.2 ms / 1 ms        1.2
//   3    0.8 ms / 1 ms       no wall (NaN)        0.8
//   4    0.95 ms / 1 ms      0.1 ms / 1 ms        0.95
// busiest sorted: 0.8 0.9 0.95 1.0 1.2 -> median 0.95, and with 5 values the
// 95 % interval of the median is [min, max]; rank 0's fractions 0.3 0.8 0.9
// 0.95 1.0 -> 0.9; rank 1's 0.1 0.4 0.5 1.2 (NaN dropped) -> 0.45.
TEST(CpuOverheadTest, BusiestRankPerRepetitionAndPerRankMedians) {
  const std::vector<std::vector<CpuReading>> r = {
      {{0.9e-3, 1e-3}, {0.5e-3, 1e-3}}, {{1.0e-3, 1e-3}, {0.2e-3, 0.5e-3}}, {{0.3e-3, 1e-3}, {1.2e-3, 1e-3}},
      {{0.8e-3, 1e-3}, {0.1e-3, kNaN}}, {{0.95e-3, 1e-3}, {0.1e-3, 1e-3}},
  };
  const CpuBusy b = SummarizeCpuBusy(r);
  ASSERT_EQ(b.busiest.size(), 5u);
  EXPECT_DOUBLE_EQ(b.busiest[0], 0.9);
  EXPECT_DOUBLE_EQ(b.busiest[1], 1.0);
  EXPECT_DOUBLE_EQ(b.busiest[2], 1.2);
  EXPECT_DOUBLE_EQ(b.busiest[3], 0.8);
  EXPECT_DOUBLE_EQ(b.busiest[4], 0.95);
  EXPECT_EQ(b.summary.n, 5);
  EXPECT_DOUBLE_EQ(b.summary.median, 0.95);
  EXPECT_DOUBLE_EQ(b.summary.lo, 0.8);
  EXPECT_DOUBLE_EQ(b.summary.hi, 1.2);
  ASSERT_EQ(b.per_rank.size(), 2u);
  EXPECT_DOUBLE_EQ(b.per_rank[0], 0.9);
  EXPECT_DOUBLE_EQ(b.per_rank[1], 0.45);
  // Walls: nine of 1 ms and one of 0.5 ms.
  EXPECT_DOUBLE_EQ(b.median_wall, 1e-3);
}

TEST(CpuOverheadTest, ARepetitionWithoutAnyReadingIsDroppedFromTheSummary) {
  const std::vector<std::vector<CpuReading>> r = {
      {{1e-3, 1e-3}}, {{kNaN, 1e-3}}, {{0.5e-3, 1e-3}}, {{0.7e-3, 1e-3}}};
  const CpuBusy b = SummarizeCpuBusy(r);
  ASSERT_EQ(b.busiest.size(), 4u);
  EXPECT_TRUE(std::isnan(b.busiest[1]));
  EXPECT_EQ(b.summary.n, 3);
  EXPECT_DOUBLE_EQ(b.summary.median, 0.7);
}

TEST(CpuOverheadTest, NothingMeasuredIsNaNNotZero) {
  const CpuBusy b = SummarizeCpuBusy({});
  EXPECT_EQ(b.summary.n, 0);
  EXPECT_TRUE(std::isnan(b.summary.median));
  EXPECT_TRUE(b.per_rank.empty());
  EXPECT_TRUE(std::isnan(b.median_wall));
}

// ------------------------------------------------- the reading itself

double ThreadCpu() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Spins until this thread has used `seconds` of CPU, however often the
// scheduler takes the core away meanwhile (the machine may be busy).
void SpinCpu(double seconds) {
  const double until = ThreadCpu() + seconds;
  while (ThreadCpu() < until) {
  }
}

// getrusage truncates user and system time to microseconds each: two
// readings' sum is exact to 2 us per reading pair.
constexpr double kTruncation = 4e-6;

TEST(CpuOverheadTest, ProcessCpuCountsASpinOfThisThread) {
  const CpuTimes before = ProcessCpuTimes();
  SpinCpu(0.05);
  const CpuTimes after = ProcessCpuTimes();
  const double used = after.Total() - before.Total();
  EXPECT_GE(used, 0.05 - kTruncation);
  // Only the spin ran (plus the two readings): nothing else in the process.
  EXPECT_LE(used, 0.05 + 5e-3);
  EXPECT_GE(after.user, before.user);
  EXPECT_GE(after.system, before.system);
}

TEST(CpuOverheadTest, ProcessCpuDoesNotCountSleep) {
  const CpuTimes before = ProcessCpuTimes();
  const auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double used = ProcessCpuTimes().Total() - before.Total();
  // The sleep's system calls and wake-up: 20-150 us on this VM.
  EXPECT_LT(used, 5e-3);
  EXPECT_LT(BusyFraction(used, wall), 0.1);
}

// The CPU of every thread of the process counts, as a library's progress
// thread's must: a helper spins 50 ms of its own CPU while this thread
// waits asleep in join().
TEST(CpuOverheadTest, ProcessCpuCountsAnotherThread) {
  const CpuTimes before = ProcessCpuTimes();
  const double mine = ThreadCpu();
  std::thread helper([] { SpinCpu(0.05); });
  helper.join();
  const double used = ProcessCpuTimes().Total() - before.Total();
  EXPECT_LT(ThreadCpu() - mine, 5e-3);  // this thread slept
  EXPECT_GE(used, 0.05 - kTruncation);
  EXPECT_LE(used, 0.05 + 5e-3);
}

}  // namespace
}  // namespace nbcguard
