// The harness's MPI seam: its own duplicated communicator with errors
// returned (never the library's silent abort), one place for message tags,
// and small collective helpers used to agree on decisions.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace nbcguard {

// Tags of the harness's own point-to-point traffic (clock sync and the
// broadcast acknowledgement check; the measured collectives use no tags).
enum Tag : int {
  kTagClockPing = 101,
  kTagClockPong = 102,
  kTagAckPing = 103,
  kTagAckPong = 104,
  kTagAck = 105
};

// Aborts the job with a message naming the call when rc is not MPI_SUCCESS.
void CheckMpi(int rc, const char* what);
[[noreturn]] void Fatal(const std::string& message);

class Comm {
 public:
  explicit Comm(MPI_Comm parent);
  ~Comm();
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int ranks_on_node() const { return ranks_on_node_; }
  int node_rank() const { return node_rank_; }  // rank among the ranks of this node

  // Agreement helpers: every rank gets the same answer.
  bool AnyTrue(bool mine) const;
  double Max(double mine) const;
  double BcastDouble(double value_on_root) const;
  // Rank 0 gets all ranks' vectors (equal lengths), concatenated by rank.
  std::vector<double> GatherToRoot(const std::vector<double>& mine) const;
  std::vector<std::string> GatherStrings(const std::string& mine) const;
  // Every rank gets rank 0's string.
  std::string BcastString(const std::string& on_root) const;
  // Every rank gets the lowest rank's non-empty error as "rank R: error",
  // or "" when no rank has one.
  std::string FirstError(const std::string& mine) const;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 0, ranks_on_node_ = 1, node_rank_ = 0;
};

// The communicator a measured collective runs on (--communicator): world
// is `base` itself; reversed, MPI_Comm_split of it with the ranks in
// reverse order (rank r of base is rank n-1-r); dup, a duplicate of its
// own. Collective: every rank makes it. Freed with this object.
class CollectiveComm {
 public:
  CollectiveComm(MPI_Comm base, const std::string& kind);
  ~CollectiveComm();
  CollectiveComm(const CollectiveComm&) = delete;
  CollectiveComm& operator=(const CollectiveComm&) = delete;
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool owned_ = false;
};

}  // namespace nbcguard
