#include "run_cmd.h"

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "history_cmd.h"
#include "nbcguard/driver_common.h"
#include "nbcguard/reference.h"
#include "thresholds.h"

namespace nbcguard {

namespace {

// Options that do not apply to the case's kind: what to say (empty: none).
std::string OptionsError(const CaseSpec& c, const RunOptions& ro) {
  if (c.kind == CaseKind::kPartitioned && (!ro.deployments.empty() || !ro.reference.empty()))
    return "--deployment and --reference apply to kind: overlap cases; " + c.file + " is kind: partitioned";
  if (!ro.bug.empty() && (c.kind == CaseKind::kPartitioned || c.reference.active()))
    return "--inject-bug applies to kind: overlap cases measuring the MPI library (" + c.file +
           " is kind: " + ToString(c.kind) +
           (c.kind == CaseKind::kOverlap ? ", with a reference behaviour" : "") + ")";
  if (c.kind == CaseKind::kPartitioned && IsDriverFault(ro.fault))
    return "--inject-fault " + ro.fault + " applies to kind: overlap cases only (" + c.file +
           " is kind: partitioned)";
  if (c.kind == CaseKind::kOverlap && ro.fault == "corrupt")
    return "--inject-fault corrupt applies to kind: partitioned cases only (" + c.file + " is kind: overlap)";
  return "";
}

}  // namespace

// The lines of a test's output that give its outcome: the verdict, a
// FAIL / SKIP / INCONCLUSIVE / CONFORMANCE FAILURE line, an error, a
// warning, the first line of a hint, and where the results are.
std::string QuietLines(const std::string& output) {
  static const char* const kKept[] = {
      "verdict:",          "FAIL",     "SKIP",  "INCONCLUSIVE", "CONFORMANCE FAILURE", "error:",
      "nbcguard: warning", "warning:", "hint:", "results:"};
  std::istringstream in(output);
  std::string kept;
  for (std::string line; std::getline(in, line);)
    for (const char* prefix : kKept)
      if (line.rfind(prefix, 0) == 0) {
        kept += line + "\n";
        break;
      }
  return kept;
}

namespace {

int RunCase(const Config& cfg, const std::string& case_file, const RunOptions& ro) {
  Parsed<CaseSpec> p = LoadCaseSpec(case_file);
  if (!p.ok()) {
    std::cerr << p.ErrorText() << "\n";
    return kUsage;
  }
  CaseSpec c = *p.value;
  if (ro.timeout > 0) c.timeout = ro.timeout;
  if (!ro.reference.empty())
    c.reference.behaviour = *ParseReferenceBehaviour(ro.reference);  // checked by CLI
  Config cfg_run = cfg;
  if (!ro.thresholds_dir.empty()) cfg_run.thresholds_dirs = {ro.thresholds_dir};
  cfg_run.thresholds_dirs.insert(cfg_run.thresholds_dirs.begin(), ro.site_thresholds.begin(),
                                 ro.site_thresholds.end());
  std::vector<ThresholdSpec> specs;
  if (!LoadThresholds(cfg_run, &specs)) return kUsage;
  if (const std::string error = OptionsError(c, ro); !error.empty()) {
    std::cerr << "nbcguard run: " << error << "\n";
    return kUsage;
  }
  std::vector<Deployment> deployments;
  for (const std::string& s : ro.deployments) deployments.push_back(*ParseDeployment(s));  // checked by CLI
  const std::vector<TestInstance> tests = Instances(c, ro.nodes, deployments);
  for (const TestInstance& t : tests) {
    if (t.kind() == CaseKind::kPartitioned && t.nodes != 2) {
      std::cout << "FAIL " << t.Id() << ": partitioned communication is measured between exactly 2 ranks\n";
      return kUsage;
    }
  }
  int worst = kSkip;
  for (const TestInstance& t : tests) {
    if (InterruptSignal() != 0) break;  // the driver was told to stop: no further test starts
    if (!ro.quiet) {
      worst = Worse(worst, RunTest(cfg_run, t, specs, ro));
      continue;
    }
    // --quiet: the test's output is held back, then only its outcome lines
    // are printed (the table, progress and notes are in results.json).
    std::ostringstream held;
    std::streambuf* const console = std::cout.rdbuf(held.rdbuf());
    int rc = kHarnessFailed;
    try {
      rc = RunTest(cfg_run, t, specs, ro);
    } catch (...) {
      std::cout.rdbuf(console);
      std::cout << QuietLines(held.str());
      throw;
    }
    std::cout.rdbuf(console);
    std::cout << QuietLines(held.str());
    worst = Worse(worst, rc);
  }
  return worst;
}

}  // namespace

int RunCommand(const Config& config, const std::vector<std::string>& case_files, const RunOptions& given) {
  RunOptions ro = given;
  Config cfg = config;
  if (const std::string error = ApplySystem(ro.system, &cfg); !error.empty()) {
    std::cerr << "nbcguard run: " << error << "\n";
    return kUsage;
  }
  const std::string url = HistoryUrl(ro.history);
  if (!url.empty()) {
    // A history that was asked for and cannot be read must not silently
    // leave the limits judged without it.
    std::string note;
    if (!LoadBetweenRunSpreads(url, cfg.system, &ro.between, &note)) {
      std::cerr << "nbcguard run: " << note << "\n";
      return kUsage;
    }
    std::cout << note
              << "; a limit must also be exceeded beyond the spread between jobs where a series has 6 "
                 "nights or more\n";
  }
  int worst = kSkip;
  for (const std::string& f : case_files) {
    if (InterruptSignal() != 0) break;
    worst = Worse(worst, RunCase(cfg, f, ro));
  }
  return worst;
}

}  // namespace nbcguard
