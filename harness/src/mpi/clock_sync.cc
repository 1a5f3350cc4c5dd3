#include "clock_sync.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include <sched.h>
#include <unistd.h>

#include "gemm.h"  // MonotonicNow

namespace nbcguard {

LocalClock::LocalClock(double offset, double drift) : offset_(offset), drift_(drift), mono0_(Mono()) {}

double LocalClock::Mono() { return MonotonicNow(); }

double LocalClock::Now() const { return At(Mono()); }

double LocalClock::At(double mono) const { return mono + offset_ + drift_ * (mono - mono0_); }

GlobalClock::GlobalClock(const Comm& comm, LocalClock clock) : comm_(comm), clock_(clock) {}

namespace {

// Waits without holding a core: a rank waiting for its turn (its server
// busy with others, the rest of the ranks still synchronizing) must not
// spin in MPI against the pairs exchanging ping-pongs when ranks share
// cores, or every round trip there costs scheduler slices. Only waits whose
// length does not matter use it (a first exchange, the barriers): the
// exchanges that are kept are the later, fast ones.
// The sleep doubles from 20 us to 1 ms: a short wait ends soon after its
// event, and a long one (a rank waiting for 15 others) wakes seldom enough
// not to preempt the exchanging pairs (at 50 us fixed, 14 waiting ranks
// made the flat loop's ping-pongs 4x slower on 2 cores).
void WaitYielding(MPI_Request* request, const char* what) {
  auto sleep = std::chrono::microseconds(20);
  for (;;) {
    int done = 0;
    CheckMpi(MPI_Test(request, &done, MPI_STATUS_IGNORE), what);
    if (done) return;
    std::this_thread::sleep_for(sleep);
    sleep = std::min(2 * sleep, std::chrono::microseconds(1000));
  }
}

// How a clock-sync receive waits for its message.
//   kBlock  the plain blocking receive (a core per rank)
//   kYield  polls with sched_yield between tests: when this node has more
//           ranks than cores the partner may be waiting for this rank's
//           core, and MPICH spins without yielding, so each message then
//           waited a whole scheduler slice (4 ms round trips with 2 tree
//           pairs on 2 cores, hundreds of us of error); Open MPI yields the
//           same way when oversubscribed
//   kSleep  WaitYielding: for a partner that may still be busy with others
enum class Wait { kBlock, kYield, kSleep };

void Receive(void* buf, MPI_Datatype type, int source, int tag, MPI_Comm c, Wait wait, const char* what) {
  if (wait == Wait::kBlock) {
    CheckMpi(MPI_Recv(buf, 1, type, source, tag, c, MPI_STATUS_IGNORE), what);
    return;
  }
  MPI_Request request;
  CheckMpi(MPI_Irecv(buf, 1, type, source, tag, c, &request), what);
  if (wait == Wait::kSleep) {
    WaitYielding(&request, what);
    return;
  }
  for (;;) {
    int done = 0;
    CheckMpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done) return;
    sched_yield();
  }
}

// kYield where this node has more ranks than cores, else kBlock.
Wait FastWait(const Comm& comm) {
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 && comm.ranks_on_node() > cores ? Wait::kYield : Wait::kBlock;
}

// The harness's own barrier, not a measured collective: it calls the
// library's PMPI entry so that a reference behaviour preloaded in front of
// the nonblocking collectives (libnbcguard-reference.so) never sees it. The
// deferred behaviour completes a request only in MPI_Wait, so an intercepted
// MPI_Ibarrier polled with MPI_Test here never completed: the reference
// tests hung in the first clock sync.
void BarrierYielding(MPI_Comm c, const char* what) {
  MPI_Request request;
  CheckMpi(PMPI_Ibarrier(c, &request), what);
  WaitYielding(&request, what);
}

}  // namespace

void GlobalClock::Serve(int client) {
  MPI_Comm c = comm_.get();
  const Wait fast = FastWait(comm_);
  for (bool first = true;; first = false) {
    int flag = 0;
    // The first ping: the client may still be waiting for its own turn.
    Receive(&flag, MPI_INT, client, kTagClockPing, c, first ? Wait::kSleep : fast, "MPI_Recv(clock ping)");
    if (flag == 0) break;
    // Rank 0's local clock is the global clock; any other server answers
    // with its own estimate of it (the fit of its points so far), so the
    // client's points are against rank 0 too.
    const double local = clock_.Now();
    const double t_ref = comm_.rank() == 0 ? local : fit_.model.ToGlobal(local);
    CheckMpi(MPI_Send(&t_ref, 1, MPI_DOUBLE, client, kTagClockPong, c), "MPI_Send(clock pong)");
  }
}

void GlobalClock::MeasureAgainst(int server, const SyncOptions& options) {
  MPI_Comm c = comm_.get();
  const Wait fast = FastWait(comm_);
  // The budget starts with the first answer: in the flat loop a rank waits
  // for every rank before it, and that wait must not eat its exchanges.
  double budget_end = INFINITY;
  for (int round = 0; round < options.rounds; ++round) {
    std::vector<PingPong> exchanges;
    exchanges.reserve(options.pingpongs);
    for (int i = 0; i < options.pingpongs; ++i) {
      if (i > 0 && LocalClock::Mono() > budget_end) break;
      PingPong p;
      const int flag = 1;
      p.t_send = clock_.Now();
      CheckMpi(MPI_Send(&flag, 1, MPI_INT, server, kTagClockPing, c), "MPI_Send(clock ping)");
      // The first answer: the server may still be serving others.
      Receive(&p.t_ref, MPI_DOUBLE, server, kTagClockPong, c, std::isinf(budget_end) ? Wait::kSleep : fast,
              "MPI_Recv(clock pong)");
      p.t_recv = clock_.Now();
      exchanges.push_back(p);
      if (std::isinf(budget_end)) budget_end = LocalClock::Mono() + options.max_seconds;
    }
    points_.push_back(BestOffset(exchanges));
    if (LocalClock::Mono() > budget_end) break;
  }
  const int done = 0;
  CheckMpi(MPI_Send(&done, 1, MPI_INT, server, kTagClockPing, c), "MPI_Send(clock done)");
  fit_ = FitClock(points_, one_rate_);
}

void GlobalClock::Calibrate(const SyncOptions& options) {
  MPI_Comm c = comm_.get();
  const int rank = comm_.rank(), size = comm_.size();
  BarrierYielding(c, "MPI_Ibarrier(clock sync start)");
  const double started = LocalClock::Mono();
  if (options.method == ClockSyncMethod::kTree) {
    // Stage by stage: measure against this rank's server (synchronized in an
    // earlier stage), then answer this rank's clients of the later stages.
    // A client's first ping waits for its server to be ready, so no stage
    // needs a barrier of its own.
    if (rank > 0) MeasureAgainst(TreeServer(rank), options);
    for (int client : TreeClients(rank, size)) Serve(client);
  } else if (rank == 0) {
    for (int peer = 1; peer < size; ++peer) Serve(peer);  // each rank in turn
  } else {
    MeasureAgainst(0, options);
  }
  BarrierYielding(c, "MPI_Ibarrier(clock sync)");
  last_seconds_ = LocalClock::Mono() - started;
}

}  // namespace nbcguard
