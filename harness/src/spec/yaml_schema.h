// Private to the spec parsers (case_spec.cc, threshold_spec.cc): a schema
// table type for YAML mappings and the value readers both file formats use.
// One table per mapping drives the parser (known keys, required keys,
// defaults), the error messages (what is valid) and the docs (SchemaKey).
// Nothing here throws: yaml-cpp conversions are wrapped, and every problem
// becomes a SpecError at the offending node.
#pragma once

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "nbcguard/deployment.h"
#include "nbcguard/spec_error.h"
#include "nbcguard/units.h"

namespace nbcguard::yaml_schema {

// ---------------------------------------------------------------- errors

// yaml-cpp marks are 0-based; users read 1-based lines and columns.
inline SourceLocation Where(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return {file, 0, 0};
  return {file, mark.line + 1, mark.column + 1};
}

// Every error found in one file.
class Errors {
 public:
  explicit Errors(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }
  std::size_t size() const { return list_.size(); }
  void Add(const YAML::Mark& mark, std::string message) {
    list_.push_back({Where(file_, mark), std::move(message)});
  }
  void Add(const YAML::Node& node, std::string message) { Add(node.Mark(), std::move(message)); }
  void AddUnlocated(std::string message) { list_.push_back({{file_, 0, 0}, std::move(message)}); }
  // In file order; errors at the same place keep the order they were found in.
  std::vector<SpecError> Sorted() const {
    std::vector<SpecError> out = list_;
    std::stable_sort(out.begin(), out.end(), [](const SpecError& a, const SpecError& b) {
      return std::make_pair(a.where.line, a.where.column) < std::make_pair(b.where.line, b.where.column);
    });
    return out;
  }

 private:
  std::string file_;
  std::vector<SpecError> list_;
};

// ---------------------------------------------------------------- text

inline std::string Quote(const std::string& s) {
  constexpr std::size_t kMax = 60;
  return '"' + (s.size() > kMax ? s.substr(0, kMax) + "..." : s) + '"';
}

inline std::string Join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += sep;
    out += item;
  }
  return out;
}

// What a node is, for "got ..." in messages.
inline std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return node.Tag() == "!" ? "the quoted string " + Quote(node.Scalar()) : Quote(node.Scalar());
    case YAML::NodeType::Sequence:
      return node.size() == 0 ? "an empty list" : "a list";
    case YAML::NodeType::Map:
      return node.size() == 0 ? "an empty mapping" : "a mapping";
    default:
      return "nothing";
  }
}

// [a-z0-9][a-z0-9_-]*: names and labels that are safe in test names.
inline bool IsIdentifier(const std::string& s) {
  auto plain = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (s.empty() || !plain(s.front())) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return plain(c) || c == '_' || c == '-'; });
}

inline std::size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// " (did you mean "nodes"?)" for a near miss among `allowed`; empty otherwise.
inline std::string DidYouMean(const std::string& got, const std::vector<std::string>& allowed) {
  const std::string* best = nullptr;
  std::size_t best_distance = 3;  // at most two edits away
  for (const auto& candidate : allowed) {
    std::size_t d = EditDistance(got, candidate);
    if (d < best_distance && d < std::max<std::size_t>(candidate.size(), 2)) {
      best = &candidate;
      best_distance = d;
    }
  }
  return best ? " (did you mean " + Quote(*best) + "?)" : std::string();
}

inline std::string Child(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + '.' + key;
}

// ---------------------------------------------------------------- scalars

inline std::optional<std::string> ScalarText(const YAML::Node& node) {
  if (!node.IsScalar()) return std::nullopt;
  return node.Scalar();
}

