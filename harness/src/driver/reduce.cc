#include "reduce.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "nbcguard/clock_tree.h"
#include "nbcguard/diagnosis.h"
#include "nbcguard/metrics.h"
#include "nbcguard/stats.h"
#include "nbcguard/units.h"

namespace nbcguard {

using json = nlohmann::json;

RawRun ReadRaw(const std::string& path) {
  RawRun run;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object() || !j.contains("type")) {
      ++run.truncated_lines;
      continue;
    }
    if (j["type"] == "context") run.context = j;
    if (j["type"] == "end") {
      run.ended = true;
      run.status = j.value("status", -1);
    }
    run.records.push_back(std::move(j));
  }
  if (!run.context.is_object()) run.context = json::object();  // nothing was written
  return run;
}

std::vector<const json*> RecordsOfType(const RawRun& run, const std::string& type) {
  std::vector<const json*> out;
  for (const json& r : run.records)
    if (r["type"] == type) out.push_back(&r);
  return out;
}

std::vector<ClockFit> FitClocks(const RawRun& run) {
  const int ranks = run.context.value("ranks", 1);
  std::vector<std::vector<OffsetPoint>> pts(ranks);
  for (const json* rec : RecordsOfType(run, "clock")) {
    const json& per_rank = (*rec)["points"];
    for (int r = 0; r < ranks && r < static_cast<int>(per_rank.size()); ++r)
      for (const json& p : per_rank[r]) pts[r].push_back({p[0], p[1], p[2]});
  }
  std::vector<ClockFit> fits;
  for (int r = 0; r < ranks; ++r) fits.push_back(FitClock(pts[r]));
  return fits;
}

std::vector<double> SlowestPerRep(const std::vector<double>& values, int processes) {
  if (processes <= 0 || values.empty()) return {};
  const std::size_t reps = values.size() / processes;
  std::vector<double> out(reps, 0.0);
  for (int p = 0; p < processes; ++p)
    for (std::size_t i = 0; i < reps; ++i) out[i] = std::max(out[i], values[p * reps + i]);
  return out;
}

GlobalSamples ToGlobal(const json& samples, const std::vector<ClockFit>& clocks) {
  GlobalSamples out;
  const int k = samples.at("k");
  for (const json& s : samples.at("local")) {
    std::vector<std::vector<double>> ranks;
    for (std::size_t r = 0; r * k < s.size(); ++r) {
      std::vector<double> stamps;
      for (int j = 0; j < k; ++j) stamps.push_back(clocks.at(r).model.ToGlobal(s[r * k + j].get<double>()));
      ranks.push_back(std::move(stamps));
    }
    out.push_back(std::move(ranks));
  }
  return out;
}

double Span(const std::vector<std::vector<double>>& ranks, int first, int last) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& s : ranks) {
    lo = std::min(lo, s[first]);
    hi = std::max(hi, s[last]);
  }
  return hi - lo;
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The largest per-rank duration between two stamps.
double MaxDuration(const std::vector<std::vector<double>>& ranks, int a, int b) {
  double worst = 0;
  for (const auto& s : ranks) worst = std::max(worst, s[b] - s[a]);
  return worst;
}

json SkewStats(const json& rounds, const std::vector<ClockFit>& clocks) {
  std::vector<double> skews;
  for (const json& round : rounds) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::size_t r = 0; r < round.size(); ++r) {
      const double g = clocks.at(r).model.ToGlobal(round[r].get<double>());
      lo = std::min(lo, g);
      hi = std::max(hi, g);
    }
    skews.push_back(hi - lo);
  }
  Spread s = Summarize(skews);
  return {{"rounds", s.n}, {"median", s.median}, {"max", s.max}, {"min", s.min}};
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
  std::vector<std::vector<double>> start(ranks), call(ranks), end(ranks), own(ranks);
  for (const auto& s : samples) {
    if (s.size() != ranks) continue;
    double first = std::numeric_limits<double>::infinity();
    for (const auto& q : s) first = std::min(first, q[0]);
    for (std::size_t r = 0; r < ranks; ++r) {
      start[r].push_back(s[r][0] - first);
      call[r].push_back(s[r][1] - s[r][0]);
      end[r].push_back(s[r][3] - first);
      own[r].push_back(s[r][3] - s[r][0]);
    }
  }
  double span = 0;
  std::vector<double> calls, ends;
  for (std::size_t r = 0; r < ranks; ++r) {
    p->per_rank.push_back({Median(start[r]), Median(call[r]), Median(end[r]), Median(own[r])});
    span = std::max(span, p->per_rank.back().end);
    calls.push_back(p->per_rank.back().call);
    ends.push_back(p->per_rank.back().end);
  }
  p->late_ranks = LateOnes(calls, span);
  p->late_exits = LateOnes(ends, span);
}

