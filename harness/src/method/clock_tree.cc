#include "nbcguard/clock_tree.h"

#include <algorithm>
#include <cmath>

namespace nbcguard {

const std::vector<std::string>& ClockSyncMethodNames() {
  static const std::vector<std::string> names = {"flat", "tree"};
  return names;
}

const char* ToString(ClockSyncMethod m) { return m == ClockSyncMethod::kTree ? "tree" : "flat"; }

std::optional<ClockSyncMethod> ParseClockSyncMethod(const std::string& name, std::string* error) {
  if (name == "flat") return ClockSyncMethod::kFlat;
  if (name == "tree") return ClockSyncMethod::kTree;
  if (error) {
    std::string allowed;
    for (const std::string& n : ClockSyncMethodNames()) allowed += (allowed.empty() ? "" : ", ") + n;
    *error = "unknown clock synchronization '" + name + "' (allowed: " + allowed + ")";
  }
  return std::nullopt;
}

int TreeStages(int ranks) {
  int stages = 0;
  while (ranks > 1 && (1LL << stages) < ranks) ++stages;
  return stages;
}

int TreeStage(int rank) {
  if (rank <= 0) return -1;
  int s = 0;
  while ((2LL << s) <= rank) ++s;
  return s;
}

int TreeServer(int rank) { return rank <= 0 ? -1 : rank - (1 << TreeStage(rank)); }

std::vector<int> TreeClients(int rank, int ranks) {
  std::vector<int> out;
  if (rank < 0) return out;
  for (int s = TreeStage(rank) + 1; s < 31; ++s) {
    const long long client = rank + (1LL << s);
    if (client >= ranks) break;
    out.push_back(static_cast<int>(client));
  }
  return out;
}

int TreeDepth(int rank) {
  int depth = 0;
  for (unsigned r = rank > 0 ? static_cast<unsigned>(rank) : 0u; r; r &= r - 1) ++depth;
  return depth;
}

std::vector<std::vector<TreePair>> TreeSchedule(int ranks) {
  std::vector<std::vector<TreePair>> stages(TreeStages(ranks));
  for (int r = 1; r < ranks; ++r) stages[TreeStage(r)].push_back({TreeStage(r), r, TreeServer(r)});
  return stages;
}

int MaxDepth(ClockSyncMethod m, int ranks) {
  if (ranks <= 1) return 0;
  if (m == ClockSyncMethod::kFlat) return 1;
  int d = 0;
  while ((2LL << d) <= ranks) ++d;
  return d;
}

int SequentialSteps(ClockSyncMethod m, int ranks) {
  if (ranks <= 1) return 0;
  return m == ClockSyncMethod::kTree ? TreeStages(ranks) : ranks - 1;
}

ClockPerturbation RankPerturbation(int rank, double offset, double drift) {
  if (rank <= 0) return {};
  // A rank and its tree server differ in one bit, so in the parity of their
  // popcounts: their offsets have opposite signs (a server answering with its
  // local time instead of its global estimate is off by >= 2 x offset).
  const double o_sign = TreeDepth(rank) % 2 == 1 ? 1 : -1;
  const double d_sign = ((rank - 1) / 2) % 2 == 0 ? 1 : -1;
  const double o_mag = 1 + 0.25 * ((rank - 1) % 4);  // 1, 1.25, 1.5, 1.75
  const double d_mag = 1 + 0.25 * (((rank - 1) / 4) % 4);
  return {o_sign * o_mag * offset, d_sign * d_mag * drift};
}

OriginFit FitThroughOrigin(const std::vector<double>& x, const std::vector<double>& y) {
  OriginFit f;
  const std::size_t n = std::min(x.size(), y.size());
  f.n = static_cast<int>(n);
  if (n == 0) return f;
  double sxx = 0, sxy = 0, mean_y = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
    mean_y += y[i];
  }
  mean_y /= n;
  f.slope = sxx > 0 ? sxy / sxx : 0;
  double ss_res = 0, ss_tot = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ss_res += (y[i] - f.slope * x[i]) * (y[i] - f.slope * x[i]);
    ss_tot += (y[i] - mean_y) * (y[i] - mean_y);
  }
  f.rms = std::sqrt(ss_res / n);
  f.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : (ss_res == 0 ? 1 : 0);
  return f;
}

}  // namespace nbcguard
