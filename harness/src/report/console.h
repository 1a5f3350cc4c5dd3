// What a person at a terminal sees of a test: the run's context, clock sync
// quality, the table of ratios per grid point and the verdict (partitioned
// tests: PrintPartitionedTable, ending the same way).
#pragma once

#include <ostream>
#include <string>

#include "../driver/report.h"

namespace nbcguard {

void PrintTable(std::ostream& out, const RunInfo& info, const Reduction& red, const Verdict& v);

// "clock sync: offset uncertainty <= ... (min RTT/2), fit residual ... RMS"
// over the ranks' clock fits (no line end: the caller adds the barrier).
// Seconds as microseconds with two decimals ("12.34 us"), "-" when not finite.
std::string Us(double s);

void PrintClockSync(std::ostream& out, const nlohmann::json& clock);

// The end of every test's table, whatever its kind: a conformance failure,
// the threshold file, each finding and invalid point, and the verdict.
void PrintVerdictLines(std::ostream& out, const std::string& conformance_error,
                       const std::string& threshold_file, const Verdict& v);

}  // namespace nbcguard
