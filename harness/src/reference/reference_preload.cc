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
//   cpu-thief      50 us after the start call returns, a timer signal's
//                  handler on the computing thread spins until that thread
//                  has used D more CPU time: the computation loses D of its
//                  core; MPI_Wait polls until the handler is done
//   late-rank      background; the late rank spends late_delay inside the
//                  start call (busy, as a rank still computing) before
//                  entering the collective
//   late-exit      background; after the real transfer, the late rank stays
//                  busy late_delay more in MPI_Wait (as a root that still
//                  reduces, or a rank descheduled at the end): the others
//                  are not held, so the ranks' own durations differ
//   passive-impact background; the computing thread loses share x period of
//                  every period from MPI_Init to MPI_Finalize (a timer
//                  signal whose handler spins; see PeriodicSteal)
//   sleeping-wait  background, but MPI_Wait sleeps until start + D instead
//                  of polling: a library that blocks in the kernel and
//                  leaves the CPU free (the known low answer of the CPU
//                  overhead measurement; its blocking twin is not
//                  intercepted and stays the library's own)
// D = latency + bytes / bandwidth, bytes as BytesPerRank in the harness.
// Only MPI_Wait, MPI_Waitall and MPI_Test complete these requests; other
// completion calls on them stop the job with a message instead of hanging.
#include <mpi.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>

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

timespec ToTimespec(double t) {
  timespec ts;
  ts.tv_sec = static_cast<time_t>(t);
  ts.tv_nsec = static_cast<long>((t - static_cast<double>(ts.tv_sec)) * 1e9);
  return ts;
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
  const timespec ts = ToTimespec(deadline);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "libnbcguard-reference: %s\n", why.c_str());
  std::fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, 3);
  std::abort();
}

// The stealing behaviours take their time on the computing thread itself,
// in the handler of a timer signal sent to that thread: the loss is then
// known whatever the scheduler does. Busy threads beside the computation
// (SCHED_FIFO, so that they would take the core the moment they woke) were
// tried first, for both; the share they took then depended on where the
// scheduler put them, on which thread ran first after a wake-up and on
// real-time throttling, none of which the reference can see (see
// PeriodicSteal and Thief).
//
// Installs `handler` for real-time signal SIGRTMAX - from_max, which must
// be unhandled so far; returns the signal.
int InstallHandler(int from_max, void (*handler)(int, siginfo_t*, void*), const char* behaviour) {
  const int sig = SIGRTMAX - from_max;
  struct sigaction old {};
  sigaction(sig, nullptr, &old);
  if ((old.sa_flags & SA_SIGINFO) ? old.sa_sigaction != nullptr
                                  : (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN))
    Die(std::string(behaviour) + " needs real-time signal SIGRTMAX-" + std::to_string(from_max) +
        ", which the process already handles");
  struct sigaction sa {};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(sig, &sa, nullptr) != 0) Die(std::string("sigaction: ") + std::strerror(errno));
  return sig;
}

// A CLOCK_MONOTONIC timer that sends `sig` with `value` to the calling
// thread, first at the absolute instant `first`, then every `interval`
// (0: once).
timer_t ArmTimer(int sig, void* value, double first, double interval) {
  sigevent ev{};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = sig;
  ev.sigev_value.sival_ptr = value;
  ev._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
  timer_t timer{};
  if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0)
    Die(std::string("timer_create: ") + std::strerror(errno));
  itimerspec its{};
  its.it_value = ToTimespec(first);
  its.it_interval = ToTimespec(interval);
  if (timer_settime(timer, TIMER_ABSTIME, &its, nullptr) != 0)
    Die(std::string("timer_settime: ") + std::strerror(errno));
  return timer;
}

// cpu-thief: progression that takes the computing core for D of CPU time,
// starting kStartDelay after the start call.
//
// The start call arms a one-shot timer that signals the thread that made
// it (the computation's master thread), and the handler spins until that
// thread has used D more CPU time; MPI_Wait and MPI_Test poll for the end.
// The computation therefore loses exactly D whichever core it runs on. The
// version before used a SCHED_FIFO thread of the rank for the spinning. In
// flakiness runs on 2 vCPUs it sometimes ran inside the start call instead
// of during the computation (a start call of 0.96 ms for D = 1 ms, with both
// Open MPI's bound ranks and MPICH's unbound ones): the computation was then
// not slowed and the collective read as not progressed (r_comm 1.00 where
// 0 is expected).
class Thief {
 public:
  static constexpr double kStartDelay = ReferenceSpec::kThiefStartDelay;
  static constexpr int kSignalFromMax = 4;  // SIGRTMAX - 4: not used by glibc, Open MPI or MPICH
  struct Job {
    double cpu = 0;
    timer_t timer{};
    std::atomic<bool> done{false};
  };
  void Install() { signal_ = InstallHandler(kSignalFromMax, &Thief::Handler, "cpu-thief"); }
  // Called at the end of the start call, on the thread that made it.
  std::shared_ptr<Job> Submit(double cpu) {
    auto job = std::make_shared<Job>();
    job->cpu = cpu;
    job->timer = ArmTimer(signal_, job.get(), Now() + kStartDelay, 0);
    return job;
  }
  // Polls, as a library's MPI_Wait does (see SpinUntil); the signal
  // interrupts the polling when the computation was shorter than the delay.
  static void WaitFor(const std::shared_ptr<Job>& job) {
    while (!Done(job)) {
    }
  }
  static bool Done(const std::shared_ptr<Job>& job) { return job->done.load(std::memory_order_acquire); }
  // After Done: the timer has fired and is no longer needed.
  static void Release(const std::shared_ptr<Job>& job) { timer_delete(job->timer); }

