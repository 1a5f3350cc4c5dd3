#include "clock_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "ctest_measurements.h"
#include "nbcguard/clock_tree.h"
#include "nbcguard/driver_common.h"
#include "nbcguard/raw_records.h"
#include "nbcguard/reduce.h"
#include "nbcguard/results_io.h"
#include "nbcguard/stats.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace nbcguard {
namespace {

double LoadAverage() {
  std::ifstream f("/proc/loadavg");
  double one = NAN;
  f >> one;
  return one;
}

double MaxOf(const std::vector<double>& v) { return v.empty() ? NAN : *std::max_element(v.begin(), v.end()); }

// Over ranks 1..p-1 of one run.
struct OverRanks {
  double max = NAN, median = NAN;
};
OverRanks Over(const std::vector<RankClockError>& ranks, double RankClockError::*field) {
  std::vector<double> v;
  v.reserve(ranks.size());
  for (const RankClockError& e : ranks) v.push_back(e.*field);
  return {MaxOf(v), v.empty() ? NAN : Median(v)};
}

// The perturbation goes on rank 1 only, or with --inject-all on every rank (each its own).
std::vector<std::string> ClockCheckArgs(const ClockCheckOptions& o, const fs::path& raw_path) {
  std::vector<std::string> args = {
      "--mode",         "clock-check",    "--inject-offset",           Precise(o.offset),
      "--inject-drift", Precise(o.drift), "--clock-check-wait",        Precise(o.wait),
      "--clock-sync",   o.clock_sync,     "--clock-check-skew-rounds", std::to_string(o.skew_rounds),
      "--out",          raw_path.string()};
  if (o.inject_all) {
    args.push_back("--inject-all");
  } else {
    args.insert(args.end(), {"--inject-rank", "1"});
  }
  return args;
}

// The first record of each phase gives its duration.
void ReadPhases(const RawRun& raw, ClockCheckRun* out) {
  for (const json* c : RecordsOfType(raw, record::kClock)) {
    const std::string phase = (*c).value("phase", std::string("?"));
    if (!out->phase_seconds.contains(phase)) out->phase_seconds[phase] = (*c).value("seconds", NAN);
  }
  out->sync_seconds = out->phase_seconds.value("start", NAN);
}

// One rank's errors just after the sync and at the end, under both models; every probe's errors also go
// to extrap and interp for the summary over all ranks.
RankClockError RankErrors(int rank, const json& list, const ClockFit& fit, const ClockCheckOptions& o,
                          ClockSyncMethod method, std::vector<double>* extrap, std::vector<double>* interp) {
  RankClockError e;
  e.rank = rank;
  e.depth = method == ClockSyncMethod::kTree ? TreeDepth(e.rank) : 1;
  auto errors = [&](const json& p, double* ex, double* in) {
    const double local = p[0], mono = p[1], rt = p[2];
    *ex = std::abs(rt - mono);
    *in = std::abs(fit.model.ToGlobal(local) - mono);
  };
  errors(list.front(), &e.after_sync_extrapolated, &e.after_sync_interpolated);
  errors(list.back(), &e.end_extrapolated, &e.end_interpolated);
  for (const json& p : list) {
    double ex = 0, in = 0;
    errors(p, &ex, &in);
    extrap->push_back(ex);
    interp->push_back(in);
  }
  const ClockPerturbation truth = o.inject_all  ? RankPerturbation(e.rank, o.offset, o.drift)
                                  : e.rank == 1 ? ClockPerturbation{o.offset, o.drift}
                                                : ClockPerturbation{};
  // The clock runs at 1 + d against the true time: offset grows by d / (1 + d) per local second.
  e.true_drift_ppm = truth.drift / (1 + truth.drift) * 1e6;
  e.drift_ppm = fit.model.drift() * 1e6;
  e.min_rtt = fit.min_rtt;
  return e;
}

// All ranks share CLOCK_MONOTONIC here, which is rank 0's (reference)
// clock: the truth every model is checked against. A probe is
// [local, mono, extrapolated global]; |global estimate - mono| is
// |recovered offset - true offset|.
void ProbeErrors(const json& probes, const std::vector<ClockFit>& fits, const ClockCheckOptions& o,
                 ClockCheckRun* out) {
  const ClockSyncMethod method = ParseClockSyncMethod(o.clock_sync, nullptr).value_or(ClockSyncMethod::kFlat);
  std::vector<double> extrap, interp;
  const json& per_rank = probes["probes"];
  for (std::size_t rk = 1; rk < per_rank.size() && rk < fits.size(); ++rk) {
    const json& list = per_rank[rk];
    if (list.empty()) continue;
    out->per_rank.push_back(RankErrors(static_cast<int>(rk), list, fits[rk], o, method, &extrap, &interp));
    if (rk == 1) out->window = list.back()[1].get<double>() - list.front()[1].get<double>();
  }
  const Spread ex = Summarize(extrap), in = Summarize(interp);
  out->all_extrapolated_median = ex.median;
  out->all_extrapolated_max = ex.max;
  out->all_interpolated_median = in.median;
  out->all_interpolated_max = in.max;
}

}  // namespace

