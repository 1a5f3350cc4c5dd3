#include "selfcheck.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>

#include "ctest_measurements.h"
#include "nbcguard/bcast_ack.h"
#include "nbcguard/deployment.h"
#include "nbcguard/driver_common.h"
#include "nbcguard/raw_records.h"
#include "nbcguard/reduce.h"
#include "nbcguard/results_io.h"
#include "nbcguard/stats.h"
#include "nbcguard/units.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace nbcguard {

int Verify(const Config& cfg, int nodes, const std::string& out, const std::string& fault, int root,
           const std::string& communicator) {
  const fs::path dir =
      fs::path(out.empty() ? cfg.results_dir : out) / "verify" / ("n" + std::to_string(nodes));
  fs::create_directories(dir);
  const fs::path raw_path = dir / "raw.jsonl";
  fs::remove(raw_path);
  ProcessResult r =
      RunProcess(LaunchCommand(cfg, nodes, cfg.harness,
                               {"--mode", "verify", "--fault", fault, "--root", std::to_string(root),
                                "--communicator", communicator, "--out", raw_path.string()}),
                 {}, 300);
  RawRun raw = ReadRaw(raw_path.string());
  std::set<std::string> verified;
  for (const json* v : RecordsOfType(raw, record::kVerified))
    verified.insert((*v)["collective"].get<std::string>());
  for (const json* f : RecordsOfType(raw, record::kConformanceFailure))
    std::cout << "CONFORMANCE FAILURE: " << (*f)["collective"].get<std::string>() << " count "
              << (*f)["count"] << ": " << (*f)["error"].get<std::string>() << "\n";
  int missing = 0;
  for (const std::string& name : CollectiveNames()) {
    const bool ok = verified.count(name) > 0;
    missing += ok ? 0 : 1;
    std::cout << (ok ? "verified " : "NOT VERIFIED ") << name << "\n";
  }
  if (r.exit_code != 0 || missing > 0) return r.exit_code == kConformance ? kConformance : kFail;
  return kPass;
}

