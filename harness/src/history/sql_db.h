// The two databases the results history runs on, behind one small
// interface: an SQLite file (the embedded default, Debian's libsqlite3) and
// a PostgreSQL server (a site's shared store, libpq). The history's SQL is
// written once for both: TEXT, INTEGER and DOUBLE PRECISION columns,
// parameters $1, $2 ... (SQLite reads "$1" as a named parameter, numbered
// in order of appearance; the history's statements use each once, in
// order), values passed and read as text. Only taking the write lock
// differs (Begin).
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace nbcguard {

// A database error: the message names the database and the statement's
// purpose. The history command turns it into exit 2.
struct HistoryDbError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using SqlValue = std::optional<std::string>;  // nullopt = NULL
using SqlRow = std::vector<SqlValue>;

class SqlDb {
 public:
  virtual ~SqlDb() = default;
  SqlDb() = default;
  SqlDb(const SqlDb&) = delete;
  SqlDb& operator=(const SqlDb&) = delete;
  SqlDb(SqlDb&&) = delete;
  SqlDb& operator=(SqlDb&&) = delete;

  // Runs a statement; the rows it returns (none for most).
  virtual std::vector<SqlRow> Query(const std::string& sql, const std::vector<SqlValue>& params = {}) = 0;
  // A write transaction, holding the database's write lock until Commit or
  // Rollback, so concurrent writers queue instead of failing (SQLite: BEGIN
  // IMMEDIATE with a busy timeout; PostgreSQL: BEGIN and a transaction-level
  // advisory lock).
  virtual void Begin() = 0;
  void Commit() { Query("COMMIT"); }
  void Rollback() { Query("ROLLBACK"); }
  virtual std::string Describe() const = 0;  // "sqlite file X" / "postgresql X"
};

// `url`: postgresql://... or postgres://... (libpq's connection URI), or
// sqlite:PATH, or a plain path (an SQLite file, created when missing).
std::unique_ptr<SqlDb> OpenHistoryDb(const std::string& url);

// The SQLite file a history URL names, or nullopt for a PostgreSQL URL
// (the same reading as OpenHistoryDb's).
std::optional<std::string> SqliteFileOf(const std::string& url);

// A double as the history stores it (17 significant digits; NaN is NULL).
SqlValue SqlNumber(double v);
std::optional<double> SqlToNumber(const SqlValue& v);

}  // namespace nbcguard
