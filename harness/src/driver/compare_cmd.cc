#include "compare_cmd.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <tuple>

#include "history_cmd.h"
#include "nbcguard/driver_common.h"
#include "nbcguard/results_io.h"
#include "nbcguard/units.h"
#include "results_files.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace nbcguard {
namespace {

std::string Fixed(double v, int precision = 2) {
  if (!std::isfinite(v)) return "-";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}

std::string Cell(const Spread& s) { return Fixed(s.median) + " [" + Fixed(s.lo) + "," + Fixed(s.hi) + "]"; }

std::string PValue(double p) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.2g", p);
  return buf;
}

// One run's side of a speed change: "1.61MB in 500us (3.22GB/s)"; a
// collective that moves no data: "0B in 2.1ms".
std::string SpeedCell(const CollectiveSpeed& s) {
  const std::string bw = s.bandwidth.n > 0 ? " (" + FormatBandwidth(s.bandwidth.median) + ")" : "";
  return FormatDecimalBytes(s.bytes_per_rank) + " in " + FormatDuration(s.time.median) + bw;
}

// "+0.63 (tolerance 0.25)", "+23 % (tolerance 15 %)", or for the speed
// "-71 % (tolerance -67 % / +200 %)".
std::string Difference(const Change& c) {
  auto sign = [](double v) { return v >= 0 ? "+" : ""; };
  if (c.speed)
    return sign(c.difference) + Fixed(100 * c.difference, 0) + " % (tolerance " +
           Fixed(100 * (1 / (1 + c.tolerance) - 1), 0) + " % / +" + Fixed(100 * c.tolerance, 0) + " %)";
  if (IsRelative(c.metric))
    return sign(c.difference) + Fixed(100 * c.difference, 0) + " % (tolerance " +
           Fixed(100 * c.tolerance, 0) + " %)";
  return sign(c.difference) + Fixed(c.difference) + " (tolerance " + Fixed(c.tolerance) + ")";
}

std::string RuleText(const CompareOptions& o) {
  return "worse (or better) by more than " + Fixed(o.tolerance_absolute) + " on r_overhead and r_comm, " +
         Fixed(100 * o.tolerance_relative, 0) + " % on r_comp_slowdown and r_mpi_impact, with a one-sided " +
         "Mann-Whitney U p < " + PValue(o.alpha) + " on the per-repetition samples (r_mpi_impact: rounds) " +
         "shifted by that tolerance; the collective alone: speed (bytes per rank / time) lower (or higher) by " +
         "more than a factor " + Fixed(1 + o.tolerance_speed) + ", the same test on its per-sample times";
}

// "sd 0.08 over 14 nights", "sd 6 % over 14 nights": a series' between-run spread.
std::string BetweenText(const Change& c) {
  const bool relative = IsRelative(c.metric);
  const double sd = relative ? std::exp(c.between.sigma) - 1 : c.between.sigma;
  return "sd " + (relative ? Fixed(100 * sd, 0) + " %" : Fixed(sd)) + " over " +
         std::to_string(c.between.nights) + " nights";
}

std::string Line(const char* tag, const Change& c) {
  if (c.speed)
    return std::string(tag) + " collective " + (c.difference < 0 ? "slower" : "faster") + ": " +
           c.test.Name() + " " + PointName(c.comm_target, c.comp_target) + ": " + SpeedCell(c.base_speed) +
           " -> " + SpeedCell(c.now_speed) + ", " + Difference(c) + ", p = " + PValue(c.p);
  return std::string(tag) + " " + c.test.Name() + " " + PointName(c.comm_target, c.comp_target) + " " +
         MetricName(c.metric) + ": baseline " + Cell(c.base) + " -> new " + Cell(c.now) + ", " +
         Difference(c) + ", p = " + PValue(c.p) + ", diagnosis " + (c.diagnosis.empty() ? "-" : c.diagnosis) +
         (c.between.nights > 0 && !c.within_between ? ", beyond the between-run " + BetweenText(c) : "");
}

// Why a worsening past the tolerance did not count.
std::string NoiseLine(const Change& c, double alpha) {
  if (c.within_between)
    return Line("within noise:", c) +
           " (within the spread between runs: two runs of this point differ by up to " +
           Fixed(UpperNormalQuantile(alpha) * std::sqrt(2.0)) + " x the history's " + BetweenText(c) + ")";
  std::string why = "not significant: p = " + PValue(c.p) + " >= " + PValue(alpha);
  const double best = SmallestP(c.now.n, c.base.n);
  if (best >= alpha)
    why += "; " + std::to_string(c.now.n) + " and " + std::to_string(c.base.n) +
           " samples cannot reach it (smallest possible p " + PValue(best) + ")";
  return Line("within noise:", c) + " (" + why + ")";
}