ClockCheckRun MeasureClockCheck(const Config& cfg, const ClockCheckOptions& o, const std::string& dir_name) {
  ClockCheckRun out;
  out.ranks = o.nodes;
  out.method = o.clock_sync;
  const fs::path dir(dir_name);
  out.dir = dir.string();
  fs::create_directories(dir);
  const fs::path raw_path = dir / "raw.jsonl";
  fs::remove(raw_path);
  const auto cmd = LaunchCommand(cfg, o.nodes, cfg.harness, ClockCheckArgs(o, raw_path));
  out.load_before = LoadAverage();
  ProcessResult r = RunProcess(cmd, {}, 120 + o.wait + 2.0 * o.nodes);
  out.load_after = LoadAverage();
  RawRun raw = ReadRaw(raw_path.string());
  out.library = FirstLine(raw.context.value("library_version", ""));
  if (r.exit_code != 0 || !raw.ended) {
    out.status = kHarnessFailed;
    out.error = std::string("harness clock-check ") + (r.timed_out ? "timed out" : "failed") + " (exit " +
                std::to_string(r.exit_code) + "): " + ShellQuote(cmd);
    return out;
  }
  const auto probes = RecordsOfType(raw, record::kClockProbes);
  if (probes.empty()) {
    out.status = kHarnessFailed;
    out.error = "the harness wrote no clock probes";
    return out;
  }
  ReadPhases(raw, &out);
  const std::vector<ClockFit> fits = FitClocks(raw);
  const Reduction red = Reduce(raw, {});
  out.barrier = red.barrier;
  ProbeErrors(*probes[0], fits, o, &out);
  return out;
}

json ClockCheckJson(const ClockCheckOptions& o, const ClockCheckRun& r) {
  json ranks = json::array();
  for (const RankClockError& e : r.per_rank)
    ranks.push_back({{"rank", e.rank},
                     {"depth", e.depth},
                     {"after_sync_extrapolated_s", e.after_sync_extrapolated},
                     {"after_sync_interpolated_s", e.after_sync_interpolated},
                     {"end_extrapolated_s", e.end_extrapolated},
                     {"end_interpolated_s", e.end_interpolated},
                     {"drift_ppm", e.drift_ppm},
                     {"true_drift_ppm", e.true_drift_ppm},
                     {"min_rtt_s", e.min_rtt}});
  auto over = [&](double RankClockError::*f) {
    const OverRanks v = Over(r.per_rank, f);
    return json{{"max", v.max}, {"median", v.median}};
  };
  return {{"ranks", r.ranks},
          {"clock_sync", r.method},
          {"injected",
           {{"ranks", o.inject_all ? "all" : "1"}, {"offset_s", o.offset}, {"drift_ppm", o.drift * 1e6}}},
          {"sync_seconds", r.sync_seconds},
          {"phase_seconds", r.phase_seconds},
          {"probe_window_s", r.window},
          {"error_after_sync_extrapolated_s", over(&RankClockError::after_sync_extrapolated)},
          {"error_after_sync_interpolated_s", over(&RankClockError::after_sync_interpolated)},
          {"error_end_extrapolated_s", over(&RankClockError::end_extrapolated)},
          {"error_end_interpolated_s", over(&RankClockError::end_interpolated)},
          {"error_extrapolated_s", {{"median", r.all_extrapolated_median}, {"max", r.all_extrapolated_max}}},
          {"error_interpolated_s", {{"median", r.all_interpolated_median}, {"max", r.all_interpolated_max}}},
          {"per_rank", ranks},
          {"barrier_skew", r.barrier},
          {"load_average", {r.load_before, r.load_after}},
          {"library_version", r.library}};
}

