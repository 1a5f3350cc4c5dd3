// Partitioned tests (kind: partitioned) after the harness ran: reduction of
// the raw records to bandwidths and r_partitioned per grid point, the
// terminal table, results.json ("kind": "partitioned") and CTest
// measurement tags.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nbcguard/partitioned.h"
#include "nbcguard/verdict.h"
#include "nbcguard/reduce_partitioned.h"

namespace nbcguard {

struct PartitionedRunInfo {
  std::string case_name, case_file, implementation_label, library_version, threshold_file;
  nlohmann::json launch;  // LaunchRecord: launcher, executable, command, config
  int nodes = 0;
  int repetitions = 0;
  std::vector<std::string> labels;
  nlohmann::json deployment_env;
  PartitionedSpec spec;
};

void PrintPartitionedTable(std::ostream& out, const PartitionedRunInfo& info, const PartitionedReduction& red,
                           const Verdict& v);

nlohmann::json PartitionedResultsJson(const PartitionedRunInfo& info, const RawRun& raw,
                                      const PartitionedReduction& red, const Verdict& v);

void PrintPartitionedMeasurements(std::ostream& out, const PartitionedReduction& red, const Verdict& v);

}  // namespace nbcguard
