// The four ways of moving one buffer in partitions from rank 0 to rank 1
// (Schneewind, HLRS): MPI_Send per partition, MPI_Isend per partition + Waitall,
// persistent sends (MPI_Send_init once, MPI_Start per partition + Waitall),
// and MPI-4 partitioned communication (MPI_Psend_init once, MPI_Start,
// MPI_Pready per partition, MPI_Wait; receiver MPI_Precv_init, MPI_Parrived
// per partition, MPI_Wait). The MPI-4 calls are compiled only where mpi.h
// declares MPI 4 (Open MPI 4.1's says 3.1): elsewhere Available() is false
// and the caller skips with MissingReason().
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nbcguard/partitioned.h"

namespace nbcguard {

class PartitionedTransfer {
 public:
  // True when this build has MPI_Psend_init and friends.
  static bool Available();
  // Why not, naming the library and the missing calls ("" when available).
  static std::string MissingReason(const std::string& library_version);

  // Rank 0 of `comm` sends, rank 1 receives (the caller checks there are 2).
  // The transfers use a duplicate of `comm`, so their tags never meet the
  // harness's own traffic.
  PartitionedTransfer(MPI_Comm comm, std::uint64_t buffer_bytes);
  ~PartitionedTransfer();
  PartitionedTransfer(const PartitionedTransfer&) = delete;
  PartitionedTransfer& operator=(const PartitionedTransfer&) = delete;

  // Creates the persistent and partitioned requests of one grid point
  // (untimed: initialisation is not part of a transfer, Schneewind, HLRS).
  void Setup(const PartitionedPointSpec& point);
  void Teardown();

  // Untimed, before the synchronized barrier: the sender writes the pattern
  // of `sample`; the receiver poisons its buffer and posts (starts) every
  // receive of mechanism `m`, so no mechanism pays for unexpected messages.
  // `order` is the ready order of this repetition (both ranks know it).
  void Prepare(Mechanism m, std::uint64_t sample, const std::vector<int>& order);
  // Timed: the whole buffer by mechanism `m`, with point.threads OpenMP
  // threads issuing the per-partition calls on the sender. The receiver
  // waits; for the partitioned mechanism it polls MPI_Parrived in the ready
  // order and checks each partition's first and last byte as it arrives.
  void Transfer(Mechanism m);
  // Untimed, after the transfer: every received byte against the pattern;
  // "" when right, else what is wrong (mechanism, partition, byte). Also
  // reports a partition MPI_Parrived announced before its data was there.
  std::string Verify(Mechanism m) const;
  // Flips one byte the transfer delivered (tests that Verify catches it).
  void Corrupt();

  int rank() const { return rank_; }

 private:
  void CheckArrived(int partition);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  std::uint64_t bytes_ = 0;
  std::vector<unsigned char> buffer_;
  PartitionedPointSpec point_;
  std::vector<int> order_;
  std::uint64_t sample_ = 0;
  std::vector<MPI_Request> per_partition_;  // Isend/Irecv of send and isend
  std::vector<MPI_Request> persistent_;     // Send_init / Recv_init, one per partition
  MPI_Request partitioned_ = MPI_REQUEST_NULL;
  std::string arrival_error_;  // first partition whose data was wrong when MPI_Parrived said it had arrived
};

}  // namespace nbcguard
