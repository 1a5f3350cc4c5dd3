// The results history's rows and its check (nbcguard/history.h).
#include "nbcguard/history.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "nbcguard/metrics.h"
#include "nbcguard/plot_model.h"
#include "nbcguard/stats.h"

namespace nbcguard {
namespace {

std::string ReferenceName(const nlohmann::json& reference) {
  if (!reference.is_object()) return "";
  const auto it = reference.find("behaviour");
  return it != reference.end() && it->is_string() ? it->get<std::string>() : reference.dump();
}

HistoryObservation Row(const TestResults& t, const std::string& point, double comm, double comp, Metric m) {
  HistoryObservation o;
  o.test = t.key.Name();
  o.point = point;
  if (std::isfinite(comm)) o.comm_target = comm;
  o.comp_target = comp;
  o.ratio = MetricName(m);
  o.reference = ReferenceName(t.reference);
  return o;
}

void Fill(const RatioSamples& r, HistoryObservation* o) {
  if (!r.missing.empty() || r.summary.n == 0 || !std::isfinite(r.summary.median)) {
    o->valid = false;
    if (o->reason.empty()) o->reason = r.missing.empty() ? "no value" : r.missing;
    return;
  }
  o->valid = true;
  o->median = r.summary.median;
  if (std::isfinite(r.summary.lo)) o->lo = r.summary.lo;
  if (std::isfinite(r.summary.hi)) o->hi = r.summary.hi;
  o->samples = r.summary.n;
}

bool Relative(const std::string& ratio) { return ratio == "r_comp_slowdown" || ratio == "r_mpi_impact"; }

std::string Signed(double v, bool percent) {
  char buf[64];
  if (percent) std::snprintf(buf, sizeof buf, "%+.0f %%", 100 * v);
  else std::snprintf(buf, sizeof buf, "%+.2f", v);
  return buf;
}

std::string P(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", p);
  return buf;
}

// The most frequent non-empty string (ties: the latest).
std::string Mode(const std::vector<std::string>& v) {
  std::map<std::string, int> count;
  std::string best;
  int most = 0;
  for (const std::string& s : v) {
    if (s.empty()) continue;
    if (++count[s] >= most) most = count[s], best = s;
  }
  return best;
}

// The nights the check reads: the newest o.max_nights of a series.
std::vector<SeriesNight> NewestNights(const std::vector<SeriesNight>& full, const HistoryCheckOptions& o) {
  const std::size_t skip = full.size() > static_cast<std::size_t>(o.max_nights)
                               ? full.size() - static_cast<std::size_t>(o.max_nights)
                               : 0;
  return {full.begin() + static_cast<long>(skip), full.end()};
}

// Whether a night's value repeats the last one analysed bit for bit: a
// reused measurement (r_mpi_impact, kept for NBCGUARD_IMPACT_REUSE seconds
// and reused by runs minutes apart), not a new night of evidence. Counted
// once, a level one measurement held is not a steady level, and a spread
// of zero between its copies is not the between-run spread.
bool RepeatsLast(const std::string& ratio, const std::optional<double>& last, double value) {
  return ratio == "r_mpi_impact" && last && *last == value;
}

// What a finding's line adds for nights on its new level known only from
// below.
std::string LowerBounds(int floors) {
  if (floors <= 0) return "";
  return " (" + std::to_string(floors) + (floors == 1 ? " of them a lower bound" : " of them lower bounds") +
         ": ranks computing at unequal speeds, whose slack can only lower the ratio)";
}

// "revision R" when the run was given one, else its library version.
std::string RevisionOf(const HistoryRun& run) {
  return run.library_revision.empty() ? run.library_version : "revision " + run.library_revision;
}

}  // namespace

namespace {

// A point whose figures the first job could not keep as values.
bool Refused(const PointSamples& p) { return !p.valid || !p.ratios_refused.empty(); }

bool SamePoint(const PointSamples& a, const PointSamples& b) {
  const auto near = [](double x, double y) {
    return std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y));
  };
  return near(a.comm_target, b.comm_target) && near(a.comp_target, b.comp_target);
}

