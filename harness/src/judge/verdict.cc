// Threshold rules applied to point results.
#include "nbcguard/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "nbcguard/units.h"
#include "nbcguard/validity.h"

namespace nbcguard {
namespace {

// 3 significant digits, trailing zeros kept ("1.30", "0.0500", "12.0").
std::string Ratio(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#.3g", x);
  std::string s = buf;
  if (!s.empty() && s.back() == '.') s.pop_back();  // "123." -> "123"
  return s;
}

std::string Point(double comm_target, double comp_target) {
  return "comm=" + FormatDuration(comm_target) + " comp=" + FormatDuration(comp_target);
}

std::string Where(const SourceLocation& where) {
  if (where.file.empty() && where.line <= 0) return "";
  std::string s = where.file.empty() ? "?" : where.file;
  if (where.line > 0) s += ":" + std::to_string(where.line);
  return s;
}

template <class T>
bool MatchesAny(const std::vector<T>& wanted, const T& value) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
}

const Spread& SpreadOf(const PointResult& p, Metric m) {
  switch (m) {
    case Metric::kOverhead:
      return p.r_overhead;
    case Metric::kComm:
      return p.r_comm;
    case Metric::kCompSlowdown:
      return p.r_comp_slowdown;
    case Metric::kMpiImpact:
      return p.r_mpi_impact;
    case Metric::kPartitioned:
      break;  // not a ratio of overlap points; rules limiting it are partitioned rules
    case Metric::kCpuBusyNbc:
      return p.cpu_busy_nbc;
    case Metric::kCpuBusyBlocking:
      return p.cpu_busy_blocking;
  }
  static const Spread kNone = Summarize({});
  return kNone;
}

std::string InvalidLine(const PointResult& p, const std::string& reason, const Rule& rule) {
  return Point(p.comm_target, p.comp_target) + ": INVALID (" +
         (reason.empty() ? std::string("no reason given") : reason) + ") [rule '" + rule.name + "']";
}

std::string Plural(std::size_t n, const char* noun) { return std::to_string(n) + " " + noun + "(s)"; }

}  // namespace

bool RuleApplies(const Rule& rule, const TestContext& test) {
  if (rule.kind != test.kind) return false;
  const RuleMatch& m = rule.match;
  if (!MatchesAny(m.deployments, test.deployment)) return false;
  if (!MatchesAny(m.collectives, test.collective)) return false;
  if (!MatchesAny(m.nodes, test.nodes)) return false;
  if (!MatchesAny(m.systems, test.system)) return false;
  if (!m.labels.empty()) {
    const bool any = std::any_of(m.labels.begin(), m.labels.end(), [&](const std::string& l) {
      return std::find(test.labels.begin(), test.labels.end(), l) != test.labels.end();
    });
    if (!any) return false;
  }
  return true;
}

bool RulesLimit(const std::vector<Rule>& rules, const TestContext& test, Metric metric,
                const std::vector<std::pair<double, double>>& at) {
  for (const Rule& rule : rules) {
    if (!RuleApplies(rule, test)) continue;
    const bool limits = std::any_of(rule.limits.begin(), rule.limits.end(),
                                    [&](const Limit& l) { return l.metric == metric; });
    if (limits && std::any_of(at.begin(), at.end(),
                              [&](const auto& p) { return rule.region.Contains(p.first, p.second); }))
      return true;
  }
  return false;
}

std::string Finding::Message() const {
  std::string out = "rule '" + rule + "'";
  const std::string where = Where(rule_where);
  if (!where.empty()) out += " (" + where + ")";
  out += " at " + (at.empty() ? Point(comm_target, comp_target) : at) + ": " + MetricName(metric) + " = " +
         Ratio(measured.median) + " [" + Ratio(measured.lo) + ", " + Ratio(measured.hi) + "] " +
         (is_max ? "> max " : "< min ") + Ratio(limit);
  if (within_between) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  " (within the spread between jobs: sd %.3g%s over %d nights of the history)", between.sigma,
                  IsRelative(metric) ? " of its log" : "", between.nights);
    out += buf;
  } else if (!beyond_noise) {
    out += " (within noise)";
  }
  if (again.n > 0)
    out += "; measured again: " + Ratio(again.median) + " [" + Ratio(again.lo) + ", " + Ratio(again.hi) + "]";
  // Partitioned points have no overlap diagnosis.
  if (at.empty()) out += std::string(" -- ") + ToString(diagnosis) + ": " + Explain(diagnosis);
  return out;
}