int ClockCheck(const Config& cfg, const ClockCheckOptions& o) {
  const fs::path dir = fs::path(o.out.empty() ? cfg.results_dir : o.out) / "clock-check" /
                       ("n" + std::to_string(o.nodes) + (o.clock_sync == "flat" ? "" : "-" + o.clock_sync));
  const ClockCheckRun r = MeasureClockCheck(cfg, o, dir.string());
  if (r.status != kPass) {
    std::cout << "FAIL: " << r.error << "\n";
    return r.status;
  }
  const std::string write_error =
      WriteFileAtomically(dir / "clock-check.json", ClockCheckJson(o, r).dump(1) + "\n");
  std::printf("clock-check on %d ranks, %s sync (%s)\n", o.nodes, o.clock_sync.c_str(), r.library.c_str());
  if (o.inject_all)
    std::printf(
        "  injected on every rank but 0: offsets +-%.6f..%.6f s, drifts +-%.1f..%.1f ppm (rank-dependent)\n",
        o.offset, 1.75 * o.offset, o.drift * 1e6, 1.75 * o.drift * 1e6);
  else std::printf("  injected on rank 1: offset %.6f s, drift %.1f ppm\n", o.offset, o.drift * 1e6);
  if (!r.per_rank.empty()) {
    const RankClockError& f1 = r.per_rank.front();
    std::printf("  recovered drift %.3f ppm (rank 1 clock runs at 1+d: expect %.3f), min RTT %.2f us\n",
                f1.drift_ppm, f1.true_drift_ppm, f1.min_rtt * 1e6);
  }
  std::printf("  sync time (start calibration, %d x %d ping-pongs per rank): %.4f s\n", 10, 100,
              r.sync_seconds);
  std::printf(
      "  error vs true time over %.1f s after sync: extrapolated median %.3f us max %.3f us; "
      "interpolated median %.3f us max %.3f us\n",
      o.wait, r.all_extrapolated_median * 1e6, r.all_extrapolated_max * 1e6, r.all_interpolated_median * 1e6,
      r.all_interpolated_max * 1e6);
  const OverRanks ae = Over(r.per_rank, &RankClockError::after_sync_extrapolated),
                  ai = Over(r.per_rank, &RankClockError::after_sync_interpolated),
                  ee = Over(r.per_rank, &RankClockError::end_extrapolated),
                  ei = Over(r.per_rank, &RankClockError::end_interpolated);
  std::printf(
      "  over ranks, right after sync: extrapolated max %.3f us median %.3f us, interpolated max %.3f us "
      "median %.3f us\n",
      ae.max * 1e6, ae.median * 1e6, ai.max * 1e6, ai.median * 1e6);
  std::printf(
      "  over ranks, %.1f s after sync: extrapolated max %.3f us median %.3f us, interpolated max %.3f us "
      "median %.3f us\n",
      r.window, ee.max * 1e6, ee.median * 1e6, ei.max * 1e6, ei.median * 1e6);
  if (o.nodes > 2) {
    std::printf("  %-5s %-5s %-10s %-10s %-10s %-10s %s\n", "rank", "depth", "extrap0", "interp0",
                "extrap_end", "interp_end", "drift ppm (true)");
    for (const RankClockError& e : r.per_rank)
      std::printf("  %-5d %-5d %-10.3f %-10.3f %-10.3f %-10.3f %.3f (%.3f)\n", e.rank, e.depth,
                  e.after_sync_extrapolated * 1e6, e.after_sync_interpolated * 1e6, e.end_extrapolated * 1e6,
                  e.end_interpolated * 1e6, e.drift_ppm, e.true_drift_ppm);
  }
  if (r.barrier.is_object())
    std::printf(
        "  exit skew over %d rounds: synchronized barrier median %.3f us max %.3f us; "
        "MPI_Barrier median %.3f us max %.3f us\n",
        r.barrier["synchronized"].value("rounds", 0), r.barrier["synchronized"].value("median", NAN) * 1e6,
        r.barrier["synchronized"].value("max", NAN) * 1e6,
        r.barrier["mpi_barrier"].value("median", NAN) * 1e6,
        r.barrier["mpi_barrier"].value("max", NAN) * 1e6);
  std::fflush(stdout);
  PrintCTestMeasurements(
      std::cout, {Measurement::Numeric("clock error extrapolated max us", r.all_extrapolated_max * 1e6),
                  Measurement::Numeric("clock error interpolated max us", r.all_interpolated_max * 1e6),
                  Measurement::Numeric("clock sync seconds", r.sync_seconds)});
  std::cout.flush();
  if (!write_error.empty()) {
    std::cout << "error: " << write_error << "\n";
    return kHarnessFailed;
  }
  if (o.bound_us > 0 &&
      (!(r.all_extrapolated_max * 1e6 <= o.bound_us) || !(r.all_interpolated_max * 1e6 <= o.bound_us))) {
    std::printf("FAIL: clock error exceeds %.2f us\n", o.bound_us);
    return kFail;
  }
  return kPass;
}

