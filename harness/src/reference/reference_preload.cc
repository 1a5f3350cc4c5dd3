// libnbcguard-reference.so: reference behaviours with known answers, loaded
// into the harness ranks with LD_PRELOAD (the driver does it when a case has
// a `reference:` section). Through the MPI profiling interface it takes over
// the progression of the eleven nonblocking collectives the harness
// measures; everything else (clock sync, barriers, verification) goes
// straight to the tested library.
//
// A collective started here returns a generalized request (MPI_Grequest_start)
// and records what the real call would have been. Its completion follows the
// configured behaviour (reference.h); then MPI_Wait performs the real
// nonblocking collective with the same arguments, waits for it, and
// completes the generalized request, so the data really moves and the
// harness verifies it. With the model's low bandwidth the real transfer is a
// few percent of the modelled time.
//
// The behaviours and what they use:
//   background     MPI_Wait polls until start + D (no CPU while computing)
//   deferred       the start does nothing; MPI_Wait then takes D
//   cpu-thief      a busy SCHED_FIFO thread of the rank, 50 us after the
//                  start, spins until it has used D of CPU time, taking its
//                  core from the computation meanwhile; MPI_Wait polls
//                  until it has
//   late-rank      background; the late rank spends late_delay inside the
//                  start call (busy, as a rank still computing) before
//                  entering the collective
//   late-exit      background; after the real transfer, the late rank stays
//                  busy late_delay more in MPI_Wait (as a root that still
//                  reduces, or a rank descheduled at the end): the others
//                  are not held, so the ranks' own durations differ
//   passive-impact background; a SCHED_FIFO thread spins share x period of
//                  every period from MPI_Init to MPI_Finalize
// D = latency + bytes / bandwidth, bytes as BytesPerRank in the harness.
// Only MPI_Wait, MPI_Waitall and MPI_Test complete these requests; other
// completion calls on them stop the job with a message instead of hanging.
#include <mpi.h>
#include <pthread.h>
#include <time.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "nbcguard/reference.h"

namespace {

using nbcguard::ReferenceBehaviour;
using nbcguard::ReferenceSpec;

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double ThreadCpu() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Busy until `deadline` on CLOCK_MONOTONIC, as a library polling in
// MPI_Wait is. Sleeping instead would free the core for the other ranks'
// computation (vCPUs and hyperthreads share a core's throughput), which the
// computation reference, taken while the other ranks spin in the
// synchronized barrier, does not get: r_comp_slowdown would read below 1.
void SpinUntil(double deadline) {
  while (Now() < deadline) {
  }
}

// Asleep until `deadline` on CLOCK_MONOTONIC (no CPU).
void SleepUntil(double deadline) {
  timespec ts;
  ts.tv_sec = static_cast<time_t>(deadline);
  ts.tv_nsec = static_cast<long>((deadline - static_cast<double>(ts.tv_sec)) * 1e9);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "libnbcguard-reference: %s\n", why.c_str());
  std::fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, 3);
  std::abort();
}

// The busy threads run SCHED_FIFO: on waking they take their core at once
// and keep it until they sleep, so the share they take from a computation is
// known exactly. Under the default scheduler a new thread waits for the
// running one's time slice (3 ms here), which makes the share of a
// millisecond-scale collective a matter of luck.
void MakeRealtime(std::thread& t, const char* what) {
  sched_param param{};
  param.sched_priority = 1;
  const int rc = pthread_setschedparam(t.native_handle(), SCHED_FIFO, &param);
  if (rc != 0)
    Die(std::string("cannot give the ") + what + " thread SCHED_FIFO priority 1 (" + std::strerror(rc) +
        "): this reference behaviour needs root, CAP_SYS_NICE or an RLIMIT_RTPRIO of at least 1 to take "
        "a known share of the core");
}

