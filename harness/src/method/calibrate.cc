// Calibration by time (docs/method.md, "Calibration by time"): geometric bracketing, then
// quadratic interpolation of (size, time) points with a bisection safeguard.
#include "nbcguard/calibrate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>

#include "nbcguard/units.h"

namespace nbcguard {
namespace {

using Size = std::uint64_t;

constexpr double kMinTimeGrowth = 2.0;
constexpr double kMaxGrowth = 64.0;
constexpr double kJumpWidth = 1e-3;
constexpr double kJumpExponent = 100.0;

std::string SizeText(Size s) { return std::to_string(s); }

std::string TolerancePercent(double tolerance) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", tolerance * 100.0);
  return buf;
}

std::string Time(double seconds) {
  if (!(seconds > 0) || !std::isfinite(seconds)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%gs", seconds);
    return buf;
  }
  return FormatDuration(seconds);
}

// "20us at size 1"
std::string At(const CalibrationStep& p) { return Time(p.time) + " at size " + SizeText(p.size); }

// lo (below target) and hi (above) leave no size that could reach the
// target: no integer between them, or a bracket narrower than 0.1 % of the
// size across which the time changes like size^100 or faster. No smooth cost
// does that (GEMM is size^3): it is a step, e.g. an algorithm switch, and
// pinning it to one integer could take log2(size) more evaluations.
bool IsJump(const CalibrationStep& lo, const CalibrationStep& hi) {
  if (lo.size + 1 >= hi.size) return true;
  if (lo.size == 0 || !(lo.time > 0)) return false;
  const double width = static_cast<double>(hi.size - lo.size) / static_cast<double>(lo.size);
  if (width > kJumpWidth) return false;
  const double exponent =
      std::log(hi.time / lo.time) / std::log(static_cast<double>(hi.size) / static_cast<double>(lo.size));
  return exponent >= kJumpExponent;
}

class Search {
 public:
  Search(const std::function<double(Size)>& cost, double target, const CalibrationOptions& o)
      : cost_(cost), target_(target), o_(o) {}

  CalibrationResult Run();

 private:
  enum class Outcome { kContinue, kConverged, kFailed };

  // Evaluates `size` (never twice, always within [min, max]).
  Outcome Evaluate(Size size);
  bool Within(double t) const { return std::fabs(t - target_) <= o_.tolerance * target_; }
  // Multiplicative step (clamped to [2, 64]) for bracketing from the last
  // evaluated point toward the target, extrapolated from the last two points.
  double GrowthFactor(bool up) const;
  // Next size strictly inside (lo, hi); nullopt when none is left.
  std::optional<Size> Propose();
  void Finish();
  // The steps of Run(): each returns kContinue to go on, or how the search
  // ended (kFailed with result_.reason set).
  Outcome CheckOptions();
  Outcome Exhausted();
  Outcome Grow();    // only sizes below the target seen so far
  Outcome Shrink();  // only sizes above the target seen so far
  Outcome Narrow();  // bracketed: lo below, hi above

