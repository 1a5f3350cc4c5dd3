// The raw-log format is declared once (raw_records.h) and written down
// once (docs/raw-log.md): the two list the same record types, and every
// record of the recorded runs (tests/data/raw) has a declared type. Also
// ReadRaw's tolerance of torn lines and RecordsOfType.
#include "nbcguard/raw_records.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "nbcguard/raw_log.h"

namespace nbcguard {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::set<std::string> Declared() {
  std::set<std::string> out;
  for (std::string_view t : record::kAllTypes) out.insert(std::string(t));
  return out;
}

// Every `inline constexpr std::string_view kName = "type";` of the header,
// read from its source: a constant left out of kAllTypes is found too.
std::set<std::string> ConstantsInHeader() {
  const std::string text = ReadText(fs::path(NBCGUARD_SOURCE_DIR) / "harness/include/nbcguard/raw_records.h");
  const std::regex constant(R"re(inline constexpr std::string_view k\w+ = "([a-z_+]+)";)re");
  std::set<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), constant), end; it != end; ++it)
    out.insert((*it)[1]);
  return out;
}

// The "### `type`" headings of docs/raw-log.md.
std::set<std::string> DocumentedTypes() {
  const std::string text = ReadText(fs::path(NBCGUARD_SOURCE_DIR) / "docs/raw-log.md");
  const std::regex heading(R"re((^|\n)### `([a-z_+]+)`)re");
  std::set<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), heading), end; it != end; ++it) out.insert((*it)[2]);
  return out;
}

TEST(RawRecords, EveryConstantIsListedOnce) {
  const std::set<std::string> declared = Declared();
  EXPECT_EQ(declared.size(), std::size(record::kAllTypes)) << "a type is listed twice in kAllTypes";
  EXPECT_EQ(ConstantsInHeader(), declared);
  EXPECT_GE(declared.size(), 23u);
}

TEST(RawRecords, DocsDescribeEveryDeclaredTypeAndNoOther) { EXPECT_EQ(DocumentedTypes(), Declared()); }

TEST(RawRecords, RecordedRunsUseOnlyDeclaredTypes) {
  const std::set<std::string> declared = Declared();
  int files = 0, records = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(NBCGUARD_TEST_DATA) / "raw")) {
    if (e.path().extension() != ".jsonl") continue;
    ++files;
    std::ifstream f(e.path());
    for (std::string line; std::getline(f, line);) {
      if (line.empty()) continue;
      const nlohmann::json j = nlohmann::json::parse(line);
      ++records;
      EXPECT_TRUE(declared.count(j.at("type").get<std::string>())) << e.path() << ": " << j["type"];
    }
  }
  EXPECT_GE(files, 4);
  EXPECT_GE(records, 20);
}

TEST(RawLog, ReadsRecordsAndToleratesATornLine) {
  const fs::path p = fs::temp_directory_path() / "nbcguard_raw_log_test.jsonl";
  std::ofstream(p) << R"({"type":"context","ranks":2})"
                   << "\n"
                   << R"({"type":"skip","reason":"a"})"
                   << "\n\n"
                   << R"({"no_type":1})"
                   << "\n"
                   << R"({"type":"skip","reason":"b"})"
                   << "\n"
                   << R"({"type":"end","status":4})"
                   << "\n"
                   << R"({"type":"poi)";
  const RawRun run = ReadRaw(p.string());
  fs::remove(p);
  EXPECT_EQ(run.context.value("ranks", 0), 2);
  EXPECT_TRUE(run.ended);
  EXPECT_EQ(run.status, 4);
  EXPECT_EQ(run.truncated_lines, 2);  // the record without a type and the torn last line
  EXPECT_EQ(run.records.size(), 4u);
  const auto skips = RecordsOfType(run, record::kSkip);
  ASSERT_EQ(skips.size(), 2u);
  EXPECT_EQ((*skips[1])["reason"], "b");
  EXPECT_TRUE(RecordsOfType(run, record::kPoint).empty());
}

TEST(RawLog, MissingFileIsAnEmptyRun) {
  const RawRun run = ReadRaw("/nonexistent/raw.jsonl");
  EXPECT_TRUE(run.records.empty());
  EXPECT_TRUE(run.context.is_object());
  EXPECT_FALSE(run.ended);
}

// Asked once a second while a job runs: only a complete last line that is
// an "end" record says the harness is done.
TEST(RawLog, EndedOnlyWhenTheLastCompleteLineIsTheEndRecord) {
  const fs::path p = fs::temp_directory_path() / "nbcguard_raw_log_ended_test.jsonl";
  EXPECT_FALSE(RawLogEnded("/nonexistent/raw.jsonl"));
  std::ofstream(p) << "";
  EXPECT_FALSE(RawLogEnded(p.string()));
  std::ofstream(p) << R"({"type":"context","ranks":2})"
                   << "\n"
                   << std::string(5000, ' ') << "\n";
  EXPECT_FALSE(RawLogEnded(p.string()));
  std::ofstream(p, std::ios::app) << R"({"status":0,"type":"end"})";  // not yet ended by its newline
  EXPECT_FALSE(RawLogEnded(p.string()));
  std::ofstream(p, std::ios::app) << "\n";
  EXPECT_TRUE(RawLogEnded(p.string()));
  std::ofstream(p, std::ios::app) << R"({"type":"point"})"
                                  << "\n";  // something after it
  EXPECT_FALSE(RawLogEnded(p.string()));
  // A long log: only its tail is read.
  {
    std::ofstream f(p);
    for (int i = 0; i < 10000; ++i) f << R"({"type":"point","i":)" << i << "}\n";
    f << R"({"status":4,"type":"end"})"
      << "\n";
  }
  EXPECT_TRUE(RawLogEnded(p.string()));
  fs::remove(p);
}

}  // namespace
}  // namespace nbcguard
