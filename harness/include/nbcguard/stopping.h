// When a grid point has enough samples: a stopping rule on the interval of
// the median, in the spirit of mpiperf's rule on the relative standard
// error, with a minimum and a maximum. A quiet
// point stops early, a noisy one takes samples up to the maximum. Pure; the
// harness applies it to durations every rank holds alike, so every rank
// stops at the same sample without agreeing on it.
#pragma once

#include <vector>

namespace nbcguard {

struct StoppingRule {
  int min = 15;          // samples of each kind at least
  int max = 15;          // samples of each kind at most
  double precision = 0;  // largest (interval half-width / median) of every kind; 0: always max
};

// True when the samples so far are enough: `durations` interleaves `kinds`
// kinds (sample i is of kind i % kinds); every kind has `max` samples, or
// every kind has at least `min` and the 95 % confidence interval of its
// median has a half-width of at most precision x the median (never below 6
// samples of a kind: no interval of fewer reaches 95 %). Only ever true
// after a whole round (every kind the same count).
bool EnoughSamples(const std::vector<double>& durations, int kinds, const StoppingRule& rule);

}  // namespace nbcguard