// One thread that burns CPU for the cpu-thief: jobs of D seconds of its own
// CPU time, in order.
class Thief {
 public:
  static constexpr double kStartDelay = 50e-6;
  struct Job {
    double cpu = 0;
    double submitted = 0;
    std::atomic<bool> done{false};
  };
  ~Thief() { Stop(); }
  std::shared_ptr<Job> Submit(double cpu) {
    auto job = std::make_shared<Job>();
    job->cpu = cpu;
    job->submitted = Now();
    {
      std::lock_guard<std::mutex> lock(mu_);
      // The thread keeps the rank's own CPU set: with ranks bound (Open
      // MPI's default) it takes its rank's core; with ranks unbound
      // (MPICH's), the real-time scheduler puts each rank's thief on a
      // core of its own, each taking one computation's core. Pinning it to
      // the CPU the rank ran on at the start call did not work unbound:
      // two ranks seen on one CPU got both thieves there, and one rank's
      // start call then waited a whole D behind the other's thief.
      if (!thread_.joinable()) {
        thread_ = std::thread([this] { Loop(); });
        MakeRealtime(thread_, "cpu-thief");
      }
      jobs_.push_back(job);
    }
    cv_.notify_all();
    return job;
  }
  // Polls, as a library's MPI_Wait does (see SpinUntil).
  void WaitFor(const std::shared_ptr<Job>& job) {
    while (!Done(job)) {
    }
  }
  static bool Done(const std::shared_ptr<Job>& job) { return job->done.load(std::memory_order_acquire); }
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
      if (stop_) return;
      std::shared_ptr<Job> job = jobs_.front();
      lock.unlock();
      // A real-time thread runs the moment it wakes, which would be inside
      // the start call; it starts kStartDelay later, when the rank computes.
      // Asleep, not spinning: a spinning real-time thread would hold the core.
      SleepUntil(job->submitted + kStartDelay);
      const double until = ThreadCpu() + job->cpu;
      while (ThreadCpu() < until) {
      }
      job->done.store(true, std::memory_order_release);
      lock.lock();
      jobs_.pop_front();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> jobs_;
  std::thread thread_;
  bool stop_ = false;
};

// The idle runtime thread of passive-impact. It spins during the first
// `share` of every period, with periods aligned on CLOCK_MONOTONIC, so the
// spinners of all ranks of a host spin at the same time. Unaligned, the cost
// depends on the phase between ranks wherever cores share throughput (SMT,
// or vCPUs as on this machine, where a GEMM runs 1.8x faster while the other
// vCPU idles): a rank computing while its neighbour spins gets the whole
// core, and the slowdown reads anywhere between 1.1x and 2x for share 0.5.
// Aligned, every rank computes for the same (1 - share) of each period
// against the same neighbour, and the computation takes 1 / (1 - share).
class Spinner {
 public:
  void Start(double share, double period) {
    thread_ = std::thread([this, share, period] {
      auto period_start = [period](double t) { return std::floor(t / period) * period; };
      double next = period_start(Now()) + period;
      SleepUntil(next);
      while (!stop_.load(std::memory_order_relaxed)) {
        const double spin_end = next + share * period;
        while (Now() < spin_end && !stop_.load(std::memory_order_relaxed)) {
        }
        next += period;
        // Fell behind (descheduled): back on the grid, no catch-up burst.
        if (Now() > next) next = period_start(Now()) + period;
        if (share < 1) SleepUntil(next);
      }
    });
    MakeRealtime(thread_, "passive-impact");
  }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

struct Pending {
  std::function<int(MPI_Request*)> real;  // the real nonblocking collective
  double duration = 0;                    // modelled D
  double deadline = 0;                    // background kinds: completion instant
  std::shared_ptr<Thief::Job> job;        // cpu-thief
  bool late_exit = false;                 // late-exit: this rank leaves late_delay after the others
};

struct State {
  bool loaded = false;
  ReferenceSpec spec;
  std::map<MPI_Request, Pending> pending;
  Thief thief;
  Spinner spinner;
};

State& S() {
  static State* s = new State;  // never destroyed: threads are stopped in MPI_Finalize
  return *s;
}

void Load() {
  State& s = S();
  if (s.loaded) return;
  std::string error;
  auto spec = nbcguard::FromEnvironment([](const char* v) { return std::getenv(v); }, &error);
  if (!spec) Die(error);
  s.spec = *spec;
  s.loaded = true;
}

void AfterInit() {
  Load();
  State& s = S();
  if (s.spec.behaviour == ReferenceBehaviour::kPassiveImpact) s.spinner.Start(s.spec.share, s.spec.period);
}

int QueryFn(void*, MPI_Status* status) {
  MPI_Status_set_elements(status, MPI_BYTE, 0);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
int FreeFn(void*) { return MPI_SUCCESS; }
int CancelFn(void*, int) { return MPI_SUCCESS; }

std::uint64_t Bytes(MPI_Datatype type, int count, std::uint64_t times) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return static_cast<std::uint64_t>(size) * static_cast<std::uint64_t>(count < 0 ? 0 : count) * times;
}

int CommSize(MPI_Comm comm) {
  int n = 1;
  PMPI_Comm_size(comm, &n);
  return n;
}

// Whether this rank of `comm` is the late one of late-rank / late-exit.
bool IsLateRank(MPI_Comm comm, const ReferenceSpec& spec) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  return rank == (spec.late_rank < 0 ? CommSize(comm) - 1 : spec.late_rank);
}

