// The overlap mode's calibration: the matrix size of every computation
// target and the count of every communication target, each search started
// from the calibration cache's size when there is one.
#include <algorithm>
#include <cctype>
#include <functional>
#include <map>

#include "nbcguard/calibrate.h"
#include "nbcguard/calibration_cache.h"
#include "nbcguard/raw_records.h"
#include "nbcguard/stats.h"
#include "nbcguard/units.h"
#include "overlap.h"

namespace nbcguard {
namespace {

using json = nlohmann::json;
using Sizes = std::map<double, std::uint64_t>;  // target -> converged size

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
  CalibrationStep dropped;  // the cached start, when the first attempt dropped it
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool trimmed = attempt > 0;
    cr = CalibrateSize(
        [&](std::uint64_t n) {
          std::vector<double> times = runs_of(n, runs);
          return trimmed ? TrimmedMean(times, 0.2) : Median(times);
        },
        target, co);
    if (cr.dropped_start.size != 0) dropped = cr.dropped_start;
    json steps = json::array();
    for (auto& st : cr.steps) steps.push_back({st.size, st.time});
    attempts->push_back({{"runs", runs},
                         {"statistic", trimmed ? "trimmed mean 20%" : "median"},
                         {"converged", cr.converged},
                         {"reason", cr.reason},
                         {"steps", steps}});
    if (cr.dropped_start.size != 0)
      attempts->back()["dropped_start"] = {cr.dropped_start.size, cr.dropped_start.time};
    const bool out_of_range = cr.reason.rfind("target ", 0) == 0;
    if (cr.converged || out_of_range || cr.size == 0) break;
    runs *= 3;
    co.start_size = cr.size;
    co.start_trust_factor = 0;  // the best size just measured, not the cache's
  }
  cr.dropped_start = dropped;
  return cr;
}

// The calibration cache of this configuration (calibration_cache.h).
struct Cache {
  bool on = false;
  CalibrationCacheKey key;
  CalibrationCacheEntries entries;  // rank 0: the file's; others: the targets of this run
};

// A cached start size is trusted while its first time is within this
// factor of its target. A stale size (the machine slower today) is off by
// far less; further off, it is not this configuration's and its
// neighbourhood may take long to measure (a GEMM of order 4096 takes
// seconds where the targets are milliseconds).
constexpr double kCachedStartTrust = 8;

// How one target's search starts: the cached size when it may start one,
// else `otherwise`; *note says why a cached size was not used.
CalibrationOptions StartFrom(const Cache& cache, const Sizes& cached, const char* axis, double target,
                             std::uint64_t otherwise, CalibrationOptions co, std::string* note) {
  co.start_size = otherwise;
  co.fallback_start_size = otherwise;
  if (!cache.on || !cached.count(target)) return co;
  const std::uint64_t size = cached.at(target);
  if (const std::string why = CachedSizeProblem(size, co.min_size, co.max_size); !why.empty()) {
    *note = DroppedSizeNote(axis, size, FormatDuration(target), why);
    return co;
  }
  co.start_size = size;
  co.start_trust_factor = kCachedStartTrust;
  return co;
}

// The note on a cached start that the search dropped after measuring it.
void NoteDroppedStart(const CalibrationResult& cr, const char* axis, double target, std::string* note) {
  if (cr.dropped_start.size == 0 || !note->empty()) return;
  *note = DroppedSizeNote(axis, cr.dropped_start.size, FormatDuration(target),
                          "it measured " + FormatDuration(cr.dropped_start.time) + " (more than " +
                              std::to_string(static_cast<int>(kCachedStartTrust)) + "x off)");
}

// Whitespace runs folded: Open MPI and MPICH format the version differently.
std::string FoldSpaces(const std::string& text) {
  std::string folded;
  for (char ch : text) {
    const bool space = std::isspace(static_cast<unsigned char>(ch));
    if (space && (folded.empty() || folded.back() == ' ')) continue;
    folded += space ? ' ' : ch;
  }
  while (!folded.empty() && folded.back() == ' ') folded.pop_back();
  return folded;
}

