// The overlap mode: BenchNBC's grid (Denis et al., CCPE 2022). The
// computation's team is set up and bound (binding.h; with the progress
// thread and its placement for the thread-* deployments), clocks are synchronized, every target is
// calibrated, then each point of the grid measures its two references and
// the overlap run, after the row's CPU overhead phase.
#include <cmath>
#include <functional>
#include <memory>
#include <optional>

#include "nbcguard/placement.h"
#include "nbcguard/raw_records.h"
#include "nbcguard/stats.h"
#include "overlap.h"
#include "persistent.h"
#include "progress_thread.h"
#include "rank_binding.h"

namespace nbcguard {
namespace {

using json = nlohmann::json;

enum Kind { kCommRef = 0, kCompRef = 1, kOverlap = 2, kKinds = 3 };

// The computation's team and, with --progression thread, the progress
// thread on its own core.
struct Workers {
  std::unique_ptr<ComputeTeam> team;
  std::unique_ptr<ProgressThread> progress;
};

// The placement of this node's ranks under the --placement policy.
std::optional<Placement> PlaceOnThisNode(const ModeContext& c, const NodeView& node, std::string* error) {
  const PlacementPolicy policy = c.o.placement == "numa"       ? PlacementPolicy::kNuma
                                 : c.o.placement == "odd-even" ? PlacementPolicy::kOddEven
                                                               : PlacementPolicy::kBind;
  Placement p = PlaceRanks(node.topo, node.slot.local_ranks, policy, c.o.threads);
  if (!p.error.empty()) {
    *error = p.error;
    return std::nullopt;
  }
  return p;
}

// Every rank's cores, gathered into one record with the node's topology.
void RecordPlacement(ModeContext& c, const NodeView& node, const RankPlacement& mine) {
  const std::string entry = json({{"rank", c.comm.rank()},
                                  {"host", node.host},
                                  {"node_rank", node.slot.local_rank},
                                  {"compute_cores", mine.compute_cores},
                                  {"progress_core", mine.progress_core}})
                                .dump();
  json ranks = json::array();
  for (const std::string& r : c.comm.GatherStrings(entry)) ranks.push_back(json::parse(r));
  c.raw.Write(record::kPlacement, {{"policy", c.o.placement},
                                   {"interval", c.o.progress_interval},
                                   {"topology", node.topo.Describe()},
                                   {"ranks", ranks}});
}

BindingPolicy Binding(const ModeContext& c) {
  return *ParseBindingPolicy(c.o.binding);
}  // checked by the CLI

void Skip(ModeContext& c, const std::string& reason) { c.raw.Write(record::kSkip, {{"reason", reason}}); }

// The computation's thread count; for thread-* the placement policy decides
// the computation's cores and the progress thread's core (placement.h).
// Empty when the run cannot go on here (a "skip" record says why).
std::optional<int> ComputeThreads(ModeContext& c, const NodeView& node,
                                  std::optional<RankPlacement>* placed) {
  // Dedicated: one core per rank is kept free of computation for progress.
  int threads = CoresPerRank(c, node, Binding(c)) - c.o.reserve;
  if (c.o.progression == "thread") {
    if (c.o.thread_level < MPI_THREAD_SERIALIZED) {
      Skip(c, "a harness progress thread needs MPI_THREAD_SERIALIZED; the library provided level " +
                  std::to_string(c.o.thread_level));
      return std::nullopt;
    }
    std::string error;
    std::optional<Placement> plan = PlaceOnThisNode(c, node, &error);
    if (plan) *placed = plan->ranks[node.slot.local_rank];
    const std::string skip = c.comm.FirstError(error);
    if (!skip.empty()) {
      Skip(c, skip);
      return std::nullopt;
    }
    threads = static_cast<int>((*placed)->compute_cores.size());
  }
  if (c.comm.AnyTrue(threads < 1)) {
    Skip(c, "the 'dedicated' deployment keeps " + std::to_string(c.o.reserve) +
                " core per rank free, but a rank here has only " + std::to_string(threads + c.o.reserve) +
                " core(s) (" + std::to_string(node.slot.local_ranks) + " ranks share this node)");
    return std::nullopt;
  }
  return threads;
}

// thread-*: the computation on the policy's cores, the progress thread on
// its core. False when the run cannot go on here (a "skip" record says why).
bool StartPlaced(ModeContext& c, const NodeView& node, const RankPlacement& placed, Workers* w) {
  std::string error;
  if (!w->team->Bind(placed.compute_cores, &error)) error = "binding the computation: " + error;
  w->progress = std::make_unique<ProgressThread>(placed.progress_core, c.o.progress_interval);
  if (error.empty() && !w->progress->WaitBound())
    error = "binding the progress thread to cpu " + std::to_string(placed.progress_core) + " was refused";
  const std::string failed = c.comm.FirstError(error);
  if (!failed.empty()) {
    Skip(c, "placement " + c.o.placement + ": " + failed);
    return false;
  }
  RecordPlacement(c, node, placed);
  RecordBinding(c, node, *w->team, {"placement", c.o.placement, "", c.o.launch_cpus});
  return true;
}

// The other deployments: each rank's computation on a block of cores of
// its own (--binding cores) or where the launcher put it (none), after the
// check that the node's ranks fit on its cores. False when the run cannot
// go on here (a "skip" record says why).
bool StartBound(ModeContext& c, const NodeView& node, ComputeTeam& team) {
  const BindingPolicy policy = Binding(c);
  const std::string oversubscribed = AgreedOversubscription(c, node, team.threads(), policy);
  if (!oversubscribed.empty() && c.o.oversubscribe != ToString(OversubscribePolicy::kAllow)) {
    Skip(c, OversubscribedSkipReason(oversubscribed));
    return false;
  }
  BindingFacts facts{ToString(policy), "", oversubscribed, {}};
  std::string error;
  if (!BindToBlock(c, node, policy, team, &facts.process_cpus, &error)) {
    Skip(c, "binding " + c.o.binding + ": " + error);
    return false;
  }
  RecordBinding(c, node, team, facts);
  return true;
}

// The team, bound, and for thread-* the progress thread. False when the run
// cannot go on here (a "skip" record says why).
bool StartWorkers(ModeContext& c, Workers* w) {
  std::string error;
  std::optional<NodeView> node = ViewNode(c, &error);
  if (!node) {
    Skip(c, "the node's cores (hwloc): " + error);
    return false;
  }
  std::optional<RankPlacement> placed;
  const std::optional<int> threads = ComputeThreads(c, *node, &placed);
  if (!threads) return false;
  w->team = std::make_unique<ComputeTeam>(*threads);
  c.raw.Write(record::kThreads, {{"threads", *threads}});
  return placed ? StartPlaced(c, *node, *placed, w) : StartBound(c, *node, *w->team);
}

// One sample of `kind`, four stamps: t1 start, t2 after the start call, t3
// before the wait, t4 end. *tests gets the overlap run's MPI_Test calls
// (poll, thread-*).
void TimeSample(const ModeContext& c, Collective& coll, Workers& w, int kind, double* t,
                std::vector<double>* tests) {
  MPI_Request req;
  switch (kind) {
    case kCommRef:  // NBC + wait: t2 = t3 after the start call
      t[0] = c.clock.LocalNow();
      CheckMpi(coll.Start(&req), "nonblocking collective start");
      t[1] = t[2] = c.clock.LocalNow();
      CheckMpi(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
      t[3] = c.clock.LocalNow();
      break;
    case kCompRef:  // computation alone
      t[0] = t[1] = c.clock.LocalNow();
      w.team->Run();
      t[2] = t[3] = c.clock.LocalNow();
      break;
    default:  // overlap
      t[0] = c.clock.LocalNow();
      CheckMpi(coll.Start(&req), "nonblocking collective start");
      t[1] = c.clock.LocalNow();
      if (c.o.progression == "poll") {  // MPI_Test from inside the computation
        InlinePoller poller(&req, c.o.progress_interval);
        const std::function<void()> tick = [&poller] { poller.Tick(); };
        w.team->Run(&tick);
        tests->push_back(poller.tests());
      } else if (w.progress) {  // MPI_Test from the progress thread meanwhile
        w.progress->Begin(&req);
        w.team->Run();
        tests->push_back(w.progress->End());
      } else {
        w.team->Run();
      }
      t[2] = c.clock.LocalNow();
      CheckMpi(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
      t[3] = c.clock.LocalNow();
  }
}

// One point of the grid: the two references and the overlap run take
// turns, sample by sample, so all three see the same state of the machine
// (a slow drift in CPU speed cancels instead of biasing every ratio of a
// row or column).
int MeasurePoint(ModeContext& c, Measurer& m, Collective& coll, Workers& w, double comm_target,
                 std::uint64_t count, double comp_target, int n) {
  Sync(c, "point", SyncOptions{2, 50, 0.1});
  std::vector<double> tests;  // MPI_Test calls per overlap sample (poll, thread-*)
  w.team->Prepare(n);
  coll.Resize(count);
  const std::optional<StoppingRule> rule = PointStoppingRule(c);
  SampleSet s = m.Run(
      4, kKinds * c.o.repetitions,
      [&](int rep) { coll.Fill(rep); },  // every kind, so each starts from the same cache state
      [&](int rep, double* t) { TimeSample(c, coll, w, rep % kKinds, t, &tests); },
      [&](int rep) { return rep % kKinds == kCompRef ? std::string() : coll.Verify(rep); },
      Measurer::GlobalSpan, 0, kKinds, rule ? &*rule : nullptr);
  if (!s.error.empty()) return Conformance(c, c.o.collective, coll, count, s.error);
  // Persistent: the slowest rank's MPI_<Coll>_init at this size (each
  // rank's median of kInitTimings calls), apart from the samples.
  const double init = coll.InitSeconds();
  const double init_max = std::isnan(init) ? init : c.comm.Max(init);
  c.raw.Write(record::kPoint,
              {{"comm_target", comm_target},
               {"comp_target", comp_target},
               {"count", count},
               {"bytes", coll.BytesPerRank(count)},
               {"n", n},
               {"comm_ref", Samples(s, kCommRef, kKinds)},
               {"comp_ref", Samples(s, kCompRef, kKinds)},
               {"overlap", Samples(s, kOverlap, kKinds)},
               {"progress_tests", c.comm.rank() == 0 && !tests.empty() ? json(Median(tests)) : json()},
               {"sentinel", SentinelJson(s)},
               {"init_s", std::isnan(init_max) ? json() : json(init_max)}});
  return 0;
}

// The grid (Algorithm 1, no MPI_Test), row by row; points whose
// calibration failed are skipped (the driver reports them invalid).
int MeasureGrid(ModeContext& c, Measurer& m, Collective& coll, Workers& w, const CalibratedSizes& sizes) {
  int point = -1;
  for (std::size_t j = 0; j < sizes.comm.size(); ++j) {
    // The row's CPU overhead first, so every measured point of the row has it.
    if (sizes.comm[j]) {
      if (const int rc = MeasureCpu(c, m, coll, c.o.comm_targets[j], *sizes.comm[j]); rc != 0) return rc;
    }
    for (std::size_t i = 0; i < sizes.comp.size(); ++i) {
      ++point;
      if (!sizes.comm[j] || !sizes.comp[i]) continue;
      InjectFaultAt(c, point);
      const int rc = MeasurePoint(c, m, coll, w, c.o.comm_targets[j], *sizes.comm[j], c.o.comp_targets[i],
                                  *sizes.comp[i]);
      if (rc != 0) return rc;
    }
  }
  return 0;
}

}  // namespace

int RunOverlap(ModeContext& c) {
  if (c.o.persistent && PersistentSource().empty()) {
    Skip(c, std::string("persistent: ") + NoPersistentReason());
    return 0;
  }
  const CollectiveComm on(c.comm.get(), c.o.communicator);  // outlives the collective
  std::unique_ptr<Collective> coll = MakeCollective(c.o.collective, on.get(), c.o.persistent, c.o.root);
  if (!coll) Fatal("unknown collective " + c.o.collective);
  Workers w;
  if (!StartWorkers(c, &w)) return 0;

  // Where the run's time goes (rank 0's clock): clock synchronization,
  // calibration, measurement (the CPU phase and the grid), for the tool's
  // own cost (nbcguard cost).
  const double run_start = LocalClock::Mono();
  InitialSync(c);
  SyncBarrier barrier(c.comm, c.clock);
  BarrierSkew(c, barrier, 30);
  c.sync_seconds = LocalClock::Mono() - run_start;  // the barrier's skew check counts as synchronization
  Measurer m(c.comm, c.clock, barrier, c.o.sentinel == "on");
  m.SetWorkers(w.team->ThreadIds());
  const double calibration_start = LocalClock::Mono();
  CalibratedSizes sizes;
  if (const int rc = CalibrateGrid(c, m, *coll, *w.team, &sizes); rc != 0) return rc;
  const double calibration_seconds = LocalClock::Mono() - calibration_start;
  if (const int rc = MeasureGrid(c, m, *coll, w, sizes); rc != 0) return rc;
  Sync(c, "end", SyncOptions{});
  const double total = LocalClock::Mono() - run_start;
  c.raw.Write(record::kPhaseTimes, {{"sync", c.sync_seconds},
                                    {"calibration", calibration_seconds},
                                    {"measurement", total - c.sync_seconds - calibration_seconds},
                                    {"total", total}});
  WriteBarrierStats(c, barrier);
  WriteSentinelStats(c, m);
  return 0;
}

}  // namespace nbcguard
