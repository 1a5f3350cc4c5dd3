#include "results_files.h"

#include <algorithm>

#include "nbcguard/results_io.h"

namespace nbcguard {

namespace fs = std::filesystem;

std::vector<fs::path> FindResultsFiles(const std::vector<std::string>& paths,
                                       std::vector<std::string>* missing) {
  std::vector<fs::path> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
      continue;
    }
    if (!fs::is_directory(p, ec)) {
      missing->push_back(p);
      continue;
    }
    for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (it->path().filename() == "results.json" && it->is_regular_file(ec)) files.push_back(it->path());
      // A run that did not finish may have left no results.json: its
      // marker stands for it, so that every reader lists it.
      if (it->path().filename() == kUnfinishedRunFile)
        files.push_back(it->path().parent_path() / "results.json");
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

}  // namespace nbcguard
