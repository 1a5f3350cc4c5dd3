#include "options.h"

#include <CLI/CLI.hpp>

#include "nbcguard/clock_tree.h"
#include "nbcguard/deployment.h"
#include "nbcguard/partitioned.h"

namespace nbcguard {

const CaseSpec& CaseDefaults() {
  static const CaseSpec defaults;
  return defaults;
}

namespace {

// Groups of options, registered in the order --help has always listed them.
void AddPartitionedOptions(CLI::App& app, Options& o) {
  app.add_option("--buffer", o.buffer, "partitioned mode: bytes sent per sample")->check(CLI::PositiveNumber);
  app.add_option("--partitions", o.partitions,
                 "partitioned mode: partition sizes in bytes (each divides --buffer)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--orders", o.orders, "partitioned mode: ready orders")
      ->delimiter(',')
      ->check(CLI::IsMember(ReadyOrderNames()));
  app.add_option("--pready-threads", o.pready_threads,
                 "partitioned mode: threads marking partitions ready (0 = auto)")
      ->delimiter(',')
      ->check(CLI::NonNegativeNumber);
  app.add_option("--seed", o.seed, "partitioned mode: base seed of the random orders");
}

void AddClockOptions(CLI::App& app, Options& o) {
  app.add_option("--sync-sleep", o.sync_sleep,
                 "seconds between the two start calibrations (skipped when every rank shares one host)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--clock-check-wait", o.clock_check_wait)->check(CLI::NonNegativeNumber);
  app.add_option("--clock-check-skew-rounds", o.clock_check_skew_rounds,
                 "clock-check: barrier exit skew rounds")
      ->check(CLI::NonNegativeNumber);
}

void AddInjectionOptions(CLI::App& app, Options& o) {
  app.add_option("--inject-rank", o.inject_rank, "rank whose clock is perturbed (not 0)")
      ->check(CLI::PositiveNumber);
  app.add_option("--inject-offset", o.inject_offset, "seconds added to that rank's clock");
  app.add_option("--inject-drift", o.inject_drift,
                 "relative rate error of that rank's clock (1e-4 = 100 ppm)");
  app.add_flag("--inject-all", o.inject_all,
               "perturb every rank but 0 instead, rank-dependent around the offset "
               "and drift given (nbcguard/clock_tree.h RankPerturbation)");
  app.add_option(
         "--sentinel", o.sentinel,
         "the machine-noise sentinel: redo samples it finds disturbed (on) or take every sample (off)")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--clock-sync", o.clock_sync,
                 "clock synchronization: flat (every rank against rank 0 in turn) "
                 "or tree (log2 p stages)")
      ->check(CLI::IsMember(ClockSyncMethodNames()));
}

void AddProgressionOptions(CLI::App& app, Options& o) {
  app.add_option("--progression", o.progression, "application-side progression of the overlap runs")
      ->check(CLI::IsMember({"none", "poll", "thread"}));
  app.add_option("--progress-interval", o.progress_interval, "seconds between MPI_Test calls (poll, thread)")
      ->check(CLI::Range(1e-6, 1.0));
  app.add_option("--placement", o.placement, "thread: where the progress thread runs")
      ->check(CLI::IsMember({"bind", "numa", "odd-even"}));
}

void AddBindingOptions(CLI::App& app, Options& o) {
  app.add_option("--binding", o.binding,
                 "cores: each rank binds its computation to cores of its own; none: the launcher's binding")
      ->check(CLI::IsMember(BindingPolicyNames()));
  app.add_option(
         "--oversubscribe", o.oversubscribe,
         "refuse: skip when a node's ranks need more cores than it has; allow: measure, points INVALID")
      ->check(CLI::IsMember(OversubscribePolicyNames()));
  app.add_option(
      "--thread-cpus", o.thread_cpus,
      "passive mode: per rank ('/'-separated) the cpus of its computation threads (','-separated)");
  app.add_option("--process-cpus", o.process_cpus,
                 "passive mode: per rank ('/'-separated) the cpus of its process (','-separated)");
}

}  // namespace

void AddOptions(CLI::App& app, Options& o, const std::vector<std::string>& modes) {
  app.add_option("--mode", o.mode)->check(CLI::IsMember(modes));
  AddPartitionedOptions(app, o);
  app.add_option("--counts", o.counts, "bcast-ack mode: int32 elements per broadcast")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--sizes", o.sizes, "passive mode: matrix sizes")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--collective", o.collective)->check(CLI::IsMember(CollectiveNames()));
  app.add_option("--comm", o.comm_targets, "target communication times (s)")->delimiter(',');
  app.add_option("--comp", o.comp_targets, "target computation times (s)")->delimiter(',');
  app.add_option("--repetitions", o.repetitions)->check(CLI::Range(3, 100000));
  app.add_option("--repetitions-min", o.repetitions_min,
                 "overlap mode: samples of each kind a point takes at least (stopping rule)")
      ->check(CLI::Range(3, 100000));
  app.add_option("--precision", o.precision,
                 "overlap mode: a point stops once each kind's median is known to +-this fraction "
                 "(95 % interval), between --repetitions-min and --repetitions samples")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--threads", o.threads, "OpenMP threads per rank (0 = auto)")->check(CLI::NonNegativeNumber);
  app.add_option("--reserve", o.reserve, "cores per rank kept free of computation")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--calibration-runs", o.calibration_runs)->check(CLI::Range(1, 1000));
  AddClockOptions(app, o);
  app.add_option("--max-bytes", o.max_bytes, "largest buffer of one rank");
  app.add_option("--communicator", o.communicator,
                 "the collective's communicator: world (the harness's), reversed (ranks in reverse order), "
                 "dup (a duplicate of its own)")
      ->check(CLI::IsMember({"world", "reversed", "dup"}));
  app.add_option("--root", o.root, "the root of the rooted collectives; -1: the last rank")
      ->check(CLI::Range(-1, 1 << 20));
  app.add_flag("--persistent", o.persistent,
               "overlap: the collective as a persistent collective (MPI_<Coll>_init per size, MPI_Start per "
               "sample; Open MPI 4: its MPIX_ extension); a library with neither: skip");
  AddInjectionOptions(app, o);
  AddProgressionOptions(app, o);
  AddBindingOptions(app, o);
  app.add_option("--fault", o.fault,
                 "inject a failure: a rank exits or hangs, or results are corrupted, or not delivered "
                 "after the first repetition (stale, verify) or at all (unwritten, verify), or a rank "
                 "hangs after the last record instead of finalizing (hang-at-exit) (testing)")
      ->check(CLI::IsMember({"none", "exit", "hang", "corrupt", "stale", "unwritten", "hang-at-exit"}));
  app.add_option("--fault-rank", o.fault_rank)->check(CLI::NonNegativeNumber);
  app.add_option("--fault-point", o.fault_point)->check(CLI::NonNegativeNumber);
  app.add_option("--out", o.out, "raw results (JSON lines, rank 0 writes)")->required();
  app.add_option("--calibration-cache", o.calibration_cache,
                 "directory of calibrated sizes reused as search starts (empty: no cache)");
  app.add_option(
      "--cache-deployment", o.cache_deployment,
      "the deployment as part of the calibration cache key (deployment, progression, reference, env)");
}

bool ArgIs(int argc, char** argv, const std::string& name, const std::string& value) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == name + "=" + value || (a == name && i + 1 < argc && value == argv[i + 1])) return true;
  }
  return false;
}

}  // namespace nbcguard
