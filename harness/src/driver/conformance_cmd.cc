#include "conformance_cmd.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "nbcguard/deployment.h"
#include "nbcguard/driver_common.h"
#include "nbcguard/results_io.h"
#include "nbcguard/threshold_spec.h"
#include "thresholds.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace nbcguard {

namespace {

// The program's JSON lines so far: the library, the outcome of each check
// by plan index, the check started last, whether a check hung and whether
// the plan ended.
struct ConformanceLog {
  std::string library_version;
  std::size_t checks = 0;
  std::map<std::size_t, json> outcomes;
  std::optional<json> started;  // the last "started" record without an outcome
  std::optional<std::size_t> hung;
  bool ended = false;
  std::string unknown_check;  // a check name the driver does not know (program and driver disagree)
};

ConformanceLog ReadConformanceLog(const fs::path& path) {
  ConformanceLog log;
  std::ifstream in(path);
  const auto& known = ConformanceCheckNames();
  for (std::string line; std::getline(in, line);) {
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;  // a line cut by a crash
    if (j.contains("library_version")) {
      // A start of the program: what an earlier start left unfinished is
      // already judged.
      log.library_version = j["library_version"].get<std::string>();
      log.checks = j.value("checks", std::size_t{0});
      log.started.reset();
      log.hung.reset();
    } else if (j.contains("started")) {
      log.started = j;
    } else if (j.contains("status")) {
      const std::string name = j.value("collective", "");
      if (std::find(known.begin(), known.end(), name) == known.end()) log.unknown_check = name;
      log.outcomes[j["index"].get<std::size_t>()] = j;
      if (log.started && (*log.started)["index"] == j["index"]) log.started.reset();
    } else if (j.contains("hung")) {
      log.hung = j["hung"].get<std::size_t>();
    } else if (j.contains("end")) {
      log.ended = true;
    }
  }
  return log;
}

// The program beside the harness (build tree and installation alike).
fs::path ConformanceProgram(const Config& cfg) {
  return fs::path(cfg.harness).parent_path() / "nbcguard-conformance";
}

// Applies the known failures of the running library: a failure an entry
// covers becomes "known"; a check an entry covers that passed is "stale"
// (the entry must go: the tier fails until it does).
void ApplyKnown(const ThresholdSpec* spec, const std::string& version,
                std::map<std::size_t, json>* outcomes) {
  if (!spec) return;
  for (auto& [index, rec] : *outcomes) {
    for (const KnownFailure& k : spec->known_conformance_failures) {
      if (!k.Matches(rec["collective"], rec["variant"], version)) continue;
      // Another symptom than the known one is a failure of its own.
      if (rec["status"] == "fail" && !k.message.empty() &&
          rec.value("message", "").find(k.message) == std::string::npos)
        continue;
      const std::string where = spec->file + ":" + std::to_string(k.where.line);
      if (rec["status"] == "fail" || (rec["status"] == "skip" && rec.value("not_run", false))) {
        rec["status"] = "known";
        rec["known"] = {{"reason", k.reason}, {"entry", where}};
      } else if (rec["status"] == "pass") {
        rec["status"] = "stale";
        rec["message"] = "passes, but " + where + " lists it as a known failure (" + k.reason +
                         "): the library was fixed; remove the entry";
      }
      break;
    }
  }
}

void PrintTable(const std::map<std::size_t, json>& outcomes, std::map<std::string, int>* totals) {
  std::map<std::string, std::map<std::string, int>> per;  // collective -> status -> count
  std::vector<std::string> order;
  for (const auto& [index, rec] : outcomes) {
    const std::string c = rec["collective"], status = rec["status"];
    if (!per.count(c)) order.push_back(c);
    ++per[c][status];
    ++(*totals)[status];
    if (status == "pass") continue;
    std::printf(
        "%-6s %s %s: %s%s\n",
        status == "fail"    ? "FAIL"
        : status == "known" ? "KNOWN"
        : status == "stale" ? "STALE"
                            : "SKIP",
        c.c_str(), rec["variant"].get<std::string>().c_str(), rec.value("message", "").c_str(),
        status == "known" ? (" [known: " + rec["known"]["reason"].get<std::string>() + "]").c_str() : "");
  }
  std::printf("%-22s %5s %5s %5s %5s %5s\n", "check", "pass", "fail", "known", "stale", "skip");
  for (const std::string& c : order) {
    auto& s = per[c];
    std::printf("%-22s %5d %5d %5d %5d %5d\n", c.c_str(), s["pass"], s["fail"], s["known"], s["stale"],
                s["skip"]);
  }
}

// The running library's version string, from one rank of the program;
// only asked when a threshold file of this build's implementation lists
// checks that hang (they must not be started at all).
std::string LibraryVersion(const Config& cfg, const std::vector<ThresholdSpec>& specs, const fs::path& dir) {
  bool needed = false;
  for (const ThresholdSpec& s : specs)
    for (const KnownFailure& k : s.known_conformance_failures)
      needed = needed || (k.hangs && s.implementation == cfg.implementation);
  if (!needed) return "";
  const fs::path path = dir / "library-version.jsonl";
  fs::remove(path);
  RunProcess(
      LaunchCommand(cfg, 1, ConformanceProgram(cfg).string(), {"--library-version", "--out", path.string()}),
      {}, 120);
  return ReadConformanceLog(path).library_version;
}

}  // namespace

