#include "nbcguard/raw_log.h"

#include <fstream>

#include "nbcguard/raw_records.h"

namespace nbcguard {

using json = nlohmann::json;

namespace {

// A record's "type" is `type` (a record whose type is not a string has none).
bool IsType(const json& record, std::string_view type) {
  const json& t = record["type"];
  return t.is_string() && t.get_ref<const std::string&>() == type;
}

}  // namespace

RawRun ReadRaw(const std::string& path) {
  RawRun run;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object() || !j.contains("type")) {
      ++run.truncated_lines;
      continue;
    }
    if (IsType(j, record::kContext)) run.context = j;
    if (IsType(j, record::kEnd)) {
      run.ended = true;
      run.status = j.value("status", -1);
    }
    run.records.push_back(std::move(j));
  }
  if (!run.context.is_object()) run.context = json::object();  // nothing was written
  return run;
}

bool RawLogEnded(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return false;
  const std::streamoff size = f.tellg();
  const std::streamoff from = size > 4096 ? size - 4096 : 0;
  f.seekg(from);
  std::string tail(static_cast<std::size_t>(size - from), '\0');
  f.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  if (tail.empty() || tail.back() != '\n') return false;  // the last line is not complete yet
  const std::size_t begin = tail.find_last_of('\n', tail.size() - 2);
  const std::string last = tail.substr(begin == std::string::npos ? 0 : begin + 1);
  const json j = json::parse(last, nullptr, /*allow_exceptions=*/false);
  return !j.is_discarded() && j.is_object() && IsType(j, record::kEnd);
}

std::vector<const json*> RecordsOfType(const RawRun& run, std::string_view type) {
  std::vector<const json*> out;
  for (const json& r : run.records)
    if (IsType(r, type)) out.push_back(&r);
  return out;
}

}  // namespace nbcguard