std::string Key(double comm, double comp) { return FormatDuration(comm) + "x" + FormatDuration(comp); }

json Finite(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// One kind of call of a "cpu" record, for results.json: the busiest rank's
// fraction per repetition, its median and interval, each rank's median,
// and the times (the rank's own inside the call; the collective's, first
// start to last end).
json CpuKindJson(const CpuBusy& b, const GlobalSamples& spans, double reading_loss) {
  std::vector<double> t;
  for (const auto& s : spans) t.push_back(Span(s, 0, 1));
  json busiest = json::array(), per_rank = json::array();
  for (double f : b.busiest) busiest.push_back(Finite(f));
  for (std::size_t r = 0; r < b.per_rank.size(); ++r) per_rank.push_back({{"rank", r}, {"median", Finite(b.per_rank[r])}});
  return {{"median", Finite(b.summary.median)}, {"ci_lo", Finite(b.summary.lo)}, {"ci_hi", Finite(b.summary.hi)},
          {"n", b.summary.n}, {"busiest_per_repetition", busiest}, {"per_rank", per_rank},
          {"wall_median", Finite(b.median_wall)}, {"t_collective_median", Finite(Median(t))},
          {"reading_bias", Finite(reading_loss / b.median_wall)}};
}

// Wall time of a pair of CPU readings that is not CPU time inside them (the
// harness's "reading_cost", median over ranks): a call that polls
// throughout reads 1 - loss / wall. NaN when the record has no such cost.
double ReadingLoss(const json& rec) {
  if (!rec.contains("reading_cost") || !rec["reading_cost"].is_object()) return kNaN;
  const json& c = rec["reading_cost"];
  if (!c.contains("wall") || !c.contains("cpu") || !c["wall"].is_array() || !c["cpu"].is_array()) return kNaN;
  std::vector<double> loss;
  for (std::size_t r = 0; r < c["wall"].size() && r < c["cpu"].size(); ++r)
    if (c["wall"][r].is_number() && c["cpu"][r].is_number())
      loss.push_back(c["wall"][r].get<double>() - c["cpu"][r].get<double>());
  return Median(loss);
}

}  // namespace

std::vector<std::vector<CpuReading>> CpuReadings(const json& samples, const std::vector<ClockFit>& clocks) {
  std::vector<std::vector<CpuReading>> out;
  if (!samples.is_object() || !samples.contains("local") || !samples.contains("values")) return out;
  const int k = samples.value("k", 0), extra = samples.value("extra", 0);
  const json& local = samples["local"];
  const json& values = samples["values"];
  if (k < 2 || extra < 2 || !local.is_array() || !values.is_array()) return out;
  auto num = [](const json& a, std::size_t i) {
    return i < a.size() && a[i].is_number() ? a[i].get<double>() : kNaN;
  };
  for (std::size_t i = 0; i < local.size(); ++i) {
    const json& l = local[i];
    const json& v = i < values.size() ? values[i] : json::array();
    std::vector<CpuReading> ranks;
    for (std::size_t r = 0; l.is_array() && (r + 1) * k <= l.size(); ++r) {
      CpuReading c;
      if (r < clocks.size()) {
        const ClockModel& m = clocks[r].model;
        c.wall = m.ToGlobal(num(l, r * k + k - 1)) - m.ToGlobal(num(l, r * k));
      }
      // user + system: only the sum is exact over a short interval (cpu_overhead.h).
      if (v.is_array()) c.cpu = num(v, r * extra) + num(v, r * extra + 1);
      ranks.push_back(c);
    }
    out.push_back(std::move(ranks));
  }
  return out;
}

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

