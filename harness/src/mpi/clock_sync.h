// The global clock over MPI (Denis et al., CCPE 2022, section 4.2): ping-pongs with rank 0
// (flat loop) or along a tree (nbcguard/clock_tree.h: a synchronized partner
// answers with its estimate of rank 0's time), best round trip per round,
// offset points against rank 0's clock accumulated over the whole run. Real-time use (the synchronized
// barrier) extrapolates the fit of the points so far; post-mortem conversion (done by the driver from the
// recorded points) interpolates between the start and end calibrations.
#pragma once

#include <vector>

#include "comm.h"
#include "nbcguard/clock_model.h"
#include "nbcguard/clock_tree.h"

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
  // The injected rate error (0 unless a clock check asked for one).
  double injected_drift() const { return drift_; }

 private:
  double offset_ = 0, drift_ = 0, mono0_ = 0;
};

struct SyncOptions {
  int rounds = 10;      // offset points per calibration
  int pingpongs = 100;  // exchanges per round (best one kept)
  double max_seconds =
      0.5;  // per rank per calibration, from its first answer (oversubscribed hosts are slow)
  ClockSyncMethod method = ClockSyncMethod::kFlat;
};

class GlobalClock {
 public:
  GlobalClock(const Comm& comm, LocalClock clock);
  double LocalNow() const { return clock_.Now(); }
  const LocalClock& local_clock() const { return clock_; }
  // Collective. Appends `rounds` offset points (this rank vs rank 0) and refits.
  void Calibrate(const SyncOptions& options);
  // Wall seconds of the last Calibrate on this rank, from a barrier at its
  // start to the barrier at its end (the whole sync phase).
  double last_seconds() const { return last_seconds_; }
  // Extrapolated global time of a local reading (fit of all points so far).
  double ToGlobal(double local) const { return fit_.model.ToGlobal(local); }
  double GlobalNow() const { return ToGlobal(LocalNow()); }
  const std::vector<OffsetPoint>& points() const { return points_; }
  const ClockFit& fit() const { return fit_; }
  // From now on, fit an offset only (drift 0): every rank reads one clock
  // (one host, no injected drift), so a drift estimated from a short span
  // would be noise extrapolated over the run.
  void AssumeOneRate() { one_rate_ = true; }
  bool one_rate() const { return one_rate_; }

 private:
  // Ping-pongs with `server`, whose answers are its global time: appends
  // this calibration's offset points, tells the server it is done, refits.
  void MeasureAgainst(int server, const SyncOptions& options);
  // Answers `client`'s pings with this rank's global time until it is done.
  void Serve(int client);

  const Comm& comm_;
  LocalClock clock_;
  std::vector<OffsetPoint> points_;
  ClockFit fit_;
  bool one_rate_ = false;
  double last_seconds_ = 0;
};

}  // namespace nbcguard