// The rows of one point of test t, as measured by job `job`.
void PointRows(const TestResults& t, const PointSamples& p, int job, std::vector<HistoryObservation>* rows) {
  const std::string point = PointName(p.comm_target, p.comp_target);
  for (Metric m : {Metric::kOverhead, Metric::kComm, Metric::kCompSlowdown}) {
    HistoryObservation o = Row(t, point, p.comm_target, p.comp_target, m);
    o.diagnosis = p.diagnosis;
    o.job = job;
    if (!p.valid) {
      o.reason = p.invalid_reason.empty() ? "invalid" : p.invalid_reason;
    } else if (!p.ratios_refused.empty()) {  // the ratios are not the library's alone
      o.reason = p.ratios_refused;
      // The ranks' unequal computing can only have lowered r_overhead and
      // r_comm (docs/method.md, "Rank imbalance"): their figures are kept
      // as lower bounds, never as values.
      const auto r = p.ratios.find(m);
      if ((m == Metric::kOverhead || m == Metric::kComm) && r != p.ratios.end()) {
        Fill(r->second, &o);
        if (o.valid) {
          o.bound = "lower";
          if (const auto h = p.hidden_by_imbalance.find(m); h != p.hidden_by_imbalance.end())
            o.hidden = h->second;
        }
        o.valid = false;
      }
    } else {
      const auto r = p.ratios.find(m);
      if (r == p.ratios.end()) o.reason = "not measured";
      else Fill(r->second, &o);
    }
    rows->push_back(std::move(o));
  }
}

void ImpactRows(const TestResults& t, std::vector<HistoryObservation>* rows) {
  for (const auto& [comp, r] : t.mpi_impact) {
    HistoryObservation o =
        Row(t, PointName(std::numeric_limits<double>::quiet_NaN(), comp), NAN, comp, Metric::kMpiImpact);
    Fill(r, &o);
    rows->push_back(std::move(o));
  }
}

}  // namespace

std::vector<HistoryObservation> ObservationsOf(const TestResults& t) { return ObservationsOf(t, {}); }

std::vector<HistoryObservation> ObservationsOf(const TestResults& first,
                                               const std::vector<TestResults>& later) {
  std::vector<HistoryObservation> rows;
  for (const PointSamples& p : first.points) {
    const PointSamples* taken = &p;
    int job = 1;
    for (std::size_t k = 0; Refused(p) && job == 1 && k < later.size(); ++k)
      for (const PointSamples& q : later[k].points)
        if (SamePoint(p, q) && !Refused(q)) {
          taken = &q;
          job = static_cast<int>(k) + 2;
          break;
        }
    PointRows(first, *taken, job, &rows);
  }
  ImpactRows(first, &rows);
  return rows;
}

const char* HistoryKindName(HistoryKind k) {
  switch (k) {
    case HistoryKind::kRegression:
      return "REGRESSION";
    case HistoryKind::kImprovement:
      return "IMPROVEMENT";
    case HistoryKind::kPending:
      return "PENDING";
    case HistoryKind::kOutlier:
      return "OUTLIER";
    case HistoryKind::kBimodal:
      return "BIMODAL";
    case HistoryKind::kDrift:
      return "DRIFT";
  }
  return "?";
}

