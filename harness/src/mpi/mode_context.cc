#include "mode_context.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "affinity.h"
#include "nbcguard/clock_tree.h"
#include "nbcguard/raw_records.h"

extern char** environ;

namespace nbcguard {
namespace {

using json = nlohmann::json;

json ProgressEnvironment() {
  json env = json::object();
  for (char** e = environ; *e; ++e) {
    std::string kv(*e);
    const std::string key = kv.substr(0, kv.find('='));
    for (const char* prefix : {"MPIR_CVAR_", "MPICH_", "OMPI_MCA_", "UCX_", "OMP_", "GOMP_", "FI_"}) {
      if (key.rfind(prefix, 0) == 0) env[key] = kv.substr(kv.find('=') + 1);
    }
  }
  return env;
}

// Clock points of every rank, gathered to rank 0.
json GatherClockPoints(const Comm& comm, const GlobalClock& clock, std::size_t from) {
  json mine = json::array();
  for (std::size_t i = from; i < clock.points().size(); ++i) {
    const OffsetPoint& p = clock.points()[i];
    mine.push_back({p.local, p.offset, p.rtt});
  }
  json points = json::array();
  for (const std::string& s : comm.GatherStrings(mine.dump())) points.push_back(json::parse(s));
  return points;
}

}  // namespace

std::string LibraryVersion() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  return std::string(version, strnlen(version, len));
}

std::string Hostname() {
  char name[256] = {0};
  gethostname(name, sizeof(name) - 1);
  return name;
}

void WriteContext(ModeContext& c, int thread_level_provided) {
  const Options& o = c.o;
  std::vector<std::string> hosts = c.comm.GatherStrings(Hostname());
  std::vector<std::string> affinity = c.comm.GatherStrings(json(CallingThreadCpus()).dump());
  json ctx = {{"mode", o.mode},
              {"collective", o.mode == "partitioned" ? std::string() : o.collective},
              {"ranks", c.comm.size()},
              {"ranks_on_node", c.comm.ranks_on_node()},
              {"library_version", c.library_version},
              {"thread_level_provided", thread_level_provided},
              {"hosts", hosts},
              {"online_cores", sysconf(_SC_NPROCESSORS_ONLN)},
              {"affinity", json::array()},
              {"environment", ProgressEnvironment()},
              {"comm_targets", o.comm_targets},
              {"comp_targets", o.comp_targets},
              {"repetitions", o.repetitions},
              {"inject",
               {{"rank", o.inject_rank},
                {"all", o.inject_all},
                {"offset", o.inject_offset},
                {"drift", o.inject_drift}}},
              {"clock_sync", o.clock_sync}};
  for (auto& a : affinity) ctx["affinity"].push_back(json::parse(a));
  c.raw.Write(record::kContext, ctx);
}

void Sync(ModeContext& c, const char* phase, SyncOptions so) {
  so.method = *ParseClockSyncMethod(c.o.clock_sync, nullptr);  // checked by the CLI
  const double t0 = LocalClock::Mono();
  const std::size_t before = c.clock.points().size();
  c.clock.Calibrate(so);
  json points = GatherClockPoints(c.comm, c.clock, before);
  c.raw.Write(record::kClock, {{"phase", phase},
                               {"points", points},
                               {"method", c.o.clock_sync},
                               {"seconds", c.clock.last_seconds()}});  // rank 0's: barrier to barrier
  c.sync_seconds += LocalClock::Mono() - t0;
}

