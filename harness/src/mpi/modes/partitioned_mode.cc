// MPI-4 partitioned communication against MPI_Send, MPI_Isend and persistent
// sends per partition (Schneewind, HLRS), rank 0 to rank 1. Per grid point
// (partition size x ready order x threads) the four mechanisms take turns
// sample by sample, each timed from the synchronized barrier's release to
// the last rank's end (Measurer::Run, global time as everywhere), so a drift
// of the machine's speed reaches all four alike. Every sample's data is
// verified on the receiver.
#include <algorithm>
#include <cstdio>

#include "gemm.h"
#include "modes.h"
#include "nbcguard/partitioned.h"
#include "nbcguard/raw_records.h"
#include "partitioned_p2p.h"

namespace nbcguard {
namespace {

using json = nlohmann::json;

// What the grid's points share while they are measured.
struct PartitionedRun {
  ModeContext& c;
  Measurer& m;
  PartitionedTransfer& transfer;
  const PartitionedSpec& spec;
  std::uint64_t sample = 0;  // every prepared sample gets its own pattern, redone ones too
  std::int64_t verified = 0;
};

PartitionedSpec SpecOf(const Options& o) {
  PartitionedSpec spec;
  spec.buffer = o.buffer;
  spec.partition_bytes = o.partitions;
  for (const std::string& name : o.orders) spec.orders.push_back(*ParseReadyOrder(name));  // checked by CLI
  spec.pready_threads = o.pready_threads;
  spec.seed = o.seed;
  return spec;
}

long long MaxTag() {
  int* tag_ub = nullptr;
  int has_tag_ub = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &has_tag_ub);
  return has_tag_ub && tag_ub ? *tag_ub : 32767;
}

json PointFields(const PartitionedPointSpec& p) {
  return {{"partition_bytes", p.partition_bytes},
          {"partitions", p.partitions},
          {"order", ToString(p.order)},
          {"threads", p.threads}};
}

void WritePlan(ModeContext& c, const PartitionedSpec& spec, int auto_threads,
               const std::vector<PartitionedPointSpec>& grid) {
  json plan = json::array();
  for (const PartitionedPointSpec& p : grid) plan.push_back(PointFields(p));
  c.raw.Write(record::kPartitionedPlan, {{"buffer", spec.buffer},
                                         {"seed", spec.seed},
                                         {"auto_threads", auto_threads},
                                         {"thread_level", c.o.thread_level},
                                         {"mechanisms", {"send", "isend", "persistent", "partitioned"}},
                                         {"points", plan}});
}

// Why a point cannot be measured here, or "".
std::string InvalidReason(const ModeContext& c, const PartitionedPointSpec& p, long long max_tag) {
  if (p.threads > 1 && c.o.thread_level < MPI_THREAD_MULTIPLE)
    return "MPI_Pready from " + std::to_string(p.threads) +
           " threads needs MPI_THREAD_MULTIPLE, but MPI_Init_thread provided level " +
           std::to_string(c.o.thread_level);
  if (p.partitions - 1 > max_tag)
    return std::to_string(p.partitions) + " partitions need tags up to " + std::to_string(p.partitions - 1) +
           ", above this library's MPI_TAG_UB (" + std::to_string(max_tag) + ")";
  return "";
}

int Conformance(ModeContext& c, Mechanism m, const PartitionedPointSpec& p, const std::string& error) {
  json rec = PointFields(p);
  rec["mechanism"] = ToString(m);
  rec["error"] = error;
  c.raw.Write(record::kConformanceFailure, rec);
  if (c.comm.rank() == 0)
    std::fprintf(stderr, "nbcguard-harness: CONFORMANCE FAILURE: %s at %s: %s\n", ToString(m),
                 PointName(p).c_str(), error.c_str());
  return 4;
}

// One untimed transfer per mechanism (first-touch of the buffers, the
// library's lazy connection and registration), verified.
int WarmUp(PartitionedRun& run, const PartitionedPointSpec& p, std::uint64_t seed) {
  for (Mechanism mech : AllMechanisms()) {
    run.transfer.Prepare(mech, run.sample++, ReadyOrderOf(p.order, p.partitions, seed));
    CheckMpi(MPI_Barrier(run.c.comm.get()), "MPI_Barrier(warm-up)");
    run.transfer.Transfer(mech);
    const std::string agreed = run.c.comm.FirstError(run.transfer.Verify(mech));
    if (!agreed.empty()) return Conformance(run.c, mech, p, agreed);
  }
  return 0;
}

// One measurable point: its "partitioned_point" record with the samples.
int MeasurePoint(PartitionedRun& run, const PartitionedPointSpec& p, int point_index, json rec) {
  ModeContext& c = run.c;
  PartitionedTransfer& transfer = run.transfer;
  Sync(c, "point", SyncOptions{2, 50, 0.1});
  transfer.Setup(p);
  std::vector<std::uint64_t> seeds;
  seeds.reserve(static_cast<std::size_t>(std::max(c.o.repetitions, 0)));
  for (int r = 0; r < c.o.repetitions; ++r) seeds.push_back(RepetitionSeed(run.spec.seed, r));
  auto mechanism = [](int rep) { return AllMechanisms()[rep % kMechanisms]; };
  Mechanism current = Mechanism::kSend;  // the sample being measured
  if (const int rc = WarmUp(run, p, seeds[0]); rc != 0) return rc;
  SampleSet s = run.m.Run(
      2, kMechanisms * c.o.repetitions,
      [&](int rep) {
        transfer.Prepare(mechanism(rep), run.sample++,
                         ReadyOrderOf(p.order, p.partitions, seeds[rep / kMechanisms]));
      },
      [&](int rep, double* t) {
        current = mechanism(rep);
        t[0] = c.clock.LocalNow();
        transfer.Transfer(current);
        t[1] = c.clock.LocalNow();
        if (c.o.fault == "corrupt" && point_index == 0 && mechanism(rep) == Mechanism::kPartitioned)
          transfer.Corrupt();
      },
      [&](int rep) {
        ++run.verified;
        return transfer.Verify(mechanism(rep));
      },
      Measurer::GlobalSpan, 0, kMechanisms);
  transfer.Teardown();
  // The first wrong sample ends the run; the message names mechanism and partition.
  if (!s.error.empty()) return Conformance(c, current, p, s.error);
  json samples = json::object();
  for (int k = 0; k < kMechanisms; ++k) samples[ToString(AllMechanisms()[k])] = Samples(s, k, kMechanisms);
  rec["samples"] = samples;
  rec["seeds"] = p.order == ReadyOrder::kRandom ? json(seeds) : json::array();
  rec["verified_samples"] = s.durations.size();
  c.raw.Write(record::kPartitionedPoint, rec);
  return 0;
}

}  // namespace

