#include "nbcguard/results_io.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "results_schema.h"

namespace nbcguard {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The JSON Schema subset schema/results.schema.json uses: type, const, enum,
// minimum, maximum, minItems, maxItems, required, properties, items,
// if/then/else and local $ref. Annotations ($schema, title, description)
// are ignored; results_io_test checks that the schema uses no other keyword,
// so a keyword added there cannot be silently skipped here.
class SchemaCheck {
 public:
  explicit SchemaCheck(const json& root) : root_(root) {}

  // "" when `v` conforms to `schema`, else "<where>: <problem>".
  std::string Check(const json& schema, const json& v, const std::string& where) const {
    if (schema.is_boolean()) return schema.get<bool>() ? "" : At(where) + ": not allowed";
    if (!schema.is_object()) return "";
    if (auto r = schema.find("$ref"); r != schema.end()) {
      const json* target = Resolve(r->get<std::string>());
      if (!target) return At(where) + ": schema reference " + r->dump() + " not found";
      if (std::string e = Check(*target, v, where); !e.empty()) return e;
    }
    if (auto t = schema.find("type"); t != schema.end() && !TypeMatches(*t, v))
      return At(where) + ": expected " + TypeList(*t) + ", got " + TypeName(v);
    if (auto c = schema.find("const"); c != schema.end() && *c != v)
      return At(where) + ": expected " + c->dump() + ", got " + Brief(v);
    if (auto e = schema.find("enum"); e != schema.end()) {
      bool found = false;
      for (const json& x : *e) found = found || x == v;
      if (!found) return At(where) + ": expected one of " + e->dump() + ", got " + Brief(v);
    }
    if (v.is_number()) {
      const double x = v.get<double>();
      if (auto m = schema.find("minimum"); m != schema.end() && x < m->get<double>())
        return At(where) + ": " + v.dump() + " is less than the minimum " + m->dump();
      if (auto m = schema.find("maximum"); m != schema.end() && x > m->get<double>())
        return At(where) + ": " + v.dump() + " is more than the maximum " + m->dump();
    }
    if (v.is_object()) {
      if (std::string e = CheckObject(schema, v, where); !e.empty()) return e;
    }
    if (v.is_array()) {
      if (std::string e = CheckArray(schema, v, where); !e.empty()) return e;
    }
    if (auto i = schema.find("if"); i != schema.end()) {
      const char* branch = Check(*i, v, where).empty() ? "then" : "else";
      if (auto b = schema.find(branch); b != schema.end())
        if (std::string e = Check(*b, v, where); !e.empty()) return e;
    }
    return "";
  }

 private:
  const json& root_;

  static std::string At(const std::string& where) { return where.empty() ? "(document)" : where; }

  static std::string Brief(const json& v) {
    std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
  }

  static std::string TypeName(const json& v) {
    if (v.is_number_integer()) return "integer";
    if (v.is_number()) return "number";
    return v.type_name();  // null, boolean, string, array, object
  }

  static bool IsType(const std::string& type, const json& v) {
    if (type == "integer")
      return v.is_number_integer() || (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>());
    if (type == "number") return v.is_number();
    return type == TypeName(v);
  }

  static bool TypeMatches(const json& type, const json& v) {
    if (type.is_string()) return IsType(type.get<std::string>(), v);
    for (const json& t : type)
      if (t.is_string() && IsType(t.get<std::string>(), v)) return true;
    return false;
  }

  static std::string TypeList(const json& type) {
    if (type.is_string()) return type.get<std::string>();
    std::string s;
    for (std::size_t i = 0; i < type.size(); ++i)
      s += (i == 0 ? "" : i + 1 == type.size() ? " or " : ", ") + type[i].get<std::string>();
    return s;
  }

  // "#/$defs/spread" within the schema itself.
  const json* Resolve(const std::string& ref) const {
    if (ref.rfind("#/", 0) != 0) return nullptr;
    try {
      return &root_.at(json::json_pointer(ref.substr(1)));
    } catch (const json::exception&) {
      return nullptr;
    }
  }

  std::string CheckObject(const json& schema, const json& v, const std::string& where) const {
    const std::string prefix = where.empty() ? "" : where + ".";
    if (auto r = schema.find("required"); r != schema.end())
      for (const json& name : *r)
        if (!v.contains(name.get<std::string>())) return prefix + name.get<std::string>() + ": missing";
    if (auto p = schema.find("properties"); p != schema.end())
      for (const auto& [name, sub] : p->items())
        if (auto f = v.find(name); f != v.end())
          if (std::string e = Check(sub, *f, prefix + name); !e.empty()) return e;
    return "";
  }

  std::string CheckArray(const json& schema, const json& v, const std::string& where) const {
    if (auto m = schema.find("minItems"); m != schema.end() && v.size() < m->get<std::size_t>())
      return At(where) + ": " + std::to_string(v.size()) + " items, at least " + m->dump() + " expected";
    if (auto m = schema.find("maxItems"); m != schema.end() && v.size() > m->get<std::size_t>())
      return At(where) + ": " + std::to_string(v.size()) + " items, at most " + m->dump() + " expected";
    if (auto items = schema.find("items"); items != schema.end())
      for (std::size_t i = 0; i < v.size(); ++i)
        if (std::string e = Check(*items, v[i], where + "[" + std::to_string(i) + "]"); !e.empty()) return e;
    return "";
  }
};

// Thrown by the parser callback past kResultsMaxDepth.
struct TooDeep {};

std::string Errno() { return std::strerror(errno); }

}  // namespace

const json& ResultsSchema() {
  static const json schema = json::parse(generated::kResultsSchemaText);
  return schema;
}

