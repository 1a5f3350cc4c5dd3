// The results history's schema and statements (history_store.h).
#include "history_store.h"

#include <chrono>
#include <ctime>
#include <utility>

namespace nbcguard {
namespace {

// 2: nbcguard_observations.bound and .hidden (a lower bound kept for an
// imbalance-flagged point's r_overhead and r_comm, and how much the
// imbalance can have hidden). 3: nbcguard_observations.job (which of the
// run's jobs measured the row: 1 the first, 2 or 3 a later job that
// measured cleanly a point the first refused). An older history is brought
// to 3 when opened: the columns are added, its rows "" and NULL (no bound)
// and job 1 (before version 3 every row was the first job's).
constexpr int kSchemaVersion = 3;

// The same text on both databases (sql_db.h).
const char* const kSchema[] = {
    "CREATE TABLE IF NOT EXISTS nbcguard_history_schema (version INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS nbcguard_runs ("
    " run_id TEXT PRIMARY KEY,"
    " run_date TEXT NOT NULL,"
    " system_name TEXT NOT NULL,"
    " library TEXT NOT NULL,"
    " library_version TEXT NOT NULL,"
    " library_revision TEXT NOT NULL,"
    " nbcguard_version TEXT NOT NULL,"
    " source TEXT NOT NULL,"
    " ingested_at TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS nbcguard_observations ("
    " run_id TEXT NOT NULL REFERENCES nbcguard_runs (run_id),"
    " test TEXT NOT NULL,"
    " point TEXT NOT NULL,"
    " comm_target DOUBLE PRECISION,"
    " comp_target DOUBLE PRECISION NOT NULL,"
    " ratio TEXT NOT NULL,"
    " median DOUBLE PRECISION,"
    " ci_lo DOUBLE PRECISION,"
    " ci_hi DOUBLE PRECISION,"
    " samples INTEGER NOT NULL,"
    " valid INTEGER NOT NULL,"
    " reason TEXT NOT NULL,"
    " diagnosis TEXT NOT NULL,"
    " reference TEXT NOT NULL,"
    " bound TEXT NOT NULL DEFAULT '',"
    " hidden DOUBLE PRECISION,"
    " job INTEGER NOT NULL DEFAULT 1,"
    " PRIMARY KEY (run_id, test, point, ratio))",
    "CREATE INDEX IF NOT EXISTS nbcguard_observations_series ON nbcguard_observations (test, point, ratio)",
};

constexpr const char* kRunColumns =
    "r.run_id, r.run_date, r.system_name, r.library, r.library_version, r.library_revision, r.nbcguard_version, "
    "r.source";

std::string Text(const SqlValue& v) { return v ? *v : std::string(); }

HistoryRun RunFrom(const SqlRow& row) {
  HistoryRun r;
  r.run_id = Text(row[0]);
  r.run_date = Text(row[1]);
  r.system_name = Text(row[2]);
  r.library = Text(row[3]);
  r.library_version = Text(row[4]);
  r.library_revision = Text(row[5]);
  r.nbcguard_version = Text(row[6]);
  r.source = Text(row[7]);
  return r;
}

SqlValue Opt(const std::optional<double>& v) { return v ? SqlNumber(*v) : SqlValue(); }

}  // namespace

std::string UtcIso(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

// Runs matching a system and a library ("" = any): a WHERE clause with
// its parameters in order.
std::string Where(const std::string& system_name, const std::string& library, std::vector<SqlValue>* params) {
  std::string w;
  int n = 0;
  if (!system_name.empty()) {
    params->emplace_back(system_name);
    w += " WHERE r.system_name = $" + std::to_string(++n);
  }
  if (!library.empty()) {
    params->emplace_back(library);
    w += std::string(w.empty() ? " WHERE" : " AND") + " r.library = $" + std::to_string(++n);
  }
  return w;
}

}  // namespace

HistoryStore::HistoryStore(std::unique_ptr<SqlDb> db) : db_(std::move(db)) {
  db_->Begin();
  try {
    for (const char* sql : kSchema) db_->Query(sql);
    const auto v = db_->Query("SELECT version FROM nbcguard_history_schema");
    if (v.empty()) {
      db_->Query("INSERT INTO nbcguard_history_schema (version) VALUES ($1)",
                 {std::to_string(kSchemaVersion)});
    } else if (Text(v[0][0]) == "1" || Text(v[0][0]) == "2") {
      // Under the transaction's write lock: one client migrates, the others
      // then read the current version.
      if (Text(v[0][0]) == "1") {
        db_->Query("ALTER TABLE nbcguard_observations ADD COLUMN bound TEXT NOT NULL DEFAULT ''");
        db_->Query("ALTER TABLE nbcguard_observations ADD COLUMN hidden DOUBLE PRECISION");
      }
      db_->Query("ALTER TABLE nbcguard_observations ADD COLUMN job INTEGER NOT NULL DEFAULT 1");
      db_->Query("UPDATE nbcguard_history_schema SET version = $1", {std::to_string(kSchemaVersion)});
    } else if (Text(v[0][0]) != std::to_string(kSchemaVersion)) {
      throw HistoryDbError(db_->Describe() + ": history schema version " + Text(v[0][0]) +
                           ", this nbcguard reads " + std::to_string(kSchemaVersion));
    }
    db_->Commit();
  } catch (...) {
    db_->Rollback();
    throw;
  }
}

bool HistoryStore::Ingest(const HistoryRun& run, const std::vector<HistoryObservation>& rows,
                          std::string* existing) {
  db_->Begin();
  try {
    const auto had = db_->Query("SELECT ingested_at FROM nbcguard_runs WHERE run_id = $1", {run.run_id});
    if (!had.empty()) {
      db_->Rollback();
      if (existing) *existing = Text(had[0][0]);
      return false;
    }
    db_->Query(
        "INSERT INTO nbcguard_runs (run_id, run_date, system_name, library, library_version, library_revision, "
        "nbcguard_version, source, ingested_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        {run.run_id, run.run_date, run.system_name, run.library, run.library_version, run.library_revision,
         run.nbcguard_version, run.source,
         UtcIso(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now()))});
    for (const HistoryObservation& o : rows)
      db_->Query(
          "INSERT INTO nbcguard_observations (run_id, test, point, comm_target, comp_target, ratio, median, ci_lo, "
          "ci_hi, samples, valid, reason, diagnosis, reference, bound, hidden, job) "
          "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)",
          {run.run_id, o.test, o.point, Opt(o.comm_target), SqlNumber(o.comp_target), o.ratio, Opt(o.median),
           Opt(o.lo), Opt(o.hi), std::to_string(o.samples), o.valid ? "1" : "0", o.reason, o.diagnosis,
           o.reference, o.bound, Opt(o.hidden), std::to_string(o.job)});
    db_->Commit();
  } catch (...) {
    db_->Rollback();
    throw;
  }
  return true;
}

