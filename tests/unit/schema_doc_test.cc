// docs/cases.md and docs/thresholds.md hold the reference tables rendered
// from the parsers' schema tables; these tests fail when the docs drift from
// the tables, and when a key the parsers accept is missing from the tables.
#include "nbcguard/schema_doc.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "nbcguard/case_spec.h"
#include "nbcguard/threshold_spec.h"

namespace nbcguard {
namespace {

std::string ReadPage(SchemaDoc doc) {
  std::ifstream in(std::string(NBCGUARD_SOURCE_DIR) + "/" + SchemaDocPage(doc));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void ExpectDocsMatchTables(SchemaDoc doc) {
  const std::string page = ReadPage(doc);
  ASSERT_FALSE(page.empty()) << SchemaDocPage(doc) << " is missing or empty";
  const std::optional<std::string> section = GeneratedSection(page, doc);
  ASSERT_TRUE(section.has_value()) << SchemaDocPage(doc) << " has no section between \""
                                   << SchemaDocBegin(doc) << "\" and \"" << SchemaDocEnd(doc) << "\"";
  EXPECT_EQ(*section, RenderSchemaDoc(doc))
      << SchemaDocPage(doc) << " differs from the schema tables in harness/src/spec/. Regenerate it with\n"
      << "  build/<preset>/harness/nbcguard-schema-doc " << ToString(doc) << " --update "
      << SchemaDocPage(doc) << "\n(or paste the output of `nbcguard-schema-doc " << ToString(doc)
      << "` between the markers).";
}

TEST(SchemaDoc, CasesPageMatchesTheSchemaTables) { ExpectDocsMatchTables(SchemaDoc::kCases); }
TEST(SchemaDoc, ThresholdsPageMatchesTheSchemaTables) { ExpectDocsMatchTables(SchemaDoc::kThresholds); }

// The keys the parser lists after `marker` ("allowed keys: a, b, c") in the
// first error that has it.
std::vector<std::string> Allowed(const std::vector<SpecError>& errors, const std::string& marker) {
  for (const SpecError& e : errors) {
    const std::size_t at = e.message.find(marker);
    if (at == std::string::npos) continue;
    std::vector<std::string> out;
    std::stringstream list(e.message.substr(at + marker.size()));
    for (std::string key; std::getline(list, key, ',');)
      out.push_back(key.substr(key.find_first_not_of(' ')));
    return out;
  }
  return {};
}

// Every key the parser offers at one level appears as a row `prefix + key`.
void ExpectRows(const std::string& table, const std::vector<SpecError>& errors, const std::string& prefix,
                const std::string& marker = "allowed keys: ") {
  const std::vector<std::string> keys = Allowed(errors, marker);
  ASSERT_FALSE(keys.empty()) << "no \"" << marker << "\" in the errors for " << prefix;
  for (const std::string& key : keys) {
    std::string row = "| `" + prefix + key + "` |";
    for (std::size_t i = 0; (i = row.find('|', i + 1)) < row.size() - 1;) row.insert(i++, "\\");
    EXPECT_NE(table.find(row), std::string::npos)
        << "the parser accepts " << prefix << key << ", the rendered table has no row for it";
  }
}

std::vector<SpecError> CaseErrors(const std::string& yaml) { return ParseCaseSpec(yaml, "t.yaml").errors; }
std::vector<SpecError> ThresholdErrors(const std::string& yaml) {
  return ParseThresholdSpec(yaml, "t.yaml").errors;
}

TEST(SchemaDoc, EveryCaseKeyTheParserAcceptsIsRendered) {
  const std::string table = RenderSchemaDoc(SchemaDoc::kCases);
  const std::string overlap = "name: t\ncollective: ibcast\nnodes: 2\n";
  const std::string grid = "grid: {comm: [1ms], comp: [1ms]}\n";
  ExpectRows(table, CaseErrors(overlap + grid + "bogus: 1\n"), "");
  ExpectRows(table, CaseErrors("kind: partitioned\nname: t\nnodes: 2\npartitioned: {}\nbogus: 1\n"), "");
  ExpectRows(table, CaseErrors(overlap + "grid: {comm: [1ms], comp: [1ms], bogus: 1}\n"), "grid.");
  ExpectRows(table,
             CaseErrors(overlap + "grid: {comm: {from: 1ms, to: 2ms, factor: 2, bogus: 1}, comp: [1ms]}\n"),
             "grid.<axis>.");
  ExpectRows(table, CaseErrors(overlap + grid + "reference: {behaviour: deferred, bogus: 1}\n"),
             "reference.");
  ExpectRows(table, CaseErrors(overlap + grid + "progression: {bogus: 1}\n"), "progression.");
  const std::string partitioned = "kind: partitioned\nname: t\nnodes: 2\n";
  ExpectRows(table, CaseErrors(partitioned + "partitioned: {bogus: 1}\n"), "partitioned.");
  ExpectRows(
      table,
      CaseErrors(partitioned + "partitioned: {partitions: {from: 1KiB, to: 8KiB, factor: 2, bogus: 1}}\n"),
      "partitioned.partitions.");
}

TEST(SchemaDoc, EveryThresholdKeyTheParserAcceptsIsRendered) {
  const std::string table = RenderSchemaDoc(SchemaDoc::kThresholds);
  const std::string head = "implementation: mpich\nversions: \"*\"\n";
  auto rule = [&](const std::string& body) {
    return ThresholdErrors(head + "rules:\n  - {name: r, source: s, " + body + "}\n");
  };
  ExpectRows(
      table,
      ThresholdErrors(head + "rules:\n  - {name: r, source: s, limits: {r_comm: {max: 1}}}\nbogus: 1\n"), "");
  ExpectRows(table, rule("limits: {r_comm: {max: 1}}, bogus: 1"), "rules[].");
  ExpectRows(table, rule("match: {bogus: 1}, limits: {r_comm: {max: 1}}"), "rules[].match.");
  ExpectRows(table, rule("region: {bogus: 1}, limits: {r_comm: {max: 1}}"), "rules[].region.");
  ExpectRows(table, rule("region: {comm: {bogus: 1}}, limits: {r_comm: {max: 1}}"),
             "rules[].region.<comm|comp>.");
  ExpectRows(table, rule("region: {partition: {bogus: 1}}, limits: {r_partitioned: {min: 1}}"),
             "rules[].region.partition.");
  ExpectRows(table, rule("limits: {bogus: {max: 1}}"), "rules[].limits.", "allowed metrics: ");
  ExpectRows(table, rule("limits: {r_comm: {max: 1, bogus: 1}}"), "rules[].limits.<metric>.");
}

TEST(SchemaDoc, RenderingEscapesMarkdown) {
  const std::string table = RenderSchemaTable({{"a.<x|y>", "one of a|b, thread-*", true, "", "<b>"}});
  EXPECT_NE(table.find("| `a.<x\\|y>` | yes | one of a\\|b, thread-\\* |  | \\<b> |"), std::string::npos)
      << table;
}

TEST(SchemaDoc, SectionIsReplacedBetweenTheMarkers) {
  const std::string page = "intro\n" + SchemaDocBegin(SchemaDoc::kCases) + "\nold\n" +
                           SchemaDocEnd(SchemaDoc::kCases) + "\nafter\n";
  std::optional<std::string> updated = ReplaceGeneratedSection(page, SchemaDoc::kCases);
  ASSERT_TRUE(updated.has_value());
  EXPECT_EQ(*GeneratedSection(*updated, SchemaDoc::kCases), RenderSchemaDoc(SchemaDoc::kCases));
  EXPECT_EQ(updated->substr(0, 6), "intro\n");
  EXPECT_EQ(updated->substr(updated->size() - 6), "after\n");
  EXPECT_FALSE(GeneratedSection("no markers", SchemaDoc::kCases).has_value());
  EXPECT_FALSE(GeneratedSection(page, SchemaDoc::kThresholds).has_value());
}

}  // namespace
}  // namespace nbcguard
