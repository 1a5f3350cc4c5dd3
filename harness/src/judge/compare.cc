// Regression detection between two runs of the same tests.
//
// Why a shifted rank-sum test. A regression must be (a) larger than a
// tolerance and (b) beyond noise. Comparing two noisy medians answers
// neither; asking "is new > base?" answers (b) for any shift, however
// small, once there are enough samples. What we want to know is whether
// the ratio got worse by MORE than the tolerance d, so the new samples are
// moved back by d (absolute ratios: x - d; relative ratios: x / (1 + d))
// and a one-sided Mann-Whitney U test asks whether they are still larger
// than the baseline's. Under a location-shift model this is the test of
// H0: shift <= d against H1: shift > d (the construction behind the
// Hodges-Lehmann interval). It is distribution-free, which matters here:
// per-repetition ratios are skewed and sometimes bimodal (a vCPU changing
// speed, a scheduler slice), so a t-test's normality does not hold, and a
// few outliers move a rank-sum test by at most a few ranks. With 3 values a
// side (r_mpi_impact's minimum rounds) the smallest reachable p is about
// 0.04, so a handful of samples can never make a significant change at the
// default alpha: a large median shift on too few samples is listed as
// "within noise" (with the smallest p its sample sizes allow) instead of
// failing a night.
//
// What the test does not see: every per-repetition ratio of one run shares
// that run's reference medians and the machine's phase during the run, a
// run-level offset the repetitions cannot reveal. The tolerance is what
// absorbs it, so it belongs above the run-to-run spread of one point's
// medians (`nbcguard envelope --per-point` over a few runs shows it); the
// test only decides whether the samples clear it. r_mpi_impact is tested on
// its rounds, not its repetitions: a job's repetitions share the machine's
// speed of the moment, the rounds are the independent samples (docs/method.md, "How a run works").
//
// A baseline that was noisy as a whole is the other side of that offset: a
// CI run once recorded Open MPI's ibcast at 500us x 2ms as r_overhead 0.13
// [-0.77, 0.38] (every other run on record: 0.8-1.5, intervals about 0.2
// wide), and the next run's 0.91 [0.84, 0.94] was "significant" against
// it (p = 2e-6). A median known only to within more than the tolerance
// cannot show a change of the tolerance's size, so such a ratio is listed as
// not compared, with both runs' values, instead of being decided
// (BaselineResolves).
//
// The collective's own speed goes through the same decision. Its samples
// are the communication-alone times; divided by the bytes per rank they are
// the inverse bandwidth (larger is slower, like a ratio), so runs whose
// calibrated sizes differ are comparable, and compared relatively with their
// own tolerance. Within one run those times share the size the run
// calibrated and the machine's speed during the run, which is the run-level
// offset above: on a shared machine it is large, and so is the default
// tolerance (docs/nightly.md, "The collective's own speed").
#include "nbcguard/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <tuple>

#include "nbcguard/driver_common.h"
#include "nbcguard/plot_model.h"
#include "nbcguard/stats.h"
#include "nbcguard/units.h"
#include "nbcguard/validity.h"

