// `nbcguard compare BASELINE_DIR RUN_DIR` and `nbcguard run ... --baseline
// DIR`: finds results.json files, hands them to the pure comparison
// (nbcguard/compare.h) and reports regressions, improvements and what could
// not be compared, as text, markdown or JSON.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nbcguard/compare.h"

namespace nbcguard {

struct CompareCommandOptions {
  CompareOptions compare;
  std::string format = "text";  // text | markdown
  std::string json_out;         // also write the comparison as JSON here (empty = no)
  // The results history whose between-run spreads the comparison uses
  // (CompareOptions::between; empty: $NBCGUARD_HISTORY, or none), and the
  // system whose series count ("" = as `nbcguard history ingest` names it).
  std::string history, system;
};

// Every results.json under dir (recursively), sorted by path. Files that
// are not readable results are reported in *unreadable ("path: why") and
// skipped. Results of another kind than overlap (partitioned tests) are not
// compared: listed in *skipped ("path: why") when given, else ignored.
// False with *error when dir is not a directory.
bool LoadResultsDir(const std::string& dir, std::vector<TestResults>* out,
                    std::vector<std::string>* unreadable, std::string* error,
                    std::vector<std::string>* skipped = nullptr);

// Exit codes: 0 no regression, 1 regression(s), 2 usage or I/O error
// (a directory missing or holding no results.json).
int CompareCommand(const std::string& baseline_dir, const std::string& run_dir,
                   const CompareCommandOptions& o);

// What CheckAgainstBaseline found: rc kFail with the regressions, or kFail
// with no comparison when the baseline is unusable; kPass otherwise.
struct BaselineCheck {
  int rc = 0;
  std::optional<Comparison> comparison;  // when a baseline of this test was found and compared
  CompareOptions options;  // what it was compared with (the history's spreads among them), when compared
};

// The entries of `unreadable` ("<file>: <error>", as LoadResultsDir lists
// them) whose file lies at results_path's place: the same last three
// directories (<case>/n<ranks>/<deployment>).
std::vector<std::string> UnreadableAtSamePlace(const std::vector<std::string>& unreadable,
                                               const std::string& results_path);

// Nightly mode, after a test wrote `results` (its results.json at
// results_path): compares it with the same test under baseline_dir and
// prints the comparison. kFail on a regression (the caller decides, after a
// second job, and prints the verdict), and when the baseline's results.json
// at this test's place (<case>/n<ranks>/<deployment>/) is unreadable and no
// other baseline matches (printed with its error and a FAIL line: a corrupt
// baseline must not pass as a missing one); kPass otherwise, including when
// the baseline has no such test or cannot be compared (said so). The
// comparison is written next to results_path as baseline-comparison.json.
BaselineCheck CheckAgainstBaseline(const nlohmann::json& results, const std::string& results_path,
                                   const std::string& baseline_dir, std::ostream& out);

// "REGRESSION <test> <point> <ratio>: baseline ... -> new ..., <difference>,
// p = ..., diagnosis ..." (or "... collective slower: ..."), as compare prints it.
std::string RegressionLine(const Change& c);

// Why a ratio regression with Change::spread_unknown cannot be decided by
// two runs: "the between-run spread of this ratio is unknown: the history
// holds N of the 6 nights it needs".
std::string SpreadUnknownReason(const Change& c, const CompareOptions& o);

}  // namespace nbcguard