int RunPartitioned(ModeContext& c) {
  if (!PartitionedTransfer::Available()) {
    const std::string first_line = c.library_version.substr(0, c.library_version.find('\n'));
    c.raw.Write(record::kSkip, {{"reason", PartitionedTransfer::MissingReason(first_line)}});
    return 0;
  }
  if (c.comm.size() != 2)
    Fatal("partitioned mode runs on exactly 2 ranks, not " + std::to_string(c.comm.size()));
  const PartitionedSpec spec = SpecOf(c.o);
  const int auto_threads = AutoThreads(c.comm.ranks_on_node());
  const std::vector<PartitionedPointSpec> grid = ExpandPartitionedGrid(spec, auto_threads);
  const long long max_tag = MaxTag();
  WritePlan(c, spec, auto_threads, grid);

  InitialSync(c);
  SyncBarrier barrier(c.comm, c.clock);
  BarrierSkew(c, barrier, 30);
  Measurer m(c.comm, c.clock, barrier, c.o.sentinel == "on");
  m.SetWorkers({});
  PartitionedTransfer transfer(c.comm.get(), spec.buffer);
  PartitionedRun run{c, m, transfer, spec};
  int point_index = -1;
  for (const PartitionedPointSpec& p : grid) {
    ++point_index;
    InjectFaultAt(c, point_index);
    json rec = PointFields(p);
    // Points that cannot be measured here are recorded with the reason.
    if (const std::string invalid = InvalidReason(c, p, max_tag); !invalid.empty()) {
      rec["invalid_reason"] = invalid;
      c.raw.Write(record::kPartitionedPoint, rec);
      continue;
    }
    if (const int rc = MeasurePoint(run, p, point_index, rec); rc != 0) return rc;
  }
  Sync(c, "end", SyncOptions{});
  c.raw.Write(record::kPartitionedVerification, {{"samples_verified_on_receiver", run.verified}});
  WriteBarrierStats(c, barrier);
  return 0;
}

}  // namespace nbcguard