namespace {

// The harness's bcast-ack mode at `bytes` with rank 1's clock given the requested offset and drift,
// which the synchronized clock must correct and the acknowledgement needs no correction for; counts
// are 4-byte elements.
ProcessResult RunBcastAck(const Config& cfg, const BcastCheckOptions& o,
                          const std::vector<std::uint64_t>& bytes, const fs::path& raw_path) {
  std::string counts;
  for (std::uint64_t b : bytes)
    counts += (counts.empty() ? "" : ",") + std::to_string(std::max<std::uint64_t>(1, b / 4));
  const auto cmd = LaunchCommand(
      cfg, o.nodes, cfg.harness,
      {"--mode", "bcast-ack", "--counts", counts, "--repetitions", std::to_string(o.repetitions),
       "--inject-rank", "1", "--inject-offset", Precise(o.inject_offset), "--inject-drift",
       Precise(o.inject_drift), "--out", raw_path.string()});
  std::cerr << "nbcguard: bcast-check: " << DescribeLaunch(cfg, cmd) << "\n";
  return RunProcess(cmd, {}, 300);
}

// The exit code when the raw log holds nothing to compare: a broadcast that broke conformance, or a
// harness that failed or did not finish.
std::optional<int> UnusableRun(const RawRun& raw, const ProcessResult& r) {
  for (const json* f : RecordsOfType(raw, record::kConformanceFailure)) {
    std::cout << "CONFORMANCE FAILURE: ibcast count " << (*f)["count"] << ": "
              << (*f)["error"].get<std::string>() << "\n";
    return kConformance;
  }
  if (r.exit_code != 0 || !raw.ended) {
    std::cout << "FAIL: harness bcast-ack " << (r.timed_out ? "timed out" : "failed") << " (exit "
              << r.exit_code << ")\n";
    return kHarnessFailed;
  }
  return std::nullopt;
}

// The worst clock error over ranks and the synchronized barrier's exit skew both widen the tolerance.
AgreementModel ModelOf(const BcastCheckOptions& o, const std::vector<ClockFit>& clocks,
                       const Reduction& red) {
  AgreementModel model;
  model.relative = o.relative;
  for (const ClockFit& f : clocks) model.clock_error = std::max(model.clock_error, f.min_rtt / 2);
  if (red.barrier.is_object()) model.skew = red.barrier["synchronized"].value("median", 0.0);
  return model;
}

void PrintBcastHeader(const BcastCheckOptions& o, const std::string& version, const AgreementModel& model) {
  std::printf("bcast-check on %d ranks (%s): MPI_Ibcast + MPI_Wait from root 0, %d repetitions per method\n",
              o.nodes, version.c_str(), o.repetitions);
  std::printf(
      "  synchronized clock: first rank's start to last rank's end (clock error <= %.2f us per rank, "
      "barrier exit skew median %.2f us%s)\n",
      model.clock_error * 1e6, model.skew * 1e6,
      o.inject_offset != 0 || o.inject_drift != 0 ? ", rank 1's clock offset and drift injected" : "");
  std::printf(
      "  acknowledgement (de Supinski and Karonis, HPDC 1999): OL = max over destinations i of E_i - RTT_i/2, no clock sync\n");
  std::printf(
      "  tolerance = %.0f %% + max RTT/2 + 2 x clock error + exit skew; a difference past it fails only "
      "when the confidence intervals of both medians are past it too (else: within noise)%s\n",
      100 * model.relative, o.confirm ? ", and a second job sees it too" : " (one job: --no-confirm)");
}

void PrintBcastColumns() {
  std::printf("%-8s %-24s %-14s %-10s %-10s %-11s %-10s %s\n", "size", "sync clock [95% CI]", "ack max OL_i",
              "E_i", "RTT_i", "difference", "tolerance", "agree");
}

// E_i and RTT_i are those of the destination that sets the acknowledgement's OL.
void PrintBcastRow(const BcastComparison& c) {
  const AckDestination* at = nullptr;
  for (const AckDestination& d : c.destinations)
    if (d.rank == c.ol_rank) at = &d;
  char sync[64], ol[32];
  std::snprintf(sync, sizeof sync, "%s [%s,%s]", FormatDuration(c.global.median).c_str(),
                FormatDuration(c.global.lo).c_str(), FormatDuration(c.global.hi).c_str());
  std::snprintf(ol, sizeof ol, "%s (rank %d)", FormatDuration(c.ol).c_str(), c.ol_rank);
  std::printf("%-8s %-24s %-14s %-10s %-10s %-11s %-10s %s\n", FormatBytes(c.bytes).c_str(), sync, ol,
              at ? FormatDuration(at->e.median).c_str() : "-",
              at ? FormatDuration(at->rtt.median).c_str() : "-", FormatDuration(c.difference).c_str(),
              FormatDuration(c.tolerance).c_str(),
              c.agree          ? "yes"
              : c.within_noise ? "within noise"
                               : "NO");
}

json BcastSizeJson(const BcastComparison& c) {
  json jd = json::array();
  for (const AckDestination& d : c.destinations)
    jd.push_back(
        {{"rank", d.rank}, {"e_median_s", d.e.median}, {"rtt_median_s", d.rtt.median}, {"ol_s", d.ol}});
  return {{"bytes", c.bytes},
          {"sync_median_s", c.global.median},
          {"sync_ci_s", {c.global.lo, c.global.hi}},
          {"ack_ol_s", c.ol},
          {"ack_ol_rank", c.ol_rank},
          {"destinations", jd},
          {"difference_s", c.difference},
          {"difference_range_s", {c.difference_lo, c.difference_hi}},
          {"tolerance_s", c.tolerance},
          {"agree", c.agree},
          {"within_noise", c.within_noise}};
}

// One size of one job: the synchronized clock's spans (times `stretch`: the injected disagreement,
// 1 otherwise) against the acknowledgement's OL.
BcastComparison CompareSize(const json& rec, const std::vector<ClockFit>& clocks, const AgreementModel& model,
                            double stretch) {
  std::vector<double> global;
  for (const auto& s : ToGlobal(rec["sync"], clocks)) global.push_back(stretch * Span(s, 0, 1));
  std::vector<AckDestination> dests;
  for (const json& a : rec["ack"])
    dests.push_back(
        AckLatency(a["dest"], a["e"].get<std::vector<double>>(), a["rtt"].get<std::vector<double>>()));
  return CompareBcast(rec["bytes"], dests, global, model);
}

// One independent job of the check: a launch of the harness at `bytes`, its raw log in `dir`.
struct BcastJob {
  std::optional<int> unusable;  // the exit code when it left nothing to compare
  AgreementModel model;
  std::string version;
  std::vector<BcastComparison> sizes;
};

BcastJob MeasureBcast(const Config& cfg, const BcastCheckOptions& o, const std::vector<std::uint64_t>& bytes,
                      const fs::path& dir, double stretch) {
  fs::create_directories(dir);
  const fs::path raw_path = dir / "raw.jsonl";
  fs::remove(raw_path);
  const ProcessResult r = RunBcastAck(cfg, o, bytes, raw_path);
  const RawRun raw = ReadRaw(raw_path.string());
  BcastJob job;
  job.unusable = UnusableRun(raw, r);
  if (job.unusable) return job;
  const std::vector<ClockFit> clocks = FitClocks(raw);
  job.model = ModelOf(o, clocks, Reduce(raw, {}));
  job.version = FirstLine(raw.context.value("library_version", ""));
  for (const json* rec : RecordsOfType(raw, record::kBcastAck))
    job.sizes.push_back(CompareSize(*rec, clocks, job.model, stretch));
  return job;
}

// The sync spans' factor of the first and of the second job under --inject-fault.
double Stretch(const std::string& fault, bool first_job) {
  if (fault == "disagree") return 2;
  if (fault == "disagree-once") return first_job ? 2 : 1;
  return 1;
}

// Over all sizes, for the verdict and the CTest measurements.
struct BcastTally {
  int confirmed = 0;      // disagreements beyond noise that stand (seen by both jobs, or by the only one)
  int not_confirmed = 0;  // beyond noise in the first job, not in the second
  int within_noise = 0;
  double worst = 0;  // |difference| / tolerance, first job
};

// The sizes the first job found disagreeing beyond noise, measured again by a second job (in
// dir/confirm): each entry of `report` gets its "confirmation" and the tally its outcome. Returns
// the second job's exit code when it left nothing to compare (the disagreements then stand).
std::optional<int> ConfirmDisagreements(const Config& cfg, const BcastCheckOptions& o, const fs::path& dir,
                                        const std::vector<BcastComparison>& first, json* report,
                                        BcastTally* tally) {
  std::vector<std::uint64_t> again;
  for (const BcastComparison& c : first)
    if (c.disagree()) again.push_back(c.bytes);
  std::cout << "\nconfirmation: " << again.size()
            << " size(s) disagree beyond noise in this job; a disagreement must be seen by two independent "
               "jobs, so a second job measures them again\n";
  std::cout.flush();
  const BcastJob second = MeasureBcast(cfg, o, again, dir / "confirm", Stretch(o.fault, false));
  if (second.unusable) {
    std::cout << "the second job measured nothing: the disagreements stand\n";
    tally->confirmed += static_cast<int>(again.size());
    (*report)["confirmation_error"] = "the second job left nothing to compare";
    return second.unusable;
  }
  PrintBcastColumns();
  for (const BcastComparison& c : second.sizes) PrintBcastRow(c);
  std::fflush(stdout);
  for (std::size_t i = 0; i < first.size(); ++i) {
    if (!first[i].disagree()) continue;
    const BcastComparison* seen = nullptr;
    for (const BcastComparison& c : second.sizes)
      if (c.bytes == first[i].bytes) seen = &c;
    const bool stands = seen == nullptr || ConfirmsDisagreement(first[i], *seen);
    (stands ? tally->confirmed : tally->not_confirmed) += 1;
    json entry = seen ? BcastSizeJson(*seen) : json{{"bytes", first[i].bytes}, {"missing", true}};
    entry["confirmed"] = stands;
    (*report)["sizes"][i]["confirmation"] = entry;
    std::cout << "  " << FormatBytes(first[i].bytes) << ": "
              << (stands ? "disagreement confirmed by the second job"
                         : "not confirmed: the second job agrees")
              << "\n";
  }
  return std::nullopt;
}

// printf and std::cout both write here: each is flushed before the other takes over, so the lines stay in
// order.
// `how`: how the disagreements that stand were seen (by two jobs, or by the only one).
int FinishBcastCheck(const fs::path& dir, json& report, const BcastTally& t, std::optional<int> second_rc,
                     const std::string& how) {
  const bool agree = t.confirmed == 0;
  report["agree"] = agree;
  report["not_confirmed"] = t.not_confirmed;
  const std::string write_error = WriteFileAtomically(dir / "bcast-check.json", report.dump(1) + "\n");
  std::fflush(stdout);
  PrintCTestMeasurements(std::cout,
                         {Measurement::Numeric("bcast-check worst difference / tolerance", t.worst),
                          Measurement::Numeric("bcast-check disagreements not confirmed", t.not_confirmed)});
  std::cout.flush();
  if (agree)
    std::printf("PASS: the two methods %s\n",
                t.not_confirmed > 0 ? "agree: the first job's disagreement was not confirmed by a second job"
                : t.within_noise    ? "agree, within noise at some sizes"
                                    : "agree at every size");
  else std::printf("FAIL: the two methods disagree beyond noise %s (see above)\n", how.c_str());
  std::fflush(stdout);
  if (!write_error.empty()) {
    std::cout << "error: " << write_error << "\n";
    return kHarnessFailed;
  }
  std::cout << "results: " << (dir / "bcast-check.json").string() << "\n";
  if (!agree && second_rc) return *second_rc;
  return agree ? kPass : kFail;
}

}  // namespace

