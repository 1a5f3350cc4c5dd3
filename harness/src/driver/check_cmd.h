// nbcguard check: validate case and threshold files.
#pragma once

#include <string>
#include <vector>

namespace nbcguard {

// A file with a "rules:" key is read as a threshold file, any other as a
// case file; every error is printed, the exit is kFail if any.
int CheckCommand(const std::vector<std::string>& files);

}  // namespace nbcguard
