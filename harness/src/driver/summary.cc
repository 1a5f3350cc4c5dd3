#include "summary.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <tuple>

#include "../report/plots.h"
#include "../report/results_view.h"
#include "nbcguard/driver_common.h"
#include "nbcguard/openmetrics.h"
#include "nbcguard/plot_model.h"
#include "nbcguard/results_io.h"
#include "nbcguard/units.h"
#include "report.h"
#include "results_files.h"

namespace nbcguard {

namespace fs = std::filesystem;
using json = nlohmann::json;
using report::CaseView;

namespace {

// One results.json found under the summarized directory.
struct Entry {
  fs::path file;
  json results;
  CaseView view;
  std::string error;  // the file could not be read; view is empty then
  std::string Id() const {
    return error.empty() ? view.name + " n" + std::to_string(view.nodes) + " " + view.deployment : view.name;
  }
};

Entry Load(const fs::path& file) {
  Entry e;
  e.file = file;
  report::ReadCaseFile(file, &e.results, &e.view, &e.error);
  if (!e.error.empty()) {
    e.view.name = file.parent_path().string();
    std::error_code ec;
    e.view.status = fs::exists(file.parent_path() / kUnfinishedRunFile, ec) ? "UNFINISHED" : "UNREADABLE";
    e.view.failures = {e.error};
    e.view.headline = e.error;
  }
  return e;
}

std::vector<Entry> LoadAll(const std::vector<fs::path>& files) {
  std::vector<Entry> entries;
  entries.reserve(files.size());
  for (const fs::path& f : files) entries.push_back(Load(f));
  // Grouped the way a person scans a run: library, case, size, deployment.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.view.implementation, a.view.name, a.view.nodes, a.view.deployment) <
           std::tie(b.view.implementation, b.view.name, b.view.nodes, b.view.deployment);
  });
  return entries;
}

std::string Ratio(double v) { return plot::FormatRatio(v); }

std::string CaseLabel(const CaseView& v) {
  return v.reference.empty() ? v.name : v.name + " (REFERENCE " + v.reference + ")";
}

// "11/12": valid points of the first job over the grid; "11/12 (2 again in
// 2nd job)" when a second job measured points the first job's verdict could
// not use (invalid, or refused for rank imbalance though valid).
std::string PointsLabel(const CaseView& v) {
  return std::to_string(v.ValidPoints()) + "/" + std::to_string(v.TotalPoints()) +
         (v.measured_again > 0 ? " (" + std::to_string(v.measured_again) + " again in 2nd job)" : "");
}

// ------------------------------------------------------ partitioned tables --

// The grid of a partitioned test (its own shape: no r_overhead, no
// r_mpi_impact): bandwidth per mechanism, the best other, r_partitioned.
const std::vector<std::string>& PartitionedColumns() {
  static const std::vector<std::string> cols = {"partition",     "order",      "threads",     "send",
                                                "isend",         "persistent", "partitioned", "best other",
                                                "r_partitioned", "verdict"};
  return cols;
}

std::vector<std::vector<std::string>> PartitionedRows(const CaseView& v) {
  std::vector<std::vector<std::string>> rows;
  for (const report::PartitionedRow& r : v.partitioned) {
    std::vector<std::string> row = {r.partition, r.order, std::to_string(r.threads)};
    if (!r.valid) {
      row.push_back("INVALID: " + r.invalid_reason);
    } else {
      for (double bw : r.bandwidth) row.push_back(FormatBandwidth(bw));
      row.push_back(r.best_other);
      // Three significant digits: on MPICH 4.0 the ratio is a few hundredths.
      auto g3 = [](double x) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3g", x);
        return std::string(std::isfinite(x) ? buf : "-");
      };
      row.push_back(g3(r.r_partitioned.median) +
                    (std::isfinite(r.r_partitioned.lo) && std::isfinite(r.r_partitioned.hi)
                         ? " [" + g3(r.r_partitioned.lo) + ", " + g3(r.r_partitioned.hi) + "]"
                         : std::string()));
      row.push_back(r.verdict);
    }
    rows.push_back(row);
  }
  return rows;
}

void PartitionedText(std::ostream& out, const std::vector<Entry>& entries) {
  for (const Entry& e : entries) {
    if (!e.view.IsPartitioned()) continue;
    out << "\n"
        << e.Id() << " (" << e.view.library << "): effective bandwidth per mechanism, median; "
        << "r_partitioned = partitioned / best other [95% CI]\n";
    std::vector<std::vector<std::string>> rows = {PartitionedColumns()};
    for (auto& r : PartitionedRows(e.view)) rows.push_back(r);
    std::vector<std::size_t> w(PartitionedColumns().size(), 0);
    for (const auto& r : rows)
      for (std::size_t i = 0; i < r.size() && i + 1 < w.size(); ++i)
        w[i] = std::max(w[i], plot::Utf8Length(r[i]));
    for (const auto& r : rows) {
      std::string line;
      for (std::size_t i = 0; i < r.size(); ++i) {
        line += r[i];
        if (i + 1 < r.size()) line += std::string(w[i] - plot::Utf8Length(r[i]) + 2, ' ');
      }
      out << line << "\n";
    }
  }
}

