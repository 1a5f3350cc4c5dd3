// nbcguard: runs overlap tests from case files and turns them into verdicts.
//   nbcguard run cases/ibcast.yaml [--nodes 2] [--deployment basic]
//   nbcguard list --format ctest        (what CTest includes)
//   nbcguard check FILE...              (validate case / threshold files)
//   nbcguard compare BASELINE_DIR RUN_DIR   (regressions between two runs' results)
//   nbcguard plot PATH... / summary DIR [--format text|markdown|html|openmetrics]   (pictures, run summary)
//   nbcguard clock-check / verify / bcast-check   (self-checks of the harness)
//   nbcguard clock-scaling                       (clock sync time and error, flat vs tree)
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "clock_check.h"
#include "compare_cmd.h"
#include "cost_cmd.h"
#include "driver_common.h"
#include "launcher.h"
#include "partitioned_run.h"
#include "nbcguard/case_spec.h"
#include "nbcguard/clock_tree.h"
#include "nbcguard/library_version.h"
#include "nbcguard/results_io.h"
#include "nbcguard/stats.h"
#include "nbcguard/threshold_spec.h"
#include "nbcguard/units.h"
#include "nbcguard/verdict.h"
#include "nbcguard/raw_records.h"
#include "nbcguard/reduce.h"
#include "report.h"
#include "results_files.h"
#include "progress_watch.h"
#include "selfcheck.h"
#include "summary.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace nbcguard {
namespace {

std::string DefaultConfigPath() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
    if (fs::exists(dir / "nbcguard-config.json")) return (dir / "nbcguard-config.json").string();
  return "nbcguard-config.json";
}

double RealtimeSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string Join(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : ",") + Precise(x);
  return s;
}

