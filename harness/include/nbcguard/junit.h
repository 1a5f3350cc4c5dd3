// What a test's output says about its outcome, for the JUnit files CTest
// writes: CTest leaves the `message` of a failure empty, puts a generic
// word in a skip's ("SKIP_REGULAR_EXPRESSION_MATCHED") and the reason only
// in <system-out>, which GitLab and most JUnit readers show one click away,
// or not at all. These rules pick the line that says why.
#pragma once

#include <string>
#include <string_view>

namespace nbcguard {

// Longest reason kept; a longer line ends in "...".
inline constexpr std::size_t kJunitReasonLength = 300;

// A failed test: the last line of its output that names the failure (with
// FAIL, Error, error or failed; a "CMake Error at ..." line is joined to the
// message on the next line), else its last non-empty line, else "".
std::string FailureReason(std::string_view output);

// An INCONCLUSIVE test (a verdict undecided at the most jobs its test
// allows): its last line with INCONCLUSIVE, else "".
std::string InconclusiveReason(std::string_view output);

// A skipped test: its INCONCLUSIVE reason if it has one, else its last line
// that starts with SKIP (or contains "SKIP " / "SKIP:"), else "".
std::string SkipReason(std::string_view output);

}  // namespace nbcguard
