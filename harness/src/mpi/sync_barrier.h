// The synchronized barrier (Denis et al., CCPE 2022, section 4.2): rank 0 picks a deadline
// in the future on the global clock, every rank busy-waits until its global
// time reaches it, so all leave at the same instant. A rank that gets the
// deadline after it passed is late; the caller agrees on lateness with the
// other ranks and redoes the sample. The margin grows when ranks are late and
// shrinks slowly when they are not.
#pragma once

#include "clock_sync.h"
#include "comm.h"

namespace nbcguard {

struct BarrierExit {
  bool late = false;      // this rank saw the deadline already passed
  double slack = 0;       // deadline - arrival (global seconds); negative when late
  double exit_local = 0;  // local clock when the busy-wait ended
};

class SyncBarrier {
 public:
  SyncBarrier(const Comm& comm, const GlobalClock& clock);
  // Collective.
  BarrierExit Wait();
  // Feed back whether any rank was late on the last Wait (agreed value).
  void Report(bool any_late);
  double margin() const { return margin_; }
  long late_count() const { return late_count_; }
  long waits() const { return waits_; }

 private:
  const Comm& comm_;
  const GlobalClock& clock_;
  double margin_;
  double floor_;
  int on_time_streak_ = 0;
  long late_count_ = 0;
  long waits_ = 0;
};

}  // namespace nbcguard
