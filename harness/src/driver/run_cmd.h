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

}  // namespace nbcguard