 private:
  // Async-signal-safe: clock_gettime and lock-free atomics only.
  static void Handler(int, siginfo_t* info, void*) {
    const int saved = errno;
    Job* job = static_cast<Job*>(info->si_value.sival_ptr);
    const double until = ThreadCpu() + job->cpu;
    while (ThreadCpu() < until) {
    }
    job->done.store(true, std::memory_order_release);
    errno = saved;
  }
  int signal_ = 0;
};

// passive-impact: the computation loses `share` of every `period`, from
// MPI_Init to MPI_Finalize, as to a runtime that never leaves it alone.
//
// A POSIX timer signals the thread that called MPI_Init (the computation's
// master thread) at every period boundary of CLOCK_MONOTONIC, and the
// handler spins on that thread for share x period. The boundaries
// are the same on all ranks of a host, so the ranks lose the same instants
// (on cores that share throughput, a rank computing while its neighbour
// spins would run faster and hide part of the loss).
//
// slow-rank uses the same timer on one rank, but its handler sleeps until
// share x period has passed (then spins off what the wake-up left): the core
// is freed, as for a rank descheduled in favour of another process. A spin
// there slowed the other rank's vCPU too and made the injected imbalance
// depend on the host.
//
// The handler adds up what it actually took; MPI_Finalize appends it to
// NBCGUARD_REFERENCE_LOG (when set) so the check can compare the share
// delivered with the one asked for (a coarse timer would deliver less).
class PeriodicSteal {
 public:
  static constexpr int kSignalFromMax = 3;  // SIGRTMAX - 3: not used by glibc, Open MPI or MPICH
  void Start(double share, double period, bool sleep) {
    share_ = share;
    sleep_ = sleep;
    period_ = period;
    const int sig = InstallHandler(kSignalFromMax, &PeriodicSteal::Handler, "passive-impact");
    instance_ = this;
    const double first = (std::floor(Now() / period) + 1) * period;
    started_ = Now();
    timer_ = ArmTimer(sig, nullptr, first, period);
    armed_ = true;
  }
  // Disarms the timer; returns the seconds it ran and the seconds taken.
  void Stop(double* elapsed, double* taken, long* ticks) {
    if (!armed_) return;
    timer_delete(timer_);
    armed_ = false;
    *elapsed = Now() - started_;
    *taken = 1e-9 * static_cast<double>(taken_ns_.load());
    *ticks = ticks_.load();
  }
  bool armed() const { return armed_; }

 private:
  // Async-signal-safe: clock_gettime and lock-free atomics only.
  static void Handler(int, siginfo_t*, void*) {
    const int saved = errno;
    PeriodicSteal* self = instance_;
    // share x period from entry (the signal's delivery latency, tens of us
    // here, is time the computation still had), but never into the next
    // period.
    const double entered = Now();
    const double until = std::min(entered + self->share_ * self->period_,
                                  (std::floor(entered / self->period_) + 1) * self->period_);
    if (self->sleep_) {
      const timespec at = ToTimespec(until);
      while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) == EINTR) {
      }
    }
    double now = Now();
    while (now < until) now = Now();
    self->taken_ns_.fetch_add(static_cast<long long>((now - entered) * 1e9));
    self->ticks_.fetch_add(1);
    errno = saved;
  }
  static PeriodicSteal* instance_;
  double share_ = 0, period_ = 1, started_ = 0;
  bool sleep_ = false;
  timer_t timer_{};
  bool armed_ = false;
  std::atomic<long long> taken_ns_{0};
  std::atomic<long> ticks_{0};
};
PeriodicSteal* PeriodicSteal::instance_ = nullptr;

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
  PeriodicSteal steal;
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

bool IsLateRank(MPI_Comm comm, const ReferenceSpec& spec);

