// nbcguard-harness: the MPI program, one process per rank. Runs the BenchNBC
// method for one (collective, ranks, deployment) and appends raw records
// (JSON lines) to --out as it goes, so completed points survive a hang or a
// failed rank. Reduction to ratios and verdicts happens in the driver.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <map>
#include <cmath>
#include <functional>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <thread>

#include "bcast_ack_loops.h"
#include "clock_sync.h"
#include "collectives.h"
#include "comm.h"
#include "gemm.h"
#include "measure.h"
#include "nbcguard/calibrate.h"
#include "nbcguard/calibration_cache.h"
#include "nbcguard/cpu_overhead.h"
#include "nbcguard/deployment.h"
#include "nbcguard/partitioned.h"
#include "nbcguard/placement.h"
#include "nbcguard/stats.h"
#include "partitioned_p2p.h"
#include "progress_thread.h"
#include "sync_barrier.h"

extern char** environ;

namespace nbcguard {
namespace {

using json = nlohmann::json;

struct Options {
  std::string mode = "overlap";
  std::string collective = "ibcast";
  std::vector<double> comm_targets, comp_targets;
  std::vector<int> sizes;  // passive mode: matrix sizes, one per --comp target
  std::vector<std::uint64_t> counts;  // bcast-ack mode: ibcast element counts (int32)
  int repetitions = 15;
  int threads = 0;
  int reserve = 0;
  int calibration_runs = 5;
  double sync_sleep = 1.0;
  double clock_check_wait = 2.0;
  int clock_check_skew_rounds = 100;  // barrier exit skew rounds after the probes (0: none)
  std::uint64_t max_bytes = 1ull << 30;
  int inject_rank = -1;
  bool inject_all = false;  // every rank but 0, rank-dependent (RankPerturbation)
  double inject_offset = 0, inject_drift = 0;
  std::string clock_sync = "flat";  // flat | tree (nbcguard/clock_tree.h)
  std::string progression = "none";  // none | poll | thread: application-side progression
  double progress_interval = 100e-6;  // seconds between MPI_Test calls
  std::string placement = "bind";     // thread: bind | numa | odd-even (placement.h)
  std::string fault = "none";  // none | exit | hang: for testing failure handling
  int fault_rank = 1;
  int fault_point = 1;         // overlap point (0-based, grid order) where the fault happens
  std::string out;
  // Calibration cache (calibration_cache.h): directory (empty: off) and the
  // driver's description of the deployment, part of the cache key.
  std::string calibration_cache;
  std::string cache_deployment = "basic";
  // partitioned mode
  std::uint64_t buffer = PartitionedSpec::kDefaultBuffer;
  std::vector<std::uint64_t> partitions;  // partition sizes, bytes
  std::vector<std::string> orders = {"left-right"};
  std::vector<int> pready_threads = {1};  // 0 = auto
  std::uint64_t seed = 1;
  int thread_level = MPI_THREAD_FUNNELED;  // provided by MPI_Init_thread
};

// Rank 0 appends one JSON object per line and flushes it.
class RawWriter {
 public:
  RawWriter(const std::string& path, bool active) {
    if (active) {
      file_.open(path, std::ios::out | std::ios::trunc);
      if (!file_) Fatal("cannot write " + path);
    }
  }
  void Write(const json& record) {
    if (!file_.is_open()) return;
    file_ << record.dump() << "\n";
    file_.flush();
  }

 private:
  std::ofstream file_;
};

std::string Hostname() {
  char name[256] = {0};
  gethostname(name, sizeof(name) - 1);
  return name;
}

std::vector<int> Affinity() {
  std::vector<int> cores;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cores.push_back(c);
  return cores;
}

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
json GatherClockPoints(const Comm& comm, const GlobalClock& clock, std::size_t from, const char* phase) {
  json mine = json::array();
  for (std::size_t i = from; i < clock.points().size(); ++i) {
    const OffsetPoint& p = clock.points()[i];
    mine.push_back({p.local, p.offset, p.rtt});
  }
  std::vector<std::string> all = comm.GatherStrings(mine.dump());
  json rec = {{"type", "clock"}, {"phase", phase}, {"points", json::array()}};
  for (const std::string& s : all) rec["points"].push_back(json::parse(s));
  return rec;
}

// Calibration as in the paper (median of `runs` per size, quadratic
// interpolation, within 10 %). On a noisy machine a median of a few runs can
// fake a step or send the search astray, so a search that failed for any
// reason other than an out-of-range target is retried once with three times
// the runs, starting from the best size found, and with the 20 % trimmed
// mean instead of the median: where the time is bimodal (MPICH's progress
// thread sharing a core with a computing rank: 12 or 20 ms, one scheduler
// slice apart) the median jumps from one mode to the other across a 0.1 %
// change of size, so no size gives a target between the modes, while the
// trimmed mean moves with the share of slow runs. `runs_of(size, runs)`
// returns the runs' times (NaN or empty stops the search). Every attempt
// is recorded.
CalibrationResult CalibrateWithRetry(const std::function<std::vector<double>(std::uint64_t, int)>& runs_of,
                                     double target, CalibrationOptions co, int runs, json* attempts) {
  *attempts = json::array();
  CalibrationResult cr;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool trimmed = attempt > 0;
    cr = CalibrateSize(
        [&](std::uint64_t n) {
          std::vector<double> times = runs_of(n, runs);
          return trimmed ? TrimmedMean(times, 0.2) : Median(times);
        },
        target, co);
    json steps = json::array();
    for (auto& st : cr.steps) steps.push_back({st.size, st.time});
    attempts->push_back({{"runs", runs}, {"statistic", trimmed ? "trimmed mean 20%" : "median"},
                         {"converged", cr.converged}, {"reason", cr.reason}, {"steps", steps}});
    const bool out_of_range = cr.reason.rfind("target ", 0) == 0;
    if (cr.converged || out_of_range || cr.size == 0) break;
    runs *= 3;
    co.start_size = cr.size;
  }
  return cr;
}

class Harness {
 public:
  Harness(const Options& o, const Comm& comm, GlobalClock& clock, RawWriter& raw)
      : o_(o), comm_(comm), clock_(clock), raw_(raw) {}

  void Sync(const char* phase, SyncOptions so) {
    so.method = *ParseClockSyncMethod(o_.clock_sync, nullptr);  // checked by the CLI
    const double t0 = LocalClock::Mono();
    const std::size_t before = clock_.points().size();
    clock_.Calibrate(so);
    json rec = GatherClockPoints(comm_, clock_, before, phase);
    rec["method"] = o_.clock_sync;
    rec["seconds"] = clock_.last_seconds();  // rank 0's: barrier to barrier
    raw_.Write(rec);
    sync_seconds_ += LocalClock::Mono() - t0;
  }