void PartitionedMarkdown(std::ostream& out, const std::vector<Entry>& entries) {
  for (const Entry& e : entries) {
    if (!e.view.IsPartitioned()) continue;
    out << "\n### " << plot::MarkdownCell(e.Id()) << ": partitioned communication\n\n"
        << "Effective bandwidth per mechanism (median); r_partitioned = partitioned / best other, median "
           "[95% CI].\n\n|";
    for (const std::string& c : PartitionedColumns()) out << " " << c << " |";
    out << "\n|";
    for (std::size_t i = 0; i < PartitionedColumns().size(); ++i)
      out << (i >= 2 && i <= 6 ? " ---: |" : " --- |");
    out << "\n";
    for (const auto& r : PartitionedRows(e.view)) {
      out << "|";
      for (std::size_t i = 0; i < PartitionedColumns().size(); ++i)
        out << " " << (i < r.size() ? plot::MarkdownCell(r[i]) : std::string()) << " |";
      out << "\n";
    }
  }
}

std::string FirstFailure(const CaseView& v) { return v.headline; }

// An INCONCLUSIVE test is neither passed nor failed: counted on its own.
struct Counts {
  int pass = 0, fail = 0, inconclusive = 0;
};
Counts Count(const std::vector<Entry>& entries) {
  Counts c;
  for (const Entry& e : entries) (e.view.pass ? c.pass : e.view.inconclusive ? c.inconclusive : c.fail)++;
  return c;
}

std::string CountLine(const std::vector<Entry>& entries) {
  const Counts c = Count(entries);
  return std::to_string(entries.size()) + " test(s): " + std::to_string(c.pass) + " passed, " +
         std::to_string(c.fail) + " failed, " + std::to_string(c.inconclusive) + " inconclusive";
}

// Each test's reasons not to pass, the failed tests' first, then the
// INCONCLUSIVE ones' under their own heading: heading(undecided) once
// before a group, line(entry, reason) per reason.
constexpr const char* kUndecidedHeading =
    "INCONCLUSIVE (refused points, a limit exceeded in one job only, or a regression left undecided; not a pass)";
template <class Heading, class Line>
void ListReasons(const std::vector<Entry>& entries, Heading heading, Line line) {
  for (const bool undecided : {false, true}) {
    bool any = false;
    for (const Entry& e : entries) {
      if (e.view.failures.empty() || e.view.inconclusive != undecided) continue;
      if (!any) heading(undecided);
      any = true;
      for (const std::string& f : e.view.failures) line(e, f);
    }
  }
}

const std::vector<std::string>& Columns() {
  static const std::vector<std::string> cols = {"case",
                                                "ranks",
                                                "deployment",
                                                "library",
                                                "points",
                                                "worst r_overhead",
                                                "max r_mpi_impact",
                                                "max cpu_busy nbc / blocking",
                                                "collective alone (largest comm)",
                                                "verdict",
                                                "first failure"};
  return cols;
}
// Column indices the formats treat specially.
constexpr std::size_t kCpuColumn = 7, kSpeedColumn = 8, kVerdictColumn = 9, kFailureColumn = 10;

// "1.00 / 0.98": the largest median CPU-busy fraction of each kind; "-" for
// a run without them.
std::string CpuBusyPair(const CaseView& v) {
  const double nbc = v.MaxCpuBusyNbc(), blocking = v.MaxCpuBusyBlocking();
  if (!std::isfinite(nbc) && !std::isfinite(blocking)) return "-";
  return Ratio(nbc) + " / " + Ratio(blocking);
}

// "1.61MB in 502us: 3.21GB/s": the collective alone at the test's largest
// communication target (medians); "-" for results without it.
std::string SpeedCell(const CaseView& v) {
  const plot::Point* p = v.SpeedPoint();
  if (!p) return "-";
  return FormatDecimalBytes(p->bytes_per_rank) + " in " + FormatDuration(p->time.median) + ": " +
         FormatBandwidth(p->bandwidth.median);
}

std::vector<std::string> Row(const CaseView& v, std::size_t library_chars, std::size_t failure_chars) {
  return {CaseLabel(v),
          std::to_string(v.nodes),
          v.deployment,
          plot::Ellipsize(v.library, library_chars),
          PointsLabel(v),
          Ratio(v.WorstOverhead()),
          Ratio(v.MaxImpact()),
          CpuBusyPair(v),
          SpeedCell(v),
          v.status,
          plot::Ellipsize(FirstFailure(v), failure_chars)};
}

// The deployments of one case side by side (basic, the library's progress
// thread, the application-side strategies): per grid point, what each buys
// in r_overhead and costs in r_comp_slowdown. One table per library, case
// and rank count run with two deployments or more.
struct SideBySide {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

std::vector<SideBySide> DeploymentTables(const std::vector<Entry>& entries) {
  std::vector<SideBySide> out;
  for (std::size_t i = 0; i < entries.size();) {
    std::size_t j = i;
    auto same_group = [&](const Entry& a, const Entry& b) {
      return a.error.empty() && b.error.empty() &&
             std::tie(a.view.implementation, a.view.name, a.view.nodes) ==
                 std::tie(b.view.implementation, b.view.name, b.view.nodes);
    };
    while (j < entries.size() && same_group(entries[i], entries[j])) ++j;
    // An unreadable file is a group of its own (none): step past it.
    if (j == i) ++j;
    if (j - i >= 2) {
      SideBySide t;
      const CaseView& first = entries[i].view;
      t.title = first.name + ", " + std::to_string(first.nodes) + " ranks, " + first.implementation +
                ": r_overhead / r_comp_slowdown (medians) per deployment";
      t.header = {"comm", "comp"};
      for (std::size_t k = i; k < j; ++k) t.header.push_back(entries[k].view.deployment);
      std::vector<std::pair<double, double>> grid;  // every point any deployment has, in order
      for (std::size_t k = i; k < j; ++k)
        for (const plot::Point& p : entries[k].view.points)
          if (std::find(grid.begin(), grid.end(), std::make_pair(p.comm, p.comp)) == grid.end())
            grid.emplace_back(p.comm, p.comp);
      std::sort(grid.begin(), grid.end());
      for (const auto& [comm, comp] : grid) {
        std::vector<std::string> row = {FormatDuration(comm), FormatDuration(comp)};
        for (std::size_t k = i; k < j; ++k) {
          std::string cell = "-";
          for (const plot::Point& p : entries[k].view.points)
            if (p.comm == comm && p.comp == comp)
              cell = p.valid ? Ratio(p.overhead.median) + " / " + Ratio(p.slowdown.median) : "invalid";
          row.push_back(cell);
        }
        t.rows.push_back(row);
      }
      out.push_back(t);
    }
    i = j;
  }
  return out;
}

// ---------------------------------------------------------------- text --

// A table indented by two spaces, its columns as wide as their widest cell
// (the side-by-side deployments, the conformance table).
void IndentedTable(std::ostream& out, const std::vector<std::string>& header,
                   const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> w(header.size(), 0);
  for (std::size_t i = 0; i < header.size(); ++i) w[i] = plot::Utf8Length(header[i]);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], plot::Utf8Length(r[i]));
  auto line = [&](const std::vector<std::string>& r) {
    std::string l;
    for (std::size_t i = 0; i < r.size(); ++i)
      l += r[i] + std::string(w[i] - plot::Utf8Length(r[i]) + 2, ' ');
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out << "  " << l << "\n";
  };
  line(header);
  for (const auto& r : rows) line(r);
}