namespace {

// True on every rank when all ranks share one host (one kernel clock:
// CLOCK_MONOTONIC is one clock for every process of a host) and no drift is
// injected: their clocks can differ by a constant offset only.
bool OneRate(const ModeContext& c) {
  MPI_Comm node;
  CheckMpi(MPI_Comm_split_type(c.comm.get(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
           "MPI_Comm_split_type(shared)");
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  const bool mine = node_size == c.comm.size() && c.clock.local_clock().injected_drift() == 0;
  return !c.comm.AnyTrue(!mine);
}

}  // namespace

void InitialSync(ModeContext& c) {
  // Ranks on one host: one rate, so no pause is needed to give a drift a
  // time base (the offset alone is fitted). Otherwise the pause, and the
  // line is fitted over both calibrations.
  const bool one_rate = OneRate(c);
  if (one_rate) c.clock.AssumeOneRate();
  Sync(c, "start", SyncOptions{});
  if (one_rate) return;
  std::this_thread::sleep_for(std::chrono::duration<double>(c.o.sync_sleep));
  c.sync_seconds += c.o.sync_sleep;
  Sync(c, "start+sleep", SyncOptions{});
}

std::optional<StoppingRule> PointStoppingRule(const ModeContext& c) {
  if (c.o.precision <= 0) return std::nullopt;
  return StoppingRule{c.o.repetitions_min > 0 ? c.o.repetitions_min : c.o.repetitions, c.o.repetitions,
                      c.o.precision};
}

void BarrierSkew(ModeContext& c, SyncBarrier& barrier, int rounds) {
  json sync = json::array(), mpi = json::array();
  int late = 0;
  for (int i = 0; i < rounds; ++i) {
    BarrierExit e = barrier.Wait();
    bool any_late = c.comm.AnyTrue(e.late);
    barrier.Report(any_late);
    if (any_late) {
      ++late;
      continue;
    }
    std::vector<double> all = c.comm.GatherToRoot({e.exit_local});
    if (c.comm.rank() == 0) sync.push_back(all);
  }
  for (int i = 0; i < rounds; ++i) {
    CheckMpi(MPI_Barrier(c.comm.get()), "MPI_Barrier(skew)");
    const double t = c.clock.LocalNow();
    std::vector<double> all = c.comm.GatherToRoot({t});
    if (c.comm.rank() == 0) mpi.push_back(all);
    // Let the gather's traffic settle so the next barrier starts clean.
    CheckMpi(MPI_Barrier(c.comm.get()), "MPI_Barrier(skew settle)");
  }
  c.raw.Write(record::kBarrierSkew, {{"sync", sync}, {"mpi", mpi}, {"sync_late", late}});
}

void WriteBarrierStats(ModeContext& c, const SyncBarrier& barrier) {
  c.raw.Write(record::kBarrierStats, {{"late_redone", barrier.late_count()},
                                      {"waits", barrier.waits()},
                                      {"final_margin", barrier.margin()}});
}

void WriteSentinelStats(ModeContext& c, const Measurer& m) {
  const SentinelBounds& b = m.sentinel_bounds();
  c.raw.Write(record::kSentinel, {{"enabled", m.sentinel()},
                                  {"redone_slow_probe", m.redone_slow_probe()},
                                  {"redone_foreign_wait", m.redone_foreign_wait()},
                                  {"probe_factor", b.probe_factor},
                                  {"wait_share", b.wait_share}});
}

json SentinelJson(const SampleSet& s) {
  if (s.sentinel.empty() && s.disturbed_slow_probe + s.disturbed_foreign_wait == 0) return nullptr;
  return {{"wanted", s.wanted},
          {"kept", s.local.size()},
          {"redone_slow_probe", s.disturbed_slow_probe},
          {"redone_foreign_wait", s.disturbed_foreign_wait},
          {"readings", s.sentinel}};
}

json Samples(const SampleSet& s, int kind, int kinds) {
  json local = json::array(), exits = json::array(), values = json::array();
  for (std::size_t i = kind; i < s.local.size(); i += kinds) {
    local.push_back(s.local[i]);
    exits.push_back(s.exits[i]);
    if (i < s.values.size()) values.push_back(s.values[i]);
  }
  json out = {{"k", s.k}, {"local", local}, {"exits", exits}, {"late_redone", s.late_redone}};
  if (s.extra > 0) {
    out["extra"] = s.extra;
    out["values"] = values;
  }
  return out;
}

void InjectFaultAt(const ModeContext& c, int point) {
  if (point != c.o.fault_point || c.comm.rank() != c.o.fault_rank) return;
  if (c.o.fault == "exit") {
    std::fprintf(stderr, "nbcguard-harness[rank %d]: injected fault: exiting\n", c.comm.rank());
    std::_Exit(1);
  }
  if (c.o.fault == "hang") {
    std::fprintf(stderr, "nbcguard-harness[rank %d]: injected fault: hanging\n", c.comm.rank());
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

int Conformance(ModeContext& c, const std::string& name, const Collective& coll, std::uint64_t count,
                const std::string& error) {
  // A persistent collective's failure is MPI_<Coll>_init's and MPI_Start's;
  // the communicator is named when not world (ranks in messages stay world ranks).
  std::string how = c.o.persistent ? "persistent" : "";
  if (c.o.communicator != "world")
    how += (how.empty() ? "" : ", ") + std::string("communicator ") + c.o.communicator;
  const std::string shown = how.empty() ? name : name + " (" + how + ")";
  c.raw.Write(
      record::kConformanceFailure,
      {{"collective", shown}, {"count", count}, {"bytes", coll.BytesPerRank(count)}, {"error", error}});
  if (c.comm.rank() == 0)
    std::fprintf(stderr, "nbcguard-harness: CONFORMANCE FAILURE: %s with count %llu: %s\n", shown.c_str(),
                 static_cast<unsigned long long>(count), error.c_str());
  return 4;
}

}  // namespace nbcguard
