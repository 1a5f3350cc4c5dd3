#include "partitioned_run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <map>
#include <tuple>

#include <unistd.h>

#include "console.h"
#include "nbcguard/driver_common.h"
#include "nbcguard/results_io.h"
#include "nbcguard/units.h"
#include "report.h"

namespace nbcguard {

using json = nlohmann::json;

namespace {

std::string RatioCell(const Spread& s) {
  if (s.n == 0 || !std::isfinite(s.median)) return "-";
  char buf[80];
  std::snprintf(buf, sizeof buf, "%.3g [%.3g,%.3g]", s.median, s.lo, s.hi);
  return buf;
}

// Point i of the grid; a mechanism with no measurement is left out rather than written as empty.
json PointJson(const PartitionedReduction& red, std::size_t i, const Verdict& v) {
  const PartitionedPoint& p = red.points[i];
  json jp = {{"partition_bytes", p.at.partition_bytes},
             {"partition", FormatBytes(p.at.partition_bytes)},
             {"partitions", p.at.partitions},
             {"order", ToString(p.at.order)},
             {"threads", p.at.threads},
             {"valid", p.valid}};
  if (!p.valid) jp["invalid_reason"] = p.invalid_reason;
  json bw = json::object(), t = json::object();
  for (int m = 0; m < kMechanisms; ++m) {
    const char* name = ToString(AllMechanisms()[m]);
    if (p.stats.bandwidth[m].n == 0) continue;
    bw[name] = SpreadJson(p.stats.bandwidth[m]);
    t[name] = NumberOrNull(p.stats.time_median[m]);
  }
  jp["bandwidth_bytes_per_s"] = bw;
  jp["time_median_s"] = t;
  jp["best_other"] = p.stats.best_other ? json(ToString(*p.stats.best_other)) : json(nullptr);
  jp["r_partitioned"] = SpreadJson(p.stats.r_partitioned);
  jp["verified_samples"] = red.verified_samples[i];
  if (!red.seeds[i].empty()) jp["random_seeds"] = red.seeds[i];
  jp["verdict"] = PointVerdict(p, v);
  return jp;
}

json PartitionedFindingsJson(const std::vector<Finding>& fs) {
  json a = json::array();
  for (const Finding& f : fs)
    a.push_back({{"rule", f.rule},
                 {"at", f.at},
                 {"metric", MetricName(f.metric)},
                 {"measured", SpreadJson(f.measured)},
                 {"limit", f.limit},
                 {"kind", f.is_max ? "max" : "min"},
                 {"message", f.Message()}});
  return a;
}

// Unlike the overlap tests' VerdictJson, a point here is named by one string and a finding by "at".
json PartitionedVerdictJson(const Verdict& v, const std::string& threshold_file) {
  return {{"pass", v.pass},
          {"summary", v.Summary()},
          {"threshold_file", threshold_file},
          {"checked", v.checked_names},
          {"failures", PartitionedFindingsJson(v.failures)},
          {"within_noise", PartitionedFindingsJson(v.within_noise)},
          {"invalid", v.InvalidLines()}};
}

// The buffer the harness reported, else the case's; threads 0 is written as the case file spells it, "auto".
json CaseJson(const PartitionedRunInfo& info, const PartitionedReduction& red) {
  json orders = json::array(), threads = json::array();
  for (ReadyOrder o : info.spec.orders) orders.push_back(ToString(o));
  for (int t : info.spec.pready_threads) threads.push_back(t > 0 ? json(t) : json("auto"));
  return {{"name", info.case_name},
          {"file", info.case_file},
          {"kind", "partitioned"},
          {"nodes", info.nodes},
          {"buffer_bytes", red.buffer ? red.buffer : info.spec.buffer},
          {"orders", orders},
          {"pready_threads", threads},
          {"seed", info.spec.seed},
          {"repetitions", info.repetitions},
          {"labels", info.labels}};
}

}  // namespace

void PrintPartitionedTable(std::ostream& out, const PartitionedRunInfo& info, const PartitionedReduction& red,
                           const Verdict& v) {
  out << "nbcguard: partitioned communication, rank 0 to rank 1 of " << info.nodes << ", buffer "
      << FormatBytes(red.buffer ? red.buffer : info.spec.buffer) << ", " << info.library_version << "\n";
  PrintClockSync(out, red.clock);
  if (red.barrier.is_object() && red.barrier.contains("synchronized"))
    out << "; synchronized barrier exit skew median/max "
        << Us(red.barrier["synchronized"].value("median", NAN)) << " / "
        << Us(red.barrier["synchronized"].value("max", NAN));
  out << "\nsamples redone because a rank was late at the synchronized barrier: " << red.late_redone
      << "; samples whose data the receiver verified: " << red.samples_verified << "\n";
  out << "effective bandwidth = buffer / time (first rank's start to last rank's end), median; "
         "r_partitioned = partitioned / best other mechanism, per repetition: median [95% CI]\n";
  out << std::left << std::setw(11) << "partition" << std::setw(7) << "parts" << std::setw(12) << "order"
      << std::setw(9) << "threads" << std::setw(11) << "send" << std::setw(11) << "isend" << std::setw(12)
      << "persistent" << std::setw(13) << "partitioned" << std::setw(12) << "best other" << std::setw(24)
      << "r_partitioned"
      << "verdict\n";
  for (const PartitionedPoint& p : red.points) {
    out << std::setw(11) << FormatBytes(p.at.partition_bytes) << std::setw(7) << p.at.partitions
        << std::setw(12) << ToString(p.at.order) << std::setw(9) << p.at.threads;
    if (!p.valid) {
      out << "INVALID: " << p.invalid_reason << "\n";
      continue;
    }
    for (int m = 0; m < kMechanisms; ++m)
      out << std::setw(m == 2 ? 12 : m == 3 ? 13 : 11) << FormatBandwidth(p.stats.bandwidth[m].median);
    out << std::setw(12) << (p.stats.best_other ? ToString(*p.stats.best_other) : "-") << std::setw(24)
        << RatioCell(p.stats.r_partitioned) << PointVerdict(p, v) << "\n";
  }
  PrintVerdictLines(out, red.conformance_error, info.threshold_file, v);
}

json PartitionedResultsJson(const PartitionedRunInfo& info, const RawRun& raw,
                            const PartitionedReduction& red, const Verdict& v) {
  json points = json::array();
  for (std::size_t i = 0; i < red.points.size(); ++i) points.push_back(PointJson(red, i, v));
  json results =
      CommonResultsJson({raw, info.implementation_label, info.launch, info.deployment_env, red.clock,
                         red.barrier, red.late_redone, red.samples, red.conformance_error});
  results.update({
      {"kind", "partitioned"},
      {"case", CaseJson(info, red)},
      {"library_version", info.library_version},
      {"thread_level_provided", red.thread_level},
      {"mechanisms", {"send", "isend", "persistent", "partitioned"}},
      {"metric",
       "effective bandwidth = buffer bytes / (last rank's end - first rank's start); r_partitioned = partitioned "
       "bandwidth / best_other's in the same repetition, median and 95% CI over repetitions"},
      {"points", points},
      {"verification",
       {{"samples_verified_on_receiver", red.samples_verified},
        {"method",
         "every byte of every sample against a pattern of sample and position, and "
         "each partition's first and last byte as MPI_Parrived reports it"}}},
      {"verdict", PartitionedVerdictJson(v, info.threshold_file)},
  });
  return results;
}

std::vector<Measurement> PartitionedMeasurements(const PartitionedReduction& red, const Verdict& v) {
  double lowest = NAN, lowest_checked = NAN, best_bw = NAN;
  int invalid = 0;
  for (const PartitionedPoint& p : red.points) {
    if (!p.valid) {
      ++invalid;
      continue;
    }
    const double r = p.stats.r_partitioned.median;
    if (!(lowest <= r)) lowest = r;
    if (std::find(v.checked_names.begin(), v.checked_names.end(), PointName(p.at)) != v.checked_names.end() &&
        !(lowest_checked <= r))
      lowest_checked = r;
    const double bw = p.stats.bandwidth[static_cast<int>(Mechanism::kPartitioned)].median;
    if (std::isfinite(bw) && !(best_bw >= bw)) best_bw = bw;
  }
  double rtt = 0, res = 0;
  for (const json& c : red.clock) {
    res = std::max(res, c.value("residual_rms_s", 0.0));
    rtt = std::max(rtt, c.value("min_rtt_s", 0.0));
  }
  return {Measurement::Numeric("lowest r_partitioned in checked region", lowest_checked),
          Measurement::Numeric("lowest r_partitioned", lowest),
          Measurement::Numeric("best partitioned bandwidth GB/s", best_bw / 1e9),
          Measurement::Numeric("samples verified", static_cast<double>(red.samples_verified)),
          Measurement::Numeric("sync precision us", rtt / 2 * 1e6),
          Measurement::Numeric("clock residual us", res * 1e6),
          Measurement::Numeric("invalid points", invalid),
          Measurement::Numeric("limits exceeded", static_cast<double>(v.failures.size()))};
}

std::vector<std::string> PartitionedJob::LeadingArgs(const JobSetup& s) const {
  const CaseSpec& c = s.test.spec;
  std::string sizes, orders, threads;
  for (std::uint64_t b : c.partitioned.partition_bytes)
    sizes += (sizes.empty() ? "" : ",") + std::to_string(b);
  for (ReadyOrder o : c.partitioned.orders) orders += (orders.empty() ? "" : ",") + std::string(ToString(o));
  for (int t : c.partitioned.pready_threads) threads += (threads.empty() ? "" : ",") + std::to_string(t);
  return {"--mode",           "partitioned",
          "--buffer",         std::to_string(c.partitioned.buffer),
          "--partitions",     sizes,
          "--orders",         orders,
          "--pready-threads", threads,
          "--seed",           std::to_string(c.partitioned.seed),
          "--repetitions",    std::to_string(c.repetitions)};
}

// The grid as the harness will expand it; "auto" threads as the harness
// resolves them when every rank runs on this host (a progress estimate only).
WatchShape PartitionedJob::Shape(const JobSetup& s) const {
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const int auto_threads = static_cast<int>(std::max(1L, cores / std::max(1, s.test.nodes)));
  return {0, 0, static_cast<int>(ExpandPartitionedGrid(s.test.spec.partitioned, auto_threads).size())};
}

void PartitionedJob::Describe(const JobSetup& s, const RawRun&, const JobRecord& record) {
  const CaseSpec& c = s.test.spec;
  info_ = PartitionedRunInfo{};
  info_.case_name = c.name;
  info_.case_file = c.file;
  info_.implementation_label = s.cfg.implementation;
  info_.library_version = record.library_version;
  info_.threshold_file = record.threshold_file;
  info_.launch = record.launch;
  info_.nodes = s.test.nodes;
  info_.repetitions = c.repetitions;
  info_.labels = c.labels;
  info_.deployment_env = s.plan.env;
  info_.spec = c.partitioned;
}

int PartitionedJob::FinishTest(const TestSetup& t, JobOutcome* first) const {
  if (!t.ro.baseline.empty())
    std::cout << "baseline: partitioned results are not compared with a baseline (nbcguard compare reads "
                 "overlap results only); the thresholds decide\n";
  return first->rc;
}

}  // namespace nbcguard
