#include "console.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <map>

#include "nbcguard/binding.h"
#include "nbcguard/raw_records.h"
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

std::string SpreadCell(const Spread& s) {
  if (s.n == 0 || !std::isfinite(s.median)) return "-";
  return Num(s.median) + " [" + Num(s.lo) + "," + Num(s.hi) + "]";
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
          std::to_string(use["miss"]) + " miss";
  if (use["dropped"] > 0) line += ", " + std::to_string(use["dropped"]) + " dropped";
  line += " (" + c.value("dir", "") + "/" + c.value("file", "") + ")";
  if (!c.value("error", "").empty()) line += "; unreadable, rewritten: " + c.value("error", "");
  if (c.contains("store_error")) line += "; not updated: " + c["store_error"].get<std::string>();
  // Entries not used, each on a line of its own: malformed ones, then
  // sizes that could not start a search or measured far off their target.
  for (const nlohmann::json& d : c.value("dropped", nlohmann::json::array()))
    if (d.is_string()) line += "\ncalibration cache: " + d.get<std::string>();
  for (const char* axis : {"comp", "comm"})
    for (const nlohmann::json& rec : cal.value(axis, nlohmann::json::array()))
      if (!rec.value("cache_note", "").empty()) line += "\ncalibration cache: " + rec.value("cache_note", "");
  return line;
}

// "machine sentinel: 3 samples redone as disturbed (2 slow probe, 1 waited
// for a CPU), 0 points refused", or that it was off.
std::string SentinelLine(const nlohmann::json& noise) {
  if (!noise.value("enabled", true)) return "machine sentinel: off (every sample kept)";
  const int slow = noise.value("redone_slow_probe", 0), wait = noise.value("redone_foreign_wait", 0);
  return "machine sentinel: " + std::to_string(slow + wait) + " samples redone as disturbed (" +
         std::to_string(slow) + " slow probe, " + std::to_string(wait) +
         " waited for a CPU another process held), " + std::to_string(noise.value("points_refused", 0)) +
         " points refused";
}

// What ran: collective, ranks, deployment, library, reference behaviour
// and application-side progression.
void PrintRunContext(std::ostream& out, const RunInfo& info) {
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
        for (const json& c : r["compute_cores"])
          cores += (cores.empty() ? "" : ",") + std::to_string(c.get<int>());
        out << " rank " << r.value("rank", -1) << " computes on " << cores << ", progress thread on "
            << r.value("progress_core", -1) << ";";
      }
    }
    out << "\n";
  }
}

// Where each rank computed, and a warning when the ranks shared cores.
void PrintBinding(std::ostream& out, const json& binding) {
  if (!binding.is_object()) return;
  out << BindingLine(binding) << "\n";
  if (binding.value("oversubscribed", false))
    out << "WARNING: " << binding.value("oversubscription", "")
        << "; measured anyway (oversubscribe: allow): every point INVALID\n";
}

}  // namespace

std::string Us(double s) { return std::isfinite(s) ? Num(s * 1e6, 2) + " us" : "-"; }

void PrintClockSync(std::ostream& out, const nlohmann::json& clock) {
  double worst_rtt = 0, worst_res = 0;
  for (const json& c : clock) {
    worst_rtt = std::max(worst_rtt, c.value("min_rtt_s", 0.0));
    worst_res = std::max(worst_res, c.value("residual_rms_s", 0.0));
  }
  out << "clock sync: offset uncertainty <= " << Us(worst_rtt / 2) << " (min RTT/2), fit residual "
      << Us(worst_res) << " RMS";
}

