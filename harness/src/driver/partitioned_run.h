// Partitioned tests (kind: partitioned): one harness job on 2 ranks, no
// computation and no r_mpi_impact jobs; reduction of the raw records to
// bandwidths and r_partitioned per grid point, the thresholds' rules of kind
// partitioned, the terminal table, results.json ("kind": "partitioned") and
// CTest measurements. The harness skips (exit 77, with its reason) where the
// library has no MPI-4 partitioned communication.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctest_measurements.h"
#include "nbcguard/partitioned.h"
#include "nbcguard/reduce_partitioned.h"
#include "nbcguard/verdict.h"
#include "run_job.h"

namespace nbcguard {

// Its implicit move members move nlohmann::json values, which do not throw (clang-tidy cannot see it).
// NOLINTNEXTLINE(bugprone-exception-escape)
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

// What CTest records with the test: lowest r_partitioned, best bandwidth,
// samples verified, sync precision, invalid points and limits exceeded.
std::vector<Measurement> PartitionedMeasurements(const PartitionedReduction& red, const Verdict& v);

// Its implicit move members move nlohmann::json values, which do not throw (clang-tidy cannot see it).
// NOLINTNEXTLINE(bugprone-exception-escape)
class PartitionedJob : public JobKind {
 public:
  const char* HungOn() const override { return "transfer"; }
  std::vector<std::string> LeadingArgs(const JobSetup& s) const override;
  WatchShape Shape(const JobSetup& s) const override;
  void Reduce(const RawRun& raw) override { red_ = ReducePartitioned(raw); }
  std::string ConformanceError() const override { return red_.conformance_error; }
  // Partitioned figures have no series in the history: judged on the job alone.
  Verdict Evaluate(const TestContext& test, const std::vector<Rule>& rules,
                   const BetweenRunNoise* /*noise*/) const override {
    return EvaluatePartitioned(red_.points, test, rules);
  }
  void Describe(const JobSetup& s, const RawRun& raw, const JobRecord& record) override;
  void PrintTable(std::ostream& out, const Verdict& v) const override {
    PrintPartitionedTable(out, info_, red_, v);
  }
  std::vector<Measurement> Measurements(const Verdict& v) const override {
    return PartitionedMeasurements(red_, v);
  }
  nlohmann::json Results(const RawRun& raw, const Verdict& v) const override {
    return PartitionedResultsJson(info_, raw, red_, v);
  }
  int FinishTest(const TestSetup& t, JobOutcome* first) const override;

 private:
  PartitionedReduction red_;
  PartitionedRunInfo info_;
};

}  // namespace nbcguard
