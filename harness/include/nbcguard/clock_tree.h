// Who synchronizes with whom: the flat loop (every rank against rank 0, one
// after the other: p - 1 sequential exchanges) or the tree of the
// hierarchical algorithms (HCA family; as cited by Denis et al., CCPE 2022): ceil(log2 p)
// sequential stages; in stage s every rank r in [2^s, 2^(s+1)) measures
// against rank r - 2^s, which was synchronized in an earlier stage (rank 0
// is the reference), all pairs of a stage at once. The already synchronized
// partner answers with its estimate of the global (rank 0) time, so every
// rank's offset points are relative to rank 0's clock whatever the method.
// Pure code; the MPI exchanges live in clock_sync.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace nbcguard {

enum class ClockSyncMethod { kFlat, kTree };

// "flat", "tree": the accepted spellings, in that order (CLI choices).
const std::vector<std::string>& ClockSyncMethodNames();
const char* ToString(ClockSyncMethod m);
// Unknown names: nullopt and *error naming the allowed values.
std::optional<ClockSyncMethod> ParseClockSyncMethod(const std::string& name, std::string* error);

// One exchange of the tree: `client` (not yet synchronized) measures its
// offset against `server` (synchronized in an earlier stage, or rank 0).
struct TreePair {
  int stage = 0;
  int client = 0;
  int server = 0;
};

// ceil(log2 ranks) (0 for one rank).
int TreeStages(int ranks);
// The stage in which `rank` (> 0) is synchronized: floor(log2 rank); -1 for rank 0.
int TreeStage(int rank);
// The rank `rank` (> 0) measures against: rank - 2^TreeStage(rank); -1 for rank 0.
int TreeServer(int rank);
// The ranks `rank` answers, in stage order (rank + 2^s for every later stage s
// while below `ranks`).
std::vector<int> TreeClients(int rank, int ranks);
// Hops from `rank` to rank 0 along the servers: the number of exchanges whose
// errors add up in its offset (popcount(rank)); 0 for rank 0.
int TreeDepth(int rank);
// Every pair, grouped by stage (index = stage).
std::vector<std::vector<TreePair>> TreeSchedule(int ranks);
// The deepest rank of `ranks`: floor(log2 ranks) for the tree (0 for one
// rank); every rank is one exchange from rank 0 in the flat loop.
int MaxDepth(ClockSyncMethod m, int ranks);

// Exchanges one after the other (the sync phase's length in exchange
// sequences): flat p - 1, tree ceil(log2 p).
int SequentialSteps(ClockSyncMethod m, int ranks);

// The clock perturbation clock checks inject on every rank but 0, so that
// partners along the tree have different offsets and drifts: a rank's
// offset has the opposite sign of its tree server's, magnitudes are 1-1.75x
// the given ones. Rank 1 gets exactly (offset, drift); rank 0 gets none.
struct ClockPerturbation {
  double offset = 0;
  double drift = 0;
};
ClockPerturbation RankPerturbation(int rank, double offset, double drift);

// y = slope * x by least squares through the origin, for scaling models
// (sync time per sequential step, clock error per tree hop): the RMS of the
// residuals and R^2 = 1 - SS_res / SS_tot (SS_tot around the mean of y; can
// be negative when the line through 0 fits worse than the mean).
struct OriginFit {
  double slope = 0;
  double rms = 0;
  double r2 = 0;
  int n = 0;
};
OriginFit FitThroughOrigin(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace nbcguard
