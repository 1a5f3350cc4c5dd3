// The overlap percentages the OSU micro-benchmarks and the Intel MPI
// Benchmarks (IMB-NBC) would print for one grid point, from nbcguard's own
// samples (docs/method.md, "The peers' figures"). Both average each time
// per rank over the iterations first and compute one figure from the
// averages; the formulas are those of metrics.h. For comparison only.
#pragma once

#include <vector>

#include "nbcguard/reduce.h"

namespace nbcguard {

// Per rank, the mean over the samples of stamp `to` - stamp `from` (the
// stamps of a sample: t1 start call, t2 after it, t3 after the computation,
// t4 after MPI_Wait). The rank count is the first sample's; a sample with
// another count is skipped. Empty when no sample is left.
std::vector<double> MeanPerRank(const GlobalSamples& samples, int from, int to);

struct PeerOverlap {
  // OSU: t_overall (t4 - t1), t_compute (t3 - t2) from the overlapped
  // samples and t_pure (t4 - t1) from the communication-alone ones, each
  // averaged per rank then over ranks; MPI_Test time taken as 0.
  double osu_pct;
  // IMB: the same three times per rank (t_ovrl, t_CPU, t_pure), all of the
  // rank with the largest t_ovrl (the first such rank); -1 when none.
  double imb_pct;
  int imb_rank;
};

// NaN figures when either sample set is empty or the two have different
// rank counts.
PeerOverlap PeerOverlapOf(const GlobalSamples& overlapped, const GlobalSamples& comm_alone);

}  // namespace nbcguard
