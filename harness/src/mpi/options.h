// The harness's command line. The driver (nbcguard) flattens a case into
// these options; the fields it copies from a case take their defaults from
// CaseSpec and PartitionedSpec (nbcguard/case_spec.h), so the case file's
// defaults are written down once. The others (clock check, injection,
// calibration) belong to the harness and have their defaults here.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nbcguard/case_spec.h"

// CLI11 is header-only and costs seconds per translation unit; only
// main.cc and options.cc, which build the command line, include it.
namespace CLI {
class App;
}  // namespace CLI

namespace nbcguard {

// A default-constructed case: the defaults of the fields the driver copies.
const CaseSpec& CaseDefaults();

struct Options {
  std::string mode = "overlap";
  std::string collective = "ibcast";
  std::vector<double> comm_targets, comp_targets;
  std::vector<int> sizes;                        // passive mode: matrix sizes, one per --comp target
  std::vector<std::uint64_t> counts;             // bcast-ack mode: ibcast element counts (int32)
  int repetitions = CaseDefaults().repetitions;  // per point; with a precision, the most
  int repetitions_min = 0;                       // 0: repetitions
  double precision = 0;                          // the stopping rule's (stopping.h); 0: none
  int threads = CaseDefaults().threads;
  int reserve = 0;
  int calibration_runs = 5;
  double sync_sleep = 1.0;
  double clock_check_wait = 2.0;
  int clock_check_skew_rounds = 100;  // barrier exit skew rounds after the probes (0: none)
  std::uint64_t max_bytes = 1ull << 30;
  int inject_rank = -1;
  bool inject_all = false;  // every rank but 0, rank-dependent (RankPerturbation)
  double inject_offset = 0, inject_drift = 0;
  std::string clock_sync = "flat";   // flat | tree (nbcguard/clock_tree.h)
  std::string sentinel = "on";       // on | off: the machine-noise sentinel (nbcguard/sentinel.h)
  std::string progression = "none";  // none | poll | thread: application-side progression
  double progress_interval = CaseDefaults().progress_interval;  // seconds between MPI_Test calls
  std::string placement = "bind";  // thread: bind | numa | odd-even (placement.h)
  // overlap mode: the collective as an MPI-4 persistent collective
  // (MPI_<Coll>_init per size, MPI_Start per sample; collectives.h).
  bool persistent = false;
  // overlap, verify: the root of the rooted collectives (-1: the last rank).
  int root = 0;
  // overlap, verify: the collective's communicator: world | reversed | dup.
  std::string communicator = "world";
  // Where the computation runs (nbcguard/binding.h): cores | none, and
  // whether a node whose ranks need more cores than it has is measured.
  std::string binding = ToString(CaseDefaults().binding);
  std::string oversubscribe = ToString(CaseDefaults().oversubscribe);
  // passive mode: the overlap job's binding, per rank ('/'-separated), its
  // computation threads' cpus and its process's cpus (','-separated); empty: unbound.
  std::string thread_cpus, process_cpus;
  std::vector<int> launch_cpus;  // the calling thread's cpus before MPI_Init (the launcher's)
  std::string fault = "none";    // none | exit | hang | corrupt: for testing failure handling
  int fault_rank = 1;
  int fault_point = 1;  // overlap point (0-based, grid order) where the fault happens
  std::string out;
  // Calibration cache (calibration_cache.h): directory (empty: off) and the
  // driver's description of the deployment, part of the cache key.
  std::string calibration_cache;
  std::string cache_deployment = "basic";
  // partitioned mode. The case parser's defaults of the two lists ([left-right],
  // [1]) are kept here too: the driver always passes both.
  std::uint64_t buffer = CaseDefaults().partitioned.buffer;
  std::vector<std::uint64_t> partitions;  // partition sizes, bytes
  std::vector<std::string> orders = {"left-right"};
  std::vector<int> pready_threads = {1};  // 0 = auto
  std::uint64_t seed = CaseDefaults().partitioned.seed;
  int thread_level = MPI_THREAD_FUNNELED;  // provided by MPI_Init_thread
};

// Declares every option on `app`, writing into `o`; --mode is one of `modes`.
void AddOptions(CLI::App& app, Options& o, const std::vector<std::string>& modes);

// Whether argv (not parsed yet) holds `name value` or `name=value`: the
// thread level must be chosen before MPI_Init_thread, and CLI11 parses after it.
bool ArgIs(int argc, char** argv, const std::string& name, const std::string& value);

}  // namespace nbcguard
