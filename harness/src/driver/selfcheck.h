// The harness's self-checks, run by `nbcguard verify | bcast-check`
// (and clock-check, clock_check.h): measurements whose answer is known or can be had another
// way, so a user can see how far the tool's own numbers are to be trusted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "launcher.h"

namespace nbcguard {

// clock-check: clock_check.h.

// Every registered collective at a few sizes; fault "corrupt" flips one
// delivered element, "stale" makes no call after the first repetition,
// "unwritten" none, to show the check catches each.
// root: the root of the rooted collectives (-1: the last rank);
// communicator: world, reversed or dup (the case field's values).
int Verify(const Config& cfg, int nodes, const std::string& out, const std::string& fault, int root = 0,
           const std::string& communicator = "world");

struct BcastCheckOptions {
  int nodes = 2;
  std::vector<std::uint64_t> bytes;  // message sizes
  int repetitions = 100;
  double inject_offset = 0, inject_drift = 0;  // on rank 1's clock
  double relative = 0.10;                      // AgreementModel::relative
  std::string out;
  // A size that disagrees beyond noise is measured again by later jobs while
  // undecided (nbcguard/bcast_ack.h, DisagreementTrial), at most max_jobs
  // jobs in all; 1 (--no-confirm): judged on one job.
  int max_jobs = 3;
  // Tests the confirmation: "disagree-once" multiplies the
  // synchronized-clock times of the first job by 4, "disagree" those of
  // every job, "disagree-flip" those of the first job, and divides those of
  // every later one by 4; empty: none.
  std::string fault;
  // The machine-noise sentinel on the synchronized samples: "on" (a sample
  // taken while another process or the host slowed a rank is measured
  // again) or "off".
  std::string sentinel = "on";
};

// Broadcast latency by acknowledgement (de Supinski and Karonis; max over destinations of
// E_i - RTT_i / 2) against the synchronized-clock time of the same
// MPI_Ibcast + MPI_Wait. Fails when they disagree beyond the tolerance of
// nbcguard/bcast_ack.h in two independent jobs (results in
// <out>/bcast-check/n<nodes>/bcast-check.json, the second job's raw log in
// confirm/).
int BcastCheck(const Config& cfg, const BcastCheckOptions& o);

}  // namespace nbcguard
