// The threshold files and the one that applies to the running library.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "launcher.h"
#include "nbcguard/library_version.h"
#include "nbcguard/reduce.h"
#include "nbcguard/test_instance.h"
#include "nbcguard/threshold_spec.h"
#include "nbcguard/verdict.h"

namespace nbcguard {

// Every threshold file of cfg.thresholds_dirs, parsed, each with the index
// of its directory as layer; any error is printed and fatal (a bad file or
// a missing directory must not silently drop a library's limits).
bool LoadThresholds(const Config& cfg, std::vector<ThresholdSpec>* specs);

// The running library, named by the harness's context record, and the
// threshold file that applies to it (spec null when none does).
struct LibraryThresholds {
  std::string version_line;  // first line of MPI_Get_library_version
  LibraryId lib;
  const ThresholdSpec* spec = nullptr;
  std::string ambiguous;  // why spec is null when several files match
};

LibraryThresholds ThresholdsFor(const RawRun& raw, const std::vector<ThresholdSpec>& specs);

// Sets cfg->system from `option` (run --system) when not empty, else
// NBCGUARD_SYSTEM when set, else
// keeps the configured one; "" when the name is usable, else why not.
std::string ApplySystem(const std::string& option, Config* cfg);

// Why `name` (from `from`: an option, a variable) is no system name; "" when
// it is one or empty.
std::string SystemNameError(const std::string& name, const std::string& from);

// What the rules judge: the test, on this run's system.
TestContext JudgedContext(const Config& cfg, const TestInstance& test);

// Why a test without a threshold file fails: none matches (and how to add
// one), or several do.
std::string NoThresholdsMessage(const std::vector<std::string>& thresholds_dirs, const LibraryThresholds& t);

// What to do when no rule of the library's threshold file matches a test:
// the test's match keys and a rule to start from, with where its numbers
// must come from (several lines, each ending in a newline).
std::string NoRuleHint(const TestContext& test, const std::string& threshold_file);

}  // namespace nbcguard