  const std::function<double(Size)>& cost_;
  const double target_;
  const CalibrationOptions& o_;
  CalibrationResult result_;
  std::set<Size> seen_;
  std::optional<CalibrationStep> lo_;  // largest-known size below target (bracket)
  std::optional<CalibrationStep> hi_;  // smallest-known size above target (bracket)
  bool force_bisect_ = false;
  int rechecks_done_ = 0;
};

Search::Outcome Search::Evaluate(Size size) {
  seen_.insert(size);
  const double t = cost_(size);
  result_.steps.push_back({size, t});
  if (!std::isfinite(t) || t < 0) {
    result_.reason =
        "the cost at size " + SizeText(size) + " is not a finite, non-negative time (" + Time(t) + ")";
    return Outcome::kFailed;
  }
  if (Within(t)) return Outcome::kConverged;
  const CalibrationStep p{size, t};
  if (t < target_) {
    // Below target: moves lo up, but only inside the current bracket.
    if ((!lo_ || size > lo_->size) && (!hi_ || size < hi_->size)) lo_ = p;
  } else {
    if ((!hi_ || size < hi_->size) && (!lo_ || size > lo_->size)) hi_ = p;
  }
  return Outcome::kContinue;
}

double Search::GrowthFactor(bool up) const {
  const auto& steps = result_.steps;
  const CalibrationStep& last = steps.back();
  const double q = o_.growth_exponent;
  double ratio = last.time > 0 ? target_ / last.time : kMaxGrowth;
  if (ratio < 1) ratio = 1 / ratio;
  double factor = HUGE_VAL;
  double exponent = 1;  // local d log t / d log size, when measured and >= 1
  if (steps.size() < 2) {
    // One point, no slope yet. Growing: assume a cubic cost (or steeper if
    // declared) so the first step cannot pass the target time by much;
    // shrinking: assume time ~ size (undershooting is cheap).
    factor = up ? std::pow(ratio, 1 / std::max(3.0, q)) : ratio;
  } else {
    const CalibrationStep& prev = steps[steps.size() - 2];
    const double s0 = static_cast<double>(prev.size), s1 = static_cast<double>(last.size);
    // (a) Power law t = c size^p through the last two points (exact for a
    // GEMM without start-up cost).
    if (prev.time > 0 && last.time > 0 && s0 > 0 && s1 > 0 && s0 != s1) {
      const double p = std::log(last.time / prev.time) / std::log(s1 / s0);
      if (p > 0 && std::isfinite(p)) {
        factor = std::min(factor, std::pow(ratio, 1 / p));
        exponent = std::clamp(p, 1.0, 4.0);
      }
    }
    // (b) t = a + b size^q through the same points, q = growth_exponent
    // (exact for latency + bandwidth with q = 1, for a GEMM behind a
    // start-up cost with q = 3). On a cost growing no faster than size^q
    // beyond a fixed part it does not overshoot; the smaller step wins.
    const double x0 = std::pow(s0, q), x1 = std::pow(s1, q);
    if (x0 != x1) {
      const double b = (last.time - prev.time) / (x1 - x0);
      if (b > 0 && std::isfinite(b)) {
        const double x_star = x1 + (target_ - last.time) / b;
        const double s_star = x_star > 0 ? std::pow(x_star, 1 / q) : 0;
        const double f = up ? s_star / s1 : (s_star > 0 ? s1 / s_star : HUGE_VAL);
        if (f > 0 && !std::isnan(f)) factor = std::min(factor, f);
      }
    }
    if (factor == HUGE_VAL) factor = up ? std::pow(ratio, 1 / q) : ratio;  // no usable slope
  }
  if (up) exponent = std::max(exponent, std::min(q, 4.0));
  // At least a factor 2 in predicted TIME (a factor 2 in size for linear
  // costs, 2^(1/3) for GEMM): enough to bracket quickly without stepping
  // 8x past the target time on a cubic cost.
  const double min_growth = std::pow(kMinTimeGrowth, 1 / exponent);
  if (std::isnan(factor)) return min_growth;
  return std::clamp(factor, min_growth, kMaxGrowth);
}

std::optional<Size> Search::Propose() {
  const Size lo = lo_->size;
  const Size hi = hi_->size;
  if (lo + 1 >= hi) return std::nullopt;
  const double width = static_cast<double>(hi - lo);
  auto inside = [&](double s) -> std::optional<Size> {
    if (!std::isfinite(s)) return std::nullopt;
    const double r = std::round(s);
    if (r <= static_cast<double>(lo) || r >= static_cast<double>(hi)) return std::nullopt;
    const Size z = static_cast<Size>(r);
    if (z <= lo || z >= hi || seen_.count(z)) return std::nullopt;
    return z;
  };

  std::optional<Size> proposal;
  if (!force_bisect_) {
    // Normalized coordinates: u = (size - lo) / (hi - lo), y = time / target - 1.
    const double y0 = lo_->time / target_ - 1;
    const double y1 = hi_->time / target_ - 1;
    // Third point: the evaluated one nearest the bracket in log size (the
    // most recent on ties); none inside the bracket can exist.
    const CalibrationStep* third = nullptr;
    double best = HUGE_VAL;
    for (const CalibrationStep& s : result_.steps) {
      if (s.size == lo || s.size == hi || !std::isfinite(s.time)) continue;
      const double d = s.size < lo ? std::log(static_cast<double>(std::max<Size>(lo, 1)) /
                                              static_cast<double>(std::max<Size>(s.size, 1)))
                                   : std::log(static_cast<double>(s.size) / static_cast<double>(hi));
      if (d <= best) {
        best = d;
        third = &s;
      }
    }
    const double secant = -y0 / (y1 - y0);
    double u = secant;
    if (third) {
      const double u2 = (static_cast<double>(third->size) - static_cast<double>(lo)) / width;
      const double y2 = third->time / target_ - 1;
      const double f01 = y1 - y0;
      const double f12 = (y2 - y1) / (u2 - 1);
      const double a = (f12 - f01) / u2;  // f[u0, u1, u2]
      const double b = f01 - a;
      const double c = y0;
      if (std::isfinite(a) && std::fabs(a) > 1e-12 * (std::fabs(b) + std::fabs(c))) {
        const double disc = b * b - 4 * a * c;
        u = HUGE_VAL;  // no root: fall back below
        if (disc >= 0) {
          const double q = -0.5 * (b + std::copysign(std::sqrt(disc), b));
          double best_root = HUGE_VAL;
          for (double r : {q / a, q != 0 ? c / q : HUGE_VAL}) {
            if (r > 0 && r < 1 &&
                (best_root == HUGE_VAL || std::fabs(r - secant) < std::fabs(best_root - secant))) {
              best_root = r;
            }
          }
          u = best_root;
        }
      }
    }
    if (u > 0 && u < 1) proposal = inside(static_cast<double>(lo) + u * width);
  }
  if (!proposal) {
    // Bisection in log space (geometric mean), arithmetic when lo is 0.
    const double g = lo == 0 ? 0.5 * static_cast<double>(hi)
                             : std::sqrt(static_cast<double>(lo)) * std::sqrt(static_cast<double>(hi));
    proposal = inside(g);
    if (!proposal) proposal = inside(static_cast<double>(lo) + 0.5 * width);
    if (!proposal) proposal = inside(static_cast<double>(lo + 1));
  }
  return proposal;
}

void Search::Finish() {
  const CalibrationStep* best = nullptr;
  double best_err = HUGE_VAL;
  const auto& steps = result_.steps;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const CalibrationStep& s = steps[i];
    if (!std::isfinite(s.time)) continue;
    // A size measured again counts with its newest time only.
    bool superseded = false;
    for (std::size_t k = i + 1; k < steps.size(); ++k) superseded |= steps[k].size == s.size;
    if (superseded) continue;
    const double err = std::fabs(s.time - target_) / target_;
    if (!best || err < best_err) {
      best = &s;
      best_err = err;
    }
  }
  if (best) {
    result_.size = best->size;
    result_.time = best->time;
  }
  if (result_.converged) result_.reason.clear();
}

