#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <map>
#include <sstream>

#include "nbcguard/results_io.h"
#include "nbcguard/units.h"

namespace nbcguard {

using json = nlohmann::json;

namespace {

std::string Num(double v, int precision = 2) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.*f", precision, v);
  return buf;
}

std::string Dur(double s) { return std::isfinite(s) && s > 0 ? FormatDuration(s) : "-"; }

std::string Us(double s) { return std::isfinite(s) ? Num(s * 1e6, 2) + " us" : "-"; }

std::string Cell(const Spread& s) {
  if (s.n == 0 || !std::isfinite(s.median)) return "-";
  return Num(s.median) + " [" + Num(s.lo) + "," + Num(s.hi) + "]";
}

}  // namespace

json SpreadJson(const Spread& s) {
  auto f = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  return {{"median", f(s.median)}, {"ci_lo", f(s.lo)}, {"ci_hi", f(s.hi)}, {"min", f(s.min)},
          {"max", f(s.max)}, {"mad", f(s.mad)}, {"n", s.n}, {"confidence", f(s.confidence)}};
}

// "calibration: 4 targets, 9 size evaluations; cache: 3 hit, 1 stale, 0 miss (dir/file)".
std::string CalibrationLine(const nlohmann::json& cal) {
  CalibrationTally tally = TallyCalibration(cal);
  std::map<std::string, int>& use = tally.cache;
  std::string line = "calibration: " + std::to_string(tally.targets) + " targets, " +
                     std::to_string(tally.evaluations) + " size evaluations; cache: ";
  if (!cal.contains("cache")) return line + "off";
  const nlohmann::json& c = cal["cache"];
  line += std::to_string(use["hit"]) + " hit, " + std::to_string(use["stale"]) + " stale, " +
          std::to_string(use["miss"]) + " miss (" + c.value("dir", "") + "/" + c.value("file", "") + ")";
  if (!c.value("error", "").empty()) line += "; unreadable, rewritten: " + c.value("error", "");
  if (c.contains("store_error")) line += "; not updated: " + c["store_error"].get<std::string>();
  return line;
}

