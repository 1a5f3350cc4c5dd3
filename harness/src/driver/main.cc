// nbcguard: runs overlap tests from case files and turns them into verdicts.
//   nbcguard run cases/ibcast.yaml [--nodes 2] [--deployment basic]
//   nbcguard list --format json|files   (the tests as data, for CMake)
//   nbcguard check FILE...              (validate case / threshold files)
//   nbcguard compare BASELINE_DIR RUN_DIR   (regressions between two runs' results)
//   nbcguard history ingest RUN_DIR / runs / check / plot   (the results history, change points, trends)
//   nbcguard plot PATH... / summary DIR [--format text|markdown|html|openmetrics]   (pictures, run summary)
//   nbcguard clock-check / verify / bcast-check   (self-checks of the harness)
//   nbcguard clock-scaling                       (clock sync time and error, flat vs tree)
//   nbcguard junit FILE... [--list failed|inconclusive]   (reasons into CTest's JUnit files)
//   nbcguard --version
// This file is the command line only; each command is in its own file.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>

#include "check_cmd.h"
#include "clock_check.h"
#include "compare_cmd.h"
#include "conformance_cmd.h"
#include "cost_cmd.h"
#include "envelope_cmd.h"
#include "history_cmd.h"
#include "junit_cmd.h"
#include "launcher.h"
#include "list_cmd.h"
#include "nbcguard/case_spec.h"
#include "nbcguard/clock_tree.h"
#include "nbcguard/driver_common.h"
#include "nbcguard/reference.h"
#include "nbcguard/units.h"
#include "run_cmd.h"
#include "selfcheck.h"
#include "summary.h"
#include "thresholds.h"

namespace fs = std::filesystem;

namespace nbcguard {
namespace {

// The config when no --config is given: NBCGUARD_CONFIG; else the installed
// one (<bindir>/../share/nbcguard/nbcguard-config.json, relative to this
// executable); else, in a build tree, the nearest nbcguard-config.json in a
// directory above the executable (build/<preset>/ for build/<preset>/harness/).
std::string DefaultConfigPath() {
  if (const char* env = std::getenv("NBCGUARD_CONFIG"); env && *env) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
#ifdef NBCGUARD_INSTALLED_CONFIG
  const fs::path installed = (exe.parent_path() / NBCGUARD_INSTALLED_CONFIG).lexically_normal();
  if (fs::exists(installed, ec)) return installed.string();
#endif
  for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
    if (fs::exists(dir / "nbcguard-config.json")) return (dir / "nbcguard-config.json").string();
  return "nbcguard-config.json";
}

// `nbcguard --version`: the version, and the build's MPI library and
// launcher when its config file is found (a bug report wants both).
std::string VersionText(const std::string& config_path) {
  std::string text = std::string("nbcguard ") + NBCGUARD_VERSION;
  Config cfg;
  std::string error;
  if (LoadConfig(config_path, &cfg, &error))
    text += "\nbuilt for: " + cfg.implementation + ", ranks started by " + cfg.launcher + " (" + cfg.mpiexec +
            ")\nsystem: " + (cfg.system.empty() ? std::string("(none)") : cfg.system) +
            "\nconfig: " + config_path;
  else text += "\nconfig: none found (" + error + ")";
  return text;
}

// A subcommand and what it does once the command line is parsed; with
// needs_config, the build's nbcguard-config.json is read first (and the
// driver forwards termination to the MPI jobs it starts).
struct Command {
  CLI::App* sub = nullptr;
  bool needs_config = false;
  std::function<int(const Config&)> run;
};

Command AddList(CLI::App& app, std::string* config_path) {
  auto format = std::make_shared<std::string>("json");
  CLI::App* list = app.add_subcommand("list", "list the tests of cases/ (for CTest)");
  list->add_option("--format", *format, "json (the tests as data, read by nbcguard_discover_cases), files")
      ->check(CLI::IsMember({"json", "files"}));
  list->add_option("--config", *config_path);
  return {list, true, [format](const Config& cfg) { return ListCommand(cfg, *format); }};
}

Command AddCheck(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* check = app.add_subcommand("check", "validate case and threshold files");
  check->add_option("files", *files)->required();
  return {check, false, [files](const Config&) { return CheckCommand(*files); }};
}

// --set-env NAME=VALUE: one per option, so that case files may follow.
std::string CheckSetEnv(const std::string& s) {
  return s.find('=') == std::string::npos || s.front() == '=' ? "expected NAME=VALUE, got '" + s + "'"
                                                              : std::string();
}

std::vector<std::string> ReferenceChoices() {
  std::vector<std::string> v = ReferenceBehaviourNames();
  v.insert(v.begin(), "none");
  return v;
}

// --timeout: seconds in the range a case file's timeout has (never nan or inf).
CLI::Validator TimeoutSeconds() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(x) || !(x > kTimeoutReserve) ||
            x > kMaxTimeout)
          return "expected seconds, more than " + std::to_string(static_cast<int>(kTimeoutReserve)) +
                 " (kept for the report) and at most " + std::to_string(static_cast<long>(kMaxTimeout)) +
                 "; got " + text;
        return std::string();
      },
      "SECONDS");
}

