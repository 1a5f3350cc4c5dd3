#include "nbcguard/reference.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "nbcguard/units.h"

namespace nbcguard {
namespace {

struct Name {
  ReferenceBehaviour b;
  const char* name;
};
constexpr Name kNames[] = {
    {ReferenceBehaviour::kNone, "none"},
    {ReferenceBehaviour::kBackground, "background"},
    {ReferenceBehaviour::kDeferred, "deferred"},
    {ReferenceBehaviour::kCpuThief, "cpu-thief"},
    {ReferenceBehaviour::kLateRank, "late-rank"},
    {ReferenceBehaviour::kLateExit, "late-exit"},
    {ReferenceBehaviour::kPassiveImpact, "passive-impact"},
    {ReferenceBehaviour::kSleepingWait, "sleeping-wait"},
    {ReferenceBehaviour::kSlowRank, "slow-rank"},
};

// %.17g: the value read back is the value written.
std::string Exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

const char* ToString(ReferenceBehaviour b) {
  for (const Name& n : kNames)
    if (n.b == b) return n.name;
  return "none";
}

std::optional<ReferenceBehaviour> ParseReferenceBehaviour(const std::string& name) {
  for (const Name& n : kNames)
    if (name == n.name) return n.b;
  return std::nullopt;
}

const std::vector<std::string>& ReferenceBehaviourNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Name& n : kNames)
      if (n.b != ReferenceBehaviour::kNone) v.push_back(n.name);
    return v;
  }();
  return names;
}

std::string ReferenceSpec::Describe() const {
  if (!active()) return "none";
  char bw[32];
  std::snprintf(bw, sizeof bw, "%g MB/s", bandwidth / 1e6);
  std::string s =
      std::string(ToString(behaviour)) + " (latency " + FormatDuration(latency) + ", bandwidth " + bw;
  if (behaviour == ReferenceBehaviour::kLateRank || behaviour == ReferenceBehaviour::kLateExit)
    s += ", rank " + (late_rank < 0 ? std::string("last") : std::to_string(late_rank)) +
         (behaviour == ReferenceBehaviour::kLateRank ? " enters" : " leaves") + " late by " +
         FormatDuration(late_delay);
  char sh[32];
  std::snprintf(sh, sizeof sh, "%g%%", share * 100);
  if (behaviour == ReferenceBehaviour::kPassiveImpact)
    s += std::string(", computing thread losing ") + sh + " of every " + FormatDuration(period);
  if (behaviour == ReferenceBehaviour::kSlowRank)
    return std::string(ToString(behaviour)) + " (the library's own progression; rank " +
           (late_rank < 0 ? std::string("last") : std::to_string(late_rank)) + "'s computing thread losing " +
           sh + " of every " + FormatDuration(period) + ")";
  return s + ")";
}

std::string Validate(const ReferenceSpec& s) {
  if (!(s.latency >= 0) || !std::isfinite(s.latency)) return "latency must be a finite duration >= 0";
  if (!(s.bandwidth > 0) || !std::isfinite(s.bandwidth)) return "bandwidth must be a finite number > 0";
  if (!(s.late_delay >= 0) || !std::isfinite(s.late_delay))
    return "late_delay must be a finite duration >= 0";
  if (!(s.share > 0 && s.share <= ReferenceSpec::kMaxShare)) return "share must be a fraction in (0, 0.9]";
  if (!(s.period > 0) || !std::isfinite(s.period)) return "period must be a finite duration > 0";
  if (s.late_rank < -1) return "late_rank must be a rank (>= 0) or -1 for the last rank";
  return "";
}

std::map<std::string, std::string> ToEnvironment(const ReferenceSpec& s) {
  return {{"NBCGUARD_REFERENCE", ToString(s.behaviour)},
          {"NBCGUARD_REFERENCE_LATENCY", Exact(s.latency)},
          {"NBCGUARD_REFERENCE_BANDWIDTH", Exact(s.bandwidth)},
          {"NBCGUARD_REFERENCE_LATE_RANK", std::to_string(s.late_rank)},
          {"NBCGUARD_REFERENCE_LATE_DELAY", Exact(s.late_delay)},
          {"NBCGUARD_REFERENCE_SHARE", Exact(s.share)},
          {"NBCGUARD_REFERENCE_PERIOD", Exact(s.period)}};
}

std::optional<ReferenceSpec> FromEnvironment(const std::function<const char*(const char*)>& getenv,
                                             std::string* error) {
  ReferenceSpec s;
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return std::nullopt;
  };
  if (const char* b = getenv("NBCGUARD_REFERENCE")) {
    auto parsed = ParseReferenceBehaviour(b);
    if (!parsed) {
      std::string allowed = "none";
      for (const std::string& n : ReferenceBehaviourNames()) allowed += ", " + n;
      return fail(std::string("NBCGUARD_REFERENCE='") + b + "': expected one of " + allowed);
    }
    s.behaviour = *parsed;
  }
  struct Number {
    const char* var;
    double* out;
  };
  for (const Number& n :
       {Number{"NBCGUARD_REFERENCE_LATENCY", &s.latency},
        Number{"NBCGUARD_REFERENCE_BANDWIDTH", &s.bandwidth},
        Number{"NBCGUARD_REFERENCE_LATE_DELAY", &s.late_delay}, Number{"NBCGUARD_REFERENCE_SHARE", &s.share},
        Number{"NBCGUARD_REFERENCE_PERIOD", &s.period}}) {
    const char* v = getenv(n.var);
    if (!v) continue;
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(v, &end);
    if (end == v || *end != '\0' || errno == ERANGE)
      return fail(std::string(n.var) + "='" + v +
                  "': expected a number (seconds, bytes per second or a fraction)");
    *n.out = x;
  }
  if (const char* v = getenv("NBCGUARD_REFERENCE_LATE_RANK")) {
    char* end = nullptr;
    errno = 0;
    const long r = std::strtol(v, &end, 10);
    if (end == v || *end != '\0' || errno == ERANGE || r < -1 || r > 1 << 30)
      return fail(std::string("NBCGUARD_REFERENCE_LATE_RANK='") + v +
                  "': expected a rank >= 0, or -1 for the last");
    s.late_rank = static_cast<int>(r);
  }
  const std::string invalid = Validate(s);
  if (!invalid.empty()) return fail("NBCGUARD_REFERENCE_*: " + invalid);
  return s;
}

}  // namespace nbcguard
