#include "results_view.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "nbcguard/results_io.h"
#include "nbcguard/units.h"

namespace nbcguard::report {

using json = nlohmann::json;

namespace {

double Num(const json& j, const char* key) {
  if (!j.is_object()) return NAN;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : NAN;
}

std::string Str(const json& j, const char* key, const std::string& fallback = "") {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

plot::Ratio ReadRatio(const json& p, const char* key) {
  if (!p.contains(key)) return {};
  const json& s = p[key];
  return {Num(s, "median"), Num(s, "ci_lo"), Num(s, "ci_hi")};
}

std::vector<double> Numbers(const json& j, const char* key) {
  std::vector<double> v;
  if (j.is_object() && j.contains(key) && j[key].is_array())
    for (const json& x : j[key])
      if (x.is_number()) v.push_back(x.get<double>());
  return v;
}

// The first line of MPI_Get_library_version, its runs of blanks folded:
// MPICH aligns "MPICH Version:      4.0.2" with spaces or tabs, which a
// title or a table cell would show as a gap.
std::string FirstLineOf(const std::string& s) {
  std::string line;
  for (char c : s.substr(0, s.find('\n'))) {
    const bool blank = c == ' ' || c == '\t' || c == '\r';
    if (blank && (line.empty() || line.back() == ' ')) continue;
    line += blank ? ' ' : c;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

}  // namespace

std::string CaseView::Title() const {
  if (IsPartitioned()) return "partitioned communication, " + std::to_string(nodes) + " ranks";
  std::string t = collective.empty() ? name : collective;
  t += ", " + std::to_string(nodes) + " ranks";
  if (threads > 0) t += " x " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  t += ", deployment " + deployment;
  return t;
}

int CaseView::ValidPoints() const {
  if (IsPartitioned())
    return static_cast<int>(std::count_if(partitioned.begin(), partitioned.end(),
                                          [](const PartitionedRow& r) { return r.valid; }));
  return static_cast<int>(
      std::count_if(points.begin(), points.end(), [](const plot::Point& p) { return p.valid; }));
}

int CaseView::TotalPoints() const {
  return static_cast<int>(IsPartitioned() ? partitioned.size() : points.size());
}

double CaseView::LowestPartitioned() const {
  double lowest = NAN;
  for (const PartitionedRow& r : partitioned)
    if (r.valid && r.r_partitioned.present() && !(lowest <= r.r_partitioned.median))
      lowest = r.r_partitioned.median;
  return lowest;
}

double CaseView::WorstOverhead() const {
  double worst = NAN;
  for (const plot::Point& p : points)
    if (p.valid && p.overhead.present() && !(worst >= p.overhead.median)) worst = p.overhead.median;
  return worst;
}

double CaseView::MaxImpact() const {
  double top = NAN;
  for (const plot::ImpactBar& b : impact)
    if (b.impact.present() && !(top >= b.impact.median)) top = b.impact.median;
  return top;
}

namespace {
double MaxOver(const std::vector<plot::Point>& points, plot::Ratio plot::Point::*ratio) {
  double top = NAN;
  for (const plot::Point& p : points)
    if (p.valid && (p.*ratio).present() && !(top >= (p.*ratio).median)) top = (p.*ratio).median;
  return top;
}
}  // namespace

const plot::Point* CaseView::SpeedPoint() const {
  const plot::Point* best = nullptr;
  for (const plot::Point& p : points)
    if (p.valid && p.bandwidth.present() && (!best || p.comm > best->comm)) best = &p;
  return best;
}

double CaseView::MaxCpuBusyNbc() const { return MaxOver(points, &plot::Point::cpu_nbc); }
double CaseView::MaxCpuBusyBlocking() const { return MaxOver(points, &plot::Point::cpu_blocking); }

namespace {

// What the case and its environment say about the run as a whole.
void ReadCaseFields(const json& j, CaseView* v) {
  const json& c = j.contains("case") ? j["case"] : json::object();
  v->name = Str(c, "name", "?");
  v->collective = Str(c, "collective");
  v->deployment = Str(c, "deployment", "?");
  v->nodes = c.is_object() && c.contains("nodes") && c["nodes"].is_number() ? c["nodes"].get<int>() : 0;
  v->threads =
      c.is_object() && c.contains("threads") && c["threads"].is_number() ? c["threads"].get<int>() : 0;
  v->implementation = Str(j, "implementation_label");
  const json& env = j.contains("environment") ? j["environment"] : json::object();
  v->library = FirstLineOf(Str(env, "library_version", "unknown library"));
  v->planned_comm = Numbers(env, "comm_targets");
  v->planned_comp = Numbers(env, "comp_targets");
  if (j.contains("reference") && j["reference"].is_object())
    v->reference = Str(j["reference"], "behaviour", "unknown");

  v->kind = Str(j, "kind", "overlap");
}

// One row of the partitioned grid.
PartitionedRow ReadPartitionedRow(const json& p) {
  static const char* const kMechanismNames[4] = {"send", "isend", "persistent", "partitioned"};
  PartitionedRow r;
  r.partition = Str(p, "partition", "?");
  r.partition_bytes = p.is_object() && p.contains("partition_bytes") && p["partition_bytes"].is_number()
                          ? p["partition_bytes"].get<std::uint64_t>()
                          : 0;
  r.partitions = p.is_object() && p.contains("partitions") && p["partitions"].is_number()
                     ? p["partitions"].get<int>()
                     : 0;
  r.order = Str(p, "order", "?");
  r.threads =
      p.is_object() && p.contains("threads") && p["threads"].is_number() ? p["threads"].get<int>() : 0;
  r.valid = p.is_object() && p.value("valid", false);
  r.invalid_reason = Str(p, "invalid_reason");
  const json& bw =
      p.is_object() && p.contains("bandwidth_bytes_per_s") ? p["bandwidth_bytes_per_s"] : json::object();
  for (int m = 0; m < 4; ++m)
    r.bandwidth[m] =
        bw.is_object() && bw.contains(kMechanismNames[m]) ? Num(bw[kMechanismNames[m]], "median") : NAN;
  r.best_other = Str(p, "best_other", "-");
  r.r_partitioned = ReadRatio(p, "r_partitioned");
  r.verdict = Str(p, "verdict");
  return r;
}

// A partitioned run has its own shape: no targets, no r_mpi_impact; read the grid rows.
void ReadPartitioned(const json& j, CaseView* v) {
  const json& env = j.contains("environment") ? j["environment"] : json::object();
  v->deployment = "partitioned";
  v->library = FirstLineOf(Str(j, "library_version", Str(env, "library_version", "unknown library")));
  for (const json& p : j["points"]) v->partitioned.push_back(ReadPartitionedRow(p));
}

// One point of the overlap grid.
plot::Point ReadPoint(const json& p) {
  plot::Point pt;
  pt.comm = Num(p, "comm_target");
  pt.comp = Num(p, "comp_target");
  pt.valid = p.value("valid", false);
  pt.invalid_reason = Str(p, "invalid_reason");
  pt.diagnosis = Str(p, "diagnosis");
  pt.overhead = ReadRatio(p, "r_overhead");
  pt.comm_ratio = ReadRatio(p, "r_comm");
  pt.slowdown = ReadRatio(p, "r_comp_slowdown");
  pt.impact = ReadRatio(p, "r_mpi_impact");
  pt.cpu_nbc = ReadRatio(p, "cpu_busy_nbc");
  pt.cpu_blocking = ReadRatio(p, "cpu_busy_blocking");
  if (p.contains("collective_speed") && p["collective_speed"].is_object()) {
    const json& speed = p["collective_speed"];
    pt.bytes_per_rank = Num(speed, "bytes_per_rank");
    pt.time = ReadRatio(speed, "time_s");
    pt.bandwidth = ReadRatio(speed, "bandwidth_bytes_per_s");
  }
  return pt;
}

// r_mpi_impact per computation time: the run's own list when it has one
// (it carries the reason when a size has no ratio), else the points'
// (every point of one computation time shares that time's ratio).
void ReadImpact(const json& j, CaseView* v) {
  if (v->IsPartitioned()) {
    // No computation, so no r_mpi_impact bars.
  } else if (j.contains("mpi_impact") && j["mpi_impact"].is_array() && !j["mpi_impact"].empty()) {
    for (const json& m : j["mpi_impact"]) {
      plot::ImpactBar b;
      b.comp = Num(m, "comp_target");
      b.impact.median = Num(m, "r_mpi_impact");
      if (m.contains("ci") && m["ci"].is_array() && m["ci"].size() == 2) {
        b.impact.lo = m["ci"][0].is_number() ? m["ci"][0].get<double>() : NAN;
        b.impact.hi = m["ci"][1].is_number() ? m["ci"][1].get<double>() : NAN;
      }
      b.error = Str(m, "error");
      if (!b.impact.present() && b.error.empty()) b.error = "not measured";
      v->impact.push_back(b);
    }
  } else {
    std::map<double, plot::ImpactBar> by_comp;
    for (const plot::Point& p : v->points) {
      plot::ImpactBar& b = by_comp[p.comp];
      b.comp = p.comp;
      if (!b.impact.present() && p.impact.present()) b.impact = p.impact;
    }
    for (auto& [comp, b] : by_comp) {
      if (!b.impact.present()) b.error = "not measured";
      v->impact.push_back(b);
    }
  }
  std::sort(v->impact.begin(), v->impact.end(),
            [](const plot::ImpactBar& a, const plot::ImpactBar& b) { return a.comp < b.comp; });
}

// The full message of a limit failure starts with the rule's file and
// line; a table cell needs where, what and why: "comm=8ms comp=2ms:
// r_overhead 2.35 > max 1.50 (contention)".
std::string LimitLine(const json& f) {
  const bool is_max = Str(f, "kind", "max") == "max";
  const std::string at = !Str(f, "at").empty() ? Str(f, "at")
                                               : "comm=" + FormatDuration(Num(f, "comm_target")) +
                                                     " comp=" + FormatDuration(Num(f, "comp_target"));
  return at + ": " + Str(f, "metric", "?") + " " + plot::FormatRatio(Num(f["measured"], "median")) +
         (is_max ? " > max " : " < min ") + plot::FormatRatio(Num(f, "limit")) +
         (Str(f, "diagnosis").empty() ? "" : " (" + Str(f, "diagnosis") + ")");
}

// The test's outcome as RunOne decides it: a conformance or harness
// failure outranks the threshold verdict (which may still read PASS for
// the points that completed).
void ReadVerdict(const json& j, CaseView* v) {
  const json& verdict = j.contains("verdict") ? j["verdict"] : json::object();
  v->verdict_summary = Str(verdict, "summary", "no verdict");
  const std::string conformance = Str(j, "conformance_error"), harness = Str(j, "harness_error"),
                    no_mpi = Str(j, "no_mpi_error");
  const bool no_thresholds = Str(verdict, "threshold_file") == "(none)";
  if (!conformance.empty()) v->failures.push_back("conformance failure: " + conformance);
  if (!harness.empty()) v->failures.push_back(harness);
  if (no_thresholds)
    v->failures.push_back("no threshold file matches the running library (" + v->library + ")");
  std::string first_limit;
  if (verdict.is_object() && verdict.contains("failures") && verdict["failures"].is_array()) {
    for (const json& f : verdict["failures"]) {
      v->failures.push_back(Str(f, "message", "limit exceeded"));
      if (first_limit.empty() && f.contains("measured") && f.contains("limit")) first_limit = LimitLine(f);
    }
  }
  const bool outranked =
      !conformance.empty() || !harness.empty() || no_thresholds;  // failures before the limits
  if (!no_mpi.empty()) v->failures.push_back("r_mpi_impact: " + no_mpi);
  if (verdict.is_object() && verdict.contains("invalid") && verdict["invalid"].is_array())
    for (const json& s : verdict["invalid"])
      if (s.is_string()) v->failures.push_back(s.get<std::string>());
  if (verdict.is_object() && verdict.contains("within_noise") && verdict["within_noise"].is_array())
    for (const json& f : verdict["within_noise"]) v->within_noise.push_back(Str(f, "message"));

  // The comparison with a baseline (nightly): its confirmed regressions fail
  // the test, its undecided ones leave a passing verdict INCONCLUSIVE.
  std::vector<std::string> regressions, undecided;
  if (j.contains("baseline") && j["baseline"].is_object())
    for (const auto& [key, into] :
         {std::pair{"regressions", &regressions}, std::pair{"undecided", &undecided}})
      if (j["baseline"].contains(key) && j["baseline"][key].is_array())
        for (const json& s : j["baseline"][key])
          if (s.is_string()) into->push_back(s.get<std::string>());
  for (const std::string& r : regressions) v->failures.push_back("against the baseline: " + r);
  for (const std::string& r : undecided) v->failures.push_back("against the baseline, undecided: " + r);

  const bool verdict_pass = verdict.is_object() && verdict.value("pass", false);
  const bool verdict_undecided = verdict.is_object() && verdict.value("inconclusive", false);
  v->pass = verdict_pass && conformance.empty() && harness.empty() && no_mpi.empty() && !no_thresholds &&
            regressions.empty() && undecided.empty();
  v->inconclusive = !v->pass && !outranked && no_mpi.empty() && regressions.empty() &&
                    (verdict_undecided || (verdict_pass && !undecided.empty()));
  if (verdict.is_object() && verdict.contains("measured_again_points") &&
      verdict["measured_again_points"].is_array())
    v->measured_again = static_cast<int>(verdict["measured_again_points"].size());
  v->status = !conformance.empty() ? "CONFORMANCE FAILURE"
              : !harness.empty()   ? "HARNESS FAILED"
              : v->pass            ? "PASS"
              : v->inconclusive    ? "INCONCLUSIVE"
                                   : "FAIL";
  if (!v->pass && v->failures.empty()) v->failures.push_back(v->verdict_summary);
  if (!v->failures.empty())
    v->headline = !outranked && !first_limit.empty() ? first_limit : v->failures.front();
}

}  // namespace

bool ReadCase(const json& j, CaseView* out, std::string* error) {
  if (!j.is_object() || !j.contains("points") || !j["points"].is_array()) {
    if (error) *error = "not an nbcguard results file (no \"points\" array)";
    return false;
  }
  CaseView v;
  ReadCaseFields(j, &v);
  if (v.IsPartitioned()) {
    ReadPartitioned(j, &v);
  } else {
    for (const json& p : j["points"]) v.points.push_back(ReadPoint(p));
  }
  ReadImpact(j, &v);
  ReadVerdict(j, &v);
  *out = std::move(v);
  return true;
}

bool ReadCaseFile(const std::filesystem::path& file, json* results, CaseView* out, std::string* error) {
  ResultsRead read = ReadResults(file);
  if (!read.ok()) {
    if (error) *error = read.error;
    return false;
  }
  *results = std::move(read.doc->json);
  return ReadCase(*results, out, error);
}

}  // namespace nbcguard::report