  // Start (10 x 100 ping-pongs), a pause so the drift estimate has a time
  // base, then a second calibration: the real-time model extrapolates from both.
  void InitialSync() {
    Sync("start", SyncOptions{});
    std::this_thread::sleep_for(std::chrono::duration<double>(o_.sync_sleep));
    sync_seconds_ += o_.sync_sleep;
    Sync("start+sleep", SyncOptions{});
  }

  // The exit instants of the synchronized barrier and of MPI_Barrier, in the
  // same run, so their skews can be compared.
  void BarrierSkew(SyncBarrier& barrier, int rounds) {
    json rec = {{"type", "barrier_skew"}, {"sync", json::array()}, {"mpi", json::array()},
                {"sync_late", 0}};
    int late = 0;
    for (int i = 0; i < rounds; ++i) {
      BarrierExit e = barrier.Wait();
      bool any_late = comm_.AnyTrue(e.late);
      barrier.Report(any_late);
      if (any_late) { ++late; continue; }
      std::vector<double> all = comm_.GatherToRoot({e.exit_local});
      if (comm_.rank() == 0) rec["sync"].push_back(all);
    }
    for (int i = 0; i < rounds; ++i) {
      CheckMpi(MPI_Barrier(comm_.get()), "MPI_Barrier(skew)");
      const double t = clock_.LocalNow();
      std::vector<double> all = comm_.GatherToRoot({t});
      if (comm_.rank() == 0) rec["mpi"].push_back(all);
      // Let the gather's traffic settle so the next barrier starts clean.
      CheckMpi(MPI_Barrier(comm_.get()), "MPI_Barrier(skew settle)");
    }
    rec["sync_late"] = late;
    raw_.Write(rec);
  }

