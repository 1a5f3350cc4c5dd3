#include "check_cmd.h"

#include <iostream>
#include <map>

#include "nbcguard/case_spec.h"
#include "nbcguard/driver_common.h"
#include "nbcguard/threshold_spec.h"

namespace nbcguard {

namespace {

const char* const kNeitherKind =
    ": neither a case file nor a threshold file; a case file is a YAML mapping with the keys name and "
    "collective (or name and kind: partitioned), a threshold file one with the keys implementation, "
    "versions and rules";

}  // namespace

int CheckCommand(const std::vector<std::string>& files) {
  int rc = kPass;
  std::map<std::string, std::string> case_names;  // name -> the first file that has it
  for (const std::string& f : files) {
    const Parsed<std::string> text = ReadSpecText(f);
    if (!text.ok()) {
      std::cerr << text.ErrorText() << "\n";
      rc = kFail;
      continue;
    }
    // The kind is the document's structure: the text is parsed once to tell
    // it, and again by the loader of that kind.
    const SpecFileKind kind = SpecFileKindOf(*text.value);
    if (kind == SpecFileKind::kNeither) {
      std::cerr << f << kNeitherKind << "\n";
      rc = kFail;
      continue;
    }
    const bool threshold = kind == SpecFileKind::kThreshold;
    std::string errors;
    if (threshold) {
      errors = ParseThresholdSpec(*text.value, f).ErrorText();
    } else {
      const Parsed<CaseSpec> c = ParseCaseSpec(*text.value, f);
      errors = c.ErrorText();
      if (c.ok()) {
        const auto [first, inserted] = case_names.emplace(c.value->name, f);
        if (!inserted) errors = DuplicateCaseName(*c.value, first->second).ToString();
      }
    }
    if (errors.empty()) {
      std::cout << f << ": ok (" << (threshold ? "threshold" : "case") << " file)\n";
    } else {
      std::cerr << errors << "\n";
      rc = kFail;
    }
  }
  return rc;
}

}  // namespace nbcguard
