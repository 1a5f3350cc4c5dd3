#include "overlap_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>

#include "compare_cmd.h"
#include "console.h"
#include "impact_jobs.h"
#include "nbcguard/binding.h"
#include "nbcguard/driver_common.h"
#include "nbcguard/impact_store.h"
#include "nbcguard/raw_records.h"
#include "nbcguard/results_io.h"
#include "nbcguard/units.h"
#include "thresholds.h"

namespace nbcguard {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The reference library's own account of what it did (one line per rank
// and job), with the extremes of the share it took: the known answer holds
// only for the share actually delivered.
json ReadReferenceLog(const fs::path& path) {
  json out = {{"records", json::array()}};
  std::ifstream f(path);
  double lo = 0, hi = 0;
  bool any = false;
  for (std::string line; std::getline(f, line);) {
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.contains("elapsed") || !j.contains("taken")) continue;
    const double elapsed = j["elapsed"];
    if (!(elapsed > 0)) continue;
    j["delivered_share"] = j["taken"].get<double>() / elapsed;
    const double d = j["delivered_share"];
    lo = any ? std::min(lo, d) : d;
    hi = any ? std::max(hi, d) : d;
    any = true;
    out["records"].push_back(j);
  }
  if (any) {
    out["min_share"] = lo;
    out["max_share"] = hi;
  }
  return out;
}

void PrintReferenceDelivered(std::ostream& os, const json& d) {
  if (!d.contains("min_share")) return;
  char buf[160];
  std::snprintf(
      buf, sizeof buf,
      "reference delivered: the computing thread lost %.1f-%.1f %% of its time (asked %g %%) in %zu rank-jobs\n",
      100 * d["min_share"].get<double>(), 100 * d["max_share"].get<double>(),
      100 * d["records"][0]["share"].get<double>(), d["records"].size());
  os << buf;
}

// The deployment as the calibration cache key knows it: everything the
// driver changes about the run that can change a collective's or the
// computation's time (deployment, progression, environment, reference
// behaviour). Paths that differ from run to run stay out. Without
// `reference_parameters`, the reference behaviour's own variables
// (NBCGUARD_REFERENCE*) stay out too: what r_mpi_impact's key needs for a
// behaviour that acts only inside the collective's calls (ImpactKey).
std::string CacheDeployment(const JobSetup& s, bool reference_parameters = true) {
  const Config& cfg = s.cfg;
  std::string out = s.test.Variant();
  // The launcher and its options place the ranks (srun --cpu-bind, mpirun's
  // binding): sizes calibrated through one are not taken for the other.
  if (cfg.launcher != "mpiexec") {
    out += " launcher=" + cfg.launcher;
    for (const std::string& f : cfg.preflags) out += " " + f;
  }
  for (const std::string& a : s.plan.harness_args) out += " " + a;
  for (const auto& [k, v] : s.plan.env) out += " " + k + "=" + v;
  for (const auto& [k, v] : cfg.harness_env) {
    if (k == "LD_PRELOAD" || k == "NBCGUARD_REFERENCE_LOG") continue;
    if (!reference_parameters && k.rfind("NBCGUARD_REFERENCE", 0) == 0) continue;
    out += " " + k + "=" + v;
  }
  return out;
}

// The calibration cache directory of this run (the build's, or --calibration-cache); empty when off.
std::string CalibrationCacheDir(const JobSetup& s) {
  const std::string& cache = s.ro.calibration_cache;
  return cache.empty() ? s.cfg.calibration_cache : cache == "off" ? std::string() : cache;
}

// A program file as the key knows it: its path and when it was last built.
std::string Built(const std::string& path) {
  std::error_code ec;
  const auto t = fs::last_write_time(path, ec);
  return path + "@" + (ec ? std::string("?") : std::to_string(t.time_since_epoch().count()));
}