// The options of `run` that change what is measured.
void AddMeasurementOptions(CLI::App* run, RunOptions* ro) {
  run->add_option("--nodes", ro->nodes, "process counts (default: the case's)")->check(CLI::Range(2, 4096));
  run->add_option("--deployment", ro->deployments, "deployments (default: the case's)")
      ->check(CLI::IsMember(DeploymentNames()));
  run->add_option("--timeout", ro->timeout, "seconds for each test (default: the case's timeout)")
      ->check(TimeoutSeconds());
  run->add_option(
         "--inject-fault", ro->fault,
         "make rank 1 exit or hang at the second grid point (tests the "
         "failure handling); corrupt (kind: partitioned): flip one received "
         "byte of the partitioned mechanism (tests the data check); hang-at-exit: rank 1 "
         "hangs after the last record instead of finalizing (the job is killed, the run kept); "
         "refuse-first (kind: overlap): the first job's first valid point is refused as by a "
         "validity gate (tests the confirmation); impact-late (kind: overlap): a rank of the first job's "
         "r_mpi_impact job with MPI idle is taken as fallen behind, twice (its points refused)")
      ->check(
          CLI::IsMember({"none", "exit", "hang", "corrupt", "hang-at-exit", "refuse-first", "impact-late"}));
  run->add_option("--inject-bug", ro->bug,
                  "preload libnbcguard-bugs.so with this implementation bug (docs/conformance.md) into the "
                  "ranks (kind: overlap, no reference behaviour): the run must end in a conformance failure "
                  "where the bug touches the measured calls")
      ->check(CLI::IsMember(InjectedBugNames()));
  run->add_option(
         "--reference", ro->reference,
         "replace the library's progression with a reference behaviour whose ratios are known "
         "(ground truth; none = the library's own; other parameters from the case's reference: section)")
      ->check(CLI::IsMember(ReferenceChoices()));
  run->add_option("--set-env", ro->set_env,
                  "NAME=VALUE for the run's processes, after the deployment's environment (overrides it; "
                  "recorded in results.json deployment_environment); repeatable")
      ->allow_extra_args(false)
      ->check(CheckSetEnv);
  run->add_option("--clock-sync", ro->clock_sync,
                  "clock synchronization of the harness: flat (every rank against "
                  "rank 0 in turn) or tree (log2 p stages); results.json clock_sync")
      ->check(CLI::IsMember(ClockSyncMethodNames()));
  run->add_option(
      "--history", ro->history,
      "results history (sqlite:PATH, a path, or postgresql://...; default $NBCGUARD_HISTORY) whose "
      "spread between jobs a limit must also be exceeded by (docs/history.md)");
  run->add_option(
      "--system", ro->system,
      "the system the run is on: matched by threshold rules' match.system, recorded in results.json, "
      "and whose history series count (default $NBCGUARD_SYSTEM, else the build's NBCGUARD_SYSTEM; "
      "for the history, else the host name)");
  run->add_option("--sentinel", ro->sentinel,
                  "the machine-noise sentinel: on (samples taken while another process or the host slowed a "
                  "rank are measured again; docs/method.md) or off (every sample kept, for comparison)")
      ->check(CLI::IsMember({"on", "off"}));
  run->add_option(
      "--calibration-cache", ro->calibration_cache,
      "directory of calibrated sizes reused by later runs of the same configuration (default: the "
      "build's NBCGUARD_CALIBRATION_CACHE); off: calibrate from scratch, read and write nothing");
  run->add_option(
         "--impact-reuse", ro->impact_reuse,
         "seconds for which a test reuses the r_mpi_impact rounds of an earlier test of the same "
         "library build, ranks, deployment, threads, cpus and computation targets, kept beside the "
         "calibration cache (default $NBCGUARD_IMPACT_REUSE, else 600); 0: every test measures its own")
      ->check(CLI::Range(0.0, 86400.0));
}

