// CPU overhead of the collectives (Hoefler et al., 2006) from the "cpu"
// records: the busiest rank's CPU-busy fraction inside the nonblocking
// collective + MPI_Wait and inside its blocking twin.
#include <cstdio>
#include <string>

#include "nbcguard/cpu_overhead.h"
#include "nbcguard/raw_records.h"
#include "nbcguard/reduce.h"
#include "nbcguard/units.h"
#include "reduce_steps.h"

namespace nbcguard {

using json = nlohmann::json;

std::vector<std::vector<CpuReading>> CpuReadings(const json& samples, const std::vector<ClockFit>& clocks) {
  std::vector<std::vector<CpuReading>> out;
  if (!samples.is_object() || !samples.contains("local") || !samples.contains("values")) return out;
  const int k = samples.value("k", 0), extra = samples.value("extra", 0);
  const json& local = samples["local"];
  const json& values = samples["values"];
  if (k < 2 || extra < 2 || !local.is_array() || !values.is_array()) return out;
  auto num = [](const json& a, std::size_t i) {
    return i < a.size() && a[i].is_number() ? a[i].get<double>() : kReduceNaN;
  };
  for (std::size_t i = 0; i < local.size(); ++i) {
    const json& l = local[i];
    const json& v = i < values.size() ? values[i] : json::array();
    std::vector<CpuReading> ranks;
    for (std::size_t r = 0; l.is_array() && (r + 1) * k <= l.size(); ++r) {
      CpuReading c;
      if (r < clocks.size()) {
        const ClockModel& m = clocks[r].model;
        c.wall = m.ToGlobal(num(l, r * k + k - 1)) - m.ToGlobal(num(l, r * k));
      }
      // user + system: only the sum is exact over a short interval (cpu_overhead.h).
      if (v.is_array()) c.cpu = num(v, r * extra) + num(v, r * extra + 1);
      ranks.push_back(c);
    }
    out.push_back(std::move(ranks));
  }
  return out;
}

namespace {

// One kind of call of a "cpu" record, for results.json: the busiest rank's
// fraction per repetition, its median and interval, each rank's median,
// and the times (the rank's own inside the call; the collective's, first
// start to last end).
json CpuKindJson(const CpuBusy& b, const GlobalSamples& spans, double reading_loss) {
  std::vector<double> t;
  for (const auto& s : spans) t.push_back(Span(s, 0, 1));
  json busiest = json::array(), per_rank = json::array();
  for (double f : b.busiest) busiest.push_back(FiniteOrNull(f));
  for (std::size_t r = 0; r < b.per_rank.size(); ++r)
    per_rank.push_back({{"rank", r}, {"median", FiniteOrNull(b.per_rank[r])}});
  return {{"median", FiniteOrNull(b.summary.median)},
          {"ci_lo", FiniteOrNull(b.summary.lo)},
          {"ci_hi", FiniteOrNull(b.summary.hi)},
          {"n", b.summary.n},
          {"busiest_per_repetition", busiest},
          {"per_rank", per_rank},
          {"wall_median", FiniteOrNull(b.median_wall)},
          {"t_collective_median", FiniteOrNull(Median(t))},
          {"reading_bias", FiniteOrNull(reading_loss / b.median_wall)}};
}

// Wall time of a pair of CPU readings that is not CPU time inside them (the
// harness's "reading_cost", median over ranks): a call that polls
// throughout reads 1 - loss / wall. NaN when the record has no such cost.
double ReadingLoss(const json& rec) {
  if (!rec.contains("reading_cost") || !rec["reading_cost"].is_object()) return kReduceNaN;
  const json& c = rec["reading_cost"];
  if (!c.contains("wall") || !c.contains("cpu") || !c["wall"].is_array() || !c["cpu"].is_array())
    return kReduceNaN;
  std::vector<double> loss;
  for (std::size_t r = 0; r < c["wall"].size() && r < c["cpu"].size(); ++r)
    if (c["wall"][r].is_number() && c["cpu"][r].is_number())
      loss.push_back(c["wall"][r].get<double>() - c["cpu"][r].get<double>());
  return Median(loss);
}

// Calls of a few tens of microseconds: the readings' own cost shows. The
// note for results.json ("" when neither kind of call is that short).
std::string ShortCallsNote(const CpuBusy& nbc, const CpuBusy& blocking, double loss) {
  std::string short_calls;
  for (const auto& [name, b] : {std::pair<const char*, const CpuBusy*>{"nonblocking + wait", &nbc},
                                std::pair<const char*, const CpuBusy*>{"blocking", &blocking}}) {
    const double bias = loss / b->median_wall;
    if (!(bias > 0.05)) continue;
    char text[200];
    std::snprintf(text, sizeof text,
                  "%s%s call lasts %s: a call that polls throughout reads %.2f (the CPU "
                  "readings cost %.1f us of wall time outside the CPU they count)",
                  short_calls.empty() ? "the " : "; the ", name, FormatDuration(b->median_wall).c_str(),
                  1 - bias, loss * 1e6);
    short_calls += text;
  }
  return short_calls;
}

}  // namespace

CpuOverhead CpuOverheadOf(const RawRun& run, const std::vector<ClockFit>& clocks) {
  CpuOverhead out;
  const json& env = run.context.contains("environment") ? run.context["environment"] : json::object();
  const std::string wait_policy =
      env.is_object() ? env.value("OMP_WAIT_POLICY", std::string()) : std::string();
  for (const json* rec : RecordsOfType(run, record::kCpu)) {
    const double target = rec->value("comm_target", kReduceNaN);
    const json& nbc_samples = rec->contains("nonblocking") ? (*rec)["nonblocking"] : json::object();
    const json& blocking_samples = rec->contains("blocking") ? (*rec)["blocking"] : json::object();
    if (!std::isfinite(target) || !nbc_samples.contains("local") || !blocking_samples.contains("local"))
      continue;
    const CpuBusy nbc = SummarizeCpuBusy(CpuReadings(nbc_samples, clocks));
    const CpuBusy blocking = SummarizeCpuBusy(CpuReadings(blocking_samples, clocks));
    out.per_comm[target] = {nbc.summary, blocking.summary};
    const double loss = ReadingLoss(*rec);
    json row = {{"comm_target", target},
                {"count", rec->value("count", json())},
                {"bytes_per_rank", rec->value("bytes", json())},
                {"nonblocking", CpuKindJson(nbc, ToGlobal(nbc_samples, clocks), loss)},
                {"blocking", CpuKindJson(blocking, ToGlobal(blocking_samples, clocks), loss)},
                {"reading_loss_s", FiniteOrNull(loss)},
                {"omp_wait_policy", wait_policy}};
    if (nbc.summary.n == 0 || blocking.summary.n == 0) row["error"] = "no usable CPU reading";
    const std::string short_calls = ShortCallsNote(nbc, blocking, loss);
    if (!short_calls.empty()) row["resolution"] = short_calls;
    // Idle OpenMP threads that spin are CPU the library did not use.
    if (wait_policy != "PASSIVE")
      row["warning"] =
          "OMP_WAIT_POLICY is not PASSIVE: idle OpenMP threads may spin and be counted as the "
          "collective's CPU";
    out.rows.push_back(row);
  }
  return out;
}

}  // namespace nbcguard