namespace nbcguard {
namespace {

using json = nlohmann::json;

std::vector<double> Finite(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v)
    if (!std::isnan(x)) out.push_back(x);
  return out;
}

// A number from JSON; null (a non-finite value written out) and absent are NaN.
double Num(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : kNaN;
}

std::string Str(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Grid targets come from the same YAML through the same parser in both
// runs, but compare them at nanosecond resolution so a reformatted number
// does not split a point in two.
long long Ns(double seconds) { return std::llround(seconds * 1e9); }
using PointId = std::pair<long long, long long>;

RatioSamples FromValues(std::vector<double> values) {
  RatioSamples r;
  r.values = std::move(values);
  r.summary = Summarize(r.values);
  if (r.summary.n == 0) r.missing = "no finite per-repetition values";
  return r;
}

// Per-repetition ratios of one point, recomputed from its samples exactly
// as reduce.cc computes them: each overlap sample against the medians of
// the point's own references.
void RatiosFromSamples(const json& s, PointSamples* p) {
  const double comm_ref = Median(s.value("t_comm_ref", std::vector<double>{}));
  const double comp_ref = Median(s.value("t_comp_ref", std::vector<double>{}));
  std::vector<double> over, comm, slow;
  for (const json& row : s.value("overlap", json::array())) {
    // Columns: t_measured, t_call, t_comp, t_wait, and since r_comm counts
    // every rank's MPI time beyond its slack, t_mpi_unhidden (overlap_columns;
    // results without it: the critical rank's t_call + t_wait).
    if (!row.is_array() || row.size() < 4) continue;
    auto at = [&](std::size_t i) { return row[i].is_number() ? row[i].get<double>() : kNaN; };
    over.push_back(OverheadRatio(at(0), comp_ref, comm_ref));
    comm.push_back(CommRatio(row.size() >= 5 ? at(4) : at(1) + at(3), 0.0, comm_ref));
    slow.push_back(CompSlowdownRatio(at(2), comp_ref));
  }
  p->ratios[Metric::kOverhead] = FromValues(over);
  p->ratios[Metric::kComm] = FromValues(comm);
  p->ratios[Metric::kCompSlowdown] = FromValues(slow);
  p->speed = SpeedFromTimes(Num(s, "bytes_per_rank"), s.value("t_comm_ref", std::vector<double>{}));
}

std::string SingleQuoted(const std::string& s) { return "'" + s + "'"; }

std::string Percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g %%", 100 * fraction);
  return buf;
}

std::string SpreadText(const Spread& s) {
  return plot::FormatRatio(s.median) + " " + plot::FormatInterval(s.lo, s.hi);
}

// What changed in the deployment environment (set by the driver, not
// inherited): explains a change without preventing the comparison.
std::vector<std::string> EnvDifferences(const json& base, const json& now) {
  std::vector<std::string> out;
  const json b = base.is_object() ? base : json::object();
  const json n = now.is_object() ? now : json::object();
  for (const auto& [k, v] : n.items()) {
    if (!b.contains(k)) out.push_back(k + "=" + v.dump() + " added");
    else if (b[k] != v) out.push_back(k + " " + b[k].dump() + " -> " + v.dump());
  }
  for (const auto& [k, v] : b.items())
    if (!n.contains(k)) out.push_back(k + "=" + v.dump() + " removed");
  return out;
}

std::string Describe(const json& reference) {
  if (!reference.is_object()) return "none (the library's own progression)";
  return Str(reference, "behaviour").empty() ? reference.dump() : Str(reference, "behaviour");
}

// The ratios of one matched, valid point (or computation row).
void CompareRatio(const TestKey& key, double comm, double comp, Metric m, const RatioSamples& b,
                  const RatioSamples& n, const std::string& diagnosis, const CompareOptions& o,
                  Comparison* out) {
  const std::string where = PointName(comm, comp) + " " + MetricName(m);
  if (!b.missing.empty() || !n.missing.empty()) {
    out->unmatched.push_back({key.Name(), where,
                              !b.missing.empty() ? "not measured in the baseline: " + b.missing
                                                 : "not measured in the new run: " + n.missing});
    return;
  }
  const RatioDecision d = DecideRatio(m, b, n, o);
  if (d.baseline_unresolved) {
    const double tol = ToleranceOf(m, o);
    out->unmatched.push_back(
        {key.Name(), where,
         "baseline too noisy to resolve a change of " +
             (IsRelative(m) ? Percent(tol) : plot::FormatRatio(tol)) + ": its median " +
             SpreadText(b.summary) + " has a confidence interval " +
             (IsRelative(m) ? "whose ends differ by more than twice that" : "wider than twice that") +
             " (new run: " + SpreadText(n.summary) + ")"});
    return;
  }
  ++out->checks;
  if (!d.regression && !d.improvement && !d.worse_beyond_tolerance) return;
  Change c;
  c.test = key;
  c.comm_target = comm;
  c.comp_target = comp;
  c.metric = m;
  c.base = b.summary;
  c.now = n.summary;
  c.difference = d.difference;
  c.tolerance = ToleranceOf(m, o);
  c.p = d.improvement ? d.p_better : d.p_worse;
  c.diagnosis = diagnosis;
  bool regression = d.regression, improvement = d.improvement;
  const auto between = o.between.find(SeriesKey(key.Name(), PointName(comm, comp), MetricName(m)));
  if (between == o.between.end() || between->second.nights < o.min_history_nights) {
    c.spread_unknown = true;
    c.history_nights = between == o.between.end() ? 0 : between->second.nights;
  } else {
    c.between = between->second;
    const double delta =
        IsRelative(m) ? std::log(n.summary.median / b.summary.median) : n.summary.median - b.summary.median;
    if ((regression || improvement) &&
        !(std::fabs(delta) > UpperNormalQuantile(o.alpha) * std::sqrt(2.0) * c.between.sigma)) {
      c.within_between = true;
      regression = improvement = false;
      if (d.improvement) return;  // an improvement within the spread is no change
    }
  }
  if (regression) out->regressions.push_back(c);
  else if (improvement) out->improvements.push_back(c);
  else out->within_noise.push_back(c);
}

// "2ms [100us, 2ms]": a time's median and interval.
std::string TimeText(const Spread& s) {
  return FormatDuration(s.median) + " [" + FormatDuration(s.lo) + ", " + FormatDuration(s.hi) + "]";
}

// The collective's own speed at one matched, valid point.
void CompareSpeed(const TestKey& key, const PointSamples& b, const PointSamples& n, const CompareOptions& o,
                  Comparison* out) {
  const std::string where = PointName(n.comm_target, n.comp_target) + " collective speed";
  if (!b.speed.missing.empty() || !n.speed.missing.empty()) {
    out->unmatched.push_back({key.Name(), where,
                              !b.speed.missing.empty()
                                  ? "speed not compared: baseline has " + b.speed.missing
                                  : "speed not compared: new run has " + n.speed.missing});
    return;
  }
  if ((b.speed.summary.bytes_per_rank > 0) != (n.speed.summary.bytes_per_rank > 0)) {
    out->unmatched.push_back({key.Name(), where, "speed not compared: one run moved no data"});
    return;
  }
  const RatioDecision d = DecideSpeed(b.speed, n.speed, o);
  if (d.baseline_unresolved) {
    out->unmatched.push_back({key.Name(), where,
                              "speed not compared: baseline too noisy to resolve a factor " +
                                  plot::FormatRatio(1 + o.tolerance_speed) + ": its time alone " +
                                  TimeText(b.speed.summary.time) +
                                  " (new run: " + TimeText(n.speed.summary.time) + ")"});
    return;
  }
  ++out->speed_checks;
  if (!d.regression && !d.improvement && !d.worse_beyond_tolerance) return;
  const bool bytes = b.speed.summary.bytes_per_rank > 0;
  Change c;
  c.test = key;
  c.comm_target = n.comm_target;
  c.comp_target = n.comp_target;
  c.base = bytes ? b.speed.summary.bandwidth : b.speed.summary.time;
  c.now = bytes ? n.speed.summary.bandwidth : n.speed.summary.time;
  c.difference = d.difference;
  c.tolerance = o.tolerance_speed;
  c.p = d.improvement ? d.p_better : d.p_worse;
  c.diagnosis = n.diagnosis;
  c.speed = true;
  c.base_speed = b.speed.summary;
  c.now_speed = n.speed.summary;
  if (d.regression) out->regressions.push_back(c);
  else if (d.improvement) out->improvements.push_back(c);
  else out->within_noise.push_back(c);
}

// Whether every valid point of a run misses its speed for one reason (a
// file written before bytes_per_rank was recorded): said once per test.
std::string SpeedMissingEverywhere(const TestResults& t) {
  std::string reason;
  for (const PointSamples& p : t.points) {
    if (!p.valid) continue;
    if (p.speed.missing.empty() || (!reason.empty() && reason != p.speed.missing)) return "";
    reason = p.speed.missing;
  }
  return reason;
}

void CompareTest(const TestResults& b, const TestResults& n, const CompareOptions& o, Comparison* out) {
  const TestKey& key = b.key;
  ++out->tests;
  for (const std::string& e : EnvDifferences(b.deployment_environment, n.deployment_environment))
    out->notes.push_back(key.Name() + ": deployment environment changed: " + e);
  if (o.ignore_reference && b.reference != n.reference)
    out->notes.push_back(key.Name() + ": reference behaviour " + Describe(b.reference) + " -> " +
                         Describe(n.reference) + " (compared anyway: --ignore-reference)");

  std::map<PointId, const PointSamples*> bp, np;
  for (const PointSamples& p : b.points) bp[{Ns(p.comm_target), Ns(p.comp_target)}] = &p;
  for (const PointSamples& p : n.points) np[{Ns(p.comm_target), Ns(p.comp_target)}] = &p;
  const std::string b_no_speed = SpeedMissingEverywhere(b), n_no_speed = SpeedMissingEverywhere(n);
  if (!b_no_speed.empty() || !n_no_speed.empty())
    out->unmatched.push_back(
        {key.Name(), "collective speed",
         "speed not compared: " + (!b_no_speed.empty()
                                       ? "baseline has " + b_no_speed + " (written before it was recorded)"
                                       : "new run has " + n_no_speed)});
  std::set<PointId> ids;
  for (const auto& [id, p] : bp) ids.insert(id);
  for (const auto& [id, p] : np) ids.insert(id);
  for (const PointId& id : ids) {
    const auto bi = bp.find(id), ni = np.find(id);
    const PointSamples* any = bi != bp.end() ? bi->second : ni->second;
    const std::string where = PointName(any->comm_target, any->comp_target);
    if (bi == bp.end() || ni == np.end()) {
      out->unmatched.push_back({key.Name(), where,
                                bi == bp.end() ? "grid point only in the new run (grid changed)"
                                               : "grid point only in the baseline (grid changed)"});
      continue;
    }
    const PointSamples& pb = *bi->second;
    const PointSamples& pn = *ni->second;
    if (!pb.valid || !pn.valid) {
      std::string why;
      if (!pb.valid) why = "invalid in the baseline: " + pb.invalid_reason;
      if (!pn.valid) why += (why.empty() ? "" : "; ") + ("invalid in the new run: " + pn.invalid_reason);
      out->unmatched.push_back({key.Name(), where, why});
      continue;
    }
    ++out->points;
    if (!pb.ratios_refused.empty() || !pn.ratios_refused.empty()) {
      out->unmatched.push_back({key.Name(), where + " " + kOverlapRatiosPlace,
                                !pb.ratios_refused.empty() ? "refused in the baseline: " + pb.ratios_refused
                                                           : "refused in the new run: " + pn.ratios_refused});
    } else {
      for (Metric m : {Metric::kOverhead, Metric::kComm, Metric::kCompSlowdown})
        CompareRatio(key, pn.comm_target, pn.comp_target, m, pb.ratios.at(m), pn.ratios.at(m), pn.diagnosis,
                     o, out);
    }
    if (b_no_speed.empty() && n_no_speed.empty()) CompareSpeed(key, pb, pn, o, out);
  }

  // r_mpi_impact belongs to a computation row, not to a point: compared once
  // per computation target, so one change is not reported once per column.
  std::set<long long> comps;
  std::map<long long, std::pair<double, const RatioSamples*>> bi, ni;
  for (const auto& [t, r] : b.mpi_impact) bi[Ns(t)] = {t, &r};
  for (const auto& [t, r] : n.mpi_impact) ni[Ns(t)] = {t, &r};
  for (const auto& [t, r] : bi) comps.insert(t);
  for (const auto& [t, r] : ni) comps.insert(t);
  for (long long t : comps) {
    const auto b_it = bi.find(t), n_it = ni.find(t);
    const double comp = (b_it != bi.end() ? b_it->second : n_it->second).first;
    if (b_it == bi.end() || n_it == ni.end()) {
      out->unmatched.push_back({key.Name(), PointName(kNaN, comp) + " r_mpi_impact",
                                b_it == bi.end() ? "computation row only in the new run"
                                                 : "computation row only in the baseline"});
      continue;
    }
    // A row has no diagnosis of its own: name its points' (new run), each once.
    std::string diagnosis;
    for (const PointSamples& p : n.points)
      if (p.valid && Ns(p.comp_target) == t && diagnosis.find(p.diagnosis) == std::string::npos)
        diagnosis += (diagnosis.empty() ? "" : "/") + p.diagnosis;
    CompareRatio(key, kNaN, comp, Metric::kMpiImpact, *b_it->second.second, *n_it->second.second, diagnosis,
                 o, out);
  }
}

}  // namespace