void PrintTable(std::ostream& out, const RunInfo& info, const Reduction& red, const Verdict& v) {
  PrintRunContext(out, info);
  PrintBinding(out, red.binding);
  PrintClockSync(out, red.clock);
  if (red.barrier.is_object()) {
    out << "; exit skew median/max: synchronized barrier "
        << Us(red.barrier["synchronized"].value("median", NAN)) << " / "
        << Us(red.barrier["synchronized"].value("max", NAN)) << ", MPI_Barrier "
        << Us(red.barrier["mpi_barrier"].value("median", NAN)) << " / "
        << Us(red.barrier["mpi_barrier"].value("max", NAN));
  }
  out << "\n";
  out << "samples redone because a rank was late at the synchronized barrier: " << red.late_redone << "\n";
  if (red.machine_noise.is_object()) out << SentinelLine(red.machine_noise) << "\n";
  out << CalibrationLine(red.calibration) << "\n";
  out << "ratios: median [95% CI of the median]; r_overhead 0 = overlap, 1 = serialized, >1 = worse\n";
  out << std::left << std::setw(7) << "comm" << std::setw(7) << "comp" << std::setw(10) << "comm_ref"
      << std::setw(8) << "MB/s" << std::setw(10) << "comp_ref" << std::setw(10) << "measured" << std::setw(20)
      << "r_overhead" << std::setw(6) << "OSU%" << std::setw(6) << "IMB%" << std::setw(20) << "r_comm"
      << std::setw(20) << "r_comp_slowdown" << std::setw(18) << "r_mpi_impact" << std::setw(18)
      << "cpu_busy_nbc" << std::setw(18) << "cpu_busy_blocking"
      << "diagnosis\n";
  for (const PointResult& p : red.points) {
    out << std::setw(7) << FormatDuration(p.comm_target) << std::setw(7) << FormatDuration(p.comp_target);
    if (!p.valid) {
      out << "INVALID: " << p.invalid_reason << "\n";
      continue;
    }
    out << std::setw(10) << Dur(p.t_comm_ref) << std::setw(8) << Num(p.speed.bandwidth.median / 1e6, 0)
        << std::setw(10) << Dur(p.t_comp_ref) << std::setw(10) << Dur(p.t_measured) << std::setw(20)
        << SpreadCell(p.r_overhead) << std::setw(6) << Num(p.osu_overlap_pct, 0) << std::setw(6)
        << Num(p.imb_overlap_pct, 0) << std::setw(20) << SpreadCell(p.r_comm) << std::setw(20)
        << SpreadCell(p.r_comp_slowdown) << std::setw(18) << SpreadCell(p.r_mpi_impact) << std::setw(18)
        << SpreadCell(p.cpu_busy_nbc) << std::setw(18) << SpreadCell(p.cpu_busy_blocking)
        << ToString(p.diagnosis) << "\n";
  }
  out << "MB/s: the collective alone at the calibrated size, bytes per rank / time (median; 10^6 B/s)\n";
  out << "OSU%, IMB%: the overlap percentages OSU micro-benchmarks 7.x and IMB-NBC would print from the same "
         "samples (times averaged over the samples, then one clamp; 100 = hidden, 0 = serialized or worse; "
         "for comparison, not verdicts)\n";
  std::string tests;
  for (const PointResult& p : red.points)
    if (p.valid && p.progress_tests >= 0)
      tests += " " + FormatDuration(p.comm_target) + " x " + FormatDuration(p.comp_target) + ": " +
               Num(p.progress_tests, 0) + ";";
  if (!tests.empty()) out << "MPI_Test calls per overlap run (rank 0, median):" << tests << "\n";
  std::string init;
  for (const PointResult& p : red.points)
    if (p.valid && std::isfinite(p.init_s))
      init += " " + FormatDuration(p.comm_target) + " x " + FormatDuration(p.comp_target) + ": " +
              FormatDuration(p.init_s) + ";";
  if (!init.empty())
    out << "persistent: MPI_<Coll>_init at each point's size (slowest rank, median of "
        << record::kInitTimings << " calls; not in t_comm or any ratio):" << init << "\n";
  out << "cpu_busy_nbc, cpu_busy_blocking: process CPU time / wall time inside MPI_I<coll> + MPI_Wait and "
         "inside the blocking call, busiest rank (1 = the CPU polled throughout, 0 = left free, > 1 = more "
         "than one thread busy); per communication size\n";
  for (const json& row : red.cpu_overhead)
    for (const char* key : {"warning", "resolution", "error"})
      if (row.contains(key) && row[key].is_string())
        out << "cpu overhead at " << FormatDuration(row.value("comm_target", 0.0)) << ": "
            << row[key].get<std::string>() << "\n";
  for (const PointResult& p : red.points) {
    if (p.valid && p.imbalance.flagged)
      out << "rank imbalance at " << FormatDuration(p.comm_target) << " x " << FormatDuration(p.comp_target)
          << ": rank " << p.imbalance.slowest_rank << " computed " << Num(p.imbalance.ref_ratio, 2)
          << "x as long as rank " << p.imbalance.fastest_rank << " (slack " << Dur(p.imbalance.ref_slack)
          << "; up to " << Num(p.imbalance.effect, 2)
          << " of r_overhead is slack, not progression; limits count it against the library)\n";
    for (const auto& [rank, extra] : p.late_ranks) {
      const auto& t = p.per_rank[rank];
      out << "late rank at " << FormatDuration(p.comm_target) << " x " << FormatDuration(p.comp_target)
          << ": rank " << rank << " entered the collective " << Dur(extra) << " after the others (start call "
          << Dur(t.call) << ", end " << Dur(t.end) << " after the first rank's start)\n";
    }
    for (const auto& [rank, extra] : p.late_exits) {
      out << "late exit at " << FormatDuration(p.comm_target) << " x " << FormatDuration(p.comp_target)
          << ": rank " << rank << " left the collective " << Dur(extra) << " after the others (end "
          << Dur(p.per_rank[rank].end) << " after the first rank's start)\n";
    }
  }
  PrintVerdictLines(out, red.conformance_error, info.threshold_file, v);
}

void PrintVerdictLines(std::ostream& out, const std::string& conformance_error,
                       const std::string& threshold_file, const Verdict& v) {
  if (!conformance_error.empty()) out << "CONFORMANCE FAILURE: " << conformance_error << "\n";
  out << "thresholds: " << threshold_file << "\n";
  for (const Finding& f : v.failures) out << "  FAIL " << f.Message() << "\n";
  for (const Finding& f : v.within_noise) out << "  within noise: " << f.Message() << "\n";
  for (const InvalidPoint& i : v.invalid) out << "  INVALID " << i.line << "\n";
  out << "verdict: " << v.Summary() << "\n";
}

}  // namespace nbcguard