std::string HistoryFinding::Line() const {
  const bool rel = Relative(ratio);
  const auto level = [&](double v) { return plot::FormatRatio(v); };
  const auto change = [&](double v) { return Signed(v, rel); };
  std::string s = std::string(HistoryKindName(kind)) + " " + test + " " + point + " " + ratio;
  if (!system_name.empty()) s += " [" + system_name + "]";
  s += ": ";
  switch (kind) {
    case HistoryKind::kRegression:
    case HistoryKind::kImprovement:
    case HistoryKind::kPending:
      s += level(before) + " -> " + level(after) + " (" + change(size) + " [" + change(lo) + ", " +
           change(hi) + "]) from " + night + " (" + revision + ")";
      if (kind == HistoryKind::kPending) {
        s += "; " + std::to_string(n_after) + " night(s) on the new level" + LowerBounds(floors) + ", " +
             (size > 0 ? "a regression" : "an improvement") + " at " +
             std::to_string(std::max(needed, n_after + 1));
        if (excursions > 0)
          s += " (the old level had reached it on " + std::to_string(excursions) +
               " earlier night(s) and came back)";
      } else
        s += ", p = " + P(p) + "; " + std::to_string(n_before) + " nights before, " +
             std::to_string(n_after) + " after" + LowerBounds(floors);
      if (diagnosis_before != diagnosis_after && !diagnosis_after.empty())
        s += "; diagnosis " + (diagnosis_before.empty() ? "-" : diagnosis_before) + " -> " + diagnosis_after;
      else if (!diagnosis_after.empty()) s += "; diagnosis " + diagnosis_after;
      if (reference_before != reference_after)
        s += "; reference behaviour " + (reference_before.empty() ? "none" : reference_before) + " -> " +
             (reference_after.empty() ? "none" : reference_after);
      if (known) s += "; known: began before the newest nights checked";
      break;
    case HistoryKind::kOutlier:
      s += "night " + night + " (" + revision + ") read " + level(after) + " against " + level(before) +
           " on the nights around it; not a change";
      break;
    case HistoryKind::kBimodal:
      s += "two levels, " + level(before) + " (" + std::to_string(n_before) + " nights) and " + level(after) +
           " (" + std::to_string(n_after) + " nights), " + std::to_string(switches) +
           " switches between them: a library or machine with two modes, not judged night by night";
      break;
    case HistoryKind::kDrift:
      s += change(size) + " per night, " + change(total) + " over " + std::to_string(n_after) +
           " nights (a line fits better than any step; no night to blame, not failed)";
      break;
  }
  if (!shared_with.empty()) {
    s += "; the same measurement as";
    for (std::size_t i = 0; i < shared_with.size(); ++i) s += (i == 0 ? " " : ", ") + shared_with[i];
  }
  return s;
}

bool HistoryReport::Fails() const {
  return std::any_of(findings.begin(), findings.end(), [](const HistoryFinding& f) { return f.fails; });
}

std::string HistoryReport::Summary() const {
  std::map<HistoryKind, int> n;
  int failing = 0, known = 0;
  for (const HistoryFinding& f : findings) {
    ++n[f.kind];
    failing += f.fails ? 1 : 0;
    known += f.known ? 1 : 0;
  }
  std::string s =
      std::string("history: ") + (Fails() ? "FAIL: " : "PASS: ") + std::to_string(failing) +
      " new regression(s), " + std::to_string(known) + " known, " +
      std::to_string(n[HistoryKind::kImprovement]) + " improvement(s), " +
      std::to_string(n[HistoryKind::kPending]) + " pending, " + std::to_string(n[HistoryKind::kOutlier]) +
      " outlier night(s), " + std::to_string(n[HistoryKind::kBimodal]) + " bimodal, " +
      std::to_string(n[HistoryKind::kDrift]) + " drift; " + std::to_string(series) + " series (" +
      std::to_string(decided) + " decided, " + std::to_string(undecided.size()) +
      " with too few valid nights" +
      (shared > 0 ? ", " + std::to_string(shared) + " judged with the test that shares them" : "") +
      ") over " + std::to_string(runs) + " run(s); " + std::to_string(refused_nights) +
      " refused night(s) not analysed" +
      (bounded_nights > 0 ? " as values (" + std::to_string(bounded_nights) + " kept as lower bounds)" : "") +
      (repeated_nights > 0 ? ", " + std::to_string(repeated_nights) +
                                 " night(s) repeating an earlier r_mpi_impact measurement"
                           : "");
  return s;
}

