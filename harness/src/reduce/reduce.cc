// Reduce: the run's records to per-point times and ratios. One step per
// section of results.json (conformance, calibration, r_mpi_impact, CPU
// overhead), then each grid point: its references, its overlap samples,
// their medians and ratios (Denis et al., CCPE 2022, section 4.1).
#include "nbcguard/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "nbcguard/binding.h"
#include "nbcguard/diagnosis.h"
#include "nbcguard/metrics.h"
#include "nbcguard/peer_overlap.h"
#include "nbcguard/raw_records.h"
#include "nbcguard/stats.h"
#include "nbcguard/units.h"
#include "nbcguard/validity.h"
#include "reduce_steps.h"

namespace nbcguard {

using json = nlohmann::json;

std::map<double, std::vector<double>> ImpactRatiosPerRound(const std::vector<const json*>& passive,
                                                           const NoMpiTimes& no_mpi, int ranks) {
  std::map<double, std::vector<double>> out;
  for (const json* rec : passive) {
    if (rec->value("late", false)) continue;
    auto sz = no_mpi.find((*rec)["n"].get<int>());
    if (sz == no_mpi.end()) continue;
    auto rd = sz->second.find(rec->value("round", 0));
    if (rd == sz->second.end() || rd->second.empty()) continue;
    const std::vector<double> with = SlowestPerRep((*rec)["times"].get<std::vector<double>>(), ranks);
    const double r = MpiImpactRatio(Median(with), Median(rd->second));
    if (std::isfinite(r)) out[(*rec)["comp_target"].get<double>()].push_back(r);
  }
  return out;
}

TimingQuality TimingQualityOf(const json& clock, const json& barrier) {
  TimingQuality q;
  auto number = [](const json& j, const char* key) {
    return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : kReduceNaN;
  };
  q.clock_error = 0;
  for (const json& r : clock) {
    if (number(r, "rank") == 0) continue;  // rank 0's clock is the global one
    const double depth = std::isfinite(number(r, "depth")) ? number(r, "depth") : 1;
    const double e = number(r, "residual_rms_s") + depth * number(r, "min_rtt_s") / 2;
    q.clock_error = std::isfinite(e) ? std::max(q.clock_error, e) : q.clock_error;
  }
  q.barrier_skew = barrier.is_object() && barrier.contains("synchronized")
                       ? number(barrier["synchronized"], "median")
                       : kReduceNaN;
  return q;
}

double UnhiddenMpiTime(const std::vector<std::vector<double>>& s) {
  double last_compute_end = -std::numeric_limits<double>::infinity();
  for (const auto& q : s) last_compute_end = std::max(last_compute_end, q[2]);
  double worst = 0;
  for (const auto& q : s) {
    const double mpi = (q[1] - q[0]) + (q[3] - q[2]);
    worst = std::max(worst, mpi - (last_compute_end - q[2]));
  }
  return worst;
}

SentinelTally SentinelTallyOf(const json& rec) {
  const auto it = rec.find("sentinel");
  if (it == rec.end() || !it->is_object()) return {};
  std::vector<std::vector<double>> readings;
  for (const json& row : it->value("readings", json::array())) {
    std::vector<double> values;
    for (const json& v : row) values.push_back(v.is_number() ? v.get<double>() : -1.0);
    readings.push_back(std::move(values));
  }
  SentinelTally t = TallySentinel(it->value("redone_slow_probe", 0), it->value("redone_foreign_wait", 0),
                                  it->value("wanted", 0), readings);
  t.kept = it->value("kept", t.kept);
  return t;
}

namespace {

// The largest per-rank duration between two stamps.
double MaxDuration(const std::vector<std::vector<double>>& ranks, int a, int b) {
  double worst = 0;
  for (const auto& s : ranks) worst = std::max(worst, s[b] - s[a]);
  return worst;
}

// The ranks whose value clearly exceeds the median of the other ranks' (by
// more than 10 % of the collective's time `span` and 20 us), with the excess.
std::vector<std::pair<int, double>> LateOnes(const std::vector<double>& values, double span) {
  std::vector<std::pair<int, double>> late;
  for (std::size_t r = 0; r < values.size(); ++r) {
    std::vector<double> others;
    for (std::size_t q = 0; q < values.size(); ++q)
      if (q != r) others.push_back(values[q]);
    const double extra = values[r] - Median(others);
    if (extra > std::max(0.1 * span, 20e-6)) late.push_back({static_cast<int>(r), extra});
  }
  return late;
}

// Per-rank medians over communication-alone samples, relative to each
// sample's first start; the ranks whose start call took clearly longer than
// the others' (they entered the collective late) and those whose end came
// clearly after the others' (they left it late).
void PerRankTiming(const GlobalSamples& samples, PointResult* p) {
  if (samples.empty()) return;
  const std::size_t ranks = samples.front().size();
  std::vector<std::vector<double>> start(ranks), call(ranks), end(ranks);
  for (const auto& s : samples) {
    if (s.size() != ranks) continue;
    double first = std::numeric_limits<double>::infinity();
    for (const auto& q : s) first = std::min(first, q[0]);
    for (std::size_t r = 0; r < ranks; ++r) {
      start[r].push_back(s[r][0] - first);
      call[r].push_back(s[r][1] - s[r][0]);
      end[r].push_back(s[r][3] - first);
    }
  }
  double span = 0;
  std::vector<double> calls, ends;
  for (std::size_t r = 0; r < ranks; ++r) {
    p->per_rank.push_back({Median(start[r]), Median(call[r]), Median(end[r])});
    span = std::max(span, p->per_rank.back().end);
    calls.push_back(p->per_rank.back().call);
    ends.push_back(p->per_rank.back().end);
  }
  p->late_ranks = LateOnes(calls, span);
  p->late_exits = LateOnes(ends, span);
}

std::string GridKey(double comm, double comp) { return FormatDuration(comm) + "x" + FormatDuration(comp); }

// The last "conformance_failure" record, as the run's conformance error
// ("" when every collective returned the right data).
std::string ConformanceErrorOf(const RawRun& run) {
  std::string error;
  for (const json* rec : RecordsOfType(run, record::kConformanceFailure))
    error = (*rec)["collective"].get<std::string>() + " with count " +
            std::to_string((*rec)["count"].get<std::uint64_t>()) + " (" +
            std::to_string((*rec)["bytes"].get<std::uint64_t>()) +
            " bytes per rank): " + (*rec)["error"].get<std::string>();
  return error;
}

// The calibration outcome per axis: results.json calibration, and per
// target why its column (comm) or row (comp) is invalid ("" when calibrated).
struct Calibration {
  json record = {{"comm", json::array()}, {"comp", json::array()}};
  std::map<double, std::string> comm_invalid, comp_invalid;
};

Calibration CalibrationOf(const RawRun& run, const std::vector<double>& comm_targets,
                          const std::vector<double>& comp_targets) {
  Calibration c;
  // The calibration cache (calibration_cache.h): which file, what it held,
  // and a failure to update it (the run itself is unaffected).
  for (const json* rec : RecordsOfType(run, record::kCalibrationCache)) c.record["cache"] = *rec;
  for (const json* rec : RecordsOfType(run, record::kCalibrationCacheStore)) {
    c.record["cache"]["store_error"] = (*rec)["error"];
  }
  for (double t : comm_targets) c.comm_invalid[t] = "communication size not calibrated (run ended first)";
  for (double t : comp_targets) c.comp_invalid[t] = "computation size not calibrated (run ended first)";
  for (const json* rec : RecordsOfType(run, record::kCommCalibration)) {
    c.record["comm"].push_back(*rec);
    const double t = (*rec)["target"];
    c.comm_invalid[t] = (*rec)["converged"] ? ""
                                            : "communication calibration failed for " + FormatDuration(t) +
                                                  ": " + (*rec)["reason"].get<std::string>();
  }
  for (const json* rec : RecordsOfType(run, record::kCompCalibration)) {
    c.record["comp"].push_back(*rec);
    const double t = (*rec)["target"];
    c.comp_invalid[t] = (*rec)["converged"] ? ""
                                            : "computation calibration failed for " + FormatDuration(t) +
                                                  ": " + (*rec)["reason"].get<std::string>();
  }
  return c;
}

// r_mpi_impact per computation row: same code, same size, same launcher;
// with MPI initialised and idle versus a process that never loaded MPI,
// one ratio per round (see ImpactRatiosPerRound), summarised over rounds.
// results.json mpi_impact, and the summary per comp target.
struct MpiImpact {
  json rows = json::array();
  std::map<double, Spread> per_comp;
};

MpiImpact MpiImpactOf(const RawRun& run, const NoMpiTimes& no_mpi, int ranks) {
  MpiImpact out;
  const std::vector<const json*> passive = RecordsOfType(run, record::kPassive);
  const std::map<double, std::vector<double>> per_round = ImpactRatiosPerRound(passive, no_mpi, ranks);
  std::map<double, json> rows;
  std::map<double, std::vector<double>> with_all, without_all;
  for (const json* rec : passive) {
    const double target = (*rec)["comp_target"];
    const int n = (*rec)["n"];
    json& row = rows[target];
    if (row.is_null()) row = {{"comp_target", target}, {"n", n}};
    if ((*rec).value("late", false))
      row["error"] = "a rank started its paced runs late; runs were not simultaneous";
    std::vector<double> w = SlowestPerRep((*rec)["times"].get<std::vector<double>>(), ranks);
    with_all[target].insert(with_all[target].end(), w.begin(), w.end());
    if (auto sz = no_mpi.find(n); sz != no_mpi.end()) {
      if (auto rd = sz->second.find((*rec).value("round", 0)); rd != sz->second.end())
        without_all[target].insert(without_all[target].end(), rd->second.begin(), rd->second.end());
    }
  }
  for (auto& [target, row] : rows) {
    row["with_mpi_median"] = Median(with_all[target]);
    if (!without_all[target].empty()) row["without_mpi_median"] = Median(without_all[target]);
    auto it = per_round.find(target);
    if (!row.contains("error") && it != per_round.end() && !it->second.empty()) {
      const Spread& s = out.per_comp[target] = Summarize(it->second);
      row["rounds"] = it->second.size();
      row["round_ratios"] = it->second;
      row["r_mpi_impact"] = s.median;
      row["ci"] = {s.lo, s.hi};
    } else if (!row.contains("error")) {
      row["error"] = "no measurement without MPI for this size";
    }
    out.rows.push_back(row);
  }
  return out;
}

// Per overlap sample (Algorithm 1 stamps: t1 start, t2 after the call, t3
// after compute, t4 after wait): the times and the ratios against the
// point's references.
struct OverlapSeries {
  std::vector<double> measured, call, compute, wait, r_over, r_comm, r_slow;
  std::vector<std::vector<double>> rank_compute;  // [rank][sample]: each rank's computation time
  std::vector<double> start_skew;                 // per sample: latest - earliest rank's start
  json rows = json::array();  // [t_measured, t_call, t_comp, t_wait, t_mpi_unhidden] per sample
};

OverlapSeries OverlapOf(const GlobalSamples& samples, const PointResult& p) {
  OverlapSeries o;
  for (const auto& s : samples) {
    const double tm = Span(s, 0, 3);
    const double tcomp = MaxDuration(s, 1, 2);
    // t_call and t_wait are the critical rank's, the one that finished
    // computing last; r_comm takes every rank's (UnhiddenMpiTime).
    std::size_t crit = 0;
    for (std::size_t r = 1; r < s.size(); ++r)
      if (s[r][2] > s[crit][2]) crit = r;
    const double tcall = s[crit][1] - s[crit][0];
    const double twait = s[crit][3] - s[crit][2];
    o.rank_compute.resize(std::max(o.rank_compute.size(), s.size()));
    double first = std::numeric_limits<double>::infinity(), last = -first;
    for (std::size_t r = 0; r < s.size(); ++r) {
      o.rank_compute[r].push_back(s[r][2] - s[r][1]);
      first = std::min(first, s[r][0]);
      last = std::max(last, s[r][0]);
    }
    o.start_skew.push_back(last - first);
    o.measured.push_back(tm);
    o.call.push_back(tcall);
    o.compute.push_back(tcomp);
    o.wait.push_back(twait);
    o.r_over.push_back(OverheadRatio(tm, p.t_comp_ref, p.t_comm_ref));
    const double unhidden = UnhiddenMpiTime(s);
    o.r_comm.push_back(CommRatio(unhidden, 0.0, p.t_comm_ref));
    o.r_slow.push_back(CompSlowdownRatio(tcomp, p.t_comp_ref));
    o.rows.push_back({tm, tcall, tcomp, twait, unhidden});
  }
  return o;
}

std::vector<double> PerRankMedians(const std::vector<std::vector<double>>& per_rank) {
  std::vector<double> out;
  out.reserve(per_rank.size());
  for (const auto& v : per_rank) out.push_back(Median(v));
  return out;
}

// The collective's own speed from the point's communication-alone times and
// its "bytes" (per rank; absent in a record: time alone).
void MeasureSpeed(const json& rec, const std::vector<double>& comm_ref, PointResult* p) {
  const auto bytes = rec.find("bytes");
  p->speed = SpeedOf(bytes != rec.end() && bytes->is_number() ? bytes->get<double>() : 0, comm_ref);
}

void Invalidate(PointResult* p, const std::string& why) {
  p->valid = false;
  p->invalid_reason = why;
}

// A calibrated point's samples (its "point" record): references, per-rank
// timing, medians and ratios; invalid when fewer than 3 samples of a kind
// survived. Adds the point's samples to red->samples.
void MeasurePoint(const json& rec, const std::vector<ClockFit>& clocks, PointResult* p, Reduction* red) {
  // References: this point's own, taken in turn with its overlap samples;
  // medians of measured times, never the targets.
  std::vector<double> comm_ref, comp_ref;
  if (rec.contains("progress_tests") && rec["progress_tests"].is_number())
    p->progress_tests = rec["progress_tests"];
  if (rec.contains("init_s") && rec["init_s"].is_number()) p->init_s = rec["init_s"];
  const GlobalSamples comm_samples = ToGlobal(rec["comm_ref"], clocks);
  for (const auto& s : comm_samples) comm_ref.push_back(Span(s, 0, 3));
  PerRankTiming(comm_samples, p);
  std::vector<std::vector<double>> rank_comp_ref;  // [rank][sample]
  for (const auto& s : ToGlobal(rec["comp_ref"], clocks)) {
    comp_ref.push_back(MaxDuration(s, 0, 3));
    rank_comp_ref.resize(std::max(rank_comp_ref.size(), s.size()));
    for (std::size_t r = 0; r < s.size(); ++r) rank_comp_ref[r].push_back(s[r][3] - s[r][0]);
  }
  red->late_redone += rec["overlap"].value("late_redone", 0);
  p->sentinel = SentinelTallyOf(rec);
  if (comm_ref.size() < 3 || comp_ref.size() < 3 || rec["overlap"].value("local", json::array()).size() < 3) {
    // Too few samples kept because the machine kept disturbing them: a
    // refusal (measured again), not a point that cannot be measured.
    if (const std::string disturbed = SentinelRefusal(p->sentinel); !disturbed.empty()) {
      Invalidate(p, disturbed);
      p->refused = true;
      return;
    }
  }
  if (comm_ref.size() < 3 || comp_ref.size() < 3) return Invalidate(p, "fewer than 3 reference samples");

  p->t_comm_ref = Median(comm_ref);
  MeasureSpeed(rec, comm_ref, p);
  p->t_comp_ref = Median(comp_ref);
  const GlobalSamples overlap_samples = ToGlobal(rec["overlap"], clocks);
  const OverlapSeries o = OverlapOf(overlap_samples, *p);
  if (o.measured.size() < 3) return Invalidate(p, "fewer than 3 samples survived the synchronized barrier");
  p->t_measured = Median(o.measured);
  p->t_call = Median(o.call);
  p->t_comp = Median(o.compute);
  p->t_wait = Median(o.wait);
  p->r_overhead = Summarize(o.r_over);
  p->r_comm = Summarize(o.r_comm);
  p->r_comp_slowdown = Summarize(o.r_slow);
  const PeerOverlap peers = PeerOverlapOf(overlap_samples, comm_samples);
  p->osu_overlap_pct = peers.osu_pct;
  p->imb_overlap_pct = peers.imb_pct;
  p->comp_ref_spread = RelativeIqr(comp_ref);
  p->comm_ref_spread = RelativeIqr(comm_ref);
  p->start_skew = Median(o.start_skew);
  p->imbalance = MeasureImbalance(PerRankMedians(rank_comp_ref), PerRankMedians(o.rank_compute),
                                  p->t_comm_ref, p->t_comp_ref);
  red->samples.push_back({{"comm_target", p->comm_target},
                          {"comp_target", p->comp_target},
                          {"bytes_per_rank", rec["bytes"]},
                          {"matrix_n", rec["n"]},
                          {"t_comm_ref", comm_ref},
                          {"t_comp_ref", comp_ref},
                          {"overlap_columns", {"t_measured", "t_call", "t_comp", "t_wait", "t_mpi_unhidden"}},
                          {"overlap", o.rows}});
}

}  // namespace

Reduction Reduce(const RawRun& run, const NoMpiTimes& no_mpi) {
  Reduction red;
  const std::vector<ClockFit> clocks = FitClocks(run);
  red.clock = ClockFitJson(run, clocks);
  red.barrier = BarrierSkewJson(run, clocks);
  red.conformance_error = ConformanceErrorOf(run);
  const TimingQuality timing = TimingQualityOf(red.clock, red.barrier);

  const std::vector<double> comm_targets = run.context.value("comm_targets", std::vector<double>{});
  const std::vector<double> comp_targets = run.context.value("comp_targets", std::vector<double>{});
  const int ranks = run.context.value("ranks", 1);
  Calibration calibration = CalibrationOf(run, comm_targets, comp_targets);
  red.calibration = calibration.record;
  const MpiImpact impact = MpiImpactOf(run, no_mpi, ranks);
  red.mpi_impact = impact.rows;
  const CpuOverhead cpu = CpuOverheadOf(run, clocks);
  red.cpu_overhead = cpu.rows;

  // An oversubscribed run (oversubscribe: allow) is measured, never judged.
  std::string oversubscribed;
  for (const json* rec : RecordsOfType(run, record::kBinding)) {
    red.binding = *rec;
    red.binding.erase("type");
    if ((*rec).value("oversubscribed", false)) oversubscribed = (*rec).value("oversubscription", "");
  }

  std::map<std::string, const json*> measured_points;
  for (const json* rec : RecordsOfType(run, record::kPoint))
    measured_points[GridKey((*rec)["comm_target"], (*rec)["comp_target"])] = rec;

  for (const json* rec : RecordsOfType(run, record::kSentinel)) {
    red.machine_noise = *rec;
    red.machine_noise.erase("type");
  }

  red.samples = json::array();
  for (double comm : comm_targets) {
    for (double comp : comp_targets) {
      PointResult p;
      p.comm_target = comm;
      p.comp_target = comp;
      const auto it = measured_points.find(GridKey(comm, comp));
      if (!calibration.comm_invalid[comm].empty()) Invalidate(&p, calibration.comm_invalid[comm]);
      else if (!calibration.comp_invalid[comp].empty()) Invalidate(&p, calibration.comp_invalid[comp]);
      else if (it == measured_points.end()) Invalidate(&p, "not measured (run ended before this point)");
      else MeasurePoint(*it->second, clocks, &p, &red);
      if (p.valid) {
        const std::string gate = GateFailure(p, timing);
        if (!gate.empty()) {
          Invalidate(&p, gate);
          p.refused = true;
        }
      }
      if (!oversubscribed.empty()) {
        Invalidate(&p, OversubscribedPointReason(oversubscribed));
        p.refused = false;  // the deployment's doing, not a disturbance: measured again, it is the same
      }

      const auto imp = impact.per_comp.find(comp);
      p.r_mpi_impact = imp != impact.per_comp.end() ? imp->second : Summarize({});
      if (const auto c = cpu.per_comm.find(comm); c != cpu.per_comm.end()) {
        p.cpu_busy_nbc = c->second.first;
        p.cpu_busy_blocking = c->second.second;
      }
      p.diagnosis = !p.valid ? Diagnosis::kInvalid
                    : p.imbalance.flagged
                        ? Diagnosis::kImbalance
                        : Diagnose(p.r_comm.median, p.r_comp_slowdown.median, p.r_mpi_impact.median);
      red.points.push_back(p);
    }
  }
  if (red.machine_noise.is_object()) {
    int refused = 0;
    for (const PointResult& p : red.points)
      if (!SentinelRefusal(p.sentinel).empty()) ++refused;
    red.machine_noise["points_refused"] = refused;
  }
  return red;
}

}  // namespace nbcguard
