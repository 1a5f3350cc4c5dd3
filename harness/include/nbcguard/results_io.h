// results.json, the one file a test leaves behind: one writer and one reader
// for every command that produces or consumes it (run, compare, cost,
// summary, plot, envelope). The format is schema/results.schema.json,
// described field by field in docs/results-format.md.
//
// Writing is atomic (a temporary file in the same directory, flushed,
// fsync'd, renamed over the old one): a reader never sees half a file, and
// a failed write leaves the previous results in place. Reading validates the
// document against the schema before any reader touches it, so a reader can
// use the fields the schema types without checking them again, and a bad
// file is an error message naming the file and the field, never an
// exception.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace nbcguard {

// The version written into "schema_version". A file without the field is
// version 1 (every file written before the field existed); a file with a
// larger version than this is refused rather than half understood.
// Version 2: osu_overlap_pct and imb_overlap_pct are one number per point
// (version 1: a spread over samples, of a per-sample formula).
inline constexpr int kResultsSchemaVersion = 2;

// Deeper nesting than this is refused while parsing: results.json is at
// most 6 levels deep, and a document nested 100,000 levels must not exhaust
// the stack of whatever walks it afterwards.
inline constexpr int kResultsMaxDepth = 64;

// A validated results.json document.
// Its implicit move members move nlohmann::json values, which do not throw (clang-tidy cannot see it).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct ResultsDocument {
  std::filesystem::path path;  // where it was read from (empty when parsed from text)
  nlohmann::json json;         // checked against the schema
  int schema_version = 1;
  bool IsPartitioned() const { return json.value("kind", std::string()) == "partitioned"; }
};

// Either a document or why there is none: "<file>: points[0].valid:
// expected boolean, got string".
struct ResultsRead {
  std::optional<ResultsDocument> doc;
  std::string error;
  bool ok() const { return doc.has_value(); }
};

// Reads and validates one results.json. Never throws. A results.json whose
// directory holds the marker of an unfinished run is an error naming it,
// whether or not the file exists.
ResultsRead ReadResults(const std::filesystem::path& path);

// The same from text in memory; `source` names it in messages.
ResultsRead ParseResults(const std::string& text, const std::string& source);

// Checks a parsed document against the schema (and its schema_version):
// "" when it conforms, else the first problem as "<field>: <what>", the
// field written as a path ("points[0].valid"; "(document)" for the root).
std::string ValidateResults(const nlohmann::json& results);

// Writes `results` to `path` atomically. Returns "" on success, else
// "cannot write <path>: <reason>"; never throws.
std::string WriteResults(const std::filesystem::path& path, const nlohmann::json& results);

// A test's run in progress: written into the test's directory before the
// run replaces anything there, removed when its results are complete. A
// results.json beside it (or none) belongs to a run that did not finish,
// and every reader says so instead of reading it as current.
inline constexpr char kUnfinishedRunFile[] = "run-unfinished.json";
// Where the previous run's results.json goes while a new run replaces it.
inline constexpr char kPreviousResultsFile[] = "results.previous.json";

// Marks `dir` (created if missing) as holding a run in progress: the
// previous results.json becomes results.previous.json and the marker,
// holding `what` (start time, process), is written. "" or the error.
std::string MarkRunStarted(const std::filesystem::path& dir, const nlohmann::json& what);

// Removes the marker: the results in `dir` are complete.
void MarkRunFinished(const std::filesystem::path& dir);

// Writes `text` to `path` atomically: a temporary file in the same
// directory, synced, then renamed over `path`, so a reader sees the old
// file or the new one, and a failed write (a full or read-only file
// system) leaves no partial file. "" on success, else "cannot write
// <path>: <reason>"; never throws.
std::string WriteFileAtomically(const std::filesystem::path& path, const std::string& text);

// Whether files can be written in `dir` now (a page of data, written and
// removed): "" when they can, else "cannot write <dir>: <reason>" (No space
// left on device, Read-only file system, ...). What explains a job whose
// output was cut short.
std::string DirectoryWriteError(const std::filesystem::path& dir);

// The schema itself (schema/results.schema.json, compiled in).
const nlohmann::json& ResultsSchema();

}  // namespace nbcguard