// What r_mpi_impact depends on besides the computation target
// (impact_store.h): the same text and target mean the same measurement.
// Empty when the test must measure its own: a reference behaviour that
// changes the idle state (passive-impact, slow-rank), or reuse switched off
// (--impact-reuse 0; the confirming job of an r_mpi_impact finding). The reference behaviours acting
// only inside the collective's calls (all but those two) leave MPI's idle
// state as the preloaded library makes it, whatever the behaviour and its
// parameters: they share one measurement, keyed by the reference library's
// build, not by the behaviour (CacheDeployment without its variables).
std::string ImpactKey(const JobSetup& s, const ImpactSetup& impact) {
  const ReferenceSpec& ref = s.test.spec.reference;
  // --inject-fault impact-late disturbs the job's own measurement.
  if (ref.ChangesIdleState() || !(s.ro.impact_reuse > 0) || s.ro.fault == "impact-late") return "";
  std::string reference;
  if (ref.active()) {
    const auto preload = s.cfg.harness_env.find("LD_PRELOAD");
    reference = " reference_library=" + (preload == s.cfg.harness_env.end() ? "?" : Built(preload->second));
  }
  return "implementation=" + s.cfg.implementation + reference + " harness=" + Built(s.cfg.harness) +
         " compute=" + Built(s.cfg.compute) + " nodes=" + std::to_string(impact.nodes) +
         " threads=" + std::to_string(impact.threads) + " deployment=" + CacheDeployment(s, false) +
         " thread_cpus=" + impact.thread_cpus + " process_cpus=" + impact.process_cpus +
         " repetitions_per_round=" + std::to_string(impact.per_round);
}

std::string ImpactTargetKey(const std::string& key, double target) {
  return key.empty() ? key : key + " target=" + Precise(target);
}

// mpi_impact_source of a test whose targets' sources are `targets`: reused
// when every target's rounds were, then by whom and how long before.
json ImpactSource(const json& targets) {
  json out = {{"reused", !targets.empty()}, {"targets", targets}};
  std::vector<std::string> by;
  double age = 0;
  for (const json& t : targets) {
    if (!t["reused"].get<bool>()) {
      out["reused"] = false;
      continue;
    }
    const std::string who = t["measured_by"];
    if (std::find(by.begin(), by.end(), who) == by.end()) by.push_back(who);
    age = std::max(age, t["age_s"].get<double>());
  }
  if (out["reused"].get<bool>()) {
    std::string joined;
    for (const std::string& b : by) joined += (joined.empty() ? "" : ", ") + b;
    out["measured_by"] = joined;
    out["age_s"] = age;
  }
  return out;
}

// The case restricted to the grid points `at` (their comm times x their
// comp times, in the case's order).
CaseSpec RestrictedTo(const CaseSpec& c, const std::vector<std::pair<double, double>>& at) {
  CaseSpec again = c;
  auto keep = [&](std::vector<double>* times, double std::pair<double, double>::*member) {
    times->erase(std::remove_if(times->begin(), times->end(),
                                [&](double t) {
                                  return std::none_of(at.begin(), at.end(),
                                                      [&](const auto& p) { return p.*member == t; });
                                }),
                 times->end());
  };
  keep(&again.comm_times, &std::pair<double, double>::first);
  keep(&again.comp_times, &std::pair<double, double>::second);
  return again;
}

// The r_mpi_impact jobs' computation on the cpus of the overlap job's (its
// "binding" record), unless that one was left unbound.
void BindImpactJobs(const RawRun& raw, ImpactSetup* impact) {
  for (const json* b : RecordsOfType(raw, record::kBinding)) {
    if ((*b).value("policy", "") == ToString(BindingPolicy::kNone)) continue;
    std::vector<std::vector<int>> threads, process;
    for (const json& r : (*b)["ranks"]) {
      std::vector<int> mine;
      for (const json& t : r["thread_cpus"]) {
        if (t.empty()) return;  // a thread's cpus could not be read: leave the jobs unbound
        mine.push_back(t[0]);   // each bound to one cpu
      }
      threads.push_back(mine);
      process.push_back(r["process_cpus"].get<std::vector<int>>());
    }
    impact->thread_cpus = RankCpusArg(threads);
    impact->process_cpus = RankCpusArg(process);
  }
}

}  // namespace

std::vector<std::string> OverlapJob::LeadingArgs(const JobSetup& s) const {
  const CaseSpec& c = s.test.spec;
  std::vector<std::string> args = {"--mode",        "overlap",
                                   "--collective",  c.collective,
                                   "--comm",        JoinPrecise(c.comm_times),
                                   "--comp",        JoinPrecise(c.comp_times),
                                   "--repetitions", std::to_string(c.repetitions),
                                   "--threads",     std::to_string(c.threads),
                                   "--reserve",     std::to_string(s.plan.reserve)};
  if (c.precision > 0)  // the stopping rule: --repetitions is then the most
    args.insert(args.end(), {"--repetitions-min", std::to_string(c.repetitions_min), "--precision",
                             JoinPrecise({c.precision})});
  return args;
}