Search::Outcome Search::Exhausted() {
  std::string reason = "no size within " + TolerancePercent(o_.tolerance) + " of target " + Time(target_) +
                       " after " + std::to_string(result_.steps.size()) + " evaluations";
  if (lo_ && hi_) {
    reason += " (last bracket: " + At(*lo_) + ", " + At(*hi_) + ")";
  }
  result_.reason = reason;
  return Outcome::kFailed;
}

Search::Outcome Search::CheckOptions() {
  if (!std::isfinite(target_) || !(target_ > 0)) {
    result_.reason = "the target time must be positive and finite (got " + Time(target_) + ")";
    return Outcome::kFailed;
  }
  if (!std::isfinite(o_.tolerance) || o_.tolerance < 0) {
    result_.reason = "the tolerance must be a finite, non-negative fraction";
    return Outcome::kFailed;
  }
  if (!std::isfinite(o_.growth_exponent) || o_.growth_exponent <= 0) {
    result_.reason = "the growth exponent must be positive and finite";
    return Outcome::kFailed;
  }
  if (o_.min_size > o_.max_size) {
    result_.reason =
        "empty size range: min_size " + SizeText(o_.min_size) + " > max_size " + SizeText(o_.max_size);
    return Outcome::kFailed;
  }
  if (o_.max_iterations <= 0) return Exhausted();
  return Outcome::kContinue;
}

// Bracketing: walk away from the target's wrong side geometrically.
Search::Outcome Search::Grow() {
  if (lo_->size >= o_.max_size) {
    result_.reason = "target " + Time(target_) + " is above the time at the largest size (" + At(*lo_) + ")";
    return Outcome::kFailed;
  }
  if (static_cast<int>(result_.steps.size()) >= o_.max_iterations) return Exhausted();
  const double next = static_cast<double>(std::max<Size>(lo_->size, 1)) * GrowthFactor(true);
  Size s = next >= static_cast<double>(o_.max_size) ? o_.max_size : static_cast<Size>(std::round(next));
  s = std::clamp(s, lo_->size + 1, o_.max_size);
  return Evaluate(s);
}

