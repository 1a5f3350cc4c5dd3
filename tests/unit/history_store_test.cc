// The results history's store on both databases: an SQLite file always,
// and the PostgreSQL server of tools/postgres-server.sh when the CTest
// fixture started one (NBCGUARD_TEST_POSTGRES_URL; the tests that need it
// fail without it when NBCGUARD_REQUIRE_POSTGRES=1, as under CTest).
#include "history_store.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace nbcguard {
namespace {

namespace fs = std::filesystem;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// One history database per test: a fresh SQLite file, or the PostgreSQL
// database emptied of the history's tables.
class Store : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "sqlite") {
      std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
      std::replace(name.begin(), name.end(), '/', '-');  // Name/sqlite
      path_ =
          (fs::temp_directory_path() / ("nbcguard-history-" + std::to_string(getpid()) + "-" + name + ".db"))
              .string();
      for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path_ + suffix);
      url_ = "sqlite:" + path_;
      return;
    }
    url_ = Env("NBCGUARD_TEST_POSTGRES_URL");
    if (url_.empty()) {
      if (Env("NBCGUARD_REQUIRE_POSTGRES") == "1") FAIL() << "NBCGUARD_TEST_POSTGRES_URL is not set";
      GTEST_SKIP()
          << "no PostgreSQL server (bash tools/postgres-server.sh start; NBCGUARD_TEST_POSTGRES_URL)";
    }
    auto db = OpenHistoryDb(url_);
    db->Query("DROP TABLE IF EXISTS nbcguard_observations");
    db->Query("DROP TABLE IF EXISTS nbcguard_runs");
    db->Query("DROP TABLE IF EXISTS nbcguard_history_schema");
  }
  void TearDown() override {
    if (!path_.empty())
      for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path_ + suffix);
  }
  HistoryStore Open() { return HistoryStore(OpenHistoryDb(url_)); }
  std::string url_, path_;
};

HistoryRun Night(int day, const std::string& revision = "") {
  HistoryRun r;
  char date[32];
  std::snprintf(date, sizeof date, "2026-10-%02dT02:00:00Z", day);
  r.run_id = "run-" + std::to_string(day) + "-" + revision;
  r.run_date = date;
  r.system_name = "ci-node";
  r.library = "mpich";
  r.library_version = "MPICH Version: 4.0.2";
  r.library_revision = revision;
  r.nbcguard_version = "0.1.0";
  r.source = "/results/" + std::to_string(day);
  return r;
}

HistoryObservation Value(const std::string& ratio, double v, bool valid = true) {
  HistoryObservation o;
  o.test = "mpich.ibcast.n2.basic";
  o.point = "1ms x 2ms";
  o.comm_target = 1e-3;
  o.comp_target = 2e-3;
  o.ratio = ratio;
  if (valid) o.median = v, o.lo = v - 0.01, o.hi = v + 0.01;
  o.samples = 9;
  o.valid = valid;
  o.reason = valid ? "" : "rank imbalance";
  o.diagnosis = v > 0.5 ? "no-progression" : "full-overlap";
  return o;
}

TEST_P(Store, StoresARunOnceWithEveryValue) {
  HistoryStore s = Open();
  std::string when;
  ASSERT_TRUE(s.Ingest(Night(1), {Value("r_overhead", 0.1), Value("r_comm", 0.2, false)}, &when));
  EXPECT_FALSE(s.Ingest(Night(1), {Value("r_overhead", 0.9)}, &when));
  EXPECT_FALSE(when.empty());
  ASSERT_EQ(s.Runs().size(), 1u);
  EXPECT_EQ(s.Rows(), 2);
  const auto series = s.Series();
  ASSERT_EQ(series.size(), 2u);
  const SeriesNight& comm = series[0][0].obs.ratio == "r_comm" ? series[0][0] : series[1][0];
  EXPECT_FALSE(comm.obs.valid);
  EXPECT_FALSE(comm.obs.median.has_value());
  EXPECT_EQ(comm.obs.reason, "rank imbalance");
  const SeriesNight& over = series[0][0].obs.ratio == "r_overhead" ? series[0][0] : series[1][0];
  ASSERT_TRUE(over.obs.median.has_value());
  EXPECT_DOUBLE_EQ(*over.obs.median, 0.1);
  EXPECT_DOUBLE_EQ(*over.obs.comm_target, 1e-3);
  EXPECT_EQ(over.run.library_version, "MPICH Version: 4.0.2");
}

TEST_P(Store, SeriesAreInNightOrderWhateverTheIngestOrder) {
  HistoryStore s = Open();
  for (int day : {3, 1, 2}) ASSERT_TRUE(s.Ingest(Night(day), {Value("r_overhead", day / 10.0)}, nullptr));
  const auto series = s.Series();
  ASSERT_EQ(series.size(), 1u);
  ASSERT_EQ(series[0].size(), 3u);
  for (int i = 0; i < 3; ++i)
    EXPECT_DOUBLE_EQ(*series[0][static_cast<std::size_t>(i)].obs.median, (i + 1) / 10.0);
  EXPECT_EQ(s.Runs("ci-node", "mpich").size(), 3u);
  EXPECT_EQ(s.Runs("other-node").size(), 0u);
}