Command AddRun(CLI::App& app, std::string* config_path) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto ro = std::make_shared<RunOptions>();
  auto no_confirm = std::make_shared<bool>(false);
  CLI::App* run = app.add_subcommand("run", "run a case: measure, print ratios and the verdict");
  run->add_option("cases", *files, "case files (cases/*.yaml)")->required();
  AddMeasurementOptions(run, ro.get());
  run->add_option("--out", ro->out,
                  "results directory (default: the config's: the build's results/, an installed tree's "
                  "./nbcguard-results)");
  run->add_option("--thresholds", ro->thresholds_dir,
                  "directory of threshold files, instead of the configured ones (the shipped thresholds/ and "
                  "NBCGUARD_SITE_THRESHOLDS)")
      ->check(CLI::ExistingDirectory);
  run->add_option(
         "--site-thresholds", ro->site_thresholds,
         "a site's directory of threshold files, searched before the configured ones: per MPI library "
         "the first directory holding a matching file wins; repeatable")
      ->check(CLI::ExistingDirectory);
  run->add_option(
      "--baseline", ro->baseline,
      "nightly mode: compare each test with the same test under this results directory (an earlier "
      "run's --out) and fail on a regression (see nbcguard compare)");
  run->add_flag(
      "--no-confirm", *no_confirm,
      "judge each test on one job: do not measure again the points whose limits the first job "
      "exceeded beyond noise (by default a second, independent job must agree before a limit fails)");
  CLI::Option* ctest =
      run->add_flag("--ctest", ro->ctest,
                    "output for CTest: <DartMeasurement> values and the launch command lines "
                    "(the tests nbcguard list generates pass it)");
  CLI::Option* verbose = run->add_flag("--verbose", ro->verbose,
                                       "the launch command lines and the <DartMeasurement> values too");
  run->add_flag("--quiet", ro->quiet,
                "per test only its outcome: the verdict, FAIL / SKIP / INCONCLUSIVE lines, errors, warnings "
                "and where the results are")
      ->excludes(verbose)
      ->excludes(ctest);
  run->add_option("--config", *config_path);
  return {run, true, [files, ro, no_confirm, run](const Config& cfg) {
            ro->confirm = !*no_confirm;
            ro->ctest = ro->ctest || ro->verbose;
            // --impact-reuse's default from the environment (a CI job sets it for every test).
            if (const char* v = std::getenv("NBCGUARD_IMPACT_REUSE");
                v != nullptr && run->count("--impact-reuse") == 0) {
              char* end = nullptr;
              const double s = std::strtod(v, &end);
              if (*v == '\0' || *end != '\0' || !(s >= 0 && s <= 86400)) {
                std::cerr << "nbcguard: NBCGUARD_IMPACT_REUSE is '" << v
                          << "'; allowed: seconds from 0 (every test measures r_mpi_impact) to 86400\n";
                return static_cast<int>(kUsage);
              }
              ro->impact_reuse = s;
            }
            if (const std::string e = ExitGraceError(); !e.empty()) {
              std::cerr << "nbcguard: " << e << "\n";
              return static_cast<int>(kUsage);
            }
            return RunCommand(cfg, *files, *ro);
          }};
}

