#include "list_cmd.h"

#include <filesystem>
#include <iostream>

#include "nbcguard/driver_common.h"
#include "nbcguard/test_instance.h"

namespace nbcguard {

namespace fs = std::filesystem;

int ListCommand(const Config& cfg, const std::string& format) {
  std::vector<std::string> files;
  for (const fs::path& f : YamlFiles(cfg.cases_dir)) files.push_back(f.string());
  if (format == "files") {
    for (const std::string& f : files) std::cout << f << "\n";
    return kPass;
  }
  const std::vector<ListedTest> tests =
      ListTests(files, ListSettings{cfg.implementation, cfg.path, cfg.baseline_dir});
  std::cout << TestsJson(tests).dump(1) << "\n";
  return kPass;
}

}  // namespace nbcguard