std::string UnmatchedLine(const Unmatched& u) {
  return "not compared: " + u.test + (u.where.empty() ? "" : " " + u.where) + ": " + u.reason;
}

std::string Summary(const Comparison& c) {
  return std::string(c.regressions.empty() ? "no regression" : "REGRESSION") + ": " +
         std::to_string(c.regressions.size()) + " regression(s), " + std::to_string(c.improvements.size()) +
         " improvement(s), " + std::to_string(c.within_noise.size()) + " worsening(s) within noise, " +
         std::to_string(c.unmatched.size()) + " item(s) not compared; compared " + std::to_string(c.tests) +
         " test(s), " + std::to_string(c.points) + " grid point(s), " + std::to_string(c.checks) +
         " ratio check(s), " + std::to_string(c.speed_checks) + " speed check(s)";
}

// What a two-run comparison cannot say about its ratio regressions whose
// series the history knows on too few nights ("" when there are none).
std::string SpreadUnknownNote(const Comparison& c, const CompareOptions& o) {
  const auto n = std::count_if(c.regressions.begin(), c.regressions.end(),
                               [](const Change& ch) { return ch.spread_unknown; });
  if (n == 0) return "";
  return std::to_string(n) + " of the " + std::to_string(c.regressions.size()) +
         " regression(s) are of ratios the results history knows on fewer than " +
         std::to_string(o.min_history_nights) +
         " nights (--history): their spread between runs is unknown, so two runs cannot tell them from a "
         "phase of the machine; nbcguard run --baseline holds them undecided (INCONCLUSIVE)";
}

void PrintText(std::ostream& out, const Comparison& c, const CompareOptions& o,
               const std::vector<std::string>& unreadable) {
  for (const Change& ch : c.regressions) out << Line("REGRESSION", ch) << "\n";
  if (const std::string note = SpreadUnknownNote(c, o); !note.empty())
    out << "between-run spread: " << note << "\n";
  for (const Change& ch : c.improvements) out << Line("improvement", ch) << "\n";
  for (const Change& ch : c.within_noise) out << NoiseLine(ch, o.alpha) << "\n";
  for (const Unmatched& u : c.unmatched) out << UnmatchedLine(u) << "\n";
  for (const std::string& u : unreadable) out << "not compared: unreadable " << u << "\n";
  for (const std::string& n : c.notes) out << "note: " << n << "\n";
  out << "summary: " << Summary(c) << "\n";
}

void PrintMarkdown(std::ostream& out, const Comparison& c, const CompareOptions& o,
                   const std::vector<std::string>& unreadable) {
  auto table = [&](const char* title, const std::vector<Change>& changes) {
    out << "\n### " << title << " (" << changes.size() << ")\n\n";
    if (changes.empty()) return;
    out << "| test | comm x comp | ratio | baseline median [95% CI] | new median [95% CI] | change | p | diagnosis (new) |\n"
        << "|---|---|---|---|---|---|---|---|\n";
    for (const Change& ch : changes)
      out << "| " << ch.test.Name() << " | " << PointName(ch.comm_target, ch.comp_target) << " | "
          << (ch.speed ? "collective speed" : MetricName(ch.metric)) << " | "
          << (ch.speed ? SpeedCell(ch.base_speed) : Cell(ch.base)) << " | "
          << (ch.speed ? SpeedCell(ch.now_speed) : Cell(ch.now)) << " | " << Difference(ch) << " | "
          << PValue(ch.p) << " | " << ch.diagnosis << " |\n";
  };
  table("Regressions", c.regressions);
  if (const std::string note = SpreadUnknownNote(c, o); !note.empty())
    out << "\nBetween-run spread: " << note << ".\n";
  table("Improvements", c.improvements);
  if (!c.within_noise.empty()) {
    out << "\n### Worse beyond the tolerance but within noise (" << c.within_noise.size() << ")\n\n";
    for (const Change& ch : c.within_noise)
      out << "- " << NoiseLine(ch, o.alpha).substr(std::string("within noise: ").size()) << "\n";
  }
  out << "\n### Not compared (" << c.unmatched.size() + unreadable.size() << ")\n\n";
  for (const Unmatched& u : c.unmatched)
    out << "- `" << u.test << "`" << (u.where.empty() ? "" : " " + u.where) << ": " << u.reason << "\n";
  for (const std::string& u : unreadable) out << "- unreadable " << u << "\n";
  if (!c.notes.empty()) {
    out << "\n### Notes\n\n";
    for (const std::string& n : c.notes) out << "- " << n << "\n";
  }
  out << "\n**" << Summary(c) << "**\n";
}

