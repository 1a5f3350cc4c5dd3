#include "cost_cmd.h"

#include <cmath>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "nbcguard/results_io.h"
#include "report.h"
#include "results_files.h"

namespace nbcguard {

namespace {

using json = nlohmann::json;

struct Cost {
  double total = 0, sync = 0, calibration = 0, measurement = 0, impact = 0;
  int targets = 0, evaluations = 0;
  std::map<std::string, int> cache;  // hit / stale / miss / off -> targets
  void Add(const Cost& o) {
    total += o.total;
    sync += o.sync;
    calibration += o.calibration;
    measurement += o.measurement;
    impact += o.impact;
    targets += o.targets;
    evaluations += o.evaluations;
    for (const auto& [k, n] : o.cache) cache[k] += n;
  }
};

std::string Seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.1f", s);
  return b;
}

std::string Row(const std::string& name, const Cost& c) {
  char b[512];
  const double per = c.targets > 0 ? static_cast<double>(c.evaluations) / c.targets : NAN;
  std::snprintf(
      b, sizeof(b), "%-44s %8s %6s %6s %6s %6s %4d %5.1f  %d/%d/%d", name.c_str(), Seconds(c.total).c_str(),
      Seconds(c.sync).c_str(), Seconds(c.calibration).c_str(), Seconds(c.measurement).c_str(),
      Seconds(c.impact).c_str(), c.targets, per, c.cache.count("hit") ? c.cache.at("hit") : 0,
      c.cache.count("stale") ? c.cache.at("stale") : 0, c.cache.count("miss") ? c.cache.at("miss") : 0);
  return b;
}

}  // namespace

int CostCommand(const std::vector<std::string>& dirs, std::ostream& out) {
  std::vector<std::string> missing;
  std::map<std::string, Cost> per_library;
  Cost all;
  int files = 0;
  out << "test                                          total s   sync  calib  meas. impact tgts evals  cache hit/stale/miss\n";
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
    // A phase the run did not report is null (the schema allows it): 0 s.
    auto seconds = [&](const char* key) {
      const auto it = k.find(key);
      return it != k.end() && it->is_number() ? it->get<double>() : 0.0;
    };
    Cost c;
    c.total = seconds("total");
    c.sync = seconds("sync");
    c.calibration = seconds("calibration");
    c.measurement = seconds("measurement");
    c.impact = seconds("mpi_impact_jobs");
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
    return 2;
  }
  out << "\n";
  for (const auto& [lib, c] : per_library) out << Row("sum " + lib, c) << "\n";
  out << Row("sum", all) << "\n";
  out << "total: the test's wall time; sync, calib(ration), meas(urement): the overlap job's phases; impact: the\n"
         "r_mpi_impact jobs; evals: size evaluations per calibrated target (a cache hit is 1)\n";
  return 0;
}

}  // namespace nbcguard