// A run that fails half-way (here: the same value twice, a primary key
// violation on its second row) leaves nothing behind.
TEST_P(Store, AFailedIngestLeavesNothing) {
  HistoryStore s = Open();
  ASSERT_TRUE(s.Ingest(Night(1), {Value("r_overhead", 0.1)}, nullptr));
  EXPECT_THROW(s.Ingest(Night(2), {Value("r_overhead", 0.2), Value("r_overhead", 0.2)}, nullptr),
               HistoryDbError);
  EXPECT_EQ(s.Runs().size(), 1u);
  EXPECT_EQ(s.Rows(), 1);
  EXPECT_TRUE(s.Ingest(Night(2), {Value("r_overhead", 0.2)}, nullptr));  // the store still works
}

// Writers on separate connections at once: every run is stored whole.
TEST_P(Store, ConcurrentIngestsLoseNothing) {
  Open();  // the schema, once
  constexpr int kWriters = 4, kRuns = 6;
  std::vector<std::thread> writers;
  writers.reserve(kWriters);
  std::vector<std::string> errors(kWriters);
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      try {
        HistoryStore s = Open();
        for (int r = 0; r < kRuns; ++r) {
          std::vector<HistoryObservation> rows;
          for (const char* ratio : {"r_overhead", "r_comm", "r_comp_slowdown"})
            rows.push_back(Value(ratio, 0.1));
          s.Ingest(Night(1 + r, "w" + std::to_string(w)), rows, nullptr);
        }
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(w)] = e.what();
      }
    });
  for (std::thread& t : writers) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  HistoryStore s = Open();
  EXPECT_EQ(s.Runs().size(), static_cast<std::size_t>(kWriters * kRuns));
  EXPECT_EQ(s.Rows(), kWriters * kRuns * 3);
}

// An imbalance-flagged point's r_overhead is stored as a lower bound: not
// valid, with its figures and bound "lower"; the other rows with none.
TEST_P(Store, ALowerBoundKeepsItsFigures) {
  HistoryStore s = Open();
  HistoryObservation bound = Value("r_overhead", 0.9);
  bound.valid = false;
  bound.reason = "rank imbalance";
  bound.bound = "lower";
  bound.hidden = 0.3;
  ASSERT_TRUE(s.Ingest(Night(1), {bound, Value("r_comm", 0.2)}, nullptr));
  const auto series = s.Series();
  ASSERT_EQ(series.size(), 2u);
  for (const auto& one : series) {
    const HistoryObservation& o = one.front().obs;
    if (o.ratio == "r_overhead") {
      EXPECT_FALSE(o.valid);
      EXPECT_EQ(o.bound, "lower");
      ASSERT_TRUE(o.median.has_value());
      EXPECT_DOUBLE_EQ(*o.median, 0.9);
      ASSERT_TRUE(o.hidden.has_value());
      EXPECT_DOUBLE_EQ(*o.hidden, 0.3);
    } else {
      EXPECT_TRUE(o.valid);
      EXPECT_EQ(o.bound, "");
      EXPECT_FALSE(o.hidden.has_value());
    }
  }
}

// A history as an older nbcguard wrote it: schema version 1 (before
// bound and hidden) or 2 (before job), one run and one row.
void WriteOldHistory(const std::string& url, int version) {
  auto db = OpenHistoryDb(url);
  db->Query("CREATE TABLE nbcguard_history_schema (version INTEGER NOT NULL)");
  db->Query("INSERT INTO nbcguard_history_schema (version) VALUES ($1)", {std::to_string(version)});
  db->Query(
      "CREATE TABLE nbcguard_runs (run_id TEXT PRIMARY KEY, run_date TEXT NOT NULL, system_name TEXT NOT NULL,"
      " library TEXT NOT NULL, library_version TEXT NOT NULL, library_revision TEXT NOT NULL,"
      " nbcguard_version TEXT NOT NULL, source TEXT NOT NULL, ingested_at TEXT NOT NULL)");
  const std::string bound = version >= 2 ? " bound TEXT NOT NULL DEFAULT '', hidden DOUBLE PRECISION," : "";
  db->Query(
      "CREATE TABLE nbcguard_observations (run_id TEXT NOT NULL REFERENCES nbcguard_runs (run_id),"
      " test TEXT NOT NULL, point TEXT NOT NULL, comm_target DOUBLE PRECISION,"
      " comp_target DOUBLE PRECISION NOT NULL, ratio TEXT NOT NULL, median DOUBLE PRECISION,"
      " ci_lo DOUBLE PRECISION, ci_hi DOUBLE PRECISION, samples INTEGER NOT NULL, valid INTEGER NOT NULL,"
      " reason TEXT NOT NULL, diagnosis TEXT NOT NULL, reference TEXT NOT NULL," +
      bound + " PRIMARY KEY (run_id, test, point, ratio))");
  db->Query(
      "INSERT INTO nbcguard_runs VALUES ('old', '2026-09-01T02:00:00Z', 'ci-node', 'mpich', 'MPICH', '',"
      " '0.1.0', '/results/0', '2026-09-01T03:00:00Z')");
  db->Query(
      "INSERT INTO nbcguard_observations VALUES ('old', 'mpich.ibcast.n2.basic', '1ms x 2ms', 0.001,"
      " 0.002, 'r_overhead', 0.1, 0.09, 0.11, 9, 1, '', 'full-overlap', ''" +
      std::string(version >= 2 ? ", '', NULL" : "") + ")");
}