// A plain (unquoted) YAML scalar converted to T; nullopt when it does not
// convert. Quoted "15" is a string, not a number.
template <class T>
std::optional<T> PlainScalarAs(const YAML::Node& node) {
  if (!node.IsScalar() || node.Tag() == "!") return std::nullopt;
  try {
    return node.as<T>();
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

// Integers are written in decimal: "8", "-1", "0"; never "010" (which YAML
// reads as octal 8), "0x10" or "0o10".
inline bool IsDecimalInteger(const std::string& s) {
  const std::size_t digits = !s.empty() && s.front() == '-' ? 1 : 0;
  if (s.size() == digits) return false;
  if (s[digits] == '0' && s.size() > digits + 1) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(digits), s.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

inline std::optional<long long> ScalarInt(const YAML::Node& node) {
  if (!node.IsScalar() || !IsDecimalInteger(node.Scalar())) return std::nullopt;
  return PlainScalarAs<long long>(node);
}

// " (write integers in decimal, e.g. 8)" for a plain scalar that YAML reads
// as an integer but is not decimal (010, 0x10, 0o10); empty otherwise.
inline std::string NotDecimalHint(const YAML::Node& node) {
  if (!node.IsScalar() || IsDecimalInteger(node.Scalar()) || !PlainScalarAs<long long>(node)) return "";
  return " (not a decimal integer: write a decimal integer without leading zeros, e.g. 8)";
}

inline std::optional<double> ScalarNumber(const YAML::Node& node) {
  std::optional<double> x = PlainScalarAs<double>(node);
  if (x && !std::isfinite(*x)) return std::nullopt;
  return x;
}

// ---------------------------------------------------------------- schema

// One key's value being parsed: the node, its dotted path and what the
// schema says is valid there.
struct Value {
  const YAML::Node& node;
  std::string path;
  const std::string& type;
  Errors& errors;

  // "<path>: <message>" at `at`.
  void Fail(const YAML::Node& at, const std::string& message) const { errors.Add(at, path + ": " + message); }
  // "<path>: expected <type>; got <what is there>" at `at`.
  void Expected(const YAML::Node& at) const {
    Fail(at, "expected " + type + "; got " + Describe(at) + NotDecimalHint(at));
  }
  void Expected() const { Expected(node); }
};

enum class Need { kRequired, kOptional };

template <class T>
struct Field {
  const char* key;
  std::string type;  // what is valid, e.g. "an integer from 3 to 100000"
  Need need;
  const char* fallback;  // YAML text parsed when the key is absent; nullptr = none
  const char* meaning;   // one line for the docs
  void (*parse)(const Value& value, T& out);
};

template <class T>
std::vector<std::string> KeyNames(const std::vector<Field<T>>& fields) {
  std::vector<std::string> out;
  out.reserve(fields.size());
  for (const auto& f : fields) out.emplace_back(f.key);
  return out;
}

template <class T>
const Field<T>* FindField(const std::vector<Field<T>>& fields, const std::string& key) {
  for (const auto& f : fields) {
    if (key == f.key) return &f;
  }
  return nullptr;
}

// A default is part of the schema: it must parse, or the table is broken.
template <class T>
void ApplyDefault(const Field<T>& field, const std::string& path, T& out) {
  Errors scratch("<default>");
  YAML::Node node = YAML::Load(field.fallback);
  field.parse(Value{node, path, field.type, scratch}, out);
  if (scratch.size() != 0) {
    std::fprintf(stderr, "nbcguard: schema default of %s (%s) does not parse\n", path.c_str(),
                 field.fallback);
    std::abort();
  }
}

// A key that is not valid here but is elsewhere (a key of another kind of
// case), with what to say instead of "unknown key".
struct ElsewhereKey {
  std::string key;
  std::string message;
};

// Checks `map` against `fields`: unknown, repeated and empty keys, missing
// required keys; parses each present key and applies defaults for absent
// ones. `path` prefixes keys in messages ("" at the top level). A key in
// `elsewhere` is an error with its own message rather than "unknown key".
// Returns false when `map` is not a mapping at all.
template <class T>
bool ParseFields(const YAML::Node& map, const std::string& path, const std::vector<Field<T>>& fields,
                 Errors& errors, T& out, const std::vector<ElsewhereKey>& elsewhere = {}) {
  const std::string where = path.empty() ? "" : path + ": ";
  const std::vector<std::string> names = KeyNames(fields);
  if (!map.IsMap()) {
    errors.Add(map, where + "expected a mapping with keys " + Join(names) + "; got " + Describe(map));
    return false;
  }
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first;
    const YAML::Node value = it->second;
    const std::string name = key.IsScalar() ? key.Scalar() : Describe(key);
    const Field<T>* field = key.IsScalar() ? FindField(fields, name) : nullptr;
    const auto other = std::find_if(elsewhere.begin(), elsewhere.end(),
                                    [&](const ElsewhereKey& e) { return key.IsScalar() && e.key == name; });
    if (!field && other != elsewhere.end()) {
      errors.Add(key, Child(path, name) + ": " + other->message);
    } else if (!field) {
      errors.Add(key, where + "unknown key " + Quote(name) + DidYouMean(name, names) +
                          "; allowed keys: " + Join(names));
    } else if (!seen.insert(name).second) {
      errors.Add(key, Child(path, name) + ": key given twice; give each key once");
    } else if (value.IsNull()) {
      errors.Add(key, Child(path, name) + ": no value; expected " + field->type);
    } else {
      field->parse(Value{value, Child(path, name), field->type, errors}, out);
    }
  }
  for (const auto& field : fields) {
    if (seen.count(field.key)) continue;
    if (field.need == Need::kRequired) {
      errors.Add(map, where + "missing required key " + Quote(field.key) + ": " + field.type);
    } else if (field.fallback) {
      ApplyDefault(field, Child(path, field.key), out);
    }
  }
  return true;
}

// Appends the docs of one table, keys prefixed with `prefix` ("grid.").
template <class T>
void AppendDocs(const std::string& prefix, const std::vector<Field<T>>& fields, std::vector<SchemaKey>& out) {
  for (const auto& f : fields) {
    out.push_back(
        {prefix + f.key, f.type, f.need == Need::kRequired, f.fallback ? f.fallback : "", f.meaning});
  }
}

// ---------------------------------------------------------------- values

// Items of a value that is a non-empty list or (when `allow_single`) one
// scalar, each converted by `convert` (nullopt = not valid: "expected
// <type>" at the item). Repeated items are errors at the repeat. nullopt
// when anything was wrong (errors added).
template <class X, class Convert>
std::optional<std::vector<X>> ReadItems(const Value& v, bool allow_single, Convert convert) {
  std::vector<YAML::Node> items;
  if (v.node.IsSequence()) {
    for (const auto& item : v.node) items.push_back(item);
    if (items.empty()) {
      v.Fail(v.node, "the list is empty; expected " + v.type);
      return std::nullopt;
    }
  } else if (allow_single && v.node.IsScalar()) {
    items.push_back(v.node);
  } else {
    v.Expected();
    return std::nullopt;
  }
  std::vector<X> out;
  std::map<X, int> first_line;  // each item's first line: repeats found in n log n
  bool ok = true;
  for (const auto& item : items) {
    std::optional<X> x = convert(item);
    if (!x) {
      v.Expected(item);
      ok = false;
      continue;
    }
    const auto [first, inserted] = first_line.emplace(*x, item.Mark().line + 1);
    if (!inserted) {
      v.Fail(item, Describe(item) + " is listed twice (first at line " + std::to_string(first->second) +
                       "); list each once");
      ok = false;
    } else {
      out.push_back(*x);
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

inline std::optional<std::string> ReadIdentifier(const YAML::Node& node) {
  std::optional<std::string> s = ScalarText(node);
  if (!s || !IsIdentifier(*s)) return std::nullopt;
  return s;
}

// A duration scalar ("4ms"); errors name what is allowed.
inline std::optional<double> ReadDuration(const Value& v, const YAML::Node& at) {
  std::optional<std::string> text = ScalarText(at);
  if (!text) {
    v.Expected(at);
    return std::nullopt;
  }
  std::string error;
  std::optional<double> seconds = ParseDuration(*text, &error);
  if (!seconds) v.Fail(at, error);
  return seconds;
}

constexpr int kMaxProcesses = 4096;

inline std::string ProcessCountType() {
  return "an MPI process count from 2 to " + std::to_string(kMaxProcesses) +
         " (a collective needs 2 or more processes), or a list of them, e.g. [2, 4]";
}

inline std::string DeploymentType() { return "one of " + Join(DeploymentNames()) + ", or a list of them"; }

inline std::string CollectiveType() { return "one of " + Join(CollectiveNames()) + ", or a list of them"; }

inline std::optional<std::vector<int>> ReadProcessCounts(const Value& v) {
  return ReadItems<int>(v, true, [](const YAML::Node& n) -> std::optional<int> {
    std::optional<long long> x = ScalarInt(n);
    if (!x || *x < 2 || *x > kMaxProcesses) return std::nullopt;
    return static_cast<int>(*x);
  });
}

inline std::optional<std::vector<Deployment>> ReadDeployments(const Value& v) {
  return ReadItems<Deployment>(v, true, [](const YAML::Node& n) -> std::optional<Deployment> {
    std::optional<std::string> s = ScalarText(n);
    return s ? ParseDeployment(*s) : std::nullopt;
  });
}

inline std::optional<std::vector<std::string>> ReadCollectives(const Value& v) {
  return ReadItems<std::string>(v, true, [](const YAML::Node& n) -> std::optional<std::string> {
    std::optional<std::string> s = ScalarText(n);
    const auto& known = CollectiveNames();
    if (!s || std::find(known.begin(), known.end(), *s) == known.end()) return std::nullopt;
    return s;
  });
}

inline std::optional<std::vector<std::string>> ReadLabels(const Value& v, bool allow_single) {
  return ReadItems<std::string>(v, allow_single, ReadIdentifier);
}

// ---------------------------------------------------------------- files

// The largest case or threshold file read; larger ones are refused unread.
constexpr std::size_t kMaxFileBytes = 1 << 20;

// The text of a regular file of at most kMaxFileBytes; an error without line
// (line 0) when it cannot be read or is something else (a directory, a FIFO,
// a device). Opened without blocking, so a FIFO with no writer is refused
// at once rather than waited for.
inline std::optional<std::string> ReadFile(const std::string& path, Errors& errors) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    errors.AddUnlocated(std::string("cannot open the file: ") + std::strerror(errno));
    return std::nullopt;
  }
  struct stat st {};
  std::string problem;
  if (::fstat(fd, &st) != 0) {
    problem = std::string("cannot read the file: ") + std::strerror(errno);
  } else if (S_ISDIR(st.st_mode)) {
    problem = "is a directory; expected a YAML file";
  } else if (!S_ISREG(st.st_mode)) {
    problem = "is not a regular file (a FIFO, socket or device); expected a YAML file";
  } else if (static_cast<unsigned long long>(st.st_size) > kMaxFileBytes) {
    problem =
        "the file has " + std::to_string(st.st_size) + " bytes; case and threshold files are at most 1 MiB";
  }
  std::string text;
  char buffer[4096];
  while (problem.empty()) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) problem = std::string("cannot read the file: ") + std::strerror(errno);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxFileBytes)
      problem = "the file grew past 1 MiB while read; case and threshold files are at most 1 MiB";
  }
  ::close(fd);
  if (!problem.empty()) {
    errors.AddUnlocated(problem);
    return std::nullopt;
  }
  return text;
}