// The start of every intercepted collective.
int Start(MPI_Comm comm, std::uint64_t bytes, std::function<int(MPI_Request*)> real, MPI_Request* request) {
  Load();
  State& s = S();
  if (!s.spec.active()) return real(request);
  const ReferenceSpec& spec = s.spec;
  if (spec.behaviour == ReferenceBehaviour::kLateRank && IsLateRank(comm, spec))
    SpinUntil(Now() + spec.late_delay);
  Pending p;
  p.late_exit = spec.behaviour == ReferenceBehaviour::kLateExit && IsLateRank(comm, spec);
  p.real = std::move(real);
  p.duration = spec.Duration(bytes);
  p.deadline = Now() + p.duration;
  if (spec.behaviour == ReferenceBehaviour::kCpuThief) p.job = s.thief.Submit(p.duration);
  const int rc = PMPI_Grequest_start(QueryFn, FreeFn, CancelFn, nullptr, request);
  if (rc != MPI_SUCCESS) return rc;
  s.pending[*request] = std::move(p);
  return MPI_SUCCESS;
}

// Modelled completion, then the real transfer, then the generalized request.
int Complete(MPI_Request* request, MPI_Status* status) {
  State& s = S();
  auto it = s.pending.find(*request);
  Pending p = std::move(it->second);
  s.pending.erase(it);
  switch (s.spec.behaviour) {
    case ReferenceBehaviour::kDeferred:
      SpinUntil(Now() + p.duration);
      break;
    case ReferenceBehaviour::kCpuThief:
      s.thief.WaitFor(p.job);
      break;
    default:
      SpinUntil(p.deadline);
  }
  MPI_Request real = MPI_REQUEST_NULL;
  int rc = p.real(&real);
  if (rc == MPI_SUCCESS) rc = PMPI_Wait(&real, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  if (p.late_exit) SpinUntil(Now() + s.spec.late_delay);
  PMPI_Grequest_complete(*request);
  return PMPI_Wait(request, status);
}

bool Ours(const MPI_Request* request) {
  return request && *request != MPI_REQUEST_NULL && S().pending.count(*request) != 0;
}

// Whether the modelled completion has happened (MPI_Test).
bool Ready(const Pending& p) {
  switch (S().spec.behaviour) {
    case ReferenceBehaviour::kDeferred:
      return false;  // only MPI_Wait progresses it
    case ReferenceBehaviour::kCpuThief:
      return S().thief.Done(p.job);
    default:
      return Now() >= p.deadline;
  }
}

// Completion calls these requests do not support: a clear stop, not a hang.
void Refuse(const char* call, int count, const MPI_Request* requests) {
  for (int i = 0; i < count; ++i)
    if (Ours(&requests[i]))
      Die(std::string(call) + " on a request of a reference behaviour is not supported; use MPI_Wait, "
                              "MPI_Waitall or MPI_Test");
}

}  // namespace

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) AfterInit();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) AfterInit();
  return rc;
}