std::vector<std::string> OverlapJob::TrailingArgs(const JobSetup& s) const {
  std::vector<std::string> args = s.plan.harness_args;
  const std::string cache_dir = CalibrationCacheDir(s);
  if (!cache_dir.empty())
    args.insert(args.end(), {"--calibration-cache", cache_dir, "--cache-deployment", CacheDeployment(s)});
  return args;
}

WatchShape OverlapJob::Shape(const JobSetup& s) const {
  const CaseSpec& c = s.test.spec;
  return {static_cast<int>(c.comp_times.size()), static_cast<int>(c.comm_times.size()),
          static_cast<int>(c.comp_times.size() * c.comm_times.size())};
}

std::string OverlapJob::MoreJobs(const JobSetup& s, double harness_seconds, bool harness_ok, RawRun* raw,
                                 Watchdog* watchdog) {
  for (const json* t : RecordsOfType(*raw, record::kThreads)) threads_ = (*t)["threads"];
  for (const json* ph : RecordsOfType(*raw, record::kPhaseTimes)) phase_times_ = *ph;
  ImpactSetup impact{s.cfg, s.test.nodes, threads_, {}, {}, ImpactRepsPerRound(s.test.spec.repetitions),
                     s.dir, s.plan.env,   s.left,   0,  {}, {}};
  BindImpactJobs(*raw, &impact);
  impact.inject_late = s.ro.fault == "impact-late";
  if (phase_times_.is_object() && phase_times_.contains("total") && phase_times_["total"].is_number())
    impact.launch_seconds = harness_seconds - phase_times_["total"].get<double>();
  for (const json* p : RecordsOfType(*raw, record::kCompCalibration)) {
    if (!(*p)["converged"].get<bool>()) continue;
    impact.sizes.push_back((*p)["size"]);
    impact.targets.push_back((*p)["target"]);
  }
  const auto start = std::chrono::steady_clock::now();
  if (!s.ro.mpi_impact) {
    impact_skipped_ = true;
    std::cout << "r_mpi_impact: not measured by this job (what it confirms is judged on other ratios)\n";
  }
  if (harness_ok && s.ro.mpi_impact && RecordsOfType(*raw, record::kConformanceFailure).empty()) {
    const std::string cache_dir = CalibrationCacheDir(s);
    const fs::path store = cache_dir.empty() ? fs::path() : fs::path(cache_dir) / "impact";
    const std::string key = store.empty() ? std::string() : ImpactKey(s, impact);
    // Per target: the stored rounds when there are, else measured below.
    ImpactMeasurement rounds;
    json targets = json::array();
    ImpactSetup missing = impact;
    missing.sizes.clear();
    missing.targets.clear();
    for (std::size_t i = 0; i < impact.targets.size(); ++i) {
      const std::string tkey = ImpactTargetKey(key, impact.targets[i]);
      std::string note;
      std::optional<StoredImpact> found;
      if (!tkey.empty()) found = FindImpact(store, tkey, s.ro.impact_reuse, RealtimeSeconds(), &note);
      if (!note.empty()) std::cout << "note: " << note << "\n";
      if (found) {
        MergeImpact(&rounds, found->rounds);
        json src = found->source;
        src["comp_target"] = impact.targets[i];
        src["reused"] = true;
        targets.push_back(src);
      } else {
        missing.sizes.push_back(impact.sizes[i]);
        missing.targets.push_back(impact.targets[i]);
      }
    }
    if (!missing.targets.empty()) {
      ImpactRuns runs = RunImpact(missing, watchdog);
      no_mpi_error_ = runs.error;
      impact_disturbed_ = runs.disturbed;
      exit_hangs_ = runs.exit_hangs;
      if (!runs.disturbed.empty())
        std::cout << "r_mpi_impact not measured: " << runs.disturbed
                  << "; the points it limits are refused (undecided, measured again by a second job)\n";
      const ImpactMeasurement measured{runs.passive, runs.no_mpi};
      for (double target : missing.targets) {
        json src = {{"comp_target", target}, {"reused", false}};
        const std::string tkey = ImpactTargetKey(key, target);
        if (!runs.disturbed.empty()) src["disturbed"] = runs.disturbed;
        if (!tkey.empty() && runs.error.empty() && runs.disturbed.empty()) {
          if (const std::string e =
                  StoreImpact(store, tkey, ForTarget(measured, target), s.test.Id(), RealtimeSeconds());
              !e.empty())
            std::cout << "note: r_mpi_impact at " << FormatDuration(target)
                      << " not kept for later tests: " << e << "\n";
          else src["file"] = ImpactFile(store, tkey).string();
        }
        targets.push_back(src);
      }
      MergeImpact(&rounds, measured);
    }
    no_mpi_ = rounds.no_mpi;
    for (json& p : rounds.passive) raw->records.push_back(p);
    std::sort(targets.begin(), targets.end(), [](const json& a, const json& b) {
      return a["comp_target"].get<double>() < b["comp_target"].get<double>();
    });
    impact_source_ = ImpactSource(targets);
  }
  impact_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return no_mpi_error_;
}