std::string Verdict::Summary() const {
  const std::string counts = Plural(static_cast<std::size_t>(rules_applied), "rule") + ", " +
                             Plural(static_cast<std::size_t>(points_checked), "point check");
  const std::string noise =
      (within_noise.empty() ? "" : ", " + std::to_string(within_noise.size()) + " within noise") +
      (unconfirmed.empty() ? ""
                           : ", " + std::to_string(unconfirmed.size()) + " not confirmed by a second job") +
      (remeasured.empty() ? ""
                          : ", " + std::to_string(remeasured.size()) + " invalid measured by a second job");
  if (pass) return "PASS: " + counts + noise;
  if (rules_applied <= 0) return "FAIL: no threshold rule applies to this test";
  if (Inconclusive()) {
    std::string why;
    if (!invalid.empty())
      why = Plural(invalid.size(), "point") + " refused (a disturbed machine or ranks computing unequally)";
    if (!one_job.empty())
      why += (why.empty() ? "" : ", ") + Plural(one_job.size(), "limit") +
             " exceeded by the only job that could judge the point";
    return "INCONCLUSIVE: " + why + ", no limit exceeded in two jobs; " + counts + noise;
  }
  std::string reasons;
  auto add = [&](const std::string& r) { reasons += (reasons.empty() ? "" : ", ") + r; };
  if (!failures.empty()) add(Plural(failures.size(), "limit") + " exceeded beyond noise");
  if (!one_job.empty()) add(Plural(one_job.size(), "limit") + " exceeded in one job only");
  if (!invalid.empty()) add(Plural(invalid.size(), "invalid point"));
  if (points_checked <= 0 && invalid.empty()) add("no grid point in any rule's region");
  if (reasons.empty()) reasons = "not passed";
  return "FAIL: " + reasons + "; " + counts + noise;
}

bool Verdict::Inconclusive() const {
  return !pass && rules_applied > 0 && failures.empty() && (!invalid.empty() || !one_job.empty()) &&
         std::all_of(invalid.begin(), invalid.end(), [](const InvalidPoint& i) { return i.refused; });
}

std::vector<std::string> Verdict::InvalidLines() const {
  std::vector<std::string> lines;
  for (const InvalidPoint& i : invalid) lines.push_back(i.line);
  return lines;
}

namespace {
// Nothing exceeded beyond noise, no invalid point, and something checked.
bool Passes(const Verdict& v) {
  return v.failures.empty() && v.one_job.empty() && v.invalid.empty() && v.rules_applied > 0 &&
         v.points_checked > 0;
}

// The point (comm, comp) in a job's points, or null.
const PointResult* FindPoint(const std::vector<PointResult>& points, double comm, double comp) {
  const PointResult* p = nullptr;
  for (const PointResult& q : points)
    if (q.comm_target == comm && q.comp_target == comp) p = &q;
  return p;
}

// Where a finding stands in another job's points: its median past the same
// limit, on the right side, or not measured there (no valid median), or
// on either side of a maximum only by what that job's rank imbalance can
// move it (the slack of a rank that computed longer lengthens the
// collective's first-start to last-end time as a lack of progression would,
// and a rank that finished early can do the transfer in MPI_Wait, which
// shortens it): such a job neither confirms nor clears the finding. Within
// a maximum only with the slack in the library's favour (median <= max <
// median + hidden) is the case Evaluate refuses in a first job.
enum class Again { kPast, kInside, kNone, kByImbalance };
Again LookAgain(Finding* f, const std::vector<PointResult>& again) {
  const PointResult* p = FindPoint(again, f->comm_target, f->comp_target);
  const Spread* s = p && p->valid ? &SpreadOf(*p, f->metric) : nullptr;
  if (!s || std::isnan(s->median)) return Again::kNone;
  f->again = *s;
  const double hidden = f->is_max ? HiddenByImbalance(*p, f->metric) : 0;
  if (!(f->is_max ? s->median > f->limit : s->median < f->limit))
    return f->is_max && s->median + hidden > f->limit ? Again::kByImbalance : Again::kInside;
  if (f->is_max && s->median - hidden <= f->limit) return Again::kByImbalance;
  return Again::kPast;
}
}  // namespace

const BetweenRunSpread* BetweenRunNoise::Find(const PointResult& p, Metric metric) const {
  const double comm = metric == Metric::kMpiImpact ? std::nan("") : p.comm_target;
  const auto it = between.find(SeriesKey(test, PointName(comm, p.comp_target), MetricName(metric)));
  return it != between.end() && it->second.nights >= min_nights ? &it->second : nullptr;
}

