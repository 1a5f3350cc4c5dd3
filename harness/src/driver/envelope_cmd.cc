#include "envelope_cmd.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "history_store.h"
#include "nbcguard/driver_common.h"
#include "nbcguard/results_io.h"
#include "nbcguard/stats.h"
#include "nbcguard/threshold_init.h"
#include "nbcguard/units.h"
#include "results_files.h"

namespace nbcguard {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Overlap ratios: the largest lower bound of the interval is what a max limit meets.
struct Range {
  int n = 0;
  double lo_med = HUGE_VAL, hi_med = -HUGE_VAL, max_ci_lo = -HUGE_VAL;
  std::vector<double> medians;
};

// Partitioned results: r_partitioned per library and partition size (and,
// per point, order and threads), with the smallest upper bound of the
// confidence interval: what a min limit is compared with.
struct LowRange {
  int n = 0;
  double lo_med = HUGE_VAL, hi_med = -HUGE_VAL, min_ci_hi = HUGE_VAL;
  std::vector<double> medians;
};

struct Ranges {
  bool per_point = false;
  std::map<std::string, Range> overlap;
  std::map<std::pair<std::string, std::uint64_t>, LowRange> partitioned;
  std::map<std::string, int> invalid;

  void AddPartitioned(const json& j);
  void AddOverlap(const json& j);
  void Print() const;
};

void Ranges::AddPartitioned(const json& j) {
  for (const json& p : j["points"]) {
    const std::string at = j.value("implementation_label", "?") + " " + j["case"].value("name", "?") +
                           (per_point ? " " + p.value("order", std::string("?")) +
                                            " threads=" + std::to_string(p.value("threads", 0))
                                      : std::string());
    const std::uint64_t size = p.value("partition_bytes", std::uint64_t{0});
    if (!p.value("valid", false)) {
      ++invalid[at + " " + FormatBytes(size)];
      continue;
    }
    if (!p.contains("r_partitioned")) continue;
    const json& r = p["r_partitioned"];
    if (!r.value("median", json()).is_number() || !r.value("ci_hi", json()).is_number()) continue;
    LowRange& lr = partitioned[{at, size}];
    ++lr.n;
    lr.medians.push_back(r["median"].get<double>());
    lr.lo_med = std::min(lr.lo_med, r["median"].get<double>());
    lr.hi_med = std::max(lr.hi_med, r["median"].get<double>());
    lr.min_ci_hi = std::min(lr.min_ci_hi, r["ci_hi"].get<double>());
  }
}

void Ranges::AddOverlap(const json& j) {
  std::string key = j.value("implementation_label", "?") + " " + j["case"].value("deployment", "?");
  if (per_point)
    key = j.value("implementation_label", "?") + " " + j["case"].value("name", "?") + " " +
          j["case"].value("deployment", "?");
  for (const json& p : j["points"]) {
    const std::string at = per_point ? " " + FormatDuration(p.value("comm_target", 0.0)) + "x" +
                                           FormatDuration(p.value("comp_target", 0.0))
                                     : "";
    if (!p.value("valid", false)) {
      ++invalid[key + (per_point ? at : " " + j["case"].value("name", "?"))];
      continue;
    }
    for (const char* m :
         {"r_overhead", "r_comm", "r_comp_slowdown", "r_mpi_impact", "cpu_busy_nbc", "cpu_busy_blocking"}) {
      if (!p.contains(m)) continue;  // results written before the metric existed
      const json& s = p[m];
      if (!s["median"].is_number() || !s["ci_lo"].is_number()) continue;
      Range& r = overlap[key + at + " " + m];
      ++r.n;
      r.medians.push_back(s["median"].get<double>());
      r.lo_med = std::min(r.lo_med, s["median"].get<double>());
      r.hi_med = std::max(r.hi_med, s["median"].get<double>());
      r.max_ci_lo = std::max(r.max_ci_lo, s["ci_lo"].get<double>());
    }
  }
}

void Ranges::Print() const {
  for (const auto& [k, r] : overlap) {
    if (per_point)
      std::printf("%-58s n=%3d  medians %.2f..%.2f (median %.2f)  largest CI lower bound %.2f\n", k.c_str(),
                  r.n, r.lo_med, r.hi_med, Median(r.medians), r.max_ci_lo);
    else
      std::printf("%-36s n=%3d  medians %.2f..%.2f  largest CI lower bound %.2f\n", k.c_str(), r.n, r.lo_med,
                  r.hi_med, r.max_ci_lo);
  }
  for (const auto& [k, r] : partitioned)
    std::printf(
        "%-44s %8s r_partitioned n=%3d  medians %.3g..%.3g (median %.3g)  smallest CI upper bound %.3g\n",
        k.first.c_str(), FormatBytes(k.second).c_str(), r.n, r.lo_med, r.hi_med, Median(r.medians),
        r.min_ci_hi);
  for (const auto& [k, n] : invalid) std::printf("invalid points: %s: %d\n", k.c_str(), n);
}

// The samples a starting threshold file is set from: the limited ratios of
// every valid point of an overlap run.
void AddSamples(const json& j, const std::string& run, std::vector<EnvelopeSample>* samples) {
  const json& c = j["case"];
  for (const json& p : j["points"]) {
    if (!p.value("valid", false)) continue;
    for (const std::string& m : InitMetrics()) {
      if (!p.contains(m) || !p[m]["median"].is_number() || !p[m]["ci_lo"].is_number()) continue;
      samples->push_back({c.value("collective", "?"), c.value("deployment", "?"), c.value("nodes", 0), run, m,
                          p[m]["median"].get<double>(), p[m]["ci_lo"].get<double>()});
    }
  }
}

// A library build: a results.json of it and how its run named it.
struct Build {
  std::string run;
  LibraryId id;
};

int WriteThresholds(const std::vector<std::string>& dirs, const WriteThresholdsOptions& o,
                    const std::map<std::string, Build>& versions,
                    const std::vector<EnvelopeSample>& samples) {
  auto refuse = [&](const std::string& why) {
    std::cerr << "nbcguard envelope: " << why << "; " << o.file << " not written\n";
    return kUsage;
  };
  if (versions.size() != 1) {
    std::string libs;
    for (const auto& [version, build] : versions)
      libs += "\n  " + FirstLine(version) + "  (" + build.run + ")";
    return refuse(versions.empty() ? std::string("no overlap results with a library version")
                                   : "the results are of " + std::to_string(versions.size()) +
                                         " library builds; give the directories of one:" + libs);
  }
  ThresholdInit init;
  const std::string& version = versions.begin()->first;
  init.library = versions.begin()->second.id;
  if (init.library.implementation == "unknown") {
    // A library neither the table nor a threshold file knew: named after
    // its version string's first line, which then identifies it (shorten
    // it to its stable part).
    init.library.implementation = "site-mpi";
    init.identified_by = FirstLine(version);
    if (init.identified_by.size() < 3)
      return refuse("the library's version string starts with '" + init.identified_by +
                    "', too short to identify it by; write the file's identified_by by hand");
  }
  init.margin = o.margin;
  init.min_runs = o.min_runs;
  init.system = o.system;
  std::string command = "nbcguard envelope --write-thresholds";
  for (const std::string& d : dirs) command += " " + d;
  init.measured = UtcIso(std::time(nullptr)).substr(0, 10) + " (" + command + ")";
  std::string error;
  const std::string text = StartingThresholdFile(init, samples, &error);
  if (text.empty()) return refuse(error);
  if (const std::string e = WriteFileAtomically(o.file, text); !e.empty()) return refuse(e);
  std::cout << "wrote " << o.file << ": implementation " << init.library.implementation << " "
            << init.library.version << ", margin " << o.margin << "; check it with nbcguard check " << o.file
            << "\n";
  return kPass;
}

}  // namespace