void PrintTable(std::ostream& out, const RunInfo& info, const Reduction& red, const Verdict& v) {
  out << "nbcguard: " << info.collective << " on " << info.nodes << " ranks x " << info.threads
      << " compute thread(s), deployment " << info.deployment << ", " << info.library_version << "\n";
  if (!info.reference.empty())
    out << "REFERENCE BEHAVIOUR " << info.reference
        << ": libnbcguard-reference replaced the library's progression; these figures are the "
           "reference's, not the library's\n";
  if (info.progression.is_object()) {
    const json& pr = info.progression;
    out << "progression: " << pr.value("strategy", "?") << ", MPI_Test every "
        << FormatDuration(pr.value("interval", 0.0))
        << (pr.value("strategy", "") == "poll" ? " from inside the computation (its master thread)"
                                               : " from a progress thread of each rank");
    if (pr.contains("placement")) {
      const json& pl = pr["placement"];
      out << "; placement " << pl.value("policy", "?") << " on " << pl.value("topology", "?") << ":";
      for (const json& r : pl.value("ranks", json::array())) {
        std::string cores;
        for (const json& c : r["compute_cores"]) cores += (cores.empty() ? "" : ",") + std::to_string(c.get<int>());
        out << " rank " << r.value("rank", -1) << " computes on " << cores << ", progress thread on "
            << r.value("progress_core", -1) << ";";
      }
    }
    out << "\n";
  }
  double worst_rtt = 0, worst_res = 0;
  for (const json& c : red.clock) {
    worst_rtt = std::max(worst_rtt, c.value("min_rtt_s", 0.0));
    worst_res = std::max(worst_res, c.value("residual_rms_s", 0.0));
  }
  out << "clock sync: offset uncertainty <= " << Us(worst_rtt / 2) << " (min RTT/2), fit residual "
      << Us(worst_res) << " RMS";
  if (red.barrier.is_object()) {
    out << "; exit skew median/max: synchronized barrier "
        << Us(red.barrier["synchronized"].value("median", NAN)) << " / "
        << Us(red.barrier["synchronized"].value("max", NAN)) << ", MPI_Barrier "
        << Us(red.barrier["mpi_barrier"].value("median", NAN)) << " / "
        << Us(red.barrier["mpi_barrier"].value("max", NAN));
  }
  out << "\n";
  out << "samples redone because a rank was late at the synchronized barrier: " << red.late_redone << "\n";
  out << CalibrationLine(red.calibration) << "\n";
  out << "ratios: median [95% CI of the median]; r_overhead 0 = overlap, 1 = serialized, >1 = worse\n";
  out << std::left << std::setw(7) << "comm" << std::setw(7) << "comp" << std::setw(10) << "comm_ref"
      << std::setw(10) << "comp_ref" << std::setw(10) << "measured" << std::setw(20) << "r_overhead"
      << std::setw(6) << "OSU%" << std::setw(6) << "IMB%"
      << std::setw(20) << "r_comm" << std::setw(20) << "r_comp_slowdown" << std::setw(18)
      << "r_mpi_impact" << std::setw(18) << "cpu_busy_nbc" << std::setw(18) << "cpu_busy_blocking"
      << "diagnosis\n";
  for (const PointResult& p : red.points) {
    out << std::setw(7) << FormatDuration(p.comm_target) << std::setw(7) << FormatDuration(p.comp_target);
    if (!p.valid) {
      out << "INVALID: " << p.invalid_reason << "\n";
      continue;
    }
    out << std::setw(10) << Dur(p.t_comm_ref) << std::setw(10) << Dur(p.t_comp_ref) << std::setw(10)
        << Dur(p.t_measured) << std::setw(20) << Cell(p.r_overhead) << std::setw(6)
        << Num(p.osu_overlap_pct.median, 0) << std::setw(6) << Num(p.imb_overlap_pct.median, 0)
        << std::setw(20) << Cell(p.r_comm)
        << std::setw(20) << Cell(p.r_comp_slowdown) << std::setw(18) << Cell(p.r_mpi_impact)
        << std::setw(18) << Cell(p.cpu_busy_nbc) << std::setw(18) << Cell(p.cpu_busy_blocking)
        << ToString(p.diagnosis) << "\n";
  }
  out << "OSU%, IMB%: the overlap percentages those benchmarks would report from the same samples "
         "(100 = hidden, 0 = serialized or worse; for comparison, not verdicts)\n";
  std::string tests;
  for (const PointResult& p : red.points)
    if (p.valid && p.progress_tests >= 0)
      tests += " " + FormatDuration(p.comm_target) + " x " + FormatDuration(p.comp_target) + ": " +
               Num(p.progress_tests, 0) + ";";
  if (!tests.empty()) out << "MPI_Test calls per overlap run (rank 0, median):" << tests << "\n";
  out << "cpu_busy_nbc, cpu_busy_blocking: process CPU time / wall time inside MPI_I<coll> + MPI_Wait and "
         "inside the blocking call, busiest rank (1 = the CPU polled throughout, 0 = left free, > 1 = more "
         "than one thread busy); per communication size\n";
  for (const json& row : red.cpu_overhead)
    for (const char* key : {"warning", "resolution", "error"})
      if (row.contains(key) && row[key].is_string())
        out << "cpu overhead at " << FormatDuration(row.value("comm_target", 0.0)) << ": "
            << row[key].get<std::string>() << "\n";
  for (const PointResult& p : red.points) {
    for (const auto& [rank, extra] : p.late_ranks) {
      const auto& t = p.per_rank[rank];
      out << "late rank at " << FormatDuration(p.comm_target) << " x " << FormatDuration(p.comp_target)
          << ": rank " << rank << " entered the collective " << Dur(extra)
          << " after the others (start call " << Dur(t.call) << ", end " << Dur(t.end)
          << " after the first rank's start)\n";
    }
    for (const auto& [rank, extra] : p.late_exits) {
      out << "late exit at " << FormatDuration(p.comm_target) << " x " << FormatDuration(p.comp_target)
          << ": rank " << rank << " left the collective " << Dur(extra) << " after the others (end "
          << Dur(p.per_rank[rank].end) << " after the first rank's start)\n";
    }
  }
  if (!red.conformance_error.empty()) out << "CONFORMANCE FAILURE: " << red.conformance_error << "\n";
  out << "thresholds: " << info.threshold_file << "\n";
  for (const Finding& f : v.failures) out << "  FAIL " << f.Message() << "\n";
  for (const Finding& f : v.within_noise) out << "  within noise: " << f.Message() << "\n";
  for (const InvalidPoint& i : v.invalid) out << "  INVALID " << i.line << "\n";
  out << "verdict: " << v.Summary() << "\n";
}