// Where the flow collection ('[' or '{') still open at `end` was opened:
// 0-based line and column, or nullopt when all are closed. Quoted scalars
// and comments are skipped; a bracket counts only where a flow collection
// may begin (after ": ", "- ", line start, or inside another one).
inline std::optional<std::pair<char, std::pair<int, int>>> OpenFlowAt(const std::string& text,
                                                                      std::size_t end) {
  std::vector<std::pair<char, std::pair<int, int>>> open;
  int line = 0, column = 0;
  char quote = 0;
  char before = '\n';  // the last non-blank character of the line, '\n' at its start
  end = std::min(end, text.size());
  for (std::size_t i = 0; i < end; ++i, ++column) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      column = -1;
      before = '\n';
      if (quote == 0) continue;
    }
    if (quote != 0) {
      if (quote == '"' && c == '\\') {
        ++i;
        ++column;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == ' ' || c == '\t') continue;
    const bool value_start =
        before == '\n' || before == ':' || before == '-' || before == ',' || before == '[' || before == '{';
    if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t' || before == '\n')) {
      while (i + 1 < end && text[i + 1] != '\n') ++i;
      continue;
    }
    if ((c == '"' || c == '\'') && value_start) {
      quote = c;
    } else if ((c == '[' || c == '{') && (value_start || !open.empty())) {
      open.push_back({c, {line, column}});
    } else if ((c == ']' || c == '}') && !open.empty()) {
      open.pop_back();
    }
    before = c;
  }
  if (open.empty()) return std::nullopt;
  return open.back();
}

