// r_mpi_impact numerator: the computation with MPI initialised and idle, in
// a short job of its own, run exactly as nbcguard-compute runs it without
// MPI (start together at one CLOCK_REALTIME instant, back to back). The
// driver alternates the two kinds of job so both see the same machine, and
// binds both as the overlap job's computation was bound.
#include "affinity.h"
#include "gemm.h"
#include "modes.h"
#include "nbcguard/raw_records.h"

namespace nbcguard {

int RunPassive(ModeContext& c) {
  const Options& o = c.o;
  const int threads = o.threads > 0 ? o.threads : AutoThreads(c.comm.ranks_on_node());
  ComputeTeam team(threads);
  if (o.sizes.size() != o.comp_targets.size()) Fatal("--sizes and --comp need one entry each");
  // On the cpus the overlap job's computation ran on (--thread-cpus, --process-cpus).
  std::string error;
  BindAsRank(team, o.thread_cpus, o.process_cpus, c.comm.rank(), &error);
  if (const std::string failed = c.comm.FirstError(error); !failed.empty())
    Fatal("binding the computation as the overlap job did: " + failed);
  nlohmann::json thread_cpus = nlohmann::json::array();  // [rank][thread][cpu], read back
  for (const std::string& r : c.comm.GatherStrings(nlohmann::json(TeamThreadCpus(team)).dump()))
    thread_cpus.push_back(nlohmann::json::parse(r));
  // Every rank is past MPI_Init: the broadcast takes microseconds, and the
  // 120 ms leave RunFromInstant its 100 ms of spinning before the start.
  double start = c.comm.BcastDouble(c.comm.rank() == 0 ? RealtimeNow() + 0.12 : 0.0);
  for (std::size_t i = 0; i < o.sizes.size(); ++i) {
    team.Prepare(o.sizes[i]);
    bool late = false;
    std::vector<double> times = RunFromInstant(team, o.repetitions, start, RealtimeNow, &late);
    start += BlockSlot(o.repetitions, o.comp_targets[i]);
    const bool any_late = c.comm.AnyTrue(late);
    std::vector<double> all = c.comm.GatherToRoot(times);
    c.raw.Write(record::kPassive, {{"comp_target", o.comp_targets[i]},
                                   {"n", o.sizes[i]},
                                   {"threads", threads},
                                   {"times", all},
                                   {"reps", o.repetitions},
                                   {"late", any_late},
                                   {"thread_cpus", thread_cpus}});
  }
  return 0;
}

}  // namespace nbcguard
