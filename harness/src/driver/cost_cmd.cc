#include "cost_cmd.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "nbcguard/driver_common.h"
#include "nbcguard/results_io.h"
#include "report.h"
#include "results_files.h"

namespace nbcguard {

namespace {

using json = nlohmann::json;

struct Cost {
  // Seconds: the test's wall time; the harness job's launch, setup,
  // MPI_Init, MPI_Finalize and exit (the job minus its phases); the overlap job's
  // phases; the timed samples (every kept sample's span, both jobs); the
  // r_mpi_impact jobs; the confirmation job; the rest (the driver's own
  // work: reading, judging, drawing, writing).
  double total = 0, launch = 0, sync = 0, calibration = 0, measurement = 0, timed = 0, impact = 0,
         confirm = 0;
  int targets = 0, evaluations = 0;
  std::map<std::string, int> cache;  // hit / stale / miss / off -> targets
  double Other() const { return total - launch - sync - calibration - measurement - impact - confirm; }
  void Add(const Cost& o) {
    total += o.total;
    launch += o.launch;
    sync += o.sync;
    calibration += o.calibration;
    measurement += o.measurement;
    timed += o.timed;
    impact += o.impact;
    confirm += o.confirm;
    targets += o.targets;
    evaluations += o.evaluations;
    for (const auto& [k, n] : o.cache) cache[k] += n;
  }
};

// A phase's seconds from a cost record; a phase the run did not report is
// null (the schema allows it): 0 s.
double Seconds(const json& cost, const char* key) {
  const auto it = cost.find(key);
  return it != cost.end() && it->is_number() ? it->get<double>() : 0.0;
}

// The sum of the kept samples' durations as the ratios use them (the
// communication reference and the overlap run from the first rank's start
// to the last rank's end, the computation reference the slowest rank's):
// the two references and the overlap runs of every valid point.
double TimedSeconds(const json& results) {
  double sum = 0;
  const auto samples = results.find("samples");
  if (samples == results.end() || !samples->is_array()) return 0;
  auto add = [&sum](const json& v) {
    if (v.is_number()) sum += v.get<double>();
  };
  for (const json& point : *samples) {
    if (!point.is_object()) continue;
    for (const char* ref : {"t_comm_ref", "t_comp_ref"})
      if (point.contains(ref) && point[ref].is_array())
        for (const json& v : point[ref]) add(v);
    if (point.contains("overlap") && point["overlap"].is_array())
      for (const json& row : point["overlap"])
        if (row.is_array() && !row.empty()) add(row[0]);  // t_measured
  }
  return sum;
}

std::string Format(double s) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.1f", s);
  return b;
}

std::string Row(const std::string& name, const Cost& c) {
  char b[640];
  const double per = c.targets > 0 ? static_cast<double>(c.evaluations) / c.targets : NAN;
  const double duty = c.total > 0 ? 100 * c.timed / c.total : NAN;
  std::snprintf(b, sizeof(b), "%-40s %7s %6s %5s %6s %6s %6s %6s %7s %6s %5.0f %4d %5.1f  %d/%d/%d",
                name.c_str(), Format(c.total).c_str(), Format(c.launch).c_str(), Format(c.sync).c_str(),
                Format(c.calibration).c_str(), Format(c.measurement).c_str(), Format(c.timed).c_str(),
                Format(c.impact).c_str(), Format(c.confirm).c_str(), Format(c.Other()).c_str(), duty,
                c.targets, per, c.cache.count("hit") ? c.cache.at("hit") : 0,
                c.cache.count("stale") ? c.cache.at("stale") : 0,
                c.cache.count("miss") ? c.cache.at("miss") : 0);
  return b;
}

}  // namespace

int CostCommand(const std::vector<std::string>& dirs, std::ostream& out) {
  std::vector<std::string> missing;
  std::map<std::string, Cost> per_library;
  Cost all;
  int files = 0;
  out << "test                                     total s launch  sync  calib  meas.  timed impact confirm  other duty% "
         "tgts evals  cache hit/stale/miss\n";
  std::vector<std::string> unreadable;
  for (const auto& path : FindResultsFiles(dirs, &missing)) {
    const ResultsRead read = ReadResults(path);
    if (!read.ok()) {
      unreadable.push_back(read.error);
      continue;
    }
    const json& j = read.doc->json;
    if (!j.contains("cost")) continue;
    ++files;
    const json& k = j["cost"];
    Cost c;
    c.total = Seconds(k, "total");
    c.sync = Seconds(k, "sync");
    c.calibration = Seconds(k, "calibration");
    c.measurement = Seconds(k, "measurement");
    // Launch (with the harness's setup before its clock sync) is the job
    // minus its phases; a job that ended before writing them (a failure)
    // has no launch figure, and its time stays under "other".
    const bool phases = k.contains("sync") && k["sync"].is_number() && k.contains("calibration") &&
                        k["calibration"].is_number() && k.contains("measurement") &&
                        k["measurement"].is_number();
    if (phases) c.launch = std::max(0.0, Seconds(k, "harness_job") - c.sync - c.calibration - c.measurement);
    c.impact = Seconds(k, "mpi_impact_jobs");
    c.timed = TimedSeconds(j);
    // The confirmation job (confirm/confirmation.json): its cost's total is
    // the whole test's, from the same start.
    const std::filesystem::path confirmation = path.parent_path() / "confirm" / "confirmation.json";
    if (std::filesystem::exists(confirmation)) {
      const ResultsRead second = ReadResults(confirmation);
      if (!second.ok()) {
        unreadable.push_back(second.error);
      } else if (second.doc->json.contains("cost")) {
        const double whole = Seconds(second.doc->json["cost"], "total");
        c.confirm = std::max(0.0, whole - c.total);
        c.total = std::max(c.total, whole);
        c.timed += TimedSeconds(second.doc->json);
      }
    }
    const json& cal =
        j.contains("calibration") && j["calibration"].is_object() ? j["calibration"] : json::object();
    const CalibrationTally tally = TallyCalibration(cal);
    c.targets = tally.targets;
    c.evaluations = tally.evaluations;
    c.cache = tally.cache;
    const std::string lib = j.value("implementation_label", std::string("?"));
    const json& cs = j.value("case", json::object());
    const std::string name = lib + " " + cs.value("name", std::string("?")) + " n" +
                             std::to_string(cs.value("nodes", 0)) + " " +
                             cs.value("deployment", std::string("?"));
    out << Row(name, c) << "\n";
    per_library[lib].Add(c);
    all.Add(c);
  }
  for (const std::string& m : missing) out << "not found: " << m << "\n";
  for (const std::string& u : unreadable) out << "unreadable: " << u << "\n";
  if (files == 0) {
    out << "nbcguard cost: no results.json with a cost record under the given directories\n";
    return kUsage;
  }
  out << "\n";
  for (const auto& [lib, c] : per_library) out << Row("sum " + lib, c) << "\n";
  out << Row("sum", all) << "\n";
  out << "total: the test's wall time (s); launch: the overlap job's launch, setup, MPI_Init, MPI_Finalize and exit; sync,\n"
         "calib(ration), meas(urement): its phases; timed: the kept samples' spans (both jobs); impact: the\n"
         "r_mpi_impact jobs; confirm: the confirmation job; other: the driver's own work; duty%: timed / total;\n"
         "evals: size evaluations per calibrated target (a cache hit is 1)\n";
  return kPass;
}

}  // namespace nbcguard
