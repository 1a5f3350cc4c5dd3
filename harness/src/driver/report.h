// What a pipeline sees of an overlap test: results.json with every sample
// and its context, and the CTest measurements (the terminal table is
// report/console.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctest_measurements.h"
#include "nbcguard/reduce.h"
#include "nbcguard/verdict.h"

namespace nbcguard {

// Its implicit move members move nlohmann::json values, which do not throw (clang-tidy cannot see it).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct RunInfo {
  std::string case_name, case_file, collective, deployment, implementation_label;
  std::string library_version;  // first line of MPI_Get_library_version
  int nodes = 0;
  int threads = 0;
  nlohmann::json repetitions;  // {min, max, precision} (case_spec.h); null: not recorded
  std::string threshold_file;
  nlohmann::json launch;          // LaunchRecord: launcher, executable, command, config
  nlohmann::json deployment_env;  // environment set for the deployment
  std::string reference;          // reference behaviour (ReferenceSpec::Describe), empty = none
  nlohmann::json reference_json;  // its parameters
  // Application-side progression (poll, thread-*): strategy, interval and,
  // for thread-*, the placement record of the harness; null when none.
  nlohmann::json progression;
};

// results.json "verdict": pass, summary, the threshold file, the points
// checked and every finding (failures, within noise, not confirmed by a
// second job, each with its message) and invalid point.
nlohmann::json VerdictJson(const Verdict& v, const std::string& threshold_file);

nlohmann::json ResultsJson(const RunInfo& info, const RawRun& raw, const Reduction& red, const Verdict& v);

// What every results.json says of its run, whatever the kind of test; each
// kind adds its case, points and verdict.
struct CommonResults {
  const RawRun& raw;
  const std::string& implementation_label;
  const nlohmann::json& launch;
  const nlohmann::json& deployment_env;
  const nlohmann::json& clock;
  const nlohmann::json& barrier;
  int late_redone;
  const nlohmann::json& samples;
  const std::string& conformance_error;
};
nlohmann::json CommonResultsJson(const CommonResults& c);

// What CTest records with the test (and CDash plots): worst ratios, sync
// precision, invalid points and limits exceeded.
std::vector<Measurement> OverlapMeasurements(const Reduction& red, const Verdict& v);

nlohmann::json SpreadJson(const Spread& s);

// A results.json "calibration" record in numbers: calibrated targets, size
// evaluations over all attempts, and targets per calibration cache use
// (hit, stale, miss, off).
struct CalibrationTally {
  int targets = 0, evaluations = 0;
  std::map<std::string, int> cache;
};
CalibrationTally TallyCalibration(const nlohmann::json& calibration);

// A number for JSON output: null when not finite (JSON has no NaN).
nlohmann::json NumberOrNull(double v);

}  // namespace nbcguard
