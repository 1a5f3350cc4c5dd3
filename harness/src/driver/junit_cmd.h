// `nbcguard junit FILE...`: CTest's JUnit files as GitLab reads them. CTest
// leaves a failure's `message` empty and writes a skip's as a generic word
// ("SKIP_REGULAR_EXPRESSION_MATCHED", "SKIP_RETURN_CODE=77"); the reason is
// in <system-out> only. This command puts the reason into `message`
// (nbcguard/junit.h says which line), keeps CTest's word in `type`, and
// writes the file again atomically. `--list failed|inconclusive` prints
// "<test>: <reason>" per such test instead and changes nothing.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace nbcguard {

// 0, or 2 when a file cannot be read, is not a JUnit file, or cannot be
// written (the message names it; files before it are done, none is half-written).
int JunitCommand(const std::vector<std::string>& files, const std::string& list, std::ostream& out);

}  // namespace nbcguard