// A hint for the YAML mistakes people make in these files: a '[' or '{'
// never closed (named where it was opened), tabs in indentation, and
// unquoted values that start with a YAML indicator (versions: >=4.0,
// versions: *). Empty when none is found.
inline std::string SyntaxHint(const std::string& text, const YAML::Mark& mark, const std::string& message) {
  if (mark.line < 0) return "";
  if (mark.pos >= 0 && message.find("flow not found") != std::string::npos) {
    if (auto open = OpenFlowAt(text, static_cast<std::size_t>(mark.pos))) {
      return std::string(" (the '") + open->first + "' opened at line " +
             std::to_string(open->second.first + 1) + ", column " + std::to_string(open->second.second + 1) +
             " is never closed)";
    }
  }
  if (message.find("illegal flow end") != std::string::npos) {
    return " (a ']' or '}' that closes no '[' or '{'; quote a value that starts with it)";
  }
  std::size_t begin = 0;
  for (int line = 0; line < mark.line && begin != std::string::npos; ++line) {
    begin = text.find('\n', begin);
    if (begin != std::string::npos) ++begin;
  }
  if (begin == std::string::npos) return "";
  const std::string line = text.substr(begin, text.find('\n', begin) - begin);
  if (line.find('\t') != std::string::npos) return " (indent with spaces; YAML does not allow tabs)";
  std::size_t colon = line.find(": ");
  std::size_t value = colon == std::string::npos ? colon : line.find_first_not_of(' ', colon + 1);
  if (value != std::string::npos && std::string(">|*&!%@`").find(line[value]) != std::string::npos) {
    return " (quote values that start with " + std::string(1, line[value]) + ", e.g. versions: \">=4.0\")";
  }
  return "";
}