  int RunOverlap();
  // A rank that dies or hangs mid-run, so tests can show that the driver
  // ends such a run with a clear failure and keeps the completed points.
  void InjectFault() const {
    if (o_.fault == "exit") {
      std::fprintf(stderr, "nbcguard-harness[rank %d]: injected fault: exiting\n", comm_.rank());
      std::_Exit(1);
    }
    if (o_.fault == "hang") {
      std::fprintf(stderr, "nbcguard-harness[rank %d]: injected fault: hanging\n", comm_.rank());
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
  int RunPartitioned();
  int RunClockCheck();
  int RunVerify();

  // The placement of this node's ranks under the --placement policy, from
  // the node's topology (hwloc, described in *topology) and this node's
  // rank count.
  std::optional<Placement> PlaceOnThisNode(std::string* error, std::string* topology) const {
    std::optional<NodeTopology> topo = TopologyFromHwloc("", error);
    if (!topo) return std::nullopt;
    *topology = topo->Describe();
    const PlacementPolicy policy = o_.placement == "numa"       ? PlacementPolicy::kNuma
                                   : o_.placement == "odd-even" ? PlacementPolicy::kOddEven
                                                                : PlacementPolicy::kBind;
    Placement p = PlaceRanks(*topo, comm_.ranks_on_node(), policy, o_.threads);
    if (!p.error.empty()) {
      *error = p.error;
      return std::nullopt;
    }
    return p;
  }
  // Every rank's cores, gathered into one record with the node's topology.
  void RecordPlacement(const RankPlacement& mine, const std::string& topology) {
    const std::string entry = json({{"rank", comm_.rank()}, {"host", Hostname()}, {"node_rank", comm_.node_rank()},
                                    {"compute_cores", mine.compute_cores}, {"progress_core", mine.progress_core}})
                                  .dump();
    json rec = {{"type", "placement"}, {"policy", o_.placement}, {"interval", o_.progress_interval},
                {"topology", topology}, {"ranks", json::array()}};
    for (const std::string& r : comm_.GatherStrings(entry)) rec["ranks"].push_back(json::parse(r));
    raw_.Write(rec);
  }
  int RunPassive();
  int RunBcastAck();

 private:
  // The samples of one kind (sample index % kinds == kind); with the
  // sample set's extra values as "values" ([sample][rank * extra + j]).
  json Samples(const SampleSet& s, int kind, int kinds = kKinds) const {
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
  enum Kind { kCommRef = 0, kCompRef = 1, kOverlap = 2, kKinds = 3 };
  int MeasureCpu(Measurer& m, double target, std::uint64_t count);
  int Conformance(const std::string& coll, std::uint64_t count, const std::string& error) {
    raw_.Write({{"type", "conformance_failure"}, {"collective", coll}, {"count", count},
                {"bytes", coll_ ? coll_->BytesPerRank(count) : 0}, {"error", error}});
    if (comm_.rank() == 0)
      std::fprintf(stderr, "nbcguard-harness: CONFORMANCE FAILURE: %s with count %llu: %s\n",
                   coll.c_str(), static_cast<unsigned long long>(count), error.c_str());
    return 4;
  }

  int PartitionedConformance(Mechanism m, const PartitionedPointSpec& p, const std::string& error) {
    raw_.Write({{"type", "conformance_failure"}, {"mechanism", ToString(m)}, {"partition_bytes", p.partition_bytes},
                {"partitions", p.partitions}, {"order", ToString(p.order)}, {"threads", p.threads},
                {"error", error}});
    if (comm_.rank() == 0)
      std::fprintf(stderr, "nbcguard-harness: CONFORMANCE FAILURE: %s at %s: %s\n", ToString(m), PointName(p).c_str(),
                   error.c_str());
    return 4;
  }

  // The calibration cache of this configuration (calibration_cache.h).
  // Collective: rank 0 reads the file; every rank learns the cached sizes
  // (equal start sizes keep all ranks on the same search path).
  struct Cache {
    bool on = false;
    CalibrationCacheKey key;
    CalibrationCacheEntries entries;  // rank 0: the file's; others: the targets of this run
  };
  Cache OpenCache(int threads) {
    Cache c;
    if (o_.calibration_cache.empty()) return c;
    c.on = true;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    std::string folded;  // whitespace runs folded: Open MPI and MPICH format it differently
    for (char ch : std::string(version, strnlen(version, len))) {
      const bool space = std::isspace(static_cast<unsigned char>(ch));
      if (space && (folded.empty() || folded.back() == ' ')) continue;
      folded += space ? ' ' : ch;
    }
    while (!folded.empty() && folded.back() == ' ') folded.pop_back();
    c.key.library = folded;
    c.key.ranks = comm_.size();
    c.key.hosts = HostCounts(comm_.GatherStrings(Hostname()));  // rank 0 only needs them
    c.key.collective = o_.collective;
    c.key.deployment = o_.cache_deployment;
    c.key.threads = threads;
    c.key.max_bytes = o_.max_bytes;
    std::string error;
    if (comm_.rank() == 0) c.entries = LoadCalibrationCache(o_.calibration_cache, c.key, &error);
    auto agree = [&](std::map<double, std::uint64_t>& m, const std::vector<double>& targets) {
      std::map<double, std::uint64_t> mine;
      for (double t : targets) {
        auto it = m.find(t);
        const double v = comm_.BcastDouble(it == m.end() ? 0.0 : static_cast<double>(it->second));
        if (v > 0) mine[t] = static_cast<std::uint64_t>(v);
      }
      if (comm_.rank() != 0) m = mine;
      return mine.size();
    };
    const std::size_t found = agree(c.entries.comm, o_.comm_targets) + agree(c.entries.comp, o_.comp_targets);
    raw_.Write({{"type", "calibration_cache"}, {"dir", o_.calibration_cache}, {"file", c.key.FileName()},
                {"key", json::parse(c.key.Canonical())}, {"targets_found", found},
                {"targets", o_.comm_targets.size() + o_.comp_targets.size()}, {"error", error}});
    return c;
  }
  // After calibration: rank 0 records the converged sizes (other targets'
  // entries are kept).
  void StoreCache(const Cache& c, const std::map<double, std::uint64_t>& comm,
                  const std::map<double, std::uint64_t>& comp) {
    if (!c.on || comm_.rank() != 0) return;
    CalibrationCacheEntries e = c.entries;
    for (const auto& [t, n] : comm) e.comm[t] = n;
    for (const auto& [t, n] : comp) e.comp[t] = n;
    std::string error;
    if (!StoreCalibrationCache(o_.calibration_cache, c.key, e, &error)) {
      raw_.Write({{"type", "calibration_cache_store"}, {"error", error}});
    }
  }
  // How the cache served one target: off, miss (nothing cached), hit (the
  // cached size met the target at its first measurement) or stale (it did
  // not; the search went on from it).
  static const char* CacheUse(const Cache& c, const std::map<double, std::uint64_t>& cached, double target,
                              const CalibrationResult& cr, const json& attempts) {
    if (!c.on) return "off";
    if (!cached.count(target)) return "miss";
    return cr.converged && attempts.size() == 1 && cr.steps.size() == 1 ? "hit" : "stale";
  }

  const Options& o_;
  const Comm& comm_;
  GlobalClock& clock_;
  RawWriter& raw_;
  std::unique_ptr<Collective> coll_;
  double sync_seconds_ = 0;  // wall time in clock synchronization (Sync, the start pause)
};

int Harness::RunOverlap() {
  coll_ = MakeCollective(o_.collective, comm_.get());
  if (!coll_) Fatal("unknown collective " + o_.collective);
  // Dedicated: one core per rank is kept free of computation for progress.
  int threads = (o_.threads > 0 ? o_.threads : AutoThreads(comm_.ranks_on_node())) - o_.reserve;
  // thread-*: the placement policy decides the computation's cores and the
  // progress thread's core (placement.h).
  std::optional<RankPlacement> placed;
  std::string topology;
  if (o_.progression == "thread") {
    if (o_.thread_level < MPI_THREAD_SERIALIZED) {
      raw_.Write({{"type", "skip"},
                  {"reason", "a harness progress thread needs MPI_THREAD_SERIALIZED; the library provided level " +
                                 std::to_string(o_.thread_level)}});
      return 0;
    }
    std::string error;
    std::optional<Placement> plan = PlaceOnThisNode(&error, &topology);
    if (plan) placed = plan->ranks[comm_.node_rank()];
    const std::string skip = comm_.FirstError(error);
    if (!skip.empty()) {
      raw_.Write({{"type", "skip"}, {"reason", skip}});
      return 0;
    }
    threads = static_cast<int>(placed->compute_cores.size());
  }
  if (comm_.AnyTrue(threads < 1)) {
    raw_.Write({{"type", "skip"},
                {"reason", "the 'dedicated' deployment keeps " + std::to_string(o_.reserve) +
                               " core per rank free, but a rank here has only " +
                               std::to_string(threads + o_.reserve) + " core(s) (" +
                               std::to_string(comm_.ranks_on_node()) + " ranks share this node)"}});
    return 0;
  }
  ComputeTeam team(threads);
  raw_.Write({{"type", "threads"}, {"threads", threads}});
  std::unique_ptr<ProgressThread> progress;
  if (placed) {
    std::string error;
    if (!team.Bind(placed->compute_cores, &error)) error = "binding the computation: " + error;
    progress = std::make_unique<ProgressThread>(placed->progress_core, o_.progress_interval);
    if (error.empty() && !progress->WaitBound())
      error = "binding the progress thread to cpu " + std::to_string(placed->progress_core) + " was refused";
    const std::string failed = comm_.FirstError(error);
    if (!failed.empty()) {
      raw_.Write({{"type", "skip"}, {"reason", "placement " + o_.placement + ": " + failed}});
      return 0;
    }
    RecordPlacement(*placed, topology);
  }

  // Where the run's time goes (rank 0's clock): clock synchronization,
  // calibration, measurement (the CPU phase and the grid), for the tool's
  // own cost (nbcguard cost).
  const double run_start = LocalClock::Mono();
  InitialSync();
  SyncBarrier barrier(comm_, clock_);
  BarrierSkew(barrier, 30);
  sync_seconds_ = LocalClock::Mono() - run_start;  // the barrier's skew check counts as synchronization
  Measurer m(comm_, clock_, barrier);
  const int cal_runs = std::min(o_.calibration_runs, o_.repetitions);
  const double calibration_start = LocalClock::Mono();
  auto no_verify = [](int) { return std::string(); };

  // Computation: matrix size whose slowest rank (slowest thread) takes the target.
  auto comp_run = [&](int n, int reps) {
    team.Prepare(n);
    team.Run();  // warm-up
    return m.Run(2, reps, [](int) {},
                 [&](int, double* t) { t[0] = clock_.LocalNow(); team.Run(); t[1] = clock_.LocalNow(); },
                 no_verify, Measurer::SlowestRank);
  };
  const Cache cache = OpenCache(threads);
  std::map<double, std::uint64_t> found_comp, found_comm;  // converged sizes, for the cache
  std::vector<std::optional<int>> comp_size(o_.comp_targets.size());
  for (std::size_t i = 0; i < o_.comp_targets.size(); ++i) {
    CalibrationOptions co;
    co.min_size = 2;
    co.max_size = 4096;
    co.start_size = cache.entries.comp.count(o_.comp_targets[i]) ? cache.entries.comp.at(o_.comp_targets[i]) : 64;
    co.growth_exponent = 3;  // GEMM time grows as n^3
    co.recheck_steps = 2;    // GEMM has no algorithm switch: a step is the machine's speed changing
    json attempts;
    CalibrationResult cr = CalibrateWithRetry(
        [&](std::uint64_t n, int runs) { return comp_run(static_cast<int>(n), runs).durations; },
        o_.comp_targets[i], co, cal_runs, &attempts);
    raw_.Write({{"type", "comp_calibration"}, {"target", o_.comp_targets[i]}, {"converged", cr.converged},
                {"size", cr.size}, {"time", cr.time}, {"reason", cr.reason}, {"attempts", attempts},
                {"cache", CacheUse(cache, cache.entries.comp, o_.comp_targets[i], cr, attempts)}});
    if (cr.converged) comp_size[i] = static_cast<int>(cr.size);
    if (cr.converged) found_comp[o_.comp_targets[i]] = cr.size;
  }

  // Communication: block count whose NBC + MPI_Wait (never the blocking
  // call) takes the target, first rank's start to last rank's end.
  auto comm_body = [&](int, double* t) { TimeStartWait(*coll_, clock_, t); };
  auto verify = [&](int rep) { return coll_->Verify(rep); };
  auto fill = [&](int rep) { coll_->Fill(rep); };
  auto comm_run = [&](std::uint64_t count, int reps) {
    coll_->Resize(count);
    coll_->Fill(0);
    comm_body(0, std::vector<double>(2).data());  // warm-up
    return m.Run(2, reps, fill, comm_body, verify, Measurer::GlobalSpan);
  };
  std::vector<std::optional<std::uint64_t>> comm_count(o_.comm_targets.size());
  for (std::size_t j = 0; j < o_.comm_targets.size(); ++j) {
    CalibrationOptions co;
    co.min_size = 1;
    co.max_size = std::max<std::uint64_t>(1, coll_->MaxCount(o_.max_bytes));
    co.start_size = std::min<std::uint64_t>(
        cache.entries.comm.count(o_.comm_targets[j]) ? cache.entries.comm.at(o_.comm_targets[j]) : 256, co.max_size);
    co.recheck_steps = 1;  // a real step (protocol switch) shows up again
    std::string error;
    std::uint64_t error_count = 0;
    json attempts;
    CalibrationResult cr = CalibrateWithRetry(
        [&](std::uint64_t count, int runs) -> std::vector<double> {
          if (!error.empty()) return {};  // stops the search: already failed
          SampleSet s = comm_run(count, runs);
          if (!s.error.empty()) {
            error = s.error;
            error_count = count;
            return {};
          }
          return s.durations;
        },
        o_.comm_targets[j], co, cal_runs, &attempts);
    if (!error.empty()) return Conformance(o_.collective, error_count, error);
    raw_.Write({{"type", "comm_calibration"}, {"target", o_.comm_targets[j]}, {"converged", cr.converged},
                {"size", cr.size}, {"bytes", coll_->BytesPerRank(cr.size)}, {"time", cr.time},
                {"reason", cr.reason}, {"attempts", attempts},
                {"cache", CacheUse(cache, cache.entries.comm, o_.comm_targets[j], cr, attempts)}});
    if (cr.converged) comm_count[j] = cr.size;
    if (cr.converged) found_comm[o_.comm_targets[j]] = cr.size;
  }
  StoreCache(cache, found_comm, found_comp);
  const double calibration_seconds = LocalClock::Mono() - calibration_start;

  MPI_Request req;
  // The grid (Algorithm 1, no MPI_Test). At each point the two references
  // and the overlap run take turns, sample by sample, so all three see the
  // same state of the machine (a slow drift in CPU speed cancels instead of
  // biasing every ratio of a row or column).
  int point = -1;
  for (std::size_t j = 0; j < comm_count.size(); ++j) {
    // The row's CPU overhead first, so every measured point of the row has it.
    if (comm_count[j]) {
      if (const int rc = MeasureCpu(m, o_.comm_targets[j], *comm_count[j]); rc != 0) return rc;
    }
    for (std::size_t i = 0; i < comp_size.size(); ++i) {
      ++point;
      if (!comm_count[j] || !comp_size[i]) continue;
      if (point == o_.fault_point && comm_.rank() == o_.fault_rank) InjectFault();
      Sync("point", SyncOptions{2, 50, 0.1});
      std::vector<double> tests;  // MPI_Test calls per overlap sample (poll, thread-*)
      team.Prepare(*comp_size[i]);
      coll_->Resize(*comm_count[j]);
      SampleSet s = m.Run(4, kKinds * o_.repetitions, fill,
          [&](int rep, double* t) {
            switch (rep % kKinds) {
              case kCommRef:  // NBC + wait: t1 start, t2 = t3 after the start call, t4 end
                t[0] = clock_.LocalNow();
                CheckMpi(coll_->Start(&req), "nonblocking collective start");
                t[1] = t[2] = clock_.LocalNow();
                CheckMpi(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
                t[3] = clock_.LocalNow();
                break;
              case kCompRef:  // computation alone
                t[0] = t[1] = clock_.LocalNow();
                team.Run();
                t[2] = t[3] = clock_.LocalNow();
                break;
              default:  // overlap
                t[0] = clock_.LocalNow();
                CheckMpi(coll_->Start(&req), "nonblocking collective start");
                t[1] = clock_.LocalNow();
                if (o_.progression == "poll") {  // MPI_Test from inside the computation
                  InlinePoller poller(&req, o_.progress_interval);
                  const std::function<void()> tick = [&poller] { poller.Tick(); };
                  team.Run(&tick);
                  tests.push_back(poller.tests());
                } else if (progress) {  // MPI_Test from the progress thread meanwhile
                  progress->Begin(&req);
                  team.Run();
                  tests.push_back(progress->End());
                } else {
                  team.Run();
                }
                t[2] = clock_.LocalNow();
                CheckMpi(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
                t[3] = clock_.LocalNow();
            }
          },
          [&](int rep) { return rep % kKinds == kCompRef ? std::string() : coll_->Verify(rep); },
          Measurer::GlobalSpan);
      if (!s.error.empty()) return Conformance(o_.collective, *comm_count[j], s.error);
      raw_.Write({{"type", "point"}, {"comm_target", o_.comm_targets[j]},
                  {"comp_target", o_.comp_targets[i]}, {"count", *comm_count[j]},
                  {"bytes", coll_->BytesPerRank(*comm_count[j])}, {"n", *comp_size[i]},
                  {"comm_ref", Samples(s, kCommRef)}, {"comp_ref", Samples(s, kCompRef)},
                  {"overlap", Samples(s, kOverlap)},
                  {"progress_tests", comm_.rank() == 0 && !tests.empty() ? json(Median(tests)) : json()}});
    }
  }
  Sync("end", SyncOptions{});
  const double total = LocalClock::Mono() - run_start;
  raw_.Write({{"type", "phase_times"}, {"sync", sync_seconds_}, {"calibration", calibration_seconds},
              {"measurement", total - sync_seconds_ - calibration_seconds}, {"total", total}});
  raw_.Write({{"type", "barrier_stats"}, {"late_redone", barrier.late_count()},
              {"waits", barrier.waits()}, {"final_margin", barrier.margin()}});
  return 0;
}

// MPI-4 partitioned communication against MPI_Send, MPI_Isend and persistent
// sends per partition (Schneewind, HLRS), rank 0 to rank 1. Per grid point
// (partition size x ready order x threads) the four mechanisms take turns
// sample by sample, each timed from the synchronized barrier's release to
// the last rank's end (Measurer::Run, global time as everywhere), so a drift
// of the machine's speed reaches all four alike. Every sample's data is
// verified on the receiver.
int Harness::RunPartitioned() {
  const std::string version = [] {
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    const std::string all(v, strnlen(v, len));
    return all.substr(0, all.find('\n'));
  }();
  if (!PartitionedTransfer::Available()) {
    raw_.Write({{"type", "skip"}, {"reason", PartitionedTransfer::MissingReason(version)}});
    return 0;
  }
  if (comm_.size() != 2) Fatal("partitioned mode runs on exactly 2 ranks, not " + std::to_string(comm_.size()));
  PartitionedSpec spec;
  spec.buffer = o_.buffer;
  spec.partition_bytes = o_.partitions;
  for (const std::string& name : o_.orders) spec.orders.push_back(*ParseReadyOrder(name));  // checked by CLI
  spec.pready_threads = o_.pready_threads;
  spec.seed = o_.seed;
  const int auto_threads = AutoThreads(comm_.ranks_on_node());
  const std::vector<PartitionedPointSpec> grid = ExpandPartitionedGrid(spec, auto_threads);
  int* tag_ub = nullptr;
  int has_tag_ub = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &has_tag_ub);
  const long long max_tag = has_tag_ub && tag_ub ? *tag_ub : 32767;
  json plan = json::array();
  for (const PartitionedPointSpec& p : grid)
    plan.push_back({{"partition_bytes", p.partition_bytes}, {"partitions", p.partitions},
                    {"order", ToString(p.order)}, {"threads", p.threads}});
  raw_.Write({{"type", "partitioned_plan"}, {"buffer", spec.buffer}, {"seed", spec.seed},
              {"auto_threads", auto_threads}, {"thread_level", o_.thread_level},
              {"mechanisms", {"send", "isend", "persistent", "partitioned"}}, {"points", plan}});

  InitialSync();
  SyncBarrier barrier(comm_, clock_);
  BarrierSkew(barrier, 30);
  Measurer m(comm_, clock_, barrier);
  PartitionedTransfer transfer(comm_.get(), spec.buffer);

  std::uint64_t sample = 0;  // every prepared sample gets its own pattern, redone ones too
  std::int64_t verified = 0;
  int point_index = -1;
  for (const PartitionedPointSpec& p : grid) {
    ++point_index;
    if (point_index == o_.fault_point && comm_.rank() == o_.fault_rank) InjectFault();
    json rec = {{"type", "partitioned_point"}, {"partition_bytes", p.partition_bytes}, {"partitions", p.partitions},
                {"order", ToString(p.order)}, {"threads", p.threads}};
    // Points that cannot be measured here are recorded with the reason.
    std::string invalid;
    if (p.threads > 1 && o_.thread_level < MPI_THREAD_MULTIPLE)
      invalid = "MPI_Pready from " + std::to_string(p.threads) +
                " threads needs MPI_THREAD_MULTIPLE, but MPI_Init_thread provided level " +
                std::to_string(o_.thread_level);
    else if (p.partitions - 1 > max_tag)
      invalid = std::to_string(p.partitions) + " partitions need tags up to " + std::to_string(p.partitions - 1) +
                ", above this library's MPI_TAG_UB (" + std::to_string(max_tag) + ")";
    if (!invalid.empty()) {
      rec["invalid_reason"] = invalid;
      raw_.Write(rec);
      continue;
    }
    Sync("point", SyncOptions{2, 50, 0.1});
    transfer.Setup(p);
    std::vector<std::uint64_t> seeds;
    for (int r = 0; r < o_.repetitions; ++r) seeds.push_back(RepetitionSeed(spec.seed, r));
    auto mechanism = [](int rep) { return AllMechanisms()[rep % kMechanisms]; };
    Mechanism current = Mechanism::kSend;  // the sample being measured
    // Warm-up: one untimed transfer per mechanism (first-touch of the
    // buffers, the library's lazy connection and registration).
    for (Mechanism mech : AllMechanisms()) {
      transfer.Prepare(mech, sample++, ReadyOrderOf(p.order, p.partitions, seeds[0]));
      CheckMpi(MPI_Barrier(comm_.get()), "MPI_Barrier(warm-up)");
      transfer.Transfer(mech);
      const std::string wrong = transfer.Verify(mech);
      const std::string agreed = comm_.FirstError(wrong);
      if (!agreed.empty()) return PartitionedConformance(mech, p, agreed);
    }
    SampleSet s = m.Run(2, kMechanisms * o_.repetitions,
        [&](int rep) {
          transfer.Prepare(mechanism(rep), sample++, ReadyOrderOf(p.order, p.partitions, seeds[rep / kMechanisms]));
        },
        [&](int rep, double* t) {
          current = mechanism(rep);
          t[0] = clock_.LocalNow();
          transfer.Transfer(current);
          t[1] = clock_.LocalNow();
          if (o_.fault == "corrupt" && point_index == 0 && mechanism(rep) == Mechanism::kPartitioned)
            transfer.Corrupt();
        },
        [&](int rep) {
          ++verified;
          return transfer.Verify(mechanism(rep));
        },
        Measurer::GlobalSpan);
    transfer.Teardown();
    // The first wrong sample ends the run; the message names mechanism and partition.
    if (!s.error.empty()) return PartitionedConformance(current, p, s.error);
    json samples = json::object();
    for (int k = 0; k < kMechanisms; ++k) samples[ToString(AllMechanisms()[k])] = Samples(s, k, kMechanisms);
    rec["samples"] = samples;
    rec["seeds"] = p.order == ReadyOrder::kRandom ? json(seeds) : json::array();
    rec["verified_samples"] = s.durations.size();
    raw_.Write(rec);
  }
  Sync("end", SyncOptions{});
  raw_.Write({{"type", "partitioned_verification"}, {"samples_verified_on_receiver", verified}});
  raw_.Write({{"type", "barrier_stats"}, {"late_redone", barrier.late_count()},
              {"waits", barrier.waits()}, {"final_margin", barrier.margin()}});
  return 0;
}

// CPU overhead of one communication size (Hoefler et al., 2006): the blocking twin and
// the nonblocking collective + MPI_Wait take turns, sample by sample (a
// drift of the machine's speed then biases neither), each after the
// synchronized barrier, `repetitions` samples of each, data filled and
// verified as everywhere. No computation runs: the OpenMP team sleeps
// (OMP_WAIT_POLICY=PASSIVE, set by the driver), so the process's CPU time is
// the library's. Per rank: local wall stamps around the call and the
// process's user and system CPU seconds (getrusage) just inside them. The
// readings' own cost (about 2 us each here) is inside the wall interval but
// only partly inside the CPU one, so a single polling thread reads just
// under 1 (not over it: clearly more than 1 is more than one busy thread).
int Harness::MeasureCpu(Measurer& m, double target, std::uint64_t count) {
  enum CpuKind { kBlocking = 0, kNonblocking = 1, kCpuKinds = 2 };
  coll_->Resize(count);
  // Warm-up of the blocking path: the grid's warm-up and calibration only
  // ran the nonblocking one, and a first call may set up connections or buffers.
  coll_->Fill(0);
  CheckMpi(coll_->Blocking(), "blocking collective (warm-up)");
  // The readings' own cost, per rank: wall and CPU time of the same pair of
  // readings with nothing between them (median of 101). The reduction
  // reports how much lower it makes a fully polling call read, which
  // matters only for calls of a few tens of microseconds.
  std::vector<double> empty_wall, empty_cpu;
  for (int i = 0; i < 101; ++i) {
    const double t0 = clock_.LocalNow();
    const CpuTimes before = ProcessCpuTimes();
    const CpuTimes after = ProcessCpuTimes();
    empty_wall.push_back(clock_.LocalNow() - t0);
    empty_cpu.push_back(after.Total() - before.Total());
  }
  const std::vector<double> cost = comm_.GatherToRoot({Median(empty_wall), Median(empty_cpu)});
  json reading_cost = {{"wall", json::array()}, {"cpu", json::array()}};
  for (std::size_t r = 0; r + 1 < cost.size(); r += 2) {
    reading_cost["wall"].push_back(cost[r]);
    reading_cost["cpu"].push_back(cost[r + 1]);
  }
  MPI_Request req;
  SampleSet s = m.Run(
      2, kCpuKinds * o_.repetitions, [&](int rep) { coll_->Fill(rep); },
      [&](int rep, double* t) {
        t[0] = clock_.LocalNow();
        const CpuTimes before = ProcessCpuTimes();
        if (rep % kCpuKinds == kBlocking) {
          CheckMpi(coll_->Blocking(), "blocking collective");
        } else {
          CheckMpi(coll_->Start(&req), "nonblocking collective start");
          CheckMpi(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
        }
        const CpuTimes after = ProcessCpuTimes();
        t[1] = clock_.LocalNow();
        t[2] = after.user - before.user;
        t[3] = after.system - before.system;
      },
      [&](int rep) {
        const std::string wrong = coll_->Verify(rep);
        return wrong.empty() || rep % kCpuKinds != kBlocking ? wrong : "blocking twin: " + wrong;
      },
      Measurer::GlobalSpan, 2);
  if (!s.error.empty()) return Conformance(o_.collective, count, s.error);
  raw_.Write({{"type", "cpu"}, {"comm_target", target}, {"count", count}, {"bytes", coll_->BytesPerRank(count)},
              {"value_columns", {"user_s", "system_s"}}, {"reading_cost", reading_cost},
              {"blocking", Samples(s, kBlocking, kCpuKinds)}, {"nonblocking", Samples(s, kNonblocking, kCpuKinds)}});
  return 0;
}

// Clock synchronization against a known truth: every rank of one host shares
// CLOCK_MONOTONIC, which is rank 0's local clock; one rank's clock (or every
// rank's but 0, --inject-all) is perturbed with a known offset and drift.
// Records, per rank, (local, mono) pairs from right after the sync over the
// probe window, so the driver evaluates both the extrapolated and the
// interpolated models against the truth.
int Harness::RunClockCheck() {
  InitialSync();
  const ClockModel realtime = clock_.fit().model;
  json probes = json::array();
  auto probe = [&] {
    // One reading for both: two reads a preemption apart made the check
    // report the preemption as clock error (29.8 us once in CI).
    const double mono = LocalClock::Mono();
    const double local = clock_.local_clock().At(mono);
    probes.push_back({local, mono, realtime.ToGlobal(local)});
  };
  probe();  // right after the sync; the probe window starts here
  const double until = LocalClock::Mono() + o_.clock_check_wait;
  while (LocalClock::Mono() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    probe();
  }
  // After the window, so that its length does not depend on how long the
  // barriers take (many ranks sharing cores: tens of seconds).
  if (o_.clock_check_skew_rounds > 0) {
    SyncBarrier barrier(comm_, clock_);
    BarrierSkew(barrier, o_.clock_check_skew_rounds);
  }
  Sync("end", SyncOptions{});
  std::vector<std::string> all = comm_.GatherStrings(probes.dump());
  json rec = {{"type", "clock_probes"}, {"probes", json::array()}};
  for (auto& s : all) rec["probes"].push_back(json::parse(s));
  raw_.Write(rec);
  return 0;
}

// r_mpi_impact numerator: the computation with MPI initialised and idle, in
// a short job of its own, run exactly as nbcguard-compute runs it without
// MPI (start together at one CLOCK_REALTIME instant, back to back). The
// driver alternates the two kinds of job so both see the same machine.
int Harness::RunPassive() {
  const int threads = o_.threads > 0 ? o_.threads : AutoThreads(comm_.ranks_on_node());
  ComputeTeam team(threads);
  if (o_.sizes.size() != o_.comp_targets.size()) Fatal("--sizes and --comp need one entry each");
  double start = comm_.BcastDouble(comm_.rank() == 0 ? RealtimeNow() + 0.2 : 0.0);
  for (std::size_t i = 0; i < o_.sizes.size(); ++i) {
    team.Prepare(o_.sizes[i]);
    bool late = false;
    std::vector<double> times = RunFromInstant(team, o_.repetitions, start, RealtimeNow, &late);
    start += BlockSlot(o_.repetitions, o_.comp_targets[i]);
    const bool any_late = comm_.AnyTrue(late);
    std::vector<double> all = comm_.GatherToRoot(times);
    raw_.Write({{"type", "passive"}, {"comp_target", o_.comp_targets[i]}, {"n", o_.sizes[i]},
                {"threads", threads}, {"times", all}, {"reps", o_.repetitions}, {"late", any_late}});
  }
  return 0;
}

// Paper 002's check of the collective's time: per message size, the
// synchronized-clock time of MPI_Ibcast + MPI_Wait (first start to last
// end, as everywhere in nbcguard), and for every destination i the root's
// round trips to i and its broadcast + acknowledgement loop. The two methods
// take turns in rounds, so a machine whose speed drifts biases neither. The
// driver turns the records into OL_i = E_i - RTT_i / 2 and compares.
int Harness::RunBcastAck() {
  coll_ = MakeCollective("ibcast", comm_.get());
  InitialSync();
  SyncBarrier barrier(comm_, clock_);
  BarrierSkew(barrier, 30);
  Measurer m(comm_, clock_, barrier);
  constexpr int kRounds = 5;
  const int per_round = std::max(3, (o_.repetitions + kRounds - 1) / kRounds);
  for (std::uint64_t count : o_.counts) {
    coll_->Resize(count);
    Sync("point", SyncOptions{2, 50, 0.1});
    json sync_local = json::array(), sync_exits = json::array();
    std::vector<std::vector<double>> rtt(comm_.size()), e(comm_.size());
    for (int round = 0; round < kRounds; ++round) {
      SampleSet s = m.Run(2, per_round, [&](int rep) { coll_->Fill(rep); },
                          [&](int, double* t) { TimeStartWait(*coll_, clock_, t); },
                          [&](int rep) { return coll_->Verify(rep); }, Measurer::GlobalSpan);
      if (!s.error.empty()) return Conformance("ibcast", count, s.error);
      for (std::size_t i = 0; i < s.local.size(); ++i) {
        sync_local.push_back(s.local[i]);
        sync_exits.push_back(s.exits[i]);
      }
      for (int dest = 1; dest < comm_.size(); ++dest) {
        CheckMpi(MPI_Barrier(comm_.get()), "MPI_Barrier");
        std::vector<double> r = AckRoundTrips(comm_, clock_, dest, per_round);
        CheckMpi(MPI_Barrier(comm_.get()), "MPI_Barrier");
        std::string error;
        std::vector<double> t = BcastWithAck(comm_, clock_, *coll_, dest, per_round, &error);
        if (!error.empty()) return Conformance("ibcast", count, error);
        rtt[dest].insert(rtt[dest].end(), r.begin(), r.end());
        e[dest].insert(e[dest].end(), t.begin(), t.end());
      }
    }
    json ack = json::array();
    for (int dest = 1; dest < comm_.size(); ++dest) ack.push_back({{"dest", dest}, {"rtt", rtt[dest]}, {"e", e[dest]}});
    raw_.Write({{"type", "bcast_ack"}, {"count", count}, {"bytes", coll_->BytesPerRank(count)},
                {"sync", {{"k", 2}, {"local", sync_local}, {"exits", sync_exits}}}, {"ack", ack}});
  }
  Sync("end", SyncOptions{});
  return 0;
}

// Every registered collective at a few sizes, a few repetitions: verifies.
int Harness::RunVerify() {
  SyncBarrier barrier(comm_, clock_);
  Measurer m(comm_, clock_, barrier);
  for (const std::string& name : CollectiveNames()) {
    coll_ = MakeCollective(name, comm_.get());
    if (!coll_) Fatal("collective " + name + " is named but not registered");
    for (std::uint64_t count : {1ull, 7ull, 1000ull, 65537ull}) {
      coll_->Resize(count);
      MPI_Request req;
      SampleSet s = m.Run(2, 3, [&](int rep) { coll_->Fill(rep); },
          [&](int, double* t) {
            t[0] = clock_.LocalNow();
            CheckMpi(coll_->Start(&req), "start");
            CheckMpi(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
            t[1] = clock_.LocalNow();
            if (o_.fault == "corrupt") coll_->Corrupt();
          },
          [&](int rep) { return coll_->Verify(rep); }, Measurer::GlobalSpan);
      if (!s.error.empty()) return Conformance(name, count, s.error);
      // The blocking twin the CPU overhead phase runs, on the same buffers.
      SampleSet b = m.Run(2, 3, [&](int rep) { coll_->Fill(rep); },
          [&](int, double* t) {
            t[0] = clock_.LocalNow();
            CheckMpi(coll_->Blocking(), "blocking collective");
            t[1] = clock_.LocalNow();
            if (o_.fault == "corrupt") coll_->Corrupt();
          },
          [&](int rep) { return coll_->Verify(rep); }, Measurer::GlobalSpan);
      if (!b.error.empty()) return Conformance(name, count, "blocking twin: " + b.error);
      raw_.Write({{"type", "verified"}, {"collective", name}, {"count", count},
                  {"median", Median(s.durations)}, {"blocking_median", Median(b.durations)}});
      if (!coll_->HasSize()) break;
    }
  }
  return 0;
}

}  // namespace
}  // namespace nbcguard

int main(int argc, char** argv) {
  using namespace nbcguard;
  Options o;
  CLI::App app{"nbcguard-harness: one rank of an overlap measurement (started by nbcguard)"};
  app.add_option("--mode", o.mode)
      ->check(CLI::IsMember({"overlap", "clock-check", "verify", "passive", "bcast-ack", "partitioned"}));
  app.add_option("--buffer", o.buffer, "partitioned mode: bytes sent per sample")->check(CLI::PositiveNumber);
  app.add_option("--partitions", o.partitions, "partitioned mode: partition sizes in bytes (each divides --buffer)")
      ->delimiter(',')->check(CLI::PositiveNumber);
  app.add_option("--orders", o.orders, "partitioned mode: ready orders")->delimiter(',')
      ->check(CLI::IsMember(ReadyOrderNames()));
  app.add_option("--pready-threads", o.pready_threads, "partitioned mode: threads marking partitions ready (0 = auto)")
      ->delimiter(',')->check(CLI::NonNegativeNumber);
  app.add_option("--seed", o.seed, "partitioned mode: base seed of the random orders");
  app.add_option("--counts", o.counts, "bcast-ack mode: int32 elements per broadcast")->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--sizes", o.sizes, "passive mode: matrix sizes")->delimiter(',')->check(CLI::PositiveNumber);
  app.add_option("--collective", o.collective)->check(CLI::IsMember(CollectiveNames()));
  app.add_option("--comm", o.comm_targets, "target communication times (s)")->delimiter(',');
  app.add_option("--comp", o.comp_targets, "target computation times (s)")->delimiter(',');
  app.add_option("--repetitions", o.repetitions)->check(CLI::Range(3, 100000));
  app.add_option("--threads", o.threads, "OpenMP threads per rank (0 = auto)")->check(CLI::NonNegativeNumber);
  app.add_option("--reserve", o.reserve, "cores per rank kept free of computation")->check(CLI::NonNegativeNumber);
  app.add_option("--calibration-runs", o.calibration_runs)->check(CLI::Range(1, 1000));
  app.add_option("--sync-sleep", o.sync_sleep, "seconds between the two start calibrations")->check(CLI::NonNegativeNumber);
  app.add_option("--clock-check-wait", o.clock_check_wait)->check(CLI::NonNegativeNumber);
  app.add_option("--clock-check-skew-rounds", o.clock_check_skew_rounds, "clock-check: barrier exit skew rounds")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-bytes", o.max_bytes, "largest buffer of one rank");
  app.add_option("--inject-rank", o.inject_rank, "rank whose clock is perturbed (not 0)")->check(CLI::PositiveNumber);
  app.add_option("--inject-offset", o.inject_offset, "seconds added to that rank's clock");
  app.add_option("--inject-drift", o.inject_drift, "relative rate error of that rank's clock (1e-4 = 100 ppm)");
  app.add_flag("--inject-all", o.inject_all, "perturb every rank but 0 instead, rank-dependent around the offset "
                                             "and drift given (nbcguard/clock_tree.h RankPerturbation)");
  app.add_option("--clock-sync", o.clock_sync, "clock synchronization: flat (every rank against rank 0 in turn) "
                                               "or tree (log2 p stages)")
      ->check(CLI::IsMember(ClockSyncMethodNames()));
  app.add_option("--progression", o.progression, "application-side progression of the overlap runs")
      ->check(CLI::IsMember({"none", "poll", "thread"}));
  app.add_option("--progress-interval", o.progress_interval, "seconds between MPI_Test calls (poll, thread)")
      ->check(CLI::Range(1e-6, 1.0));
  app.add_option("--placement", o.placement, "thread: where the progress thread runs")
      ->check(CLI::IsMember({"bind", "numa", "odd-even"}));
  app.add_option("--fault", o.fault, "inject a failure: a rank exits or hangs, or results are corrupted (testing)")
      ->check(CLI::IsMember({"none", "exit", "hang", "corrupt"}));
  app.add_option("--fault-rank", o.fault_rank)->check(CLI::NonNegativeNumber);
  app.add_option("--fault-point", o.fault_point)->check(CLI::NonNegativeNumber);
  app.add_option("--out", o.out, "raw results (JSON lines, rank 0 writes)")->required();
  app.add_option("--calibration-cache", o.calibration_cache,
                 "directory of calibrated sizes reused as search starts (empty: no cache)");
  app.add_option("--cache-deployment", o.cache_deployment,
                 "the deployment as part of the calibration cache key (deployment, progression, reference, env)");

  // The thread level each mode needs, decided before MPI_Init_thread (the
  // options are parsed after it). Only the partitioned mode calls MPI from
  // several threads at once (MPI_Pready and the per-partition sends from
  // OpenMP threads): MULTIPLE. A harness progress thread (--progression
  // thread) calls MPI while the main thread computes, never at the same
  // time (progress_thread.h): SERIALIZED. Every other mode keeps FUNNELED,
  // which is what the overlap measurements were made with (a library may
  // take slower paths under MPI_THREAD_MULTIPLE).
  auto arg_is = [&](const std::string& name, const std::string& value) {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == name + "=" + value || (a == name && i + 1 < argc && value == argv[i + 1])) return true;
    }
    return false;
  };
  const int required = arg_is("--mode", "partitioned")      ? MPI_THREAD_MULTIPLE
                       : arg_is("--progression", "thread") ? MPI_THREAD_SERIALIZED
                                                           : MPI_THREAD_FUNNELED;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, required, &provided);
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
  int rc = 0;
  {
    Comm comm(MPI_COMM_WORLD);
    RawWriter raw(o.out, comm.rank() == 0);
    const ClockPerturbation perturb = o.inject_all ? RankPerturbation(comm.rank(), o.inject_offset, o.inject_drift)
                                      : comm.rank() == o.inject_rank ? ClockPerturbation{o.inject_offset, o.inject_drift}
                                                                     : ClockPerturbation{};
    LocalClock local(perturb.offset, perturb.drift);
    GlobalClock clock(comm, local);

    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    std::vector<std::string> hosts = comm.GatherStrings(Hostname());
    std::vector<int> aff = Affinity();
    std::vector<std::string> affinity = comm.GatherStrings(nlohmann::json(aff).dump());
    nlohmann::json ctx = {{"type", "context"}, {"mode", o.mode},
                          {"collective", o.mode == "partitioned" ? std::string() : o.collective},
                          {"ranks", comm.size()}, {"ranks_on_node", comm.ranks_on_node()},
                          // Open MPI counts the terminating NUL in len.
                          {"library_version", std::string(version, strnlen(version, len))},
                          {"thread_level_provided", provided}, {"hosts", hosts},
                          {"online_cores", sysconf(_SC_NPROCESSORS_ONLN)},
                          {"affinity", nlohmann::json::array()},
                          {"environment", ProgressEnvironment()},
                          {"comm_targets", o.comm_targets}, {"comp_targets", o.comp_targets},
                          {"repetitions", o.repetitions}, {"inject",
                           {{"rank", o.inject_rank}, {"all", o.inject_all}, {"offset", o.inject_offset}, {"drift", o.inject_drift}}},
                          {"clock_sync", o.clock_sync}};
    for (auto& a : affinity) ctx["affinity"].push_back(nlohmann::json::parse(a));
    raw.Write(ctx);

    Harness h(o, comm, clock, raw);
    if (o.mode == "overlap") rc = h.RunOverlap();
    else if (o.mode == "clock-check") rc = h.RunClockCheck();
    else if (o.mode == "passive") rc = h.RunPassive();
    else if (o.mode == "bcast-ack") rc = h.RunBcastAck();
    else if (o.mode == "partitioned") rc = h.RunPartitioned();
    else rc = h.RunVerify();
    rc = static_cast<int>(comm.Max(rc));
    raw.Write({{"type", "end"}, {"status", rc}});
  }
  MPI_Finalize();
  return rc;
}
