// The reference tables of docs/cases.md and docs/thresholds.md, rendered
// from the schema tables the parsers use (CaseSpecSchema(),
// ThresholdSpecSchema()), so the docs cannot drift from what the parsers
// accept. The docs hold the rendered text between two marker comments; a
// unit test compares it with RenderSchemaDoc(), and nbcguard-schema-doc
// prints it or rewrites the section. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nbcguard/spec_error.h"

namespace nbcguard {

enum class SchemaDoc { kCases, kThresholds };

// "cases", "thresholds" (the argument of nbcguard-schema-doc).
const char* ToString(SchemaDoc doc);
std::optional<SchemaDoc> ParseSchemaDoc(const std::string& name);
// The page the section lives in, relative to the source tree: "docs/cases.md".
const char* SchemaDocPage(SchemaDoc doc);

// A Markdown table, one row per key: key, required, allowed values, default,
// meaning. Cell text is escaped so that it renders as written.
std::string RenderSchemaTable(const std::vector<SchemaKey>& keys);
// The table of every key of case files or of threshold files.
std::string RenderSchemaDoc(SchemaDoc doc);

// The marker lines around the generated section, without newline.
std::string SchemaDocBegin(SchemaDoc doc);
std::string SchemaDocEnd(SchemaDoc doc);
// The text between the marker lines of `page` (from the line after the
// begin marker up to the end marker's line); nullopt when either marker is
// missing or they are out of order.
std::optional<std::string> GeneratedSection(const std::string& page, SchemaDoc doc);
// `page` with its generated section replaced by RenderSchemaDoc(doc);
// nullopt when the markers are missing.
std::optional<std::string> ReplaceGeneratedSection(const std::string& page, SchemaDoc doc);

}  // namespace nbcguard
