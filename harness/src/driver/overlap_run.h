// Overlap tests (kind: overlap, the BenchNBC method): the harness's overlap
// job, the r_mpi_impact jobs, the reduction to ratios per grid point, and
// the confirmation of failures by a second, independent job.
#pragma once

#include "report.h"
#include "run_job.h"

namespace nbcguard {

// Its implicit move members move nlohmann::json values, which do not throw (clang-tidy cannot see it).
// NOLINTNEXTLINE(bugprone-exception-escape)
class OverlapJob : public JobKind {
 public:
  const char* HungOn() const override { return "collective"; }
  std::vector<std::string> LeadingArgs(const JobSetup& s) const override;
  std::vector<std::string> TrailingArgs(const JobSetup& s) const override;
  WatchShape Shape(const JobSetup& s) const override;
  std::string MoreJobs(const JobSetup& s, double harness_seconds, bool harness_ok, RawRun* raw,
                       Watchdog* watchdog) override;
  // Points left without r_mpi_impact by a disturbance carry its reason.
  void Reduce(const RawRun& raw) override;
  void RefuseFirstPoint(const std::string& why) override;
  std::string ConformanceError() const override { return red_.conformance_error; }
  Verdict Evaluate(const TestContext& test, const std::vector<Rule>& rules,
                   const BetweenRunNoise* noise) const override;
  void Describe(const JobSetup& s, const RawRun& raw, const JobRecord& record) override;
  void PrintTable(std::ostream& out, const Verdict& v) const override;
  std::vector<Measurement> Measurements(const Verdict& v) const override {
    return OverlapMeasurements(red_, v);
  }
  nlohmann::json Results(const RawRun& raw, const Verdict& v) const override;
  void Complete(const JobSetup& s, const ProcessResult& hr, nlohmann::json* results,
                std::ostream& out) const override;
  bool DrawsPictures() const override { return true; }
  int FinishTest(const TestSetup& t, JobOutcome* first) const override;

  const Reduction& reduction() const { return red_; }

 private:
  int threads_ = 0;
  nlohmann::json phase_times_;  // the harness's own phases (rank 0's clock)
  NoMpiTimes no_mpi_;
  std::string no_mpi_error_;
  bool impact_skipped_ = false;   // RunOptions::mpi_impact false: no r_mpi_impact jobs ran
  std::string impact_disturbed_;  // ImpactRuns::disturbed: r_mpi_impact refused, not failed
  double impact_seconds_ = 0;
  nlohmann::json impact_source_;
  std::vector<std::string> exit_hangs_;  // r_mpi_impact jobs killed after their last record  // results.json
                                         // mpi_impact_source: measured here, or whose rounds
  Reduction red_;
  RunInfo info_;
};

}  // namespace nbcguard
