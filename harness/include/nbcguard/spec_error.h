// Errors found in user-written files (cases, thresholds): always carry the
// file, line and column, and say what would have been valid.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace nbcguard {

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown (e.g. the file cannot be read)
  int column = 0;  // 1-based; 0 when unknown
};

struct SpecError {
  SourceLocation where;
  std::string message;
  // "file:line:column: message" (line/column omitted when unknown).
  std::string ToString() const;
};

// One key of a file format, as documentation: the same table the parser
// uses for its checks and error messages (CaseSpecSchema(),
// ThresholdSpecSchema()).
struct SchemaKey {
  std::string key;   // dotted path: "grid.comm", "rules[].limits"
  std::string type;  // what is valid there
  bool required = false;
  std::string default_value;  // YAML text used when absent; empty when none
  std::string meaning;
};

// The outcome of parsing a user file: a value, or every error found in it.
template <class T>
struct Parsed {
  std::optional<T> value;
  std::vector<SpecError> errors;
  bool ok() const { return value.has_value() && errors.empty(); }
  // All errors joined by newlines.
  std::string ErrorText() const {
    std::string out;
    for (const auto& e : errors) {
      if (!out.empty()) out += '\n';
      out += e.ToString();
    }
    return out;
  }
};

}  // namespace nbcguard
