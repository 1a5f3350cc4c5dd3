#include "nbcguard/results_io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace nbcguard {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::vector<fs::path> Fixtures() {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(NBCGUARD_TEST_DATA))
    if (e.path().filename() == "results.json") files.push_back(e.path());
  return files;
}

// The smallest overlap document the schema accepts, to break one field at a time.
json Minimal() {
  return json::parse(R"({"schema": "nbcguard-results/1", "schema_version": 1,
    "case": {"name": "ibcast", "collective": "ibcast", "nodes": 2, "deployment": "basic"},
    "points": [{"comm_target": 0.001, "comp_target": 0.002, "valid": true,
                "r_overhead": {"median": 0.5, "ci_lo": 0.4, "ci_hi": null, "n": 10}}],
    "verdict": {"pass": true, "summary": "PASS", "failures": []}})");
}

std::string ErrorOf(const std::string& text) {
  const ResultsRead r = ParseResults(text, "x/results.json");
  EXPECT_FALSE(r.ok()) << text;
  return r.error;
}

fs::path TempDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("nbcguard-results-io-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(ResultsIo, EveryFixtureReads) {
  const std::vector<fs::path> files = Fixtures();
  ASSERT_GE(files.size(), 10u);
  for (const fs::path& f : files) {
    const ResultsRead r = ReadResults(f);
    EXPECT_TRUE(r.ok()) << r.error;
    if (r.ok()) {
      EXPECT_EQ(r.doc->path, f);
      // Most were written before the field existed: version 1.
      EXPECT_EQ(r.doc->schema_version, r.doc->json.value("schema_version", 1));
    }
  }
}

TEST(ResultsIo, PartitionedFixtureIsPartitioned) {
  const ResultsRead r = ReadResults(fs::path(NBCGUARD_TEST_DATA) /
                                    "partitioned-results/mpich/partitioned/n2/partitioned/results.json");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.doc->IsPartitioned());
}

// The bad examples tools/validate-results.py must reject too (CTest
// results.schema-rejects-invalid): the reader and the schema agree on them.
TEST(ResultsIo, EveryInvalidFixtureIsRejected) {
  int files = 0;
  for (const auto& e : fs::directory_iterator(fs::path(NBCGUARD_TEST_DATA) / "results-invalid")) {
    ++files;
    const ResultsRead r = ReadResults(e.path());
    EXPECT_FALSE(r.ok()) << e.path();
    EXPECT_EQ(r.error.rfind(e.path().string() + ": ", 0), 0u) << r.error;
  }
  EXPECT_GE(files, 8);
}

TEST(ResultsIo, NotJson) {
  const std::string e = ErrorOf("{");
  EXPECT_NE(e.find("x/results.json: not valid JSON"), std::string::npos) << e;
}

TEST(ResultsIo, PointNotAnObject) {
  json j = Minimal();
  j["points"] = json::array({1});
  EXPECT_EQ(ErrorOf(j.dump()), "x/results.json: points[0]: expected object, got integer");
  EXPECT_NE(ErrorOf(R"({"points":[1]})").find("x/results.json: "), std::string::npos);
}

TEST(ResultsIo, ValidAsString) {
  json j = Minimal();
  j["points"][0]["valid"] = "yes";
  EXPECT_EQ(ErrorOf(j.dump()), "x/results.json: points[0].valid: expected boolean, got string");
}

TEST(ResultsIo, NullForANumber) {
  json j = Minimal();
  j["points"][0]["comm_target"] = nullptr;
  EXPECT_EQ(ErrorOf(j.dump()), "x/results.json: points[0].comm_target: expected number, got null");
  j = Minimal();
  j["case"]["nodes"] = nullptr;
  EXPECT_EQ(ErrorOf(j.dump()), "x/results.json: case.nodes: expected integer, got null");
}

TEST(ResultsIo, NullWhereTheSchemaAllowsIt) {
  // A ratio that is not finite is written as null: still a valid file.
  json j = Minimal();
  j["points"][0]["r_overhead"]["median"] = nullptr;
  EXPECT_EQ(ValidateResults(j), "");
}

TEST(ResultsIo, NestedSpreadField) {
  json j = Minimal();
  j["points"][0]["r_overhead"]["n"] = "ten";
  EXPECT_EQ(ValidateResults(j), "points[0].r_overhead.n: expected integer, got string");
}

// The peers' percentages: one number or null since version 2; version 1
// files hold a spread, still read and still checked as one.
TEST(ResultsIo, PeerPercentagesInBothVersions) {
  json j = Minimal();
  j["schema_version"] = 2;
  j["points"][0]["osu_overlap_pct"] = 40.7;
  j["points"][0]["imb_overlap_pct"] = nullptr;
  EXPECT_EQ(ValidateResults(j), "");
  j["schema_version"] = 1;
  j["points"][0]["osu_overlap_pct"] = json::parse(R"({"median": 21.5, "ci_lo": 20, "ci_hi": 23, "n": 9})");
  EXPECT_EQ(ValidateResults(j), "");
  j["points"][0]["osu_overlap_pct"]["n"] = "nine";
  EXPECT_EQ(ValidateResults(j), "points[0].osu_overlap_pct.n: expected integer, got string");
  j["points"][0]["imb_overlap_pct"] = "47";
  j["points"][0].erase("osu_overlap_pct");
  EXPECT_EQ(ValidateResults(j), "points[0].imb_overlap_pct: expected number, null or object, got string");
}

