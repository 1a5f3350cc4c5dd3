#include "measure.h"

#include <algorithm>
#include <limits>

namespace nbcguard {

void TimeStartWait(Collective& coll, const GlobalClock& clock, double* t) {
  MPI_Request req;
  t[0] = clock.LocalNow();
  CheckMpi(coll.Start(&req), "nonblocking collective start");
  CheckMpi(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
  t[1] = clock.LocalNow();
}

Measurer::Measurer(const Comm& comm, GlobalClock& clock, SyncBarrier& barrier)
    : comm_(comm), clock_(clock), barrier_(barrier) {}

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
                        const std::function<double(const std::vector<double>&, int)>& duration, int extra) {
  SampleSet set;
  set.k = k;
  set.extra = extra;
  const int max_tries = 4 * reps + 8;
  std::vector<double> stamps(k + extra);
  int kept = 0;
  for (int tries = 0; kept < reps && tries < max_tries; ++tries) {
    const int rep = kept;
    prepare(rep);
    const BarrierExit exit = barrier_.Wait();
    body(rep, stamps.data());
    const std::string wrong = verify(rep);

    // One agreement for lateness and correctness.
    const bool any_wrong = comm_.AnyTrue(!wrong.empty());
    if (any_wrong) {
      // Every rank must leave with the error, or the others carry on into
      // the next collective and the job hangs.
      set.error = comm_.FirstError(wrong);
      return set;
    }
    const bool any_late = comm_.AnyTrue(exit.late);
    barrier_.Report(any_late);
    if (any_late) {
      ++set.late_redone;
      continue;
    }
    // Local stamps for the post-mortem clock, real-time global stamps for
    // decisions taken now (calibration).
    std::vector<double> mine(stamps.begin(), stamps.begin() + k);
    for (int j = 0; j < k; ++j) mine.push_back(clock_.ToGlobal(stamps[j]));
    mine.push_back(exit.exit_local);
    mine.insert(mine.end(), stamps.begin() + k, stamps.end());
    std::vector<double> all = comm_.GatherToRoot(mine);
    double d = 0;
    if (comm_.rank() == 0) {
      const std::size_t per = 2 * k + 1 + extra;
      std::vector<double> local, global, exits, values;
      for (int r = 0; r < comm_.size(); ++r) {
        const double* p = all.data() + r * per;
        local.insert(local.end(), p, p + k);
        const std::ptrdiff_t k2 = 2 * static_cast<std::ptrdiff_t>(k);
        global.insert(global.end(), p + k, p + k2);
        exits.push_back(p[k2]);
        values.insert(values.end(), p + k2 + 1, p + per);
      }
      d = duration(global, k);
      set.local.push_back(std::move(local));
      set.exits.push_back(std::move(exits));
      if (extra > 0) set.values.push_back(std::move(values));
    }
    set.durations.push_back(comm_.BcastDouble(d));
    ++kept;
  }
  return set;
}

}  // namespace nbcguard
