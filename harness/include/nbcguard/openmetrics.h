// A run's key figures as an OpenMetrics text exposition: what GitLab's
// metrics report (artifacts:reports:metrics) shows in a merge request and
// compares with the target branch, and what a Prometheus-style scraper reads.
// The MPI implementation is part of every metric's name, so a pipeline that
// tests several libraries never mixes their figures. Pure.
#pragma once

#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

namespace nbcguard {

// From results.json documents (schema nbcguard-results/1), per test:
//   nbcguard_<impl>_verdict_pass            1 or 0
//   nbcguard_<impl>_r_overhead_worst        worst median over the points the thresholds checked
//   nbcguard_<impl>_r_mpi_impact_max        largest median of r_mpi_impact
//   nbcguard_<impl>_sync_precision_seconds  largest clock offset uncertainty (min RTT / 2)
//   nbcguard_<impl>_invalid_points          points without a measurement
//   nbcguard_<impl>_limits_exceeded         threshold failures beyond noise
// and per valid grid point nbcguard_<impl>_r_overhead (median), labelled by
// case, collective, nodes, deployment (and comm, comp target times), and per
// communication row nbcguard_<impl>_cpu_busy_nbc and _cpu_busy_blocking
// (medians; labelled with comm only, they do not depend on comp).
// <impl> is implementation_label reduced to [a-z0-9_]. Missing figures are
// left out rather than written as NaN, so a comparison never sees NaN != NaN.
void WriteOpenMetrics(std::ostream& out, const std::vector<nlohmann::json>& results);

}  // namespace nbcguard
