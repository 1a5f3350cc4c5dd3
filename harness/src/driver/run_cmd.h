// nbcguard run: every test of the case files (each rank count and
// deployment, the case's unless given), one after the other.
#pragma once

#include <string>
#include <vector>

#include "launcher.h"
#include "run_job.h"

namespace nbcguard {

// The worst outcome over the tests; kSkip only when every test skipped.
int RunCommand(const Config& cfg, const std::vector<std::string>& case_files, const RunOptions& ro);

// run --quiet: of a test's output, the lines that give its outcome.
std::string QuietLines(const std::string& output);

}  // namespace nbcguard
