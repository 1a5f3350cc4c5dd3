// The overlap mode's CPU overhead phase, once per communication size.
#include "nbcguard/cpu_overhead.h"
#include "nbcguard/raw_records.h"
#include "nbcguard/stats.h"
#include "overlap.h"

namespace nbcguard {
namespace {

using json = nlohmann::json;

// The readings' own cost, per rank: wall and CPU time of the same pair of
// readings with nothing between them (median of 101). The reduction
// reports how much lower it makes a fully polling call read, which
// matters only for calls of a few tens of microseconds.
json ReadingCost(const ModeContext& c) {
  std::vector<double> empty_wall, empty_cpu;
  for (int i = 0; i < 101; ++i) {
    const double t0 = c.clock.LocalNow();
    const CpuTimes before = ProcessCpuTimes();
    const CpuTimes after = ProcessCpuTimes();
    empty_wall.push_back(c.clock.LocalNow() - t0);
    empty_cpu.push_back(after.Total() - before.Total());
  }
  const std::vector<double> cost = c.comm.GatherToRoot({Median(empty_wall), Median(empty_cpu)});
  json reading_cost = {{"wall", json::array()}, {"cpu", json::array()}};
  for (std::size_t r = 0; r + 1 < cost.size(); r += 2) {
    reading_cost["wall"].push_back(cost[r]);
    reading_cost["cpu"].push_back(cost[r + 1]);
  }
  return reading_cost;
}

}  // namespace

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
int MeasureCpu(ModeContext& c, Measurer& m, Collective& coll, double target, std::uint64_t count) {
  enum CpuKind { kBlocking = 0, kNonblocking = 1, kCpuKinds = 2 };
  coll.Resize(count);
  // Warm-up of the blocking path: the grid's warm-up and calibration only
  // ran the nonblocking one, and a first call may set up connections or buffers.
  coll.Fill(0);
  CheckMpi(coll.Blocking(), "blocking collective (warm-up)");
  const json reading_cost = ReadingCost(c);
  MPI_Request req;
  const std::optional<StoppingRule> rule = PointStoppingRule(c);
  SampleSet s = m.Run(
      2, kCpuKinds * c.o.repetitions, [&](int rep) { coll.Fill(rep); },
      [&](int rep, double* t) {
        t[0] = c.clock.LocalNow();
        const CpuTimes before = ProcessCpuTimes();
        if (rep % kCpuKinds == kBlocking) {
          CheckMpi(coll.Blocking(), "blocking collective");
        } else {
          CheckMpi(coll.Start(&req), "nonblocking collective start");
          CheckMpi(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
        }
        const CpuTimes after = ProcessCpuTimes();
        t[1] = c.clock.LocalNow();
        t[2] = after.user - before.user;
        t[3] = after.system - before.system;
      },
      [&](int rep) {
        const std::string wrong = coll.Verify(rep);
        return wrong.empty() || rep % kCpuKinds != kBlocking ? wrong : "blocking twin: " + wrong;
      },
      Measurer::GlobalSpan, 2, kCpuKinds, rule ? &*rule : nullptr);
  if (!s.error.empty()) return Conformance(c, c.o.collective, coll, count, s.error);
  c.raw.Write(record::kCpu, {{"comm_target", target},
                             {"count", count},
                             {"bytes", coll.BytesPerRank(count)},
                             {"value_columns", {"user_s", "system_s"}},
                             {"reading_cost", reading_cost},
                             {"blocking", Samples(s, kBlocking, kCpuKinds)},
                             {"nonblocking", Samples(s, kNonblocking, kCpuKinds)}});
  return 0;
}

}  // namespace nbcguard
