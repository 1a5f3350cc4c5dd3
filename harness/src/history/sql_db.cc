// SQLite and PostgreSQL behind SqlDb (sql_db.h).
#include "sql_db.h"

#include <libpq-fe.h>
#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace nbcguard {
namespace {

class SqliteDb final : public SqlDb {
 public:
  explicit SqliteDb(const std::string& path) : path_(path) {
    if (sqlite3_open_v2(path.c_str(), &db_,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        nullptr) != SQLITE_OK) {
      const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      db_ = nullptr;
      throw HistoryDbError("cannot open SQLite history " + path + ": " + why);
    }
    // Writers wait for each other (up to a minute) instead of failing;
    // write-ahead logging lets readers go on while one writes; FULL
    // synchronous: a committed run survives a power loss.
    sqlite3_busy_timeout(db_, 60000);
    Query("PRAGMA journal_mode=WAL", {});
    Query("PRAGMA synchronous=FULL", {});
    Query("PRAGMA foreign_keys=ON", {});
  }
  ~SqliteDb() override { sqlite3_close(db_); }
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  SqliteDb(SqliteDb&&) = delete;
  SqliteDb& operator=(SqliteDb&&) = delete;

  std::vector<SqlRow> Query(const std::string& sql, const std::vector<SqlValue>& params) override {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) Fail(sql);
    std::vector<SqlRow> rows;
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i) + 1;
      const int rc = params[i] ? sqlite3_bind_text(st, at, params[i]->c_str(), -1, SQLITE_TRANSIENT)
                               : sqlite3_bind_null(st, at);
      if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        Fail(sql);
      }
    }
    int rc = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      SqlRow row;
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const auto* text = sqlite3_column_text(st, c);
        if (sqlite3_column_type(st, c) == SQLITE_NULL || text == nullptr) row.emplace_back(std::nullopt);
        else row.emplace_back(reinterpret_cast<const char*>(text));
      }
      rows.push_back(std::move(row));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) Fail(sql);
    return rows;
  }
  void Begin() override { Query("BEGIN IMMEDIATE", {}); }
  std::string Describe() const override { return "SQLite history " + path_; }

 private:
  [[noreturn]] void Fail(const std::string& sql) {
    throw HistoryDbError(Describe() + ": " + sqlite3_errmsg(db_) + " (in: " + sql.substr(0, 60) + ")");
  }
  std::string path_;
  sqlite3* db_ = nullptr;
};

class PgDb final : public SqlDb {
 public:
  explicit PgDb(const std::string& url) : url_(url), conn_(PQconnectdb(url.c_str())) {
    if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
      const std::string why = conn_ ? PQerrorMessage(conn_) : "out of memory";
      PQfinish(conn_);
      conn_ = nullptr;
      throw HistoryDbError("cannot connect to the PostgreSQL history " + url + ": " + Trim(why));
    }
    Query("SET client_min_messages = warning", {});  // no NOTICE for CREATE ... IF NOT EXISTS
  }
  ~PgDb() override { PQfinish(conn_); }
  PgDb(const PgDb&) = delete;
  PgDb& operator=(const PgDb&) = delete;
  PgDb(PgDb&&) = delete;
  PgDb& operator=(PgDb&&) = delete;

  std::vector<SqlRow> Query(const std::string& sql, const std::vector<SqlValue>& params) override {
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const SqlValue& p : params) values.push_back(p ? p->c_str() : nullptr);
    PGresult* r = PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr, values.data(),
                               nullptr, nullptr, 0);
    const ExecStatusType status = PQresultStatus(r);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      const std::string why = Trim(PQresultErrorMessage(r));
      PQclear(r);
      throw HistoryDbError(Describe() + ": " + why + " (in: " + sql.substr(0, 60) + ")");
    }
    std::vector<SqlRow> rows;
    for (int i = 0; i < PQntuples(r); ++i) {
      SqlRow row;
      for (int c = 0; c < PQnfields(r); ++c)
        row.emplace_back(PQgetisnull(r, i, c) ? SqlValue() : SqlValue(PQgetvalue(r, i, c)));
      rows.push_back(std::move(row));
    }
    PQclear(r);
    return rows;
  }
  void Begin() override {
    Query("BEGIN", {});
    // One writer at a time across every client of this database (the key
    // is nbcguard's own; the lock ends with the transaction).
    Query("SELECT pg_advisory_xact_lock(727001)", {});
  }
  std::string Describe() const override { return "PostgreSQL history " + url_; }

 private:
  static std::string Trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }
  std::string url_;
  PGconn* conn_ = nullptr;
};

}  // namespace

std::optional<std::string> SqliteFileOf(const std::string& url) {
  if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0) return std::nullopt;
  return url.rfind("sqlite:", 0) == 0 ? url.substr(7) : url;
}

std::unique_ptr<SqlDb> OpenHistoryDb(const std::string& url) {
  const std::optional<std::string> path = SqliteFileOf(url);
  if (!path) return std::make_unique<PgDb>(url);
  if (path->empty()) throw HistoryDbError("no history database given (--db sqlite:PATH or postgresql://...)");
  return std::make_unique<SqliteDb>(*path);
}

SqlValue SqlNumber(double v) {
  if (!std::isfinite(v)) return std::nullopt;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return std::string(buf);
}

std::optional<double> SqlToNumber(const SqlValue& v) {
  if (!v) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(v->c_str(), &end);
  if (end == v->c_str()) return std::nullopt;
  return d;
}

}  // namespace nbcguard
