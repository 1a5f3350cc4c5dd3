// `nbcguard conformance`: the conformance tier. Starts nbcguard-conformance
// on N ranks, starts it again after a check that hung or crashed (that check
// failed, the rest still run), applies the threshold file's known failures
// of the running library, prints the table, writes conformance.json.
#pragma once

#include <string>
#include <vector>

#include "launcher.h"

namespace nbcguard {

struct ConformanceOptions {
  int ranks = 4;
  std::string tier = "quick";       // quick, full
  std::vector<std::string> checks;  // collectives or semantics checks (empty: all)
  double check_bound = 0;           // seconds before a check counts as hung (0: 30; large_count 20 x)
  std::string out;
  std::string bug;  // an injected bug of libnbcguard-bugs.so (InjectedBugNames()), or none
};

// The bugs libnbcguard-bugs.so can inject (docs/conformance.md).
const std::vector<std::string>& InjectedBugNames();

// The harness's ranks with libnbcguard-bugs.so (beside the reference
// library) preloaded and `bug` injected: cfg->harness_env. Empty, or what
// is missing.
std::string PreloadBug(const std::string& bug, Config* cfg);

int Conformance(const Config& cfg, const ConformanceOptions& o);

}  // namespace nbcguard
