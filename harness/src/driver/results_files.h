// Where a run's results are: every results.json below some directories.
// One walk for every command that reads runs (summary, plot, compare,
// envelope).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace nbcguard {

// results.json files named directly or found below the directories in
// `paths` (recursively; unreadable subdirectories skipped), sorted, each
// once. A directory holding the marker of an unfinished run counts as its
// results.json even when there is none (ReadResults then says why). A path that is neither a file nor a
// directory goes to *missing.
std::vector<std::filesystem::path> FindResultsFiles(const std::vector<std::string>& paths,
                                                    std::vector<std::string>* missing);

}  // namespace nbcguard