json ClockFitJson(const RawRun& run, const std::vector<ClockFit>& clocks) {
  const std::string method = run.context.value("clock_sync", std::string("flat"));
  const bool tree = method == "tree";
  json out = json::array();
  for (std::size_t r = 0; r < clocks.size(); ++r) {
    const ClockFit& f = clocks[r];
    const int rank = static_cast<int>(r);
    json rec = {{"rank", r}, {"points", f.points}, {"offset_s", f.model.offset()},
                {"drift_ppm", f.model.drift() * 1e6}, {"residual_rms_s", f.residual_rms},
                {"min_rtt_s", f.min_rtt}, {"span_s", f.span}, {"method", method}};
    if (rank > 0) {
      rec["server"] = tree ? TreeServer(rank) : 0;
      rec["depth"] = tree ? TreeDepth(rank) : 1;
    }
    out.push_back(rec);
  }
  return out;
}

json BarrierSkewJson(const RawRun& run, const std::vector<ClockFit>& clocks) {
  json out;
  for (const json* rec : RecordsOfType(run, "barrier_skew")) {
    out = {{"synchronized", SkewStats((*rec)["sync"], clocks)},
           {"mpi_barrier", SkewStats((*rec)["mpi"], clocks)},
           {"synchronized_late_rounds", (*rec)["sync_late"]}};
  }
  return out;
}

