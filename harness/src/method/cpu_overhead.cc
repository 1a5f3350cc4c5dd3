// CPU overhead of a collective: busy fractions per rank and repetition.
#include "nbcguard/cpu_overhead.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>

#include "nbcguard/stats.h"

namespace nbcguard {
namespace {

double Seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
}

}  // namespace

CpuTimes ProcessCpuTimes() {
  rusage r{};
  if (getrusage(RUSAGE_SELF, &r) != 0) return {kNaN, kNaN};  // cannot fail for RUSAGE_SELF; never a fake 0
  return {Seconds(r.ru_utime), Seconds(r.ru_stime)};
}

double BusyFraction(double cpu_seconds, double wall_seconds) {
  if (!std::isfinite(wall_seconds) || !(wall_seconds > 0)) return kNaN;
  if (!std::isfinite(cpu_seconds) || cpu_seconds < 0) return kNaN;
  return cpu_seconds / wall_seconds;
}

CpuBusy SummarizeCpuBusy(const std::vector<std::vector<CpuReading>>& readings) {
  CpuBusy out;
  std::size_t ranks = 0;
  for (const auto& rep : readings) ranks = std::max(ranks, rep.size());
  std::vector<std::vector<double>> own(ranks);
  std::vector<double> walls;
  for (const auto& rep : readings) {
    double top = kNaN;
    for (std::size_t r = 0; r < rep.size(); ++r) {
      const double f = BusyFraction(rep[r].cpu, rep[r].wall);
      own[r].push_back(f);
      if (std::isfinite(rep[r].wall)) walls.push_back(rep[r].wall);
      if (std::isfinite(f) && !(top >= f)) top = f;
    }
    out.busiest.push_back(top);
  }
  out.summary = Summarize(out.busiest);
  for (const auto& f : own) out.per_rank.push_back(Median(f));
  out.median_wall = Median(walls);
  return out;
}

}  // namespace nbcguard
