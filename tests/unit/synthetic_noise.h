// Deterministic noise for synthetic series (change-point tests and
// benchmark): a fixed LCG and Box-Muller, so every series is the same on
// every machine (the standard distributions are not).
#pragma once

#include <cmath>
#include <cstdint>

namespace nbcguard {

struct SyntheticNoise {
  std::uint64_t s;
  double Uniform() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (static_cast<double>(s >> 11) + 0.5) / 9007199254740992.0;
  }
  double Normal(double sd) {
    return sd * std::sqrt(-2 * std::log(Uniform())) * std::cos(2 * M_PI * Uniform());
  }
};

}  // namespace nbcguard