std::vector<fs::path> YamlFiles(const std::string& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && (e.path().extension() == ".yaml" || e.path().extension() == ".yml"))
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Every threshold file, parsed; any error is fatal (a bad file must not
// silently drop a library's limits).
bool LoadThresholds(const Config& cfg, std::vector<ThresholdSpec>* specs) {
  bool ok = true;
  for (const fs::path& f : YamlFiles(cfg.thresholds_dir)) {
    Parsed<ThresholdSpec> p = LoadThresholdSpec(f.string());
    if (!p.ok()) {
      std::cerr << p.ErrorText() << "\n";
      ok = false;
    } else {
      specs->push_back(*p.value);
    }
  }
  return ok;
}

// The running library, named by the harness's context record, and the
// threshold file that applies to it (spec null when none does).
struct LibraryThresholds {
  std::string version_line;  // first line of MPI_Get_library_version
  LibraryId lib;
  const ThresholdSpec* spec = nullptr;
};

LibraryThresholds ThresholdsFor(const RawRun& raw, const std::vector<ThresholdSpec>& specs) {
  LibraryThresholds t;
  const std::string version = raw.context.value("library_version", "");
  t.version_line = FirstLine(version);
  t.lib = IdentifyLibrary(version);
  t.spec = SelectThresholds(specs, t.lib);
  return t;
}

// Why a test without a threshold file fails, and how to add one.
std::string NoThresholdsMessage(const std::string& thresholds_dir, const LibraryThresholds& t) {
  const LibraryId& lib = t.lib;
  return "no threshold file in " + thresholds_dir + " matches the running library (" +
         (lib.implementation.empty() ? "unknown" : lib.implementation) + " " + lib.version +
         ", from: " + t.version_line + "); add one with 'implementation: " + lib.implementation +
         "' and a 'versions:' range containing " + lib.version;
}

// ---------------------------------------------------------------- list --

std::string Bracket(const std::string& s) { return "[==[" + s + "]==]"; }

int List(const Config& cfg, const std::string& format) {
  if (format != "ctest") {
    for (const fs::path& f : YamlFiles(cfg.cases_dir)) std::cout << f.string() << "\n";
    return kPass;
  }
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  for (const fs::path& f : YamlFiles(cfg.cases_dir)) {
    Parsed<CaseSpec> p = LoadCaseSpec(f.string());
    if (!p.ok()) {
      // A broken case file becomes a failing test that shows the error,
      // instead of breaking every other test.
      const std::string name = cfg.implementation + ".case-file." + f.stem().string();
      std::cout << "add_test(" << Bracket(name) << " " << Bracket(self) << " check " << Bracket(f.string())
                << ")\nset_tests_properties(" << Bracket(name) << " PROPERTIES LABELS "
                << Bracket("cases;invalid-case") << ")\n";
      continue;
    }
    const CaseSpec& c = *p.value;
    if (c.kind == CaseKind::kPartitioned) {
      // One test per node count (the parser allows only 2); no deployment.
      for (int n : c.nodes) {
        const std::string name = cfg.implementation + "." + c.name + ".n" + std::to_string(n) + ".partitioned";
        std::vector<std::string> list = {"cases", c.name, "partitioned", "n" + std::to_string(n), cfg.implementation};
        list.insert(list.end(), c.labels.begin(), c.labels.end());
        std::string labels;
        for (std::size_t i = 0; i < list.size(); ++i)
          if (std::find(list.begin(), list.begin() + i, list[i]) == list.begin() + i)
            labels += (labels.empty() ? "" : ";") + list[i];
        std::cout << "add_test(" << Bracket(name) << " " << Bracket(self) << " run " << Bracket(f.string())
                  << " --nodes " << n << " --config " << Bracket(cfg.path) << ")\n"
                  << "set_tests_properties(" << Bracket(name) << " PROPERTIES LABELS " << Bracket(labels)
                  << " TIMEOUT " << static_cast<long>(std::ceil(c.timeout)) << " RUN_SERIAL TRUE PROCESSORS "
                  << n << " SKIP_RETURN_CODE " << kSkip << ")\n";
      }
      continue;
    }
    for (int n : c.nodes) {
      for (Deployment d : c.deployments) {
        const std::string name = cfg.implementation + "." + c.name + ".n" + std::to_string(n) + "." + ToString(d);
        std::string labels = "cases;" + c.name + ";" + c.collective + ";n" + std::to_string(n) + ";" +
                             ToString(d) + ";" + cfg.implementation;
        for (const std::string& l : c.labels) labels += ";" + l;
        std::cout << "add_test(" << Bracket(name) << " " << Bracket(self) << " run " << Bracket(f.string())
                  << " --nodes " << n << " --deployment " << ToString(d) << " --config "
                  << Bracket(cfg.path)
                  << (cfg.baseline_dir.empty() ? "" : " --baseline " + Bracket(cfg.baseline_dir)) << ")\n"
                  << "set_tests_properties(" << Bracket(name) << " PROPERTIES LABELS " << Bracket(labels)
                  << " TIMEOUT " << static_cast<long>(std::ceil(c.timeout)) << " RUN_SERIAL TRUE PROCESSORS "
                  << n << " SKIP_RETURN_CODE " << kSkip << ")\n";
      }
    }
  }
  return kPass;
}

// --------------------------------------------------------------- check --

int Check(const std::vector<std::string>& files) {
  int rc = kPass;
  for (const std::string& f : files) {
    std::ifstream in(f);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const bool threshold = text.find("rules:") != std::string::npos;
    const std::string errors = threshold ? LoadThresholdSpec(f).ErrorText() : LoadCaseSpec(f).ErrorText();
    if (errors.empty()) {
      std::cout << f << ": ok (" << (threshold ? "threshold" : "case") << " file)\n";
    } else {
      std::cerr << errors << "\n";
      rc = kFail;
    }
  }
  return rc;
}

// ----------------------------------------------------------------- run --

struct Deploy {
  std::map<std::string, std::string> env;
  int reserve = 0;  // cores kept free of computation
  std::vector<std::string> harness_args;  // application-side progression
  std::string skip;
};

// What each deployment means for each library (Denis et al., CCPE 2022, section 7; the
// application-side progression of Denis et al., IJHPCA 2019 is the same for every library).
Deploy Plan(Deployment d, const std::string& impl, const CaseSpec& c) {
  Deploy p;
  p.env["OMP_WAIT_POLICY"] = "PASSIVE";  // idle compute threads must not spin against MPI
  if (d == Deployment::kBasic) return p;
  if (IsApplicationProgression(d)) {
    const std::string interval = Precise(c.progress_interval);
    if (d == Deployment::kPoll) {
      p.harness_args = {"--progression", "poll", "--progress-interval", interval};
    } else {
      const std::string policy = d == Deployment::kThreadBind ? "bind" : d == Deployment::kThreadNuma ? "numa" : "odd-even";
      p.harness_args = {"--progression", "thread", "--placement", policy, "--progress-interval", interval};
    }
    return p;
  }
  if (impl == "mpich") {
    p.env["MPIR_CVAR_ASYNC_PROGRESS"] = "1";
    if (d == Deployment::kDedicated) p.reserve = 1;
    return p;
  }
  if (impl == "openmpi")
    p.skip = std::string("Open MPI 4.1 has no general asynchronous progress thread for nonblocking "
                         "collectives, so the '") + ToString(d) + "' deployment cannot be set up";
  else
    p.skip = "no known way to turn on asynchronous progress for MPI implementation '" + impl + "'";
  return p;
}

// r_mpi_impact: the same computation with MPI initialised and idle (a short
// harness job) and in processes that never load MPI (nbcguard-compute),
// started by the same launcher with the same ranks, threads and sizes.
//
// The two kinds of job alternate in rounds (in turn first), and each round
// gives one ratio: on a machine whose cores change speed over seconds (on
// this VM each vCPU runs a GEMM at one speed or 1.7-2x slower, for seconds
// at a time, whatever the job), a job's repetitions share one speed, so the
// round is the independent unit and its ratio compares jobs seconds apart.
// r_mpi_impact is the median of the round ratios with the confidence
// interval of that median over rounds. Rounds are added, from kMinRounds up
// to kMaxRounds, while any size's interval is wider than kSpread (hi / lo)
// and the case's time allows: more repetitions where the noise is high.
//
// The processes without MPI start at one CLOCK_REALTIME instant, set a
// margin ahead of the launch. The first job uses 2 s; each job reports how
// long before the instant its processes were ready, and the next margin is
// three times the launcher's start-up time so measured plus 0.25 s (0.5 to
// 2 s): on an idle node the launcher needs about 0.1 s, and 2 s per round
// was most of a short test's time. A job whose process was late anyway is
// run again with 2 s, then twice that each time up to 16 s, before it
// counts as a failure; one that started in time but fell behind a later
// size's instant is run once more with the same margin, then fails (no
// margin helps a machine that slow).
struct ImpactRuns {
  std::vector<json> passive;  // "passive" records of the MPI jobs, each with its "round"
  NoMpiTimes no_mpi;          // per size and round: slowest process per repetition
  std::string error;
};

ImpactRuns RunImpact(const Config& cfg, int nodes, int threads, const std::vector<int>& sizes,
                     const std::vector<double>& targets, int reps, const fs::path& dir,
                     const std::map<std::string, std::string>& env, const std::function<double()>& left,
                     ProgressWatch* progress) {
  ImpactRuns out;
  if (sizes.empty()) return out;
  constexpr int kMinRounds = 3, kMaxRounds = 9;
  constexpr double kSpread = 1.2;
  const int per_round = std::max(3, (reps + kMinRounds - 1) / kMinRounds);
  std::string list;
  for (int n : sizes) list += (list.empty() ? "" : ",") + std::to_string(n);
  const fs::path cdir = dir / "no-mpi";
  fs::remove_all(cdir);
  constexpr double kFirstMargin = 2.0, kMaxMargin = 16.0;
  double start_margin = kFirstMargin;
  for (int round = 0; round < kMaxRounds && out.error.empty(); ++round) {
    progress->ImpactRound(round + 1, kMaxRounds);
    const double round_started = left();
    // With MPI, idle.
    auto with_mpi = [&] {
      const fs::path raw_path = dir / ("passive." + std::to_string(round) + ".jsonl");
      fs::remove(raw_path);
      ProcessResult r = RunProcess(
          LaunchCommand(cfg, nodes, cfg.harness,
                        {"--mode", "passive", "--threads", std::to_string(threads), "--sizes", list, "--comp",
                         Join(targets), "--repetitions", std::to_string(per_round), "--out", raw_path.string()}),
          env, std::max(1.0, left()));
      RawRun raw = ReadRaw(raw_path.string());
      if (r.exit_code != 0 || !raw.ended) {
        out.error = "computation with MPI idle failed (exit " + std::to_string(r.exit_code) + ")";
        return;
      }
      for (const json* p : RecordsOfType(raw, record::kPassive)) {
        if ((*p).value("late", false)) out.error = "a rank started its computation with MPI idle late";
        json rec = *p;
        rec["round"] = round;
        out.passive.push_back(rec);
      }
    };
    // Without MPI: every process starts at one CLOCK_REALTIME instant, far
    // enough ahead for the launcher to start them (start_margin, above).
    auto without_mpi = [&] {
      const fs::path rdir = cdir / std::to_string(round);
      std::map<int, std::vector<std::vector<double>>> procs_by_size;
      int behind_retries = 0;
      for (double margin = start_margin;;) {
        fs::remove_all(rdir);
        fs::create_directories(rdir);
        ProcessResult r = RunProcess(
            LaunchCommand(cfg, nodes, cfg.compute,
                          {"--threads", std::to_string(threads), "--sizes", list, "--targets", Join(targets),
                           "--repetitions", std::to_string(per_round), "--start-realtime",
                           Precise(RealtimeSeconds() + margin), "--out-dir", rdir.string()}),
            env, std::max(1.0, left()));
        if (r.exit_code != 0) {
          out.error = r.timed_out ? "computation without MPI timed out"
                                  : "computation without MPI failed (exit " + std::to_string(r.exit_code) + ")";
          return;
        }
        bool late = false;
        double slack = margin;  // the least time any process had to spare
        procs_by_size.clear();
        for (const auto& e : fs::directory_iterator(rdir)) {
          std::ifstream f(e.path());
          json j = json::parse(f, nullptr, false);
          if (j.is_discarded()) continue;
          late = late || j.value("late", false);
          slack = std::min(slack, j.value("slack", 0.0));
          for (const json& res : j["results"])
            procs_by_size[res["n"]].push_back(res["times"].get<std::vector<double>>());
        }
        start_margin = std::clamp(3 * (margin - slack) + 0.25, 0.5, kFirstMargin);
        if (!late) break;
        // Every process was ready in time, yet one missed a later size's
        // instant: it computed more than 3 times slower than calibrated
        // (a machine busy with other work). A longer margin does not help;
        // a busy spell may pass, so once more before it counts.
        if (slack >= 0) {
          if (behind_retries++ == 0) {
            std::cerr << "nbcguard: a computation without MPI fell behind its start times; once more\n";
            continue;
          }
          out.error = "a computation without MPI fell behind its start times twice (it ran more than 3 times "
                      "slower than calibrated: a busy machine?)";
          return;
        }
        // The launch itself was late: again with twice the margin, at least
        // 2 s and at most kMaxMargin (srun allocates a job per launch: 0.3-1 s
        // here when idle, more than 2 s while compilers shared the vCPUs).
        const double next = std::max(kFirstMargin, 2 * margin);
        if (next > kMaxMargin || left() < 2 * next + 5) {
          out.error = "a computation without MPI started after the agreed instant (launcher slower than " +
                      FormatDuration(margin) + ")";
          return;
        }
        std::cerr << "nbcguard: the launcher took more than " << FormatDuration(margin)
                  << " to start the computation without MPI; again with " << FormatDuration(next) << "\n";
        margin = next;
      }
      for (auto& [n, procs] : procs_by_size) {
        std::vector<double> flat;
        for (auto& p : procs) flat.insert(flat.end(), p.begin(), p.end());
        out.no_mpi[n][round] = SlowestPerRep(flat, static_cast<int>(procs.size()));
      }
    };
    if (round % 2 == 0) {
      with_mpi();
      if (out.error.empty()) without_mpi();
    } else {
      without_mpi();
      if (out.error.empty()) with_mpi();
    }
    if (!out.error.empty()) break;
    if (round + 1 < kMinRounds) continue;
    bool settled = true;
    std::vector<const json*> recs;
    for (const json& p : out.passive) recs.push_back(&p);
    for (const auto& [target, ratios] : ImpactRatiosPerRound(recs, out.no_mpi, nodes)) {
      const Spread sp = Summarize(ratios);
      settled = settled && sp.lo > 0 && sp.hi / sp.lo <= kSpread;
    }
    // Another round only if it fits twice in what the case has left.
    if (settled || left() < 2 * (round_started - left()) + 5) break;
  }
  return out;
}

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
  std::snprintf(buf, sizeof buf, "reference delivered: the computing thread lost %.1f-%.1f %% of its time (asked %g %%) in %zu rank-jobs\n",
                100 * d["min_share"].get<double>(), 100 * d["max_share"].get<double>(),
                100 * d["records"][0]["share"].get<double>(), d["records"].size());
  os << buf;
}