void Text(std::ostream& out, const std::vector<Entry>& entries) {
  std::vector<std::vector<std::string>> rows = {Columns()};
  // Cut so a row fits a wide terminal; the full messages follow the table.
  for (const Entry& e : entries) rows.push_back(Row(e.view, 36, 60));
  std::vector<std::size_t> w(Columns().size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], plot::Utf8Length(r[i]));
  for (std::size_t k = 0; k < rows.size(); ++k) {
    std::string line;
    for (std::size_t i = 0; i < rows[k].size(); ++i) {
      line += rows[k][i];
      if (i + 1 < rows[k].size()) line += std::string(w[i] - plot::Utf8Length(rows[k][i]) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
    if (k == 0) {
      std::size_t total = 0;
      for (std::size_t x : w) total += x + 2;
      out << std::string(total - 2, '-') << "\n";
    }
  }
  out << CountLine(entries) << "\n";
  PartitionedText(out, entries);
  for (const SideBySide& t : DeploymentTables(entries)) {
    out << "\n" << t.title << "\n";
    IndentedTable(out, t.header, t.rows);
  }
  ListReasons(
      entries,
      [&](bool undecided) {
        out << "\n" << (undecided ? kUndecidedHeading + std::string(":") : "failures:") << "\n";
      },
      [&](const Entry& e, const std::string& f) { out << "  " << e.Id() << ": " << f << "\n"; });
}

// ---------------------------------------------------------------- json --

// The same facts as the text table, for scripts: one object per test.
void Json(std::ostream& out, const std::vector<Entry>& entries, const std::string& dir) {
  const Counts c = Count(entries);
  json tests = json::array();
  int unreadable = 0;
  for (const Entry& e : entries) {
    const CaseView& v = e.view;
    json t = {{"id", e.Id()},
              {"file", e.file.string()},
              {"status", v.status},
              {"pass", v.pass},
              {"inconclusive", v.inconclusive}};
    if (!e.error.empty()) {
      ++unreadable;
      t["error"] = e.error;
      tests.push_back(t);
      continue;
    }
    t["case"] = v.name;
    t["kind"] = v.kind;
    t["collective"] = v.collective;
    t["ranks"] = v.nodes;
    t["threads"] = v.threads;
    t["deployment"] = v.deployment;
    t["implementation"] = v.implementation;
    t["library"] = v.library;
    if (!v.reference.empty()) t["reference"] = v.reference;
    t["verdict"] = v.verdict_summary;
    t["failures"] = v.failures;
    t["within_noise"] = v.within_noise;
    t["points"] = {
        {"valid", v.ValidPoints()}, {"total", v.TotalPoints()}, {"measured_again", v.measured_again}};
    if (v.IsPartitioned()) {
      t["lowest_r_partitioned"] = NumberOrNull(v.LowestPartitioned());
    } else {
      t["worst_r_overhead"] = NumberOrNull(v.WorstOverhead());
      t["max_r_mpi_impact"] = NumberOrNull(v.MaxImpact());
      t["max_cpu_busy_nbc"] = NumberOrNull(v.MaxCpuBusyNbc());
      t["max_cpu_busy_blocking"] = NumberOrNull(v.MaxCpuBusyBlocking());
    }
    tests.push_back(t);
  }
  const json doc = {{"schema", "nbcguard-summary/1"},
                    {"dir", dir},
                    {"counts",
                     {{"tests", entries.size()},
                      {"passed", c.pass},
                      {"failed", c.fail - unreadable},
                      {"inconclusive", c.inconclusive},
                      {"unreadable", unreadable}}},
                    {"tests", tests}};
  out << doc.dump(2) << "\n";
}

// ------------------------------------------------------------ markdown --

void Markdown(std::ostream& out, const std::vector<Entry>& entries, const std::string& dir) {
  out << "## nbcguard summary\n\n" << CountLine(entries) << " under `" << dir << "`\n\n";
  out << "|";
  for (const std::string& c : Columns()) out << " " << c << " |";
  out << "\n|";
  for (std::size_t i = 0; i < Columns().size(); ++i)
    out << (i == 1 || (i >= 4 && i <= kSpeedColumn) ? " ---: |" : " --- |");
  out << "\n";
  for (const Entry& e : entries) {
    std::vector<std::string> r = Row(e.view, 60, 120);
    out << "|";
    for (std::size_t i = 0; i < r.size(); ++i) {
      std::string cell = plot::MarkdownCell(r[i]);
      if (i == kVerdictColumn && !e.view.pass) cell = "**" + cell + "**";
      out << " " << cell << " |";
    }
    out << "\n";
  }
  PartitionedMarkdown(out, entries);
  for (const SideBySide& t : DeploymentTables(entries)) {
    out << "\n**" << plot::MarkdownCell(t.title) << "**\n\n|";
    for (const std::string& h : t.header) out << " " << plot::MarkdownCell(h) << " |";
    out << "\n|";
    for (std::size_t i = 0; i < t.header.size(); ++i) out << " ---: |";
    out << "\n";
    for (const auto& r : t.rows) {
      out << "|";
      for (const std::string& c : r) out << " " << plot::MarkdownCell(c) << " |";
      out << "\n";
    }
  }
  ListReasons(
      entries,
      [&](bool undecided) { out << "\n### " << (undecided ? kUndecidedHeading : "Failures") << "\n\n"; },
      [&](const Entry& e, const std::string& f) {
        out << "- **" << plot::MarkdownCell(e.Id()) << "**: " << plot::MarkdownCell(f) << "\n";
      });
}

// ---------------------------------------------------------- conformance --

// The conformance tier's results (conformance.json) under the directory:
// one column per run (library, tier, ranks, injected bug), one row per
// check; a cell counts the variants that passed, then known failures of the
// library, failures, stale known-failure entries and skips.
struct ConformanceTable {
  std::vector<std::string> header = {"check"};
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> failures;  // "<run>: <check> <variant>: <message>"
  bool empty() const { return header.size() <= 1; }
};

ConformanceTable LoadConformance(const std::string& dir) {
  ConformanceTable t;
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->path().filename() == "conformance.json") files.push_back(it->path());
  std::sort(files.begin(), files.end());
  std::vector<std::string> order;
  std::map<std::string, std::map<std::size_t, std::map<std::string, int>>> counts;  // check -> run -> status
  std::map<std::string, std::size_t> column_of;
  for (const fs::path& f : files) {
    std::ifstream in(f);
    const json doc = json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("checks")) {
      t.failures.push_back(f.string() + ": unreadable conformance.json");
      continue;
    }
    std::string library = FirstLine(doc.value("library_version", "?"));
    library = library.substr(0, library.find(','));
    std::replace(library.begin(), library.end(), '\t', ' ');
    std::string run = library + " " + doc.value("tier", "?") + " n" + std::to_string(doc.value("ranks", 0));
    if (!doc.value("injected_bug", "").empty()) run += " bug " + doc.value("injected_bug", "");
    // The tier's CTest tests write one file per check: one column per run.
    if (!column_of.count(run)) {
      column_of[run] = t.header.size() - 1;
      t.header.push_back(run);
    }
    const std::size_t column = column_of[run];
    for (const json& c : doc["checks"]) {
      const std::string check = c.value("collective", "?"), status = c.value("status", "?");
      if (!counts.count(check)) order.push_back(check);
      ++counts[check][column][status];
      if (status == "fail" || status == "stale")
        t.failures.push_back(run + ": " + check + " " + c.value("variant", "") + ": " +
                             c.value("message", ""));
    }
  }
  for (const std::string& check : order) {
    std::vector<std::string> row = {check};
    for (std::size_t column = 0; column + 1 < t.header.size(); ++column) {
      auto found = counts[check].find(column);
      if (found == counts[check].end()) {
        row.push_back("-");
        continue;
      }
      std::map<std::string, int>& n = found->second;
      std::string cell = std::to_string(n["pass"]);
      if (n["known"]) cell += " +" + std::to_string(n["known"]) + " known";
      if (n["fail"]) cell += " " + std::to_string(n["fail"]) + " FAIL";
      if (n["stale"]) cell += " " + std::to_string(n["stale"]) + " stale";
      if (n["skip"]) cell += " " + std::to_string(n["skip"]) + " skip";
      row.push_back(cell);
    }
    t.rows.push_back(row);
  }
  return t;
}