json ResultsJson(const RunInfo& info, const RawRun& raw, const Reduction& red, const Verdict& v) {
  json points = json::array();
  for (const PointResult& p : red.points) {
    json jp = {{"comm_target", p.comm_target}, {"comp_target", p.comp_target}, {"valid", p.valid}};
    if (!p.valid) jp["invalid_reason"] = p.invalid_reason;
    else {
      jp.update({{"t_comm_ref", p.t_comm_ref}, {"t_comp_ref", p.t_comp_ref}, {"t_measured", p.t_measured},
                 {"t_call", p.t_call}, {"t_comp", p.t_comp}, {"t_wait", p.t_wait},
                 {"r_overhead", SpreadJson(p.r_overhead)}, {"r_comm", SpreadJson(p.r_comm)},
                 {"r_comp_slowdown", SpreadJson(p.r_comp_slowdown)},
                 {"osu_overlap_pct", SpreadJson(p.osu_overlap_pct)},
                 {"imb_overlap_pct", SpreadJson(p.imb_overlap_pct)}});
      if (p.progress_tests >= 0) jp["progress_tests"] = p.progress_tests;
      json ranks = json::array();
      for (std::size_t r = 0; r < p.per_rank.size(); ++r)
        ranks.push_back({{"rank", r}, {"comm_start", p.per_rank[r].start}, {"comm_call", p.per_rank[r].call},
                         {"comm_end", p.per_rank[r].end}});
      jp["per_rank"] = ranks;
      auto late = [](const std::vector<std::pair<int, double>>& v) {
        json a = json::array();
        for (const auto& [rank, extra] : v) a.push_back({{"rank", rank}, {"delay", extra}});
        return a;
      };
      jp["late_ranks"] = late(p.late_ranks);
      jp["late_exits"] = late(p.late_exits);
    }
    jp["r_mpi_impact"] = SpreadJson(p.r_mpi_impact);
    jp["cpu_busy_nbc"] = SpreadJson(p.cpu_busy_nbc);
    jp["cpu_busy_blocking"] = SpreadJson(p.cpu_busy_blocking);
    jp["diagnosis"] = ToString(p.diagnosis);
    points.push_back(jp);
  }
  json env = raw.context.is_object() ? raw.context : json::object();
  env.erase("type");
  return {
      {"schema", "nbcguard-results/1"},
      {"schema_version", kResultsSchemaVersion},
      {"case", {{"name", info.case_name}, {"file", info.case_file}, {"collective", info.collective},
                {"nodes", info.nodes}, {"deployment", info.deployment}, {"threads", info.threads}}},
      {"environment", env},
      {"implementation_label", info.implementation_label},
      {"launch", info.launch},
      {"deployment_environment", info.deployment_env},
      {"reference", info.reference_json},
      {"progression", info.progression},
      {"run", {{"completed", raw.ended}, {"status", raw.status}, {"torn_lines", raw.truncated_lines}}},
      {"clock_sync", red.clock},
      {"barrier_skew", red.barrier},
      {"late_samples_redone", red.late_redone},
      {"calibration", red.calibration},
      {"mpi_impact", red.mpi_impact},
      {"cpu_overhead", red.cpu_overhead},
      {"points", points},
      {"samples", red.samples},
      {"conformance_error", red.conformance_error},
      {"verdict", VerdictJson(v, info.threshold_file)},
  };
}

