// The timing loops of the acknowledgement method of de Supinski and Karonis,
// HPDC 1999, over MPI (the reduction of their times: nbcguard/bcast_ack.h).
// Rank 0 is the broadcast's root; every call is collective over `comm` and
// returns the root's per-iteration times (empty on the other ranks).
#pragma once

#include <vector>

#include "clock_sync.h"
#include "collectives.h"
#include "comm.h"

namespace nbcguard {

// `reps` round trips root <-> dest with the acknowledgement's message (one
// int32), after one untimed warm-up.
std::vector<double> AckRoundTrips(const Comm& comm, const GlobalClock& clock, int dest, int reps);

// `reps` iterations, after one untimed warm-up, of: the broadcast (the
// harness's ibcast: start + MPI_Wait), then destination `dest` sends an
// acknowledgement that the root receives before it starts the next one.
// Every iteration fills the root's data before it and every rank checks
// what it got after it, untimed, as the synchronized measurement does for
// every sample, then an MPI_Barrier: the root starts timing only once every
// rank is about to enter the broadcast (the paper's destinations wait in
// it; a destination still checking the last one would be timed too). The
// barrier's exit skew (MPI_Barrier: 0.1-0.5 us here) is far inside the tolerance.
// Without the checks, back to back on unchanged data (the paper's loop) the
// buffers stay in cache, and the loop read 5-16 % faster at 1-4 MiB here.
// *error gets the first wrong element (agreed on every rank).
std::vector<double> BcastWithAck(const Comm& comm, const GlobalClock& clock, Collective& bcast, int dest,
                                 int reps, std::string* error);

}  // namespace nbcguard