namespace {

// What the clock-scaling runs collected, per (method, ranks) cell and per
// rank of every tree run.
struct ScalingRuns {
  struct Cell {
    std::vector<double> sync, load;
    std::vector<double> ae_max, ae_med, ai_max, ai_med, ee_max, ee_med, ei_max, ei_med;
    std::string library;
  };
  std::map<std::pair<std::string, int>, Cell> cells;
  // Per-rank errors of tree runs by depth, for the per-hop model.
  std::vector<double> depth_x, err_after_interp, err_after_extrap, err_end_interp, err_end_extrap;
  // The same by (stage, depth): on one host a stage's pairs share the cores,
  // so the stage (how many pairs exchange at once) is a cause of its own.
  std::map<std::pair<int, int>, std::vector<double>> by_stage_depth;
  // Per tree run, each rank's after-sync interpolated error (index = rank).
  std::vector<std::vector<double>> tree_runs;
  json runs = json::array();
  int failures = 0;
};

void AddScalingRun(const std::string& m, int n, const ClockCheckRun& r, ScalingRuns* s) {
  ScalingRuns::Cell& c = s->cells[{m, n}];
  c.library = r.library;
  c.sync.push_back(r.sync_seconds);
  c.load.push_back(0.5 * (r.load_before + r.load_after));
  auto add = [&](double RankClockError::*f, std::vector<double>* mx, std::vector<double>* md) {
    const OverRanks v = Over(r.per_rank, f);
    mx->push_back(v.max);
    md->push_back(v.median);
  };
  add(&RankClockError::after_sync_extrapolated, &c.ae_max, &c.ae_med);
  add(&RankClockError::after_sync_interpolated, &c.ai_max, &c.ai_med);
  add(&RankClockError::end_extrapolated, &c.ee_max, &c.ee_med);
  add(&RankClockError::end_interpolated, &c.ei_max, &c.ei_med);
  if (m != "tree") return;
  std::vector<double> errs(n, NAN);
  for (const RankClockError& e : r.per_rank) {
    errs[e.rank] = e.after_sync_interpolated;
    s->depth_x.push_back(e.depth);
    s->err_after_interp.push_back(e.after_sync_interpolated);
    s->err_after_extrap.push_back(e.after_sync_extrapolated);
    s->err_end_interp.push_back(e.end_interpolated);
    s->err_end_extrap.push_back(e.end_extrapolated);
    s->by_stage_depth[{TreeStage(e.rank), e.depth}].push_back(e.after_sync_interpolated);
  }
  s->tree_runs.push_back(errs);
}

ScalingRuns MeasureScalingRuns(const Config& cfg, const ClockScalingOptions& o, const fs::path& root) {
  ScalingRuns s;
  // Repetitions outermost, methods interleaved: slow phases of a shared
  // machine spread over both methods instead of biasing one.
  for (int rep = 0; rep < o.repetitions; ++rep)
    for (int n : o.nodes)
      for (const std::string& m : o.methods) {
        ClockCheckOptions co;
        co.nodes = n;
        co.offset = o.offset;
        co.drift = o.drift;
        co.inject_all = true;
        co.clock_sync = m;
        co.wait = o.wait;
        co.skew_rounds = 0;  // the barriers are not what is compared, and take long on shared cores
        const fs::path dir = root / m / ("n" + std::to_string(n)) / ("run" + std::to_string(rep));
        const ClockCheckRun r = MeasureClockCheck(cfg, co, dir.string());
        if (r.status != kPass) {
          std::printf("FAIL %s n%d run %d: %s\n", m.c_str(), n, rep, r.error.c_str());
          ++s.failures;
          continue;
        }
        const json j = ClockCheckJson(co, r);
        if (const std::string e = WriteFileAtomically(dir / "clock-check.json", j.dump(1) + "\n");
            !e.empty()) {
          std::printf("FAIL %s n%d run %d: %s\n", m.c_str(), n, rep, e.c_str());
          ++s.failures;
        }
        s.runs.push_back(j);
        AddScalingRun(m, n, r, &s);
        std::printf(
            "  %s n%-3d run %d: sync %.4f s, after-sync max %.3f us (interp) %.3f us (extrap), "
            "+%.0f s max %.3f us (interp) %.3f us (extrap), load %.2f-%.2f\n",
            m.c_str(), n, rep, r.sync_seconds,
            Over(r.per_rank, &RankClockError::after_sync_interpolated).max * 1e6,
            Over(r.per_rank, &RankClockError::after_sync_extrapolated).max * 1e6, r.window,
            Over(r.per_rank, &RankClockError::end_interpolated).max * 1e6,
            Over(r.per_rank, &RankClockError::end_extrapolated).max * 1e6, r.load_before, r.load_after);
        std::fflush(stdout);
      }
  return s;
}

json ScalingTable(const ScalingRuns& s, const ClockScalingOptions& o, const std::string& library) {
  std::printf(
      "\n%s; medians over runs; errors |recovered - true offset| in us, max / median over ranks 1..p-1\n",
      library.c_str());
  std::printf(
      "| sync | ranks | steps | sync time s | after sync interp | after sync extrap | +%.0f s interp | "
      "+%.0f s extrap | load |\n|---|---|---|---|---|---|---|---|---|\n",
      o.wait, o.wait);
  json table = json::array();
  for (const auto& [key, c] : s.cells) {
    const ClockSyncMethod m = *ParseClockSyncMethod(key.first, nullptr);
    auto med = [](const std::vector<double>& v) { return v.empty() ? NAN : Median(v); };
    std::printf("| %s | %d | %d | %.4f | %.3f / %.3f | %.3f / %.3f | %.3f / %.3f | %.3f / %.3f | %.2f |\n",
                key.first.c_str(), key.second, SequentialSteps(m, key.second), med(c.sync),
                med(c.ai_max) * 1e6, med(c.ai_med) * 1e6, med(c.ae_max) * 1e6, med(c.ae_med) * 1e6,
                med(c.ei_max) * 1e6, med(c.ei_med) * 1e6, med(c.ee_max) * 1e6, med(c.ee_med) * 1e6,
                med(c.load));
    table.push_back({{"clock_sync", key.first},
                     {"ranks", key.second},
                     {"steps", SequentialSteps(m, key.second)},
                     {"runs", c.sync.size()},
                     {"sync_seconds", c.sync},
                     {"after_sync_interpolated_max_s", c.ai_max},
                     {"after_sync_interpolated_median_s", c.ai_med},
                     {"after_sync_extrapolated_max_s", c.ae_max},
                     {"after_sync_extrapolated_median_s", c.ae_med},
                     {"end_interpolated_max_s", c.ei_max},
                     {"end_interpolated_median_s", c.ei_med},
                     {"end_extrapolated_max_s", c.ee_max},
                     {"end_extrapolated_median_s", c.ee_med},
                     {"load_average", c.load}});
  }
  return table;
}

// Time model: sync time = per-step cost x sequential steps (flat p - 1,
// tree ceil(log2 p)), through the origin over the cells' medians.
json SyncTimeModel(const ScalingRuns& s, const ClockScalingOptions& o) {
  json model = json::object();
  std::printf(
      "\nmodel, sync time = cost per sequential step x steps (least squares through 0 over the medians):\n");
  for (const std::string& name : o.methods) {
    const ClockSyncMethod m = *ParseClockSyncMethod(name, nullptr);
    std::vector<double> x, y;
    std::string per_step;
    for (const auto& [key, c] : s.cells) {
      if (key.first != name || c.sync.empty()) continue;
      x.push_back(SequentialSteps(m, key.second));
      y.push_back(Median(c.sync));
      char buf[64];
      std::snprintf(buf, sizeof buf, "%s%d: %.2f ms", per_step.empty() ? "" : ", ", key.second,
                    1e3 * y.back() / x.back());
      per_step += buf;
    }
    const OriginFit f = FitThroughOrigin(x, y);
    std::printf("  %s: %.2f ms per step (R^2 %.3f, RMS residual %.4f s); per step at each p: %s\n",
                name.c_str(), f.slope * 1e3, f.r2, f.rms, per_step.c_str());
    json pred = json::object();
    for (int p : o.predict) {
      const double t = f.slope * SequentialSteps(m, p);
      std::printf("    p = %d: %d steps -> %.3f s per calibration\n", p, SequentialSteps(m, p), t);
      pred[std::to_string(p)] = {{"steps", SequentialSteps(m, p)}, {"sync_seconds", t}};
    }
    model[name] = {{"seconds_per_step", f.slope}, {"r2", f.r2}, {"rms_s", f.rms}, {"predicted", pred}};
  }
  return model;
}

json ErrorByStageAndDepth(const ScalingRuns& s) {
  std::map<int, std::vector<double>> by_depth;
  for (std::size_t i = 0; i < s.depth_x.size(); ++i)
    by_depth[static_cast<int>(s.depth_x[i])].push_back(s.err_after_interp[i]);
  for (const auto& [d, v] : by_depth)
    std::printf("  depth %d: %zu rank-runs, after-sync interpolated error median %.3f us max %.3f us\n", d,
                v.size(), Median(v) * 1e6, MaxOf(v) * 1e6);
  std::printf(
      "  by stage (2^stage pairs exchange at once) and depth: median after-sync interpolated error us "
      "(rank-runs)\n");
  json sd = json::array();
  for (const auto& [k, v] : s.by_stage_depth) {
    std::printf("    stage %d depth %d: %.3f (%zu)\n", k.first, k.second, Median(v) * 1e6, v.size());
    sd.push_back({{"stage", k.first},
                  {"depth", k.second},
                  {"median_s", Median(v)},
                  {"max_s", MaxOf(v)},
                  {"rank_runs", v.size()}});
  }
  return sd;
}

// How errors compose along a path, with the stage's crowding taken out:
// a hop made in stage s is as good as rank 2^s's single hop to rank 0
// in that stage (h_s, median over runs). Linear composition (biases
// add) predicts sum h_s over the path's hops, random composition
// sqrt(sum h_s^2); the ratio measured / predicted near 1 says which.
// Null when no rank is two or more hops deep.
json ErrorComposition(const ScalingRuns& s) {
  std::map<int, std::vector<double>> hop;
  for (const auto& errs : s.tree_runs)
    for (int st = 0; (1 << st) < static_cast<int>(errs.size()); ++st) hop[st].push_back(errs[1 << st]);
  std::map<int, double> h;
  for (const auto& [st, v] : hop) h[st] = Median(v);
  std::vector<double> ratio_lin, ratio_sqrt;
  for (const auto& errs : s.tree_runs)
    for (int r = 1; r < static_cast<int>(errs.size()); ++r) {
      if (TreeDepth(r) < 2 || !std::isfinite(errs[r])) continue;
      double sum = 0, sum2 = 0;
      for (int x = r; x != 0; x = TreeServer(x)) {
        sum += h[TreeStage(x)];
        sum2 += h[TreeStage(x)] * h[TreeStage(x)];
      }
      if (sum > 0) ratio_lin.push_back(errs[r] / sum);
      if (sum2 > 0) ratio_sqrt.push_back(errs[r] / std::sqrt(sum2));
    }
  if (ratio_lin.empty()) return nullptr;
  std::string hs;
  for (const auto& [st, v] : h) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%sstage %d %.3f us", hs.empty() ? "" : ", ", st, v * 1e6);
    hs += buf;
  }
  std::printf("  composition, per-hop error h_s of stage s (rank 2^s, one hop): %s\n", hs.c_str());
  std::printf(
      "    ranks 2+ hops deep (%zu rank-runs): measured / sum h_s median %.2f; measured / sqrt(sum h_s^2) "
      "median %.2f\n",
      ratio_lin.size(), Median(ratio_lin), Median(ratio_sqrt));
  json hj = json::object();
  for (const auto& [st, v] : h) hj[std::to_string(st)] = v;
  return {{"hop_error_by_stage_s", hj},
          {"rank_runs", ratio_lin.size()},
          {"measured_over_linear_median", Median(ratio_lin)},
          {"measured_over_sqrt_median", Median(ratio_sqrt)}};
}

