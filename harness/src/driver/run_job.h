// Running a test: one job of the harness (and the jobs its kind adds), the
// reduction, the verdict, the report and results.json. The same path for
// every kind of case; what differs between kinds is a JobKind.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctest_measurements.h"
#include "launcher.h"
#include "nbcguard/driver_common.h"
#include "nbcguard/reduce.h"
#include "nbcguard/test_instance.h"
#include "nbcguard/threshold_spec.h"
#include "nbcguard/verdict.h"
#include "watchdog.h"

namespace nbcguard {

// Options of `run` beyond the case file.
struct RunOptions {
  std::vector<int> nodes;                    // default: the case's
  std::vector<std::string> deployments;      // default: the case's
  std::string out;                           // default: the build's results/
  double timeout = 0;                        // seconds; 0 = the case's
  std::string fault = "none";                // passed to the harness (testing)
  std::string bug;                           // --inject-bug: libnbcguard-bugs.so's bug preloaded (testing)
  std::string thresholds_dir;                // replaces the configured directories (empty: keep them)
  std::vector<std::string> site_thresholds;  // searched before those, in order
  std::string reference;                     // reference behaviour overriding the case's (empty = the case's)
  std::vector<std::string> set_env;          // NAME=VALUE set after the deployment's environment
  std::string baseline;                      // results of an earlier run to compare with (empty = none)
  std::string clock_sync = "flat";           // passed to the harness: flat | tree
  std::string sentinel = "on";               // passed to the harness: on | off (nbcguard/sentinel.h)
  std::string calibration_cache;             // overrides the configured cache directory; "off": none
  bool confirm = true;                       // a limit exceeded in one job fails only if a second job agrees
  // Seconds for which a test reuses r_mpi_impact measured by an earlier
  // test of the same library build, ranks, deployment, threads, cpus and
  // computation targets (nbcguard/impact_store.h); 0: every test measures.
  double impact_reuse = 600;
  // False: the job runs no r_mpi_impact jobs (a confirming job whose
  // verdict judges no r_mpi_impact; SecondJob in overlap_run.cc).
  bool mpi_impact = true;
  // The results history whose between-run spread a limit must also be
  // exceeded by (--history, default $NBCGUARD_HISTORY; empty: none) and the
  // system whose series count; `between` is filled from it once per run.
  std::string history;
  std::string system;
  std::map<std::string, BetweenRunSpread> between;
  // For machines (CTest): the <DartMeasurement> lines and the launch
  // command lines; verbose: the launch command lines too, for a person.
  bool ctest = false;
  bool verbose = false;
  // quiet: per test only the lines that give its outcome (QuietLines).
  bool quiet = false;
};

// The between-run spread the limits of `test` are judged with, when the
// run has a history that knows some (null otherwise).
std::optional<BetweenRunNoise> NoiseFor(const Config& cfg, const TestInstance& test, const RunOptions& ro);

// What one job has to go on, for its kind.
struct JobSetup {
  const Config& cfg;  // with the harness's environment for a reference behaviour
  const TestInstance& test;
  const RunOptions& ro;
  DeploymentPlan plan;  // with --set-env applied
  std::filesystem::path dir;
  std::filesystem::path raw_path;
  std::function<double()> left;  // seconds left of the case's timeout, 10 s kept for the report
  std::chrono::steady_clock::time_point started;
};

// What results.json and the table say of every job, whatever its kind.
// Its implicit move members move nlohmann::json values, which do not throw (clang-tidy cannot see it).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct JobRecord {
  nlohmann::json launch;  // LaunchRecord
  std::string library_version, threshold_file;
};

// The grid as the watchdog counts it.
struct WatchShape {
  int comp_targets = 0, comm_targets = 0, points = 0;
};

struct JobOutcome;

// What a test has to go on: its results go to `dir`, its timeout runs from `started`.
struct TestSetup {
  const Config& cfg;
  const TestInstance& test;
  const std::vector<ThresholdSpec>& specs;
  const RunOptions& ro;
  std::filesystem::path dir;
  std::chrono::steady_clock::time_point started;
};