Verdict Evaluate(const std::vector<PointResult>& points, const TestContext& test,
                 const std::vector<Rule>& rules, const BetweenRunNoise* noise) {
  Verdict v;
  for (const Rule& rule : rules) {
    if (!RuleApplies(rule, test)) continue;
    ++v.rules_applied;
    for (const PointResult& p : points) {
      if (!rule.region.Contains(p.comm_target, p.comp_target)) continue;
      if (!p.valid) {
        v.invalid.push_back({InvalidLine(p, p.invalid_reason, rule),
                             std::make_pair(p.comm_target, p.comp_target), p.refused});
        continue;
      }
      ++v.points_checked;
      const std::pair<double, double> at{p.comm_target, p.comp_target};
      if (std::find(v.checked.begin(), v.checked.end(), at) == v.checked.end()) v.checked.push_back(at);
      std::vector<Metric> unmeasured;  // metrics this rule limits that have no median
      std::string imbalance;           // limits met only with the help of the ranks' unequal computing
      for (const Limit& limit : rule.limits) {
        const Spread& s = SpreadOf(p, limit.metric);
        if (std::isnan(s.median)) {
          if (std::find(unmeasured.begin(), unmeasured.end(), limit.metric) == unmeasured.end()) {
            unmeasured.push_back(limit.metric);
          }
          continue;
        }
        auto record = [&](double value, bool is_max, bool beyond) {
          Finding f;
          f.rule = rule.name;
          f.rule_where = rule.where;
          f.comm_target = p.comm_target;
          f.comp_target = p.comp_target;
          f.metric = limit.metric;
          f.measured = s;
          f.limit = value;
          f.is_max = is_max;
          f.diagnosis = p.diagnosis;
          // Past the limit beyond one job's interval: also beyond the
          // spread between jobs, where the history knows it?
          const BetweenRunSpread* between = beyond && noise ? noise->Find(p, limit.metric) : nullptr;
          if (between) {
            const double past = IsRelative(limit.metric) ? std::log(s.median / value) : s.median - value;
            if (!((is_max ? past : -past) > UpperNormalQuantile(noise->alpha) * between->sigma)) {
              beyond = false;
              f.within_between = true;
              f.between = *between;
            }
          }
          f.beyond_noise = beyond;
          (beyond ? v.failures : v.within_noise).push_back(f);
        };
        if (limit.max) {
          const double hidden = HiddenByImbalance(p, limit.metric);
          if (s.lo > *limit.max) {
            record(*limit.max, true, true);
          } else if (s.median > *limit.max) {
            record(*limit.max, true, false);
          } else if (s.median + hidden > *limit.max) {
            imbalance += (imbalance.empty() ? "" : ", ") + std::string(MetricName(limit.metric)) + " " +
                         Ratio(s.median) + " <= max " + Ratio(*limit.max) + " only with up to " +
                         Ratio(hidden) + " hidden by slack";
          }
        }
        if (limit.min) {
          if (s.hi < *limit.min) {
            record(*limit.min, false, true);
          } else if (s.median < *limit.min) {
            record(*limit.min, false, false);
          }
        }
      }
      if (!imbalance.empty()) {
        const Imbalance& im = p.imbalance;
        v.invalid.push_back({InvalidLine(p,
                                         "rank imbalance: rank " + std::to_string(im.slowest_rank) +
                                             " computed " + Ratio(im.ref_ratio) + "x as long as rank " +
                                             std::to_string(im.fastest_rank) + "; " + imbalance,
                                         rule),
                             at, true});
      }
      // r_mpi_impact refused by a disturbance: the point is undecided, as
      // one a validity gate refused.
      const auto impact = std::find(unmeasured.begin(), unmeasured.end(), Metric::kMpiImpact);
      if (impact != unmeasured.end() && !p.mpi_impact_refused.empty()) {
        unmeasured.erase(impact);
        v.invalid.push_back(
            {InvalidLine(p, "no measured r_mpi_impact: refused, " + p.mpi_impact_refused, rule), at, true});
      }
      if (!unmeasured.empty()) {
        std::string names;
        for (Metric m : unmeasured) names += (names.empty() ? "" : ", ") + std::string(MetricName(m));
        v.invalid.push_back({InvalidLine(p, "no measured " + names, rule), at});
      }
    }
  }
  v.pass = Passes(v);
  return v;
}