RankSum RankSumGreater(const std::vector<double>& x_in, const std::vector<double>& y_in) {
  const std::vector<double> x = Finite(x_in), y = Finite(y_in);
  RankSum r;
  r.n_x = static_cast<int>(x.size());
  r.n_y = static_cast<int>(y.size());
  if (x.empty() || y.empty()) return r;
  // Pool, sort, give tied values their mean rank; sum x's ranks.
  std::vector<std::pair<double, bool>> pool;  // value, from x
  pool.reserve(x.size() + y.size());
  for (double v : x) pool.push_back({v, true});
  for (double v : y) pool.push_back({v, false});
  std::sort(pool.begin(), pool.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const double n = static_cast<double>(pool.size());
  double rank_sum_x = 0, tie_term = 0;  // tie_term: sum of t^3 - t over tie groups
  for (std::size_t i = 0; i < pool.size();) {
    std::size_t j = i;
    while (j < pool.size() && pool[j].first == pool[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;  // ranks i+1 .. j
    for (std::size_t k = i; k < j; ++k)
      if (pool[k].second) rank_sum_x += mid_rank;
    tie_term += t * t * t - t;
    i = j;
  }
  const double nx = r.n_x, ny = r.n_y;
  r.u = rank_sum_x - nx * (nx + 1) / 2;
  const double mean = nx * ny / 2;
  const double var = nx * ny / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (!(var > 0)) {  // every value tied: no evidence either way
    r.z = 0;
    r.p = 1;
    return r;
  }
  // Continuity correction toward the mean: the normal approximation of a
  // discrete statistic, conservative for small samples.
  r.z = (r.u - mean - 0.5) / std::sqrt(var);
  r.p = 0.5 * std::erfc(r.z / std::sqrt(2.0));
  return r;
}

double SmallestP(int n_x, int n_y) {
  std::vector<double> x(static_cast<std::size_t>(std::max(n_x, 0)), 1.0),
      y(static_cast<std::size_t>(std::max(n_y, 0)), 0.0);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += static_cast<double>(i);  // distinct, all above y
  for (std::size_t i = 0; i < y.size(); ++i) y[i] -= static_cast<double>(i);
  return RankSumGreater(x, y).p;
}

namespace {

// Whether a baseline summarized as `base` can resolve a change of `tol`
// (BaselineResolves), on a relative or an absolute scale.
bool Resolves(bool relative, const Spread& base, double tol) {
  if (!std::isfinite(base.lo) || !std::isfinite(base.hi)) return false;
  if (relative) return base.lo > 0 && base.hi <= base.lo * (1 + tol) * (1 + tol);
  return base.hi - base.lo <= 2 * tol;
}

// The decision on values where larger is worse, relative (x / (1 + tol))
// or absolute (x - tol): the ratios' and the collective speed's alike.
RatioDecision DecideShifted(bool relative, double tol, const RatioSamples& base, const RatioSamples& now,
                            double alpha) {
  RatioDecision d;
  const double bm = base.summary.median, nm = now.summary.median;
  // Shifts by the tolerance: worse means new - tol (or new / (1 + tol)) still
  // above the baseline; better means the baseline moved the same way still
  // above the new values. Relative shifts are symmetric in ratio: better by
  // 15 % is new < base / 1.15.
  auto shift = [&](const std::vector<double>& v) {
    std::vector<double> out;
    out.reserve(v.size());
    for (double x : v) out.push_back(relative ? x / (1 + tol) : x - tol);
    return out;
  };
  d.difference = relative ? (bm > 0 ? nm / bm - 1 : kNaN) : nm - bm;
  if (!std::isfinite(d.difference)) return d;
  d.p_worse = RankSumGreater(shift(now.values), base.values).p;
  d.p_better = RankSumGreater(shift(base.values), now.values).p;
  const bool beyond_worse = relative ? nm > bm * (1 + tol) : d.difference > tol;
  const bool beyond_better = relative ? nm * (1 + tol) < bm : d.difference < -tol;
  d.worse_beyond_tolerance = beyond_worse;
  d.baseline_unresolved = !Resolves(relative, base.summary, tol);
  d.regression = !d.baseline_unresolved && beyond_worse && d.p_worse < alpha;
  d.improvement = !d.baseline_unresolved && beyond_better && d.p_better < alpha;
  return d;
}

}  // namespace

std::string SeriesKey(const std::string& test, const std::string& point, const std::string& ratio) {
  return test + " " + point + " " + ratio;
}

double UpperNormalQuantile(double p) {
  double lo = -40, hi = 40;  // P(N > z) = erfc(z / sqrt 2) / 2 decreases in z
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(mid / std::sqrt(2.0)) > p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

bool BaselineResolves(Metric m, const Spread& base, double tol) { return Resolves(IsRelative(m), base, tol); }

bool IsRelative(Metric m) { return m == Metric::kCompSlowdown || m == Metric::kMpiImpact; }

double ToleranceOf(Metric m, const CompareOptions& o) {
  return IsRelative(m) ? o.tolerance_relative : o.tolerance_absolute;
}

RatioDecision DecideRatio(Metric m, const RatioSamples& base, const RatioSamples& now,
                          const CompareOptions& o) {
  return DecideShifted(IsRelative(m), ToleranceOf(m, o), base, now, o.alpha);
}

RatioDecision DecideSpeed(const SpeedSamples& base, const SpeedSamples& now, const CompareOptions& o) {
  RatioDecision d = DecideShifted(true, o.tolerance_speed, base.cost, now.cost, o.alpha);
  d.difference = 1 / (1 + d.difference) - 1;  // cost up by x: speed times 1 / (1 + x)
  return d;
}

SpeedSamples SpeedFromTimes(double bytes_per_rank, const std::vector<double>& seconds) {
  SpeedSamples s;
  s.missing.clear();
  if (!(bytes_per_rank >= 0)) {
    s.missing = "no bytes_per_rank in its samples";
    return s;
  }
  s.summary = SpeedOf(bytes_per_rank, seconds);
  std::vector<double> cost;
  cost.reserve(seconds.size());
  for (double t : seconds) cost.push_back(bytes_per_rank > 0 ? t / bytes_per_rank : t);
  s.cost = FromValues(cost);
  if (!s.cost.missing.empty()) s.missing = "no finite communication-alone times";
  return s;
}

std::string TestKey::Name() const {
  return implementation + "." + case_name + ".n" + std::to_string(nodes) + "." + deployment;
}

bool TestKey::operator<(const TestKey& o) const {
  return std::tie(implementation, case_name, collective, nodes, deployment) <
         std::tie(o.implementation, o.case_name, o.collective, o.nodes, o.deployment);
}

bool TestKey::operator==(const TestKey& o) const { return !(*this < o) && !(o < *this); }

std::string PointName(double comm_target, double comp_target) {
  return (std::isnan(comm_target) ? std::string("*") : FormatDuration(comm_target)) + " x " +
         FormatDuration(comp_target);
}

bool SameChangePlace(const Change& a, const Change& b) {
  auto same = [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; };
  return a.test == b.test && a.speed == b.speed && (a.speed || a.metric == b.metric) &&
         same(a.comm_target, b.comm_target) && same(a.comp_target, b.comp_target);
}

SecondLook LookAgain(const Change& first, const Comparison* second) {
  if (second == nullptr) return SecondLook::kUndecided;
  if (std::any_of(second->regressions.begin(), second->regressions.end(),
                  [&](const Change& c) { return SameChangePlace(c, first); }))
    return SecondLook::kConfirmed;
  const std::string test = first.test.Name();
  const std::string point = PointName(first.comm_target, first.comp_target);
  const std::string place = point + " " + (first.speed ? "collective speed" : MetricName(first.metric));
  const bool not_compared =
      std::any_of(second->unmatched.begin(), second->unmatched.end(), [&](const Unmatched& u) {
        return u.test == test && (u.where.empty() || u.where == point || u.where == place ||
                                  (!first.speed && u.where == point + " " + kOverlapRatiosPlace));
      });
  return not_compared ? SecondLook::kUndecided : SecondLook::kNotConfirmed;
}

std::optional<TestResults> ParseTestResults(const json& j, const std::string& source, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = source + ": " + why;
    return std::nullopt;
  };
  if (!j.is_object()) return fail("not a JSON object");
  if (Str(j, "schema") != "nbcguard-results/1")
    return fail("schema is " + SingleQuoted(Str(j, "schema")) + ", expected 'nbcguard-results/1'");
  if (Str(j, "kind") == "partitioned")
    return fail("partitioned results (kind: partitioned) have no overlap ratios to compare");
  const json& c = j.value("case", json::object());
  TestResults t;
  t.source = source;
  t.key.implementation = Str(j, "implementation_label");
  t.key.case_name = Str(c, "name");
  t.key.collective = Str(c, "collective");
  t.key.deployment = Str(c, "deployment");
  t.key.nodes = c.value("nodes", 0);
  if (t.key.case_name.empty() || t.key.deployment.empty() || t.key.nodes <= 0)
    return fail("case name, deployment or nodes missing");
  const json& env = j.value("environment", json::object());
  t.library_version = FirstLine(Str(env, "library_version"));
  t.reference = j.value("reference", json());
  t.deployment_environment = j.value("deployment_environment", json::object());

  // Pointers into j itself (not into a copy that value() would return).
  std::map<PointId, const json*> samples;
  if (j.contains("samples") && j["samples"].is_array())
    for (const json& s : j["samples"]) samples[{Ns(Num(s, "comm_target")), Ns(Num(s, "comp_target"))}] = &s;
  for (const json& jp : j.value("points", json::array())) {
    PointSamples p;
    p.comm_target = Num(jp, "comm_target");
    p.comp_target = Num(jp, "comp_target");
    if (!std::isfinite(p.comm_target) || !std::isfinite(p.comp_target))
      return fail("a point without targets");
    p.valid = jp.value("valid", false);
    p.invalid_reason = Str(jp, "invalid_reason");
    p.diagnosis = Str(jp, "diagnosis");
    if (p.valid && jp.contains("imbalance") && jp["imbalance"].is_object() &&
        jp["imbalance"].value("flagged", false)) {
      // The overlap ratios there hold slack from unequal computing, not the
      // library's behaviour alone: a change in them is not the library's.
      p.ratios_refused = "rank imbalance: rank " + std::to_string(jp["imbalance"].value("slowest_rank", -1)) +
                         " computed " + plot::FormatRatio(Num(jp["imbalance"], "ref_ratio")) +
                         "x as long as rank " + std::to_string(jp["imbalance"].value("fastest_rank", -1));
      PointResult flagged;
      flagged.imbalance.flagged = true;
      flagged.imbalance.effect = Num(jp["imbalance"], "effect");
      flagged.imbalance.ref_slack = Num(jp["imbalance"], "ref_slack");
      flagged.t_comm_ref = Num(jp, "t_comm_ref");
      for (Metric m : {Metric::kOverhead, Metric::kComm})
        if (const double h = HiddenByImbalance(flagged, m); std::isfinite(h) && h >= 0)
          p.hidden_by_imbalance[m] = h;
    }
    const auto s = samples.find({Ns(p.comm_target), Ns(p.comp_target)});
    if (p.valid && s == samples.end()) {
      p.valid = false;
      p.invalid_reason = "no per-repetition samples in results.json";
    }
    if (p.valid) RatiosFromSamples(*s->second, &p);
    t.points.push_back(std::move(p));
  }
  for (const json& row : j.value("mpi_impact", json::array())) {
    const double comp = Num(row, "comp_target");
    if (!std::isfinite(comp)) continue;
    RatioSamples r = FromValues(row.value("round_ratios", std::vector<double>{}));
    if (!Str(row, "error").empty()) r.missing = Str(row, "error");
    t.mpi_impact[comp] = r;
  }
  return t;
}

Comparison Compare(const std::vector<TestResults>& base, const std::vector<TestResults>& now,
                   const CompareOptions& o) {
  Comparison out;
  std::map<TestKey, std::vector<const TestResults*>> b, n;
  for (const TestResults& t : base) b[t.key].push_back(&t);
  for (const TestResults& t : now) n[t.key].push_back(&t);
  std::set<TestKey> keys;
  for (const auto& [k, v] : b) keys.insert(k);
  for (const auto& [k, v] : n) keys.insert(k);
  for (const TestKey& k : keys) {
    const auto bi = b.find(k), ni = n.find(k);
    if (bi == b.end()) {
      out.unmatched.push_back(
          {k.Name(), "", "only in the new run (new test): " + ni->second.front()->source});
      continue;
    }
    if (ni == n.end()) {
      out.unmatched.push_back(
          {k.Name(), "", "only in the baseline (removed or not run): " + bi->second.front()->source});
      continue;
    }
    // Two results for one test in a run: which one is "the" run is a guess.
    auto ambiguous = [&](const std::vector<const TestResults*>& v, const char* run) {
      if (v.size() < 2) return false;
      std::string files;
      for (const TestResults* t : v) files += (files.empty() ? "" : ", ") + t->source;
      out.unmatched.push_back({k.Name(), "",
                               std::string("not comparable: ") + std::to_string(v.size()) +
                                   " results for this test in the " + run + " (" + files + ")"});
      return true;
    };
    if (ambiguous(bi->second, "baseline") || ambiguous(ni->second, "new run")) continue;
    const TestResults& tb = *bi->second.front();
    const TestResults& tn = *ni->second.front();
    if (tb.library_version != tn.library_version) {
      out.unmatched.push_back({k.Name(), "",
                               "not comparable: library version changed (" +
                                   SingleQuoted(tb.library_version) + " -> " +
                                   SingleQuoted(tn.library_version) + ")"});
      continue;
    }
    // A reference behaviour replaces the library's progression: its ratios
    // say nothing about the library, and two behaviours differ by design.
    if (tb.reference != tn.reference && !o.ignore_reference) {
      out.unmatched.push_back({k.Name(), "",
                               "not comparable: reference behaviour changed (" + Describe(tb.reference) +
                                   " -> " + Describe(tn.reference) + ")"});
      continue;
    }
    CompareTest(tb, tn, o, &out);
  }
  return out;
}

}  // namespace nbcguard
