// The peers' overlap percentages from nbcguard's samples (peer_overlap.h).
#include "nbcguard/peer_overlap.h"

#include <algorithm>
#include <limits>

#include "nbcguard/metrics.h"
#include "nbcguard/stats.h"

namespace nbcguard {
namespace {

// The plain mean (nothing trimmed); NaN when empty.
double Mean(const std::vector<double>& values) { return TrimmedMean(values, 0.0); }

}  // namespace

std::vector<double> MeanPerRank(const GlobalSamples& samples, int from, int to) {
  if (samples.empty()) return {};
  const std::size_t ranks = samples.front().size();
  std::vector<std::vector<double>> per_rank(ranks);
  for (const auto& s : samples) {
    if (s.size() != ranks) continue;
    for (std::size_t r = 0; r < ranks; ++r) per_rank[r].push_back(s[r][to] - s[r][from]);
  }
  std::vector<double> means(ranks);
  for (std::size_t r = 0; r < ranks; ++r) means[r] = Mean(per_rank[r]);
  return means;
}

PeerOverlap PeerOverlapOf(const GlobalSamples& overlapped, const GlobalSamples& comm_alone) {
  const std::vector<double> overall = MeanPerRank(overlapped, 0, 3);
  const std::vector<double> compute = MeanPerRank(overlapped, 1, 2);
  const std::vector<double> pure = MeanPerRank(comm_alone, 0, 3);
  if (overall.empty() || overall.size() != pure.size()) return {kNaN, kNaN, -1};
  // OSU: every rank's averages summed and divided by the rank count (an
  // MPI_Reduce with MPI_SUM on rank 0), then one clamp.
  const double osu = OsuOverlapPercent(Mean(overall), Mean(compute), Mean(pure));
  // IMB: the first rank with the largest overlapped time, its own times.
  const auto r = static_cast<std::size_t>(std::max_element(overall.begin(), overall.end()) - overall.begin());
  return {osu, ImbOverlapPercent(pure[r], compute[r], overall[r]), static_cast<int>(r)};
}

}  // namespace nbcguard