json VerdictJson(const Verdict& v, const std::string& threshold_file) {
  auto findings = [](const std::vector<Finding>& fs) {
    json a = json::array();
    for (const Finding& f : fs) {
      json j = {{"rule", f.rule}, {"comm_target", f.comm_target}, {"comp_target", f.comp_target},
                {"metric", MetricName(f.metric)}, {"measured", SpreadJson(f.measured)},
                {"limit", f.limit}, {"kind", f.is_max ? "max" : "min"},
                {"diagnosis", ToString(f.diagnosis)}, {"message", f.Message()}};
      if (f.again.n > 0) j["measured_again"] = SpreadJson(f.again);
      a.push_back(j);
    }
    return a;
  };
  json checked = json::array();  // the points the thresholds judged: [comm_target, comp_target]
  for (const auto& [comm, comp] : v.checked) checked.push_back({comm, comp});
  return {{"pass", v.pass}, {"summary", v.Summary()}, {"threshold_file", threshold_file},
          {"checked", checked}, {"failures", findings(v.failures)}, {"within_noise", findings(v.within_noise)},
          {"not_confirmed", findings(v.unconfirmed)}, {"invalid", v.InvalidLines()},
          {"invalid_measured_again", v.remeasured}};
}

void PrintCTestMeasurements(std::ostream& out, const Reduction& red, const Verdict& v) {
  // Worst medians over the valid points; r_overhead also over the region the
  // thresholds judged (what a night-to-night plot of the verdict should show).
  double worst = NAN, worst_checked = NAN, impact = NAN, cpu_nbc = NAN, cpu_blocking = NAN;
  int invalid = 0;
  for (const PointResult& p : red.points) {
    if (!p.valid) { ++invalid; continue; }
    if (!(worst >= p.r_overhead.median)) worst = p.r_overhead.median;
    const bool checked = std::find(v.checked.begin(), v.checked.end(),
                                   std::make_pair(p.comm_target, p.comp_target)) != v.checked.end();
    if (checked && !(worst_checked >= p.r_overhead.median)) worst_checked = p.r_overhead.median;
    if (std::isfinite(p.r_mpi_impact.median) && !(impact >= p.r_mpi_impact.median)) impact = p.r_mpi_impact.median;
    if (std::isfinite(p.cpu_busy_nbc.median) && !(cpu_nbc >= p.cpu_busy_nbc.median)) cpu_nbc = p.cpu_busy_nbc.median;
    if (std::isfinite(p.cpu_busy_blocking.median) && !(cpu_blocking >= p.cpu_busy_blocking.median))
      cpu_blocking = p.cpu_busy_blocking.median;
  }
  // Sync precision: the largest offset uncertainty (min RTT / 2) over ranks,
  // and the largest residual of the clock fit.
  double res = 0, rtt = 0;
  for (const json& c : red.clock) {
    res = std::max(res, c.value("residual_rms_s", 0.0));
    rtt = std::max(rtt, c.value("min_rtt_s", 0.0));
  }
  auto tag = [&](const char* name, double value) {
    out << "<DartMeasurement type=\"numeric/double\" name=\"" << name << "\">" << value << "</DartMeasurement>\n";
  };
  tag("worst r_overhead in checked region", worst_checked);
  tag("worst r_overhead", worst);
  tag("max r_mpi_impact", impact);
  tag("max cpu_busy_nbc", cpu_nbc);
  tag("max cpu_busy_blocking", cpu_blocking);
  tag("sync precision us", rtt / 2 * 1e6);
  tag("clock residual us", res * 1e6);
  tag("invalid points", invalid);
  tag("limits exceeded", static_cast<double>(v.failures.size()));
}

CalibrationTally TallyCalibration(const nlohmann::json& calibration) {
  CalibrationTally t;
  for (const char* axis : {"comm", "comp"}) {
    for (const nlohmann::json& rec : calibration.value(axis, nlohmann::json::array())) {
      ++t.targets;
      ++t.cache[rec.value("cache", std::string("off"))];
      for (const nlohmann::json& a : rec.value("attempts", nlohmann::json::array()))
        t.evaluations += static_cast<int>(a.value("steps", nlohmann::json::array()).size());
    }
  }
  return t;
}

}  // namespace nbcguard