json SpreadBrief(const Spread& s) {
  auto f = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  return {{"median", f(s.median)}, {"ci_lo", f(s.lo)}, {"ci_hi", f(s.hi)}, {"n", s.n}};
}

json SpeedBrief(const CollectiveSpeed& s) {
  return {{"bytes_per_rank", static_cast<std::uint64_t>(s.bytes_per_rank)},
          {"time_s", SpreadBrief(s.time)},
          {"bandwidth_bytes_per_s", SpreadBrief(s.bandwidth)}};
}

// A speed change: "ratio" is "collective_speed", baseline and new are the
// bandwidths (the times for a collective that moves no data), difference
// the change in speed, and "speed" has both runs' sizes, times and bandwidths.
json ChangesJson(const std::vector<Change>& changes, const CompareOptions& o) {
  json a = json::array();
  for (const Change& c : changes) {
    json j = {{"test", c.test.Name()},
              {"comm_target", std::isnan(c.comm_target) ? json(nullptr) : json(c.comm_target)},
              {"comp_target", c.comp_target},
              {"ratio", c.speed ? "collective_speed" : MetricName(c.metric)},
              {"baseline", SpreadBrief(c.base)},
              {"new", SpreadBrief(c.now)},
              {"difference", c.difference},
              {"relative", c.speed || IsRelative(c.metric)},
              {"tolerance", c.tolerance},
              {"p", c.p},
              {"diagnosis", c.diagnosis},
              {"line", Line("", c).substr(1)}};
    if (c.speed) j["speed"] = {{"baseline", SpeedBrief(c.base_speed)}, {"new", SpeedBrief(c.now_speed)}};
    if (c.spread_unknown)
      j["between_run_spread"] = {
          {"known", false}, {"history_nights", c.history_nights}, {"needed", o.min_history_nights}};
    else if (c.between.nights > 0)
      j["between_run_spread"] = {
          {"known", true}, {"history_nights", c.between.nights}, {"sigma", c.between.sigma}};
    a.push_back(j);
  }
  return a;
}

json ComparisonJson(const Comparison& c, const CompareOptions& o,
                    const std::vector<std::string>& unreadable) {
  json unmatched = json::array();
  for (const Unmatched& u : c.unmatched)
    unmatched.push_back({{"test", u.test}, {"where", u.where}, {"reason", u.reason}});
  return {{"schema", "nbcguard-compare/1"},
          {"options",
           {{"tolerance_absolute", o.tolerance_absolute},
            {"tolerance_relative", o.tolerance_relative},
            {"tolerance_speed", o.tolerance_speed},
            {"alpha", o.alpha},
            {"ignore_reference", o.ignore_reference}}},
          {"regressions", ChangesJson(c.regressions, o)},
          {"improvements", ChangesJson(c.improvements, o)},
          {"within_noise", ChangesJson(c.within_noise, o)},
          {"unmatched", unmatched},
          {"unreadable", unreadable},
          {"notes", c.notes},
          {"summary",
           {{"regressions", c.regressions.size()},
            {"improvements", c.improvements.size()},
            {"within_noise", c.within_noise.size()},
            {"unmatched", c.unmatched.size()},
            {"tests", c.tests},
            {"points", c.points},
            {"checks", c.checks},
            {"speed_checks", c.speed_checks},
            {"text", Summary(c)}}}};
}

// Why a results file is not compared although it is readable ("" when it
// is compared): partitioned tests have bandwidths, not the overlap ratios
// the comparison tests.
std::string NotComparedKind(const json& j) {
  if (j.is_object() && j.value("kind", std::string()) == "partitioned")
    return "partitioned results (kind: partitioned) are not compared: nbcguard compare reads overlap results; "
           "their thresholds judge them";
  return "";
}

// One file through the common reader (schema checked), then into the
// comparison's typed form.
bool ReadTestResults(const fs::path& path, TestResults* out, std::string* why, bool* other_kind) {
  *other_kind = false;
  const ResultsRead read = ReadResults(path);
  if (!read.ok()) {
    *why = read.error;
    return false;
  }
  const json& j = read.doc->json;
  if (const std::string kind = NotComparedKind(j); !kind.empty()) {
    *why = kind;
    *other_kind = true;
    return false;
  }
  std::string error;
  std::optional<TestResults> t = ParseTestResults(j, path.string(), &error);
  if (!t) {
    *why = error;
    return false;
  }
  *out = std::move(*t);
  return true;
}

