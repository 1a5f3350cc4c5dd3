// r_mpi_impact: the same computation with MPI initialised and idle (a short
// harness job) and in processes that never load MPI (nbcguard-compute),
// started by the same launcher with the same ranks, threads, sizes and
// binding.
//
// The two kinds of job alternate in rounds (in turn first), and each round
// gives one ratio: on a machine whose cores change speed over seconds (on
// this VM each vCPU runs a GEMM at one speed or 1.7-2x slower, for seconds
// at a time, whatever the job), a job's repetitions share one speed, so the
// round is the independent unit and its ratio compares jobs seconds apart.
// r_mpi_impact is the median of the round ratios with the confidence
// interval of that median over rounds. Rounds are added, from kMinRounds up
// to kMaxRounds, while any size's interval is wider than kSpread (hi / lo)
// and the case's time allows: more repetitions where the noise is high.
//
// The processes without MPI start at one CLOCK_REALTIME instant, set a
// margin ahead of the launch. The first job's margin is what the overlap
// job took beyond its own phases (its launch, MPI_Init and MPI_Finalize:
// more than a launch of a program without MPI needs) plus 0.1 s, or 2 s
// when that is unknown; each job reports how long before the instant its
// processes were ready, and the next margin is twice the launcher's
// start-up time so measured plus 0.1 s (0.2 to 2 s). On an idle node
// mpirun starts a program without MPI in about 0.05 s, and the fixed 2 s
// and 0.5 s margins were most of a round's 1.3-1.9 s. A job whose process
// was late anyway is run again with 2 s, then twice that each time up to
// 16 s, before it counts as a failure; one that started in time but fell
// behind a later size's instant is run once more with the same margin,
// then fails (no margin helps a machine that slow).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "launcher.h"
#include "nbcguard/reduce.h"
#include "watchdog.h"

namespace nbcguard {

struct ImpactRuns {
  std::vector<nlohmann::json> passive;  // "passive" records of the MPI jobs, each with its "round"
  NoMpiTimes no_mpi;                    // per size and round: slowest process per repetition
  std::string error;
  // A disturbance that left r_mpi_impact unmeasured: a rank fell behind the
  // agreed start instants in two launches running (a busy machine, not the
  // library). Every round is then dropped (passive and no_mpi empty): the
  // points r_mpi_impact limits are refused, not the job failed.
  std::string disturbed;
  std::vector<std::string> exit_hangs;  // jobs killed after their last record (ExitHangWarning)
};

// What the jobs compute and where: `sizes` with their `targets` (seconds),
// `per_round` repetitions per job (ImpactRepsPerRound), files under `dir`,
// the deployment's environment; left(): seconds left of the case's time.
struct ImpactSetup {
  const Config& cfg;
  int nodes = 0, threads = 0;
  std::vector<int> sizes;
  std::vector<double> targets;
  int per_round = 0;
  std::filesystem::path dir;
  std::map<std::string, std::string> env;
  std::function<double()> left;
  // The overlap job's wall time minus its phases (0: unknown).
  double launch_seconds = 0;
  // Where the overlap job's computation ran (RankCpusArg, binding.h): both
  // kinds of job bind theirs the same way; empty when it was left unbound.
  std::string thread_cpus, process_cpus;
  // --inject-fault impact-late: every launch of the job with MPI idle is
  // taken as one whose rank fell behind (tests the disturbed path).
  bool inject_late = false;
};

ImpactRuns RunImpact(const ImpactSetup& setup, Watchdog* watchdog);

// Repetitions per job of the r_mpi_impact rounds for a case of `case_reps`
// repetitions: a third of them, at least 3 and at most 5. The round is
// r_mpi_impact's unit (its interval is over rounds, and rounds are added
// while it is wide), so a case that wants more repetitions for its own
// ratios (ialltoall-progress: 31) needs no longer impact jobs, and shares
// them with the cases of 15.
int ImpactRepsPerRound(int case_reps);

// CLOCK_REALTIME in seconds since the epoch: the jobs' common start instant,
// and when r_mpi_impact rounds were kept (nbcguard/impact_store.h).
double RealtimeSeconds();

}  // namespace nbcguard