Verdict Confirm(const Verdict& first, const std::vector<PointResult>& again, const TestContext& test,
                const std::vector<Rule>& rules, const BetweenRunNoise* noise) {
  auto find = [&](double comm, double comp) { return FindPoint(again, comm, comp); };
  Verdict v = first;
  v.failures.clear();
  for (Finding f : first.failures) {  // nothing to confirm it against: the failure stands
    const Again a = LookAgain(&f, again);
    // Past the limit again only by the second job's imbalance: undecided,
    // a further job looks (ConfirmOneJobFailures).
    (a == Again::kInside ? v.unconfirmed : a == Again::kByImbalance ? v.one_job : v.failures).push_back(f);
  }
  // Invalid points: judged on the second job's measurement where it has one.
  // Each point once, in the order of its first line. Then every line of a
  // point the second job measured moves to `remeasured` (the point's first
  // line goes on with what that job found); the lines of points it could not
  // measure stay invalid, in their order.
  std::vector<std::pair<double, double>> points;  // distinct, with a grid location
  for (const InvalidPoint& i : first.invalid)
    if (i.at && std::find(points.begin(), points.end(), *i.at) == points.end()) points.push_back(*i.at);
  std::vector<std::pair<std::pair<double, double>, std::string>> measured;  // point, what it found
  // Points the second job measured but a validity gate (or the imbalance
  // check) refused there: the first job's reason, whatever it was (a
  // calibration broken by a disturbance too), is not confirmed, and the
  // machine decided nothing: refused, so INCONCLUSIVE rather than FAIL.
  std::vector<std::pair<std::pair<double, double>, std::string>> refused_again;
  for (const auto& at : points) {
    const PointResult* p = find(at.first, at.second);
    if (!p) continue;  // no second measurement
    if (!p->valid) {
      if (p->refused) refused_again.emplace_back(at, p->invalid_reason);
      continue;  // else the second job could not measure it either
    }
    const Verdict second = Evaluate({*p}, test, rules, noise);
    if (!second.invalid.empty()) {
      if (std::all_of(second.invalid.begin(), second.invalid.end(),
                      [](const InvalidPoint& i) { return i.refused; }))
        refused_again.emplace_back(at, second.invalid.front().line);
      continue;
    }
    if (second.points_checked <= 0) continue;
    v.points_checked += second.points_checked;
    if (std::find(v.checked.begin(), v.checked.end(), at) == v.checked.end()) v.checked.push_back(at);
    std::string found;
    for (const Finding& f : second.failures) {  // one job's: a further job decides
      v.one_job.push_back(f);
      found += "; " + f.Message();
    }
    for (const Finding& f : second.within_noise) {
      v.within_noise.push_back(f);
      found += "; " + f.Message();
    }
    measured.emplace_back(at,
                          " -> measured by a second job" + (found.empty() ? ": within every limit" : found));
  }
  v.invalid.clear();
  for (const InvalidPoint& i : first.invalid) {
    auto m = std::find_if(measured.begin(), measured.end(),
                          [&](const auto& e) { return i.at && e.first == *i.at; });
    if (m == measured.end()) {
      const auto r = std::find_if(refused_again.begin(), refused_again.end(),
                                  [&](const auto& e) { return i.at && e.first == *i.at; });
      if (r == refused_again.end()) {
        v.invalid.push_back(i);
      } else {
        v.invalid.push_back(
            {i.line + " -> the second job's measurement was refused too: " + r->second, i.at, true});
      }
      continue;
    }
    if (!m->second.empty()) v.remeasured_at.push_back(m->first);
    v.remeasured.push_back(i.line + m->second);
    m->second.clear();  // said once, on the point's first line
  }
  v.pass = Passes(v);
  return v;
}

Verdict ConfirmOneJobFailures(const Verdict& confirmed, const std::vector<PointResult>& again) {
  Verdict v = confirmed;
  v.one_job.clear();
  for (Finding f : confirmed.one_job) {
    const Again a = LookAgain(&f, again);
    // The last job decides on its median, unless its own imbalance could
    // account for all it is past a maximum by: then no job but one saw
    // the library past the limit, and the finding stays undecided.
    (a == Again::kPast ? v.failures : a == Again::kInside ? v.unconfirmed : v.one_job).push_back(f);
  }
  v.pass = Passes(v);
  return v;
}

}  // namespace nbcguard