Search::Outcome Search::Shrink() {
  if (hi_->size <= o_.min_size) {
    result_.reason = "target " + Time(target_) + " is below the time at the smallest size (" + At(*hi_) + ")";
    return Outcome::kFailed;
  }
  if (static_cast<int>(result_.steps.size()) >= o_.max_iterations) return Exhausted();
  const double next = static_cast<double>(hi_->size) / GrowthFactor(false);
  Size s = next <= static_cast<double>(o_.min_size) ? o_.min_size : static_cast<Size>(std::round(next));
  s = std::clamp(s, o_.min_size, hi_->size - 1);
  return Evaluate(s);
}

// Bracketed: lo below, hi above, nothing evaluated strictly between.
Search::Outcome Search::Narrow() {
  if (IsJump(*lo_, *hi_) && rechecks_done_ < o_.recheck_steps &&
      static_cast<int>(result_.steps.size()) + 2 <= o_.max_iterations) {
    // Measure both ends again before believing the step; the bracket is
    // rebuilt from the new times (either end may now be on the other
    // side of the target, which sends the search back to bracketing).
    ++rechecks_done_;
    const Size ends[2] = {lo_->size, hi_->size};
    lo_.reset();
    hi_.reset();
    force_bisect_ = false;
    Outcome out = Outcome::kContinue;
    for (Size s : ends) {
      out = Evaluate(s);
      if (out != Outcome::kContinue) break;
    }
    return out;
  }
  if (IsJump(*lo_, *hi_)) {
    result_.reason =
        "no size within " + TolerancePercent(o_.tolerance) + " of target " + Time(target_) +
        ": the time jumps from " + At(*lo_) + " to " + At(*hi_) +
        (lo_->size + 1 >= hi_->size ? " with no size in between (a step in the cost, e.g. the library "
                                      "switches algorithm there, or sizes too coarse for this target)"
                                    : " within " + TolerancePercent(kJumpWidth) +
                                          " of size (a step in the cost, e.g. the library switches "
                                          "algorithm there)");
    return Outcome::kFailed;
  }
  if (static_cast<int>(result_.steps.size()) >= o_.max_iterations) return Exhausted();
  const double width_before =
      std::log(static_cast<double>(hi_->size) / static_cast<double>(std::max<Size>(lo_->size, 1)));
  const bool bisecting = force_bisect_;
  const std::optional<Size> next = Propose();
  if (!next) return Exhausted();  // cannot happen while lo + 1 < hi; stay safe
  const Outcome out = Evaluate(*next);
  if (out != Outcome::kContinue) return out;
  // Safeguard: an interpolation step that did not halve the bracket (in
  // log size) is followed by a bisection, so the bracket at least halves
  // every two evaluations even on costs the parabola models badly.
  const double width_after =
      std::log(static_cast<double>(hi_->size) / static_cast<double>(std::max<Size>(lo_->size, 1)));
  force_bisect_ = !bisecting && width_after > 0.5 * width_before;
  return Outcome::kContinue;
}

CalibrationResult Search::Run() {
  Outcome out = CheckOptions();
  if (out == Outcome::kContinue) {
    const Size start = std::clamp(std::max(o_.start_size, o_.min_size), o_.min_size, o_.max_size);
    out = Evaluate(start);
    const Size fallback = std::clamp(std::max(o_.fallback_start_size, o_.min_size), o_.min_size, o_.max_size);
    const double t = result_.steps.back().time;
    const double f = o_.start_trust_factor;
    if (out == Outcome::kContinue && f > 0 && fallback != start && (t > f * target_ || t * f < target_)) {
      // A start far off its target: no evidence for where to search (a
      // corrupt or foreign cache entry), and its neighbourhood may be slow
      // to measure. Forgotten, and the search starts where it would without it.
      result_.dropped_start = result_.steps.back();
      result_.steps.clear();
      seen_.clear();
      lo_.reset();
      hi_.reset();
      out = Evaluate(fallback);
    }
  }
  while (out == Outcome::kContinue) out = lo_ && hi_ ? Narrow() : lo_ ? Grow() : Shrink();
  result_.converged = out == Outcome::kConverged;
  Finish();
  return result_;
}

}  // namespace

CalibrationResult CalibrateSize(const std::function<double(std::uint64_t)>& cost, double target,
                                const CalibrationOptions& options) {
  Search search(cost, target, options);
  return search.Run();
}

}  // namespace nbcguard
