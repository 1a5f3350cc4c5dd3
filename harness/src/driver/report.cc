#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "nbcguard/results_io.h"
#include "nbcguard/units.h"
#include "nbcguard/validity.h"

namespace nbcguard {

using json = nlohmann::json;

json NumberOrNull(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json SpreadJson(const Spread& s) {
  const auto f = NumberOrNull;
  return {{"median", f(s.median)}, {"ci_lo", f(s.lo)}, {"ci_hi", f(s.hi)}, {"min", f(s.min)},
          {"max", f(s.max)},       {"mad", f(s.mad)},  {"n", s.n},         {"confidence", f(s.confidence)}};
}

namespace {

json ImbalanceJson(const Imbalance& im) {
  return {{"ref_slack", NumberOrNull(im.ref_slack)},
          {"overlap_slack", NumberOrNull(im.overlap_slack)},
          {"ref_ratio", NumberOrNull(im.ref_ratio)},
          {"overlap_ratio", NumberOrNull(im.overlap_ratio)},
          {"slowest_rank", im.slowest_rank},
          {"fastest_rank", im.fastest_rank},
          {"effect", NumberOrNull(im.effect)},
          {"flagged", im.flagged},
          {"bound", kImbalanceBound}};
}

// The machine-noise sentinel at a point (docs/results-format.md).
json SentinelTallyJson(const SentinelTally& t) {
  return {{"wanted", t.wanted},
          {"kept", t.kept},
          {"redone_slow_probe", t.redone_slow_probe},
          {"redone_foreign_wait", t.redone_foreign_wait},
          {"max_probe_ratio", t.max_probe_ratio},
          {"median_foreign_share", t.median_foreign_share},
          {"preemptions", t.preemptions}};
}

// The collective alone at the point's calibrated size (docs/results-format.md).
json SpeedJson(const CollectiveSpeed& s) {
  return {{"bytes_per_rank", static_cast<std::uint64_t>(s.bytes_per_rank)},
          {"time_s", SpreadJson(s.time)},
          {"bandwidth_bytes_per_s", SpreadJson(s.bandwidth)}};
}

}  // namespace

json ResultsJson(const RunInfo& info, const RawRun& raw, const Reduction& red, const Verdict& v) {
  json points = json::array();
  for (const PointResult& p : red.points) {
    json jp = {{"comm_target", p.comm_target}, {"comp_target", p.comp_target}, {"valid", p.valid}};
    if (!p.valid) jp["invalid_reason"] = p.invalid_reason;
    // Measured points, and points a validity gate refused (their figures
    // are the evidence for the reason; consumers read them only when valid).
    if (p.valid || p.r_overhead.n > 0) {
      jp.update({{"t_comm_ref", p.t_comm_ref},
                 {"t_comp_ref", p.t_comp_ref},
                 {"t_measured", p.t_measured},
                 {"t_call", p.t_call},
                 {"t_comp", p.t_comp},
                 {"t_wait", p.t_wait},
                 {"r_overhead", SpreadJson(p.r_overhead)},
                 {"r_comm", SpreadJson(p.r_comm)},
                 {"r_comp_slowdown", SpreadJson(p.r_comp_slowdown)},
                 {"osu_overlap_pct", NumberOrNull(p.osu_overlap_pct)},
                 {"imb_overlap_pct", NumberOrNull(p.imb_overlap_pct)}});
      if (p.speed.Measured()) jp["collective_speed"] = SpeedJson(p.speed);
      if (p.progress_tests >= 0) jp["progress_tests"] = p.progress_tests;
      if (std::isfinite(p.init_s)) jp["init_s"] = p.init_s;
      json ranks = json::array();
      for (std::size_t r = 0; r < p.per_rank.size(); ++r)
        ranks.push_back({{"rank", r},
                         {"comm_start", p.per_rank[r].start},
                         {"comm_call", p.per_rank[r].call},
                         {"comm_end", p.per_rank[r].end}});
      jp["per_rank"] = ranks;
      auto late = [](const std::vector<std::pair<int, double>>& v) {
        json a = json::array();
        for (const auto& [rank, extra] : v) a.push_back({{"rank", rank}, {"delay", extra}});
        return a;
      };
      jp["late_ranks"] = late(p.late_ranks);
      jp["late_exits"] = late(p.late_exits);
      jp["imbalance"] = ImbalanceJson(p.imbalance);
      jp["comp_ref_spread"] = NumberOrNull(p.comp_ref_spread);
      jp["comm_ref_spread"] = NumberOrNull(p.comm_ref_spread);
      jp["start_skew"] = NumberOrNull(p.start_skew);
    }
    if (p.sentinel.wanted > 0) jp["sentinel"] = SentinelTallyJson(p.sentinel);
    jp["r_mpi_impact"] = SpreadJson(p.r_mpi_impact);
    jp["cpu_busy_nbc"] = SpreadJson(p.cpu_busy_nbc);
    jp["cpu_busy_blocking"] = SpreadJson(p.cpu_busy_blocking);
    jp["diagnosis"] = ToString(p.diagnosis);
    points.push_back(jp);
  }
  json results =
      CommonResultsJson({raw, info.implementation_label, info.launch, info.deployment_env, red.clock,
                         red.barrier, red.late_redone, red.samples, red.conformance_error});
  results.update({
      {"case",
       {{"name", info.case_name},
        {"file", info.case_file},
        {"collective", info.collective},
        {"nodes", info.nodes},
        {"deployment", info.deployment},
        {"threads", info.threads}}},
      {"reference", info.reference_json},
      {"progression", info.progression},
      {"binding", red.binding},
      {"calibration", red.calibration},
      {"mpi_impact", red.mpi_impact},
      {"cpu_overhead", red.cpu_overhead},
      {"machine_noise", red.machine_noise},
      {"points", points},
      {"verdict", VerdictJson(v, info.threshold_file)},
  });
  if (!info.repetitions.is_null()) results["case"]["repetitions"] = info.repetitions;
  return results;
}

json CommonResultsJson(const CommonResults& c) {
  json env = c.raw.context.is_object() ? c.raw.context : json::object();
  env.erase("type");
  return {
      {"schema", "nbcguard-results/1"},
      {"schema_version", kResultsSchemaVersion},
      {"environment", env},
      {"implementation_label", c.implementation_label},
      {"launch", c.launch},
      {"deployment_environment", c.deployment_env},
      {"run", {{"completed", c.raw.ended}, {"status", c.raw.status}, {"torn_lines", c.raw.truncated_lines}}},
      {"clock_sync", c.clock},
      {"barrier_skew", c.barrier},
      {"late_samples_redone", c.late_redone},
      {"samples", c.samples},
      {"conformance_error", c.conformance_error},
  };
}

json VerdictJson(const Verdict& v, const std::string& threshold_file) {
  auto findings = [](const std::vector<Finding>& fs) {
    json a = json::array();
    for (const Finding& f : fs) {
      json j = {{"rule", f.rule},
                {"comm_target", f.comm_target},
                {"comp_target", f.comp_target},
                {"metric", MetricName(f.metric)},
                {"measured", SpreadJson(f.measured)},
                {"limit", f.limit},
                {"kind", f.is_max ? "max" : "min"},
                {"diagnosis", ToString(f.diagnosis)},
                {"message", f.Message()}};
      if (f.again.n > 0) j["measured_again"] = SpreadJson(f.again);
      if (f.within_between) j["between_jobs"] = {{"sigma", f.between.sigma}, {"nights", f.between.nights}};
      a.push_back(j);
    }
    return a;
  };
  auto points = [](const std::vector<std::pair<double, double>>& at) {  // [comm_target, comp_target]
    json a = json::array();
    for (const auto& [comm, comp] : at) a.push_back({comm, comp});
    return a;
  };
  return {{"pass", v.pass},
          {"inconclusive", v.Inconclusive()},
          {"summary", v.Summary()},
          {"threshold_file", threshold_file},
          {"checked", points(v.checked)},  // the points the thresholds judged
          {"failures", findings(v.failures)},
          {"within_noise", findings(v.within_noise)},
          {"not_confirmed", findings(v.unconfirmed)},
          {"one_job_only", findings(v.one_job)},
          {"invalid", v.InvalidLines()},
          {"invalid_measured_again", v.remeasured},
          {"measured_again_points", points(v.remeasured_at)}};
}

std::vector<Measurement> OverlapMeasurements(const Reduction& red, const Verdict& v) {
  // Worst medians over the valid points; r_overhead also over the region the
  // thresholds judged (what a night-to-night plot of the verdict should show).
  double worst = NAN, worst_checked = NAN, impact = NAN, cpu_nbc = NAN, cpu_blocking = NAN;
  int invalid = 0;
  for (const PointResult& p : red.points) {
    if (!p.valid) {
      ++invalid;
      continue;
    }
    if (!(worst >= p.r_overhead.median)) worst = p.r_overhead.median;
    const bool checked = std::find(v.checked.begin(), v.checked.end(),
                                   std::make_pair(p.comm_target, p.comp_target)) != v.checked.end();
    if (checked && !(worst_checked >= p.r_overhead.median)) worst_checked = p.r_overhead.median;
    if (std::isfinite(p.r_mpi_impact.median) && !(impact >= p.r_mpi_impact.median))
      impact = p.r_mpi_impact.median;
    if (std::isfinite(p.cpu_busy_nbc.median) && !(cpu_nbc >= p.cpu_busy_nbc.median))
      cpu_nbc = p.cpu_busy_nbc.median;
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
  return {Measurement::Numeric("worst r_overhead in checked region", worst_checked),
          Measurement::Numeric("worst r_overhead", worst),
          Measurement::Numeric("max r_mpi_impact", impact),
          Measurement::Numeric("max cpu_busy_nbc", cpu_nbc),
          Measurement::Numeric("max cpu_busy_blocking", cpu_blocking),
          Measurement::Numeric("sync precision us", rtt / 2 * 1e6),
          Measurement::Numeric("clock residual us", res * 1e6),
          Measurement::Numeric("invalid points", invalid),
          Measurement::Numeric("limits exceeded", static_cast<double>(v.failures.size()))};
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