Reduction Reduce(const RawRun& run, const NoMpiTimes& no_mpi) {
  Reduction red;
  const std::vector<ClockFit> clocks = FitClocks(run);

  red.clock = ClockFitJson(run, clocks);
  red.barrier = BarrierSkewJson(run, clocks);
  for (const json* rec : RecordsOfType(run, "conformance_failure"))
    red.conformance_error = (*rec)["collective"].get<std::string>() + " with count " +
                            std::to_string((*rec)["count"].get<std::uint64_t>()) + " (" +
                            std::to_string((*rec)["bytes"].get<std::uint64_t>()) +
                            " bytes per rank): " + (*rec)["error"].get<std::string>();

  const std::vector<double> comm_targets = run.context.value("comm_targets", std::vector<double>{});
  const std::vector<double> comp_targets = run.context.value("comp_targets", std::vector<double>{});
  const int ranks = run.context.value("ranks", 1);

  // Calibration outcome per axis.
  std::map<double, std::string> comm_invalid, comp_invalid;
  red.calibration = {{"comm", json::array()}, {"comp", json::array()}};
  // The calibration cache (calibration_cache.h): which file, what it held,
  // and a failure to update it (the run itself is unaffected).
  for (const json* rec : RecordsOfType(run, "calibration_cache")) red.calibration["cache"] = *rec;
  for (const json* rec : RecordsOfType(run, "calibration_cache_store")) {
    red.calibration["cache"]["store_error"] = (*rec)["error"];
  }
  for (double t : comm_targets) comm_invalid[t] = "communication size not calibrated (run ended first)";
  for (double t : comp_targets) comp_invalid[t] = "computation size not calibrated (run ended first)";
  for (const json* rec : RecordsOfType(run, "comm_calibration")) {
    red.calibration["comm"].push_back(*rec);
    const double t = (*rec)["target"];
    comm_invalid[t] = (*rec)["converged"] ? "" : "communication calibration failed for " + FormatDuration(t) +
                                                      ": " + (*rec)["reason"].get<std::string>();
  }
  for (const json* rec : RecordsOfType(run, "comp_calibration")) {
    red.calibration["comp"].push_back(*rec);
    const double t = (*rec)["target"];
    comp_invalid[t] = (*rec)["converged"] ? "" : "computation calibration failed for " + FormatDuration(t) +
                                                      ": " + (*rec)["reason"].get<std::string>();
  }

  // r_mpi_impact per computation row: same code, same size, same launcher;
  // with MPI initialised and idle versus a process that never loaded MPI,
  // one ratio per round (see ImpactRatiosPerRound), summarised over rounds.
  std::map<double, Spread> impact;
  red.mpi_impact = json::array();
  const std::vector<const json*> passive = RecordsOfType(run, "passive");
  const std::map<double, std::vector<double>> per_round = ImpactRatiosPerRound(passive, no_mpi, ranks);
  std::map<double, json> rows;
  std::map<double, std::vector<double>> with_all, without_all;
  for (const json* rec : passive) {
    const double target = (*rec)["comp_target"];
    const int n = (*rec)["n"];
    json& row = rows[target];
    if (row.is_null()) row = {{"comp_target", target}, {"n", n}};
    if ((*rec).value("late", false)) row["error"] = "a rank started its paced runs late; runs were not simultaneous";
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
      impact[target] = Summarize(it->second);
      row["rounds"] = it->second.size();
      row["round_ratios"] = it->second;
      row["r_mpi_impact"] = impact[target].median;
      row["ci"] = {impact[target].lo, impact[target].hi};
    } else if (!row.contains("error")) {
      row["error"] = "no measurement without MPI for this size";
    }
    red.mpi_impact.push_back(row);
  }

  // CPU overhead per communication row (Hoefler et al., 2006): the busiest rank's
  // CPU-busy fraction per repetition, nonblocking + wait and blocking.
  std::map<double, std::pair<Spread, Spread>> cpu;  // comm target -> (nbc, blocking)
  red.cpu_overhead = json::array();
  const json& env = run.context.contains("environment") ? run.context["environment"] : json::object();
  const std::string wait_policy = env.is_object() ? env.value("OMP_WAIT_POLICY", std::string()) : std::string();
  for (const json* rec : RecordsOfType(run, "cpu")) {
    const double target = rec->value("comm_target", kNaN);
    const json& nbc_samples = rec->contains("nonblocking") ? (*rec)["nonblocking"] : json::object();
    const json& blocking_samples = rec->contains("blocking") ? (*rec)["blocking"] : json::object();
    if (!std::isfinite(target) || !nbc_samples.contains("local") || !blocking_samples.contains("local")) continue;
    const CpuBusy nbc = SummarizeCpuBusy(CpuReadings(nbc_samples, clocks));
    const CpuBusy blocking = SummarizeCpuBusy(CpuReadings(blocking_samples, clocks));
    cpu[target] = {nbc.summary, blocking.summary};
    const double loss = ReadingLoss(*rec);
    json row = {{"comm_target", target}, {"count", rec->value("count", json())},
                {"bytes_per_rank", rec->value("bytes", json())},
                {"nonblocking", CpuKindJson(nbc, ToGlobal(nbc_samples, clocks), loss)},
                {"blocking", CpuKindJson(blocking, ToGlobal(blocking_samples, clocks), loss)},
                {"reading_loss_s", Finite(loss)}, {"omp_wait_policy", wait_policy}};
    if (nbc.summary.n == 0 || blocking.summary.n == 0) row["error"] = "no usable CPU reading";
    // Calls of a few tens of microseconds: the readings' own cost shows.
    std::string short_calls;
    for (const auto& [name, b] : {std::pair<const char*, const CpuBusy*>{"nonblocking + wait", &nbc},
                                  std::pair<const char*, const CpuBusy*>{"blocking", &blocking}}) {
      const double bias = loss / b->median_wall;
      if (!(bias > 0.05)) continue;
      char text[200];
      std::snprintf(text, sizeof text, "%s%s call lasts %s: a call that polls throughout reads %.2f (the CPU "
                    "readings cost %.1f us of wall time outside the CPU they count)",
                    short_calls.empty() ? "the " : "; the ", name, FormatDuration(b->median_wall).c_str(), 1 - bias,
                    loss * 1e6);
      short_calls += text;
    }
    if (!short_calls.empty()) row["resolution"] = short_calls;
    // Idle OpenMP threads that spin are CPU the library did not use.
    if (wait_policy != "PASSIVE")
      row["warning"] = "OMP_WAIT_POLICY is not PASSIVE: idle OpenMP threads may spin and be counted as the "
                       "collective's CPU";
    red.cpu_overhead.push_back(row);
  }

  std::map<std::string, const json*> measured_points;
  for (const json* rec : RecordsOfType(run, "point"))
    measured_points[Key((*rec)["comm_target"], (*rec)["comp_target"])] = rec;

  red.samples = json::array();
  for (double comm : comm_targets) {
    for (double comp : comp_targets) {
      PointResult p;
      p.comm_target = comm;
      p.comp_target = comp;
      auto invalid = [&](const std::string& why) {
        p.valid = false;
        p.invalid_reason = why;
      };
      const auto it = measured_points.find(Key(comm, comp));
      if (!comm_invalid[comm].empty()) invalid(comm_invalid[comm]);
      else if (!comp_invalid[comp].empty()) invalid(comp_invalid[comp]);
      else if (it == measured_points.end()) invalid("not measured (run ended before this point)");

      std::vector<double> comm_ref, comp_ref;
      if (p.valid) {
        // References: this point's own, taken in turn with its overlap
        // samples; medians of measured times, never the targets.
        const json& rec = *it->second;
        if (rec.contains("progress_tests") && rec["progress_tests"].is_number())
          p.progress_tests = rec["progress_tests"];
        const GlobalSamples comm_samples = ToGlobal(rec["comm_ref"], clocks);
        for (const auto& s : comm_samples) comm_ref.push_back(Span(s, 0, 3));
        PerRankTiming(comm_samples, &p);
        for (const auto& s : ToGlobal(rec["comp_ref"], clocks)) comp_ref.push_back(MaxDuration(s, 0, 3));
        red.late_redone += rec["overlap"].value("late_redone", 0);
        if (comm_ref.size() < 3 || comp_ref.size() < 3) invalid("fewer than 3 reference samples");
      }
      if (p.valid) {
        p.t_comm_ref = Median(comm_ref);
        p.t_comp_ref = Median(comp_ref);
        std::vector<double> measured, call, compute, wait, r_over, r_comm, r_slow, osu, imb;
        json rows = json::array();
        for (const auto& s : ToGlobal((*it->second)["overlap"], clocks)) {
          // Algorithm 1 stamps: t1 start, t2 after the call, t3 after compute, t4 after wait.
          const double tm = Span(s, 0, 3);
          const double tcomp = MaxDuration(s, 1, 2);
          // MPI time on the critical path: the rank that finished computing
          // last. Its wait is what the computation did not hide; an earlier
          // rank's wait also holds the time it idles for that rank (compute
          // imbalance), which is not the library's doing.
          std::size_t crit = 0;
          for (std::size_t r = 1; r < s.size(); ++r)
            if (s[r][2] > s[crit][2]) crit = r;
          const double tcall = s[crit][1] - s[crit][0];
          const double twait = s[crit][3] - s[crit][2];
          const double tmpi = tcall + twait;
          measured.push_back(tm);
          call.push_back(tcall);
          compute.push_back(tcomp);
          wait.push_back(twait);
          r_over.push_back(OverheadRatio(tm, p.t_comp_ref, p.t_comm_ref));
          r_comm.push_back(CommRatio(tmpi, 0.0, p.t_comm_ref));
          r_slow.push_back(CompSlowdownRatio(tcomp, p.t_comp_ref));
          rows.push_back({tm, tcall, tcomp, twait});
          // Peers: OSU per rank (own overall, compute and pure times),
          // averaged; IMB from the rank with the largest overall time.
          double osu_sum = 0, ovrl = 0;
          for (std::size_t r = 0; r < s.size(); ++r) {
            const double overall = s[r][3] - s[r][0];
            osu_sum += OsuOverlapPercent(overall, s[r][2] - s[r][1], r < p.per_rank.size() ? p.per_rank[r].own : kNaN);
            ovrl = std::max(ovrl, overall);
          }
          osu.push_back(osu_sum / static_cast<double>(s.size()));
          imb.push_back(ImbOverlapPercent(p.t_comm_ref, p.t_comp_ref, ovrl));
        }
        if (measured.size() < 3) {
          invalid("fewer than 3 samples survived the synchronized barrier");
        } else {
          p.t_measured = Median(measured);
          p.t_call = Median(call);
          p.t_comp = Median(compute);
          p.t_wait = Median(wait);
          p.r_overhead = Summarize(r_over);
          p.r_comm = Summarize(r_comm);
          p.r_comp_slowdown = Summarize(r_slow);
          p.osu_overlap_pct = Summarize(osu);
          p.imb_overlap_pct = Summarize(imb);
          red.samples.push_back({{"comm_target", comm}, {"comp_target", comp},
                                 {"bytes_per_rank", (*it->second)["bytes"]}, {"matrix_n", (*it->second)["n"]},
                                 {"t_comm_ref", comm_ref}, {"t_comp_ref", comp_ref},
                                 {"overlap_columns", {"t_measured", "t_call", "t_comp", "t_wait"}},
                                 {"overlap", rows}});
        }
      }
      const auto imp = impact.find(comp);
      if (imp != impact.end()) p.r_mpi_impact = imp->second;
      else p.r_mpi_impact = Summarize({});
      if (const auto c = cpu.find(comm); c != cpu.end()) {
        p.cpu_busy_nbc = c->second.first;
        p.cpu_busy_blocking = c->second.second;
      }
      p.diagnosis = p.valid ? Diagnose(p.r_comm.median, p.r_comp_slowdown.median, p.r_mpi_impact.median)
                            : Diagnosis::kInvalid;
      red.points.push_back(p);
    }
  }
  return red;
}

}  // namespace nbcguard
