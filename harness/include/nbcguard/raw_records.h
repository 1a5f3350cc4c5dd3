// Every record type of the harness's raw logs (raw.jsonl of a run, and the
// passive.<round>.jsonl files of the r_mpi_impact jobs): one JSON object per
// line whose "type" is one of these names. Each name is declared once here,
// for the harness that writes it and the driver that reads it; the format,
// record by record, is docs/raw-log.md (a unit test keeps the two in step).
//
// Shared shapes used in the comments below:
// - times are seconds; "local" stamps are on the writing rank's own clock
//   (the reduction maps them to the global clock with the "clock" records).
// - a sample set is {"k", "local": [sample][rank * k + j] local stamps,
//   "exits": [sample][rank] the synchronized barrier's exit stamps,
//   "late_redone": samples measured again because a rank left the barrier
//   late} and, with extra per-rank values, {"extra", "values": [sample][rank *
//   extra + j]}.
// - rank 0 writes every record (gathering what the other ranks measured).
#pragma once

#include <string_view>

namespace nbcguard::record {

// First record of every run. Fields: mode (overlap, partitioned, passive,
// clock-check, bcast-ack, verify), collective ("" in partitioned mode),
// ranks, ranks_on_node, library_version (MPI_Get_library_version),
// thread_level_provided, hosts [rank], online_cores, affinity [rank][cpu],
// environment (the progress-related environment variables: MPICH_*, OMPI_*,
// OMP_*, ...), comm_targets [s], comp_targets [s], repetitions, inject
// {rank, all, offset, drift} (clock-check), clock_sync (flat or tree).
// Writer: every mode. Readers: ReadRaw (RawRun::context), the reduction
// (ranks, targets, clock_sync, environment), results.json "environment",
// the threshold lookup (library_version).
inline constexpr std::string_view kContext = "context";

// Last record of a run that finished. Fields: status (the largest exit code
// over the ranks; 4 = conformance failure). Writer: every mode. Reader:
// ReadRaw (RawRun::ended, status).
inline constexpr std::string_view kEnd = "end";

// Clock offset points of one synchronization. Fields: phase (start,
// start+sleep, point, end), method (flat or tree), seconds (rank 0's time
// for it), points [rank][i] = [local s, offset s, round-trip s]. Writer:
// overlap, partitioned, clock-check, bcast-ack modes. Readers: FitClocks
// (the per-rank clock models of every reduction), clock_check.cc.
inline constexpr std::string_view kClock = "clock";

// Exit instants of the synchronized barrier against MPI_Barrier. Fields:
// sync [round][rank] and mpi [round][rank] local exit stamps, sync_late
// (synchronized rounds dropped because a rank was late). Writer: overlap,
// partitioned, clock-check modes. Reader: BarrierSkewJson (results.json
// barrier_skew), clock_check.cc.
inline constexpr std::string_view kBarrierSkew = "barrier_skew";

// Where a harness progress thread and the computation run (placement.h).
// Fields: policy (bind, numa, odd-even), interval [s], topology (text),
// ranks [{rank, host, node_rank, compute_cores, progress_core}]. Writer:
// overlap mode with a harness progress thread. Reader: driver_main.cc
// (results.json progression.placement).
inline constexpr std::string_view kPlacement = "placement";

// Where every rank's computation ran (binding.h). Fields: policy (cores,
// none, or placement for the thread-* deployments, with placement: bind,
// numa, odd-even), oversubscribe (refuse, allow), oversubscribed, and
// oversubscription (why, "" when not), topology (rank 0's node, text),
// ranks [{rank, host, node_rank, node_ranks, launcher_cpus (the process's
// cpus before MPI_Init), process_cpus (after binding), thread_cpus [thread]
// [cpu] (each computation thread's, read back)}]. Writer: overlap mode.
// Readers: Reduce (results.json binding; an oversubscribed run's points are
// INVALID), overlap_run.cc (the r_mpi_impact jobs bind the same way).
inline constexpr std::string_view kBinding = "binding";

// Wrong data from a collective or a mechanism; the run stops there. Fields
// (overlap, cpu, bcast-ack, verify): collective, count, bytes (per rank),
// error; (partitioned): mechanism, partition_bytes, partitions, order,
// threads, error. Writers: overlap, partitioned, bcast-ack, verify modes.
// Readers: Reduce and ReducePartitioned (conformance_error), selfcheck.cc,
// driver_main.cc (no r_mpi_impact jobs after one).
inline constexpr std::string_view kConformanceFailure = "conformance_failure";

// The calibration cache read at the start (calibration_cache.h). Fields:
// dir, file, key (the configuration it is valid for), targets_found,
// targets, error ("" when read), dropped (malformed entries left out).
// Writer: overlap mode with a cache. Reader:
// Reduce (results.json calibration.cache).
inline constexpr std::string_view kCalibrationCache = "calibration_cache";

// The calibration cache could not be written. Fields: error. Writer:
// overlap mode. Reader: Reduce (results.json calibration.cache.store_error).
inline constexpr std::string_view kCalibrationCacheStore = "calibration_cache_store";

// The run cannot measure in this deployment and ends without a verdict.
// Fields: reason. Writer: overlap mode (thread level, placement, too few
// cores, oversubscribed, binding refused), partitioned mode (no MPI-4 partitioned communication). Reader:
// driver_main.cc (SKIP).
inline constexpr std::string_view kSkip = "skip";

// OpenMP threads of the computation per rank. Fields: threads. Writer:
// overlap mode. Reader: driver_main.cc (the r_mpi_impact jobs use as many).
inline constexpr std::string_view kThreads = "threads";

// Calibration of one computation target. Fields: target [s], converged,
// size (matrix order n), time [s], reason ("" when converged), attempts
// [{runs, statistic, converged, reason, steps [[size, time s]]}], cache
// (off, miss, hit, stale). Writer: overlap mode. Readers: Reduce
// (results.json calibration.comp; a failed one invalidates its row),
// driver_main.cc (the sizes of the r_mpi_impact jobs).
inline constexpr std::string_view kCompCalibration = "comp_calibration";

// Calibration of one communication target. Fields: as comp_calibration,
// size being the element count, plus bytes (per rank). Writer: overlap
// mode. Reader: Reduce (results.json calibration.comm; a failed one
// invalidates its column).
inline constexpr std::string_view kCommCalibration = "comm_calibration";

// One grid point's samples (Algorithm 1 of Denis et al., CCPE 2022).
// Fields: comm_target, comp_target [s], count, bytes (per rank), n (matrix
// order), comm_ref (sample set, k 4, stamps as overlap's with t3 = t2: no
// computation), comp_ref (k 4: the computation alone, t1 to t4),
// overlap (k 4: t1 start, t2 after the start call, t3 after the
// computation, t4 after the wait), progress_tests (median MPI_Test calls of
// rank 0 per overlap run, or null), init_s (persistent: the slowest rank's
// median seconds in MPI_<Coll>_init at this size, or null), sentinel (the machine-noise sentinel
// over the point's three kinds: {wanted, kept, redone_slow_probe,
// redone_foreign_wait, readings [sample][rank * 4 + j]: probe s, foreign
// wait s, sample duration s, involuntary context switches}; absent when
// the sentinel is off). Writer: overlap mode. Reader: Reduce.
inline constexpr std::string_view kPoint = "point";
// MPI_<Coll>_init calls a persistent collective times at each size (init_s).
inline constexpr int kInitTimings = 5;

// Where the run's time went, on rank 0's clock. Fields: sync, calibration,
// measurement, total [s]. Writer: overlap mode. Reader: driver_main.cc
// (results.json cost).
inline constexpr std::string_view kPhaseTimes = "phase_times";

// The synchronized barrier's own statistics. Fields: late_redone, waits,
// final_margin [s]. Writers: overlap, partitioned modes. Readers: none (kept
// for diagnosis by hand).
inline constexpr std::string_view kBarrierStats = "barrier_stats";

// The machine-noise sentinel over the whole run (nbcguard/sentinel.h).
// Fields: enabled, redone_slow_probe, redone_foreign_wait (tries refused
// as disturbed, calibration included), probe_factor, wait_share (the
// rule's bounds). Writer: overlap mode. Reader: Reduce (results.json
// machine_noise).
inline constexpr std::string_view kSentinel = "sentinel";

// The grid of a partitioned run, written before it is measured. Fields:
// buffer (bytes), seed, auto_threads, thread_level, mechanisms [name],
// points [{partition_bytes, partitions, order, threads}]. Writer:
// partitioned mode. Reader: ReducePartitioned.
inline constexpr std::string_view kPartitionedPlan = "partitioned_plan";

// One partitioned grid point. Fields: partition_bytes, partitions, order,
// threads; either invalid_reason, or samples {mechanism: sample set, k 2:
// start, end}, seeds (the random order's seed per repetition; [] for other
// orders), verified_samples. Writer: partitioned mode. Reader:
// ReducePartitioned.
inline constexpr std::string_view kPartitionedPoint = "partitioned_point";

// Fields: samples_verified_on_receiver (over the run). Writer: partitioned
// mode. Reader: ReducePartitioned.
inline constexpr std::string_view kPartitionedVerification = "partitioned_verification";

// CPU overhead of one communication target (Hoefler et al., 2006). Fields:
// comm_target [s], count, bytes (per rank), value_columns [user_s,
// system_s], reading_cost {wall [rank], cpu [rank]} [s], blocking and
// nonblocking (sample sets, k 2: wall stamps around the call, extra 2:
// user and system CPU seconds inside it). Writer: overlap mode. Reader:
// Reduce (results.json cpu_overhead).
inline constexpr std::string_view kCpu = "cpu";

// Clock-check probes. Fields: probes [rank][i] = [local s, CLOCK_MONOTONIC
// s, the extrapolated model's global s]. Writer: clock-check mode. Reader:
// clock_check.cc.
inline constexpr std::string_view kClockProbes = "clock_probes";

// The computation with MPI initialised and idle, for r_mpi_impact, in
// passive.<round>.jsonl (not raw.jsonl). Fields: comp_target [s], n,
// threads, times [rank * reps + i] [s], reps, late (a rank started late),
// thread_cpus [rank][thread][cpu] (read back); the driver adds round when it merges the records into the run.
// Writer: passive mode. Readers: driver_main.cc, Reduce and ImpactRatiosPerRound.
inline constexpr std::string_view kPassive = "passive";

// One message size of the broadcast-with-acknowledgement check. Fields:
// count, bytes (per rank), sync (sample set, k 2, of MPI_Ibcast + MPI_Wait),
// ack [{dest, rtt [s], e [s]}]. Writer: bcast-ack mode. Reader:
// selfcheck.cc.
inline constexpr std::string_view kBcastAck = "bcast_ack";

// One collective and count whose data was checked. Fields: collective,
// count, median and blocking_median [s]. Writer: verify mode. Reader:
// selfcheck.cc.
inline constexpr std::string_view kVerified = "verified";

// Every type above, in the order of this file (docs/raw-log.md follows it).
inline constexpr std::string_view kAllTypes[] = {
    kSentinel,
    kContext,
    kEnd,
    kClock,
    kBarrierSkew,
    kPlacement,
    kBinding,
    kConformanceFailure,
    kCalibrationCache,
    kCalibrationCacheStore,
    kSkip,
    kThreads,
    kCompCalibration,
    kCommCalibration,
    kPoint,
    kPhaseTimes,
    kBarrierStats,
    kPartitionedPlan,
    kPartitionedPoint,
    kPartitionedVerification,
    kCpu,
    kClockProbes,
    kPassive,
    kBcastAck,
    kVerified,
};

}  // namespace nbcguard::record
