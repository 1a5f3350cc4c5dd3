// nbcguard-harness: the MPI program, one process per rank. Runs the BenchNBC
// method for one (collective, ranks, deployment) and appends raw records
// (JSON lines) to --out as it goes, so completed points survive a hang or a
// failed rank. Reduction to ratios and verdicts happens in the driver.
#include <mpi.h>
#include <cstdio>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "affinity.h"
#include "mode_context.h"
#include "modes/modes.h"
#include "nbcguard/clock_tree.h"
#include "nbcguard/raw_records.h"
#include "options.h"

namespace nbcguard {
namespace {

// The modes (--mode), with the thread level each needs from MPI_Init_thread.
// Only the partitioned mode calls MPI from several threads at once
// (MPI_Pready and the per-partition sends from OpenMP threads): MULTIPLE.
// Every other mode keeps FUNNELED, which is what the overlap measurements
// were made with (a library may take slower paths under MPI_THREAD_MULTIPLE).
struct Mode {
  const char* name;
  int (*run)(ModeContext&);
  int thread_level;
};
constexpr Mode kModes[] = {
    {"overlap", RunOverlap, MPI_THREAD_FUNNELED},    {"clock-check", RunClockCheck, MPI_THREAD_FUNNELED},
    {"verify", RunVerify, MPI_THREAD_FUNNELED},      {"passive", RunPassive, MPI_THREAD_FUNNELED},
    {"bcast-ack", RunBcastAck, MPI_THREAD_FUNNELED}, {"partitioned", RunPartitioned, MPI_THREAD_MULTIPLE},
};

const Mode& FindMode(const std::string& name) {
  for (const Mode& m : kModes)
    if (name == m.name) return m;
  Fatal("unknown mode " + name);  // not reached: checked by the CLI
}

// Decided before MPI_Init_thread, so from argv as it is (the options are
// parsed after it). A harness progress thread (--progression thread) calls
// MPI while the main thread computes, never at the same time
// (progress_thread.h): at least SERIALIZED. The MPI_THREAD_* levels are
// ordered, so the larger of the two needs is both.
int RequiredThreadLevel(int argc, char** argv) {
  int level = MPI_THREAD_FUNNELED;
  for (const Mode& m : kModes)
    if (ArgIs(argc, argv, "--mode", m.name)) level = std::max<int>(level, m.thread_level);
  if (ArgIs(argc, argv, "--progression", "thread")) level = std::max<int>(level, MPI_THREAD_SERIALIZED);
  return level;
}

// The local clock of this rank, perturbed as --inject-* ask (clock checks).
LocalClock InjectedClock(const Options& o, int rank) {
  const ClockPerturbation perturb = o.inject_all ? RankPerturbation(rank, o.inject_offset, o.inject_drift)
                                    : rank == o.inject_rank
                                        ? ClockPerturbation{o.inject_offset, o.inject_drift}
                                        : ClockPerturbation{};
  return LocalClock(perturb.offset, perturb.drift);
}

// Runs the chosen mode; every rank returns the worst status of all ranks.
int Run(const Options& o, int provided) {
  Comm comm(MPI_COMM_WORLD);
  RawWriter raw(o.out, comm.rank() == 0);
  GlobalClock clock(comm, InjectedClock(o, comm.rank()));
  ModeContext context{o, comm, clock, raw, LibraryVersion()};
  WriteContext(context, provided);
  int rc = FindMode(o.mode).run(context);
  rc = static_cast<int>(comm.Max(rc));
  raw.Write(record::kEnd, {{"status", rc}});
  return rc;
}

int HarnessMain(int argc, char** argv) {
  Options o;
  CLI::App app{"nbcguard-harness: one rank of an overlap measurement (started by nbcguard)"};
  std::vector<std::string> mode_names;
  for (const Mode& m : kModes) mode_names.push_back(m.name);
  AddOptions(app, o, mode_names);

  // The cpus the launcher gave this process, before the library can change them.
  o.launch_cpus = CallingThreadCpus();
  int provided = 0;
  MPI_Init_thread(&argc, &argv, RequiredThreadLevel(argc, argv), &provided);
  o.thread_level = provided;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) app.exit(e);
    MPI_Finalize();
    return 2;
  }
  const int rc = Run(o, provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (o.fault == "hang-at-exit" && rank == o.fault_rank) {
    // Everything is written; this rank never reaches MPI_Finalize, as a
    // rank stuck in it would not (the driver must kill the job, keep the run).
    std::fprintf(stderr, "nbcguard-harness[rank %d]: injected fault: hanging at exit\n", rank);
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  MPI_Finalize();
  return rc;
}

}  // namespace
}  // namespace nbcguard

// An exception no mode caught is a defect of the tool: every rank that
// sees one says so and the job is aborted (MPI_Abort), so no rank waits
// forever for it.
int main(int argc, char** argv) {
  try {
    return nbcguard::HarnessMain(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nbcguard-harness: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "nbcguard-harness: internal error: unknown exception\n");
  }
  MPI_Abort(MPI_COMM_WORLD, 3);
  return 3;
}