// The options with the between-run spreads of the history at `history`
// (empty: $NBCGUARD_HISTORY; neither: unchanged, *note empty). On a
// database error, min_history_nights is -1 and *note the error: a history
// that was asked for and cannot be read must not silently judge without it.
CompareOptions WithHistory(CompareOptions o, const std::string& history, const std::string& system,
                           std::string* note) {
  note->clear();
  const std::string url = HistoryUrl(history);
  if (url.empty()) return o;
  if (!LoadBetweenRunSpreads(url, system, &o.between, note)) o.min_history_nights = -1;
  else if (!o.between.empty())
    *note += "; a change must also exceed the spread between runs where a series has " +
             std::to_string(o.min_history_nights) + " nights or more";
  return o;
}

}  // namespace

bool LoadResultsDir(const std::string& dir, std::vector<TestResults>* out,
                    std::vector<std::string>* unreadable, std::string* error,
                    std::vector<std::string>* skipped) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    *error = dir + " is not a directory";
    return false;
  }
  std::vector<std::string> missing;
  for (const fs::path& p : FindResultsFiles({dir}, &missing)) {
    TestResults t;
    std::string why;
    bool other_kind = false;
    if (ReadTestResults(p, &t, &why, &other_kind)) out->push_back(std::move(t));
    else if (!other_kind) unreadable->push_back(why);  // names the file and the field
    else if (skipped) skipped->push_back(p.string() + ": " + why);
  }
  return true;
}

int CompareCommand(const std::string& baseline_dir, const std::string& run_dir,
                   const CompareCommandOptions& o) {
  const CompareOptions& co = o.compare;
  if (!(co.alpha > 0 && co.alpha < 1) || !(co.tolerance_absolute >= 0) || !(co.tolerance_relative >= 0) ||
      !(co.tolerance_speed >= 0)) {
    std::cerr << "nbcguard compare: --alpha must be in (0, 1) and tolerances >= 0\n";
    return kUsage;
  }
  std::vector<TestResults> base, now;
  std::vector<std::string> unreadable, skipped;
  for (const auto& [dir, into, what] :
       {std::make_tuple(baseline_dir, &base, "baseline"), std::make_tuple(run_dir, &now, "new run")}) {
    std::string error;
    const std::size_t before = unreadable.size();
    if (!LoadResultsDir(dir, into, &unreadable, &error, &skipped)) {
      std::cerr << "nbcguard compare: " << what << " directory: " << error << "\n";
      return kUsage;
    }
    if (into->empty()) {
      std::cerr << "nbcguard compare: no results.json found under " << what << " directory " << dir
                << (unreadable.size() > before ? " (only unreadable ones: " + unreadable[before] + ")"
                    : !skipped.empty()         ? " (only ones not compared: " + skipped.back() + ")"
                                               : "")
                << "\n";
      return kUsage;
    }
  }
  std::string history_note;
  const CompareOptions co_history = WithHistory(co, o.history, o.system, &history_note);
  if (co_history.min_history_nights < 0) {
    std::cerr << "nbcguard compare: " << history_note << "\n";
    return kUsage;
  }
  const Comparison c = Compare(base, now, co_history);
  std::ostream& out = std::cout;
  if (o.format == "markdown") {
    out << "## nbcguard compare\n\nbaseline `" << baseline_dir << "` (" << base.size() << " results), new `"
        << run_dir << "` (" << now.size() << " results). A regression: " << RuleText(co_history) << ".\n";
    if (!history_note.empty()) out << "\n" << history_note << ".\n";
    PrintMarkdown(out, c, co_history, unreadable);
    for (const std::string& k : skipped) out << "- skipped " << k << "\n";
  } else {
    out << "nbcguard compare: baseline " << baseline_dir << " (" << base.size() << " results) vs new "
        << run_dir << " (" << now.size() << " results)\n"
        << "a regression: " << RuleText(co_history) << "\n";
    if (!history_note.empty()) out << history_note << "\n";
    PrintText(out, c, co_history, unreadable);
    for (const std::string& k : skipped) out << "skipped: " << k << "\n";
  }
  const int rc = c.regressions.empty() ? kPass : kFail;
  if (!o.json_out.empty()) {
    json j = ComparisonJson(c, co_history, unreadable);
    j["skipped"] = skipped;
    j["baseline"] = baseline_dir;
    j["run"] = run_dir;
    j["exit_code"] = rc;
    if (const std::string e = WriteFileAtomically(o.json_out, j.dump(1) + "\n"); !e.empty()) {
      std::cerr << "nbcguard compare: " << e << "\n";
      return kUsage;
    }
  }
  return rc;
}