const std::vector<std::string>& InjectedBugNames() {
  static const std::vector<std::string> names = {
      "bcast-root-zero",
      "gather-root-world",
      "allreduce-in-place-ignored",
      "gatherv-displ-off-by-one",
      "alltoallv-contiguous-displs",
      "reduce-scatter-uniform",
      "noncomm-reversed",
      "scan-exclusive",
      "neighbor-swap",
      "test-no-progress",
      "send-buffer-scratch",
      "struct-holes-written",
      "wait-early",
      "count-truncated",
      "persistent-data-at-init",
  };
  return names;
}

std::string PreloadBug(const std::string& bug, Config* cfg) {
  const fs::path bugs = fs::path(cfg->reference_library).parent_path() / "libnbcguard-bugs.so";
  if (!fs::exists(bugs)) return bugs.string() + " does not exist (built with the reference library)";
  cfg->harness_env["LD_PRELOAD"] = bugs.string();
  cfg->harness_env["NBCGUARD_BUG"] = bug;
  return "";
}

int Conformance(const Config& cfg, const ConformanceOptions& o) {
  const fs::path dir = fs::path(o.out.empty() ? cfg.results_dir : o.out) / "conformance" /
                       (o.tier + "-n" + std::to_string(o.ranks) + (o.bug.empty() ? "" : "-bug-" + o.bug));
  fs::create_directories(dir);
  const fs::path raw = dir / "conformance.jsonl";
  fs::remove(raw);
  const fs::path program = ConformanceProgram(cfg);
  if (!fs::exists(program)) {
    std::cerr << "error: " << program.string() << " does not exist (built with the harness; " << cfg.path
              << ")\n";
    return kHarnessFailed;
  }
  const double bound = o.check_bound > 0 ? o.check_bound : 30;
  // With an injected bug, the ranks run with libnbcguard-bugs.so preloaded
  // (beside the reference library).
  Config launch = cfg;
  launch.harness = program.string();
  launch.harness_env.clear();
  if (!o.bug.empty()) {
    if (const std::string e = PreloadBug(o.bug, &launch); !e.empty()) {
      std::cerr << "error: " << e << "\n";
      return kHarnessFailed;
    }
    std::cout << "conformance: with the injected bug " << o.bug << " (" << launch.harness_env["LD_PRELOAD"]
              << ")\n";
  }
  std::string checks;
  for (const std::string& c : o.checks) checks += (checks.empty() ? "" : ",") + c;
  // The library is known only once the program runs; the threshold file is
  // chosen the way `run` chooses it, from the build's library version.
  std::vector<ThresholdSpec> specs;
  LoadThresholds(cfg, &specs);
  const std::string version = LibraryVersion(cfg, specs, dir);
  std::vector<std::string> not_run;
  const LibraryId known_lib = IdentifyLibrary(version, specs);
  if (const ThresholdSpec* known = version.empty() ? nullptr : SelectThresholds(specs, known_lib))
    for (const KnownFailure& k : known->known_conformance_failures)
      if (k.hangs && (!k.versions || k.versions->Contains(known_lib.version))) {
        std::string words;
        for (const std::string& w : k.variant) words += (words.empty() ? "" : " ") + w;
        not_run.push_back(k.collective + "|" + words);
      }
  // Started again after each check that hung or ended the job; each start
  // skips the checks before the one after it.
  std::size_t from = 0;
  std::map<std::size_t, json> outcomes;
  ConformanceLog log;
  std::string harness_error;
  for (int start = 0; start < 64; ++start) {
    std::vector<std::string> args = {"--tier",        o.tier,        "--out",
                                     raw.string(),    "--from",      std::to_string(from),
                                     "--check-bound", Precise(bound)};
    if (!checks.empty()) args.insert(args.end(), {"--collective", checks});
    for (const std::string& n : not_run) args.insert(args.end(), {"--not-run", n});
    const auto cmd = LaunchCommand(launch, o.ranks, program.string(), args);
    if (start == 0) std::cerr << "nbcguard: conformance: " << DescribeLaunch(launch, cmd) << "\n";
    const ProcessResult r =
        RunProcess(cmd, {}, bound * 3 + 600, [&] { return ReadConformanceLog(raw).ended; });
    log = ReadConformanceLog(raw);
    if (log.ended || r.interrupted) break;
    std::optional<std::size_t> stopped = log.hung;
    if (!stopped && log.started) stopped = (*log.started)["index"].get<std::size_t>();
    if (!stopped || *stopped < from) {  // nothing started: the program itself failed
      harness_error = "nbcguard-conformance " + std::string(r.timed_out ? "timed out" : "failed") +
                      " (exit " + std::to_string(r.exit_code) + ") before its first check";
      break;
    }
    const json started = log.started ? *log.started : json::object();
    json rec = {
        {"index", *stopped},
        {"collective", started.value("started", std::string("?"))},
        {"variant", started.value("variant", std::string("?"))},
        {"status", "fail"},
        {"message",
         log.hung ? "hung: not complete after " + Precise(bound) + " s on every rank"
                  : "the job ended during this check (exit " + std::to_string(r.exit_code) +
                        (r.exit_code > 128 ? ", signal " + std::to_string(r.exit_code - 128) : "") + ")"}};
    outcomes[*stopped] = rec;
    std::cout << "nbcguard: conformance: " << rec["collective"].get<std::string>() << " "
              << rec["variant"].get<std::string>() << ": " << rec["message"].get<std::string>()
              << "; starting again after it\n";
    from = *stopped + 1;
    if (from >= log.checks) break;
  }
  for (const auto& [index, rec] : log.outcomes) outcomes[index] = rec;
  if (!log.unknown_check.empty())
    harness_error = "the program ran a check the driver does not know: " + log.unknown_check;

  const LibraryId lib = IdentifyLibrary(log.library_version, specs);
  const ThresholdSpec* spec = SelectThresholds(specs, lib);
  ApplyKnown(spec, lib.version, &outcomes);

  std::printf("conformance: %s, %d ranks, tier %s, %zu of %zu checks\n",
              FirstLine(log.library_version).c_str(), o.ranks, o.tier.c_str(), outcomes.size(), log.checks);
  std::map<std::string, int> totals;
  PrintTable(outcomes, &totals);
  json doc = {{"library_version", log.library_version},
              {"injected_bug", o.bug},
              {"ranks", o.ranks},
              {"tier", o.tier},
              {"thresholds", spec ? spec->file : ""},
              {"checks", json::array()},
              {"complete", log.checks > 0 && outcomes.size() == log.checks}};
  for (const auto& [index, rec] : outcomes) doc["checks"].push_back(rec);
  doc["summary"] = totals;
  const std::string werr = WriteFileAtomically(dir / "conformance.json", doc.dump(1) + "\n");
  if (!werr.empty()) std::cerr << "error: " << werr << "\n";
  std::printf("conformance: %d passed, %d failed, %d known failures, %d stale, %d skipped\n", totals["pass"],
              totals["fail"], totals["known"], totals["stale"], totals["skip"]);
  std::printf("results: %s\n", (dir / "conformance.json").string().c_str());
  std::fflush(stdout);
  if (!harness_error.empty()) {
    std::cout << "FAIL: " << harness_error << "\n";
    return kHarnessFailed;
  }
  if (totals["fail"] + totals["stale"] > 0) return kConformance;
  if (!werr.empty() || !doc["complete"].get<bool>()) return kHarnessFailed;
  return totals["pass"] + totals["known"] > 0 ? kPass : kSkip;
}

}  // namespace nbcguard