// Error model along the tree: per-rank error against depth, linear
// (systematic per-hop bias adds up) or sqrt (independent per-hop errors).
json TreeErrorModel(const ScalingRuns& s, const ClockScalingOptions& o) {
  std::printf("\nmodel, tree error against depth (hops to rank 0), every rank of every tree run:\n");
  const json sd = ErrorByStageAndDepth(s);
  std::vector<double> sqrt_x;
  for (double d : s.depth_x) sqrt_x.push_back(std::sqrt(d));
  json em = json::object();
  const std::vector<std::pair<const char*, const std::vector<double>*>> kinds = {
      {"after_sync_interpolated", &s.err_after_interp},
      {"after_sync_extrapolated", &s.err_after_extrap},
      {"end_interpolated", &s.err_end_interp},
      {"end_extrapolated", &s.err_end_extrap}};
  for (const auto& [kind, errs] : kinds) {
    const OriginFit lin = FitThroughOrigin(s.depth_x, *errs), sq = FitThroughOrigin(sqrt_x, *errs);
    std::printf(
        "  %-24s linear %.3f us/hop (R^2 %.2f, RMS %.3f us); sqrt %.3f us x sqrt(depth) (R^2 %.2f, "
        "RMS %.3f us)\n",
        kind, lin.slope * 1e6, lin.r2, lin.rms * 1e6, sq.slope * 1e6, sq.r2, sq.rms * 1e6);
    json pred = json::object();
    for (int p : o.predict) {
      const int d = MaxDepth(ClockSyncMethod::kTree, p);
      std::printf("    p = %d: deepest rank %d hops -> linear %.3f us, sqrt %.3f us\n", p, d,
                  lin.slope * d * 1e6, sq.slope * std::sqrt(d) * 1e6);
      pred[std::to_string(p)] = {
          {"depth", d}, {"linear_s", lin.slope * d}, {"sqrt_s", sq.slope * std::sqrt(d)}};
    }
    em[kind] = {{"linear", {{"per_hop_s", lin.slope}, {"r2", lin.r2}, {"rms_s", lin.rms}}},
                {"sqrt", {{"per_sqrt_hop_s", sq.slope}, {"r2", sq.r2}, {"rms_s", sq.rms}}},
                {"predicted_deepest", pred}};
  }
  em["after_sync_interpolated_by_stage_depth"] = sd;
  const json composition = ErrorComposition(s);
  if (!composition.is_null()) em["composition"] = composition;
  return em;
}

}  // namespace

