// The nonblocking collectives nbcguard measures: one registry entry each.
// An entry owns its buffers for a given block count, fills them with a
// pattern that depends on rank and repetition, starts the nonblocking call,
// and verifies every delivered element after MPI_Wait (a wrong result is a
// conformance failure, never a silent pass). The buffer delivered into is
// set to -1 before a call unless it holds the previous call's checked
// values, which differ at every element from what this one must deliver
// (RepetitionsDifferEverywhere, pattern.h): an element the call leaves
// unwritten fails the check either way. Each also runs its blocking twin on the
// same buffers (the CPU overhead phase compares the two), verified the same way.
// Made persistent (MakeCollective), the same collective runs as an MPI-4
// persistent collective: MPI_<Coll>_init after each Resize, MPI_Start for
// each Start, on the same buffers.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nbcguard {

class Collective {
 public:
  virtual ~Collective() = default;
  // Allocates buffers for `count` int32 elements per block.
  virtual void Resize(std::uint64_t count) = 0;
  virtual void Fill(int rep) = 0;
  virtual int Start(MPI_Request* request) = 0;  // returns the MPI error code
  // The persistent request with Start's arguments (MPI_<Coll>_init, or
  // Open MPI's MPIX_<Coll>_init; persistent.h); MPI_ERR_OTHER when the
  // library has neither. Returns the MPI error code.
  virtual int Init(MPI_Request* request) = 0;
  // Persistent: this rank's seconds in MPI_<Coll>_init at the current size
  // (the median of record::kInitTimings calls); NaN otherwise.
  virtual double InitSeconds() const;
  // The blocking collective with the same arguments (MPI_Bcast for
  // MPI_Ibcast, ...): after it returns, Verify holds as after Start + MPI_Wait.
  virtual int Blocking() = 0;  // returns the MPI error code
  // Empty when correct; otherwise what is wrong (first bad element).
  virtual std::string Verify(int rep) const = 0;
  // Called as a call that may write the delivered buffer starts (Start,
  // Blocking, MPI_Start of the persistent request): Fill may keep a
  // buffer's checked content instead of resetting it only until then.
  virtual void Delivering() = 0;
  // Bytes this rank sends per call at `count` (for reports, which give rank
  // 0's: the v-collectives' differ by rank).
  virtual std::uint64_t BytesPerRank(std::uint64_t count) const = 0;
  // Largest count whose buffers on one rank stay within `budget` bytes; the
  // same on every rank (all ranks calibrate over the same counts).
  virtual std::uint64_t MaxCount(std::uint64_t budget) const = 0;
  // Flips one element of what the call delivered (testing that Verify
  // catches a wrong result). No effect for ibarrier.
  virtual void Corrupt() = 0;
  // False for ibarrier: no size to calibrate.
  virtual bool HasSize() const { return true; }
};

// nullptr when the name is unknown (names: CollectiveNames()). persistent:
// through MPI_<Coll>_init and MPI_Start (only where PersistentSource() is
// not empty). root: the root of the rooted collectives (ibcast, ireduce,
// igather(v), iscatter(v); -1: the last rank); the others have none.
std::unique_ptr<Collective> MakeCollective(const std::string& name, MPI_Comm comm, bool persistent = false,
                                           int root = 0);

}  // namespace nbcguard
