#include "check_cmd.h"

#include <fstream>
#include <iostream>
#include <iterator>

#include "nbcguard/case_spec.h"
#include "nbcguard/driver_common.h"
#include "nbcguard/threshold_spec.h"

namespace nbcguard {

int CheckCommand(const std::vector<std::string>& files) {
  int rc = kPass;
  for (const std::string& f : files) {
    std::ifstream in(f);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const bool threshold = text.find("rules:") != std::string::npos;
    const std::string errors = threshold ? LoadThresholdSpec(f).ErrorText() : LoadCaseSpec(f).ErrorText();
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