namespace {

// Series that are one measurement: r_mpi_impact is measured once per
// computation target and reused by the other tests of the same library and
// deployment within minutes (results.json mpi_impact_source), so their
// series hold the same values night after night. Judged as many series,
// one machine phase would read as that many regressions. Two series are
// one when they are the same ratio at the same point of the same system
// and every night is alike: the same runs, valid on the same nights, with
// bit-identical medians (independent measurements never are). Returns, per
// series, the index of the first series it repeats (itself when none).
std::vector<std::size_t> SameMeasurement(const std::vector<std::vector<SeriesNight>>& all) {
  std::vector<std::size_t> of(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    of[i] = i;
    const std::vector<SeriesNight>& a = all[i];
    if (a.empty() || a.front().obs.ratio != "r_mpi_impact") continue;
    for (std::size_t j = 0; j < i; ++j) {
      const std::vector<SeriesNight>& b = all[j];
      if (of[j] != j || b.size() != a.size() || b.front().obs.ratio != a.front().obs.ratio ||
          b.front().obs.point != a.front().obs.point ||
          b.front().run.system_name != a.front().run.system_name || b.front().obs.test == a.front().obs.test)
        continue;
      bool same = false;  // at least one valid night in common, and no night differs
      bool differ = false;
      for (std::size_t k = 0; k < a.size() && !differ; ++k) {
        const HistoryObservation &x = a[k].obs, &y = b[k].obs;
        differ = a[k].run.run_id != b[k].run.run_id || x.valid != y.valid || x.median != y.median;
        same = same || (x.valid && x.median);
      }
      if (same && !differ) {
        of[i] = j;
        break;
      }
    }
  }
  return of;
}

}  // namespace

