#include "nbcguard/library_version.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <sstream>
#include <utility>

namespace nbcguard {
namespace {

bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The version token that starts at the first digit at or after `pos`,
// skipping only blanks, ':' and a 'v' ("Version:\t4.0.2", "v4.1.4,").
// A token is digits, dots, letters ("5.0.0rc12"), without a trailing dot.
std::string VersionAfter(const std::string& s, std::size_t pos) {
  while (pos < s.size() && (IsSpace(s[pos]) || s[pos] == ':' || s[pos] == 'v')) ++pos;
  if (pos >= s.size() || !IsAsciiDigit(s[pos])) return "";
  std::size_t end = pos;
  while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '.')) ++end;
  while (end > pos && s[end - 1] == '.') --end;
  return s.substr(pos, end - pos);
}

struct Signature {
  const char* marker;  // text that identifies the library; the version follows it
  const char* implementation;
};

// Derivatives first: they may mention their parent's name too.
constexpr std::array<Signature, 4> kSignatures = {{
    {"Intel(R) MPI Library", "intelmpi"},
    {"MVAPICH2 Version", "mvapich"},
    {"Open MPI", "openmpi"},
    {"MPICH Version", "mpich"},
}};

// Leading number of a version component ("0rc12" -> 0); 0 when none.
long long ComponentValue(const std::string& component) {
  long long value = 0;
  for (char c : component) {
    if (!IsAsciiDigit(c)) break;
    if (value > 1000000000LL) break;  // absurd; keep comparable without overflow
    value = value * 10 + (c - '0');
  }
  return value;
}

std::vector<std::string> Components(const std::string& version) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(version);
  while (std::getline(in, part, '.')) out.push_back(part);
  return out;
}

// digits(.digits)*
bool IsPlainVersion(const std::string& v) {
  if (v.empty() || !IsAsciiDigit(v.front()) || !IsAsciiDigit(v.back())) return false;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '.' && v[i + 1] == '.') return false;
    if (v[i] != '.' && !IsAsciiDigit(v[i])) return false;
  }
  return true;
}

constexpr std::array<const char*, 5> kOperators = {">=", "<=", "==", ">", "<"};

// Splits ">=4.0" into {">=", "4.0"}; the operator is empty when none matches.
std::pair<std::string, std::string> SplitOperator(const std::string& term) {
  for (const char* op : kOperators) {
    std::string o(op);
    if (term.compare(0, o.size(), o) == 0) return {o, term.substr(o.size())};
  }
  return {"", term};
}

bool Holds(int comparison, const std::string& op) {
  if (op == ">=") return comparison >= 0;
  if (op == "<=") return comparison <= 0;
  if (op == ">") return comparison > 0;
  if (op == "<") return comparison < 0;
  return comparison == 0;  // "=="
}

std::string RangeError(const std::string& text, const std::string& why) {
  return "bad version range \"" + text + "\": " + why +
         "; expected space-separated comparisons like \">=4.0 <5\" or \"==4.1.4\" "
         "(operators >= > <= < ==), or \"*\" for any version";
}

}  // namespace

LibraryId IdentifyLibrary(const std::string& version_string, const std::string& marker,
                          const std::string& implementation) {
  const std::size_t at = version_string.find(marker);
  if (at == std::string::npos) return {implementation, ""};
  return {implementation, VersionAfter(version_string, at + marker.size())};
}

LibraryId IdentifyLibrary(const std::string& version_string) {
  for (const Signature& sig : kSignatures)
    if (version_string.find(sig.marker) != std::string::npos)
      return IdentifyLibrary(version_string, sig.marker, sig.implementation);
  return {"unknown", ""};
}

int CompareVersions(const std::string& a, const std::string& b) {
  std::vector<std::string> ca = Components(a), cb = Components(b);
  std::size_t n = std::max(ca.size(), cb.size());
  for (std::size_t i = 0; i < n; ++i) {
    long long x = i < ca.size() ? ComponentValue(ca[i]) : 0;
    long long y = i < cb.size() ? ComponentValue(cb[i]) : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

std::optional<VersionRange> VersionRange::Parse(const std::string& text, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<VersionRange> {
    if (error) *error = RangeError(text, why);
    return std::nullopt;
  };
  std::vector<std::string> tokens;
  std::istringstream in(text);
  for (std::string token; in >> token;) tokens.push_back(token);
  VersionRange range;
  range.text_ = text;
  if (tokens.empty()) return fail("an empty range names no version; write \"*\" for every version");
  if (tokens.size() == 1 && tokens[0] == "*") return range;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    auto [op, version] = SplitOperator(tokens[i]);
    if (op.empty()) return fail("\"" + tokens[i] + "\" has no comparison operator");
    if (version.empty() && i + 1 < tokens.size()) version = tokens[++i];  // ">= 4.0"
    if (!IsPlainVersion(version)) {
      return fail("\"" + version + "\" after " + op + " is not a version like 4.1.4");
    }
    range.terms_.push_back({op, version});
  }
  return range;
}

bool VersionRange::Contains(const std::string& version) const {
  if (terms_.empty()) return true;
  if (version.empty() || !IsAsciiDigit(version.front())) return false;  // unknown: no constraint holds
  for (const Term& t : terms_) {
    if (!Holds(CompareVersions(version, t.version), t.op)) return false;
  }
  return true;
}

}  // namespace nbcguard
