// Post-mortem reduction of the harness's raw records: per-rank clock models
// fitted over every calibration of the run (interpolation), timestamps on the
// global clock, medians and ratios per grid point. Pure: records in, values out.
// The records are those of raw_records.h (docs/raw-log.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nbcguard/clock_model.h"
#include "nbcguard/cpu_overhead.h"
#include "nbcguard/point_result.h"
#include "nbcguard/raw_log.h"
#include "nbcguard/validity.h"

namespace nbcguard {

// One model per rank, fitted over all its offset points (rank 0: identity).
std::vector<ClockFit> FitClocks(const RawRun& run);

// Per computation size n and round: per-repetition times of the slowest
// process without MPI (from nbcguard-compute files).
using NoMpiTimes = std::map<int, std::map<int, std::vector<double>>>;

// r_mpi_impact per round, per computation target: the median time with MPI
// idle (slowest rank per repetition, from a "passive" record with its
// "round") over the median without MPI of the same size and round. Records
// without a matching round without MPI, or marked late, give no ratio.
std::map<double, std::vector<double>> ImpactRatiosPerRound(const std::vector<const nlohmann::json*>& passive,
                                                           const NoMpiTimes& no_mpi, int ranks);

// Per rank, the fitted clock model and its quality (results.json
// clock_sync), with the synchronization method the harness used (the
// context's clock_sync; flat when not recorded), the rank it measured
// against and how many exchanges lie between it and rank 0.
nlohmann::json ClockFitJson(const RawRun& run, const std::vector<ClockFit>& clocks);

// Exit skews of the synchronized barrier and of MPI_Barrier (the
// "barrier_skew" record), on the fitted clocks; null when not recorded.
nlohmann::json BarrierSkewJson(const RawRun& run, const std::vector<ClockFit>& clocks);

// The run's timing quality (validity.h) from results.json's clock_sync
// (ClockFitJson) and barrier_skew (BarrierSkewJson): the largest clock error
// over ranks and the synchronized barrier's median exit skew.
TimingQuality TimingQualityOf(const nlohmann::json& clock, const nlohmann::json& barrier);

// A sample set on the global clock: [sample][rank][stamp].
using GlobalSamples = std::vector<std::vector<std::vector<double>>>;

// A harness sample set ({"k", "local": [sample][rank * k + j]}) converted
// with each rank's interpolated clock.
GlobalSamples ToGlobal(const nlohmann::json& samples, const std::vector<ClockFit>& clocks);

// First rank's start (stamp `first`) to last rank's end (stamp `last`) of
// one sample (Denis et al., CCPE 2022, section 4.1).
double Span(const std::vector<std::vector<double>>& ranks, int first, int last);

// MPI time of one overlap sample ([rank][t1 start, t2 after the call, t3
// after compute, t4 after the wait], global clock) that slack from unequal
// computing does not explain, the largest over ranks: per rank, its start
// call plus its wait, less the time until the last rank finished computing
// (a rank that finished early waits that long for the slowest whatever the
// library does). The last rank to finish computing has no slack. A rank
// that did the transfer inside MPI_Wait while another still computed counts
// beyond its slack: that is not progression. r_comm = this / t_comm_ref.
double UnhiddenMpiTime(const std::vector<std::vector<double>>& sample);

// The slowest process per repetition: values is [process][rep] flattened.
std::vector<double> SlowestPerRep(const std::vector<double>& values, int processes);

// Its implicit move members move nlohmann::json values, which do not throw (clang-tidy cannot see it).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct Reduction {
  std::vector<PointResult> points;  // comm-major, every grid point, valid or not
  nlohmann::json clock;             // per-rank fit quality
  nlohmann::json barrier;           // exit skews: synchronized vs MPI_Barrier
  nlohmann::json calibration;       // per target: size, time, converged, reason
  nlohmann::json mpi_impact;        // per comp target
  nlohmann::json cpu_overhead;      // per comm target: CPU-busy fractions (Hoefler et al., 2006)
  nlohmann::json samples;           // per point: every sample's global times
  nlohmann::json binding;           // where each rank computed (binding.h); null when not recorded
  std::string conformance_error;    // non-empty: a collective returned wrong data
  int late_redone = 0;
  // The machine-noise sentinel over the run (record "sentinel"; null when
  // the harness recorded none), with the points it refused.
  nlohmann::json machine_noise;
};

// The CPU readings of one kind of call in a "cpu" record ({"k": 2, "local":
// [sample][rank * 2 + j] wall stamps, "extra": 2, "values": [sample][rank *
// 2 + j] user and system seconds}): per sample and rank, the process's CPU
// seconds and the rank's wall time inside the call (on its interpolated
// clock). A sample whose arrays do not match gives no reading (NaN).
std::vector<std::vector<CpuReading>> CpuReadings(const nlohmann::json& samples,
                                                 const std::vector<ClockFit>& clocks);

// The machine-noise sentinel's tally of a record with a "sentinel" object
// (a point, a bcast_ack size); zero counts when it has none.
SentinelTally SentinelTallyOf(const nlohmann::json& rec);

Reduction Reduce(const RawRun& run, const NoMpiTimes& no_mpi);

}  // namespace nbcguard
