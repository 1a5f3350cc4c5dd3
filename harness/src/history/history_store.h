// The results history in a database (sql_db.h): one schema and one set of
// statements on SQLite and PostgreSQL (docs/history.md, "What is stored").
// A run goes in whole, in one transaction, or not at all; the same run
// (same results.json contents) goes in once.
#pragma once

#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "nbcguard/history.h"
#include "sql_db.h"

namespace nbcguard {

// t as the history writes dates: YYYY-MM-DDTHH:MM:SSZ (UTC).
std::string UtcIso(std::time_t t);

class HistoryStore {
 public:
  // Creates the tables when the database has none; refuses a database
  // whose history schema is another version (HistoryDbError).
  explicit HistoryStore(std::unique_ptr<SqlDb> db);

  // Stores the run and its rows; false, with nothing written, when a run
  // with its run_id is already stored (*existing: when it was ingested).
  bool Ingest(const HistoryRun& run, const std::vector<HistoryObservation>& rows, std::string* existing);

  std::vector<HistoryRun> Runs(const std::string& system_name = "", const std::string& library = "");
  int Rows();  // observations stored, all runs

  // Every stored observation of the matching runs ("" matches all),
  // grouped into series (system, test, point, ratio), oldest night first.
  std::vector<std::vector<SeriesNight>> Series(const std::string& system_name = "",
                                               const std::string& library = "");

  const SqlDb& db() const { return *db_; }

 private:
  std::unique_ptr<SqlDb> db_;
};

}  // namespace nbcguard