int ClockScaling(const Config& cfg, const ClockScalingOptions& o) {
  const fs::path root = fs::path(o.out.empty() ? cfg.results_dir : o.out) / "clock-scaling";
  std::printf(
      "clock-scaling: %d run(s) per cell, every rank but 0 perturbed (offset %.3f s, drift %.1f ppm, "
      "rank-dependent), probe window %.1f s, load average now %.2f\n",
      o.repetitions, o.offset, o.drift * 1e6, o.wait, LoadAverage());
  const ScalingRuns s = MeasureScalingRuns(cfg, o, root);
  const std::string library = s.cells.empty() ? std::string() : s.cells.begin()->second.library;
  const json table = ScalingTable(s, o, library);
  json model = SyncTimeModel(s, o);
  if (!s.depth_x.empty()) model["tree_error"] = TreeErrorModel(s, o);
  fs::create_directories(root);
  const json doc = {{"library_version", library},
                    {"repetitions", o.repetitions},
                    {"wait_s", o.wait},
                    {"offset_s", o.offset},
                    {"drift_ppm", o.drift * 1e6},
                    {"table", table},
                    {"model", model},
                    {"runs", s.runs}};
  if (const std::string e = WriteFileAtomically(root / "clock-scaling.json", doc.dump(1) + "\n");
      !e.empty()) {
    std::cout << "error: " << e << "\n";
    return kHarnessFailed;
  }
  std::cout << "results: " << (root / "clock-scaling.json").string() << "\n";
  return s.failures == 0 ? kPass : kHarnessFailed;
}

}  // namespace nbcguard
