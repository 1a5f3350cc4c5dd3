// libnbcguard-bugs.so: realistic implementation bugs of nonblocking and
// persistent collectives, injected into a correct MPI library through the
// PMPI profiling interface, one at a time (NBCGUARD_BUG=<name>), to show
// that the conformance tier catches each. Preloaded into the ranks by
// `nbcguard conformance --bug <name>`; with NBCGUARD_BUG unset every call
// goes straight to the library. docs/conformance.md lists the bugs and the
// check that catches each.
//
// Buffers and argument arrays a bug substitutes must live until the call
// completes; they are kept until the process ends (the conformance
// program's calls are small and few).
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

const std::string& Bug() {
  static const std::string bug = [] {
    const char* b = std::getenv("NBCGUARD_BUG");
    return std::string(b ? b : "");
  }();
  return bug;
}

bool Is(const char* name) { return Bug() == name; }

// Memory that must outlive a nonblocking call.
template <class T>
T* Keep(std::size_t n) {
  static std::vector<std::unique_ptr<char[]>> kept;
  kept.push_back(std::make_unique<char[]>(n * sizeof(T) + 1));
  return reinterpret_cast<T*>(kept.back().get());
}

int Rank(MPI_Comm comm) {
  int r;
  PMPI_Comm_rank(comm, &r);
  return r;
}

int Size(MPI_Comm comm) {
  int n;
  PMPI_Comm_size(comm, &n);
  return n;
}

// Bytes `count` elements of `type` span (extent), and the bytes they hold.
MPI_Aint Span(int count, MPI_Datatype type) {
  MPI_Aint lb, extent;
  PMPI_Type_get_extent(type, &lb, &extent);
  return count * extent;
}

bool Contiguous(MPI_Datatype type) {
  MPI_Aint lb, extent;
  int size;
  PMPI_Type_get_extent(type, &lb, &extent);
  PMPI_Type_size(type, &size);
  return extent == size;
}

// What to do when a request completes in MPI_Wait (wait-early).
std::map<MPI_Request, std::pair<void*, std::int32_t>>& Restores() {
  static std::map<MPI_Request, std::pair<void*, std::int32_t>> r;
  return r;
}

// The world rank `root` of `comm`'s group, as a rank of `comm`
// (gather-root-world: the root read as a rank of MPI_COMM_WORLD).
int RootAsWorldRank(int root, MPI_Comm comm) {
  MPI_Group world, group;
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  PMPI_Comm_group(comm, &group);
  int translated = root;
  PMPI_Group_translate_ranks(world, 1, &root, group, &translated);
  PMPI_Group_free(&world);
  PMPI_Group_free(&group);
  return translated == MPI_UNDEFINED ? root : translated;
}

// `comm` with its ranks in reverse order, made once per communicator
// (noncomm-reversed). Made on first use by every rank at the same call.
MPI_Comm Reversed(MPI_Comm comm) {
  static std::map<MPI_Comm, MPI_Comm> made;
  auto it = made.find(comm);
  if (it != made.end()) return it->second;
  MPI_Comm r;
  PMPI_Comm_split(comm, 0, Size(comm) - 1 - Rank(comm), &r);
  return made[comm] = r;
}

}  // namespace

extern "C" {

// bcast-root-zero: the root's data is taken from rank 0 whatever the root.
// struct-holes-written: a non-contiguous datatype is broadcast as its
// extent of bytes, holes included.
int MPI_Ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request) {
  if (Is("bcast-root-zero")) root = 0;
  if (Is("struct-holes-written") && !Contiguous(type))
    return PMPI_Ibcast(buffer, static_cast<int>(Span(count, type)), MPI_BYTE, root, comm, request);
  return PMPI_Ibcast(buffer, count, type, root, comm, request);
}

// gather-root-world: the root is read as a rank of MPI_COMM_WORLD.
int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  if (Is("gather-root-world")) root = RootAsWorldRank(root, comm);
  return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

// gatherv-displ-off-by-one: the root places the last rank's block one
// element too far.
int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  if (Is("gatherv-displ-off-by-one") && Rank(comm) == root) {
    const int n = Size(comm);
    int* d = Keep<int>(static_cast<std::size_t>(n));
    std::memcpy(d, displs, sizeof(int) * static_cast<std::size_t>(n));
    d[n - 1] += 1;
    displs = d;
  }
  return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                       request);
}

