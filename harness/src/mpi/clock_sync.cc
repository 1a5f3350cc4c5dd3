#include "clock_sync.h"

#include "gemm.h"  // MonotonicNow

namespace nbcguard {

LocalClock::LocalClock(double offset, double drift)
    : offset_(offset), drift_(drift), mono0_(Mono()) {}

double LocalClock::Mono() { return MonotonicNow(); }

double LocalClock::Now() const { return At(Mono()); }

double LocalClock::At(double mono) const { return mono + offset_ + drift_ * (mono - mono0_); }

GlobalClock::GlobalClock(const Comm& comm, LocalClock clock) : comm_(comm), clock_(clock) {}

void GlobalClock::Calibrate(const SyncOptions& options) {
  MPI_Comm c = comm_.get();
  if (comm_.rank() == 0) {
    // Serve each rank in turn: answer pings with the reference time until
    // the rank says it is done (flag 0).
    for (int peer = 1; peer < comm_.size(); ++peer) {
      for (;;) {
        int flag = 0;
        CheckMpi(MPI_Recv(&flag, 1, MPI_INT, peer, kTagClockPing, c, MPI_STATUS_IGNORE),
                 "MPI_Recv(clock ping)");
        if (flag == 0) break;
        const double t_ref = clock_.Now();
        CheckMpi(MPI_Send(&t_ref, 1, MPI_DOUBLE, peer, kTagClockPong, c), "MPI_Send(clock pong)");
      }
    }
  } else {
    const double budget_end = LocalClock::Mono() + options.max_seconds;
    for (int round = 0; round < options.rounds; ++round) {
      std::vector<PingPong> exchanges;
      exchanges.reserve(options.pingpongs);
      for (int i = 0; i < options.pingpongs; ++i) {
        if (i > 0 && LocalClock::Mono() > budget_end) break;
        PingPong p;
        const int flag = 1;
        p.t_send = clock_.Now();
        CheckMpi(MPI_Send(&flag, 1, MPI_INT, 0, kTagClockPing, c), "MPI_Send(clock ping)");
        CheckMpi(MPI_Recv(&p.t_ref, 1, MPI_DOUBLE, 0, kTagClockPong, c, MPI_STATUS_IGNORE),
                 "MPI_Recv(clock pong)");
        p.t_recv = clock_.Now();
        exchanges.push_back(p);
      }
      points_.push_back(BestOffset(exchanges));
      if (LocalClock::Mono() > budget_end) break;
    }
    const int done = 0;
    CheckMpi(MPI_Send(&done, 1, MPI_INT, 0, kTagClockPing, c), "MPI_Send(clock done)");
    fit_ = FitClock(points_);
  }
  CheckMpi(MPI_Barrier(c), "MPI_Barrier(clock sync)");
}

}  // namespace nbcguard