int BcastCheck(const Config& cfg, const BcastCheckOptions& o) {
  const fs::path dir =
      fs::path(o.out.empty() ? cfg.results_dir : o.out) / "bcast-check" / ("n" + std::to_string(o.nodes));
  fs::remove_all(dir / "confirm");
  const BcastJob first = MeasureBcast(cfg, o, o.bytes, dir, Stretch(o.fault, true));
  if (first.unusable) return *first.unusable;
  PrintBcastHeader(o, first.version, first.model);
  PrintBcastColumns();
  json report = {{"library_version", first.version},
                 {"ranks", o.nodes},
                 {"repetitions", o.repetitions},
                 {"model",
                  {{"relative", first.model.relative},
                   {"clock_error_s", first.model.clock_error},
                   {"skew_s", first.model.skew}}},
                 {"sizes", json::array()}};
  if (!o.fault.empty()) report["injected_fault"] = o.fault;
  BcastTally tally;
  int disagreeing = 0;  // beyond noise, in this first job
  for (const BcastComparison& c : first.sizes) {
    PrintBcastRow(c);
    report["sizes"].push_back(BcastSizeJson(c));
    tally.within_noise += c.within_noise ? 1 : 0;
    tally.worst = std::max(tally.worst, std::fabs(c.difference) / c.tolerance);
    disagreeing += c.disagree() ? 1 : 0;
  }
  std::fflush(stdout);
  if (report["sizes"].empty()) {
    std::cout << "FAIL: the harness wrote no broadcast measurement\n";
    return kHarnessFailed;
  }
  std::optional<int> second_rc;
  if (disagreeing > 0 && o.confirm)
    second_rc = ConfirmDisagreements(cfg, o, dir, first.sizes, &report, &tally);
  else tally.confirmed = disagreeing;
  return FinishBcastCheck(dir, report, tally, second_rc,
                          o.confirm ? "in two independent jobs" : "in its only job (--no-confirm)");
}

}  // namespace nbcguard
