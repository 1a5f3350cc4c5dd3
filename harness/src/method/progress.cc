#include "nbcguard/progress.h"

#include <algorithm>
#include <cmath>

#include "nbcguard/units.h"

namespace nbcguard {
namespace {

std::string Seconds(double s) {
  // Whole seconds read better than "41.37s" on a line that changes twice a second.
  return FormatDuration(std::max(0.0, std::round(s)));
}

}  // namespace

std::string FormatProgress(const ProgressState& s) {
  std::string phase;
  if (s.impact_round > 0) {
    phase = "r_mpi_impact round " + std::to_string(s.impact_round) + " (of up to " +
            std::to_string(s.impact_max_rounds) + ")";
  } else if (s.comp_done < s.comp_targets) {
    phase =
        "calibrating computation " + std::to_string(s.comp_done + 1) + "/" + std::to_string(s.comp_targets);
  } else if (s.comm_done < s.comm_targets) {
    phase =
        "calibrating communication " + std::to_string(s.comm_done + 1) + "/" + std::to_string(s.comm_targets);
  } else if (s.points_done < s.points) {
    phase = "grid point " + std::to_string(s.points_done + 1) + "/" + std::to_string(s.points);
  } else if (s.points > 0) {
    phase = "grid done, finishing";
  } else {
    phase = "clock sync";
  }
  std::string line = s.id + ": " + phase + ", " + Seconds(s.elapsed) + " elapsed";
  const bool in_grid =
      s.impact_round == 0 && s.points_done > 0 && s.points_done < s.points && s.grid_started >= 0;
  if (in_grid) {
    const double per_point = (s.elapsed - s.grid_started) / s.points_done;
    double left = per_point * (s.points - s.points_done);
    if (s.timeout_left >= 0) left = std::min(left, s.timeout_left);
    line += ", ~" + Seconds(left) + " left in the grid";
  } else if (s.timeout_left >= 0) {
    line += ", timeout in " + Seconds(s.timeout_left);
  }
  return line;
}

}  // namespace nbcguard
