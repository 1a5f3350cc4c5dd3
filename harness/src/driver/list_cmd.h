// nbcguard list: the tests of cases/, for CTest (CMake code), for a CMake
// discover function (JSON), or as file names.
#pragma once

#include <string>

#include "launcher.h"

namespace nbcguard {

// format: ctest | json | files.
int ListCommand(const Config& cfg, const std::string& format);

}  // namespace nbcguard