// Options of `run` beyond the case file.
struct RunOptions {
  std::vector<int> nodes;                // default: the case's
  std::vector<std::string> deployments;  // default: the case's
  std::string out;                       // default: the build's results/
  double timeout = 0;                    // seconds; 0 = the case's
  std::string fault = "none";            // passed to the harness (testing)
  std::string thresholds_dir;            // default: the configured one
  std::string reference;                 // reference behaviour overriding the case's (empty = the case's)
  std::vector<std::string> set_env;      // NAME=VALUE set after the deployment's environment
  std::string baseline;                  // results of an earlier run to compare with (empty = none)
  std::string clock_sync = "flat";       // passed to the harness: flat | tree
  std::string calibration_cache;         // overrides the configured cache directory; "off": none
  bool confirm = true;                   // a limit exceeded in one job fails only if a second job agrees
};

// The deployment as the calibration cache key knows it: everything the
// driver changes about the run that can change a collective's or the
// computation's time (deployment, progression, environment, reference
// behaviour). Paths that differ from run to run stay out.
std::string CacheDeployment(Deployment d, const Deploy& plan, const Config& cfg) {
  std::string out = ToString(d);
  // The launcher and its options place the ranks (srun --cpu-bind, mpirun's
  // binding): sizes calibrated through one are not taken for the other.
  if (cfg.launcher != "mpiexec") {
    out += " launcher=" + cfg.launcher;
    for (const std::string& f : cfg.preflags) out += " " + f;
  }
  for (const std::string& a : plan.harness_args) out += " " + a;
  for (const auto& [k, v] : plan.env) out += " " + k + "=" + v;
  for (const auto& [k, v] : cfg.harness_env) {
    if (k != "LD_PRELOAD" && k != "NBCGUARD_REFERENCE_LOG") out += " " + k + "=" + v;
  }
  return out;
}

// What one job of a case (the harness job, then the r_mpi_impact jobs)
// measured and concluded.
struct JobOutcome {
  int rc = kPass;  // kPass / kFail from the thresholds, else the job's error code
  Verdict verdict;
  Reduction red;
  RunInfo info;
  json results;
  fs::path results_path;
  const ThresholdSpec* spec = nullptr;  // the library's thresholds (in `specs`), when found
  TestContext test;                     // what the thresholds judged: a second job is judged the same
};