Command AddClockCheck(CLI::App& app, std::string* config_path) {
  auto o = std::make_shared<ClockCheckOptions>();
  auto ranks = std::make_shared<std::string>("1");
  CLI::App* clock = app.add_subcommand("clock-check",
                                       "inject a clock offset and drift on rank 1 (or every rank) "
                                       "and measure how well sync recovers it");
  clock->add_option("--nodes", o->nodes)->check(CLI::Range(2, 4096));
  clock->add_option("--inject-offset", o->offset, "seconds");
  clock->add_option("--inject-drift", o->drift, "relative (1e-4 = 100 ppm)");
  clock
      ->add_option("--inject-ranks", *ranks,
                   "1: rank 1 only; all: every rank but 0, rank-dependent "
                   "(offsets of alternating sign, 1-1.75x the given values)")
      ->check(CLI::IsMember({"1", "all"}));
  clock
      ->add_option("--clock-sync", o->clock_sync,
                   "flat (every rank against rank 0 in turn) or tree (log2 p "
                   "stages)")
      ->check(CLI::IsMember(ClockSyncMethodNames()));
  clock->add_option("--wait", o->wait, "seconds of probing after the sync");
  clock->add_option("--max-error-us", o->bound_us,
                    "fail when the clock error exceeds this (0 = report only)");
  clock->add_option("--out", o->out);
  clock->add_option("--config", *config_path);
  return {clock, true, [o, ranks](const Config& cfg) {
            o->inject_all = *ranks == "all";
            return ClockCheck(cfg, *o);
          }};
}

Command AddClockScaling(CLI::App& app, std::string* config_path) {
  auto o = std::make_shared<ClockScalingOptions>();
  CLI::App* scaling = app.add_subcommand("clock-scaling",
                                         "benchmark: clock sync time and error against rank "
                                         "count, flat vs tree, every rank's clock perturbed; fits "
                                         "and predicts the growth");
  scaling->add_option("--nodes", o->nodes, "rank counts")->delimiter(',')->check(CLI::Range(2, 4096));
  scaling->add_option("--clock-sync", o->methods, "methods compared")
      ->delimiter(',')
      ->check(CLI::IsMember(ClockSyncMethodNames()));
  scaling->add_option("--repetitions", o->repetitions, "runs per method and rank count (medians)")
      ->check(CLI::Range(1, 1000));
  scaling->add_option("--inject-offset", o->offset, "seconds (rank-dependent around it)");
  scaling->add_option("--inject-drift", o->drift, "relative (rank-dependent around it)");
  scaling->add_option("--wait", o->wait, "seconds of probing after the sync");
  scaling->add_option("--predict", o->predict, "rank counts the fitted models are evaluated at")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  scaling->add_option("--out", o->out);
  scaling->add_option("--config", *config_path);
  return {scaling, true, [o](const Config& cfg) { return ClockScaling(cfg, *o); }};
}

Command AddVerify(CLI::App& app, std::string* config_path) {
  struct Options {
    int nodes = 2;
    std::string fault = "none", out, root = "0", communicator = "world";
  };
  auto o = std::make_shared<Options>();
  CLI::App* verify = app.add_subcommand("verify", "run every registered collective and verify its results");
  verify->add_option("--nodes", o->nodes)->check(CLI::Range(2, 4096));
  verify
      ->add_option("--root", o->root,
                   "the root of ibcast, ireduce, igather(v), iscatter(v): a rank below --nodes, or last")
      ->check(CLI::IsMember({"last"}) | CLI::Range(0, 4095));
  verify
      ->add_option("--communicator", o->communicator, "the collectives' communicator: world, reversed or dup")
      ->check(CLI::IsMember(CommunicatorNames()));
  verify
      ->add_option("--inject-fault", o->fault,
                   "corrupt: flip one delivered element; stale: make no call after the first repetition, so "
                   "the buffers keep the previous result; unwritten: make no call (tests the check itself)")
      ->check(CLI::IsMember({"none", "corrupt", "stale", "unwritten"}));
  verify->add_option("--out", o->out);
  verify->add_option("--config", *config_path);
  return {verify, true, [o](const Config& cfg) -> int {
            if (o->root != "last" && std::stoi(o->root) >= o->nodes) {
              std::cerr << "nbcguard verify: --root " << o->root << " is not a rank of --nodes " << o->nodes
                        << " (0 to " << o->nodes - 1 << ", or last)\n";
              return kUsage;
            }
            return Verify(cfg, o->nodes, o->out, o->fault, o->root == "last" ? -1 : std::stoi(o->root),
                          o->communicator);
          }};
}

