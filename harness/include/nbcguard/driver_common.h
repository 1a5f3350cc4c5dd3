// Small helpers shared by the driver's commands.
#pragma once

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace nbcguard {

// The driver's exit codes (CTest: SKIP_RETURN_CODE 77).
// kInconclusive: no limit exceeded, but points refused in every job that
// measured them (a disturbed machine, ranks computing unequally): not a pass,
// not the library's failure (docs/ctest-and-ci.md).
enum ExitCode : int {
  kPass = 0,
  kFail = 1,
  kUsage = 2,
  kHarnessFailed = 3,
  kConformance = 4,
  kInconclusive = 5,
  kSkip = 77
};

// %.17g: a number passed on a command line reads back exactly.
inline std::string Precise(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

// Comma-separated, each exact (command-line lists of seconds).
inline std::string JoinPrecise(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : ",") + Precise(x);
  return s;
}

// First line of a multi-line text (MPI_Get_library_version), without
// trailing blanks (spaces, tabs, a carriage return).
inline std::string FirstLine(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
  return line;
}

// The case or threshold files of a directory (*.yaml, *.yml), sorted: the
// order tests are listed and limits are read in.
inline std::vector<std::filesystem::path> YamlFiles(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_regular_file() && (e.path().extension() == ".yaml" || e.path().extension() == ".yml"))
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// The worse of two outcomes of tests run one after the other: inconclusive
// over a pass, any failure over both, the higher failure code over a lower
// one; a skip counts only when nothing else ran (start from kSkip).
inline int Worse(int worst, int rc) {
  if (rc == kSkip) return worst;
  if (worst == kSkip) return rc;
  auto severity = [](int c) { return c == kPass ? 0 : c == kInconclusive ? 1 : 2 + c; };
  return severity(rc) > severity(worst) ? rc : worst;
}

}  // namespace nbcguard
