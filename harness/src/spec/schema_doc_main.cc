// nbcguard-schema-doc cases|thresholds [--update FILE]: prints the reference
// table of case or threshold files that docs/cases.md and docs/thresholds.md
// hold between their marker comments, or rewrites that section of FILE.
// Run it after changing a schema table in harness/src/spec/; the unit test
// SchemaDoc.* fails until the docs match.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "nbcguard/schema_doc.h"

int main(int argc, char** argv) {
  using namespace nbcguard;
  const std::string usage = "usage: nbcguard-schema-doc cases|thresholds [--update FILE]\n";
  std::optional<SchemaDoc> doc = argc >= 2 ? ParseSchemaDoc(argv[1]) : std::nullopt;
  if (!doc || !(argc == 2 || (argc == 4 && std::string(argv[2]) == "--update"))) {
    std::cerr << usage;
    return 2;
  }
  if (argc == 2) {
    std::cout << RenderSchemaDoc(*doc);
    return 0;
  }
  const std::string path = argv[3];
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    std::cerr << "nbcguard-schema-doc: cannot read " << path << "\n";
    return 2;
  }
  std::optional<std::string> updated = ReplaceGeneratedSection(text.str(), *doc);
  if (!updated) {
    std::cerr << "nbcguard-schema-doc: " << path << " has no section between \"" << SchemaDocBegin(*doc)
              << "\" and \"" << SchemaDocEnd(*doc) << "\"\n";
    return 1;
  }
  if (*updated == text.str()) return 0;
  std::ofstream out(path, std::ios::trunc);
  out << *updated;
  if (!out) {
    std::cerr << "nbcguard-schema-doc: cannot write " << path << "\n";
    return 2;
  }
  std::cout << "nbcguard-schema-doc: updated the " << ToString(*doc) << " reference in " << path << "\n";
  return 0;
}
