// One global clock for all ranks (Denis et al., CCPE 2022, section 4.2; docs/method.md, "One clock for all
// ranks": each rank's local clock modelled against rank 0's as
//   offset(local) = local - global = offset0 + drift * (local - anchor)
// fitted by least squares over min-round-trip offset measurements taken at
// different times. Pure model code; the MPI exchanges live in clock_sync.
#pragma once

#include <vector>

namespace nbcguard {

// One ping-pong with the reference rank, seen from the local rank:
// t_send and t_recv on the local clock, t_ref the reference clock read in
// between. offset = (t_send + t_recv) / 2 - t_ref, at local time (t_send + t_recv) / 2.
struct PingPong {
  double t_send = 0;
  double t_ref = 0;
  double t_recv = 0;
  double rtt() const { return t_recv - t_send; }
};

struct OffsetPoint {
  double local = 0;   // local time of the estimate
  double offset = 0;  // local - global at that time
  double rtt = 0;     // round trip of the exchange it came from (uncertainty ~ rtt/2)
};

// The exchange with the smallest round trip of a round, as an offset point.
OffsetPoint BestOffset(const std::vector<PingPong>& round);

class ClockModel {
 public:
  ClockModel() = default;
  ClockModel(double offset_at_anchor, double drift, double anchor)
      : offset_(offset_at_anchor), drift_(drift), anchor_(anchor) {}
  double ToGlobal(double local) const { return local - OffsetAt(local); }
  double OffsetAt(double local) const { return offset_ + drift_ * (local - anchor_); }
  double offset() const { return offset_; }
  double drift() const { return drift_; }
  double anchor() const { return anchor_; }

 private:
  double offset_ = 0, drift_ = 0, anchor_ = 0;
};

struct ClockFit {
  ClockModel model;
  double residual_rms = 0;  // RMS of point offsets around the fitted line (seconds)
  double min_rtt = 0;       // smallest round trip among the points
  double span = 0;          // local time covered by the points (seconds)
  int points = 0;
};

// Least-squares line through the points, each weighted by 1 / rtt^2 (its
// error is bounded by rtt / 2), anchored at their weighted mean local time.
// One point: offset only, drift 0. No points: identity model.
// drift_free: the two clocks are known to run at one rate (ranks on one
// host read one kernel clock): offset only, their weighted mean, drift 0.
ClockFit FitClock(const std::vector<OffsetPoint>& points, bool drift_free = false);

}  // namespace nbcguard