// One job of case `c` on `nodes` ranks: writes raw.jsonl, `results_name`
// and the pictures into `dir`, prints the table and verdict (and the CTest
// measurements when `measurements`). The case's timeout runs from `started`.
JobOutcome MeasureJob(const Config& base_cfg, const CaseSpec& c, int nodes, Deployment d,
                      const std::vector<ThresholdSpec>& specs, const RunOptions& ro, const fs::path& dir,
                      const std::string& results_name, std::chrono::steady_clock::time_point started,
                      bool measurements) {
  JobOutcome out;
  Config cfg = base_cfg;
  if (c.reference.active()) {
    if (cfg.reference_library.empty() || !fs::exists(cfg.reference_library)) {
      std::cout << "FAIL " << c.name << ": the case asks for reference behaviour "
                << ToString(c.reference.behaviour) << " but the reference library is missing ("
                << (cfg.reference_library.empty() ? "not in " + cfg.path : cfg.reference_library) << ")\n";
      out.rc = kUsage;
      return out;
    }
    cfg.harness_env = ToEnvironment(c.reference);
    cfg.harness_env["LD_PRELOAD"] = cfg.reference_library;
  }
  Deploy plan = Plan(d, cfg.implementation, c);
  for (const std::string& kv : ro.set_env) plan.env[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
  const std::string id = c.name + " n" + std::to_string(nodes) + " " + ToString(d);
  if (!plan.skip.empty()) {
    std::cout << "SKIP " << id << ": " << plan.skip << "\n";
    out.rc = kSkip;
    return out;
  }
  fs::create_directories(dir);
  const fs::path raw_path = dir / "raw.jsonl";
  fs::remove(raw_path);
  // What the reference library delivered, per rank and job (passive-impact).
  const fs::path reference_log = dir / "reference.jsonl";
  fs::remove(reference_log);
  if (c.reference.active()) cfg.harness_env["NBCGUARD_REFERENCE_LOG"] = reference_log.string();

  auto red_conformance_free = [](const RawRun& r) { return RecordsOfType(r, "conformance_failure").empty(); };
  auto left = [&] {
    // Keep 10 s of the case's timeout for reducing and reporting.
    return c.timeout - 10 - std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  std::vector<std::string> args = {"--mode", "overlap", "--collective", c.collective, "--comm", Join(c.comm_times),
                                   "--comp", Join(c.comp_times), "--repetitions", std::to_string(c.repetitions),
                                   "--threads", std::to_string(c.threads), "--reserve", std::to_string(plan.reserve),
                                   "--fault", ro.fault, "--clock-sync", ro.clock_sync, "--out", raw_path.string()};
  args.insert(args.end(), plan.harness_args.begin(), plan.harness_args.end());
  const std::string cache_dir = ro.calibration_cache.empty() ? cfg.calibration_cache
                                : ro.calibration_cache == "off" ? std::string()
                                                                : ro.calibration_cache;
  if (!cache_dir.empty()) {
    args.insert(args.end(), {"--calibration-cache", cache_dir, "--cache-deployment", CacheDeployment(d, plan, cfg)});
  }
  const std::vector<std::string> cmd = LaunchCommand(cfg, nodes, cfg.harness, args);
  std::cerr << "nbcguard: " << id << ": " << DescribeLaunch(cfg, cmd) << "\n";
  ProgressWatch progress(id, static_cast<int>(c.comp_times.size()), static_cast<int>(c.comm_times.size()),
                         static_cast<int>(c.comp_times.size() * c.comm_times.size()), left);
  progress.Watch(raw_path.string());
  ProcessResult hr = RunProcess(cmd, plan.env, std::max(1.0, left()));

  RawRun raw = ReadRaw(raw_path.string());
  for (const json* s : RecordsOfType(raw, record::kSkip)) {
    std::cout << "SKIP " << id << ": " << (*s)["reason"].get<std::string>() << "\n";
    out.rc = kSkip;
    return out;
  }
  std::string harness_error;
  if (hr.timed_out)
    harness_error = "harness did not finish within the case timeout (" + FormatDuration(c.timeout) +
                    "): a hung collective or rank; completed points are kept";
  else if (hr.exit_code != 0 && hr.exit_code != kConformance)
    harness_error = "harness failed (exit " + std::to_string(hr.exit_code) + "); completed points are kept";

  int threads = 0;
  for (const json* t : RecordsOfType(raw, record::kThreads)) threads = (*t)["threads"];
  std::vector<int> sizes;
  std::vector<double> size_targets;
  for (const json* p : RecordsOfType(raw, record::kCompCalibration)) {
    if (!(*p)["converged"].get<bool>()) continue;
    sizes.push_back((*p)["size"]);
    size_targets.push_back((*p)["target"]);
  }
  std::string nompi_error;
  NoMpiTimes nompi;
  const auto impact_start = std::chrono::steady_clock::now();
  if (harness_error.empty() && red_conformance_free(raw)) {
    ImpactRuns impact = RunImpact(cfg, nodes, threads, sizes, size_targets, c.repetitions, dir, plan.env, left,
                                      &progress);
    nompi_error = impact.error;
    nompi = impact.no_mpi;
    for (json& p : impact.passive) raw.records.push_back(p);
  }
  progress.Stop();
  const double impact_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - impact_start).count();
  out.red = Reduce(raw, nompi);
  const Reduction& red = out.red;
  RunInfo& info = out.info;
  info.case_name = c.name;
  info.case_file = c.file;
  info.collective = c.collective;
  info.deployment = ToString(d);
  info.implementation_label = cfg.implementation;
  info.nodes = nodes;
  info.threads = threads;
  info.launch = LaunchRecord(cfg, cmd);
  info.deployment_env = plan.env;
  if (c.reference.active()) {
    info.reference = c.reference.Describe();
    info.reference_json = {{"behaviour", ToString(c.reference.behaviour)}, {"latency", c.reference.latency},
                           {"bandwidth", c.reference.bandwidth}, {"late_rank", c.reference.late_rank},
                           {"late_delay", c.reference.late_delay}, {"share", c.reference.share},
                           {"period", c.reference.period}};
  }
  if (IsApplicationProgression(d)) {
    info.progression = {{"strategy", d == Deployment::kPoll ? "poll" : "thread"}, {"interval", c.progress_interval}};
    for (const json* pl : RecordsOfType(raw, record::kPlacement)) {
      json rec = *pl;
      rec.erase("type");
      info.progression["placement"] = rec;
    }
  }
  const LibraryThresholds found = ThresholdsFor(raw, specs);
  info.library_version = found.version_line;
  const ThresholdSpec* spec = found.spec;
  out.spec = spec;
  Verdict& v = out.verdict;
  out.test = TestContext{c.collective, nodes, d, c.labels};
  int rc = kPass;
  if (spec) {
    info.threshold_file = spec->file;
    v = Evaluate(red.points, out.test, spec->rules);
    rc = v.pass ? kPass : kFail;
  } else {
    info.threshold_file = "(none)";
    v.pass = false;
  }
  PrintTable(std::cout, info, red, v);
  if (measurements) PrintCTestMeasurements(std::cout, red, v);
  json& results = out.results;
  results = ResultsJson(info, raw, red, v);
  if (!nompi_error.empty()) results["no_mpi_error"] = nompi_error;
  if (!harness_error.empty()) results["harness_error"] = harness_error;
  // The tool's own cost (nbcguard cost): the overlap job's phases (rank 0's
  // clock), the job as launched, the r_mpi_impact jobs, and the whole test.
  results["cost"] = {{"harness_job", hr.seconds}, {"mpi_impact_jobs", impact_seconds},
                     {"total", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()}};
  for (const json* ph : RecordsOfType(raw, record::kPhaseTimes)) {
    for (const char* k : {"sync", "calibration", "measurement"}) results["cost"][k] = (*ph)[k];
  }
  if (c.reference.active()) {
    results["reference_delivered"] = ReadReferenceLog(reference_log);
    PrintReferenceDelivered(std::cout, results["reference_delivered"]);
  }
  out.results_path = dir / results_name;
  if (const std::string e = WriteResults(out.results_path, results); !e.empty())
    std::cout << "error: " << e << "\n";
  std::cout << "results: " << out.results_path.string() << "\n";
  RenderRunPlots(std::cout, results, dir);  // pictures never change the verdict

  out.rc = rc;
  if (!red.conformance_error.empty()) {
    std::cout << "FAIL " << id << ": conformance failure: " << red.conformance_error << "\n";
    out.rc = kConformance;
  } else if (!harness_error.empty()) {
    std::cout << "FAIL " << id << ": " << harness_error << "\n";
    out.rc = kHarnessFailed;
  } else if (!spec) {
    std::cout << "FAIL " << id << ": " << NoThresholdsMessage(cfg.thresholds_dir, found) << "\n";
    out.rc = kUsage;
  } else if (!nompi_error.empty()) {
    std::cout << "FAIL " << id << ": " << nompi_error << "\n";
    out.rc = kHarnessFailed;
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

// A case on `nodes` ranks with deployment `d`: one job, and when it exceeds
// a limit beyond noise, a second, independent job of the failing points
// (RunOptions::confirm; see Confirm in verdict.h), which also measures the
// points the first job could not (invalid ones). The first job's
// results.json holds the final verdict and where the second job's results
// are (confirm/confirmation.json: not a results.json, so that summaries and
// envelopes see one result per test).
int RunOne(const Config& cfg, const CaseSpec& c, int nodes, Deployment d, const std::vector<ThresholdSpec>& specs,
           const RunOptions& ro) {
  const auto started = std::chrono::steady_clock::now();
  const std::string out_root = ro.out.empty() ? cfg.results_dir : ro.out;
  const fs::path dir = fs::path(out_root) / c.name / ("n" + std::to_string(nodes)) / ToString(d);
  fs::remove_all(dir / "confirm");
  JobOutcome first = MeasureJob(cfg, c, nodes, d, specs, ro, dir, "results.json", started, true);
  int rc = first.rc;
  const Verdict& fv = first.verdict;
  if (rc == kFail && ro.confirm && (!fv.failures.empty() || !fv.invalid.empty())) {
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::vector<std::pair<double, double>> at;
    for (const InvalidPoint& i : fv.invalid)
      if (i.at) at.push_back(*i.at);  // Evaluate gives every overlap point its place
    for (const Finding& f : fv.failures) at.emplace_back(f.comm_target, f.comp_target);
    const CaseSpec again = RestrictedTo(c, at);
    std::cout << "\nconfirmation: " << fv.failures.size() << " limit(s) exceeded beyond noise, "
              << fv.invalid.size() << " invalid point(s); a failure must be seen by two independent jobs, so the "
              << again.comm_times.size() * again.comp_times.size() << " point(s) concerned are measured again\n";
    Verdict final_verdict = first.verdict;
    json confirmation = {{"points", again.comm_times.size() * again.comp_times.size()}};
    // Only when at least half of what the first job took is left: the second
    // measures no more points, and it stops at the case timeout whatever it has.
    if (c.timeout - 10 - spent < 0.5 * spent) {
      std::cout << "confirmation: not enough of the case's timeout left (" << FormatDuration(c.timeout - spent)
                << "): the failures stand\n";
      confirmation["error"] = "not enough of the case's timeout left";
    } else {
      JobOutcome second =
          MeasureJob(cfg, again, nodes, d, specs, ro, dir / "confirm", "confirmation.json", started, false);
      final_verdict = Confirm(first.verdict, second.red.points, first.test,
                              first.spec ? first.spec->rules : std::vector<Rule>{});
      confirmation["results"] = second.results_path.string();
      if (second.rc != kPass && second.rc != kFail) confirmation["error"] = "the second job failed (exit " +
                                                                           std::to_string(second.rc) + ")";
    }
    std::cout << "\nconfirmation of the first job's failures by the second:\n";
    for (const Finding& f : final_verdict.unconfirmed) std::cout << "  not confirmed: " << f.Message() << "\n";
    for (const Finding& f : final_verdict.failures) std::cout << "  FAIL (confirmed) " << f.Message() << "\n";
    for (const std::string& s : final_verdict.remeasured) std::cout << "  invalid in the first job: " << s << "\n";
    for (const InvalidPoint& i : final_verdict.invalid) std::cout << "  INVALID in both jobs: " << i.line << "\n";
    std::cout << "verdict after confirmation: " << final_verdict.Summary() << "\n";
    std::cout << "<DartMeasurement type=\"numeric/double\" name=\"limits not confirmed\">"
              << final_verdict.unconfirmed.size() << "</DartMeasurement>\n";
    first.results["verdict"] = VerdictJson(final_verdict, first.info.threshold_file);
    first.results["confirmation"] = confirmation;
    if (const std::string e = WriteResults(first.results_path, first.results); !e.empty())
      std::cout << "error: " << e << "\n";
    rc = final_verdict.pass ? kPass : kFail;
  }
  // Nightly mode: a regression against the baseline fails like a threshold.
  if ((rc == kPass || rc == kFail) && !ro.baseline.empty() &&
      CheckAgainstBaseline(first.results, first.results_path.string(), ro.baseline, std::cout) == kFail)
    rc = kFail;
  return rc;
}

// A partitioned case (kind: partitioned): one harness run on 2 ranks, no
// computation and no r_mpi_impact jobs; bandwidths and r_partitioned per
// grid point, the thresholds' rules of kind partitioned, results.json with
// "kind": "partitioned". Skips (exit 77) with the harness's reason where the
// library has no MPI-4 partitioned communication.
int RunPartitionedCase(const Config& cfg, const CaseSpec& c, const std::vector<int>& nodes_list,
                       const std::vector<ThresholdSpec>& specs, const RunOptions& ro) {
  if (!ro.deployments.empty() || !ro.reference.empty()) {
    std::cerr << "nbcguard run: --deployment and --reference apply to kind: overlap cases; " << c.file
              << " is kind: partitioned\n";
    return kUsage;
  }
  int worst = kSkip;
  for (int nodes : nodes_list) {
    const std::string id = c.name + " n" + std::to_string(nodes) + " partitioned";
    if (nodes != 2) {
      std::cout << "FAIL " << id << ": partitioned communication is measured between exactly 2 ranks\n";
      return kUsage;
    }
    const std::string out_root = ro.out.empty() ? cfg.results_dir : ro.out;
    const fs::path dir = fs::path(out_root) / c.name / ("n" + std::to_string(nodes)) / "partitioned";
    fs::create_directories(dir);
    const fs::path raw_path = dir / "raw.jsonl";
    fs::remove(raw_path);
    std::map<std::string, std::string> env = {{"OMP_WAIT_POLICY", "PASSIVE"}};  // idle Pready threads must not spin
    for (const std::string& kv : ro.set_env) env[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    std::string sizes, orders, threads;
    for (std::uint64_t b : c.partitioned.partition_bytes) sizes += (sizes.empty() ? "" : ",") + std::to_string(b);
    for (ReadyOrder o : c.partitioned.orders) orders += (orders.empty() ? "" : ",") + std::string(ToString(o));
    for (int t : c.partitioned.pready_threads) threads += (threads.empty() ? "" : ",") + std::to_string(t);
    const std::vector<std::string> args = {
        "--mode", "partitioned", "--buffer", std::to_string(c.partitioned.buffer), "--partitions", sizes,
        "--orders", orders, "--pready-threads", threads, "--seed", std::to_string(c.partitioned.seed),
        "--repetitions", std::to_string(c.repetitions), "--fault", ro.fault, "--clock-sync", ro.clock_sync,
        "--out", raw_path.string()};
    const std::vector<std::string> cmd = LaunchCommand(cfg, nodes, cfg.harness, args);
    std::cerr << "nbcguard: " << id << ": " << DescribeLaunch(cfg, cmd) << "\n";
    const auto started = std::chrono::steady_clock::now();
    auto left = [&] {
      return c.timeout - 10 - std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    // The grid as the harness will expand it; "auto" threads as the harness
    // resolves them when every rank runs on this host (a progress estimate only).
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const int auto_threads = static_cast<int>(std::max(1L, cores / std::max(1, nodes)));
    ProgressWatch progress(id, 0, 0, static_cast<int>(ExpandPartitionedGrid(c.partitioned, auto_threads).size()), left);
    progress.Watch(raw_path.string());
    const ProcessResult hr = RunProcess(cmd, env, std::max(1.0, left()));
    progress.Stop();

    const RawRun raw = ReadRaw(raw_path.string());
    bool skipped = false;
    for (const json* s : RecordsOfType(raw, record::kSkip)) {
      std::cout << "SKIP " << id << ": " << (*s)["reason"].get<std::string>() << "\n";
      skipped = true;
    }
    if (skipped) continue;
    std::string harness_error;
    if (hr.timed_out)
      harness_error = "harness did not finish within the case timeout (" + FormatDuration(c.timeout) +
                      "): a hung transfer or rank; completed points are kept";
    else if (hr.exit_code != 0 && hr.exit_code != kConformance)
      harness_error = "harness failed (exit " + std::to_string(hr.exit_code) + "); completed points are kept";

    const PartitionedReduction red = ReducePartitioned(raw);
    PartitionedRunInfo info;
    info.case_name = c.name;
    info.case_file = c.file;
    info.implementation_label = cfg.implementation;
    info.nodes = nodes;
    info.repetitions = c.repetitions;
    info.labels = c.labels;
    info.launch = LaunchRecord(cfg, cmd);
    info.deployment_env = env;
    info.spec = c.partitioned;
    const LibraryThresholds found = ThresholdsFor(raw, specs);
    info.library_version = found.version_line;
    const ThresholdSpec* spec = found.spec;
    Verdict v;
    int rc = kPass;
    if (spec) {
      info.threshold_file = spec->file;
      v = EvaluatePartitioned(red.points, TestContext{"", nodes, Deployment::kBasic, c.labels, CaseKind::kPartitioned},
                              spec->rules);
      rc = v.pass ? kPass : kFail;
    } else {
      info.threshold_file = "(none)";
    }
    PrintPartitionedTable(std::cout, info, red, v);
    PrintPartitionedMeasurements(std::cout, red, v);
    json results = PartitionedResultsJson(info, raw, red, v);
    if (!harness_error.empty()) results["harness_error"] = harness_error;
    if (const std::string e = WriteResults(dir / "results.json", results); !e.empty())
      std::cout << "error: " << e << "\n";
    std::cout << "results: " << (dir / "results.json").string() << "\n";
    if (!ro.baseline.empty())
      std::cout << "baseline: partitioned results are not compared with a baseline (nbcguard compare reads "
                   "overlap results only); the thresholds decide\n";
    if (!red.conformance_error.empty()) {
      std::cout << "FAIL " << id << ": conformance failure: " << red.conformance_error << "\n";
      rc = kConformance;
    } else if (!harness_error.empty()) {
      std::cout << "FAIL " << id << ": " << harness_error << "\n";
      rc = kHarnessFailed;
    } else if (!spec) {
      std::cout << "FAIL " << id << ": " << NoThresholdsMessage(cfg.thresholds_dir, found) << "\n";
      rc = kUsage;
    }
    if (worst == kSkip || worst == kPass || (rc != kPass && rc > worst)) worst = rc;
  }
  return worst;
}

int Run(const Config& cfg, const std::string& case_file, const RunOptions& ro) {
  Parsed<CaseSpec> p = LoadCaseSpec(case_file);
  if (!p.ok()) {
    std::cerr << p.ErrorText() << "\n";
    return kUsage;
  }
  CaseSpec c = *p.value;
  if (ro.timeout > 0) c.timeout = ro.timeout;
  if (!ro.reference.empty()) c.reference.behaviour = *ParseReferenceBehaviour(ro.reference);  // checked by CLI
  Config cfg_run = cfg;
  if (!ro.thresholds_dir.empty()) cfg_run.thresholds_dir = ro.thresholds_dir;
  const std::vector<int>& nodes_opt = ro.nodes;
  const std::vector<std::string>& deploy_opt = ro.deployments;
  std::vector<ThresholdSpec> specs;
  if (!LoadThresholds(cfg_run, &specs)) return kUsage;
  std::vector<int> nodes = nodes_opt.empty() ? c.nodes : nodes_opt;
  if (c.kind == CaseKind::kPartitioned) return RunPartitionedCase(cfg_run, c, nodes, specs, ro);
  if (ro.fault == "corrupt") {
    std::cerr << "nbcguard run: --inject-fault corrupt applies to kind: partitioned cases only (" << c.file
              << " is kind: overlap)\n";
    return kUsage;
  }
  std::vector<Deployment> deps;
  if (deploy_opt.empty()) deps = c.deployments;
  for (const std::string& s : deploy_opt) deps.push_back(*ParseDeployment(s));  // checked by CLI
  int worst = kPass;
  bool any_ran = false;
  for (int n : nodes)
    for (Deployment d : deps) {
      const int rc = RunOne(cfg_run, c, n, d, specs, ro);
      if (rc == kSkip) continue;
      any_ran = true;
      if (rc != kPass && (worst == kPass || rc > worst)) worst = rc;
    }
  return any_ran ? worst : kSkip;
}

// ------------------------------------------------------------ envelope --

// What a threshold should be set from: over every results.json under the
// directories, per (library, deployment, ratio), the range of medians and the
// largest lower bound of the confidence interval (the value a max limit is
// compared with), plus invalid points. With per_point, the same per (library,
// case, deployment, grid point, ratio) with the median of the medians: how
// much one point moves from run to run (the flakiness budget).
int Envelope(const std::vector<std::string>& dirs, bool per_point) {
  struct Range {
    int n = 0;
    double lo_med = INFINITY, hi_med = -INFINITY, max_ci_lo = -INFINITY;
    std::vector<double> medians;
  };
  std::map<std::string, Range> ranges;
  std::map<std::string, int> invalid;
  // Partitioned results: r_partitioned per library and partition size (and,
  // per point, order and threads), with the smallest upper bound of the
  // confidence interval: what a min limit is compared with.
  struct LowRange {
    int n = 0;
    double lo_med = INFINITY, hi_med = -INFINITY, min_ci_hi = INFINITY;
    std::vector<double> medians;
  };
  std::map<std::pair<std::string, std::uint64_t>, LowRange> partitioned;
  int files = 0;
  std::vector<std::string> missing;  // none: the CLI checked that each directory exists
  for (const fs::path& file : FindResultsFiles(dirs, &missing)) {
    std::ifstream f(file);
    json j = json::parse(f, nullptr, false);
    if (j.is_discarded() || !j.contains("points")) continue;
    ++files;
    if (j.value("kind", std::string()) == "partitioned") {
      for (const json& p : j["points"]) {
        const std::string at = j.value("implementation_label", "?") + " " + j["case"].value("name", "?") +
                               (per_point ? " " + p.value("order", std::string("?")) + " threads=" +
                                                std::to_string(p.value("threads", 0))
                                          : std::string());
        const std::uint64_t size = p.value("partition_bytes", std::uint64_t{0});
        if (!p.value("valid", false)) {
          ++invalid[at + " " + FormatBytes(size)];
          continue;
        }
        if (!p.contains("r_partitioned")) continue;
        const json& r = p["r_partitioned"];
        if (!r.value("median", json()).is_number() || !r.value("ci_hi", json()).is_number()) continue;
        LowRange& lr = partitioned[{at, size}];
        ++lr.n;
        lr.medians.push_back(r["median"].get<double>());
        lr.lo_med = std::min(lr.lo_med, r["median"].get<double>());
        lr.hi_med = std::max(lr.hi_med, r["median"].get<double>());
        lr.min_ci_hi = std::min(lr.min_ci_hi, r["ci_hi"].get<double>());
      }
      continue;
    }
    std::string key = j.value("implementation_label", "?") + " " + j["case"].value("deployment", "?");
    if (per_point) key = j.value("implementation_label", "?") + " " + j["case"].value("name", "?") + " " +
                         j["case"].value("deployment", "?");
    for (const json& p : j["points"]) {
      const std::string at = per_point ? " " + FormatDuration(p.value("comm_target", 0.0)) + "x" +
                                             FormatDuration(p.value("comp_target", 0.0))
                                       : "";
      if (!p.value("valid", false)) {
        ++invalid[key + (per_point ? at : " " + j["case"].value("name", "?"))];
        continue;
      }
      for (const char* m : {"r_overhead", "r_comm", "r_comp_slowdown", "r_mpi_impact", "cpu_busy_nbc",
                            "cpu_busy_blocking"}) {
        if (!p.contains(m)) continue;  // results written before the metric existed
        const json& s = p[m];
        if (!s["median"].is_number() || !s["ci_lo"].is_number()) continue;
        Range& r = ranges[key + at + " " + m];
        ++r.n;
        r.medians.push_back(s["median"].get<double>());
        r.lo_med = std::min(r.lo_med, s["median"].get<double>());
        r.hi_med = std::max(r.hi_med, s["median"].get<double>());
        r.max_ci_lo = std::max(r.max_ci_lo, s["ci_lo"].get<double>());
      }
    }
  }
  std::printf("%d results files\n", files);
  for (const auto& [k, r] : ranges) {
    if (per_point)
      std::printf("%-58s n=%3d  medians %.2f..%.2f (median %.2f)  largest CI lower bound %.2f\n", k.c_str(), r.n,
                  r.lo_med, r.hi_med, Median(r.medians), r.max_ci_lo);
    else
      std::printf("%-36s n=%3d  medians %.2f..%.2f  largest CI lower bound %.2f\n", k.c_str(), r.n, r.lo_med,
                  r.hi_med, r.max_ci_lo);
  }
  for (const auto& [k, r] : partitioned)
    std::printf("%-44s %8s r_partitioned n=%3d  medians %.3g..%.3g (median %.3g)  smallest CI upper bound %.3g\n",
                k.first.c_str(), FormatBytes(k.second).c_str(), r.n, r.lo_med, r.hi_med, Median(r.medians),
                r.min_ci_hi);
  for (const auto& [k, n] : invalid) std::printf("invalid points: %s: %d\n", k.c_str(), n);
  return files > 0 ? kPass : kFail;
}

}  // namespace
}  // namespace nbcguard

int main(int argc, char** argv) {
  using namespace nbcguard;
  CLI::App app{"nbcguard: computation/communication overlap of MPI nonblocking collectives (BenchNBC method)"};
  app.require_subcommand(1);
  std::string config_path = DefaultConfigPath(), out;
  app.add_option("--config", config_path, "nbcguard-config.json written by CMake in the build directory");

  auto* list = app.add_subcommand("list", "list the tests of cases/ (for CTest)");
  std::string format = "ctest";
  list->add_option("--format", format)->check(CLI::IsMember({"ctest", "files"}));
  list->add_option("--config", config_path);

  auto* check = app.add_subcommand("check", "validate case and threshold files");
  std::vector<std::string> files;
  check->add_option("files", files)->required();

  auto* run = app.add_subcommand("run", "run a case: measure, print ratios and the verdict");
  std::vector<std::string> case_files;
  RunOptions ro;
  run->add_option("cases", case_files, "case files (cases/*.yaml)")->required();
  run->add_option("--nodes", ro.nodes, "process counts (default: the case's)")->check(CLI::Range(2, 4096));
  run->add_option("--deployment", ro.deployments, "deployments (default: the case's)")
      ->check(CLI::IsMember(DeploymentNames()));
  run->add_option("--out", ro.out, "results directory (default: the build's results/)");
  run->add_option("--thresholds", ro.thresholds_dir, "directory of threshold files (default: the source tree's)")
      ->check(CLI::ExistingDirectory);
  run->add_option("--timeout", ro.timeout, "seconds for each test (default: the case's timeout)")
      ->check(CLI::PositiveNumber);
  run->add_option("--inject-fault", ro.fault, "make rank 1 exit or hang at the second grid point (tests the "
                                              "failure handling); corrupt (kind: partitioned): flip one received "
                                              "byte of the partitioned mechanism (tests the data check)")
      ->check(CLI::IsMember({"none", "exit", "hang", "corrupt"}));
  run->add_option("--reference", ro.reference,
                  "replace the library's progression with a reference behaviour whose ratios are known "
                  "(ground truth; none = the library's own; other parameters from the case's reference: section)")
      ->check(CLI::IsMember([] {
        std::vector<std::string> v = ReferenceBehaviourNames();
        v.insert(v.begin(), "none");
        return v;
      }()));
  run->add_option("--set-env", ro.set_env,
                  "NAME=VALUE for the run's processes, after the deployment's environment (overrides it; "
                  "recorded in results.json deployment_environment); repeatable")
      ->allow_extra_args(false)  // one NAME=VALUE per --set-env: case files may follow
      ->check([](const std::string& s) {
        return s.find('=') == std::string::npos || s.front() == '=' ? "expected NAME=VALUE, got '" + s + "'"
                                                                    : std::string();
      });
  run->add_option("--baseline", ro.baseline,
                  "nightly mode: compare each test with the same test under this results directory (an earlier "
                  "run's --out) and fail on a regression (see nbcguard compare)");
  run->add_option("--clock-sync", ro.clock_sync, "clock synchronization of the harness: flat (every rank against "
                                                 "rank 0 in turn) or tree (log2 p stages); results.json clock_sync")
      ->check(CLI::IsMember(ClockSyncMethodNames()));
  run->add_option("--calibration-cache", ro.calibration_cache,
                  "directory of calibrated sizes reused by later runs of the same configuration (default: the "
                  "build's NBCGUARD_CALIBRATION_CACHE); off: calibrate from scratch, read and write nothing");
  bool no_confirm = false;
  run->add_flag("--no-confirm", no_confirm,
                "judge each test on one job: do not measure again the points whose limits the first job "
                "exceeded beyond noise (by default a second, independent job must agree before a limit fails)");
  run->add_option("--config", config_path);

  auto* clock = app.add_subcommand("clock-check", "inject a clock offset and drift on rank 1 (or every rank) and "
                                                  "measure how well sync recovers it");
  ClockCheckOptions cco;
  std::string inject_ranks = "1";
  clock->add_option("--nodes", cco.nodes)->check(CLI::Range(2, 4096));
  clock->add_option("--inject-offset", cco.offset, "seconds");
  clock->add_option("--inject-drift", cco.drift, "relative (1e-4 = 100 ppm)");
  clock->add_option("--inject-ranks", inject_ranks, "1: rank 1 only; all: every rank but 0, rank-dependent "
                                                    "(offsets of alternating sign, 1-1.75x the given values)")
      ->check(CLI::IsMember({"1", "all"}));
  clock->add_option("--clock-sync", cco.clock_sync, "flat (every rank against rank 0 in turn) or tree (log2 p stages)")
      ->check(CLI::IsMember(ClockSyncMethodNames()));
  clock->add_option("--wait", cco.wait, "seconds of probing after the sync");
  clock->add_option("--max-error-us", cco.bound_us, "fail when the clock error exceeds this (0 = report only)");
  clock->add_option("--out", out);
  clock->add_option("--config", config_path);

  auto* scaling = app.add_subcommand("clock-scaling", "benchmark: clock sync time and error against rank count, "
                                                      "flat vs tree, every rank's clock perturbed; fits and predicts "
                                                      "the growth");
  ClockScalingOptions cso;
  scaling->add_option("--nodes", cso.nodes, "rank counts")->delimiter(',')->check(CLI::Range(2, 4096));
  scaling->add_option("--clock-sync", cso.methods, "methods compared")->delimiter(',')
      ->check(CLI::IsMember(ClockSyncMethodNames()));
  scaling->add_option("--repetitions", cso.repetitions, "runs per method and rank count (medians)")
      ->check(CLI::Range(1, 1000));
  scaling->add_option("--inject-offset", cso.offset, "seconds (rank-dependent around it)");
  scaling->add_option("--inject-drift", cso.drift, "relative (rank-dependent around it)");
  scaling->add_option("--wait", cso.wait, "seconds of probing after the sync");
  scaling->add_option("--predict", cso.predict, "rank counts the fitted models are evaluated at")->delimiter(',')
      ->check(CLI::PositiveNumber);
  scaling->add_option("--out", out);
  scaling->add_option("--config", config_path);

  auto* verify = app.add_subcommand("verify", "run every registered collective and verify its results");
  int verify_nodes = 2;
  std::string verify_fault = "none";
  verify->add_option("--nodes", verify_nodes)->check(CLI::Range(2, 4096));
  verify->add_option("--inject-fault", verify_fault, "corrupt: flip one delivered element (tests the check itself)")
      ->check(CLI::IsMember({"none", "corrupt"}));
  verify->add_option("--out", out);
  verify->add_option("--config", config_path);

  auto* bcast = app.add_subcommand(
      "bcast-check", "check the synchronized-clock time of MPI_Ibcast against the acknowledgement method of "
                     "de Supinski and Karonis (max over destinations of E_i - RTT_i/2)");
  BcastCheckOptions bo;
  std::vector<std::string> bcast_sizes = {"64KiB", "1MiB", "4MiB", "16MiB"};
  bcast->add_option("--nodes", bo.nodes)->check(CLI::Range(2, 4096));
  bcast->add_option("--sizes", bcast_sizes, "message sizes, e.g. 4KiB,1MiB")->delimiter(',')
      ->check([](const std::string& s) {
        std::string error;
        return ParseBytes(s, &error) ? std::string() : error;
      });
  bcast->add_option("--repetitions", bo.repetitions, "samples per method and size")->check(CLI::Range(3, 100000));
  bcast->add_option("--inject-offset", bo.inject_offset, "seconds added to rank 1's clock (the acknowledgement "
                                                         "method does not need the clocks; the global time must "
                                                         "not notice either)");
  bcast->add_option("--inject-drift", bo.inject_drift, "relative rate error of rank 1's clock (1e-4 = 100 ppm)");
  bcast->add_option("--relative-tolerance", bo.relative, "noise allowance, fraction of the time")
      ->check(CLI::Range(0.0, 1.0));
  bcast->add_option("--out", bo.out);
  bcast->add_option("--config", config_path);

  auto* cost = app.add_subcommand("cost", "the tool's own cost per test: time in clock sync, calibration, measurement "
                                          "and r_mpi_impact jobs, size evaluations per target, calibration cache use");
  std::vector<std::string> cost_dirs;
  cost->add_option("dirs", cost_dirs, "directories searched for results.json")->required()->check(CLI::ExistingDirectory);
  auto* envelope = app.add_subcommand("envelope", "summarize results.json files: ranges of each ratio (for setting thresholds)");
  std::vector<std::string> dirs;
  envelope->add_option("dirs", dirs, "directories searched for results.json")->required()->check(CLI::ExistingDirectory);
  bool per_point = false;
  envelope->add_flag("--per-point", per_point, "one line per case, grid point and ratio (run-to-run spread)");

  auto* plot = app.add_subcommand("plot", "draw the heat-maps and r_mpi_impact bars (PNG, SVG) next to results.json files");
  std::vector<std::string> plot_paths;
  plot->add_option("paths", plot_paths, "results.json files or directories searched for them")->required();

  auto* summary = app.add_subcommand("summary", "one summary of every results.json under a run directory");
  std::string summary_dir, summary_format = "text", summary_output;
  summary->add_option("dir", summary_dir, "run directory (searched for results.json)")->required();
  summary->add_option("--format", summary_format, "text (terminal), markdown (CI logs, merge requests), html "
                                                  "(one static page with the heat-maps), openmetrics (GitLab "
                                                  "metrics report)")
      ->check(CLI::IsMember({"text", "markdown", "html", "openmetrics"}));
  summary->add_option("--output", summary_output, "file to write (default: standard output)");

  auto* compare = app.add_subcommand("compare", "compare a run's results.json files with a baseline run's: "
                                                "regressions beyond tolerance and noise (exit 1), improvements, "
                                                "what could not be compared");
  std::string compare_base, compare_run;
  CompareCommandOptions co;
  compare->add_option("baseline", compare_base, "baseline results directory (searched for results.json)")->required();
  compare->add_option("run", compare_run, "new results directory")->required();
  compare->add_option("--tolerance-overhead", co.compare.tolerance_absolute,
                      "absolute worsening of r_overhead and r_comm that counts (default 0.25)");
  compare->add_option("--tolerance-relative", co.compare.tolerance_relative,
                      "relative worsening of r_comp_slowdown and r_mpi_impact that counts (default 0.15)");
  compare->add_option("--alpha", co.compare.alpha, "significance level of the one-sided rank-sum test (default 0.01)");
  compare->add_option("--format", co.format)->check(CLI::IsMember({"text", "markdown"}));
  compare->add_option("--json", co.json_out, "also write the comparison as JSON to this file");
  compare->add_flag("--ignore-reference", co.compare.ignore_reference,
                    "compare tests run with different reference behaviours (only for testing the comparison "
                    "itself: such tests are otherwise not comparable)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return *compare && rc != 0 ? kUsage : rc;  // compare: usage errors exit 2
  }
  if (*envelope) return Envelope(dirs, per_point);
  if (*cost) return CostCommand(cost_dirs, std::cout);
  if (*plot) return PlotCommand(plot_paths);
  if (*summary) return SummaryCommand(summary_dir, summary_format, summary_output);
  if (*compare) return CompareCommand(compare_base, compare_run, co);
  ForwardTerminationToChildren();
  if (*check) return Check(files);
  Config cfg;
  std::string error;
  if (!LoadConfig(config_path, &cfg, &error)) {
    std::cerr << "nbcguard: " << error << "\n";
    return 2;
  }
  if (*list) return List(cfg, format);
  if (*run) {
    ro.confirm = !no_confirm;
    // Worst outcome over the cases; SKIP only when every case skipped.
    int worst = kSkip;
    for (const std::string& f : case_files) {
      const int rc = Run(cfg, f, ro);
      if (rc == kSkip) continue;
      if (worst == kSkip || worst == kPass || (rc != kPass && rc > worst)) worst = rc;
    }
    return worst;
  }
  if (*clock) {
    cco.inject_all = inject_ranks == "all";
    cco.out = out;
    return ClockCheck(cfg, cco);
  }
  if (*scaling) {
    cso.out = out;
    return ClockScaling(cfg, cso);
  }
  if (*verify) return Verify(cfg, verify_nodes, out, verify_fault);
  if (*bcast) {
    for (const std::string& s : bcast_sizes) bo.bytes.push_back(*ParseBytes(s, nullptr));  // checked by CLI
    return BcastCheck(cfg, bo);
  }
  return 2;
}