TEST(ResultsIo, MissingRequiredField) {
  json j = Minimal();
  j["points"][0].erase("valid");
  EXPECT_EQ(ValidateResults(j), "points[0].valid: missing");
  j = Minimal();
  j.erase("points");
  EXPECT_EQ(ValidateResults(j), "points: missing");
}

TEST(ResultsIo, RootNotAnObject) {
  EXPECT_EQ(ValidateResults(json::array()), "(document): expected object, got array");
  EXPECT_EQ(ValidateResults(json(nullptr)), "(document): expected object, got null");
}

TEST(ResultsIo, PartitionedPointsFollowTheirOwnShape) {
  json j = Minimal();
  j["kind"] = "partitioned";
  j["points"] =
      json::parse(R"([{"partition_bytes": 65536, "order": "left-right", "threads": 1, "valid": "no"}])");
  EXPECT_EQ(ValidateResults(j), "points[0].valid: expected boolean, got string");
  j["points"][0]["valid"] = false;
  EXPECT_EQ(ValidateResults(j), "");
  j["kind"] = "something";
  EXPECT_EQ(ValidateResults(j), "kind: expected one of [\"overlap\",\"partitioned\"], got \"something\"");
}

TEST(ResultsIo, SchemaVersion) {
  json j = Minimal();
  j.erase("schema_version");
  ASSERT_TRUE(ParseResults(j.dump(), "x").ok());
  EXPECT_EQ(ParseResults(j.dump(), "x").doc->schema_version, 1);
  j["schema_version"] = 2;
  EXPECT_EQ(ValidateResults(j), "");
  j["schema_version"] = 3;
  EXPECT_EQ(ValidateResults(j), "schema_version: version 3 is newer than this nbcguard reads (up to 2)");
  j["schema_version"] = "1";
  EXPECT_EQ(ValidateResults(j), "schema_version: expected integer, got string");
  j["schema_version"] = 0;
  EXPECT_EQ(ValidateResults(j), "schema_version: 0 is less than the minimum 1");
}

TEST(ResultsIo, DeepNestingIsAnErrorNotACrash) {
  const int levels = 100000;
  const std::string text = std::string(levels, '[') + std::string(levels, ']');
  const std::string e = ErrorOf(text);
  EXPECT_NE(e.find("nested deeper than"), std::string::npos) << e;
  const std::string objects = [&] {
    std::string s;
    for (int i = 0; i < levels; ++i) s += "{\"a\":";
    return s + "1" + std::string(levels, '}');
  }();
  EXPECT_NE(ErrorOf(objects).find("nested deeper than"), std::string::npos);
}

TEST(ResultsIo, WrittenFileReadsBackEqual) {
  const fs::path dir = TempDir("roundtrip");
  for (const fs::path& f : Fixtures()) {
    const ResultsRead in = ReadResults(f);
    ASSERT_TRUE(in.ok()) << in.error;
    const fs::path out = dir / "results.json";
    ASSERT_EQ(WriteResults(out, in.doc->json), "");
    const ResultsRead back = ReadResults(out);
    ASSERT_TRUE(back.ok()) << back.error;
    EXPECT_EQ(back.doc->json, in.doc->json) << f;
  }
  // Only results.json: no temporary file left beside it.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1);
  fs::remove_all(dir);
}

TEST(ResultsIo, WriteReplacesTheOldFile) {
  const fs::path dir = TempDir("replace");
  json j = Minimal();
  ASSERT_EQ(WriteResults(dir / "results.json", j), "");
  j["verdict"]["pass"] = false;
  ASSERT_EQ(WriteResults(dir / "results.json", j), "");
  const ResultsRead r = ReadResults(dir / "results.json");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_FALSE(r.doc->json["verdict"]["pass"].get<bool>());
  fs::remove_all(dir);
}

TEST(ResultsIo, WriteIntoAReadOnlyDirectoryFails) {
  const fs::path dir = TempDir("readonly");
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
  // Root ignores the permission bits: then sysfs, where nobody creates files.
  const bool root_writes = access(dir.c_str(), W_OK) == 0;
  const fs::path file = root_writes ? fs::path("/sys/results.json") : dir / "results.json";
  const std::string e_ro = WriteResults(file, Minimal());
  EXPECT_EQ(e_ro.rfind("cannot write " + file.string() + ": ", 0), 0u) << e_ro;
  EXPECT_FALSE(fs::exists(file));
  fs::permissions(dir, fs::perms::owner_all);
  // A directory that does not exist fails the same way, for root too.
  const std::string e = WriteResults(dir / "missing" / "results.json", Minimal());
  EXPECT_NE(e.find("cannot write " + (dir / "missing" / "results.json").string() + ": "), std::string::npos)
      << e;
  // And so does a path that is a directory.
  fs::create_directories(dir / "results.json");
  EXPECT_NE(WriteResults(dir / "results.json", Minimal()), "");
  fs::remove_all(dir);
}