constexpr const char* kConformanceTitle =
    "conformance (variants passed, +known failures of the library, FAIL, stale entries, skipped)";

void ConformanceText(std::ostream& out, const ConformanceTable& t) {
  if (t.empty()) return;
  out << "\n" << kConformanceTitle << ":\n";
  IndentedTable(out, t.header, t.rows);
  if (!t.failures.empty()) out << "\nconformance failures:\n";
  for (const std::string& f : t.failures) out << "  " << f << "\n";
}

void ConformanceMarkdown(std::ostream& out, const ConformanceTable& t) {
  if (t.empty()) return;
  out << "\n### Conformance\n\n" << kConformanceTitle << "\n\n|";
  for (const std::string& h : t.header) out << " " << plot::MarkdownCell(h) << " |";
  out << "\n|";
  for (std::size_t i = 0; i < t.header.size(); ++i) out << (i == 0 ? " --- |" : " ---: |");
  out << "\n";
  for (const auto& r : t.rows) {
    out << "|";
    for (const std::string& c : r) out << " " << plot::MarkdownCell(c) << " |";
    out << "\n";
  }
  for (const std::string& f : t.failures) out << "- **FAIL** " << plot::MarkdownCell(f) << "\n";
}

void ConformanceHtml(std::ostream& out, const ConformanceTable& t) {
  if (t.empty()) return;
  out << "<section id=\"conformance\">\n<h2>Conformance</h2>\n<p>" << plot::HtmlEscape(kConformanceTitle)
      << "</p>\n<table class=\"points\">\n<tr>";
  for (const std::string& h : t.header) out << "<th>" << plot::HtmlEscape(h) << "</th>";
  out << "</tr>\n";
  for (const auto& r : t.rows) {
    out << "<tr>";
    for (std::size_t i = 0; i < r.size(); ++i)
      out << (i == 0 ? "<td>" : "<td class=\"num\">") << plot::HtmlEscape(r[i]) << "</td>";
    out << "</tr>\n";
  }
  out << "</table>\n";
  for (const std::string& f : t.failures) out << "<p class=\"fail\">FAIL " << plot::HtmlEscape(f) << "</p>\n";
  out << "</section>\n";
}

