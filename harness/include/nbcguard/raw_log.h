// The harness's raw log (raw.jsonl): one JSON object per line, each with a
// "type" (raw_records.h; the format in docs/raw-log.md). Reading it back and
// picking records by type; the reduction (reduce.h) works on what this reads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace nbcguard {

// Its implicit move members move nlohmann::json values, which do not throw (clang-tidy cannot see it).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct RawRun {
  nlohmann::json context;               // the "context" record (null when missing)
  std::vector<nlohmann::json> records;  // all records in order
  bool ended = false;                   // an "end" record was written
  int status = -1;                      // its status
  int truncated_lines = 0;              // unparsable lines (a write cut by a kill)
};

// Tolerates a missing file (empty run) and a torn last line.
RawRun ReadRaw(const std::string& path);

// Whether the last complete line of the log at `path` is an "end" record
// (the harness wrote everything and returned from its run), read from the
// file's tail only: cheap enough to ask every second while a job runs.
bool RawLogEnded(const std::string& path);

// The records of one type (a constant of raw_records.h).
std::vector<const nlohmann::json*> RecordsOfType(const RawRun& run, std::string_view type);

}  // namespace nbcguard