// Collective: rank 0 reads the file; every rank learns the cached sizes
// (equal start sizes keep all ranks on the same search path).
Cache OpenCache(ModeContext& c, int threads) {
  const Options& o = c.o;
  Cache cache;
  if (o.calibration_cache.empty()) return cache;
  cache.on = true;
  cache.key.library = FoldSpaces(c.library_version);
  cache.key.ranks = c.comm.size();
  cache.key.hosts = HostCounts(c.comm.GatherStrings(Hostname()));  // rank 0 only needs them
  cache.key.collective = o.collective;
  cache.key.deployment = o.cache_deployment;
  cache.key.threads = threads;
  cache.key.max_bytes = o.max_bytes;
  std::string error;
  std::vector<std::string> dropped;  // malformed entries, left out
  if (c.comm.rank() == 0)
    cache.entries = LoadCalibrationCache(o.calibration_cache, cache.key, &error, &dropped);
  auto agree = [&](Sizes& m, const std::vector<double>& targets) {
    Sizes mine;
    for (double t : targets) {
      auto it = m.find(t);
      const double v = c.comm.BcastDouble(it == m.end() ? 0.0 : static_cast<double>(it->second));
      if (v > 0) mine[t] = static_cast<std::uint64_t>(v);
    }
    if (c.comm.rank() != 0) m = mine;
    return mine.size();
  };
  const std::size_t found =
      agree(cache.entries.comm, o.comm_targets) + agree(cache.entries.comp, o.comp_targets);
  c.raw.Write(record::kCalibrationCache, {{"dir", o.calibration_cache},
                                          {"file", cache.key.FileName()},
                                          {"key", json::parse(cache.key.Canonical())},
                                          {"targets_found", found},
                                          {"targets", o.comm_targets.size() + o.comp_targets.size()},
                                          {"error", error},
                                          {"dropped", dropped}});
  return cache;
}

// After calibration: rank 0 records the converged sizes (other targets'
// entries are kept).
// Entries dropped as unusable and not replaced are left out.
void StoreCache(ModeContext& c, const Cache& cache, const Sizes& comm, const Sizes& comp,
                const std::vector<double>& dropped_comm, const std::vector<double>& dropped_comp) {
  if (!cache.on || c.comm.rank() != 0) return;
  CalibrationCacheEntries e = cache.entries;
  for (double t : dropped_comm) e.comm.erase(t);
  for (double t : dropped_comp) e.comp.erase(t);
  for (const auto& [t, n] : comm) e.comm[t] = n;
  for (const auto& [t, n] : comp) e.comp[t] = n;
  std::string error;
  if (!StoreCalibrationCache(c.o.calibration_cache, cache.key, e, &error))
    c.raw.Write(record::kCalibrationCacheStore, {{"error", error}});
}

// How the cache served one target: off, miss (nothing cached), hit (the
// cached size met the target at its first measurement), stale (it did
// not; the search went on from it) or dropped (it could not start a search,
// or measured far off the target: the search started from the default).
const char* CacheUse(const Cache& cache, const Sizes& cached, double target, const CalibrationResult& cr,
                     const json& attempts, const std::string& note) {
  if (!cache.on) return "off";
  if (!cached.count(target)) return "miss";
  if (!note.empty()) return "dropped";
  return cr.converged && attempts.size() == 1 && cr.steps.size() == 1 ? "hit" : "stale";
}

// Computation: matrix size whose slowest rank (slowest thread) takes the target.
void CalibrateComputation(ModeContext& c, Measurer& m, ComputeTeam& team, const Cache& cache, int runs,
                          CalibratedSizes* sizes, Sizes* found, std::vector<double>* dropped) {
  const std::vector<double>& targets = c.o.comp_targets;
  auto comp_run = [&](int n, int reps) {
    team.Prepare(n);
    team.Run();  // warm-up
    return m.Run(
        2, reps, [](int) {},
        [&](int, double* t) {
          t[0] = c.clock.LocalNow();
          team.Run();
          t[1] = c.clock.LocalNow();
        },
        [](int) { return std::string(); }, Measurer::SlowestRank);
  };
  sizes->comp.assign(targets.size(), std::nullopt);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    CalibrationOptions co;
    co.min_size = 2;
    co.max_size = 4096;
    co.growth_exponent = 3;  // GEMM time grows as n^3
    co.recheck_steps = 2;    // GEMM has no algorithm switch: a step is the machine's speed changing
    std::string note;
    co = StartFrom(cache, cache.entries.comp, "comp", targets[i], 64, co, &note);
    json attempts;
    CalibrationResult cr =
        CalibrateWithRetry([&](std::uint64_t n, int r) { return comp_run(static_cast<int>(n), r).durations; },
                           targets[i], co, runs, &attempts);
    NoteDroppedStart(cr, "comp", targets[i], &note);
    if (!note.empty()) dropped->push_back(targets[i]);
    c.raw.Write(record::kCompCalibration,
                {{"target", targets[i]},
                 {"converged", cr.converged},
                 {"size", cr.size},
                 {"time", cr.time},
                 {"reason", cr.reason},
                 {"attempts", attempts},
                 {"cache", CacheUse(cache, cache.entries.comp, targets[i], cr, attempts, note)},
                 {"cache_note", note}});
    if (cr.converged) sizes->comp[i] = static_cast<int>(cr.size);
    if (cr.converged) (*found)[targets[i]] = cr.size;
  }
}

