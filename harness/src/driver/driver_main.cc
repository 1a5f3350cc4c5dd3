// nbcguard: runs overlap tests from case files and turns them into verdicts.
//   nbcguard run cases/ibcast.yaml [--nodes 2] [--deployment basic]
//   nbcguard list --format ctest        (what CTest includes)
//   nbcguard check FILE...              (validate case / threshold files)
//   nbcguard clock-check / verify       (self-checks of the harness)
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "launcher.h"
#include "nbcguard/case_spec.h"
#include "nbcguard/library_version.h"
#include "nbcguard/stats.h"
#include "nbcguard/threshold_spec.h"
#include "nbcguard/units.h"
#include "nbcguard/verdict.h"
#include "reduce.h"
#include "report.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace nbcguard {
namespace {

enum ExitCode { kPass = 0, kFail = 1, kUsage = 2, kHarnessFailed = 3, kConformance = 4, kSkip = 77 };

std::string DefaultConfigPath() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
    if (fs::exists(dir / "nbcguard-config.json")) return (dir / "nbcguard-config.json").string();
  return "nbcguard-config.json";
}

std::string Precise(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
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

std::string FirstLine(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
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
    for (int n : c.nodes) {
      for (Deployment d : c.deployments) {
        const std::string name = cfg.implementation + "." + c.name + ".n" + std::to_string(n) + "." + ToString(d);
        std::string labels = "cases;" + c.name + ";" + c.collective + ";n" + std::to_string(n) + ";" +
                             ToString(d) + ";" + cfg.implementation;
        for (const std::string& l : c.labels) labels += ";" + l;
        std::cout << "add_test(" << Bracket(name) << " " << Bracket(self) << " run " << Bracket(f.string())
                  << " --nodes " << n << " --deployment " << ToString(d) << " --config "
                  << Bracket(cfg.path) << ")\n"
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
  std::string skip;
};

// What each deployment means for each library (paper 000 section 7).
Deploy Plan(Deployment d, const std::string& impl) {
  Deploy p;
  p.env["OMP_WAIT_POLICY"] = "PASSIVE";  // idle compute threads must not spin against MPI
  if (d == Deployment::kBasic) return p;
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

// r_mpi_impact's reference: the same computation in processes that never
// load MPI, started by the same launcher (same placement, same load).
NoMpiTimes RunWithoutMpi(const Config& cfg, int nodes, int threads, const std::vector<int>& sizes, int reps,
                         const fs::path& dir, const std::map<std::string, std::string>& env, double timeout,
                         std::string* error) {
  NoMpiTimes out;
  if (sizes.empty()) return out;
  const fs::path cdir = dir / "no-mpi";
  fs::remove_all(cdir);
  fs::create_directories(cdir);
  std::string list;
  for (int n : sizes) list += (list.empty() ? "" : ",") + std::to_string(n);
  ProcessResult r = RunProcess(
      LaunchCommand(cfg, nodes, cfg.compute,
                    {"--threads", std::to_string(threads), "--sizes", list, "--repetitions", std::to_string(reps),
                     "--out-dir", cdir.string()}),
      env, timeout);
  if (r.exit_code != 0) {
    *error = r.timed_out ? "computation without MPI timed out" : "computation without MPI failed (exit " +
                                                                       std::to_string(r.exit_code) + ")";
    return out;
  }
  std::map<int, std::vector<std::vector<double>>> per_size;
  for (const auto& e : fs::directory_iterator(cdir)) {
    std::ifstream f(e.path());
    json j = json::parse(f, nullptr, false);
    if (j.is_discarded()) continue;
    for (const json& res : j["results"]) per_size[res["n"]].push_back(res["times"].get<std::vector<double>>());
  }
  for (auto& [n, procs] : per_size) {
    std::vector<double> flat;
    for (auto& p : procs) flat.insert(flat.end(), p.begin(), p.end());
    out[n] = SlowestPerRep(flat, static_cast<int>(procs.size()));
  }
  return out;
}

int RunOne(const Config& cfg, const CaseSpec& c, int nodes, Deployment d, const std::vector<ThresholdSpec>& specs,
           const std::string& out_root) {
  const Deploy plan = Plan(d, cfg.implementation);
  const std::string id = c.name + " n" + std::to_string(nodes) + " " + ToString(d);
  if (!plan.skip.empty()) {
    std::cout << "SKIP " << id << ": " << plan.skip << "\n";
    return kSkip;
  }
  const fs::path dir = fs::path(out_root) / c.name / ("n" + std::to_string(nodes)) / ToString(d);
  fs::create_directories(dir);
  const fs::path raw_path = dir / "raw.jsonl";
  fs::remove(raw_path);

  const auto started = std::chrono::steady_clock::now();
  auto left = [&] {
    // Keep 10 s of the case's timeout for reducing and reporting.
    return c.timeout - 10 - std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  std::vector<std::string> args = {"--mode", "overlap", "--collective", c.collective, "--comm", Join(c.comm_times),
                                   "--comp", Join(c.comp_times), "--repetitions", std::to_string(c.repetitions),
                                   "--threads", std::to_string(c.threads), "--reserve", std::to_string(plan.reserve),
                                   "--out", raw_path.string()};
  const std::vector<std::string> cmd = LaunchCommand(cfg, nodes, cfg.harness, args);
  std::cerr << "nbcguard: " << id << ": " << ShellQuote(cmd) << "\n";
  ProcessResult hr = RunProcess(cmd, plan.env, std::max(1.0, left()));

  RawRun raw = ReadRaw(raw_path.string());
  for (const json* s : RecordsOfType(raw, "skip")) {
    std::cout << "SKIP " << id << ": " << (*s)["reason"].get<std::string>() << "\n";
    return kSkip;
  }
  std::string harness_error;
  if (hr.timed_out)
    harness_error = "harness did not finish within the case timeout (" + FormatDuration(c.timeout) +
                    "): a hung collective or rank; completed points are kept";
  else if (hr.exit_code != 0 && hr.exit_code != kConformance)
    harness_error = "harness failed (exit " + std::to_string(hr.exit_code) + "); completed points are kept";

  int threads = 0;
  for (const json* t : RecordsOfType(raw, "threads")) threads = (*t)["threads"];
  std::vector<int> sizes;
  for (const json* p : RecordsOfType(raw, "passive")) sizes.push_back((*p)["n"]);
  std::string nompi_error;
  NoMpiTimes nompi;
  if (harness_error.empty())
    nompi = RunWithoutMpi(cfg, nodes, threads, sizes, c.repetitions, dir, plan.env, std::max(1.0, left()),
                          &nompi_error);

  const Reduction red = Reduce(raw, nompi);
  RunInfo info;
  info.case_name = c.name;
  info.case_file = c.file;
  info.collective = c.collective;
  info.deployment = ToString(d);
  info.implementation_label = cfg.implementation;
  info.nodes = nodes;
  info.threads = threads;
  info.launch_command = ShellQuote(cmd);
  info.deployment_env = plan.env;
  const std::string version = raw.context.is_object() ? raw.context.value("library_version", "") : "";
  info.library_version = FirstLine(version);

  const LibraryId lib = IdentifyLibrary(version);
  const ThresholdSpec* spec = SelectThresholds(specs, lib);
  Verdict v;
  int rc = kPass;
  if (spec) {
    info.threshold_file = spec->file;
    v = Evaluate(red.points, TestContext{c.collective, nodes, d, c.labels}, spec->rules);
    rc = v.pass ? kPass : kFail;
  } else {
    info.threshold_file = "(none)";
    v.pass = false;
  }
  PrintTable(std::cout, info, red, v);
  PrintCTestMeasurements(std::cout, red, v);
  json results = ResultsJson(info, raw, red, v);
  if (!nompi_error.empty()) results["no_mpi_error"] = nompi_error;
  if (!harness_error.empty()) results["harness_error"] = harness_error;
  std::ofstream(dir / "results.json") << results.dump(1) << "\n";
  std::cout << "results: " << (dir / "results.json").string() << "\n";

  if (!red.conformance_error.empty()) {
    std::cout << "FAIL " << id << ": conformance failure: " << red.conformance_error << "\n";
    return kConformance;
  }
  if (!harness_error.empty()) {
    std::cout << "FAIL " << id << ": " << harness_error << "\n";
    return kHarnessFailed;
  }
  if (!spec) {
    std::cout << "FAIL " << id << ": no threshold file in " << cfg.thresholds_dir << " matches the running library ("
              << (lib.implementation.empty() ? "unknown" : lib.implementation) << " " << lib.version
              << ", from: " << info.library_version << "); add one with 'implementation: " << lib.implementation
              << "' and a 'versions:' range containing " << lib.version << "\n";
    return kUsage;
  }
  if (!nompi_error.empty()) {
    std::cout << "FAIL " << id << ": " << nompi_error << "\n";
    return kHarnessFailed;
  }
  return rc;
}

int Run(const Config& cfg, const std::string& case_file, const std::vector<int>& nodes_opt,
        const std::vector<std::string>& deploy_opt, const std::string& out) {
  Parsed<CaseSpec> p = LoadCaseSpec(case_file);
  if (!p.ok()) {
    std::cerr << p.ErrorText() << "\n";
    return kUsage;
  }
  const CaseSpec& c = *p.value;
  std::vector<ThresholdSpec> specs;
  if (!LoadThresholds(cfg, &specs)) return kUsage;
  std::vector<int> nodes = nodes_opt.empty() ? c.nodes : nodes_opt;
  std::vector<Deployment> deps;
  if (deploy_opt.empty()) deps = c.deployments;
  for (const std::string& s : deploy_opt) deps.push_back(*ParseDeployment(s));  // checked by CLI
  int worst = kPass;
  bool any_ran = false;
  for (int n : nodes)
    for (Deployment d : deps) {
      const int rc = RunOne(cfg, c, n, d, specs, out.empty() ? cfg.results_dir : out);
      if (rc == kSkip) continue;
      any_ran = true;
      if (rc != kPass && (worst == kPass || rc > worst)) worst = rc;
    }
  return any_ran ? worst : kSkip;
}

// --------------------------------------------------------- self-checks --

int ClockCheck(const Config& cfg, int nodes, double offset, double drift, double wait, double bound_us,
               const std::string& out) {
  const fs::path dir = fs::path(out.empty() ? cfg.results_dir : out) / "clock-check" / ("n" + std::to_string(nodes));
  fs::create_directories(dir);
  const fs::path raw_path = dir / "raw.jsonl";
  fs::remove(raw_path);
  const auto cmd = LaunchCommand(cfg, nodes, cfg.harness,
                                 {"--mode", "clock-check", "--inject-rank", "1", "--inject-offset", Precise(offset),
                                  "--inject-drift", Precise(drift), "--clock-check-wait", Precise(wait),
                                  "--out", raw_path.string()});
  ProcessResult r = RunProcess(cmd, {}, 120 + wait);
  RawRun raw = ReadRaw(raw_path.string());
  if (r.exit_code != 0 || !raw.ended) {
    std::cout << "FAIL: harness clock-check " << (r.timed_out ? "timed out" : "failed") << " (exit "
              << r.exit_code << ")\n";
    return kHarnessFailed;
  }
  const std::vector<ClockFit> fits = FitClocks(raw);
  const Reduction red = Reduce(raw, {});
  std::vector<double> extrap, interp;
  const auto probes = RecordsOfType(raw, "clock_probes");
  if (probes.empty()) return kHarnessFailed;
  // All ranks share CLOCK_MONOTONIC here, which is rank 0's (reference) clock:
  // the truth every model is checked against.
  const json& per_rank = (*probes[0])["probes"];
  for (std::size_t rk = 1; rk < per_rank.size(); ++rk)
    for (const json& p : per_rank[rk]) {
      const double local = p[0], mono = p[1], rt = p[2];
      extrap.push_back(std::abs(rt - mono));
      interp.push_back(std::abs(fits[rk].model.ToGlobal(local) - mono));
    }
  const Spread e = Summarize(extrap), i = Summarize(interp);
  const ClockFit& f1 = fits.at(1);
  json report = {{"injected", {{"rank", 1}, {"offset_s", offset}, {"drift_ppm", drift * 1e6}}},
                 {"recovered", {{"drift_ppm", f1.model.drift() * 1e6}, {"points", f1.points},
                                {"residual_rms_s", f1.residual_rms}, {"min_rtt_s", f1.min_rtt}}},
                 {"error_extrapolated_s", {{"median", e.median}, {"max", e.max}}},
                 {"error_interpolated_s", {{"median", i.median}, {"max", i.max}}},
                 {"probe_window_s", wait}, {"barrier_skew", red.barrier},
                 {"library_version", FirstLine(raw.context.value("library_version", ""))}};
  std::ofstream(dir / "clock-check.json") << report.dump(1) << "\n";
  std::printf("clock-check on %d ranks (%s)\n", nodes, FirstLine(raw.context.value("library_version", "")).c_str());
  std::printf("  injected on rank 1: offset %.6f s, drift %.1f ppm\n", offset, drift * 1e6);
  std::printf("  recovered drift %.3f ppm (rank 1 clock runs at 1+d: expect %.3f), min RTT %.2f us\n",
              f1.model.drift() * 1e6, drift / (1 + drift) * 1e6, f1.min_rtt * 1e6);
  std::printf("  error vs true time over %.1f s after sync: extrapolated median %.3f us max %.3f us; "
              "interpolated median %.3f us max %.3f us\n",
              wait, e.median * 1e6, e.max * 1e6, i.median * 1e6, i.max * 1e6);
  if (red.barrier.is_object())
    std::printf("  exit skew over %d rounds: synchronized barrier median %.3f us max %.3f us; "
                "MPI_Barrier median %.3f us max %.3f us\n",
                red.barrier["synchronized"].value("rounds", 0), red.barrier["synchronized"].value("median", NAN) * 1e6,
                red.barrier["synchronized"].value("max", NAN) * 1e6, red.barrier["mpi_barrier"].value("median", NAN) * 1e6,
                red.barrier["mpi_barrier"].value("max", NAN) * 1e6);
  std::printf("<DartMeasurement type=\"numeric/double\" name=\"clock error extrapolated max us\">%g</DartMeasurement>\n", e.max * 1e6);
  std::printf("<DartMeasurement type=\"numeric/double\" name=\"clock error interpolated max us\">%g</DartMeasurement>\n", i.max * 1e6);
  if (bound_us > 0 && (!(e.max * 1e6 <= bound_us) || !(i.max * 1e6 <= bound_us))) {
    std::printf("FAIL: clock error exceeds %.2f us\n", bound_us);
    return kFail;
  }
  return kPass;
}

int Verify(const Config& cfg, int nodes, const std::string& out) {
  const fs::path dir = fs::path(out.empty() ? cfg.results_dir : out) / "verify" / ("n" + std::to_string(nodes));
  fs::create_directories(dir);
  const fs::path raw_path = dir / "raw.jsonl";
  fs::remove(raw_path);
  ProcessResult r = RunProcess(LaunchCommand(cfg, nodes, cfg.harness, {"--mode", "verify", "--out", raw_path.string()}),
                               {}, 300);
  RawRun raw = ReadRaw(raw_path.string());
  std::set<std::string> verified;
  for (const json* v : RecordsOfType(raw, "verified")) verified.insert((*v)["collective"].get<std::string>());
  for (const json* f : RecordsOfType(raw, "conformance_failure"))
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
  std::string case_file;
  std::vector<int> nodes;
  std::vector<std::string> deployments;
  run->add_option("case", case_file, "case file (cases/*.yaml)")->required();
  run->add_option("--nodes", nodes, "process counts (default: the case's)");
  run->add_option("--deployment", deployments, "deployments (default: the case's)")
      ->check(CLI::IsMember(DeploymentNames()));
  run->add_option("--out", out, "results directory (default: the build's results/)");
  run->add_option("--config", config_path);

  auto* clock = app.add_subcommand("clock-check", "inject a clock offset and drift on rank 1 and measure how well sync recovers it");
  int clock_nodes = 2;
  double offset = 0.05, drift = 100e-6, wait = 2.0, bound = 0;
  clock->add_option("--nodes", clock_nodes)->check(CLI::Range(2, 4096));
  clock->add_option("--inject-offset", offset, "seconds");
  clock->add_option("--inject-drift", drift, "relative (1e-4 = 100 ppm)");
  clock->add_option("--wait", wait, "seconds of probing after the sync");
  clock->add_option("--max-error-us", bound, "fail when the clock error exceeds this (0 = report only)");
  clock->add_option("--out", out);
  clock->add_option("--config", config_path);

  auto* verify = app.add_subcommand("verify", "run every registered collective and verify its results");
  int verify_nodes = 2;
  verify->add_option("--nodes", verify_nodes)->check(CLI::Range(2, 4096));
  verify->add_option("--out", out);
  verify->add_option("--config", config_path);

  CLI11_PARSE(app, argc, argv);
  if (*check) return Check(files);
  Config cfg;
  std::string error;
  if (!LoadConfig(config_path, &cfg, &error)) {
    std::cerr << "nbcguard: " << error << "\n";
    return 2;
  }
  if (*list) return List(cfg, format);
  if (*run) return Run(cfg, case_file, nodes, deployments, out);
  if (*clock) return ClockCheck(cfg, clock_nodes, offset, drift, wait, bound, out);
  if (*verify) return Verify(cfg, verify_nodes, out);
  return 2;
}
