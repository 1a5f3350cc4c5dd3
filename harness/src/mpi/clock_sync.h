// The global clock over MPI (paper 000 section 4.2): ping-pongs with rank 0
// (flat loop), best round trip per round, offset points accumulated over the
// whole run. Real-time use (the synchronized barrier) extrapolates the fit
// of the points so far; post-mortem conversion (done by the driver from the
// recorded points) interpolates between the start and end calibrations.
#pragma once

#include <vector>

#include "comm.h"
#include "nbcguard/clock_model.h"

namespace nbcguard {

// The local clock of this rank, with an optional injected offset and drift
// (for testing the synchronization): local = mono + offset + drift * (mono - mono0).
class LocalClock {
 public:
  LocalClock() = default;
  LocalClock(double offset, double drift);
  double Now() const;
  // This clock's reading at the instant CLOCK_MONOTONIC read `mono`.
  double At(double mono) const;
  // The unmodified monotonic clock (shared by all ranks of one host).
  static double Mono();

 private:
  double offset_ = 0, drift_ = 0, mono0_ = 0;
};

struct SyncOptions {
  int rounds = 10;            // offset points per calibration
  int pingpongs = 100;        // exchanges per round (best one kept)
  double max_seconds = 0.5;   // per rank per calibration (oversubscribed hosts are slow)
};

class GlobalClock {
 public:
  GlobalClock(const Comm& comm, LocalClock clock);
  double LocalNow() const { return clock_.Now(); }
  const LocalClock& local_clock() const { return clock_; }
  // Collective. Appends `rounds` offset points (this rank vs rank 0) and refits.
  void Calibrate(const SyncOptions& options);
  // Extrapolated global time of a local reading (fit of all points so far).
  double ToGlobal(double local) const { return fit_.model.ToGlobal(local); }
  double GlobalNow() const { return ToGlobal(LocalNow()); }
  const std::vector<OffsetPoint>& points() const { return points_; }
  const ClockFit& fit() const { return fit_; }

 private:
  const Comm& comm_;
  LocalClock clock_;
  std::vector<OffsetPoint> points_;
  ClockFit fit_;
};

}  // namespace nbcguard
