#include "sync_barrier.h"

#include <algorithm>
#include <vector>

#include "nbcguard/stats.h"

namespace nbcguard {

namespace {
constexpr double kMaxMargin = 1.0;    // seconds
constexpr double kMinMargin = 20e-6;  // seconds
}  // namespace

SyncBarrier::SyncBarrier(const Comm& comm, const GlobalClock& clock) : comm_(comm), clock_(clock) {
  // The margin must cover agreeing on the deadline: a few broadcasts.
  std::vector<double> costs;
  for (int i = 0; i < 21; ++i) {
    CheckMpi(MPI_Barrier(comm_.get()), "MPI_Barrier(margin)");
    const double t0 = clock_.LocalNow();
    comm_.BcastDouble(0.0);
    costs.push_back(clock_.LocalNow() - t0);
  }
  const double bcast = comm_.Max(Median(costs));
  floor_ = std::clamp(4 * bcast, kMinMargin, kMaxMargin);
  margin_ = floor_;
}

BarrierExit SyncBarrier::Wait() {
  ++waits_;
  double deadline = 0;
  if (comm_.rank() == 0) deadline = clock_.GlobalNow() + margin_;
  deadline = comm_.BcastDouble(deadline);
  BarrierExit exit;
  double now = clock_.GlobalNow();
  exit.slack = deadline - now;
  exit.late = now > deadline;
  while (now < deadline) now = clock_.GlobalNow();
  exit.exit_local = clock_.LocalNow();
  return exit;
}

void SyncBarrier::Report(bool any_late) {
  if (any_late) {
    ++late_count_;
    margin_ = std::min(2 * margin_, kMaxMargin);
    on_time_streak_ = 0;
  } else if (++on_time_streak_ >= 32) {
    margin_ = std::max(0.8 * margin_, floor_);
    on_time_streak_ = 0;
  }
}

}  // namespace nbcguard
