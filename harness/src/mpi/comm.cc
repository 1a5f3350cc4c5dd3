#include "comm.h"

#include <cstdio>
#include <cstdlib>

namespace nbcguard {

void Fatal(const std::string& message) {
  int rank = -1;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "nbcguard-harness[rank %d]: fatal: %s\n", rank, message.c_str());
  std::fflush(stderr);
  if (initialized) MPI_Abort(MPI_COMM_WORLD, 3);
  std::exit(3);
}

void CheckMpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  Fatal(std::string(what) + " failed: " + std::string(text, len));
}

Comm::Comm(MPI_Comm parent) {
  CheckMpi(MPI_Comm_dup(parent, &comm_), "MPI_Comm_dup");
  CheckMpi(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  CheckMpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  CheckMpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  MPI_Comm node;
  CheckMpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  CheckMpi(MPI_Comm_size(node, &ranks_on_node_), "MPI_Comm_size(node)");
  CheckMpi(MPI_Comm_rank(node, &node_rank_), "MPI_Comm_rank(node)");
  MPI_Comm_free(&node);
}

Comm::~Comm() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

CollectiveComm::CollectiveComm(MPI_Comm base, const std::string& kind) : comm_(base) {
  if (kind == "reversed") {
    int rank = 0, size = 0;
    CheckMpi(MPI_Comm_rank(base, &rank), "MPI_Comm_rank");
    CheckMpi(MPI_Comm_size(base, &size), "MPI_Comm_size");
    CheckMpi(MPI_Comm_split(base, 0, size - 1 - rank, &comm_), "MPI_Comm_split(reversed ranks)");
    owned_ = true;
  } else if (kind == "dup") {
    CheckMpi(MPI_Comm_dup(base, &comm_), "MPI_Comm_dup");
    owned_ = true;
  } else if (kind != "world") {
    Fatal("unknown communicator " + kind);
  }
  if (owned_) CheckMpi(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
}

CollectiveComm::~CollectiveComm() {
  if (owned_ && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

bool Comm::AnyTrue(bool mine) const {
  int in = mine ? 1 : 0, out = 0;
  CheckMpi(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, comm_), "MPI_Allreduce(agree)");
  return out != 0;
}

double Comm::Max(double mine) const {
  double out = 0;
  CheckMpi(MPI_Allreduce(&mine, &out, 1, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce(max)");
  return out;
}

double Comm::BcastDouble(double value) const {
  CheckMpi(MPI_Bcast(&value, 1, MPI_DOUBLE, 0, comm_), "MPI_Bcast(double)");
  return value;
}

std::vector<double> Comm::GatherToRoot(const std::vector<double>& mine) const {
  std::vector<double> all(rank_ == 0 ? mine.size() * size_ : 0);
  CheckMpi(MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                      static_cast<int>(mine.size()), MPI_DOUBLE, 0, comm_),
           "MPI_Gather(samples)");
  return all;
}

std::vector<std::string> Comm::GatherStrings(const std::string& mine) const {
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(size_), displs(size_);
  CheckMpi(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm_), "MPI_Gather(len)");
  int total = 0;
  for (int r = 0; r < size_ && rank_ == 0; ++r) {
    displs[r] = total;
    total += lens[r];
  }
  std::string all(total, '\0');
  CheckMpi(
      MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, comm_),
      "MPI_Gatherv(strings)");
  std::vector<std::string> out;
  for (int r = 0; r < size_ && rank_ == 0; ++r) out.push_back(all.substr(displs[r], lens[r]));
  return out;
}

std::string Comm::BcastString(const std::string& on_root) const {
  int len = rank_ == 0 ? static_cast<int>(on_root.size()) : 0;
  CheckMpi(MPI_Bcast(&len, 1, MPI_INT, 0, comm_), "MPI_Bcast(length)");
  std::string out = rank_ == 0 ? on_root : std::string(len, '\0');
  CheckMpi(MPI_Bcast(out.data(), len, MPI_CHAR, 0, comm_), "MPI_Bcast(string)");
  return out;
}

std::string Comm::FirstError(const std::string& mine) const {
  std::vector<std::string> all = GatherStrings(mine);
  std::string first;
  for (std::size_t r = 0; r < all.size() && first.empty(); ++r)
    if (!all[r].empty()) first = "rank " + std::to_string(r) + ": " + all[r];
  return BcastString(first);
}

}  // namespace nbcguard