// The times of `runs` samples of `count` elements, or empty once a sample
// was wrong (*error, *error_count: the first failure), which stops the search.
std::vector<double> CommRuns(ModeContext& c, Measurer& m, Collective& coll, std::uint64_t count, int runs,
                             std::string* error, std::uint64_t* error_count) {
  if (!error->empty()) return {};  // already failed
  auto body = [&](int, double* t) { TimeStartWait(coll, c.clock, t); };
  coll.Resize(count);
  coll.Fill(0);
  body(0, std::vector<double>(2).data());  // warm-up
  SampleSet s = m.Run(
      2, runs, [&](int rep) { coll.Fill(rep); }, body, [&](int rep) { return coll.Verify(rep); },
      Measurer::GlobalSpan);
  if (!s.error.empty()) {
    *error = s.error;
    *error_count = count;
    return {};
  }
  return s.durations;
}

// Communication: block count whose NBC + MPI_Wait (never the blocking
// call) takes the target, first rank's start to last rank's end.
int CalibrateCommunication(ModeContext& c, Measurer& m, Collective& coll, const Cache& cache, int runs,
                           CalibratedSizes* sizes, Sizes* found, std::vector<double>* dropped) {
  const std::vector<double>& targets = c.o.comm_targets;
  sizes->comm.assign(targets.size(), std::nullopt);
  for (std::size_t j = 0; j < targets.size(); ++j) {
    CalibrationOptions co;
    co.min_size = 1;
    co.max_size = std::max<std::uint64_t>(1, coll.MaxCount(c.o.max_bytes));
    co.recheck_steps = 1;  // a real step (protocol switch) shows up again
    std::string note;
    co = StartFrom(cache, cache.entries.comm, "comm", targets[j], std::min<std::uint64_t>(256, co.max_size),
                   co, &note);
    std::string error;
    std::uint64_t error_count = 0;
    json attempts;
    CalibrationResult cr = CalibrateWithRetry(
        [&](std::uint64_t count, int r) { return CommRuns(c, m, coll, count, r, &error, &error_count); },
        targets[j], co, runs, &attempts);
    if (!error.empty()) return Conformance(c, c.o.collective, coll, error_count, error);
    NoteDroppedStart(cr, "comm", targets[j], &note);
    if (!note.empty()) dropped->push_back(targets[j]);
    c.raw.Write(record::kCommCalibration,
                {{"target", targets[j]},
                 {"converged", cr.converged},
                 {"size", cr.size},
                 {"bytes", coll.BytesPerRank(cr.size)},
                 {"time", cr.time},
                 {"reason", cr.reason},
                 {"attempts", attempts},
                 {"cache", CacheUse(cache, cache.entries.comm, targets[j], cr, attempts, note)},
                 {"cache_note", note}});
    if (cr.converged) sizes->comm[j] = cr.size;
    if (cr.converged) (*found)[targets[j]] = cr.size;
  }
  return 0;
}

}  // namespace

int CalibrateGrid(ModeContext& c, Measurer& m, Collective& coll, ComputeTeam& team, CalibratedSizes* sizes) {
  const int runs = std::min(c.o.calibration_runs, c.o.repetitions);
  const Cache cache = OpenCache(c, team.threads());
  Sizes found_comp, found_comm;                    // converged sizes, for the cache
  std::vector<double> dropped_comp, dropped_comm;  // targets whose cached size was dropped
  CalibrateComputation(c, m, team, cache, runs, sizes, &found_comp, &dropped_comp);
  if (const int rc = CalibrateCommunication(c, m, coll, cache, runs, sizes, &found_comm, &dropped_comm);
      rc != 0)
    return rc;
  StoreCache(c, cache, found_comm, found_comp, dropped_comm, dropped_comp);
  return 0;
}

}  // namespace nbcguard
