#include "run_job.h"

#include <unistd.h>

#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "conformance_cmd.h"
#include "history_store.h"
#include "nbcguard/driver_common.h"
#include "nbcguard/raw_records.h"
#include "nbcguard/results_io.h"
#include "nbcguard/units.h"
#include "overlap_run.h"
#include "partitioned_run.h"
#include "summary.h"
#include "thresholds.h"

namespace nbcguard {

namespace fs = std::filesystem;

std::optional<BetweenRunNoise> NoiseFor(const Config& cfg, const TestInstance& test, const RunOptions& ro) {
  if (ro.between.empty()) return std::nullopt;
  BetweenRunNoise noise;
  noise.test = test.Name(cfg.implementation);
  noise.between = ro.between;
  return noise;
}

using json = nlohmann::json;

std::unique_ptr<JobKind> MakeJobKind(const TestInstance& test) {
  if (test.kind() == CaseKind::kPartitioned) return std::make_unique<PartitionedJob>();
  return std::make_unique<OverlapJob>();
}

namespace {

// The harness's environment for a case with a reference behaviour; empty
// (and a FAIL line) when the reference library is missing.
bool SetUpReference(const TestInstance& test, const fs::path& reference_log, Config* cfg) {
  const CaseSpec& c = test.spec;
  if (!c.reference.active()) return true;
  if (cfg->reference_library.empty() || !fs::exists(cfg->reference_library)) {
    std::cout << "FAIL " << c.name << ": the case asks for reference behaviour "
              << ToString(c.reference.behaviour) << " but the reference library is missing ("
              << (cfg->reference_library.empty() ? "not in " + cfg->path : cfg->reference_library) << ")\n";
    return false;
  }
  cfg->harness_env = ToEnvironment(c.reference);
  cfg->harness_env["LD_PRELOAD"] = cfg->reference_library;
  // What the reference library delivered, per rank and job (passive-impact).
  cfg->harness_env["NBCGUARD_REFERENCE_LOG"] = reference_log.string();
  return true;
}

// Why the harness's records may be incomplete (empty: it ran through).
// Why the job stopped early because the driver was told to stop ("" when
// it was not).
std::string InterruptedError() {
  if (InterruptSignal() == 0) return "";
  return std::string("the run was interrupted (") + strsignal(InterruptSignal()) +
         ") and stopped early; completed points are kept";
}

std::string HarnessError(const ProcessResult& hr, const TestInstance& test, const JobKind& kind) {
  if (hr.interrupted) return InterruptedError();
  if (hr.timed_out)
    return "harness did not finish within the case timeout (" + FormatDuration(test.spec.timeout) +
           "): a hung " + kind.HungOn() + " or rank; completed points are kept";
  if (hr.exit_code != 0 && hr.exit_code != kConformance)
    return "harness failed (exit " + std::to_string(hr.exit_code) + "); completed points are kept";
  return "";
}

// The pictures next to results.json; the lines naming them for CTest only
// with the measurements. Pictures never change the verdict.
void DrawPictures(const json& results, const fs::path& dir, bool measurements) {
  std::ostringstream lines;
  RenderRunPlots(lines, results, dir);
  std::istringstream in(lines.str());
  for (std::string line; std::getline(in, line);)
    if (measurements || line.rfind("<Dart", 0) != 0) std::cout << line << "\n";
}

// The FAIL line and exit code of a job whose verdict cannot stand: the
// first reason given (non-empty), else `rc`.
int JobFailure(const std::string& id, const std::vector<std::pair<std::string, int>>& reasons, int rc) {
  for (const auto& [why, code] : reasons) {
    if (why.empty()) continue;
    std::cout << "FAIL " << id << ": " << why << "\n";
    return code;
  }
  return rc;
}

// The harness job itself; its records in *raw. False when it skipped.
bool RunHarness(const JobSetup& s, const JobKind& kind, Watchdog* watchdog, ProcessResult* hr, RawRun* raw,
                json* launch) {
  std::vector<std::string> args = kind.LeadingArgs(s);
  const std::string fault = IsDriverFault(s.ro.fault) ? "none" : s.ro.fault;
  args.insert(args.end(), {"--fault", fault, "--clock-sync", s.ro.clock_sync, "--sentinel", s.ro.sentinel,
                           "--out", s.raw_path.string()});
  const std::vector<std::string> trailing = kind.TrailingArgs(s);
  args.insert(args.end(), trailing.begin(), trailing.end());
  const std::vector<std::string> cmd = LaunchCommand(s.cfg, s.test.nodes, s.cfg.harness, args);
  if (s.ro.ctest || s.ro.verbose)
    std::cerr << "nbcguard: " << s.test.Id() << ": " << DescribeLaunch(s.cfg, cmd) << "\n";
  *launch = LaunchRecord(s.cfg, cmd);
  watchdog->Watch(s.raw_path.string());
  const std::string raw_path = s.raw_path.string();
  *hr = RunProcess(cmd, s.plan.env, std::max(1.0, s.left()), [&raw_path] { return RawLogEnded(raw_path); });
  *raw = ReadRaw(raw_path);
  // Killed after its end record: every record is there, and the ranks'
  // agreed status is the job's.
  if (hr->killed_after_end && raw->ended) hr->exit_code = raw->status;
  for (const json* skip : RecordsOfType(*raw, record::kSkip)) {
    std::cout << "SKIP " << s.test.Id() << ": " << (*skip)["reason"].get<std::string>() << "\n";
    return false;
  }
  return true;
}

}  // namespace

JobOutcome MeasureJob(const Config& base_cfg, const TestInstance& test,
                      const std::vector<ThresholdSpec>& specs, const RunOptions& ro, const fs::path& dir,
                      const std::string& results_name, std::chrono::steady_clock::time_point started,
                      bool measurements) {
  JobOutcome out;
  out.kind = MakeJobKind(test);
  JobKind& kind = *out.kind;
  Config cfg = base_cfg;
  const fs::path reference_log = dir / "reference.jsonl";
  if (!SetUpReference(test, reference_log, &cfg)) {
    out.rc = kUsage;
    return out;
  }
  if (!ro.bug.empty()) {
    if (const std::string e = PreloadBug(ro.bug, &cfg); !e.empty()) {
      std::cout << "FAIL " << test.Id() << ": --inject-bug " << ro.bug << ": " << e << "\n";
      out.rc = kUsage;
      return out;
    }
  }
  JobSetup s{cfg, test, ro, test.Plan(cfg.implementation), dir, dir / "raw.jsonl", nullptr, started};
  for (const std::string& kv : ro.set_env)
    s.plan.env[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
  if (!s.plan.skip.empty()) {
    std::cout << "SKIP " << test.Id() << ": " << s.plan.skip << "\n";
    out.rc = kSkip;
    return out;
  }
  s.left = [&] {
    // Keep kTimeoutReserve (10 s) of the case's timeout for reducing and reporting.
    return test.spec.timeout - kTimeoutReserve -
           std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    // A read-only or full file system, or --out under a file: nothing can
    // be measured into it (exit 2, like an unreadable configuration).
    std::cout << "error: cannot create the output directory " << dir.string() << ": " << ec.message() << "\n";
    out.rc = kUsage;
    return out;
  }
  fs::remove(s.raw_path, ec);
  fs::remove(reference_log, ec);

  const WatchShape shape = kind.Shape(s);
  Watchdog watchdog(test.Id(), shape.comp_targets, shape.comm_targets, shape.points, s.left);
  ProcessResult hr;
  RawRun raw;
  JobRecord record;
  if (!RunHarness(s, kind, &watchdog, &hr, &raw, &record.launch)) {
    out.rc = kSkip;
    return out;
  }
  std::string harness_error = HarnessError(hr, test, kind);
  const std::string more_error = kind.MoreJobs(s, hr.seconds, harness_error.empty(), &raw, &watchdog);
  if (harness_error.empty()) harness_error = InterruptedError();  // during the jobs after the harness
  watchdog.Stop();
  kind.Reduce(raw);
  if (s.ro.fault == "refuse-first")
    kind.RefuseFirstPoint("refused by --inject-fault refuse-first (a validity gate in this job only)");

  const LibraryThresholds found = ThresholdsFor(raw, specs);
  out.spec = found.spec;
  record.library_version = found.version_line;
  record.threshold_file = out.threshold_file = found.spec ? found.spec->file : "(none)";
  const std::optional<BetweenRunNoise> noise = NoiseFor(s.cfg, test, s.ro);
  if (found.spec)
    out.verdict = kind.Evaluate(JudgedContext(cfg, test), found.spec->rules, noise ? &*noise : nullptr);
  kind.Describe(s, raw, record);
  kind.PrintTable(std::cout, out.verdict);
  // A reference behaviour is judged by its known answer, not by rules.
  if (found.spec && out.verdict.rules_applied <= 0 && !test.spec.reference.active())
    std::cout << NoRuleHint(JudgedContext(cfg, test), found.spec->file);
  if (measurements) PrintCTestMeasurements(std::cout, kind.Measurements(out.verdict));

  out.results = kind.Results(raw, out.verdict);
  out.results["system"] = cfg.system.empty() ? nlohmann::json() : nlohmann::json(cfg.system);
  // The library as the threshold files named it (identified_by before the
  // built-in table): what a threshold file written from these results names.
  out.results["library"] = {{"implementation", found.lib.implementation}, {"version", found.lib.version}};
  if (!harness_error.empty()) out.results["harness_error"] = harness_error;
  if (hr.killed_after_end) {
    out.results["exit_hangs"].push_back("harness job");
    std::cout << ExitHangWarning("the harness job") << "\n";
  }
  kind.Complete(s, hr, &out.results, std::cout);
  const fs::path results_path = dir / results_name;
  std::string write_error = WriteResults(results_path, out.results);
  if (write_error.empty()) {
    out.results_path = results_path;
    std::cout << "results: " << out.results_path.string() << "\n";
    if (kind.DrawsPictures()) DrawPictures(out.results, dir, measurements);
  } else {
    std::cout << "error: " << write_error << "\n";
  }
  // A job that failed, or whose log ended early, on a file system that
  // takes no more data (full, read-only) failed for that reason: the
  // harness's own failure is its consequence.
  if (write_error.empty() && (!harness_error.empty() || !more_error.empty() || !raw.ended))
    write_error = DirectoryWriteError(dir);

  const std::string conformance = kind.ConformanceError();
  out.rc = JobFailure(test.Id(),
                      {{conformance.empty() ? "" : "conformance failure: " + conformance, kConformance},
                       {write_error, kUsage},
                       {harness_error, kHarnessFailed},
                       {found.spec ? "" : NoThresholdsMessage(cfg.thresholds_dirs, found), kUsage},
                       {more_error, kHarnessFailed}},
                      VerdictCode(out.verdict));
  return out;
}

int RunTest(const Config& cfg, const TestInstance& test, const std::vector<ThresholdSpec>& specs,
            const RunOptions& ro) {
  const TestSetup t{cfg,
                    test,
                    specs,
                    ro,
                    fs::path(ro.out.empty() ? cfg.results_dir : ro.out) / test.ResultsSubdir(),
                    std::chrono::steady_clock::now()};
  // Until this run's results are complete, no reader takes what the
  // directory holds for them: the previous results.json is moved aside.
  if (const std::string e =
          MarkRunStarted(t.dir, {{"started", UtcIso(std::time(nullptr))}, {"pid", getpid()}});
      !e.empty()) {
    std::cout << "error: " << e << "\n";
    return kUsage;
  }
  std::error_code ec;
  for (const char* second :
       {"confirm", "confirm-third", "confirm-baseline"})  // further jobs of an earlier run
    fs::remove_all(t.dir / second, ec);
  JobOutcome first = MeasureJob(cfg, test, specs, ro, t.dir, "results.json", t.started, ro.ctest);
  if (first.results_path.empty()) {                 // skipped, could not start, or results not written
    if (first.rc == kSkip) MarkRunFinished(t.dir);  // nothing was replaced
    return first.rc;
  }
  // An interrupted first job wrote what it completed and says so
  // (harness_error); nothing more is measured.
  const int rc = InterruptSignal() != 0 ? first.rc : first.kind->FinishTest(t, &first);
  MarkRunFinished(t.dir);
  // One line CTest can tell apart (SKIP_REGULAR_EXPRESSION in
  // NbcguardDiscoverAddTests.cmake): reported as not run, never as passed.
  if (rc == kInconclusive) {
    // Why, from results.json: undecided regressions against the baseline
    // first, then the verdict after any second job (both when both hold:
    // a test the thresholds left undecided is compared with the baseline
    // too). The line goes on "undecided" or "points refused", which the
    // generated tests' SKIP_REGULAR_EXPRESSION matches
    // (NbcguardDiscoverAddTests.cmake).
    const json& r = first.results;
    const bool by_verdict =
        r.contains("verdict") && r["verdict"].is_object() && r["verdict"].value("inconclusive", false);
    const bool by_baseline = r.contains("baseline") && r["baseline"].is_object() &&
                             r["baseline"].contains("undecided") && r["baseline"]["undecided"].is_array() &&
                             !r["baseline"]["undecided"].empty();
    std::cout << "INCONCLUSIVE " << test.Id() << ": ";
    if (by_baseline || !by_verdict)
      std::cout << "undecided regression(s) against the baseline, none confirmed: seen where the results "
                   "history does not know the between-run spread, or at points the second job could not "
                   "compare"
                << (by_verdict ? "; and " : "");
    if (by_verdict)
      std::cout << "points refused in every job that measured them, or a limit exceeded only by the one job "
                   "that could judge its point; no limit exceeded in two jobs";
    std::cout << "; not a pass (exit " << kInconclusive << ")\n";
  }
  return rc;
}

}  // namespace nbcguard
