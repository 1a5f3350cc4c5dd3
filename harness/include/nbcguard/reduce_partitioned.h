// Post-mortem reduction of a partitioned run's raw records (kind:
// partitioned): per grid point, every mechanism's times on the global clock,
// bandwidths and r_partitioned (partitioned.h). Pure: records in, values out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nbcguard/partitioned.h"
#include "nbcguard/raw_log.h"

namespace nbcguard {

// Its implicit move members move nlohmann::json values, which do not throw (clang-tidy cannot see it).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct PartitionedReduction {
  std::uint64_t buffer = 0;
  std::vector<PartitionedPoint> points;           // the planned grid, valid or not, in grid order
  std::vector<int> verified_samples;              // per point: samples whose data the receiver checked
  std::vector<std::vector<std::uint64_t>> seeds;  // per point: the random order's seed per repetition
  nlohmann::json clock;                           // per-rank fit quality (as for overlap tests)
  nlohmann::json barrier;                         // exit skews
  nlohmann::json samples;                         // per point: every sample's global time per mechanism
  std::string conformance_error;      // non-empty: wrong data arrived (names mechanism and partition)
  std::int64_t samples_verified = 0;  // receiver's count over the run
  int thread_level = -1;              // provided by MPI_Init_thread
  int late_redone = 0;
};

PartitionedReduction ReducePartitioned(const RawRun& run);

}  // namespace nbcguard