void AfterInit() {
  Load();
  State& s = S();
  if (s.spec.behaviour == ReferenceBehaviour::kPassiveImpact ||
      (s.spec.behaviour == ReferenceBehaviour::kSlowRank && IsLateRank(MPI_COMM_WORLD, s.spec)))
    s.steal.Start(s.spec.share, s.spec.period, s.spec.behaviour == ReferenceBehaviour::kSlowRank);
  if (s.spec.behaviour == ReferenceBehaviour::kCpuThief) s.thief.Install();
}

// Ends passive-impact's stealing (before MPI_Finalize: its sockets and
// sleeps must not be interrupted) and records what was delivered.
void StopStealing() {
  State& s = S();
  if (!s.steal.armed()) return;
  double elapsed = 0, taken = 0;
  long ticks = 0;
  s.steal.Stop(&elapsed, &taken, &ticks);
  const char* log = std::getenv("NBCGUARD_REFERENCE_LOG");
  if (!log || !*log) return;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // One short line per rank and job, appended: several jobs of a run share the file.
  if (std::FILE* f = std::fopen(log, "a")) {
    std::fprintf(f,
                 "{\"behaviour\":\"%s\",\"rank\":%d,\"share\":%.17g,\"period\":%.17g,"
                 "\"elapsed\":%.9f,\"taken\":%.9f,\"ticks\":%ld}\n",
                 ToString(s.spec.behaviour), rank, s.spec.share, s.spec.period, elapsed, taken, ticks);
    std::fclose(f);
  }
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
  // slow-rank leaves the collectives to the library: it only slows a rank's computing.
  if (!s.spec.active() || s.spec.behaviour == ReferenceBehaviour::kSlowRank) return real(request);
  const ReferenceSpec& spec = s.spec;
  if (spec.behaviour == ReferenceBehaviour::kLateRank && IsLateRank(comm, spec))
    SpinUntil(Now() + spec.late_delay);
  Pending p;
  p.late_exit = spec.behaviour == ReferenceBehaviour::kLateExit && IsLateRank(comm, spec);
  p.real = std::move(real);
  p.duration = spec.Duration(bytes);
  p.deadline = Now() + p.duration;
  const int rc = PMPI_Grequest_start(QueryFn, FreeFn, CancelFn, nullptr, request);
  if (rc != MPI_SUCCESS) return rc;
  // Last, so that the thief's delay runs from the return to the caller.
  if (spec.behaviour == ReferenceBehaviour::kCpuThief) p.job = s.thief.Submit(p.duration);
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
      Thief::WaitFor(p.job);
      Thief::Release(p.job);
      break;
    case ReferenceBehaviour::kSleepingWait:
      SleepUntil(p.deadline);
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
      return Thief::Done(p.job);
    default:
      return Now() >= p.deadline;
  }
}

// Completion calls these requests do not support: a clear stop, not a hang.
void Refuse(const char* call, int count, const MPI_Request* requests) {
  for (int i = 0; i < count; ++i)
    if (Ours(&requests[i]))
      Die(std::string(call) +
          " on a request of a reference behaviour is not supported; use MPI_Wait, "
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
  StopStealing();
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
  return Start(
      comm, Bytes(type, count, 1),
      [=](MPI_Request* r) { return PMPI_Ibcast(buf, count, type, root, comm, r); }, request);
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request* request) {
  return Start(
      comm, Bytes(type, count, 1),
      [=](MPI_Request* r) { return PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, r); },
      request);
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  return Start(
      comm, Bytes(type, count, 1),
      [=](MPI_Request* r) { return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, r); }, request);
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return Start(
      comm, Bytes(sendtype, sendcount, 1),
      [=](MPI_Request* r) {
        return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
      },
      request);
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return Start(
      comm, Bytes(sendtype, sendcount, CommSize(comm)),
      [=](MPI_Request* r) {
        return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
      },
      request);
}

int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return Start(
      comm, Bytes(sendtype, sendcount, 1),
      [=](MPI_Request* r) {
        return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
      },
      request);
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  // Every rank models the root's send buffer (recvcount x ranks), so all
  // ranks agree on D.
  return Start(
      comm, Bytes(recvtype, recvcount, CommSize(comm)),
      [=](MPI_Request* r) {
        return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
      },
      request);
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm, MPI_Request* request) {
  return Start(
      comm, Bytes(type, recvcount, CommSize(comm)),
      [=](MPI_Request* r) {
        return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, r);
      },
      request);
}

int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
              MPI_Request* request) {
  return Start(
      comm, Bytes(type, count, 1),
      [=](MPI_Request* r) { return PMPI_Iscan(sendbuf, recvbuf, count, type, op, comm, r); }, request);
}

int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                MPI_Request* request) {
  return Start(
      comm, Bytes(type, count, 1),
      [=](MPI_Request* r) { return PMPI_Iexscan(sendbuf, recvbuf, count, type, op, comm, r); }, request);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return Start(
      comm, 0, [=](MPI_Request* r) { return PMPI_Ibarrier(comm, r); }, request);
}

}  // extern "C"
