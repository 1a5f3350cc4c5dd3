// The harness's modes (--mode), one file each. Every mode is collective
// over the context's communicator, writes its records through the
// context's raw log and returns the rank's exit status (0: done, 4: a
// conformance failure).
#pragma once

#include "mode_context.h"

namespace nbcguard {

int RunOverlap(ModeContext& c);      // overlap_mode.cc: the BenchNBC grid
int RunClockCheck(ModeContext& c);   // clock_check_mode.cc
int RunVerify(ModeContext& c);       // verify_mode.cc: every collective's results
int RunPassive(ModeContext& c);      // passive_mode.cc: r_mpi_impact numerator
int RunBcastAck(ModeContext& c);     // bcast_ack_mode.cc: the acknowledgement method
int RunPartitioned(ModeContext& c);  // partitioned_mode.cc: MPI-4 partitioned sends

}  // namespace nbcguard
