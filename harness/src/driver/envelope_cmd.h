// nbcguard envelope: what a threshold should be set from, over the
// results.json files of many runs.
#pragma once

#include <string>
#include <vector>

namespace nbcguard {

// Over every results.json under the directories, per (library, deployment,
// ratio), the range of medians and the largest lower bound of the confidence
// interval (the value a max limit is compared with), plus invalid points.
// With per_point, the same per (library, case, deployment, grid point,
// ratio) with the median of the medians: how much one point moves from run
// to run (the flakiness budget).
int Envelope(const std::vector<std::string>& dirs, bool per_point);

// --write-thresholds: a starting threshold file from the same files
// (nbcguard/threshold_init.h), written atomically to `file`.
struct WriteThresholdsOptions {
  std::string file;  // empty: none written
  double margin = 0.25;
  int min_runs = 3;
  std::string system;
};

int Envelope(const std::vector<std::string>& dirs, bool per_point, const WriteThresholdsOptions& write);

}  // namespace nbcguard
