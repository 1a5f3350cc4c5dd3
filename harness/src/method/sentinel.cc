// The machine-noise sentinel's rule (docs/method.md, "Machine-noise sentinel").
#include "nbcguard/sentinel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "nbcguard/stats.h"

namespace nbcguard {
namespace {

double MedianOf(const std::deque<double>& d) { return Median(std::vector<double>(d.begin(), d.end())); }

void Push(std::deque<double>* d, double v, std::size_t window) {
  d->push_back(v);
  while (d->size() > window) d->pop_front();
}

}  // namespace

const char* ToString(Disturbance d) {
  switch (d) {
    case Disturbance::kSlowProbe:
      return "slow probe";
    case Disturbance::kForeignWait:
      return "waited for a CPU";
    case Disturbance::kNone:
      break;
  }
  return "none";
}

DisturbanceDetector::DisturbanceDetector(int kinds, SentinelBounds bounds) : bounds_(bounds) {
  NewMeasurement(kinds);
}

void DisturbanceDetector::NewMeasurement(int kinds) {
  waits_.assign(static_cast<std::size_t>(std::max(kinds, 1)), {});
}

Disturbance DisturbanceDetector::Judge(int kind, const SentinelReading& r) {
  Disturbance d = Disturbance::kNone;
  if (r.probe > 0) {
    if (probes_.size() >= 3 && r.probe > bounds_.probe_factor * MedianOf(probes_))
      d = Disturbance::kSlowProbe;
    Push(&probes_, r.probe, bounds_.probe_window);
  }
  std::deque<double>& waits = waits_[static_cast<std::size_t>(kind) % waits_.size()];
  if (r.foreign_wait >= 0 && r.duration > 0) {
    const double share = r.foreign_wait / r.duration;
    const double usual = waits.size() >= 3 ? MedianOf(waits) : 0.0;
    if (d == Disturbance::kNone && share > usual + bounds_.wait_share) d = Disturbance::kForeignWait;
    Push(&waits, share, bounds_.wait_window);
  }
  return d;
}

SentinelTally TallySentinel(int redone_slow_probe, int redone_foreign_wait, int wanted,
                            const std::vector<std::vector<double>>& readings) {
  SentinelTally t;
  t.redone_slow_probe = redone_slow_probe;
  t.redone_foreign_wait = redone_foreign_wait;
  t.wanted = wanted;
  t.kept = static_cast<int>(readings.size());
  if (readings.empty()) return t;
  const std::size_t ranks = readings.front().size() / kSentinelValues;
  std::vector<std::vector<double>> probes(ranks);
  std::vector<double> shares;
  for (const std::vector<double>& s : readings) {
    double worst_share = 0;
    for (std::size_t r = 0; r < ranks && (r + 1) * kSentinelValues <= s.size(); ++r) {
      const double* v = s.data() + r * kSentinelValues;
      if (v[0] > 0) probes[r].push_back(v[0]);
      if (v[1] >= 0 && v[2] > 0) worst_share = std::max(worst_share, v[1] / v[2]);
      if (v[3] > 0) t.preemptions += std::lround(v[3]);
    }
    shares.push_back(worst_share);
  }
  for (const std::vector<double>& p : probes) {
    if (p.empty()) continue;
    const double m = Median(p);
    if (m > 0) t.max_probe_ratio = std::max(t.max_probe_ratio, *std::max_element(p.begin(), p.end()) / m);
  }
  t.median_foreign_share = Median(shares);
  return t;
}

std::string SentinelRefusal(const SentinelTally& t) {
  const int tries = t.kept + t.redone();
  if (t.redone() == 0 || tries == 0) return "";
  const bool ran_out = t.kept < t.wanted;
  if (!ran_out && 2 * t.redone() <= tries) return "";
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "the machine was disturbed during the point: the sentinel refused %d of %d samples (%d slow "
                "probe, %d waited for a CPU taken by another process)%s",
                t.redone(), tries, t.redone_slow_probe, t.redone_foreign_wait,
                ran_out ? ", and the tries ran out before enough were kept" : "");
  return buf;
}

}  // namespace nbcguard
