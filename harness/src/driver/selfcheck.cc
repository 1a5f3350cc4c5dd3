#include "selfcheck.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
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
       Precise(o.inject_drift), "--sentinel", o.sentinel, "--out", raw_path.string()});
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
      100 * model.relative,
      o.max_jobs > 1 ? ", and a second job on a machine the sentinel found undisturbed sees it too"
                     : " (one job: --no-confirm)");
}

void PrintBcastColumns() {
  std::printf("%-8s %-24s %-14s %-10s %-10s %-11s %-10s %-14s %s\n", "size", "sync clock [95% CI]",
              "ack max OL_i", "E_i", "RTT_i", "difference", "tolerance", "redone", "agree");
}

// E_i and RTT_i are those of the destination that sets the acknowledgement's OL.
void PrintBcastRow(const BcastComparison& c) {
  const AckDestination* at = nullptr;
  for (const AckDestination& d : c.destinations)
    if (d.rank == c.ol_rank) at = &d;
  char sync[64], ol[32], redone[32] = "-";
  std::snprintf(sync, sizeof sync, "%s [%s,%s]", FormatDuration(c.global.median).c_str(),
                FormatDuration(c.global.lo).c_str(), FormatDuration(c.global.hi).c_str());
  std::snprintf(ol, sizeof ol, "%s (rank %d)", FormatDuration(c.ol).c_str(), c.ol_rank);
  if (c.sentinel.wanted > 0)
    std::snprintf(redone, sizeof redone, "%d of %d%s", c.sentinel.redone(),
                  c.sentinel.wanted + c.sentinel.redone(), Disturbed(c) ? " !" : "");
  std::printf("%-8s %-24s %-14s %-10s %-10s %-11s %-10s %-14s %s\n", FormatBytes(c.bytes).c_str(), sync, ol,
              at ? FormatDuration(at->e.median).c_str() : "-",
              at ? FormatDuration(at->rtt.median).c_str() : "-", FormatDuration(c.difference).c_str(),
              FormatDuration(c.tolerance).c_str(), redone,
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
          {"within_noise", c.within_noise},
          {"sentinel",
           {{"wanted", c.sentinel.wanted},
            {"redone_slow_probe", c.sentinel.redone_slow_probe},
            {"redone_foreign_wait", c.sentinel.redone_foreign_wait},
            {"disturbed", Disturbed(c)}}}};
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
  BcastComparison c = CompareBcast(rec["bytes"], dests, global, model);
  c.sentinel = SentinelTallyOf(rec);
  return c;
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

// The sync spans' factor of the first and of every later job under --inject-fault.
double Stretch(const std::string& fault, bool first_job) {
  // 4x: beyond a 30 % allowance even where the two methods' natural gap
  // runs the other way (up to 1.45x seen beside a busy neighbour); 2x was
  // within noise once.
  if (fault == "disagree") return 4;
  if (fault == "disagree-once") return first_job ? 4 : 1;
  if (fault == "disagree-flip") return first_job ? 4 : 0.25;
  return 1;
}

// Over all sizes, for the verdict and the CTest measurements.
struct BcastTally {
  int confirmed = 0;      // disagreements beyond noise that stand (seen by both jobs, or by the only one)
  int not_confirmed = 0;  // beyond noise in the first job, refuted by a later one
  int inconclusive = 0;   // still undecided after the last job allowed
  int jobs = 1;           // the jobs measured
  int within_noise = 0;
  double worst = 0;  // |difference| / tolerance, first job
};

// "the second job", "the third job", "job 4".
std::string JobName(int job) {
  return job == 2 ? "the second job" : job == 3 ? "the third job" : "job " + std::to_string(job);
}

// Where later job `job` writes its raw log.
fs::path JobDir(const fs::path& dir, int job) {
  return job == 2 ? dir / "confirm" : dir / ("confirm-job" + std::to_string(job));
}

const char* OutcomeName(SizeVerdict v) {
  return v == SizeVerdict::kConfirmed      ? "confirmed"
         : v == SizeVerdict::kNotConfirmed ? "not confirmed"
                                           : "inconclusive";
}

// The sizes the first job found disagreeing beyond noise, measured again by
// later jobs while undecided (DisagreementTrial), at most o.max_jobs jobs in
// all (in dir/confirm, dir/confirm-job3, ...): each entry of `report` gets
// its "confirmation" and the tally the outcomes. Returns a later job's exit
// code when it left nothing to compare (the disagreements still open then
// stand).
std::optional<int> ConfirmDisagreements(const Config& cfg, const BcastCheckOptions& o, const fs::path& dir,
                                        const std::vector<BcastComparison>& first, json* report,
                                        BcastTally* tally) {
  std::vector<DisagreementTrial> trials;
  std::vector<std::size_t> at;  // index in `first` of each trial
  for (std::size_t i = 0; i < first.size(); ++i)
    if (first[i].disagree()) {
      trials.emplace_back(first[i]);
      at.push_back(i);
      (*report)["sizes"][i]["confirmation"] = {{"jobs", json::array()}};
    }
  std::cout << "\nconfirmation: " << trials.size()
            << " size(s) disagree beyond noise in this job; a disagreement must be seen beyond noise by two "
               "independent jobs on a machine the sentinel found undisturbed, so later jobs measure them "
               "again while undecided, at most "
            << o.max_jobs << " jobs in all\n";
  std::cout.flush();
  std::optional<int> unusable;
  for (int job = 2; job <= o.max_jobs && !unusable; ++job) {
    std::vector<std::uint64_t> again;
    for (std::size_t k = 0; k < trials.size(); ++k)
      if (trials[k].verdict() == SizeVerdict::kOpen) again.push_back(first[at[k]].bytes);
    if (again.empty()) break;
    if (job > 2)
      std::cout << again.size() << " size(s) still undecided: measured again by job " << job << " of at most "
                << o.max_jobs << "\n";
    std::cout.flush();
    const BcastJob later = MeasureBcast(cfg, o, again, JobDir(dir, job), Stretch(o.fault, false));
    tally->jobs = job;
    if (later.unusable) {
      std::cout << JobName(job) << " measured nothing: the disagreements still open stand\n";
      (*report)["confirmation_error"] = JobName(job) + " left nothing to compare";
      unusable = later.unusable;
      break;
    }
    PrintBcastColumns();
    for (const BcastComparison& c : later.sizes) PrintBcastRow(c);
    std::fflush(stdout);
    for (std::size_t k = 0; k < trials.size(); ++k) {
      if (trials[k].verdict() != SizeVerdict::kOpen) continue;
      const BcastComparison* seen = nullptr;
      for (const BcastComparison& c : later.sizes)
        if (c.bytes == first[at[k]].bytes) seen = &c;
      BcastComparison missing;  // NaN difference: no comparison at that size
      missing.bytes = first[at[k]].bytes;
      missing.difference = missing.tolerance = std::numeric_limits<double>::quiet_NaN();
      const BcastComparison& c = seen ? *seen : missing;
      const SizeVerdict v = trials[k].Add(c);
      const LaterJob said = trials[k].last();
      json entry = seen ? BcastSizeJson(*seen) : json{{"bytes", missing.bytes}, {"missing", true}};
      entry["job"] = job;
      (*report)["sizes"][at[k]]["confirmation"]["jobs"].push_back(entry);
      std::cout << "  " << FormatBytes(c.bytes) << ": ";
      if (v == SizeVerdict::kConfirmed) std::cout << "disagreement confirmed by " << JobName(job);
      else if (v == SizeVerdict::kNotConfirmed) std::cout << "not confirmed: " << JobName(job) << " agrees";
      else if (said == LaterJob::kConfirms)
        std::cout << "seen beyond noise by " << JobName(job)
                  << ", the first sighting on an undisturbed machine (the first job's was disturbed)";
      else std::cout << "undecided in " << JobName(job) << " (" << Why(said, c) << ")";
      std::cout << "\n";
    }
  }
  for (std::size_t k = 0; k < trials.size(); ++k) {
    const SizeVerdict v =
        unusable && trials[k].verdict() == SizeVerdict::kOpen ? SizeVerdict::kConfirmed : trials[k].verdict();
    json& conf = (*report)["sizes"][at[k]]["confirmation"];
    conf["confirmed"] = v == SizeVerdict::kConfirmed;
    conf["outcome"] = OutcomeName(v);
    (v == SizeVerdict::kConfirmed      ? tally->confirmed
     : v == SizeVerdict::kNotConfirmed ? tally->not_confirmed
                                       : tally->inconclusive) += 1;
    if (v == SizeVerdict::kOpen)
      std::cout << "  " << FormatBytes(first[at[k]].bytes) << ": INCONCLUSIVE: undecided after "
                << tally->jobs << " jobs\n";
  }
  return unusable;
}

// printf and std::cout both write here: each is flushed before the other takes over, so the lines stay in
// order.
// `how`: how the disagreements that stand were seen (by two jobs, or by the only one).
int FinishBcastCheck(const fs::path& dir, json& report, const BcastTally& t, std::optional<int> second_rc,
                     const std::string& how) {
  const bool agree = t.confirmed == 0 && t.inconclusive == 0;
  report["agree"] = agree;
  report["verdict"] = t.confirmed > 0 ? "fail" : t.inconclusive > 0 ? "inconclusive" : "pass";
  report["jobs"] = t.jobs;
  report["not_confirmed"] = t.not_confirmed;
  report["inconclusive"] = t.inconclusive;
  const std::string write_error = WriteFileAtomically(dir / "bcast-check.json", report.dump(1) + "\n");
  std::fflush(stdout);
  PrintCTestMeasurements(std::cout,
                         {Measurement::Numeric("bcast-check worst difference / tolerance", t.worst),
                          Measurement::Numeric("bcast-check disagreements not confirmed", t.not_confirmed),
                          Measurement::Numeric("bcast-check sizes inconclusive", t.inconclusive),
                          Measurement::Numeric("bcast-check jobs", t.jobs)});
  std::cout.flush();
  if (agree)
    std::printf("PASS: the two methods %s\n",
                t.not_confirmed > 0 ? "agree: the first job's disagreement was not confirmed by a later job"
                : t.within_noise    ? "agree, within noise at some sizes"
                                    : "agree at every size");
  else if (t.confirmed > 0)
    std::printf("FAIL: the two methods disagree beyond noise %s (see above)\n", how.c_str());
  else
    std::printf(
        "bcast-check INCONCLUSIVE: %d size(s) undecided after %d jobs (see above): the machine was too noisy "
        "to tell a disagreement of the two methods from noise\n",
        t.inconclusive, t.jobs);
  std::fflush(stdout);
  if (!write_error.empty()) {
    std::cout << "error: " << write_error << "\n";
    return kHarnessFailed;
  }
  std::cout << "results: " << (dir / "bcast-check.json").string() << "\n";
  if (t.confirmed > 0 && second_rc) return *second_rc;
  return t.confirmed > 0 ? kFail : t.inconclusive > 0 ? kInconclusive : kPass;
}

}  // namespace

int BcastCheck(const Config& cfg, const BcastCheckOptions& o) {
  const fs::path dir =
      fs::path(o.out.empty() ? cfg.results_dir : o.out) / "bcast-check" / ("n" + std::to_string(o.nodes));
  for (int job = 2; job <= std::max(o.max_jobs, 3); ++job) fs::remove_all(JobDir(dir, job));
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
  if (disagreeing > 0 && o.max_jobs > 1)
    second_rc = ConfirmDisagreements(cfg, o, dir, first.sizes, &report, &tally);
  else tally.confirmed = disagreeing;
  return FinishBcastCheck(dir, report, tally, second_rc,
                          o.max_jobs > 1 ? "in two independent jobs" : "in its only job (--no-confirm)");
}

}  // namespace nbcguard
