// The check of the collective's time by the acknowledgement method of de
// Supinski and Karonis, HPDC 1999: per message size, the
// synchronized-clock time of MPI_Ibcast + MPI_Wait (first start to last
// end, as everywhere in nbcguard), and for every destination i the root's
// round trips to i and its broadcast + acknowledgement loop. The two methods
// take turns in rounds, so a machine whose speed drifts biases neither. The
// driver turns the records into OL_i = E_i - RTT_i / 2 and compares.
#include <algorithm>

#include "bcast_ack_loops.h"
#include "modes.h"
#include "nbcguard/raw_records.h"

namespace nbcguard {
namespace {

using json = nlohmann::json;

constexpr int kRounds = 5;

// One message size: kRounds rounds of both methods, one "bcast_ack" record.
int MeasureCount(ModeContext& c, Measurer& m, Collective& bcast, std::uint64_t count, int per_round) {
  const Comm& comm = c.comm;
  bcast.Resize(count);
  Sync(c, "point", SyncOptions{2, 50, 0.1});
  json sync_local = json::array(), sync_exits = json::array();
  SampleSet watched;  // the sentinel's tally over the rounds' synchronized samples
  std::vector<std::vector<double>> rtt(comm.size()), e(comm.size());
  for (int round = 0; round < kRounds; ++round) {
    SampleSet s = m.Run(
        2, per_round, [&](int rep) { bcast.Fill(rep); },
        [&](int, double* t) { TimeStartWait(bcast, c.clock, t); }, [&](int rep) { return bcast.Verify(rep); },
        Measurer::GlobalSpan);
    if (!s.error.empty()) return Conformance(c, "ibcast", bcast, count, s.error);
    for (std::size_t i = 0; i < s.local.size(); ++i) {
      sync_local.push_back(s.local[i]);
      sync_exits.push_back(s.exits[i]);
      watched.local.push_back(s.local[i]);
    }
    watched.wanted += s.wanted;
    watched.disturbed_slow_probe += s.disturbed_slow_probe;
    watched.disturbed_foreign_wait += s.disturbed_foreign_wait;
    watched.sentinel.insert(watched.sentinel.end(), s.sentinel.begin(), s.sentinel.end());
    for (int dest = 1; dest < comm.size(); ++dest) {
      CheckMpi(MPI_Barrier(comm.get()), "MPI_Barrier");
      std::vector<double> r = AckRoundTrips(comm, c.clock, dest, per_round);
      CheckMpi(MPI_Barrier(comm.get()), "MPI_Barrier");
      std::string error;
      std::vector<double> t = BcastWithAck(comm, c.clock, bcast, dest, per_round, &error);
      if (!error.empty()) return Conformance(c, "ibcast", bcast, count, error);
      rtt[dest].insert(rtt[dest].end(), r.begin(), r.end());
      e[dest].insert(e[dest].end(), t.begin(), t.end());
    }
  }
  json ack = json::array();
  for (int dest = 1; dest < comm.size(); ++dest)
    ack.push_back({{"dest", dest}, {"rtt", rtt[dest]}, {"e", e[dest]}});
  c.raw.Write(record::kBcastAck, {{"count", count},
                                  {"bytes", bcast.BytesPerRank(count)},
                                  {"sync", {{"k", 2}, {"local", sync_local}, {"exits", sync_exits}}},
                                  {"ack", ack},
                                  {"sentinel", SentinelJson(watched)}});
  return 0;
}

}  // namespace

int RunBcastAck(ModeContext& c) {
  std::unique_ptr<Collective> bcast = MakeCollective("ibcast", c.comm.get());
  InitialSync(c);
  SyncBarrier barrier(c.comm, c.clock);
  BarrierSkew(c, barrier, 30);
  Measurer m(c.comm, c.clock, barrier, c.o.sentinel == "on");
  m.SetWorkers({});
  const int per_round = std::max(3, (c.o.repetitions + kRounds - 1) / kRounds);
  for (std::uint64_t count : c.o.counts) {
    if (const int rc = MeasureCount(c, m, *bcast, count, per_round); rc != 0) return rc;
  }
  Sync(c, "end", SyncOptions{});
  return 0;
}

}  // namespace nbcguard