Verdict OverlapJob::Evaluate(const TestContext& test, const std::vector<Rule>& rules,
                             const BetweenRunNoise* noise) const {
  return nbcguard::Evaluate(red_.points, test, rules, noise);
}

void OverlapJob::Describe(const JobSetup& s, const RawRun& raw, const JobRecord& record) {
  const CaseSpec& c = s.test.spec;
  const Deployment d = *s.test.deployment;
  info_ = RunInfo{};
  info_.case_name = c.name;
  info_.case_file = c.file;
  info_.repetitions = {{"min", c.precision > 0 ? c.repetitions_min : c.repetitions},
                       {"max", c.repetitions},
                       {"precision", c.precision}};
  info_.collective = c.collective;
  info_.deployment = ToString(d);
  info_.implementation_label = s.cfg.implementation;
  info_.library_version = record.library_version;
  info_.nodes = s.test.nodes;
  info_.threads = threads_;
  info_.threshold_file = record.threshold_file;
  info_.launch = record.launch;
  info_.deployment_env = s.plan.env;
  if (c.reference.active()) {
    info_.reference = c.reference.Describe();
    info_.reference_json = {{"behaviour", ToString(c.reference.behaviour)},
                            {"latency", c.reference.latency},
                            {"bandwidth", c.reference.bandwidth},
                            {"late_rank", c.reference.late_rank},
                            {"late_delay", c.reference.late_delay},
                            {"share", c.reference.share},
                            {"period", c.reference.period}};
  }
  if (IsApplicationProgression(d)) {
    info_.progression = {{"strategy", d == Deployment::kPoll ? "poll" : "thread"},
                         {"interval", c.progress_interval}};
    for (const json* pl : RecordsOfType(raw, record::kPlacement)) {
      json rec = *pl;
      rec.erase("type");
      info_.progression["placement"] = rec;
    }
  }
}

void OverlapJob::PrintTable(std::ostream& out, const Verdict& v) const {
  nbcguard::PrintTable(out, info_, red_, v);
}

json OverlapJob::Results(const RawRun& raw, const Verdict& v) const {
  return ResultsJson(info_, raw, red_, v);
}

