// Small helpers shared by the driver's commands.
#pragma once

#include <cstdio>
#include <string>

namespace nbcguard {

// The driver's exit codes (CTest: SKIP_RETURN_CODE 77).
enum ExitCode : int { kPass = 0, kFail = 1, kUsage = 2, kHarnessFailed = 3, kConformance = 4, kSkip = 77 };

// %.17g: a number passed on a command line reads back exactly.
inline std::string Precise(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

// First line of a multi-line text (MPI_Get_library_version), without
// trailing blanks.
inline std::string FirstLine(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

}  // namespace nbcguard
