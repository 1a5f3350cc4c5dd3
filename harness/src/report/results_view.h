// One results.json ("nbcguard-results/1") read into what the pictures and
// the run summary show. Reading is forgiving: a field that is missing or
// null becomes "unknown" / NaN, because a summary of a broken run is exactly
// when the summary is needed.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nbcguard/plot_model.h"

namespace nbcguard::report {

// One grid point of a partitioned results file ("kind": "partitioned").
struct PartitionedRow {
  std::string partition;  // "64KiB"
  std::uint64_t partition_bytes = 0;
  int partitions = 0;
  std::string order;
  int threads = 0;
  bool valid = false;
  std::string invalid_reason;
  double bandwidth[4] = {NAN, NAN, NAN, NAN};  // median bytes/s: send, isend, persistent, partitioned
  std::string best_other;
  plot::Ratio r_partitioned;
  std::string verdict;  // pass, fail, within-noise, invalid, not-checked
};

struct CaseView {
  std::string kind = "overlap";  // "partitioned": points and impact are empty, partitioned holds the grid
  std::vector<PartitionedRow> partitioned;
  std::string name, collective, deployment, implementation;
  int nodes = 0, threads = 0;
  std::string library;    // first line of MPI_Get_library_version
  std::string reference;  // reference behaviour's name; empty = the library's own progression
  bool pass = false;
  // Not a pass and not a failure: the only reason not to pass is points
  // refused in every job that measured them (a disturbed machine, ranks
  // computing unequally), with no limit exceeded; the run exited 5.
  bool inconclusive = false;
  std::string status;  // PASS, INCONCLUSIVE, FAIL, HARNESS FAILED, CONFORMANCE FAILURE
  std::string verdict_summary;
  std::vector<std::string> failures;      // why the test failed, most important first
  std::string headline;                   // the first failure, short enough for a table cell
  std::vector<std::string> within_noise;  // limits exceeded by the median but not the interval
  std::vector<plot::Point> points;
  std::vector<double> planned_comm, planned_comp;  // the grid the run was asked for
  std::vector<plot::ImpactBar> impact;

  // The title line the pictures and the summary share:
  // "ialltoall, 4 ranks x 1 thread, deployment progress".
  std::string Title() const;
  bool IsPartitioned() const { return kind == "partitioned"; }
  int ValidPoints() const;
  int TotalPoints() const;
  // Points the first job could not measure and a second job did
  // (verdict.measured_again_points); 0 for results written before it.
  int measured_again = 0;
  double WorstOverhead() const;      // NaN when no valid point has one
  double LowestPartitioned() const;  // lowest median r_partitioned over valid points; NaN when none
  double MaxImpact() const;          // NaN when none was measured
  // The valid point with the largest communication target that has the
  // collective's own bandwidth (the first such in the file's order); null
  // when none has it (results written before it existed, ibarrier).
  const plot::Point* SpeedPoint() const;
  // Largest median CPU-busy fraction over the valid points (NaN when none
  // has one: results written before Hoefler et al., 2006's measurement existed).
  double MaxCpuBusyNbc() const;
  double MaxCpuBusyBlocking() const;
};

// Fails (false, *error set) only when the document is not a results file at
// all; everything inside is read leniently.
bool ReadCase(const nlohmann::json& results, CaseView* out, std::string* error);

// One results.json file through the common reader (nbcguard/results_io.h:
// the schema checked first), then ReadCase. False with *error naming the
// file and the field ("<file>: points[0].valid: expected boolean, got
// string"); never throws.
bool ReadCaseFile(const std::filesystem::path& file, nlohmann::json* results, CaseView* out,
                  std::string* error);

}  // namespace nbcguard::report
