// Reference behaviours (ground truth): the interposition library
// libnbcguard-reference.so replaces the tested library's progression of the
// nonblocking collectives with a behaviour whose ratios are known in
// advance, while the data still moves through the real library and is
// verified. This header is the pure part shared by the driver (which
// encodes a case's `reference:` into the environment of the ranks) and the
// library (which decodes it): names, parameters, the duration model.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nbcguard {

enum class ReferenceBehaviour {
  kNone,           // the real library's own progression
  kBackground,     // completes by itself `Duration(bytes)` after the start call, no CPU used
  kDeferred,       // nothing happens until MPI_Wait, which then takes Duration(bytes)
  kCpuThief,       // a busy thread per rank needs Duration(bytes) of CPU to complete it
  kLateRank,       // background, but rank late_rank enters the collective late_delay late
  kLateExit,       // background, but rank late_rank leaves the collective late_delay after the others
  kPassiveImpact,  // background, plus the computing thread losing a `share` of every period from MPI_Init
  kSleepingWait,   // background, but MPI_Wait sleeps until completion instead of polling (CPU left free)
  kSlowRank,       // the library's own progression; rank late_rank's computing thread loses a `share`
                   // of every period from MPI_Init: one rank computes slower (an injected imbalance)
};

const char* ToString(ReferenceBehaviour b);  // "none", "background", "deferred", ...
std::optional<ReferenceBehaviour> ParseReferenceBehaviour(const std::string& name);
const std::vector<std::string>& ReferenceBehaviourNames();  // without "none"

struct ReferenceSpec {
  ReferenceBehaviour behaviour = ReferenceBehaviour::kNone;
  // Modelled collective: Duration(bytes) = latency + bytes / bandwidth, with
  // bytes the send buffer of one rank (as BytesPerRank in the harness). The
  // bandwidth is far below shared memory's, so the real transfer done at
  // completion adds only a few percent.
  double latency = 20e-6;   // seconds
  double bandwidth = 50e6;  // bytes per second
  int late_rank = -1;  // kLateRank, kLateExit: the late rank; kSlowRank: the slow one; -1 = the last rank
  double late_delay = 1e-3;  // kLateRank, kLateExit: seconds that rank is late entering / leaving
  // At most kMaxShare: the computing thread must keep some of its time.
  static constexpr double kMaxShare = 0.9;
  double share = 0.5;  // kPassiveImpact, kSlowRank: fraction of each period taken from the computing thread,
                       // (0, kMaxShare]
  double period = 1e-3;  // kPassiveImpact, kSlowRank: seconds between the starts of two losses
  // kCpuThief: the thief starts taking the computing thread's CPU this long
  // after the start call returns.
  static constexpr double kThiefStartDelay = 50e-6;

  double Duration(std::uint64_t bytes) const { return latency + static_cast<double>(bytes) / bandwidth; }
  bool active() const { return behaviour != ReferenceBehaviour::kNone; }
  // Whether the behaviour changes what MPI does while idle (it takes CPU
  // from MPI_Init on): then r_mpi_impact is the behaviour's, not the
  // library's, and a run measures its own. The others act inside the
  // collective's calls only.
  bool ChangesIdleState() const {
    return behaviour == ReferenceBehaviour::kPassiveImpact || behaviour == ReferenceBehaviour::kSlowRank;
  }
  // "deferred (latency 20us, bandwidth 50 MB/s)": for headers and logs.
  std::string Describe() const;
};

// The environment variables that carry a spec to the ranks
// (NBCGUARD_REFERENCE=<behaviour>, NBCGUARD_REFERENCE_LATENCY=<seconds>, ...),
// in a form FromEnvironment reads back exactly.
std::map<std::string, std::string> ToEnvironment(const ReferenceSpec& spec);

// Reads a spec back through `getenv` (unset variables keep their defaults;
// NBCGUARD_REFERENCE unset = kNone). A malformed or out-of-range value is an
// error naming the variable and what is allowed: nullopt and *error set.
std::optional<ReferenceSpec> FromEnvironment(const std::function<const char*(const char*)>& getenv,
                                             std::string* error);

// Checks the ranges (latency >= 0, bandwidth > 0, late_delay >= 0,
// 0 < share <= 1, period > 0, late_rank >= -1); empty when valid.
std::string Validate(const ReferenceSpec& spec);

}  // namespace nbcguard