// Any file (the calibration cache, pictures) is written like results.json:
// whole or not at all, and a directory that takes no file says why.
TEST(ResultsIo, AtomicWriteLeavesNothingBehindWhenItFails) {
  const fs::path dir = TempDir("atomic");
  ASSERT_EQ(WriteFileAtomically(dir / "a.txt", "abc\n"), "");
  std::ifstream in(dir / "a.txt");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "abc");
  // Under a regular file: fails for root too, with the reason.
  std::ofstream(dir / "plain") << "x";
  const fs::path under = dir / "plain" / "b.txt";
  const std::string e = WriteFileAtomically(under, "abc\n");
  EXPECT_EQ(e.rfind("cannot write " + under.string() + ": ", 0), 0u) << e;
  EXPECT_NE(e.find("Not a directory"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(under));
  int files = 0;
  for (const auto& f : fs::directory_iterator(dir)) files += f.is_regular_file();
  EXPECT_EQ(files, 2);  // a.txt and plain: no temporary file left
  fs::remove_all(dir);
}

TEST(ResultsIo, DirectoryWriteErrorSaysWhyNothingCanBeWritten) {
  const fs::path dir = TempDir("probe");
  EXPECT_EQ(DirectoryWriteError(dir), "");
  EXPECT_TRUE(fs::is_empty(dir));  // the probe is removed
  std::ofstream(dir / "plain") << "x";
  EXPECT_EQ(DirectoryWriteError(dir / "plain"),
            "cannot write " + (dir / "plain").string() + ": Not a directory");
  EXPECT_EQ(DirectoryWriteError(dir / "missing"),
            "cannot write " + (dir / "missing").string() + ": No such file or directory");
  fs::remove_all(dir);
}

TEST(ResultsIo, UnreadableFileNamesIt) {
  const ResultsRead r = ReadResults("/nonexistent/results.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.rfind("/nonexistent/results.json: cannot be opened", 0), 0u) << r.error;
}

// The reader interprets a subset of JSON Schema: every keyword the schema
// uses must be one it implements, or a constraint would be skipped here
// while tools/validate-results.py enforces it.
void CollectKeywords(const json& s, std::set<std::string>* out) {
  if (!s.is_object()) return;
  for (const auto& [k, v] : s.items()) {
    out->insert(k);
    if (k == "properties" || k == "$defs") {
      for (const auto& [name, sub] : v.items()) CollectKeywords(sub, out);
    } else if (k != "const" && k != "enum" && k != "required") {
      CollectKeywords(v, out);
    }
  }
}

TEST(ResultsIo, SchemaUsesOnlyImplementedKeywords) {
  std::set<std::string> used;
  CollectKeywords(ResultsSchema(), &used);
  const std::set<std::string> implemented = {
      "$schema", "title",    "description", "$defs",    "$ref",       "type",  "const", "enum", "minimum",
      "maximum", "minItems", "maxItems",    "required", "properties", "items", "if",    "then", "else"};
  for (const std::string& k : used)
    EXPECT_TRUE(implemented.count(k)) << "schema keyword not implemented: " << k;
}

// A run that starts moves the previous results aside and marks the directory;
// until it finishes, a reader refuses the directory's results.json (present
// or not) with the reason, and the marker gone, reads it again.
TEST(ResultsIo, AnUnfinishedRunIsNeverReadAsCurrent) {
  const fs::path dir = TempDir("unfinished");
  const fs::path results = dir / "results.json";
  ASSERT_EQ(WriteResults(results, Minimal()), "");
  ASSERT_EQ(MarkRunStarted(dir, {{"started", "2026-11-25T20:00:00Z"}, {"pid", 42}}), "");
  EXPECT_FALSE(fs::exists(results));
  const ResultsRead previous = ReadResults(dir / kPreviousResultsFile);
  ASSERT_TRUE(previous.ok()) << previous.error;  // kept, not lost
  EXPECT_EQ(previous.doc->json, Minimal());

  const ResultsRead none = ReadResults(results);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error.find("the run started 2026-11-25T20:00:00Z (driver pid 42) did not finish"),
            std::string::npos)
      << none.error;
  EXPECT_NE(none.error.find(kPreviousResultsFile), std::string::npos) << none.error;

  // What the unfinished run wrote before it stopped is not current either.
  ASSERT_EQ(WriteResults(results, Minimal()), "");
  EXPECT_FALSE(ReadResults(results).ok());
  // A second start while the marker is there keeps the first previous results.
  ASSERT_EQ(MarkRunStarted(dir, {{"started", "later"}}), "");
  EXPECT_EQ(ReadResults(dir / kPreviousResultsFile).doc->json, Minimal());

  MarkRunFinished(dir);
  EXPECT_TRUE(ReadResults(results).ok());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nbcguard
