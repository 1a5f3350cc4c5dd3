#include "nbcguard/junit.h"

#include <vector>

namespace nbcguard {
namespace {

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    const std::size_t first = line.find_first_not_of(" \t\r");
    const std::size_t last = line.find_last_not_of(" \t\r");
    if (first != std::string::npos) lines.push_back(line.substr(first, last - first + 1));
    start = end + 1;
  }
  return lines;
}

std::string Cut(std::string s) {
  if (s.size() > kJunitReasonLength) s = s.substr(0, kJunitReasonLength) + "...";
  return s;
}

bool Contains(const std::string& s, const char* word) { return s.find(word) != std::string::npos; }

}  // namespace

std::string FailureReason(std::string_view output) {
  const std::vector<std::string> lines = Lines(output);
  std::string reason;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (Contains(line, "FAIL") || Contains(line, "Error") || Contains(line, "error") ||
        Contains(line, "failed"))
      reason = line;
    // CMake's message(FATAL_ERROR) puts the location first and the message
    // on the next line.
    if (i > 0 && lines[i - 1].rfind("CMake Error", 0) == 0) reason = lines[i - 1] + " " + line;
  }
  if (reason.empty() && !lines.empty()) reason = lines.back();
  return Cut(reason);
}

std::string InconclusiveReason(std::string_view output) {
  std::string reason;
  for (const std::string& line : Lines(output))
    if (Contains(line, "INCONCLUSIVE")) reason = line;
  return Cut(reason);
}

std::string SkipReason(std::string_view output) {
  std::string reason = InconclusiveReason(output);
  if (!reason.empty()) return reason;
  for (const std::string& line : Lines(output))
    if (line.rfind("SKIP", 0) == 0 || Contains(line, "SKIP ") || Contains(line, "SKIP:")) reason = line;
  return Cut(reason);
}

}  // namespace nbcguard
