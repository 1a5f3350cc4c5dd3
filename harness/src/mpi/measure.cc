#include "measure.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>

#include <unistd.h>

namespace nbcguard {

void TimeStartWait(Collective& coll, const GlobalClock& clock, double* t) {
  MPI_Request req;
  t[0] = clock.LocalNow();
  CheckMpi(coll.Start(&req), "nonblocking collective start");
  CheckMpi(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
  t[1] = clock.LocalNow();
}

Measurer::Measurer(const Comm& comm, GlobalClock& clock, SyncBarrier& barrier, bool sentinel)
    : comm_(comm), clock_(clock), barrier_(barrier), sentinel_(sentinel) {}

void Measurer::SetWorkers(const std::vector<pid_t>& tids) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::string mine = std::string(host) + " " + std::to_string(getpid()) + " " + std::to_string(gettid());
  for (const pid_t t : tids) mine += " " + std::to_string(t);
  std::string all;
  for (const std::string& line : comm_.GatherStrings(mine)) all += line + "\n";
  all = comm_.BcastString(all);
  std::vector<pid_t> pids, workers;
  std::istringstream lines(all);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    std::string h;
    long pid = 0;
    if (!(in >> h >> pid) || h != host) continue;
    pids.push_back(static_cast<pid_t>(pid));
    for (long t = 0; in >> t;) workers.push_back(static_cast<pid_t>(t));
  }
  probe_.SetJob(pids, workers);
}

namespace {

// The agreed outcome of one try, the largest code over ranks: a late rank
// outranks a disturbance (the try is redone either way).
enum TryCode { kKept = 0, kForeignWait = 1, kSlowProbe = 2, kLate = 4 };

TryCode CodeOf(bool late, Disturbance d) {
  if (late) return kLate;
  return d == Disturbance::kSlowProbe ? kSlowProbe : d == Disturbance::kForeignWait ? kForeignWait : kKept;
}

}  // namespace

double Measurer::GlobalSpan(const std::vector<double>& s, int k) {
  double first = std::numeric_limits<double>::infinity(), last = -first;
  for (std::size_t r = 0; r + k <= s.size(); r += k) {
    first = std::min(first, s[r]);
    last = std::max(last, s[r + k - 1]);
  }
  return last - first;
}

double Measurer::SlowestRank(const std::vector<double>& s, int k) {
  double worst = 0;
  for (std::size_t r = 0; r + k <= s.size(); r += k) worst = std::max(worst, s[r + k - 1] - s[r]);
  return worst;
}

SampleSet Measurer::Run(int k, int reps, const std::function<void(int)>& prepare,
                        const std::function<void(int, double*)>& body,
                        const std::function<std::string(int)>& verify,
                        const std::function<double(const std::vector<double>&, int)>& duration, int extra,
                        int kinds, const StoppingRule* stop) {
  SampleSet set;
  set.k = k;
  set.extra = extra;
  set.wanted = reps;
  const int watched = sentinel_ ? kSentinelValues : 0;
  if (sentinel_) {
    probe_.Refresh();
    detector_.NewMeasurement(kinds);
  }
  const int max_tries = 4 * reps + 8;
  std::vector<double> stamps(k + extra);
  int kept = 0;
  for (int tries = 0; kept < reps && tries < max_tries; ++tries) {
    const int rep = kept;
    prepare(rep);
    if (sentinel_) probe_.Before();
    const BarrierExit exit = barrier_.Wait();
    body(rep, stamps.data());
    SentinelReading reading;
    Disturbance disturbed = Disturbance::kNone;
    if (sentinel_) {
      reading = probe_.After(stamps[k - 1] - stamps[0]);
      disturbed = detector_.Judge(rep % std::max(kinds, 1), reading);
    }
    const std::string wrong = verify(rep);

    // One agreement for correctness, one for lateness and disturbance.
    const bool any_wrong = comm_.AnyTrue(!wrong.empty());
    if (any_wrong) {
      // Every rank must leave with the error, or the others carry on into
      // the next collective and the job hangs.
      set.error = comm_.FirstError(wrong);
      return set;
    }
    const int code = static_cast<int>(comm_.Max(CodeOf(exit.late, disturbed)));
    barrier_.Report(code == kLate);
    if (code == kLate) {
      ++set.late_redone;
      continue;
    }
    if (code == kSlowProbe || code == kForeignWait) {
      ++(code == kSlowProbe ? set.disturbed_slow_probe : set.disturbed_foreign_wait);
      ++(code == kSlowProbe ? redone_slow_probe_ : redone_foreign_wait_);
      continue;
    }
    // Local stamps for the post-mortem clock, real-time global stamps for
    // decisions taken now (calibration).
    std::vector<double> mine(stamps.begin(), stamps.begin() + k);
    for (int j = 0; j < k; ++j) mine.push_back(clock_.ToGlobal(stamps[j]));
    mine.push_back(exit.exit_local);
    mine.insert(mine.end(), stamps.begin() + k, stamps.end());
    if (sentinel_)
      mine.insert(mine.end(), {reading.probe, reading.foreign_wait, reading.duration,
                               static_cast<double>(reading.preemptions)});
    std::vector<double> all = comm_.GatherToRoot(mine);
    double d = 0;
    if (comm_.rank() == 0) {
      const std::size_t per = 2 * k + 1 + extra + watched;
      std::vector<double> local, global, exits, values, readings;
      for (int r = 0; r < comm_.size(); ++r) {
        const double* p = all.data() + r * per;
        local.insert(local.end(), p, p + k);
        const std::ptrdiff_t k2 = 2 * static_cast<std::ptrdiff_t>(k);
        global.insert(global.end(), p + k, p + k2);
        exits.push_back(p[k2]);
        values.insert(values.end(), p + k2 + 1, p + k2 + 1 + extra);
        readings.insert(readings.end(), p + k2 + 1 + extra, p + per);
      }
      d = duration(global, k);
      set.local.push_back(std::move(local));
      set.exits.push_back(std::move(exits));
      if (extra > 0) set.values.push_back(std::move(values));
      if (sentinel_) set.sentinel.push_back(std::move(readings));
    }
    set.durations.push_back(comm_.BcastDouble(d));
    ++kept;
    if (stop != nullptr && EnoughSamples(set.durations, kinds, *stop)) {
      set.wanted = kept;  // what the rule asked for: not a point whose tries ran out
      break;
    }
  }
  return set;
}

}  // namespace nbcguard
