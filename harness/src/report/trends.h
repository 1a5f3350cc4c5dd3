// Trend pictures of the results history (`nbcguard history plot`, docs/history.md):
// per series (test, point, ratio), the nights' medians with their 95 %
// intervals, the levels between the changes with the series' between-run
// band, the nights where changes begin, outlier and refused nights; each
// as PNG and SVG, like the heat-maps of a run.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "nbcguard/history.h"

namespace nbcguard::report {

// Writes stem + ".png" and stem + ".svg" and returns the paths written. On
// failure returns what was written before it and sets *error.
std::vector<std::filesystem::path> RenderTrend(const TrendSeries& t, const std::filesystem::path& stem,
                                               std::string* error);

}  // namespace nbcguard::report
