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
#include "reduce.h"

namespace nbcguard {

struct PartitionedReduction {
  std::uint64_t buffer = 0;
  std::vector<PartitionedPoint> points;  // the planned grid, valid or not, in grid order
  std::vector<int> verified_samples;     // per point: samples whose data the receiver checked
  std::vector<std::vector<std::uint64_t>> seeds;  // per point: the random order's seed per repetition
  nlohmann::json clock;                  // per-rank fit quality (as for overlap tests)
  nlohmann::json barrier;                // exit skews
  nlohmann::json samples;                // per point: every sample's global time per mechanism
  std::string conformance_error;         // non-empty: wrong data arrived (names mechanism and partition)
  std::int64_t samples_verified = 0;     // receiver's count over the run
  int thread_level = -1;                 // provided by MPI_Init_thread
  int late_redone = 0;
};

PartitionedReduction ReducePartitioned(const RawRun& run);

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