int Envelope(const std::vector<std::string>& dirs, bool per_point) { return Envelope(dirs, per_point, {}); }

int Envelope(const std::vector<std::string>& dirs, bool per_point, const WriteThresholdsOptions& write) {
  std::vector<EnvelopeSample> samples;
  std::map<std::string, Build> versions;  // each library version string -> a run of it
  Ranges ranges;
  ranges.per_point = per_point;
  int files = 0;
  // One directory per run: a starting file counts runs by the directory
  // given (a run of several cases of one collective is still one run).
  for (const std::string& dir : dirs) {
    std::vector<std::string> missing;  // none: the CLI checked that each directory exists
    for (const fs::path& file : FindResultsFiles({dir}, &missing)) {
      const ResultsRead read = ReadResults(file);
      if (!read.ok()) {
        std::cerr << "nbcguard envelope: " << read.error << "\n";
        continue;
      }
      const json& j = read.doc->json;
      if (!j.contains("points")) continue;
      ++files;
      if (j.value("kind", std::string()) == "partitioned") {
        ranges.AddPartitioned(j);
        continue;
      }
      ranges.AddOverlap(j);
      const std::string version = j.value("environment", json::object()).value("library_version", "");
      if (version.empty()) continue;
      // As the run named it (threshold files' identified_by first); older
      // results have only the version string.
      const json lib = j.value("library", json::object());
      const LibraryId id = lib.is_object() && lib.contains("implementation")
                               ? LibraryId{lib.value("implementation", ""), lib.value("version", "")}
                               : IdentifyLibrary(version);
      versions.emplace(version, Build{file.string(), id});
      AddSamples(j, dir, &samples);
    }
  }
  std::printf("%d results files\n", files);
  ranges.Print();
  if (files > 0 && !write.file.empty()) return WriteThresholds(dirs, write, versions, samples);
  if (files > 0) return kPass;
  // Nothing to read is the caller's mistake (exit 2, as cost and summary).
  std::cerr << "nbcguard envelope: no readable results.json under the directories given\n";
  return kUsage;
}

}  // namespace nbcguard
