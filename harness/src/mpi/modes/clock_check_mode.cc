// Clock synchronization against a known truth: every rank of one host shares
// CLOCK_MONOTONIC, which is rank 0's local clock; one rank's clock (or every
// rank's but 0, --inject-all) is perturbed with a known offset and drift.
// Records, per rank, (local, mono) pairs from right after the sync over the
// probe window, so the driver evaluates both the extrapolated and the
// interpolated models against the truth.
#include <chrono>
#include <thread>

#include "modes.h"
#include "nbcguard/raw_records.h"

namespace nbcguard {

int RunClockCheck(ModeContext& c) {
  using json = nlohmann::json;
  InitialSync(c);
  const ClockModel realtime = c.clock.fit().model;
  json probes = json::array();
  auto probe = [&] {
    // One reading for both: two reads a preemption apart made the check
    // report the preemption as clock error (29.8 us once in CI).
    const double mono = LocalClock::Mono();
    const double local = c.clock.local_clock().At(mono);
    probes.push_back({local, mono, realtime.ToGlobal(local)});
  };
  probe();  // right after the sync; the probe window starts here
  const double until = LocalClock::Mono() + c.o.clock_check_wait;
  while (LocalClock::Mono() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    probe();
  }
  // After the window, so that its length does not depend on how long the
  // barriers take (many ranks sharing cores: tens of seconds).
  if (c.o.clock_check_skew_rounds > 0) {
    SyncBarrier barrier(c.comm, c.clock);
    BarrierSkew(c, barrier, c.o.clock_check_skew_rounds);
  }
  Sync(c, "end", SyncOptions{});
  json all = json::array();
  for (const std::string& s : c.comm.GatherStrings(probes.dump())) all.push_back(json::parse(s));
  c.raw.Write(record::kClockProbes, {{"probes", all}});
  return 0;
}

}  // namespace nbcguard