// ---------------------------------------------------------------- html --

using plot::HtmlEscape;

constexpr const char* kCss = R"(
body { font-family: "DejaVu Sans", Verdana, sans-serif; font-size: 14px; color: #222; margin: 24px auto;
       max-width: 1220px; padding: 0 16px; background: #fff; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 0 0 6px; }
p.meta, p.lib { color: #555; margin: 4px 0; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f2f2f2; font-weight: 600; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.verdict { font-weight: bold; padding: 2px 8px; border-radius: 3px; color: #fff; white-space: nowrap; }
.verdict.pass { background: #1a7a35; }
.verdict.fail { background: #b8261d; }
.verdict.inconclusive { background: #a86200; }
section { border-top: 3px solid #ddd; padding-top: 14px; margin-top: 26px; }
section.fail { border-top-color: #b8261d; }
section.pass { border-top-color: #1a7a35; }
section.inconclusive { border-top-color: #a86200; }
div.box { border-left: 5px solid; padding: 6px 12px; margin: 8px 0 12px; background: #fafafa; }
div.box.pass { border-color: #1a7a35; }
div.box.fail { border-color: #b8261d; background: #fdf3f2; }
div.box.inconclusive { border-color: #a86200; background: #fdf7ec; }
div.box ul { margin: 4px 0 0; padding-left: 20px; }
p.reference { background: #b8261d; color: #fff; font-weight: bold; padding: 6px 10px; margin: 6px 0; }
div.plots { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
div.plots figure { margin: 0; min-width: 300px; }
div.plots figure.wide { flex-basis: 100% !important; }
td.lib { white-space: nowrap; }
div.plots img { max-width: 100%; height: auto; border: 1px solid #ddd; display: block; }
figcaption { font-size: 12px; color: #555; }
tr.invalid td { background: #eee; color: #555; }
.muted { color: #666; }
a { color: #1f4e99; }
)";

std::string StatusClass(const CaseView& v) {
  return v.pass ? "pass" : v.inconclusive ? "inconclusive" : "fail";
}

// A ratio with its interval, on a pale tint of the picture's colour (pale,
// so the table never shows the exact colours of the heat-map cells).
std::string RatioCell(const plot::Ratio& r, plot::Metric m) {
  if (!r.present()) return "<td class=\"num muted\">-</td>";
  const std::string bg = plot::ToHex(plot::Tint(plot::ScaleOf(m).At(r.median), 0.6));
  const std::string ci = plot::FormatInterval(r.lo, r.hi);
  return "<td class=\"num\" style=\"background:" + bg + "\">" + HtmlEscape(plot::FormatRatio(r.median)) +
         (ci.empty() ? "" : " <span class=\"muted\">" + HtmlEscape(ci) + "</span>") + "</td>";
}

// A ratio with its interval and no colour: a CPU-busy fraction is neither
// good nor bad by itself (polling in a blocking call is the norm).
std::string PlainRatioCell(const plot::Ratio& r) {
  if (!r.present()) return "<td class=\"num muted\">-</td>";
  const std::string ci = plot::FormatInterval(r.lo, r.hi);
  return "<td class=\"num\">" + HtmlEscape(plot::FormatRatio(r.median)) +
         (ci.empty() ? "" : " <span class=\"muted\">" + HtmlEscape(ci) + "</span>") + "</td>";
}

// Width and height from a PNG's IHDR chunk (0 x 0 when unreadable): the
// page lays its pictures out by their natural sizes.
std::pair<int, int> PngSize(const fs::path& png) {
  std::ifstream f(png, std::ios::binary);
  unsigned char h[24] = {};
  if (!f.read(reinterpret_cast<char*>(h), sizeof h)) return {0, 0};
  auto be32 = [&](int at) { return (h[at] << 24) | (h[at + 1] << 16) | (h[at + 2] << 8) | h[at + 3]; };
  return {be32(16), be32(20)};
}

std::string Img(const fs::path& png, const fs::path& html_dir, const std::string& alt) {
  std::error_code ec;
  fs::path rel = fs::relative(fs::weakly_canonical(png, ec), html_dir, ec);
  if (rel.empty()) rel = fs::absolute(png);
  fs::path svg = rel;
  svg.replace_extension(".svg");
  const std::string src = HtmlEscape(plot::UrlPath(rel.generic_string()));
  const auto [w, h] = PngSize(png);
  const std::string size =
      w > 0 ? " width=\"" + std::to_string(w) + "\" height=\"" + std::to_string(h) + "\"" : std::string();
  return "<a href=\"" + src + "\"><img src=\"" + src + "\"" + size + " alt=\"" + HtmlEscape(alt) +
         "\"></a><figcaption>" + HtmlEscape(alt) + " (<a href=\"" +
         HtmlEscape(plot::UrlPath(svg.generic_string())) + "\">SVG</a>)" + "</figcaption>";
}

// The page's head, its title and what the ratios mean.
void HtmlHead(std::ostream& out, const std::vector<Entry>& entries, const std::string& dir) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<title>nbcguard summary</title>\n<style>" << kCss << "</style>\n</head>\n<body>\n";
  out << "<h1>nbcguard summary</h1>\n<p class=\"meta\">" << HtmlEscape(CountLine(entries)) << " under <code>"
      << HtmlEscape(dir)
      << "</code>. Ratios: median [confidence interval of the median]; r_overhead 0 = overlap, "
      << "1 = serialized, &gt;1 = worse than not overlapping.</p>\n";
}

// One row per test, linking to its section, then the deployments side by side.
void HtmlOverview(std::ostream& out, const std::vector<Entry>& entries) {
  out << "<table class=\"overview\">\n<tr>";
  for (const std::string& c : Columns()) out << "<th>" << HtmlEscape(c) << "</th>";
  out << "</tr>\n";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const CaseView& v = entries[i].view;
    const std::vector<std::string> r = Row(v, 60, 1000);
    out << "<tr><td><a href=\"#t" << i << "\">" << HtmlEscape(r[0]) << "</a></td><td class=\"num\">"
        << HtmlEscape(r[1]) << "</td><td>" << HtmlEscape(r[2]) << "</td><td class=\"lib\" title=\""
        << HtmlEscape(v.library) << "\">" << HtmlEscape(plot::Ellipsize(v.library, 36))
        << "</td><td class=\"num\">" << HtmlEscape(r[4]) << "</td>";
    plot::Ratio worst{v.WorstOverhead(), NAN, NAN};
    plot::Ratio impact{v.MaxImpact(), NAN, NAN};
    out << RatioCell(worst, plot::Metric::kOverhead) << RatioCell(impact, plot::Metric::kImpact)
        << "<td class=\"num\">" << HtmlEscape(r[kCpuColumn]) << "</td><td class=\"num\">"
        << HtmlEscape(r[kSpeedColumn]) << "</td>"
        << "<td><span class=\"verdict " << StatusClass(v) << "\">" << HtmlEscape(v.status)
        << "</span></td><td>" << HtmlEscape(r[kFailureColumn]) << "</td></tr>\n";
  }
  out << "</table>\n";
  for (const SideBySide& t : DeploymentTables(entries)) {
    out << "<h3>" << HtmlEscape(t.title) << "</h3>\n<table class=\"points\">\n<tr>";
    for (const std::string& h : t.header) out << "<th>" << HtmlEscape(h) << "</th>";
    out << "</tr>\n";
    for (const auto& r : t.rows) {
      out << "<tr>";
      for (const std::string& c : r) out << "<td class=\"num\">" << HtmlEscape(c) << "</td>";
      out << "</tr>\n";
    }
    out << "</table>\n";
  }
}

// A test's verdict, every failure and what stayed within noise.
void HtmlVerdictBox(std::ostream& out, const CaseView& v) {
  out << "<div class=\"box " << StatusClass(v) << "\">" << HtmlEscape(v.verdict_summary);
  if (!v.failures.empty()) {
    out << "<ul>";
    for (const std::string& f : v.failures) out << "<li>" << HtmlEscape(f) << "</li>";
    out << "</ul>";
  }
  if (!v.within_noise.empty()) {
    out << "<div class=\"muted\">within noise:</div><ul class=\"muted\">";
    for (const std::string& f : v.within_noise) out << "<li>" << HtmlEscape(f) << "</li>";
    out << "</ul>";
  }
  out << "</div>\n";
}

// A partitioned test has no pictures: its grid rows are the whole story.
void HtmlPartitioned(std::ostream& out, const Entry& e) {
  const CaseView& v = e.view;
  out << "<p class=\"muted\">Effective bandwidth per mechanism (median); r_partitioned = partitioned / best "
         "other, median [95% CI]. "
      << HtmlEscape(report::NoPicturesReason(e.results)) << ".</p>\n"
      << "<table class=\"points\">\n<tr>";
  for (const std::string& c : PartitionedColumns()) out << "<th>" << HtmlEscape(c) << "</th>";
  out << "</tr>\n";
  for (const auto& r : PartitionedRows(v)) {
    const bool invalid = r.size() < PartitionedColumns().size();
    out << "<tr" << (invalid ? " class=\"invalid\"" : "") << ">";
    for (std::size_t i = 0; i < r.size(); ++i)
      out << "<td"
          << (invalid && i + 1 == r.size() ? " colspan=\"7\""
              : i >= 2 && i <= 6           ? " class=\"num\""
                                           : "")
          << ">" << HtmlEscape(r[i]) << "</td>";
    out << "</tr>\n";
  }
  out << "</table>\n";
}

// Pictures: the ones the run drew, or drawn now.
void HtmlPictures(std::ostream& out, const Entry& e, const fs::path& html_dir) {
  const fs::path dir_of = e.file.parent_path();
  bool have = true;
  for (const report::PlotKind& k : report::PlotKinds())
    have = have && fs::exists(dir_of / (std::string(k.stem) + ".png"));
  std::string plot_error;
  if (!have) report::RenderPlots(e.results, dir_of, &plot_error);
  if (!plot_error.empty()) {
    out << "<p class=\"muted\">pictures could not be drawn: " << HtmlEscape(plot_error) << "</p>\n";
    return;
  }
  const auto& kinds = report::PlotKinds();
  out << "<div class=\"plots\">\n";
  // The pair is the widest picture: it gets a row of its own.
  for (std::size_t k : {0, 2, 1}) {
    const fs::path png = dir_of / (std::string(kinds[k].stem) + ".png");
    // Side by side, each picture gets a share of the row in proportion
    // to its natural width, and never more than that width.
    const int w = std::max(PngSize(png).first, 300);
    out << "<figure" << (k == 1 ? " class=\"wide\"" : "") << " style=\"flex: " << w
        << " 1 0; max-width: " << w << "px\">" << Img(png, html_dir, kinds[k].measurement_name)
        << "</figure>\n";
  }
  out << "</div>\n";
}

// The collective alone at one point: "1.61MB in 502us: 3.21GB/s [3.18GB/s,
// 3.25GB/s]" (bandwidth median [CI]); "-" for results without it.
std::string PointSpeedCell(const plot::Point& p) {
  if (!p.time.present()) return "<td class=\"num muted\">-</td>";
  std::string text = FormatDecimalBytes(p.bytes_per_rank) + " in " + FormatDuration(p.time.median);
  if (p.bandwidth.present()) text += ": " + FormatBandwidth(p.bandwidth.median);
  std::string ci;
  if (std::isfinite(p.bandwidth.lo) && std::isfinite(p.bandwidth.hi))
    ci = "[" + FormatBandwidth(p.bandwidth.lo) + ", " + FormatBandwidth(p.bandwidth.hi) + "]";
  return "<td class=\"num\">" + HtmlEscape(text) +
         (ci.empty() ? "" : " <span class=\"muted\">" + HtmlEscape(ci) + "</span>") + "</td>";
}

// Every point of an overlap test, its ratios on the pictures' colours.
void HtmlPoints(std::ostream& out, const CaseView& v) {
  out << "<table class=\"points\">\n<tr><th>comm</th><th>comp</th><th>r_overhead</th><th>r_comm</th>"
      << "<th>r_comp_slowdown</th><th>r_mpi_impact</th><th>cpu_busy_nbc</th><th>cpu_busy_blocking</th>"
      << "<th>collective alone</th><th>diagnosis</th></tr>\n";
  for (const plot::Point& p : v.points) {
    out << "<tr" << (p.valid ? "" : " class=\"invalid\"") << "><td class=\"num\">"
        << HtmlEscape(FormatDuration(p.comm)) << "</td><td class=\"num\">"
        << HtmlEscape(FormatDuration(p.comp)) << "</td>";
    if (!p.valid) {
      out << "<td colspan=\"8\">INVALID: " << HtmlEscape(p.invalid_reason) << "</td></tr>\n";
      continue;
    }
    out << RatioCell(p.overhead, plot::Metric::kOverhead) << RatioCell(p.comm_ratio, plot::Metric::kComm)
        << RatioCell(p.slowdown, plot::Metric::kSlowdown) << RatioCell(p.impact, plot::Metric::kImpact)
        << PlainRatioCell(p.cpu_nbc) << PlainRatioCell(p.cpu_blocking) << PointSpeedCell(p) << "<td>"
        << HtmlEscape(p.diagnosis) << "</td></tr>\n";
  }
  out << "</table>\n";
}

// One test's section, the overview's link target.
void HtmlSection(std::ostream& out, const Entry& e, std::size_t i, const fs::path& html_dir) {
  const CaseView& v = e.view;
  out << "<section id=\"t" << i << "\" class=\"" << StatusClass(v) << "\">\n<h2>" << HtmlEscape(e.Id())
      << " &nbsp;<span class=\"verdict " << StatusClass(v) << "\">" << HtmlEscape(v.status)
      << "</span></h2>\n";
  if (!e.error.empty()) {
    out << "<div class=\"box fail\">" << HtmlEscape(e.error)  // the error names the file
        << "</div>\n</section>\n";
    return;
  }
  out << "<p class=\"lib\">" << HtmlEscape(v.Title()) << " &middot; " << HtmlEscape(v.library)
      << (v.implementation.empty() ? "" : " [" + HtmlEscape(v.implementation) + "]") << " &middot; <code>"
      << HtmlEscape(e.file.string()) << "</code></p>\n";
  if (!v.reference.empty())
    out << "<p class=\"reference\">REFERENCE " << HtmlEscape(v.reference)
        << ": a reference behaviour replaced the library's progression; these figures are the reference's, "
           "not the library's</p>\n";
  HtmlVerdictBox(out, v);
  if (v.IsPartitioned()) {
    HtmlPartitioned(out, e);
  } else {
    HtmlPictures(out, e, html_dir);
    HtmlPoints(out, v);
  }
  out << "</section>\n";
}

// The results history's trends (`nbcguard history plot --out trends_dir`):
// a link to every series, and the pictures of those with findings.
void HtmlTrends(std::ostream& out, const json& listing, const fs::path& trends_dir,
                const fs::path& html_dir) {
  const json& series = listing.at("series");
  std::error_code ec;
  fs::path index = fs::relative(fs::weakly_canonical(trends_dir / "index.html", ec), html_dir, ec);
  if (index.empty()) index = fs::absolute(trends_dir / "index.html");
  out << "<section id=\"trends\">\n<h2>Trends over nights</h2>\n<p>"
      << HtmlEscape(listing.value("history", "")) << ": " << listing.value("runs", 0) << " run(s), "
      << series.size() << " series; <a href=\"" << HtmlEscape(plot::UrlPath(index.generic_string()))
      << "\">every series</a>. Below: the series with a change, an outlier, two modes or a drift "
         "(docs/history.md).</p>\n<div class=\"plots\">\n";
  int shown = 0;
  for (const json& t : series) {
    if (t.at("findings").empty()) continue;
    ++shown;
    const std::string caption = t.value("test", "") + " " + t.value("point", "") + " " +
                                t.value("ratio", "") + ": " + t.at("findings").at(0).get<std::string>();
    out << "<figure style=\"flex: 780 1 0; max-width: 780px\">"
        << Img(trends_dir / (t.value("stem", "") + ".png"), html_dir, caption) << "</figure>\n";
  }
  out << "</div>\n";
  if (shown == 0) out << "<p class=\"muted\">No series has a finding.</p>\n";
  out << "</section>\n";
}

void Html(std::ostream& out, std::vector<Entry>& entries, const std::string& dir, const fs::path& html_dir,
          const json* trends, const fs::path& trends_dir, const ConformanceTable& conformance) {
  HtmlHead(out, entries, dir);
  HtmlOverview(out, entries);
  ConformanceHtml(out, conformance);
  if (trends) HtmlTrends(out, *trends, trends_dir, html_dir);
  for (std::size_t i = 0; i < entries.size(); ++i) HtmlSection(out, entries[i], i, html_dir);
  out << "</body>\n</html>\n";
}

}  // namespace

void RenderRunPlots(std::ostream& out, const json& results, const fs::path& dir) {
  std::string error;
  const std::vector<fs::path> files = report::RenderPlots(results, dir, &error);
  if (!error.empty())
    out << "warning: plots not drawn (the verdict does not depend on them): " << error << "\n";
  for (const report::PlotKind& k : report::PlotKinds()) {
    const fs::path png = dir / (std::string(k.stem) + ".png");
    if (std::find(files.begin(), files.end(), png) == files.end()) continue;
    out << "<DartMeasurementFile name=\"" << k.measurement_name << "\" type=\"image/png\">"
        << fs::absolute(png).string() << "</DartMeasurementFile>\n";
  }
}

int PlotCommand(const std::vector<std::string>& paths) {
  std::vector<std::string> missing;
  const std::vector<fs::path> files = FindResultsFiles(paths, &missing);
  for (const std::string& m : missing) std::cerr << "nbcguard plot: " << m << ": no such file or directory\n";
  if (files.empty()) {
    std::cerr << "nbcguard plot: no results.json found\n";
    return kUsage;
  }
  int rc = missing.empty() ? kPass : kFail;
  for (const fs::path& f : files) {
    Entry e = Load(f);
    if (!e.error.empty()) {
      std::cerr << "nbcguard plot: " << e.error << "\n";  // names the file
      rc = kFail;
      continue;
    }
    if (const std::string why = report::NoPicturesReason(e.results); !why.empty()) {
      std::cout << "nbcguard plot: " << f.string() << ": skipped: " << why << "\n";
      continue;
    }
    std::string error;
    for (const fs::path& p : report::RenderPlots(e.results, f.parent_path(), &error))
      std::cout << p.string() << "\n";
    if (!error.empty()) {
      std::cerr << "nbcguard plot: " << f.string() << ": " << error << "\n";
      rc = kFail;
    }
  }
  return rc;
}

int SummaryCommand(const std::string& dir, const std::string& format, const std::string& output,
                   const std::string& trends_dir) {
  json trends;
  if (!trends_dir.empty()) {
    const fs::path listing = fs::path(trends_dir) / "trends.json";
    std::ifstream f(listing);
    trends = json::parse(f, nullptr, false);
    if (!f.is_open() || trends.is_discarded() || trends.value("schema", "") != "nbcguard-trends/1" ||
        !trends.contains("series") || !trends["series"].is_array()) {
      std::cerr
          << "nbcguard summary: --trends " << trends_dir
          << ": no readable trends.json (schema nbcguard-trends/1) there; write one with `nbcguard history "
             "plot --out "
          << trends_dir << "`\n";
      return kUsage;
    }
  }
  std::vector<std::string> missing;
  const std::vector<fs::path> files = FindResultsFiles({dir}, &missing);
  const ConformanceTable conformance = LoadConformance(dir);
  if (!missing.empty() || (files.empty() && conformance.empty())) {
    std::cerr << "nbcguard summary: no results.json or conformance.json under " << dir << "\n";
    return kUsage;
  }
  std::vector<Entry> entries = LoadAll(files);
  std::ostringstream text;
  if (format == "markdown") {
    Markdown(text, entries, dir);
    ConformanceMarkdown(text, conformance);
  } else if (format == "json") {
    Json(text, entries, dir);
  } else if (format == "openmetrics") {
    // OpenMetrics has no place for a row that is not a metric: an
    // unreadable file is listed on standard error instead.
    std::vector<json> docs;
    for (const Entry& e : entries) {
      if (e.error.empty()) docs.push_back(e.results);
      else std::cerr << "nbcguard summary: unreadable, left out of the exposition: " << e.error << "\n";
    }
    WriteOpenMetrics(text, docs);
  } else if (format == "html") {
    std::error_code ec;
    const fs::path html_dir =
        fs::weakly_canonical(output.empty() ? fs::current_path() : fs::absolute(output).parent_path(), ec);
    Html(text, entries, dir, html_dir, trends_dir.empty() ? nullptr : &trends, fs::path(trends_dir),
         conformance);
  } else {
    Text(text, entries);
    ConformanceText(text, conformance);
  }
  if (output.empty()) {
    std::cout << text.str();
    return kPass;
  }
  std::error_code ec;
  if (fs::absolute(output).has_parent_path()) fs::create_directories(fs::absolute(output).parent_path(), ec);
  std::ofstream f(output);
  f << text.str();
  f.close();
  if (!f) {
    std::cerr << "nbcguard summary: cannot write " << output << "\n";
    return kUsage;
  }
  std::cout << "summary: " << output << " (" << CountLine(entries) << ")\n";
  return kPass;
}

}  // namespace nbcguard