HistoryReport CheckHistory(const std::vector<std::vector<SeriesNight>>& all, int runs,
                           const HistoryCheckOptions& o) {
  HistoryReport report;
  report.runs = runs;
  const std::vector<std::size_t> same = SameMeasurement(all);
  for (std::size_t index = 0; index < all.size(); ++index) {
    const std::vector<SeriesNight>& full = all[index];
    if (full.empty()) continue;
    ++report.series;
    if (same[index] != index) {
      ++report.shared;
      continue;
    }
    std::vector<std::string> shared_with;
    for (std::size_t j = index + 1; j < all.size(); ++j)
      if (same[j] == index) shared_with.push_back(all[j].front().obs.test);
    const std::vector<SeriesNight> nights = NewestNights(full, o);
    const SeriesNight& id = nights.back();
    const bool rel = Relative(id.obs.ratio);
    std::vector<double> z;
    std::vector<std::size_t> at;  // z[k] is nights[at[k]]
    std::vector<Floor> floors;
    std::vector<std::size_t> floor_at;  // floors[k] is nights[floor_at[k]]
    for (std::size_t i = 0; i < nights.size(); ++i) {
      const auto& m = nights[i].obs.median;
      if (!nights[i].obs.valid || !m || !std::isfinite(*m) || (rel && *m <= 0)) {
        ++report.refused_nights;
        if (!nights[i].obs.valid && nights[i].obs.bound == "lower" && m && std::isfinite(*m) && !rel) {
          ++report.bounded_nights;
          const double hidden = nights[i].obs.hidden.value_or(0);
          floors.push_back({static_cast<int>(z.size()), *m, *m + (std::isfinite(hidden) ? hidden : 0)});
          floor_at.push_back(i);
        }
        continue;
      }
      if (RepeatsLast(id.obs.ratio, at.empty() ? std::nullopt : nights[at.back()].obs.median, *m)) {
        ++report.repeated_nights;
        continue;
      }
      z.push_back(rel ? std::log(*m) : *m);
      at.push_back(i);
    }
    ChangePointOptions d = o.detect;
    d.min_effect = rel ? std::log1p(o.min_effect_relative) : o.min_effect_absolute;
    const SeriesAnalysis a = AnalyzeSeries(z, d, floors);
    const std::string name = id.obs.test + " " + id.obs.point + " " + id.obs.ratio;
    if (!a.undecided.empty()) {
      report.undecided.push_back(name + ": " + a.undecided);
      continue;
    }
    ++report.decided;
    const auto back = [&](double v) { return rel ? std::exp(v) : v; };
    const auto diff = [&](double v) { return rel ? std::expm1(v) : v; };
    const auto base = [&](HistoryKind kind, std::size_t night_index) {  // an index into nights
      HistoryFinding f;
      f.kind = kind;
      f.system_name = id.run.system_name;
      f.test = id.obs.test;
      f.point = id.obs.point;
      f.ratio = id.obs.ratio;
      f.shared_with = shared_with;
      const SeriesNight& n = nights[night_index];
      f.night = n.run.run_date;
      f.run_id = n.run.run_id;
      f.revision = RevisionOf(n.run);
      return f;
    };
    // A shift's first night on its new level (an index into nights): a
    // valid one, or a lower bound before it.
    const auto first_night = [&](const Shift& s) {
      return s.first_floor >= 0 ? floor_at[static_cast<std::size_t>(s.first_floor)]
                                : at[static_cast<std::size_t>(s.at)];
    };
    const auto shift = [&](HistoryKind kind, const Shift& s) {
      const std::size_t first = first_night(s);
      HistoryFinding f = base(kind, first);
      f.before = back(s.before);
      f.after = back(s.after);
      f.size = diff(s.size);
      f.lo = diff(s.lo);
      f.hi = diff(s.hi);
      f.p = s.p;
      f.n_before = s.n_before;
      f.n_after = s.n_after;
      f.needed = s.needed;
      f.excursions = s.excursions;
      f.floors = s.floors;
      std::vector<std::string> db, da;
      for (std::size_t j : at) (j < first ? db : da).push_back(nights[j].obs.diagnosis);
      if (da.empty())  // only lower bounds on the new level: their nights' diagnosis
        for (std::size_t j : floor_at)
          if (j >= first) da.push_back(nights[j].obs.diagnosis);
      f.diagnosis_before = Mode(db);
      f.diagnosis_after = Mode(da);
      const auto last_before = std::find_if(at.rbegin(), at.rend(), [&](std::size_t j) { return j < first; });
      f.reference_before =
          last_before != at.rend() ? nights[*last_before].obs.reference : nights[first].obs.reference;
      f.reference_after = nights[first].obs.reference;
      return f;
    };
    for (const Shift& s : a.shifts) {
      HistoryFinding f = shift(s.size > 0 ? HistoryKind::kRegression : HistoryKind::kImprovement, s);
      if (f.kind == HistoryKind::kRegression) {
        const std::size_t from_end = nights.size() - 1 - first_night(s);
        f.fails = from_end < static_cast<std::size_t>(o.recent);
        f.known = !f.fails;
      }
      report.findings.push_back(f);
    }
    if (a.pending) report.findings.push_back(shift(HistoryKind::kPending, *a.pending));
    for (int i : a.outliers) {
      HistoryFinding f = base(HistoryKind::kOutlier, at[static_cast<std::size_t>(i)]);
      std::vector<double> around;
      for (int j = std::max(0, i - 3); j <= std::min(static_cast<int>(z.size()) - 1, i + 3); ++j)
        if (j != i) around.push_back(z[static_cast<std::size_t>(j)]);
      f.before = back(Median(around));
      f.after = back(z[static_cast<std::size_t>(i)]);
      report.findings.push_back(f);
    }
    if (a.bimodal) {
      HistoryFinding f = base(HistoryKind::kBimodal, at.back());
      f.before = back(a.low_mode);
      f.after = back(a.high_mode);
      f.n_before = a.low_count;
      f.n_after = a.high_count;
      f.switches = a.switches;
      report.findings.push_back(f);
    }
    if (a.drift) {
      HistoryFinding f = base(HistoryKind::kDrift, at.back());
      f.size = diff(a.slope);
      f.total = diff(a.total);
      f.n_after = a.nights;
      report.findings.push_back(f);
    }
  }
  return report;
}