std::vector<std::string> UnreadableAtSamePlace(const std::vector<std::string>& unreadable,
                                               const std::string& results_path) {
  // The last three directories of a results path: <case>/n<ranks>/<deployment>.
  auto place = [](const fs::path& file) {
    std::vector<std::string> parts;
    fs::path dir = file.parent_path();
    for (int i = 0; i < 3 && !dir.empty() && dir.has_filename(); ++i, dir = dir.parent_path())
      parts.push_back(dir.filename().string());
    return parts;
  };
  const std::vector<std::string> mine = place(results_path);
  std::vector<std::string> out;
  for (const std::string& why : unreadable) {
    // `why` starts with the file's path: "<file>: <error>".
    const std::size_t at = why.find("/results.json: ");
    if (at == std::string::npos) continue;
    if (place(why.substr(0, at + std::string("/results.json").size())) == mine) out.push_back(why);
  }
  return out;
}

std::string RegressionLine(const Change& c) { return Line("REGRESSION", c); }

std::string SpreadUnknownReason(const Change& c, const CompareOptions& o) {
  return "the between-run spread of this ratio is unknown: the history holds " +
         std::to_string(c.history_nights) + " of the " + std::to_string(o.min_history_nights) +
         " nights it needs";
}

BaselineCheck CheckAgainstBaseline(const json& results, const std::string& results_path,
                                   const std::string& baseline_dir, std::ostream& out) {
  std::string error;
  const std::optional<TestResults> mine = ParseTestResults(results, results_path, &error);
  if (!mine) {
    out << "baseline: cannot compare: " << error << "\n";
    return {};
  }
  const std::string name = mine->key.Name();
  std::vector<TestResults> all, matching;
  std::vector<std::string> unreadable;
  if (!LoadResultsDir(baseline_dir, &all, &unreadable, &error)) {
    out << "baseline: no baseline for this test (" << name << "): " << error << "\n";
    return {};
  }
  std::error_code ec;
  for (TestResults& t : all)
    if (t.key == mine->key && !fs::equivalent(t.source, results_path, ec)) matching.push_back(std::move(t));
  // A baseline file at this test's place (<case>/n<ranks>/<deployment>/)
  // that cannot be read: a corrupt or truncated baseline, not a new test.
  const std::vector<std::string> own_unreadable = UnreadableAtSamePlace(unreadable, results_path);
  for (const std::string& why : own_unreadable) {
    const std::size_t end = why.find("/results.json: ") + std::string("/results.json").size();
    out << "baseline: " << why.substr(0, end) << " is unreadable: " << why.substr(end + 2) << "\n";
  }
  if (matching.empty()) {
    if (!own_unreadable.empty()) {
      out << "FAIL " << name << ": no usable baseline for this test under " << baseline_dir
          << ": its results.json is unreadable\n";
      return {kFail, std::nullopt, {}};
    }
    out << "baseline: no baseline for this test (" << name << ") under " << baseline_dir << "\n";
    return {};
  }
  for (const TestResults& t : matching) out << "baseline: comparing with " << t.source << "\n";
  std::string history_note;
  const CompareOptions o = WithHistory(CompareOptions{}, "", "", &history_note);
  if (o.min_history_nights < 0) {
    out << "baseline: cannot compare: " << history_note << "\n"
        << "FAIL " << name << ": the baseline comparison could not read the results history\n";
    return {kFail, std::nullopt, o};
  }
  const Comparison c = Compare(matching, {*mine}, o);
  out << "baseline: a regression is " << RuleText(o) << "\n";
  if (!history_note.empty()) out << "baseline: " << history_note << "\n";
  PrintText(out, c, o, {});
  if (const std::string e =
          WriteFileAtomically(fs::path(results_path).parent_path() / "baseline-comparison.json",
                              ComparisonJson(c, o, {}).dump(1) + "\n");
      !e.empty()) {
    out << "error: " << e << "\n";
    return {kHarnessFailed, c, o};
  }
  const int rc = c.regressions.empty() ? kPass : kFail;
  return {rc, c, o};
}

}  // namespace nbcguard