Command AddConformance(CLI::App& app, std::string* config_path) {
  auto o = std::make_shared<ConformanceOptions>();
  CLI::App* c = app.add_subcommand(
      "conformance",
      "the conformance tier: every nonblocking and persistent collective with its variants and the semantics "
      "checks, verified on every rank (docs/conformance.md)");
  c->add_option("--ranks", o->ranks, "ranks (root, reordered communicators and topologies need 3 or more)")
      ->check(CLI::Range(2, 4096));
  c->add_option("--tier", o->tier, "quick: the CI subset; full: every variant, persistent too, large counts")
      ->check(CLI::IsMember({"quick", "full"}));
  c->add_option("--check", o->checks, "collectives or semantics checks to run (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(ConformanceCheckNames()));
  c->add_option("--check-bound", o->check_bound,
                "seconds before a check counts as hung (default 30; large_count 20 times that)")
      ->check(CLI::Range(1.0, 86400.0));
  c->add_option("--out", o->out, "results directory (default: the configured one)");
  c->add_option("--bug", o->bug, "run with this bug injected (libnbcguard-bugs.so): the tier must catch it")
      ->check(CLI::IsMember(InjectedBugNames()));
  c->add_option("--config", *config_path);
  return {c, true, [o](const Config& cfg) { return Conformance(cfg, *o); }};
}

Command AddBcastCheck(CLI::App& app, std::string* config_path) {
  auto o = std::make_shared<BcastCheckOptions>();
  auto sizes =
      std::make_shared<std::vector<std::string>>(std::vector<std::string>{"64KiB", "1MiB", "4MiB", "16MiB"});
  CLI::App* bcast = app.add_subcommand(
      "bcast-check",
      "check the synchronized-clock time of MPI_Ibcast against the acknowledgement method of "
      "de Supinski and Karonis (max over destinations of E_i - RTT_i/2)");
  bcast->add_option("--nodes", o->nodes)->check(CLI::Range(2, 4096));
  bcast->add_option("--sizes", *sizes, "message sizes, e.g. 4KiB,1MiB")
      ->delimiter(',')
      ->check([](const std::string& s) {
        std::string error;
        return ParseBytes(s, &error) ? std::string() : error;
      });
  bcast->add_option("--repetitions", o->repetitions, "samples per method and size")
      ->check(CLI::Range(3, 100000));
  bcast->add_option("--inject-offset", o->inject_offset,
                    "seconds added to rank 1's clock (the acknowledgement "
                    "method does not need the clocks; the global time must "
                    "not notice either)");
  bcast->add_option("--inject-drift", o->inject_drift,
                    "relative rate error of rank 1's clock (1e-4 = 100 ppm)");
  bcast->add_option("--relative-tolerance", o->relative, "noise allowance, fraction of the time")
      ->check(CLI::Range(0.0, 1.0));
  auto no_confirm = std::make_shared<bool>(false);
  bcast->add_flag(
      "--no-confirm", *no_confirm,
      "judge on one job: a disagreement beyond noise fails without a second job measuring it again");
  bcast
      ->add_option("--max-jobs", o->max_jobs,
                   "independent jobs at most, the first included, that measure a disagreement beyond noise "
                   "while it is undecided (default 3); undecided after them: INCONCLUSIVE, exit 5")
      ->check(CLI::Range(2, 20));
  bcast
      ->add_option("--inject-fault", o->fault,
                   "disagree-once: the first job's synchronized-clock times x4 (the second job must not "
                   "confirm it); disagree: every job's (it must); disagree-flip: the first job's x4 and "
                   "every later job's / 4 (never decided: INCONCLUSIVE)")
      ->check(CLI::IsMember({"disagree-once", "disagree", "disagree-flip"}));
  bcast
      ->add_option("--sentinel", o->sentinel,
                   "the machine-noise sentinel on the synchronized-clock samples: on (a sample taken while "
                   "another process or the host slowed a rank is measured again) or off")
      ->check(CLI::IsMember({"on", "off"}));
  bcast->add_option("--out", o->out);
  bcast->add_option("--config", *config_path);
  return {bcast, true, [o, sizes, no_confirm](const Config& cfg) {
            if (*no_confirm) o->max_jobs = 1;
            for (const std::string& s : *sizes)
              o->bytes.push_back(*ParseBytes(s, nullptr));  // checked by CLI
            return BcastCheck(cfg, *o);
          }};
}

// The commands that read results.json files only.
std::vector<Command> AddResultsCommands(CLI::App& app) {
  std::vector<Command> out;
  auto cost_dirs = std::make_shared<std::vector<std::string>>();
  CLI::App* cost = app.add_subcommand("cost",
                                      "the tool's own cost per test: time in clock sync, calibration, "
                                      "measurement and r_mpi_impact jobs, size evaluations per target, "
                                      "calibration cache use");
  cost->add_option("dirs", *cost_dirs, "directories searched for results.json")
      ->required()
      ->check(CLI::ExistingDirectory);
  out.push_back({cost, false, [cost_dirs](const Config&) { return CostCommand(*cost_dirs, std::cout); }});

  auto dirs = std::make_shared<std::vector<std::string>>();
  auto per_point = std::make_shared<bool>(false);
  CLI::App* envelope = app.add_subcommand("envelope",
                                          "summarize results.json files: ranges of each ratio (for "
                                          "setting thresholds)");
  envelope->add_option("dirs", *dirs, "directories searched for results.json")
      ->required()
      ->check(CLI::ExistingDirectory);
  envelope->add_flag("--per-point", *per_point,
                     "one line per case, grid point and ratio (run-to-run spread)");
  auto write = std::make_shared<WriteThresholdsOptions>();
  envelope->add_option("--write-thresholds", write->file,
                       "write a starting threshold file for the library of the runs: a rule per collective, "
                       "deployment and process count, max limits a margin above the largest CI lower bound");
  envelope->add_option("--margin", write->margin, "--write-thresholds: the margin (default 0.25)")
      ->check(CLI::Range(0.0, 10.0));
  envelope
      ->add_option(
          "--min-runs", write->min_runs,
          "--write-thresholds: runs of each test needed (default 3; the job is the unit of evidence)")
      ->check(CLI::Range(1, 1000));
  envelope->add_option("--system", write->system, "--write-thresholds: every rule's match.system");
  out.push_back({envelope, false, [dirs, per_point, write](const Config&) -> int {
                   if (const std::string e = SystemNameError(write->system, "--system"); !e.empty()) {
                     std::cerr << "nbcguard envelope: " << e << "\n";
                     return kUsage;
                   }
                   return Envelope(*dirs, *per_point, *write);
                 }});

  struct JunitOptions {
    std::vector<std::string> files;
    std::string list;
  };
  auto junit_options = std::make_shared<JunitOptions>();
  CLI::App* junit = app.add_subcommand(
      "junit",
      "put each failed or skipped test's reason into the `message` of CTest's JUnit files (GitLab "
      "shows it), or list the failed or INCONCLUSIVE tests");
  junit->add_option("files", junit_options->files, "JUnit files written by ctest --output-junit")
      ->required()
      ->check(CLI::ExistingFile);
  junit
      ->add_option("--list", junit_options->list,
                   "failed or inconclusive: print \"<test>: <reason>\" per such test, change nothing")
      ->check(CLI::IsMember({"failed", "inconclusive"}));
  out.push_back({junit, false, [junit_options](const Config&) {
                   return JunitCommand(junit_options->files, junit_options->list, std::cout);
                 }});

  auto paths = std::make_shared<std::vector<std::string>>();
  CLI::App* plot = app.add_subcommand("plot",
                                      "draw the heat-maps and r_mpi_impact bars (PNG, SVG) next to "
                                      "results.json files");
  plot->add_option("paths", *paths, "results.json files or directories searched for them")->required();
  out.push_back({plot, false, [paths](const Config&) { return PlotCommand(*paths); }});
  return out;
}

Command AddSummary(CLI::App& app) {
  struct Options {
    std::string dir, format = "text", output, trends;
  };
  auto o = std::make_shared<Options>();
  CLI::App* summary =
      app.add_subcommand("summary", "one summary of every results.json under a run directory");
  summary->add_option("dir", o->dir, "run directory (searched for results.json)")->required();
  summary
      ->add_option("--format", o->format,
                   "text (terminal), markdown (CI logs, merge requests), html "
                   "(one static page with the heat-maps), openmetrics (GitLab "
                   "metrics report), json (for scripts: schema nbcguard-summary/1)")
      ->check(CLI::IsMember({"text", "markdown", "html", "openmetrics", "json"}));
  summary->add_option("--output", o->output, "file to write (default: standard output)");
  summary->add_option(
      "--trends", o->trends,
      "html: also show the results history's trends from this directory (written by `nbcguard "
      "history plot --out DIR`)");
  return {summary, false,
          [o](const Config&) { return SummaryCommand(o->dir, o->format, o->output, o->trends); }};
}

Command AddCompare(CLI::App& app) {
  struct Options {
    std::string baseline, run;
    CompareCommandOptions co;
  };
  auto o = std::make_shared<Options>();
  CLI::App* compare = app.add_subcommand("compare",
                                         "compare a run's results.json files with a baseline run's: "
                                         "regressions beyond tolerance and noise (exit 1), improvements, "
                                         "what could not be compared");
  compare->add_option("baseline", o->baseline, "baseline results directory (searched for results.json)")
      ->required();
  compare->add_option("run", o->run, "new results directory")->required();
  compare->add_option("--tolerance-overhead", o->co.compare.tolerance_absolute,
                      "absolute worsening of r_overhead and r_comm that counts (default 0.25)");
  compare->add_option("--tolerance-relative", o->co.compare.tolerance_relative,
                      "relative worsening of r_comp_slowdown and r_mpi_impact that counts (default 0.15)");
  compare->add_option("--tolerance-speed", o->co.compare.tolerance_speed,
                      "the collective alone: slower (or faster) by more than a factor 1 + this in bytes per "
                      "rank / time counts (default 2: a third or three times the baseline's speed)");
  compare->add_option("--alpha", o->co.compare.alpha,
                      "significance level of the one-sided rank-sum test (default "
                      "0.01)");
  compare->add_option("--format", o->co.format)->check(CLI::IsMember({"text", "markdown"}));
  compare->add_option("--json", o->co.json_out, "also write the comparison as JSON to this file");
  compare->add_option("--history", o->co.history,
                      "results history (sqlite:PATH, a path, or postgresql://...; default $NBCGUARD_HISTORY) "
                      "whose between-run spread a change must also exceed (docs/history.md)");
  compare->add_option("--system", o->co.system,
                      "the system whose history series count (default $NBCGUARD_SYSTEM or the host name)");
  compare->add_flag("--ignore-reference", o->co.compare.ignore_reference,
                    "compare tests run with different reference behaviours (only for testing the comparison "
                    "itself: such tests are otherwise not comparable)");
  return {compare, false, [o](const Config&) { return CompareCommand(o->baseline, o->run, o->co); }};
}

Command AddHistory(CLI::App& app) {
  auto o = std::make_shared<HistoryCommandOptions>();
  CLI::App* history = app.add_subcommand(
      "history", "the results history: store runs, find persistent changes over nights (docs/history.md)");
  history->require_subcommand(1);
  const auto db = [&](CLI::App* sub) {
    sub->add_option("--db", o->db,
                    "history database: sqlite:PATH, a path (SQLite file), or postgresql://... (default: "
                    "$NBCGUARD_HISTORY)");
  };
  CLI::App* ingest =
      history->add_subcommand("ingest", "store a run directory's results.json files as one night");
  ingest->add_option("run", o->run_dir, "results directory of one run (a build's --out)")->required();
  db(ingest);
  ingest->add_option("--system", o->system,
                     "machine or site name (default: $NBCGUARD_SYSTEM, else the host name)");
  ingest->add_option("--revision", o->revision,
                     "revision of the MPI library under test (default: $NBCGUARD_MPI_REVISION)");
  ingest->add_option("--date", o->date,
                     "the run's date, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (default: the newest results.json's "
                     "modification time)");
  CLI::App* runs = history->add_subcommand("runs", "list the stored runs, oldest first");
  db(runs);
  runs->add_option("--system", o->system, "only this system");
  runs->add_option("--library", o->library, "only this library (openmpi, mpich)");
  CLI::App* check = history->add_subcommand(
      "check",
      "find persistent changes per test, point and ratio over the stored nights; exit 1 on a new regression");
  db(check);
  check->add_option("--system", o->system, "only this system");
  check->add_option("--library", o->library, "only this library (openmpi, mpich)");
  check
      ->add_option(
          "--recent", o->check.recent,
          "a regression fails when it began within this many newest nights (older ones are listed as "
          "known)")
      ->check(CLI::PositiveNumber);
  check->add_option("--max-nights", o->check.max_nights, "newest nights analysed per series")
      ->check(CLI::Range(6, 100000));
  check
      ->add_option("--min-effect", o->check.min_effect_absolute,
                   "smallest change reported in r_overhead and r_comm (absolute)")
      ->check(CLI::PositiveNumber);
  check
      ->add_option("--min-effect-relative", o->check.min_effect_relative,
                   "smallest change reported in r_comp_slowdown and r_mpi_impact (0.1 = 10 %)")
      ->check(CLI::PositiveNumber);
  check
      ->add_option("--alpha", o->check.detect.alpha,
                   "significance of a change point (permutation test; the newest nights' order test)")
      ->check(CLI::Range(0.001, 0.5));
  check->add_option("--json", o->json_out, "also write the findings as JSON to this file");
  check->add_flag("--verbose", o->verbose, "list the series with too few valid nights too");
  CLI::App* plot = history->add_subcommand(
      "plot",
      "draw every series as a trend over the nights (PNG and SVG, with its between-run band, changes and "
      "outliers) and an index.html");
  db(plot);
  plot->add_option("--out", o->out_dir, "directory for the pictures and index.html")->required();
  plot->add_option("--system", o->system, "only this system");
  plot->add_option("--library", o->library, "only this library (openmpi, mpich)");
  plot->add_option("--max-nights", o->check.max_nights, "newest nights drawn per series")
      ->check(CLI::Range(6, 100000));
  return {history, false, [o, ingest, runs, plot](const Config&) {
            if (*ingest) return HistoryIngestCommand(*o);
            if (*runs) return HistoryRunsCommand(*o);
            if (*plot) return HistoryPlotCommand(*o);
            return HistoryCheckCommand(*o);
          }};
}

int Main(int argc, char** argv) {
  CLI::App app{
      "nbcguard: computation/communication overlap of MPI nonblocking collectives (BenchNBC method)"};
  app.require_subcommand(0, 1);  // none is reported below, after an unknown one is
  std::string config_path = DefaultConfigPath();
  // A plain flag, read after parsing: a version callback would run before
  // --config is set.
  bool version = false;
  app.add_flag("--version", version, "print nbcguard's version and the MPI library of its build, then exit");
  app.add_option("--config", config_path, "nbcguard-config.json written by CMake in the build directory");
  std::vector<Command> commands = {AddList(app, &config_path),         AddCheck(app),
                                   AddRun(app, &config_path),          AddClockCheck(app, &config_path),
                                   AddClockScaling(app, &config_path), AddVerify(app, &config_path),
                                   AddBcastCheck(app, &config_path),   AddConformance(app, &config_path)};
  for (Command& c : AddResultsCommands(app)) commands.push_back(c);
  commands.push_back(AddSummary(app));
  const Command compare = AddCompare(app);
  commands.push_back(compare);
  const Command history = AddHistory(app);
  commands.push_back(history);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A bad command line exits 2 (kUsage); --help and --version exit 0.
    if (dynamic_cast<const CLI::ExtrasError*>(&e) && app.get_subcommands().empty()) {
      std::string unknown;
      for (const std::string& arg : app.remaining()) unknown += (unknown.empty() ? "" : " ") + arg;
      std::cerr << "nbcguard: unknown command or argument: " << unknown << "; the commands are:";
      for (const Command& c : commands) std::cerr << " " << c.sub->get_name();
      std::cerr << "\nRun with --help for more information.\n";
      return kUsage;
    }
    return app.exit(e) != 0 ? kUsage : 0;
  }
  if (version) {
    std::cout << VersionText(config_path) << "\n";
    return kPass;
  }
  if (app.get_subcommands().empty()) {
    std::cerr << "nbcguard: a command is required\nRun with --help for more information.\n";
    return kUsage;
  }
  for (const Command& c : commands) {
    if (!*c.sub) continue;
    Config cfg;
    if (c.needs_config) {
      ForwardTerminationToChildren();
      std::string error;
      if (!LoadConfig(config_path, &cfg, &error)) {
        std::cerr << "nbcguard: " << error << "\n";
        return kUsage;
      }
    }
    const int rc = c.run(cfg);
    EndIfInterrupted();
    return rc;
  }
  return kUsage;
}

}  // namespace
}  // namespace nbcguard

// An exception no command caught is a defect of the tool: it ends in a
// message and exit code 2, never in std::terminate's abort.
int main(int argc, char** argv) {
  try {
    return nbcguard::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nbcguard: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "nbcguard: internal error: unknown exception\n");
  }
  return nbcguard::kUsage;
}