// What a kind of case does its own way in a job and in a test.
class JobKind {
 public:
  virtual ~JobKind() = default;
  // What a timed-out harness was probably stuck in ("collective", "transfer").
  virtual const char* HungOn() const = 0;
  // The harness's arguments before the common ones (--fault, --clock-sync,
  // --out) and after them.
  virtual std::vector<std::string> LeadingArgs(const JobSetup& s) const = 0;
  virtual std::vector<std::string> TrailingArgs(const JobSetup&) const { return {}; }
  virtual WatchShape Shape(const JobSetup& s) const = 0;
  // Jobs after the harness's (overlap: r_mpi_impact), when the harness ran
  // through (in `harness_seconds` of wall time); their records join `raw`.
  // Returns an error that fails the test.
  virtual std::string MoreJobs(const JobSetup&, double /*harness_seconds*/, bool /*harness_ok*/, RawRun*,
                               Watchdog*) {
    return "";
  }
  virtual void Reduce(const RawRun& raw) = 0;
  // --inject-fault refuse-first (overlap): the reduced job's first valid
  // point refused as a validity gate would, with `why` (tests confirmation).
  virtual void RefuseFirstPoint(const std::string& /*why*/) {}
  virtual std::string ConformanceError() const = 0;
  virtual Verdict Evaluate(const TestContext& test, const std::vector<Rule>& rules,
                           const BetweenRunNoise* noise) const = 0;
  virtual void Describe(const JobSetup& s, const RawRun& raw, const JobRecord& record) = 0;
  virtual void PrintTable(std::ostream& out, const Verdict& v) const = 0;
  virtual std::vector<Measurement> Measurements(const Verdict& v) const = 0;
  virtual nlohmann::json Results(const RawRun& raw, const Verdict& v) const = 0;
  // Kind-specific parts of results.json and their lines after the table.
  virtual void Complete(const JobSetup&, const ProcessResult&, nlohmann::json*, std::ostream&) const {}
  virtual bool DrawsPictures() const { return false; }
  // The test's exit code after its first job (`first`, whose kind this is).
  virtual int FinishTest(const TestSetup& t, JobOutcome* first) const = 0;
};

std::unique_ptr<JobKind> MakeJobKind(const TestInstance& test);

// What one job measured and concluded.
// Its implicit move members move nlohmann::json values, which do not throw (clang-tidy cannot see it).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct JobOutcome {
  int rc = 0;  // kPass / kFail from the thresholds, else the job's error code
  Verdict verdict;
  nlohmann::json results;
  std::filesystem::path results_path;  // empty when not written (skipped, failed to start, write error)
  std::string threshold_file;
  const ThresholdSpec* spec = nullptr;  // the library's thresholds (in `specs`), when found
  std::unique_ptr<JobKind> kind;        // its reduction
};

// kPass, kInconclusive (Verdict::Inconclusive) or kFail for a verdict.
// The faults the driver injects itself, into the first job only
// (refuse-first: JobKind::RefuseFirstPoint; impact-late:
// ImpactSetup::inject_late): the harness is given none, nor is a second job.
inline bool IsDriverFault(const std::string& fault) {
  return fault == "refuse-first" || fault == "impact-late";
}

inline int VerdictCode(const Verdict& v) { return v.pass ? kPass : v.Inconclusive() ? kInconclusive : kFail; }

// One job of `test`: writes raw.jsonl, `results_name` and the pictures into
// `dir`, prints the table and verdict (and the CTest measurements when
// `measurements`). The case's timeout runs from `started`.
JobOutcome MeasureJob(const Config& cfg, const TestInstance& test, const std::vector<ThresholdSpec>& specs,
                      const RunOptions& ro, const std::filesystem::path& dir, const std::string& results_name,
                      std::chrono::steady_clock::time_point started, bool measurements);

// The whole test: the first job, then what its kind does with the outcome
// (overlap: a second job to confirm failures, the baseline comparison).
int RunTest(const Config& cfg, const TestInstance& test, const std::vector<ThresholdSpec>& specs,
            const RunOptions& ro);

}  // namespace nbcguard
