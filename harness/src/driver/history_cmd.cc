// `nbcguard history` (history_cmd.h).
#include "history_cmd.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../history/history_store.h"
#include "compare_cmd.h"
#include "nbcguard/driver_common.h"
#include "nbcguard/plot_model.h"
#include "nbcguard/results_io.h"
#include "trends.h"

namespace fs = std::filesystem;

namespace nbcguard {
namespace {

using json = nlohmann::json;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The database --db or NBCGUARD_HISTORY names; empty, after saying so,
// when neither does.
std::string DbUrl(const char* verb, const HistoryCommandOptions& o) {
  std::string url = o.db.empty() ? Env("NBCGUARD_HISTORY") : o.db;
  if (url.empty())
    std::cerr << "nbcguard history " << verb
              << ": no history database: give --db (sqlite:PATH, a path, or postgresql://...) or set "
                 "NBCGUARD_HISTORY\n";
  return url;
}

// Opens the history at url and runs use(store); a database error is a
// message and exit 2.
template <typename Use>
int WithStore(const char* verb, const std::string& url, Use use) {
  try {
    HistoryStore store(OpenHistoryDb(url));
    return use(store);
  } catch (const HistoryDbError& e) {
    std::cerr << "nbcguard history " << verb << ": " << e.what() << "\n";
    return kUsage;
  }
}

// YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, as the history orders nights; a
// date alone is that day at midnight UTC.
bool NormalizeDate(const std::string& in, std::string* out) {
  static const std::regex day(R"(\d{4}-\d{2}-\d{2})");
  static const std::regex full(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)");
  if (std::regex_match(in, full)) return *out = in, true;
  if (std::regex_match(in, day)) return *out = in + "T00:00:00Z", true;
  return false;
}

// 64-bit FNV-1a over each file's path below the run directory and its
// bytes: the same run's files give the same id wherever they are copied.
std::string RunId(const std::vector<fs::path>& files, const fs::path& dir) {
  std::uint64_t h = 1469598103934665603ULL;
  const auto mix = [&](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;  // separator
  };
  for (const fs::path& f : files) {
    mix(fs::relative(f, dir).generic_string());
    std::ifstream in(f, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    mix(bytes.str());
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string HostName() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string("unknown");
}

// The system a run belongs to: given, else $NBCGUARD_SYSTEM, else the host name.
std::string SystemName(const std::string& given) {
  if (!given.empty()) return given;
  return !Env("NBCGUARD_SYSTEM").empty() ? Env("NBCGUARD_SYSTEM") : HostName();
}

int Refuse(const std::string& dir, const std::string& why) {
  std::cerr << "nbcguard history ingest: refused " << dir << ": " << why << "; nothing stored\n";
  return kUsage;
}

json FindingJson(const HistoryFinding& f) {
  return {{"kind", HistoryKindName(f.kind)},
          {"fails", f.fails},
          {"known", f.known},
          {"system", f.system_name},
          {"test", f.test},
          {"point", f.point},
          {"ratio", f.ratio},
          {"night", f.night},
          {"revision", f.revision},
          {"run_id", f.run_id},
          {"before", f.before},
          {"after", f.after},
          {"size", f.size},
          {"size_lo", f.lo},
          {"size_hi", f.hi},
          {"p", f.p},
          {"n_before", f.n_before},
          {"n_after", f.n_after},
          {"needed", f.needed},
          {"excursions", f.excursions},
          {"lower_bounds", f.floors},
          {"switches", f.switches},
          {"total", f.total},
          {"diagnosis_before", f.diagnosis_before},
          {"diagnosis_after", f.diagnosis_after},
          {"reference_before", f.reference_before},
          {"reference_after", f.reference_after},
          {"shared_with", f.shared_with},
          {"line", f.Line()}};
}

// The later jobs of the run whose first job wrote `first` (the results
// of test t): the confirmation job (confirm/confirmation.json), then the
// third (confirm-third/), as far as first's "confirmation" says they ran
// and left results. Each is looked for beside results.json, where the
// driver wrote it, so a run directory that was copied or moved keeps them.
// False with *error when a job it says ran left no readable results of
// the same test: the run is partial input.
bool LaterJobs(const TestResults& t, const json& first, std::vector<TestResults>* later, std::string* error) {
  const json* job = first.contains("confirmation") ? &first["confirmation"] : nullptr;
  for (int n = 2; job != nullptr && job->is_object(); ++n) {
    const auto results = job->find("results");
    if (results == job->end() || !results->is_string() || job->contains("error")) break;
    const fs::path stored = results->get<std::string>();
    const fs::path path =
        fs::path(t.source).parent_path() / stored.parent_path().filename() / stored.filename();
    const ResultsRead r = ReadResults(path);
    std::string why;
    std::optional<TestResults> j = r.ok() ? ParseTestResults(r.doc->json, path.string(), &why) : std::nullopt;
    if (!r.ok()) why = r.error;
    if (j && j->key.Name() != t.key.Name()) why = "it holds results of " + j->key.Name();
    if (!why.empty() || !j) {
      *error = t.source + " says job " + std::to_string(n) + " of its run measured again into " +
               stored.string() + ", but " + path.string() + " cannot be used: " + why +
               "; a run is ingested with all its jobs";
      return false;
    }
    later->push_back(std::move(*j));
    job = job->contains("third") ? &(*job)["third"] : nullptr;
  }
  return true;
}

}  // namespace

int HistoryIngestCommand(const HistoryCommandOptions& o) {
  const std::string url = DbUrl("ingest", o);
  if (url.empty()) return kUsage;
  // Everything is read and checked before the database is touched.
  std::vector<TestResults> tests;
  std::vector<std::string> unreadable, skipped;
  std::string error;
  if (!LoadResultsDir(o.run_dir, &tests, &unreadable, &error, &skipped)) return Refuse(o.run_dir, error);
  if (!unreadable.empty()) {
    std::string why = std::to_string(unreadable.size()) + " results.json file(s) not readable:";
    for (const std::string& u : unreadable) why += "\n  " + u;
    return Refuse(o.run_dir, why);
  }
  if (tests.empty()) return Refuse(o.run_dir, "no results.json of an overlap test below it");
  std::vector<fs::path> files;
  std::time_t newest = 0;
  std::set<std::string>
      recorded_systems;  // results.json "system" (run --system, NBCGUARD_SYSTEM, the build's)
  std::map<std::string, std::string> source_of;              // test name -> its results.json
  std::map<std::string, std::vector<TestResults>> later_of;  // results.json -> its run's later jobs
  for (const TestResults& t : tests) {
    // A night is one job of each test: two jobs of one test (a known-answer
    // test's job2/, a copied directory) would be two values of one night.
    const auto [at, first] = source_of.emplace(t.key.Name(), t.source);
    if (!first)
      return Refuse(o.run_dir, at->second + " and " + t.source + " are results of the same test (" +
                                   t.key.Name() +
                                   "): a run holds one job of each test; ingest the job to keep, "
                                   "or each job's directory as a run of its own");
    const ResultsRead r = ReadResults(t.source);
    if (r.ok() && r.doc->json.contains("system") && r.doc->json["system"].is_string())
      recorded_systems.insert(r.doc->json["system"].get<std::string>());
    const json run = r.ok() ? r.doc->json.value("run", json::object()) : json::object();
    if (run.is_object() && run.contains("completed") && !run.value("completed", true))
      return Refuse(o.run_dir, t.source +
                                   ": the run did not complete (run.completed is false): a partial run "
                                   "is not a night of the history");
    if (r.ok() && !LaterJobs(t, r.doc->json, &later_of[t.source], &error)) return Refuse(o.run_dir, error);
    files.emplace_back(t.source);
    std::error_code ec;
    const auto m = fs::last_write_time(t.source, ec);
    if (!ec) {
      const auto sys = std::chrono::time_point_cast<std::chrono::system_clock::duration>(
          m - fs::file_time_type::clock::now() + std::chrono::system_clock::now());
      newest = std::max(newest, std::chrono::system_clock::to_time_t(sys));
    }
    if (t.key.implementation != tests.front().key.implementation)
      return Refuse(o.run_dir, "it holds results of two libraries (" + tests.front().key.implementation +
                                   ", " + t.key.implementation +
                                   "): ingest each build's results directory on its own");
  }
  std::sort(files.begin(), files.end());

  HistoryRun run;
  run.run_id = RunId(files, o.run_dir);
  if (!o.date.empty()) {
    if (!NormalizeDate(o.date, &run.run_date)) {
      std::cerr << "nbcguard history ingest: --date '" << o.date
                << "' is not a date; allowed: YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC)\n";
      return kUsage;
    }
  } else {
    run.run_date = UtcIso(newest);
  }
  // The system: --system, else NBCGUARD_SYSTEM, else the one the run
  // recorded (the same name `run --history` looks up), else the host name.
  std::string system = o.system;
  if (system.empty() && Env("NBCGUARD_SYSTEM").empty() && !recorded_systems.empty()) {
    if (recorded_systems.size() > 1) {
      std::string names;
      for (const std::string& s : recorded_systems) names += (names.empty() ? "" : ", ") + s;
      return Refuse(o.run_dir, "its results name several systems (" + names + "); give --system");
    }
    system = *recorded_systems.begin();
  }
  run.system_name = SystemName(system);
  run.library = tests.front().key.implementation;
  run.library_version = tests.front().library_version;
  run.library_revision = !o.revision.empty() ? o.revision : Env("NBCGUARD_MPI_REVISION");
  run.nbcguard_version = NBCGUARD_VERSION;
  run.source = fs::absolute(o.run_dir).lexically_normal().string();
  std::vector<HistoryObservation> rows;
  int refused = 0, from_later = 0;
  for (const TestResults& t : tests) {
    for (HistoryObservation& row : ObservationsOf(t, later_of[t.source])) {
      refused += row.valid ? 0 : 1;
      from_later += row.job > 1 ? 1 : 0;
      rows.push_back(std::move(row));
    }
  }

  return WithStore("ingest", url, [&](HistoryStore& store) {
    std::string existing;
    if (!store.Ingest(run, rows, &existing)) {
      std::cout << "history: run " << run.run_id << " from " << o.run_dir << " is already stored (ingested "
                << existing << "); nothing changed\n";
      return kPass;
    }
    std::cout << "history: stored run " << run.run_id << " (" << run.run_date << ", system "
              << run.system_name << ", " << run.library
              << (run.library_revision.empty() ? "" : " revision " + run.library_revision)
              << "): " << tests.size() << " test(s), " << rows.size() << " value(s), " << refused
              << " of them refused points"
              << (from_later > 0 ? ", " + std::to_string(from_later) +
                                       " measured by a later job of the run where the first refused the point"
                                 : std::string())
              << "; into " << store.db().Describe() << "\n";
    if (!skipped.empty())
      std::cout << "history: " << skipped.size() << " results.json of other kinds not stored (partitioned)\n";
    return kPass;
  });
}

int HistoryRunsCommand(const HistoryCommandOptions& o) {
  const std::string url = DbUrl("runs", o);
  if (url.empty()) return kUsage;
  return WithStore("runs", url, [&](HistoryStore& store) {
    const auto runs = store.Runs(o.system, o.library);
    for (const HistoryRun& r : runs)
      std::cout << r.run_date << "  " << r.run_id << "  " << r.system_name << "  " << r.library << "  "
                << (r.library_revision.empty() ? "-" : r.library_revision) << "  " << r.source << "\n";
    std::cout << "history: " << runs.size() << " run(s), " << store.Rows() << " value(s) in "
              << store.db().Describe() << "\n";
    return kPass;
  });
}

int HistoryCheckCommand(const HistoryCommandOptions& o) {
  const std::string url = DbUrl("check", o);
  if (url.empty()) return kUsage;
  HistoryReport report;
  const int rc = WithStore("check", url, [&](HistoryStore& store) {
    const auto runs = store.Runs(o.system, o.library);
    if (runs.empty()) {
      std::cerr << "nbcguard history check: no runs stored"
                << (o.system.empty() ? "" : " for system " + o.system)
                << (o.library.empty() ? "" : " of " + o.library) << " in " << store.db().Describe() << "\n";
      return kUsage;
    }
    report = CheckHistory(store.Series(o.system, o.library), static_cast<int>(runs.size()), o.check);
    std::cout << "history: " << runs.size() << " run(s) from " << runs.front().run_date << " to "
              << runs.back().run_date << " in " << store.db().Describe() << "\n";
    return kPass;
  });
  if (rc != kPass) return rc;
  // New regressions first, then the rest in the store's order.
  std::vector<const HistoryFinding*> order;
  for (const HistoryFinding& f : report.findings) order.push_back(&f);
  std::stable_sort(order.begin(), order.end(),
                   [](const HistoryFinding* a, const HistoryFinding* b) { return a->fails && !b->fails; });
  for (const HistoryFinding* f : order) std::cout << f->Line() << "\n";
  if (o.verbose)
    for (const std::string& u : report.undecided) std::cout << "UNDECIDED " << u << "\n";
  std::cout << report.Summary() << "\n";
  if (!o.json_out.empty()) {
    json j = {{"schema", "nbcguard-history-check/1"},
              {"summary", report.Summary()},
              {"fails", report.Fails()},
              {"runs", report.runs},
              {"series", report.series},
              {"decided", report.decided},
              {"shared", report.shared},
              {"refused_nights", report.refused_nights},
              {"bounded_nights", report.bounded_nights},
              {"repeated_nights", report.repeated_nights},
              {"undecided", report.undecided},
              {"findings", json::array()}};
    for (const HistoryFinding& f : report.findings) j["findings"].push_back(FindingJson(f));
    if (const std::string e = WriteFileAtomically(o.json_out, j.dump(1) + "\n"); !e.empty()) {
      std::cerr << "nbcguard history check: " << e << "\n";
      return kUsage;
    }
  }
  return report.Fails() ? kFail : kPass;
}

namespace {

// "007-openmpi.ibcast.n2.basic-500us-x-2ms-r_overhead" ("* x 2ms": "-x-2ms"): a file stem per series, in
// order.
std::string TrendStem(std::size_t index, const TrendSeries& t) {
  std::string slug = t.test + "-" + t.point + "-" + t.ratio;
  for (char& c : slug)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '-';
  slug.erase(std::unique(slug.begin(), slug.end(), [](char a, char b) { return a == '-' && b == '-'; }),
             slug.end());
  char head[32];
  std::snprintf(head, sizeof head, "%03zu-", index + 1);
  return head + slug;
}

}  // namespace

int HistoryPlotCommand(const HistoryCommandOptions& o) {
  const std::string url = DbUrl("plot", o);
  if (url.empty()) return kUsage;
  std::vector<TrendSeries> trends;
  std::string described;
  std::size_t runs = 0;
  const int rc = WithStore("plot", url, [&](HistoryStore& store) {
    runs = store.Runs(o.system, o.library).size();
    if (runs == 0) {
      std::cerr << "nbcguard history plot: no runs stored"
                << (o.system.empty() ? "" : " for system " + o.system)
                << (o.library.empty() ? "" : " of " + o.library) << " in " << store.db().Describe() << "\n";
      return kUsage;
    }
    trends = Trends(store.Series(o.system, o.library), o.check);
    described = store.db().Describe();
    return kPass;
  });
  if (rc != kPass) return rc;
  // Series with findings first (new regressions before the rest), then in the store's order.
  const auto rank = [](const TrendSeries& t) {
    for (const HistoryFinding& f : t.findings)
      if (f.fails) return 0;
    return t.findings.empty() ? 2 : 1;
  };
  std::stable_sort(trends.begin(), trends.end(),
                   [&](const TrendSeries& a, const TrendSeries& b) { return rank(a) < rank(b); });
  const fs::path dir(o.out_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::cerr << "nbcguard history plot: cannot create " << dir.string() << ": " << ec.message() << "\n";
    return kUsage;
  }
  std::ostringstream html;
  html
      << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>nbcguard history trends</title>"
      << "<style>body{font-family:sans-serif;margin:1.5em;color:#222}figure{margin:0 0 1.5em 0}"
      << "figcaption{font-size:0.9em;max-width:780px}li{margin:0.2em 0}</style></head><body>\n"
      << "<h1>nbcguard history trends</h1>\n<p>" << plot::HtmlEscape(described) << ": " << runs << " run(s), "
      << trends.size()
      << " series. Each picture: the night's median with its 95 % interval, each level between changes with "
         "the between-run band (+- 3 sd), a red dashed line where a change begins, outlier nights ringed, "
         "refused nights crossed. Series with findings first.</p>\n";
  json listing = {
      {"schema", "nbcguard-trends/1"}, {"history", described}, {"runs", runs}, {"series", json::array()}};
  for (std::size_t i = 0; i < trends.size(); ++i) {
    const TrendSeries& t = trends[i];
    const std::string stem = TrendStem(i, t);
    json lines = json::array();
    for (const HistoryFinding& f : t.findings) lines.push_back(f.Line());
    listing["series"].push_back({{"stem", stem},
                                 {"system", t.system_name},
                                 {"test", t.test},
                                 {"point", t.point},
                                 {"ratio", t.ratio},
                                 {"nights", t.nights.size()},
                                 {"findings", lines},
                                 {"fails", rank(t) == 0},
                                 {"undecided", t.undecided}});
    std::string error;
    if (report::RenderTrend(t, dir / stem, &error).size() != 2) {
      std::cerr << "nbcguard history plot: " << error << "\n";
      return kUsage;
    }
    html << "<figure><img src=\"" << plot::HtmlEscape(stem) << ".png\" alt=\""
         << plot::HtmlEscape(t.test + " " + t.point + " " + t.ratio) << "\" width=\"780\"><figcaption>"
         << plot::HtmlEscape(t.system_name) << ": ";
    if (!t.undecided.empty()) html << "undecided: " << plot::HtmlEscape(t.undecided);
    else if (t.findings.empty()) html << "no change beyond the between-run band";
    else {
      html << "<ul>";
      for (const HistoryFinding& f : t.findings) html << "<li>" << plot::HtmlEscape(f.Line()) << "</li>";
      html << "</ul>";
    }
    html << " <a href=\"" << plot::HtmlEscape(stem) << ".svg\">SVG</a></figcaption></figure>\n";
  }
  html << "</body></html>\n";
  // Each file whole or not at all: written beside, then renamed.
  const fs::path index = dir / "index.html";
  for (const auto& [path, text] :
       {std::make_pair(dir / "trends.json", listing.dump(1) + "\n"), std::make_pair(index, html.str())}) {
    const fs::path tmp = path.string() + ".tmp";
    {
      std::ofstream f(tmp);
      f << text;
      if (!f) ec = std::make_error_code(std::errc::io_error);
    }
    if (!ec) fs::rename(tmp, path, ec);
    if (ec) {
      std::cerr << "nbcguard history plot: cannot write " << path.string() << ": " << ec.message() << "\n";
      return kUsage;
    }
  }
  std::cout << "history plot: " << trends.size() << " series from " << runs << " run(s) drawn into "
            << index.string() << "\n";
  return kPass;
}

std::string HistoryUrl(const std::string& given) { return given.empty() ? Env("NBCGUARD_HISTORY") : given; }

bool LoadBetweenRunSpreads(const std::string& url, const std::string& system,
                           std::map<std::string, BetweenRunSpread>* out, std::string* note) {
  const std::optional<std::string> file = SqliteFileOf(url);
  std::error_code ec;
  if (file && !fs::exists(*file, ec)) {
    *note = "history " + url + ": not created yet, no between-run spread known";
    return true;
  }
  const std::string sys = SystemName(system);
  try {
    HistoryStore store(OpenHistoryDb(url));
    const std::size_t runs = store.Runs(sys).size();
    *out = BetweenRunSpreads(store.Series(sys), HistoryCheckOptions{});
    *note = "history " + store.db().Describe() + ": " + std::to_string(runs) + " run(s) of system " + sys +
            ", between-run spread of " + std::to_string(out->size()) + " series";
    return true;
  } catch (const HistoryDbError& e) {
    *note = std::string("history: ") + e.what();
    return false;
  }
}

}  // namespace nbcguard