void OverlapJob::Complete(const JobSetup& s, const ProcessResult& hr, json* results,
                          std::ostream& out) const {
  if (!no_mpi_error_.empty()) (*results)["no_mpi_error"] = no_mpi_error_;
  if (!impact_disturbed_.empty()) (*results)["mpi_impact_refused"] = impact_disturbed_;
  if (impact_skipped_) (*results)["mpi_impact_skipped"] = true;
  if (!impact_source_.is_null()) (*results)["mpi_impact_source"] = impact_source_;
  for (const std::string& job : exit_hangs_) (*results)["exit_hangs"].push_back(job);
  if (impact_source_.is_object() && impact_source_.value("reused", false)) {
    out << "r_mpi_impact: the rounds measured by " << impact_source_["measured_by"].get<std::string>() << " "
        << FormatDuration(impact_source_["age_s"].get<double>())
        << " before (same library build, ranks, deployment, threads, cpus and computation targets; "
           "--impact-reuse 0 measures them in every test)\n";
  } else if (impact_source_.is_object()) {
    std::string reused;
    for (const json& t : impact_source_["targets"])
      if (t["reused"].get<bool>())
        reused += (reused.empty() ? "" : ", ") + FormatDuration(t["comp_target"].get<double>()) + " by " +
                  t["measured_by"].get<std::string>();
    if (!reused.empty())
      out << "r_mpi_impact: the other targets measured here; rounds reused at " << reused
          << " (--impact-reuse 0 measures them in every test)\n";
  }
  // The tool's own cost (nbcguard cost): the overlap job's phases (rank 0's
  // clock), the job as launched, the r_mpi_impact jobs, and the whole test.
  (*results)["cost"] = {
      {"harness_job", hr.seconds},
      {"mpi_impact_jobs", impact_seconds_},
      {"total", std::chrono::duration<double>(std::chrono::steady_clock::now() - s.started).count()}};
  if (phase_times_.is_object())
    for (const char* k : {"sync", "calibration", "measurement"}) (*results)["cost"][k] = phase_times_[k];
  if (s.test.spec.reference.active()) {
    (*results)["reference_delivered"] = ReadReferenceLog(s.dir / "reference.jsonl");
    PrintReferenceDelivered(out, (*results)["reference_delivered"]);
  }
}

void OverlapJob::Reduce(const RawRun& raw) {
  red_ = nbcguard::Reduce(raw, no_mpi_);
  if (impact_disturbed_.empty()) return;
  for (PointResult& p : red_.points)
    if (std::isnan(p.r_mpi_impact.median)) p.mpi_impact_refused = impact_disturbed_;
}

void OverlapJob::RefuseFirstPoint(const std::string& why) {
  for (PointResult& p : red_.points) {
    if (!p.valid) continue;
    p.valid = false;
    p.refused = true;
    p.invalid_reason = why;
    p.diagnosis = Diagnosis::kInvalid;
    return;
  }
}

namespace {

// What a second job does about r_mpi_impact.
enum class SecondImpact {
  kNone,   // no r_mpi_impact jobs: what it confirms is judged on other ratios
  kReuse,  // the first job's rounds, when stored (else measured): r_mpi_impact is read but not in question
  kFresh,  // measured anew: a finding or regression of r_mpi_impact is what it confirms
};

// How a second job measures r_mpi_impact at the points `at`: not at all
// when no rule limits it there; anew when `in_question` (it is a finding of
// the first job: two jobs must each measure it); else with the rounds the
// first job measured or reused (impact_store.h), as any test within
// --impact-reuse seconds would: the first job's r_mpi_impact is not what
// the second job decides, and measuring it again cost a confirmation of
// MPICH's iallgather-progress 15.5 of its 28 s.
SecondImpact ImpactOfSecondJob(const std::vector<Rule>& rules, const TestSetup& t,
                               const std::vector<std::pair<double, double>>& at, bool in_question) {
  if (in_question) return SecondImpact::kFresh;
  return RulesLimit(rules, JudgedContext(t.cfg, t.test), Metric::kMpiImpact, at) ? SecondImpact::kReuse
                                                                                 : SecondImpact::kNone;
}

bool AnyImpactFinding(const std::vector<Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(),
                     [](const Finding& f) { return f.metric == Metric::kMpiImpact; });
}

// The rules the first job was judged by (none when no threshold file matched).
std::vector<Rule> RulesOf(const JobOutcome& first) {
  return first.spec ? first.spec->rules : std::vector<Rule>{};
}

