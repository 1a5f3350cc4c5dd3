// A starting threshold file from the results of a few runs on one machine
// (`nbcguard envelope --write-thresholds`): one rule per collective,
// deployment and process count, each max limit set a margin above the
// largest lower bound of the confidence interval measured (the value a max
// limit is compared with), the envelope and margin written into the rule's
// source.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "nbcguard/library_version.h"

namespace nbcguard {

// One ratio of one valid grid point of one run.
struct EnvelopeSample {
  std::string collective, deployment;
  int nodes = 0;
  std::string run;     // the run it came from (envelope: the directory given; runs are counted by it)
  std::string metric;  // r_overhead, r_comp_slowdown, r_mpi_impact
  double median = 0, ci_lo = 0;
};

struct ThresholdInit {
  LibraryId library;          // implementation and version measured
  std::string identified_by;  // for a library the built-in table does not know (else empty)
  std::string system;         // match.system of every rule (empty: none)
  double margin = 0.25;       // limit = largest CI lower bound x (1 + margin), rounded up to 0.01
  int min_runs = 3;           // fewer runs of a test: no rule for it, an error
  std::string measured;       // when and how, for every rule's source ("2026-11-26, nbcguard envelope ...")
};

// The ratios a starting file limits (max limits).
const std::vector<std::string>& InitMetrics();

// largest_ci_lo x (1 + margin), rounded up to two decimals.
double StartingLimit(double largest_ci_lo, double margin);

// The file's YAML text; empty with *error set when a test has fewer than
// min_runs runs or there are no samples.
std::string StartingThresholdFile(const ThresholdInit& init, const std::vector<EnvelopeSample>& samples,
                                  std::string* error);

}  // namespace nbcguard