std::vector<HistoryRun> HistoryStore::Runs(const std::string& system_name, const std::string& library) {
  std::vector<SqlValue> params;
  const std::string where = Where(system_name, library, &params);
  std::vector<HistoryRun> runs;
  for (const SqlRow& row : db_->Query(std::string("SELECT ") + kRunColumns + " FROM nbcguard_runs r" + where +
                                          " ORDER BY r.run_date, r.run_id",
                                      params))
    runs.push_back(RunFrom(row));
  return runs;
}

int HistoryStore::Rows() {
  const auto r = db_->Query("SELECT COUNT(*) FROM nbcguard_observations");
  return r.empty() ? 0 : std::stoi(Text(r[0][0]));
}

std::vector<std::vector<SeriesNight>> HistoryStore::Series(const std::string& system_name,
                                                           const std::string& library) {
  std::vector<SqlValue> params;
  const std::string where = Where(system_name, library, &params);
  const std::string sql =
      std::string("SELECT ") + kRunColumns +
      ", o.test, o.point, o.comm_target, o.comp_target, o.ratio, o.median, o.ci_lo, o.ci_hi, "
      "o.samples, o.valid, o.reason, o.diagnosis, o.reference, o.bound, o.hidden, o.job "
      "FROM nbcguard_observations o JOIN nbcguard_runs r ON r.run_id = o.run_id" +
      where + " ORDER BY r.system_name, o.test, o.point, o.ratio, r.run_date, r.run_id";
  std::vector<std::vector<SeriesNight>> series;
  for (const SqlRow& row : db_->Query(sql, params)) {
    SeriesNight n;
    n.run = RunFrom(row);
    n.obs.test = Text(row[8]);
    n.obs.point = Text(row[9]);
    n.obs.comm_target = SqlToNumber(row[10]);
    n.obs.comp_target = SqlToNumber(row[11]).value_or(0);
    n.obs.ratio = Text(row[12]);
    n.obs.median = SqlToNumber(row[13]);
    n.obs.lo = SqlToNumber(row[14]);
    n.obs.hi = SqlToNumber(row[15]);
    n.obs.samples = static_cast<int>(SqlToNumber(row[16]).value_or(0));
    n.obs.valid = Text(row[17]) == "1";
    n.obs.reason = Text(row[18]);
    n.obs.diagnosis = Text(row[19]);
    n.obs.reference = Text(row[20]);
    n.obs.bound = Text(row[21]);
    n.obs.hidden = SqlToNumber(row[22]);
    n.obs.job = static_cast<int>(SqlToNumber(row[23]).value_or(1));
    const bool same = !series.empty() && series.back().back().run.system_name == n.run.system_name &&
                      series.back().back().obs.test == n.obs.test &&
                      series.back().back().obs.point == n.obs.point &&
                      series.back().back().obs.ratio == n.obs.ratio;
    if (!same) series.emplace_back();
    series.back().push_back(std::move(n));
  }
  return series;
}

}  // namespace nbcguard