std::map<std::string, BetweenRunSpread> BetweenRunSpreads(const std::vector<std::vector<SeriesNight>>& series,
                                                          const HistoryCheckOptions& o) {
  std::map<std::string, BetweenRunSpread> out;
  for (const std::vector<SeriesNight>& nights : series) {
    if (nights.empty()) continue;
    const HistoryObservation& first = nights.front().obs;
    const bool relative = Relative(first.ratio);
    std::vector<double> values;
    std::optional<double> last;
    for (const SeriesNight& n : nights)
      if (n.obs.valid && n.obs.median && (!relative || *n.obs.median > 0) &&
          !RepeatsLast(first.ratio, last, *n.obs.median)) {
        values.push_back(relative ? std::log(*n.obs.median) : *n.obs.median);
        last = n.obs.median;
      }
    if (values.size() > static_cast<std::size_t>(o.max_nights))
      values.erase(values.begin(), values.end() - o.max_nights);
    if (values.size() < 3) continue;
    std::vector<double> steps;
    for (std::size_t i = 1; i < values.size(); ++i) steps.push_back(std::fabs(values[i] - values[i - 1]));
    const BetweenRunSpread spread{1.4826 * Median(steps) / std::sqrt(2.0), static_cast<int>(values.size())};
    BetweenRunSpread& slot = out[SeriesKey(first.test, first.point, first.ratio)];
    if (spread.nights > slot.nights) slot = spread;
  }
  return out;
}

std::vector<TrendSeries> Trends(const std::vector<std::vector<SeriesNight>>& series,
                                const HistoryCheckOptions& o) {
  std::vector<TrendSeries> out;
  for (const std::vector<SeriesNight>& full : series) {
    if (full.empty()) continue;
    const std::vector<SeriesNight> nights = NewestNights(full, o);
    TrendSeries t;
    const HistoryObservation& id = nights.back().obs;
    t.system_name = nights.back().run.system_name;
    t.test = id.test;
    t.point = id.point;
    t.ratio = id.ratio;
    for (const SeriesNight& n : nights) {
      TrendNight tn;
      tn.date = n.run.run_date;
      tn.revision = RevisionOf(n.run);
      if (n.obs.valid && n.obs.median && std::isfinite(*n.obs.median)) {
        tn.median = n.obs.median;
        tn.lo = n.obs.lo;
        tn.hi = n.obs.hi;
      }
      t.nights.push_back(tn);
    }
    const HistoryReport r = CheckHistory({nights}, 0, o);
    if (!r.undecided.empty()) t.undecided = r.undecided.front();
    t.findings = r.findings;
    const auto index_of = [&](const std::string& run_id) {
      for (std::size_t i = 0; i < nights.size(); ++i)
        if (nights[i].run.run_id == run_id) return static_cast<int>(i);
      return -1;
    };
    for (const HistoryFinding& f : r.findings) {
      const int i = index_of(f.run_id);
      if (i < 0) continue;
      if (f.kind == HistoryKind::kOutlier) t.nights[static_cast<std::size_t>(i)].outlier = true;
      if (f.kind == HistoryKind::kRegression || f.kind == HistoryKind::kImprovement ||
          f.kind == HistoryKind::kPending)
        t.changes.push_back(i);
    }
    std::sort(t.changes.begin(), t.changes.end());
    t.changes.erase(std::unique(t.changes.begin(), t.changes.end()), t.changes.end());
    if (t.undecided.empty()) {
      const auto spreads = BetweenRunSpreads({nights}, o);
      const double sd = spreads.empty() ? 0 : spreads.begin()->second.sigma;
      const bool rel = Relative(t.ratio);
      std::vector<int> bounds = {0};
      bounds.insert(bounds.end(), t.changes.begin(), t.changes.end());
      bounds.push_back(static_cast<int>(t.nights.size()));
      for (std::size_t b = 0; b + 1 < bounds.size(); ++b) {
        std::vector<double> values;
        for (int i = bounds[b]; i < bounds[b + 1]; ++i) {
          const TrendNight& n = t.nights[static_cast<std::size_t>(i)];
          if (n.median && !n.outlier) values.push_back(*n.median);
        }
        if (values.empty() || bounds[b] >= bounds[b + 1]) continue;
        TrendLevel l;
        l.first = bounds[b];
        l.last = bounds[b + 1] - 1;
        l.level = Median(values);
        l.band_lo = rel ? l.level * std::exp(-3 * sd) : l.level - 3 * sd;
        l.band_hi = rel ? l.level * std::exp(3 * sd) : l.level + 3 * sd;
        t.levels.push_back(l);
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace nbcguard