// A second, independent job of the test at the points `at` (r_mpi_impact
// as `impact` says), into t.dir/subdir/confirmation.json: not a
// results.json, so that summaries and envelopes see one result per test.
// `why` says what is confirmed ("confirmation: ...; a failure must be seen
// by two independent jobs"). Only when at least half of what the first job
// took is left of the case's timeout (the second measures no more points,
// and stops at the timeout whatever it has); nullopt when not, or when the
// run was interrupted during it: the first job's verdict stands.
// *confirmation gets "points", "results" and any "error".
std::optional<JobOutcome> SecondJob(const TestSetup& t, const std::vector<std::pair<double, double>>& at,
                                    const std::string& subdir, const std::string& why, SecondImpact impact,
                                    json* confirmation) {
  const CaseSpec& c = t.test.spec;
  const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t.started).count();
  TestInstance again = t.test;
  again.spec = RestrictedTo(c, at);
  const std::size_t points = again.spec.comm_times.size() * again.spec.comp_times.size();
  std::cout << "\n" << why << ", so the " << points << " point(s) concerned are measured again\n";
  (*confirmation)["points"] = points;
  if (c.timeout - 10 - spent < 0.5 * spent) {
    std::cout << "confirmation: not enough of the case's timeout left (" << FormatDuration(c.timeout - spent)
              << "): the first job's verdict stands\n";
    (*confirmation)["error"] = "not enough of the case's timeout left";
    return std::nullopt;
  }
  RunOptions fresh = t.ro;
  if (impact == SecondImpact::kFresh) fresh.impact_reuse = 0;
  fresh.mpi_impact = impact != SecondImpact::kNone;
  if (IsDriverFault(fresh.fault)) fresh.fault = "none";  // the first job's only
  JobOutcome second =
      MeasureJob(t.cfg, again, t.specs, fresh, t.dir / subdir, "confirmation.json", t.started, false);
  if (InterruptSignal() != 0) {
    (*confirmation)["error"] = "the run was interrupted during the second job";
    return std::nullopt;
  }
  (*confirmation)["results"] = second.results_path.string();
  if (second.rc != kPass && second.rc != kFail && second.rc != kInconclusive)
    (*confirmation)["error"] = "the second job failed (exit " + std::to_string(second.rc) + ")";
  return second;
}

// The points the first job failed or could not measure, measured by a
// second job (Confirm in verdict.h); the first job's results.json gets the
// final verdict and where the second job's results are (confirm/).
int ConfirmFailures(const TestSetup& t, JobOutcome* first) {
  const Verdict& fv = first->verdict;
  std::vector<std::pair<double, double>> at;
  for (const InvalidPoint& i : fv.invalid)
    if (i.at) at.push_back(*i.at);  // Evaluate gives every overlap point its place
  for (const Finding& f : fv.failures) at.emplace_back(f.comm_target, f.comp_target);
  // r_mpi_impact only when a rule limits it at a point measured again (the
  // second job's verdict then judges it there too); else its jobs would
  // measure what nothing reads. Anew only when it is a finding.
  // Anew also where the first job's r_mpi_impact was refused (a disturbed
  // machine): there it is what the second job decides.
  const std::vector<Rule> rules = RulesOf(*first);
  const SecondImpact impact = ImpactOfSecondJob(
      rules, t, at, AnyImpactFinding(fv.failures) || first->results.contains("mpi_impact_refused"));
  Verdict final_verdict = fv;
  json confirmation = json::object();
  const std::optional<JobOutcome> second =
      SecondJob(t, at, "confirm",
                "confirmation: " + std::to_string(fv.failures.size()) + " limit(s) exceeded beyond noise, " +
                    std::to_string(fv.invalid.size()) +
                    " invalid point(s); a failure must be seen by two independent jobs",
                impact, &confirmation);
  if (!second && InterruptSignal() != 0) {
    first->results["confirmation"] = confirmation;
    if (const std::string e = WriteResults(first->results_path, first->results); !e.empty())
      std::cout << "error: " << e << "\n";
    return first->rc;
  }
  if (second) {
    const auto* second_kind = dynamic_cast<const OverlapJob*>(second->kind.get());
    const std::optional<BetweenRunNoise> noise = NoiseFor(t.cfg, t.test, t.ro);
    final_verdict = Confirm(fv, second_kind->reduction().points, JudgedContext(t.cfg, t.test), rules,
                            noise ? &*noise : nullptr);
  }
  // Limits exceeded at points only the second job could judge (the first
  // could not measure them or refused its measurement): seen by one job, so
  // a third job measures those points; without it they stay undecided.
  if (!final_verdict.one_job.empty()) {
    std::vector<std::pair<double, double>> one;
    for (const Finding& f : final_verdict.one_job) one.emplace_back(f.comm_target, f.comp_target);
    json third_confirmation = json::object();
    const std::optional<JobOutcome> third = SecondJob(
        t, one, "confirm-third",
        "confirmation: " + std::to_string(one.size()) +
            " limit(s) exceeded by the second job at points the first job could not judge; a "
            "failure must be seen by two independent jobs",
        ImpactOfSecondJob(rules, t, one, AnyImpactFinding(final_verdict.one_job)), &third_confirmation);
    confirmation["third"] = third_confirmation;
    if (third) {
      const auto* third_kind = dynamic_cast<const OverlapJob*>(third->kind.get());
      final_verdict = ConfirmOneJobFailures(final_verdict, third_kind->reduction().points);
    }
  }
  std::cout << "\nconfirmation of the first job's failures by the second:\n";
  for (const Finding& f : final_verdict.unconfirmed) std::cout << "  not confirmed: " << f.Message() << "\n";
  for (const Finding& f : final_verdict.failures) std::cout << "  FAIL (confirmed) " << f.Message() << "\n";
  for (const Finding& f : final_verdict.one_job)
    std::cout << "  undecided (exceeded in one job only): " << f.Message() << "\n";
  for (const std::string& s : final_verdict.remeasured)
    std::cout << "  invalid in the first job: " << s << "\n";
  for (const InvalidPoint& i : final_verdict.invalid)
    std::cout << (i.refused ? "  refused (undecided): " : "  INVALID in both jobs: ") << i.line << "\n";
  std::cout << "verdict after confirmation: " << final_verdict.Summary() << "\n";
  if (t.ro.ctest)
    PrintCTestMeasurements(std::cout,
                           {Measurement::Numeric("limits not confirmed",
                                                 static_cast<double>(final_verdict.unconfirmed.size()))});
  first->results["verdict"] = VerdictJson(final_verdict, first->threshold_file);
  first->results["confirmation"] = confirmation;
  if (const std::string e = WriteResults(first->results_path, first->results); !e.empty()) {
    std::cout << "error: " << e << "\n"
              << "FAIL " << t.test.Id() << ": " << e << "\n";
    return kUsage;
  }
  return VerdictCode(final_verdict);
}