// allreduce-in-place-ignored: with MPI_IN_PLACE the rank's own data is
// left out (a zero buffer reduced instead). noncomm-reversed: a
// non-commutative operation is applied in reverse rank order.
// send-buffer-scratch: the send buffer is used as scratch space.
int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  if (Is("allreduce-in-place-ignored") && sendbuf == MPI_IN_PLACE) {
    const std::size_t bytes = static_cast<std::size_t>(Span(count, type));
    char* zero = Keep<char>(bytes);
    std::memset(zero, 0, bytes);
    sendbuf = zero;
  }
  int commutative = 1;
  PMPI_Op_commutative(op, &commutative);
  if (Is("noncomm-reversed") && !commutative) comm = Reversed(comm);
  if (Is("send-buffer-scratch") && sendbuf != MPI_IN_PLACE && count > 0) {
    const std::size_t bytes = static_cast<std::size_t>(Span(count, type));
    char* copy = Keep<char>(bytes);
    std::memcpy(copy, sendbuf, bytes);
    const int rc = PMPI_Iallreduce(copy, recvbuf, count, type, op, comm, request);
    static_cast<unsigned char*>(const_cast<void*>(sendbuf))[0] ^= 0x5a;
    return rc;
  }
  return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
}

// wait-early: MPI_Wait returns before the last element of an allgather
// has landed.
int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const int rc = PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  if (Is("wait-early") && rc == MPI_SUCCESS && recvcount > 0) {
    auto* last = static_cast<char*>(recvbuf) + Span(recvcount * Size(comm), recvtype) - 4;
    std::int32_t before;
    std::memcpy(&before, last, 4);
    Restores()[*request] = {last, before};
  }
  return rc;
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  const MPI_Request r = *request;
  const int rc = PMPI_Wait(request, status);
  auto it = Restores().find(r);
  if (it != Restores().end()) {
    std::memcpy(it->second.first, &it->second.second, 4);
    Restores().erase(it);
  }
  return rc;
}

// alltoallv-contiguous-displs: the send displacements are ignored, the
// blocks taken as packed one after the other.
int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                   MPI_Comm comm, MPI_Request* request) {
  if (Is("alltoallv-contiguous-displs") && sendbuf != MPI_IN_PLACE) {
    const int n = Size(comm);
    int* d = Keep<int>(static_cast<std::size_t>(n));
    for (int i = 0, at = 0; i < n; at += sendcounts[i], ++i) d[i] = at;
    sdispls = d;
  }
  return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                         request);
}

// reduce-scatter-uniform: every rank's count is taken to be rank 0's.
int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                        MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  if (Is("reduce-scatter-uniform")) {
    const int n = Size(comm);
    int* c = Keep<int>(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) c[i] = recvcounts[0];
    recvcounts = c;
  }
  return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, request);
}

// scan-exclusive: the inclusive scan computed as an exclusive one.
int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
              MPI_Request* request) {
  if (Is("scan-exclusive")) return PMPI_Iexscan(sendbuf, recvbuf, count, type, op, comm, request);
  return PMPI_Iscan(sendbuf, recvbuf, count, type, op, comm, request);
}

// neighbor-swap: the blocks for the first two neighbours are swapped.
int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  int in = 0, out = 0, weighted = 0;
  int topo = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &topo);
  if (topo == MPI_CART) {
    int dims = 0;
    PMPI_Cartdim_get(comm, &dims);
    out = 2 * dims;
  } else if (topo == MPI_DIST_GRAPH) {
    PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
  }
  if (Is("neighbor-swap") && out >= 2 && sendcount > 0) {
    const MPI_Aint block = Span(sendcount, sendtype);
    const std::size_t bytes = static_cast<std::size_t>(block * out);
    char* copy = Keep<char>(bytes);
    std::memcpy(copy, sendbuf, bytes);
    std::memcpy(copy, static_cast<const char*>(sendbuf) + block, static_cast<std::size_t>(block));
    std::memcpy(copy + block, sendbuf, static_cast<std::size_t>(block));
    sendbuf = copy;
  }
  return PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

// test-no-progress: MPI_Test neither progresses nor completes anything.
int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  if (Is("test-no-progress")) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  return PMPI_Test(request, flag, status);
}

#if MPI_VERSION >= 4
// count-truncated: a count past 2^31 is cut to its low 31 bits.
int MPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                 MPI_Request* request) {
  if (Is("count-truncated")) count &= 0x7fffffff;
  return PMPI_Ibcast_c(buffer, count, type, root, comm, request);
}
#endif

// persistent-data-at-init: the root's data is copied at init and that copy
// is broadcast by every start.
#if MPI_VERSION >= 4
#define NBCGUARD_BCAST_INIT MPI_Bcast_init
#define NBCGUARD_PBCAST_INIT PMPI_Bcast_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define NBCGUARD_BCAST_INIT MPIX_Bcast_init
#define NBCGUARD_PBCAST_INIT PMPIX_Bcast_init
#endif
#ifdef NBCGUARD_BCAST_INIT
int NBCGUARD_BCAST_INIT(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request* request) {
  if (Is("persistent-data-at-init") && Rank(comm) == root && count > 0) {
    const std::size_t bytes = static_cast<std::size_t>(Span(count, type));
    char* copy = Keep<char>(bytes);
    std::memcpy(copy, buffer, bytes);
    buffer = copy;
  }
  return NBCGUARD_PBCAST_INIT(buffer, count, type, root, comm, info, request);
}
#endif

}  // extern "C"
