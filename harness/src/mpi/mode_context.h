// What every mode of the harness shares: the communicator, the options, the
// synchronized clock, the raw log and the library's version string (read
// once), and the steps several modes take (clock synchronization, barrier
// skew, fault injection, conformance failures).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "clock_sync.h"
#include "collectives.h"
#include "comm.h"
#include "measure.h"
#include "options.h"
#include "raw_writer.h"
#include "sync_barrier.h"

namespace nbcguard {

struct ModeContext {
  const Options& o;
  const Comm& comm;
  GlobalClock& clock;
  RawWriter& raw;
  const std::string library_version;  // MPI_Get_library_version, as the library formats it
  double sync_seconds = 0;            // wall time in clock synchronization (Sync, the start pause)
};

// MPI_Get_library_version's string (Open MPI counts the terminating NUL in
// the length, MPICH does not).
std::string LibraryVersion();
std::string Hostname();

// The record every run starts with: the run's options and where it runs.
void WriteContext(ModeContext& c, int thread_level_provided);

// One clock synchronization (--clock-sync), recorded as a "clock" record of `phase`.
void Sync(ModeContext& c, const char* phase, SyncOptions so);
// Start (10 x 100 ping-pongs), a pause so the drift estimate has a time
// base, then a second calibration: the real-time model extrapolates from
// both. Ranks on one host: the first calibration only, offset alone.
void InitialSync(ModeContext& c);
// The case's stopping rule (--repetitions-min, --precision); none when the
// points take exactly --repetitions samples.
std::optional<StoppingRule> PointStoppingRule(const ModeContext& c);
// The exit instants of the synchronized barrier and of MPI_Barrier, in the
// same run, so their skews can be compared.
void BarrierSkew(ModeContext& c, SyncBarrier& barrier, int rounds);
void WriteBarrierStats(ModeContext& c, const SyncBarrier& barrier);
// The sentinel's run-wide counts (record "sentinel").
void WriteSentinelStats(ModeContext& c, const Measurer& m);
// The sentinel's part of a measurement's record; null when it was off.
nlohmann::json SentinelJson(const SampleSet& s);

// The samples of one kind (sample index % kinds == kind); with the
// sample set's extra values as "values" ([sample][rank * extra + j]).
nlohmann::json Samples(const SampleSet& s, int kind, int kinds);

// A rank that dies or hangs mid-run (--fault at --fault-point on
// --fault-rank), so tests can show that the driver ends such a run with a
// clear failure and keeps the completed points.
void InjectFaultAt(const ModeContext& c, int point);

// Records a wrong result of `coll` and returns the harness's exit status for it.
int Conformance(ModeContext& c, const std::string& name, const Collective& coll, std::uint64_t count,
                const std::string& error);

}  // namespace nbcguard
