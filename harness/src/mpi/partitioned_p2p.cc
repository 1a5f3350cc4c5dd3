#include "partitioned_p2p.h"

#include "comm.h"

namespace nbcguard {
namespace {

constexpr int kSender = 0, kReceiver = 1;

// The per-partition calls of the sender, in the ready order, from one
// thread or shared among `threads` OpenMP threads (static chunks of the
// order: each thread issues a contiguous run of it). Threads other than the
// first make MPI calls, hence MPI_THREAD_MULTIPLE for those points.
template <class Call>
void ForEachReady(const std::vector<int>& order, int threads, Call call) {
  const int n = static_cast<int>(order.size());
  if (threads <= 1) {
    for (int i = 0; i < n; ++i) call(order[i]);
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int i = 0; i < n; ++i) call(order[i]);
}

}  // namespace

bool PartitionedTransfer::Available() {
#if MPI_VERSION >= 4
  return true;
#else
  return false;
#endif
}

std::string PartitionedTransfer::MissingReason(const std::string& library_version) {
  if (Available()) return "";
  return "no MPI-4 partitioned communication in this MPI library (" + library_version +
         "; its mpi.h declares MPI " + std::to_string(MPI_VERSION) + "." + std::to_string(MPI_SUBVERSION) +
         "): MPI_Psend_init, MPI_Precv_init, MPI_Pready and MPI_Parrived are missing";
}

PartitionedTransfer::PartitionedTransfer(MPI_Comm comm, std::uint64_t buffer_bytes)
    : bytes_(buffer_bytes), buffer_(buffer_bytes) {
  CheckMpi(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup(partitioned)");
  CheckMpi(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler(partitioned)");
  CheckMpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank(partitioned)");
}

PartitionedTransfer::~PartitionedTransfer() {
  Teardown();
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void PartitionedTransfer::Setup(const PartitionedPointSpec& point) {
  Teardown();
  point_ = point;
  const int n = point.partitions;
  const int count = static_cast<int>(point.partition_bytes);
  per_partition_.assign(n, MPI_REQUEST_NULL);
  persistent_.assign(n, MPI_REQUEST_NULL);
  for (int p = 0; p < n; ++p) {
    unsigned char* at = buffer_.data() + static_cast<std::uint64_t>(p) * point.partition_bytes;
    if (rank_ == kSender)
      CheckMpi(MPI_Send_init(at, count, MPI_BYTE, kReceiver, p, comm_, &persistent_[p]), "MPI_Send_init");
    else if (rank_ == kReceiver)
      CheckMpi(MPI_Recv_init(at, count, MPI_BYTE, kSender, p, comm_, &persistent_[p]), "MPI_Recv_init");
  }
#if MPI_VERSION >= 4
  if (rank_ == kSender)
    CheckMpi(
        MPI_Psend_init(buffer_.data(), n, count, MPI_BYTE, kReceiver, 0, comm_, MPI_INFO_NULL, &partitioned_),
        "MPI_Psend_init");
  else if (rank_ == kReceiver)
    CheckMpi(
        MPI_Precv_init(buffer_.data(), n, count, MPI_BYTE, kSender, 0, comm_, MPI_INFO_NULL, &partitioned_),
        "MPI_Precv_init");
#endif
}

void PartitionedTransfer::Teardown() {
  for (MPI_Request& r : persistent_)
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  persistent_.clear();
  per_partition_.clear();
  if (partitioned_ != MPI_REQUEST_NULL) MPI_Request_free(&partitioned_);
}

void PartitionedTransfer::Prepare(Mechanism m, std::uint64_t sample, const std::vector<int>& order) {
  sample_ = sample;
  order_ = order;
  arrival_error_.clear();
  if (rank_ == kSender) {
    FillPattern(buffer_.data(), bytes_, sample);
    return;
  }
  if (rank_ != kReceiver) return;
  FillPoison(buffer_.data(), bytes_, sample);
  const int n = point_.partitions;
  const int count = static_cast<int>(point_.partition_bytes);
  switch (m) {
    case Mechanism::kSend:
    case Mechanism::kIsend:
      for (int p = 0; p < n; ++p)
        CheckMpi(MPI_Irecv(buffer_.data() + static_cast<std::uint64_t>(p) * point_.partition_bytes, count,
                           MPI_BYTE, kSender, p, comm_, &per_partition_[p]),
                 "MPI_Irecv");
      break;
    case Mechanism::kPersistent:
      CheckMpi(MPI_Startall(n, persistent_.data()), "MPI_Startall(receives)");
      break;
    case Mechanism::kPartitioned:
      CheckMpi(MPI_Start(&partitioned_), "MPI_Start(MPI_Precv_init request)");
      break;
  }
}

void PartitionedTransfer::CheckArrived(int p) {
  if (!arrival_error_.empty()) return;
  const std::uint64_t first = static_cast<std::uint64_t>(p) * point_.partition_bytes;
  const std::uint64_t last = first + point_.partition_bytes - 1;
  for (std::uint64_t at : {first, last}) {
    const unsigned char want = PatternByte(sample_, at);
    if (buffer_[at] != want) {
      arrival_error_ = "MPI_Parrived reported the partition arrived before its data: " +
                       DescribeWrongByte(Mechanism::kPartitioned, point_.partition_bytes, point_.partitions,
                                         at, want, buffer_[at]);
      return;
    }
  }
}

void PartitionedTransfer::Transfer(Mechanism m) {
  const int n = point_.partitions;
  const int count = static_cast<int>(point_.partition_bytes);
  const std::uint64_t size = point_.partition_bytes;
  unsigned char* buf = buffer_.data();
  if (rank_ == kSender) {
    switch (m) {
      case Mechanism::kSend:
        ForEachReady(order_, point_.threads, [&](int p) {
          CheckMpi(MPI_Send(buf + p * size, count, MPI_BYTE, kReceiver, p, comm_), "MPI_Send");
        });
        break;
      case Mechanism::kIsend:
        ForEachReady(order_, point_.threads, [&](int p) {
          CheckMpi(MPI_Isend(buf + p * size, count, MPI_BYTE, kReceiver, p, comm_, &per_partition_[p]),
                   "MPI_Isend");
        });
        CheckMpi(MPI_Waitall(n, per_partition_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall(isend)");
        break;
      case Mechanism::kPersistent:
        ForEachReady(order_, point_.threads,
                     [&](int p) { CheckMpi(MPI_Start(&persistent_[p]), "MPI_Start"); });
        CheckMpi(MPI_Waitall(n, persistent_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall(persistent)");
        break;
      case Mechanism::kPartitioned:
#if MPI_VERSION >= 4
        // Starting the request is part of each transfer: it is what
        // re-arms a partitioned send for the next buffer.
        CheckMpi(MPI_Start(&partitioned_), "MPI_Start(MPI_Psend_init request)");
        ForEachReady(order_, point_.threads,
                     [&](int p) { CheckMpi(MPI_Pready(p, partitioned_), "MPI_Pready"); });
        CheckMpi(MPI_Wait(&partitioned_, MPI_STATUS_IGNORE), "MPI_Wait(partitioned send)");
#endif
        break;
    }
    return;
  }
  if (rank_ != kReceiver) return;
  switch (m) {
    case Mechanism::kSend:
    case Mechanism::kIsend:
      CheckMpi(MPI_Waitall(n, per_partition_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall(receives)");
      break;
    case Mechanism::kPersistent:
      CheckMpi(MPI_Waitall(n, persistent_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall(persistent receives)");
      break;
    case Mechanism::kPartitioned:
#if MPI_VERSION >= 4
      // Each partition in the order the sender readies them, checked as
      // soon as MPI_Parrived says it is there (the point of partitioned
      // receives: consume partitions before the whole buffer completes).
      for (int p : order_) {
        int arrived = 0;
        while (!arrived) CheckMpi(MPI_Parrived(partitioned_, p, &arrived), "MPI_Parrived");
        CheckArrived(p);
      }
      CheckMpi(MPI_Wait(&partitioned_, MPI_STATUS_IGNORE), "MPI_Wait(partitioned receive)");
#endif
      break;
  }
}

std::string PartitionedTransfer::Verify(Mechanism m) const {
  if (rank_ != kReceiver) return "";
  if (!arrival_error_.empty()) return arrival_error_;
  const std::optional<std::uint64_t> wrong = FirstWrongByte(buffer_.data(), bytes_, sample_);
  if (!wrong) return "";
  return "received data wrong: " + DescribeWrongByte(m, point_.partition_bytes, point_.partitions, *wrong,
                                                     PatternByte(sample_, *wrong), buffer_[*wrong]);
}

void PartitionedTransfer::Corrupt() {
  if (rank_ != kReceiver || bytes_ == 0) return;
  // The middle partition's first byte: a partition other than the first.
  const std::uint64_t at = static_cast<std::uint64_t>(point_.partitions / 2) * point_.partition_bytes;
  buffer_[at] ^= 0x5a;
}

}  // namespace nbcguard