// A regression against the baseline fails the test only when a second,
// independent job of its points regresses at the same place too: on a
// machine whose speed changes for minutes at a time, one job against one
// baseline job compares two phases as often as two libraries. Each
// regression of the first job is then confirmed, not confirmed (the second
// job compared the place and found no regression), or undecided (the
// second job could not compare it: an invalid point, a ratio not measured).
// A ratio regression both jobs see is still undecided when the history does
// not know that ratio's between-run spread (Change::spread_unknown): a phase
// of the machine lasts minutes, so the two jobs share it, and the baseline
// is one job of another phase; only a spread measured over nights separates
// the two. kFail when one is confirmed, or the baseline was unusable (no
// regressions given); else kInconclusive when one is undecided; else kPass.
// Without a second job (`confirm` false: --no-confirm, an oversubscribed
// run; or not enough of the timeout left) every regression of the first job
// counts as seen. The first job's results.json gets "baseline"
// (docs/results-format.md).
int ConfirmRegressions(const TestSetup& t, JobOutcome* first, const std::vector<Change>& found,
                       const CompareOptions& compared_with, int rc, bool confirm) {
  const std::string name = t.test.Id();
  if (found.empty()) return kFail;  // an unusable baseline: said and failed by CheckAgainstBaseline
  json confirmation = json::object();
  std::optional<JobOutcome> second;
  BaselineCheck again;
  if (confirm) {
    // An r_mpi_impact row: at its computation target, with the first comm target.
    std::vector<std::pair<double, double>> at;
    at.reserve(found.size());
    for (const Change& c : found)
      at.emplace_back(std::isnan(c.comm_target) ? t.test.spec.comm_times.front() : c.comm_target,
                      c.comp_target);
    second = SecondJob(t, at, "confirm-baseline",
                       "baseline: " + std::to_string(found.size()) +
                           " regression(s) against the baseline; a regression must be seen by two "
                           "independent jobs",
                       ImpactOfSecondJob(RulesOf(*first), t, at,
                                         std::any_of(found.begin(), found.end(),
                                                     [](const Change& c) {
                                                       return !c.speed && c.metric == Metric::kMpiImpact;
                                                     })),
                       &confirmation);
    if (InterruptSignal() != 0) return rc;  // cut short: nothing more is decided
    if (second && !second->results_path.empty()) {
      std::cout << "baseline: the second job against the baseline:\n";
      again = CheckAgainstBaseline(second->results, second->results_path.string(), t.ro.baseline, std::cout);
    } else {
      std::cout << "baseline: no second job ("
                << confirmation.value("error", std::string("its results were not written"))
                << "): the regressions stand\n";
    }
  }
  const bool two_jobs = second && !second->results_path.empty();
  json confirmed = json::array(), unconfirmed = json::array(), undecided = json::array();
  std::cout << "\nbaseline: regressions of the first job"
            << (two_jobs ? ", and what the second job found at the same place:" : ":") << "\n";
  int spread_unknown = 0;
  for (const Change& c : found) {
    const std::string line = RegressionLine(c);
    const SecondLook look =
        two_jobs ? LookAgain(c, again.comparison ? &*again.comparison : nullptr) : SecondLook::kConfirmed;
    if (look == SecondLook::kConfirmed && c.spread_unknown) {
      // Seen by every job of this run, but those jobs share the machine's
      // phase of the moment and the baseline is one job of another phase.
      const std::string why = "seen by " + std::string(two_jobs ? "both jobs" : "the one job") + ", but " +
                              SpreadUnknownReason(c, compared_with);
      std::cout << "  undecided (" << why << "): " << line << "\n";
      undecided.push_back(line + " (undecided: " + why + ")");
      ++spread_unknown;
    } else if (look == SecondLook::kConfirmed) {
      std::cout << "  " << (two_jobs ? "confirmed: " : "") << line << "\n";
      confirmed.push_back(line);
    } else if (look == SecondLook::kUndecided) {
      std::cout << "  undecided (the second job could not compare it): " << line << "\n";
      undecided.push_back(line + " (undecided: the second job could not compare it)");
    } else {
      std::cout << "  not confirmed: " << line << "\n";
      unconfirmed.push_back(line);
    }
  }
  first->results["baseline"] = {{"dir", t.ro.baseline},
                                {"regressions", confirmed},
                                {"not_confirmed", unconfirmed},
                                {"undecided", undecided},
                                {"confirmed_by_second_job", two_jobs},
                                {"confirmation", confirmation}};
  if (const std::string e = WriteResults(first->results_path, first->results); !e.empty()) {
    std::cout << "error: " << e << "\n"
              << "FAIL " << name << ": " << e << "\n";
    return kFail;
  }
  if (!confirmed.empty()) {
    std::cout << "FAIL " << name << ": " << confirmed.size() << " regression(s) against the baseline in "
              << t.ro.baseline << (two_jobs ? ", seen by two independent jobs" : "") << "\n";
    return kFail;
  }
  if (!undecided.empty()) {
    std::cout << "baseline: " << undecided.size() << " regression(s) undecided: " << spread_unknown
              << " without a known between-run spread, " << undecided.size() - spread_unknown
              << " the second job could not compare\n";
    return kInconclusive;
  }
  std::cout << "baseline: no regression seen by both jobs: the comparison fails nothing\n";
  return kPass;
}

}  // namespace

