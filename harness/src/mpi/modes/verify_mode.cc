// Every registered collective at a few sizes, a few repetitions: verifies
// the results of the nonblocking collective and of its blocking twin (the
// one the CPU overhead phase runs), on the same buffers.
#include "modes.h"
#include "nbcguard/deployment.h"
#include "nbcguard/raw_records.h"
#include "nbcguard/stats.h"

namespace nbcguard {
namespace {

// Three verified samples of `call` (the nonblocking start + MPI_Wait, or
// the blocking twin); --fault corrupt spoils each result. A library that
// completes without writing what it must deliver, on every rank: --fault
// stale makes no call after the first (Fill kept the previous sample's
// checked buffer, collectives.h), unwritten none (the buffer is new: Fill
// reset it).
SampleSet RunVerified(ModeContext& c, Measurer& m, Collective& coll, const std::function<void()>& call) {
  return m.Run(
      2, 3, [&](int rep) { coll.Fill(rep); },
      [&](int rep, double* t) {
        t[0] = c.clock.LocalNow();
        if (c.o.fault != "unwritten" && (c.o.fault != "stale" || rep == 0)) call();
        t[1] = c.clock.LocalNow();
        if (c.o.fault == "corrupt") coll.Corrupt();
      },
      [&](int rep) { return coll.Verify(rep); }, Measurer::GlobalSpan);
}

}  // namespace

int RunVerify(ModeContext& c) {
  SyncBarrier barrier(c.comm, c.clock);
  Measurer m(c.comm, c.clock, barrier, c.o.sentinel == "on");
  m.SetWorkers({});
  const CollectiveComm on(c.comm.get(), c.o.communicator);
  for (const std::string& name : CollectiveNames()) {
    std::unique_ptr<Collective> coll = MakeCollective(name, on.get(), false, c.o.root);
    if (!coll) Fatal("collective " + name + " is named but not registered");
    for (std::uint64_t count : {1ull, 7ull, 1000ull, 65537ull}) {
      coll->Resize(count);
      SampleSet s = RunVerified(c, m, *coll, [&] {
        MPI_Request req;
        CheckMpi(coll->Start(&req), "start");
        CheckMpi(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
      });
      if (!s.error.empty()) return Conformance(c, name, *coll, count, s.error);
      SampleSet b = RunVerified(c, m, *coll, [&] { CheckMpi(coll->Blocking(), "blocking collective"); });
      if (!b.error.empty()) return Conformance(c, name, *coll, count, "blocking twin: " + b.error);
      c.raw.Write(record::kVerified, {{"collective", name},
                                      {"count", count},
                                      {"median", Median(s.durations)},
                                      {"blocking_median", Median(b.durations)}});
      if (!coll->HasSize()) break;
    }
  }
  return 0;
}

}  // namespace nbcguard
