// ReducePartitioned: the plan, each measured point's samples on the global
// clock, per mechanism, and the verification count.
#include "nbcguard/reduce_partitioned.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

#include "nbcguard/raw_records.h"
#include "nbcguard/reduce.h"
#include "nbcguard/units.h"

namespace nbcguard {

using json = nlohmann::json;

namespace {

using PointKey = std::tuple<std::uint64_t, std::string, int>;

PointKey KeyOf(const PartitionedPointSpec& p) { return {p.partition_bytes, ToString(p.order), p.threads}; }

PointKey KeyOf(const json& rec) {
  return {rec.value("partition_bytes", std::uint64_t{0}), rec.value("order", std::string()),
          rec.value("threads", 0)};
}

PartitionedPointSpec SpecOf(const json& rec) {
  PartitionedPointSpec p;
  p.partition_bytes = rec.value("partition_bytes", std::uint64_t{0});
  p.partitions = rec.value("partitions", 0);
  p.order = ParseReadyOrder(rec.value("order", std::string())).value_or(ReadyOrder::kLeftRight);
  p.threads = rec.value("threads", 1);
  return p;
}

}  // namespace

PartitionedReduction ReducePartitioned(const RawRun& run) {
  PartitionedReduction red;
  const std::vector<ClockFit> clocks = FitClocks(run);
  red.clock = ClockFitJson(run, clocks);
  red.barrier = BarrierSkewJson(run, clocks);
  for (const json* rec : RecordsOfType(run, record::kConformanceFailure))
    red.conformance_error = (*rec).value("error", std::string("wrong data")) + " (mechanism " +
                            (*rec).value("mechanism", std::string("?")) + ", partition size " +
                            FormatBytes((*rec).value("partition_bytes", std::uint64_t{0})) + ", order " +
                            (*rec).value("order", std::string("?")) + ", " +
                            std::to_string((*rec).value("threads", 0)) + " thread(s))";
  for (const json* rec : RecordsOfType(run, record::kPartitionedVerification))
    red.samples_verified = (*rec).value("samples_verified_on_receiver", std::int64_t{0});

  // The plan lists every point the run was asked for; a point without a
  // record was not reached (the run ended first).
  std::vector<PartitionedPointSpec> plan;
  for (const json* rec : RecordsOfType(run, record::kPartitionedPlan)) {
    red.buffer = (*rec).value("buffer", std::uint64_t{0});
    red.thread_level = (*rec).value("thread_level", -1);
    for (const json& p : (*rec)["points"]) plan.push_back(SpecOf(p));
  }
  std::map<PointKey, const json*> measured;
  for (const json* rec : RecordsOfType(run, record::kPartitionedPoint)) measured[KeyOf(*rec)] = rec;

  red.samples = json::array();
  for (const PartitionedPointSpec& at : plan) {
    PartitionedPoint p;
    p.at = at;
    std::vector<std::uint64_t> seeds;
    int verified = 0;
    const auto it = measured.find(KeyOf(at));
    if (it == measured.end()) {
      p.valid = false;
      p.invalid_reason = red.conformance_error.empty()
                             ? "not measured (run ended before this point)"
                             : "not measured (the run stopped at a conformance failure)";
    } else if (it->second->contains("invalid_reason")) {
      p.valid = false;
      p.invalid_reason = (*it->second)["invalid_reason"].get<std::string>();
    } else {
      const json& rec = *it->second;
      std::array<std::vector<double>, kMechanisms> times;
      json per = json::object();
      for (int m = 0; m < kMechanisms; ++m) {
        const char* name = ToString(AllMechanisms()[m]);
        if (!rec["samples"].contains(name)) continue;
        const json& s = rec["samples"][name];
        for (const auto& sample : ToGlobal(s, clocks)) times[m].push_back(Span(sample, 0, 1));
        per[name] = times[m];
        if (m == 0) red.late_redone += s.value("late_redone", 0);
      }
      p.stats = SummarizePartitioned(red.buffer, times);
      verified = rec.value("verified_samples", 0);
      if (rec.contains("seeds")) seeds = rec["seeds"].get<std::vector<std::uint64_t>>();
      std::size_t fewest = times[0].size();
      for (const auto& t : times) fewest = std::min(fewest, t.size());
      if (fewest < 3) {
        p.valid = false;
        p.invalid_reason = "fewer than 3 samples of a mechanism survived the synchronized barrier";
      } else if (!std::isfinite(p.stats.r_partitioned.median)) {
        p.valid = false;
        p.invalid_reason = "no finite r_partitioned (a mechanism has no positive time)";
      }
      red.samples.push_back({{"partition_bytes", at.partition_bytes},
                             {"order", ToString(at.order)},
                             {"threads", at.threads},
                             {"seconds", per}});
    }
    red.points.push_back(p);
    red.verified_samples.push_back(verified);
    red.seeds.push_back(seeds);
  }
  return red;
}

}  // namespace nbcguard