// A limit exceeded beyond noise is confirmed by a second job
// (RunOptions::confirm), which also measures the points the first job could
// not (invalid ones); then, in nightly mode, a regression against the
// baseline fails like a threshold. A test left INCONCLUSIVE by its
// thresholds (a point refused in every job) is compared with the baseline
// too: its other points are measured, and a regression confirmed there
// fails the test rather than hiding behind the refused point.
int OverlapJob::FinishTest(const TestSetup& t, JobOutcome* first) const {
  int rc = first->rc;
  const Verdict& fv = first->verdict;
  // An oversubscribed run's points are invalid by design; a second job on the same node would be too.
  const bool oversubscribed = red_.binding.value("oversubscribed", false);
  if ((rc == kFail || rc == kInconclusive) && t.ro.confirm && !oversubscribed &&
      (!fv.failures.empty() || !fv.invalid.empty()))
    rc = ConfirmFailures(t, first);
  if ((rc == kPass || rc == kFail || rc == kInconclusive) && !t.ro.baseline.empty()) {
    const BaselineCheck b =
        CheckAgainstBaseline(first->results, first->results_path.string(), t.ro.baseline, std::cout);
    if (b.rc == kFail) {
      const std::vector<Change> found = b.comparison ? b.comparison->regressions : std::vector<Change>{};
      const int brc = ConfirmRegressions(t, first, found, b.options, rc, t.ro.confirm && !oversubscribed);
      if (brc == kFail || (brc == kInconclusive && rc == kPass)) rc = brc;
    }
  }
  return rc;
}

}  // namespace nbcguard