std::string ValidateResults(const json& results) {
  // The version first: a newer file may have changed any field, and the
  // message should say so rather than name the first field that differs.
  if (results.is_object()) {
    auto v = results.find("schema_version");
    if (v != results.end() && v->is_number_integer() && v->get<long long>() > kResultsSchemaVersion)
      return "schema_version: version " + v->dump() + " is newer than this nbcguard reads (up to " +
             std::to_string(kResultsSchemaVersion) + ")";
  }
  const json& schema = ResultsSchema();
  return SchemaCheck(schema).Check(schema, results, "");
}

ResultsRead ParseResults(const std::string& text, const std::string& source) {
  ResultsRead out;
  json j;
  try {
    j = json::parse(text, [](int depth, json::parse_event_t, json&) {
      if (depth > kResultsMaxDepth) throw TooDeep{};
      return true;
    });
  } catch (const TooDeep&) {
    out.error = source + ": nested deeper than " + std::to_string(kResultsMaxDepth) + " levels";
    return out;
  } catch (const json::exception& e) {
    out.error = source + ": not valid JSON (" + e.what() + ")";
    return out;
  }
  if (std::string problem = ValidateResults(j); !problem.empty()) {
    out.error = source + ": " + problem;
    return out;
  }
  ResultsDocument doc;
  doc.schema_version = j.value("schema_version", 1);
  doc.json = std::move(j);
  out.doc = std::move(doc);
  return out;
}

namespace {
// Why the results in `dir` are not current: "" when no run was left unfinished.
std::string UnfinishedRun(const fs::path& path) {
  if (path.filename() != "results.json") return "";  // results.previous.json, confirmation.json: as they are
  const fs::path marker = path.parent_path() / kUnfinishedRunFile;
  std::error_code ec;
  if (!fs::exists(marker, ec)) return "";
  std::string started = "?", pid = "?";
  try {
    std::ifstream in(marker);
    const json m = json::parse(in);
    started = m.value("started", started);
    if (m.contains("pid")) pid = m["pid"].dump();
  } catch (const std::exception&) {  // a marker half written when the machine stopped
  }
  const bool previous = fs::exists(path.parent_path() / kPreviousResultsFile, ec);
  return path.string() + ": the run started " + started + " (driver pid " + pid +
         ") did not finish: it was killed or interrupted (" + marker.filename().string() +
         " is left); its raw log is kept" +
         (previous ? std::string(", the results before it are in ") + kPreviousResultsFile : std::string()) +
         "; run the test again";
}
}  // namespace

std::string MarkRunStarted(const fs::path& dir, const json& what) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create the output directory " + dir.string() + ": " + ec.message();
  const fs::path results = dir / "results.json";
  if (!fs::exists(dir / kUnfinishedRunFile, ec) && fs::exists(results, ec)) {
    fs::rename(results, dir / kPreviousResultsFile, ec);
    if (ec) return "cannot move " + results.string() + " aside: " + ec.message();
  }
  return WriteResults(dir / kUnfinishedRunFile, what);
}

void MarkRunFinished(const fs::path& dir) {
  std::error_code ec;
  fs::remove(dir / kUnfinishedRunFile, ec);
}

ResultsRead ReadResults(const fs::path& path) {
  if (std::string unfinished = UnfinishedRun(path); !unfinished.empty()) return {std::nullopt, unfinished};
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {std::nullopt, path.string() + ": cannot be opened: " + Errno()};
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return {std::nullopt, path.string() + ": cannot be read: " + Errno()};
    ResultsRead r = ParseResults(text.str(), path.string());
    if (r.doc) r.doc->path = path;
    return r;
  } catch (const std::exception& e) {  // out of memory on a huge file
    return {std::nullopt, path.string() + ": cannot be read: " + e.what()};
  }
}

std::string WriteFileAtomically(const fs::path& path, const std::string& text) {
  const std::string fail = "cannot write " + path.string() + ": ";
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::string tmp = (dir / ("." + path.filename().string() + ".XXXXXX")).string();
  const int fd = mkstemp(tmp.data());
  if (fd < 0) return fail + "cannot create a temporary file in " + dir.string() + ": " + Errno();
  auto abandon = [&](const std::string& why) {
    close(fd);
    unlink(tmp.c_str());
    return fail + why;
  };
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return abandon(Errno());
    done += static_cast<std::size_t>(n);
  }
  // mkstemp creates the file 0600; an ofstream would have made it 0666 less
  // the umask, and results are read by others (CI artifacts).
  const mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0) return abandon(Errno());
  if (fsync(fd) != 0) return abandon(Errno());
  if (close(fd) != 0) {
    unlink(tmp.c_str());
    return fail + Errno();
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = Errno();
    unlink(tmp.c_str());
    return fail + why;
  }
  return "";
}

std::string WriteResults(const fs::path& path, const json& results) {
  std::string text;
  try {
    // Replace, not throw, on a string that is not UTF-8 (a library's version
    // line may carry anything).
    text = results.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
  } catch (const std::exception& e) {
    return "cannot write " + path.string() + ": " + e.what();
  }
  return WriteFileAtomically(path, text);
}

std::string DirectoryWriteError(const fs::path& dir) {
  // A page of data: on a full file system even one byte needs a new block.
  const fs::path probe = dir / ".nbcguard-write-check";
  const std::string error = WriteFileAtomically(probe, std::string(4096, '\n'));
  std::error_code ec;
  fs::remove(probe, ec);
  if (error.empty()) return "";
  // "cannot write <dir>: <reason>", whatever step failed.
  const std::size_t colon = error.rfind(": ");
  return "cannot write " + dir.string() + ": " + error.substr(colon + 2);
}

}  // namespace nbcguard