// A history written before lower bounds were kept (schema version 1, no
// bound column) is brought to version 2 when opened; its rows keep their
// values and have no bound, and new runs store theirs.
TEST_P(Store, AVersionOneHistoryIsMigrated) {
  WriteOldHistory(url_, 1);
  HistoryStore s = Open();
  HistoryObservation bound = Value("r_overhead", 0.9);
  bound.valid = false;
  bound.bound = "lower";
  ASSERT_TRUE(s.Ingest(Night(2), {bound}, nullptr));
  const auto series = s.Series();
  ASSERT_EQ(series.size(), 1u);
  ASSERT_EQ(series[0].size(), 2u);
  EXPECT_DOUBLE_EQ(*series[0][0].obs.median, 0.1);
  EXPECT_EQ(series[0][0].obs.bound, "");
  EXPECT_EQ(series[0][1].obs.bound, "lower");
  EXPECT_EQ(series[0][0].obs.job, 1);
  const auto version = OpenHistoryDb(url_)->Query("SELECT version FROM nbcguard_history_schema");
  ASSERT_EQ(version.size(), 1u);
  EXPECT_EQ(version[0][0].value_or(""), "3");
  Open();  // opened again: nothing left to migrate
}

// A history written before a later job's measurement could stand for a
// night (schema version 2, no job column) is brought to version 3: its
// rows are the first job's, and new rows keep the job that measured them.
TEST_P(Store, AVersionTwoHistoryGetsTheJobOfEachRow) {
  WriteOldHistory(url_, 2);
  HistoryStore s = Open();
  HistoryObservation later = Value("r_overhead", 0.95);
  later.job = 2;
  ASSERT_TRUE(s.Ingest(Night(2), {later}, nullptr));
  const auto series = s.Series();
  ASSERT_EQ(series.size(), 1u);
  ASSERT_EQ(series[0].size(), 2u);
  EXPECT_EQ(series[0][0].obs.job, 1);
  EXPECT_DOUBLE_EQ(*series[0][0].obs.median, 0.1);
  EXPECT_EQ(series[0][1].obs.job, 2);
  EXPECT_DOUBLE_EQ(*series[0][1].obs.median, 0.95);
  const auto version = OpenHistoryDb(url_)->Query("SELECT version FROM nbcguard_history_schema");
  ASSERT_EQ(version.size(), 1u);
  EXPECT_EQ(version[0][0].value_or(""), "3");
  Open();
}

TEST_P(Store, AnotherSchemaVersionIsRefused) {
  Open();
  OpenHistoryDb(url_)->Query("UPDATE nbcguard_history_schema SET version = 99");
  try {
    Open();
    FAIL() << "opened a version 99 history";
  } catch (const HistoryDbError& e) {
    EXPECT_NE(std::string(e.what()).find("history schema version 99"), std::string::npos) << e.what();
  }
}

// Through the store and the check: a step on the 13th of 14 nights is a
// regression named by its night and revision, on both databases.
TEST_P(Store, CheckFindsAStepAtItsNightAndRevision) {
  HistoryStore s = Open();
  const double levels[] = {0.10, 0.12, 0.08, 0.11, 0.09, 0.10, 0.13,
                           0.10, 0.09, 0.11, 0.12, 0.10, 0.85, 0.88};
  for (int day = 1; day <= 14; ++day)
    ASSERT_TRUE(s.Ingest(Night(day, "rev" + std::to_string(day)),
                         {Value("r_overhead", levels[day - 1]), Value("r_comm", 0.5, day != 5)}, nullptr));
  const HistoryReport r = CheckHistory(s.Series(), static_cast<int>(s.Runs().size()), {});
  ASSERT_TRUE(r.Fails()) << r.Summary();
  const HistoryFinding* reg = nullptr;
  for (const HistoryFinding& f : r.findings)
    if (f.kind == HistoryKind::kRegression) reg = &f;
  ASSERT_NE(reg, nullptr);
  EXPECT_EQ(reg->ratio, "r_overhead");
  EXPECT_EQ(reg->night, "2026-10-13T02:00:00Z");
  EXPECT_EQ(reg->revision, "revision rev13");
  EXPECT_EQ(reg->diagnosis_after, "no-progression");
  EXPECT_EQ(r.refused_nights, 1);
  EXPECT_NE(reg->Line().find("REGRESSION mpich.ibcast.n2.basic 1ms x 2ms r_overhead [ci-node]: 0.1"),
            std::string::npos)
      << reg->Line();
}

INSTANTIATE_TEST_SUITE_P(Databases, Store, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace nbcguard