int MPI_Finalize(void) {
  S().spinner.Stop();
  S().thief.Stop();
  return PMPI_Finalize();
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  if (Ours(request)) return Complete(request, status);
  return PMPI_Wait(request, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  bool any = false;
  for (int i = 0; i < count; ++i) any |= Ours(&requests[i]);
  if (!any) return PMPI_Waitall(count, requests, statuses);
  for (int i = 0; i < count; ++i) {
    const int rc = MPI_Wait(&requests[i], statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i]);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  if (!Ours(request)) return PMPI_Test(request, flag, status);
  *flag = 0;
  if (!Ready(S().pending[*request])) return MPI_SUCCESS;
  *flag = 1;
  return Complete(request, status);
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  Refuse("MPI_Waitany", count, requests);
  return PMPI_Waitany(count, requests, index, status);
}

int MPI_Waitsome(int count, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  Refuse("MPI_Waitsome", count, requests);
  return PMPI_Waitsome(count, requests, outcount, indices, statuses);
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  Refuse("MPI_Testall", count, requests);
  return PMPI_Testall(count, requests, flag, statuses);
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  Refuse("MPI_Testany", count, requests);
  return PMPI_Testany(count, requests, index, flag, status);
}

int MPI_Testsome(int count, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  Refuse("MPI_Testsome", count, requests);
  return PMPI_Testsome(count, requests, outcount, indices, statuses);
}

int MPI_Request_free(MPI_Request* request) {
  Refuse("MPI_Request_free", 1, request);
  return PMPI_Request_free(request);
}

int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request) {
  return Start(comm, Bytes(type, count, 1),
               [=](MPI_Request* r) { return PMPI_Ibcast(buf, count, type, root, comm, r); }, request);
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request* request) {
  return Start(comm, Bytes(type, count, 1),
               [=](MPI_Request* r) { return PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, r); },
               request);
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  return Start(comm, Bytes(type, count, 1),
               [=](MPI_Request* r) { return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, r); },
               request);
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return Start(comm, Bytes(sendtype, sendcount, 1), [=](MPI_Request* r) {
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  }, request);
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return Start(comm, Bytes(sendtype, sendcount, CommSize(comm)), [=](MPI_Request* r) {
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  }, request);
}

int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return Start(comm, Bytes(sendtype, sendcount, 1), [=](MPI_Request* r) {
    return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
  }, request);
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  // Every rank models the root's send buffer (recvcount x ranks), so all
  // ranks agree on D.
  return Start(comm, Bytes(recvtype, recvcount, CommSize(comm)), [=](MPI_Request* r) {
    return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
  }, request);
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm, MPI_Request* request) {
  return Start(comm, Bytes(type, recvcount, CommSize(comm)), [=](MPI_Request* r) {
    return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, r);
  }, request);
}

int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
              MPI_Request* request) {
  return Start(comm, Bytes(type, count, 1),
               [=](MPI_Request* r) { return PMPI_Iscan(sendbuf, recvbuf, count, type, op, comm, r); }, request);
}

int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                MPI_Request* request) {
  return Start(comm, Bytes(type, count, 1),
               [=](MPI_Request* r) { return PMPI_Iexscan(sendbuf, recvbuf, count, type, op, comm, r); }, request);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return Start(comm, 0, [=](MPI_Request* r) { return PMPI_Ibarrier(comm, r); }, request);
}

}  // extern "C"