// Where each document of a YAML stream starts, from the parser's events.
// Only the document starts matter; the nodes are built by YAML::Load.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
  }
  void OnMapEnd() override {}
};

// The one YAML document in `text`. Syntax errors are reported at the
// parser's mark; an empty text or several documents are errors too.
// `what` names the file kind in messages ("a case file").
//
// The stream is walked document by document, at most two, instead of with
// YAML::LoadAll: yaml-cpp 0.7 (Debian 12) never returns from LoadAll when a
// token cannot start a node (a stray ',' ']' or '}' at the top level): the
// parser reports an empty document without consuming the token, again and
// again. Here a second document that starts where the first did is that
// case, and an error at the token.
inline std::optional<YAML::Node> LoadDocument(const std::string& text, const std::string& what,
                                              Errors& errors) {
  YAML::Node doc;
  DocumentStarts found;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    for (int n = 0; n < 2 && parser.HandleNextDocument(found); ++n) {
    }
    if (found.starts.size() == 2 && found.starts[0].pos == found.starts[1].pos) {
      const YAML::Mark& at = found.starts[0];
      const char token = at.pos >= 0 && static_cast<std::size_t>(at.pos) < text.size() ? text[at.pos] : '?';
      errors.Add(
          at, std::string("invalid YAML: '") + token +
                  "' cannot start a value here (outside [...] or {...}, quote a value that starts with it)");
      return std::nullopt;
    }
    if (found.starts.size() > 1) {
      errors.Add(found.starts[1], what + " holds one YAML document; remove this second one");
      return std::nullopt;
    }
    doc = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {  // yaml-cpp's own message is "bad file"
    errors.Add(e.mark, "invalid YAML: nested more than " + std::to_string(e.depth() - 1) +
                           " levels deep ([, {, - or keys inside one another)");
    return std::nullopt;
  } catch (const YAML::ParserException& e) {
    errors.Add(e.mark, "invalid YAML: " + e.msg + SyntaxHint(text, e.mark, e.msg));
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    errors.Add(e.mark, "invalid YAML: " + e.msg);
    return std::nullopt;
  }
  if (found.starts.empty() || doc.IsNull()) {
    errors.Add(YAML::Mark(), "the file is empty; " + what + " is a YAML mapping");
    return std::nullopt;
  }
  return doc;
}

// ------------------------------------------------------ whole documents

// Parses one YAML document of `text` against the top-level `fields` into a
// Spec whose `file` member is set; every error found, never an exception.
// `what` names the file kind in messages ("a case file").
template <class Spec>
Parsed<Spec> ParseDocument(const std::string& text, const std::string& file, const std::string& what,
                           const std::vector<Field<Spec>>& fields) {
  Errors errors(file);
  Spec spec;
  spec.file = file;
  try {
    if (auto doc = LoadDocument(text, what, errors)) ParseFields(*doc, "", fields, errors, spec);
  } catch (const YAML::Exception& e) {  // a yaml-cpp surprise must not crash the driver
    errors.Add(e.mark, "cannot read the YAML: " + e.msg);
  }
  Parsed<Spec> out;
  out.errors = errors.Sorted();
  if (out.errors.empty()) out.value = std::move(spec);
  return out;
}

// Reads `path` and hands its text to `parse` (ParseCaseSpec, ...).
template <class Spec>
Parsed<Spec> LoadDocumentFile(const std::string& path,
                              Parsed<Spec> (*parse)(const std::string& text, const std::string& file)) {
  Errors errors(path);
  std::optional<std::string> text = ReadFile(path, errors);
  if (!text) {
    Parsed<Spec> out;
    out.errors = errors.Sorted();
    return out;
  }
  return parse(*text, path);
}

}  // namespace nbcguard::yaml_schema
