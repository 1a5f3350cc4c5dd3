// nbcguard-conformance: the MPI program of the conformance tier, one
// process per rank. Runs a matrix of checks (collective x variant, then the
// semantics checks: several collectives outstanding, threads, the progress
// rule, large counts); every rank runs the same sequence, and after each
// check the ranks agree on the first error. Rank 0 appends one JSON line per
// check to --out as it goes ("started", then the outcome), so a hang or a
// crash still leaves every completed check and names the one in progress.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "buffer.h"
#include "checks.h"
#include "comm.h"
#include "nbcguard/driver_common.h"

namespace nbcguard::conformance {
namespace {

using json = nlohmann::json;
constexpr int kRepetitions = 3;

std::string ErrorText(const std::string& call, int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return call + " returned an error: " + std::string(text, len);
}

// One planned check: a collective with a variant, or a semantics check
// (collective "outstanding", "threads", "progress", "large_count").
struct Planned {
  std::string collective;
  Variant v;
  std::string detail;  // the semantics check's variant
  std::string Label() const {
    const CollectiveInfo* c = FindCollective(collective);
    return c ? v.Label(c->dims) : detail;
  }
};

// The variants of one collective: every dimension it takes, one at a time
// from the base (count 7, root 0, world), plus the combinations where bugs
// hide (a non-zero root on a reordered communicator, in place at a non-zero
// root, a non-commutative operation on a reordered communicator). The full
// tier adds sizes, more roots, datatypes and operations, and runs every
// variant persistent too; the quick one runs the base persistent.
std::vector<Variant> VariantsOf(const CollectiveInfo& c, bool full, int n) {
  std::vector<Variant> out;
  const Variant base;
  auto add = [&](auto change) {
    Variant v = base;
    change(v);
    out.push_back(v);
  };
  add([](Variant&) {});
  std::vector<std::uint64_t> counts = {0};
  if (full) counts.insert(counts.end(), {1, 1000, 65537});
  for (std::uint64_t k : counts) add([&](Variant& v) { v.count = k; });
  if (c.dims & kRootDim) {
    add([&](Variant& v) { v.root = n - 1; });
    if (full && n > 2) add([&](Variant& v) { v.root = 1; });
  }
  if (c.dims & kInPlaceDim) {
    add([](Variant& v) { v.in_place = true; });
    if (c.dims & kRootDim) add([&](Variant& v) { v.in_place = true, v.root = n - 1; });
  }
  if (c.dims & kDatatypeDim) {
    add([](Variant& v) { v.datatype = "struct"; });
    if (full) add([](Variant& v) { v.datatype = "vector"; });
  }
  if (c.dims & kOpDim) {
    add([](Variant& v) { v.op = "noncomm"; });
    add([](Variant& v) { v.op = "noncomm", v.comm = "reversed"; });
    if (full) add([](Variant& v) { v.op = "max"; });
  }
  add([&](Variant& v) {
    v.comm = "reversed";
    if (c.dims & kRootDim) v.root = 1;
  });
  if (full) add([](Variant& v) { v.comm = "dup"; });
  if (c.dims & kTopologyDim) {  // every variant above on the graph; the base on repeated neighbours
    const std::size_t cart = out.size();
    for (std::size_t i = 0; i < cart; ++i) {
      out.push_back(out[i]);
      out.back().topology = "graph";
    }
    add([](Variant& v) { v.topology = "cart-repeated"; });
  }
  const std::size_t nonblocking = full ? out.size() : 1;
  for (std::size_t i = 0; i < nonblocking; ++i) {
    out.push_back(out[i]);
    out.back().persistent = true;
  }
  return out;
}

std::vector<Planned> Plan(const std::vector<std::string>& selected, bool full, int n) {
  auto wanted = [&](const std::string& name) {
    return selected.empty() || std::find(selected.begin(), selected.end(), name) != selected.end();
  };
  std::vector<Planned> plan;
  for (const CollectiveInfo& c : Collectives())
    if (wanted(c.name))
      for (const Variant& v : VariantsOf(c, full, n)) plan.push_back({c.name, v, ""});
  if (wanted("outstanding"))
    for (const char* how : {"waitall", "waitany", "testsome"})
      plan.push_back({"outstanding", {}, std::string("completion=") + how});
  if (wanted("threads")) plan.push_back({"threads", {}, "threads=2 MPI_THREAD_MULTIPLE"});
  if (wanted("progress")) plan.push_back({"progress", {}, "MPI_Test only"});
  if (full && wanted("large_count")) plan.push_back({"large_count", {}, "MPI_Ibcast_c 2 GiB + 64 B"});
  return plan;
}

// The variants' communicators, made once: the world (a duplicate), a split
// with the ranks reversed, and a duplicate of that duplicate.
class Comms {
 public:
  explicit Comms(MPI_Comm world) {
    MPI_Comm_dup(world, &world_);
    int me, n;
    MPI_Comm_rank(world, &me);
    MPI_Comm_size(world, &n);
    MPI_Comm_split(world_, 0, n - 1 - me, &reversed_);
    MPI_Comm_dup(world_, &dup_);
  }
  ~Comms() {
    for (MPI_Comm* c : {&world_, &reversed_, &dup_}) MPI_Comm_free(c);
  }
  MPI_Comm Get(const std::string& name) const {
    return name == "reversed" ? reversed_ : name == "dup" ? dup_ : world_;
  }

 private:
  MPI_Comm world_, reversed_, dup_;
};

// Runs `check` kRepetitions times (fill, start, wait, verify) and returns
// its first error. Every rank goes through every repetition, whatever it
// found, so the ranks stay in step.
std::string Repeat(Check& check, bool persistent, double* init_seconds) {
  std::string error;
  auto note = [&](const std::string& e) {
    if (error.empty() && !e.empty()) error = e;
  };
  MPI_Request q = MPI_REQUEST_NULL;
  check.Fill(0);
  if (persistent) {
    const double t0 = MPI_Wtime();
    const int rc = check.Init(&q);
    *init_seconds = MPI_Wtime() - t0;
    if (rc != MPI_SUCCESS) return ErrorText(check.Call(true), rc);
  }
  for (int rep = 0; rep < kRepetitions; ++rep) {
    if (rep > 0) check.Fill(rep);
    const int rc = persistent ? MPI_Start(&q) : check.Start(&q);
    if (rc != MPI_SUCCESS) {
      note(ErrorText(persistent ? "MPI_Start" : check.Call(false), rc));
      continue;
    }
    const int wrc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    if (wrc != MPI_SUCCESS) note(ErrorText("MPI_Wait", wrc));
    const std::string wrong = check.Verify(rep);
    if (!wrong.empty()) note("repetition " + std::to_string(rep) + ": " + wrong);
  }
  if (persistent && q != MPI_REQUEST_NULL) MPI_Request_free(&q);
  return error;
}

std::string RunCollective(const Planned& p, const Comms& comms, double* init_seconds, std::string* skip) {
  std::unique_ptr<Check> check = MakeCheck(p.collective, p.v, comms.Get(p.v.comm), skip);
  if (!check) return {};
  return Repeat(*check, p.v.persistent, init_seconds);
}

// Several collectives outstanding on one communicator, started in one
// order and completed through MPI_Waitall / MPI_Waitany / MPI_Testsome on
// the requests in the reverse order; two of them are the same collective
// (MPI_Iallreduce) with different data, which matching must keep apart.
std::string RunOutstanding(const std::string& how, const Comms& comms) {
  MPI_Comm comm = comms.Get("world");
  int n;
  MPI_Comm_size(comm, &n);
  struct Item {
    const char* collective;
    Variant v;
  };
  std::vector<Item> items = {{"iallreduce", {}}, {"ibcast", {}},   {"iallgatherv", {}}, {"iallreduce", {}},
                             {"ialltoallw", {}}, {"igatherv", {}}, {"ibarrier", {}},    {"iscan", {}}};
  items[0].v.count = 1000;
  items[1].v.root = n - 1, items[1].v.datatype = "vector", items[1].v.count = 1000;
  items[3].v.op = "noncomm", items[3].v.count = 100;
  items[4].v.datatype = "struct";
  items[5].v.root = n > 1 ? 1 : 0;
  std::vector<std::unique_ptr<Check>> checks;
  std::string skip;
  for (std::size_t i = 0; i < items.size(); ++i) {
    checks.push_back(MakeCheck(items[i].collective, items[i].v, comm, &skip));
    checks.back()->Fill(static_cast<int>(i));  // a different repetition each: different data
  }
  std::vector<MPI_Request> requests(checks.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const int rc = checks[i]->Start(&requests[checks.size() - 1 - i]);  // reversed
    if (rc != MPI_SUCCESS) return ErrorText(checks[i]->Call(false), rc);
  }
  int rc = MPI_SUCCESS;
  if (how == "waitall") {
    rc = MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  } else {
    for (std::size_t done = 0; done < requests.size() && rc == MPI_SUCCESS;) {
      int count = 0, index = MPI_UNDEFINED;
      std::vector<int> indices(requests.size());
      if (how == "waitany") {
        rc = MPI_Waitany(static_cast<int>(requests.size()), requests.data(), &index, MPI_STATUS_IGNORE);
        count = index == MPI_UNDEFINED ? MPI_UNDEFINED : 1;
      } else {
        rc = MPI_Testsome(static_cast<int>(requests.size()), requests.data(), &count, indices.data(),
                          MPI_STATUSES_IGNORE);
      }
      if (count == MPI_UNDEFINED) break;
      done += static_cast<std::size_t>(count);
    }
  }
  if (rc != MPI_SUCCESS) return ErrorText("MPI_" + how, rc);
  for (MPI_Request r : requests)
    if (r != MPI_REQUEST_NULL) return "MPI_" + how + " left a request active after completing them all";
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const std::string e = checks[i]->Verify(static_cast<int>(i));
    if (!e.empty())
      return std::string(items[i].collective) + " (started " + std::to_string(i + 1) + ". of " +
             std::to_string(checks.size()) + "): " + e;
  }
  return {};
}

// Two threads, each on its own communicator, each running a sequence of
// collectives at the same time as the other (MPI_THREAD_MULTIPLE).
std::string RunThreads(int provided, MPI_Comm world, std::string* skip) {
  if (provided < MPI_THREAD_MULTIPLE) {
    *skip = "the library provides thread level " + std::to_string(provided) + ", not MPI_THREAD_MULTIPLE";
    return {};
  }
  int n;
  MPI_Comm_size(world, &n);
  constexpr int kThreads = 2;
  MPI_Comm comms[kThreads];
  for (MPI_Comm& c : comms) MPI_Comm_dup(world, &c);
  std::string errors[kThreads];
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      const char* sequence[] = {"iallreduce", "ibcast", "ialltoallv", "iallgather"};
      for (int round = 0; round < 5 && errors[t].empty(); ++round)
        for (const char* name : sequence) {
          Variant v;
          v.root = n - 1;
          v.count = 1000;
          v.datatype = t == 0 ? "int" : "struct";
          std::string unused;
          double init = 0;
          const std::string e = Repeat(*MakeCheck(name, v, comms[t], &unused), false, &init);
          if (!e.empty() && errors[t].empty())
            errors[t] = std::string(name) + " in thread " + std::to_string(t) + ": " + e;
        }
    });
  for (std::thread& th : threads) th.join();
  for (MPI_Comm& c : comms) MPI_Comm_free(&c);
  for (const std::string& e : errors)
    if (!e.empty()) return e;
  return {};
}

// The progress rule: an operation only ever polled with MPI_Test must
// complete. A 1 MiB MPI_Iallreduce and a 256 KiB-per-peer MPI_Ialltoall
// (several rounds each) are polled until both complete or `bound` seconds
// pass.
std::string RunProgress(const Comms& comms, double bound) {
  Variant a, b;
  a.count = 1 << 18;
  b.count = 1 << 16;
  std::string skip;
  std::unique_ptr<Check> checks[] = {MakeCheck("iallreduce", a, comms.Get("world"), &skip),
                                     MakeCheck("ialltoall", b, comms.Get("world"), &skip)};
  MPI_Request q[2];
  for (int i = 0; i < 2; ++i) {
    checks[i]->Fill(i);
    const int rc = checks[i]->Start(&q[i]);
    if (rc != MPI_SUCCESS) return ErrorText(checks[i]->Call(false), rc);
  }
  int done[2] = {0, 0};
  long calls = 0;
  const double t0 = MPI_Wtime();
  while (!(done[0] && done[1]) && MPI_Wtime() - t0 < bound)
    for (int i = 0; i < 2; ++i)
      if (!done[i]) {
        MPI_Test(&q[i], &done[i], MPI_STATUS_IGNORE);
        ++calls;
      }
  std::string error;
  for (int i = 0; i < 2; ++i)
    if (!done[i]) {
      char msg[256];
      std::snprintf(msg, sizeof msg, "%s polled with MPI_Test only: not complete after %ld calls in %.0f s",
                    checks[i]->Call(false).c_str(), calls, bound);
      if (error.empty()) error = msg;
      MPI_Wait(&q[i], MPI_STATUS_IGNORE);  // what the rule promises MPI_Wait still does
    }
  for (int i = 0; i < 2 && error.empty(); ++i) error = checks[i]->Verify(i);
  return error;
}

// A count past 2^31 through MPI-4's large-count call: MPI_Ibcast_c of
// 2 GiB + 64 bytes on the first two ranks, every byte checked.
std::string RunLargeCount(MPI_Comm world, std::string* skip) {
#if MPI_VERSION >= 4
  (void)skip;
  int me;
  MPI_Comm_rank(world, &me);
  MPI_Comm pair;
  MPI_Comm_split(world, me < 2 ? 0 : MPI_UNDEFINED, me, &pair);
  if (pair == MPI_COMM_NULL) return {};
  const MPI_Count count = (MPI_Count{1} << 31) + 64;
  auto byte = [](MPI_Count i) { return static_cast<unsigned char>((i * 131 + (i >> 20)) & 0xff); };
  std::vector<unsigned char> buf(static_cast<std::size_t>(count), 0);
  if (me == 0)
    for (MPI_Count i = 0; i < count; ++i) buf[static_cast<std::size_t>(i)] = byte(i);
  MPI_Request q;
  std::string error;
  const int rc = MPI_Ibcast_c(buf.data(), count, MPI_BYTE, 0, pair, &q);
  if (rc != MPI_SUCCESS) error = ErrorText("MPI_Ibcast_c", rc);
  const int wrc = rc == MPI_SUCCESS ? MPI_Wait(&q, MPI_STATUS_IGNORE) : MPI_SUCCESS;
  if (wrc != MPI_SUCCESS) error = ErrorText("MPI_Wait on MPI_Ibcast_c", wrc);
  for (MPI_Count i = 0; i < count && error.empty(); ++i)
    if (buf[static_cast<std::size_t>(i)] != byte(i)) {
      char msg[160];
      std::snprintf(msg, sizeof msg, "MPI_Ibcast_c of %lld bytes: byte %lld: expected %d, got %d",
                    static_cast<long long>(count), static_cast<long long>(i), byte(i),
                    buf[static_cast<std::size_t>(i)]);
      error = msg;
    }
  MPI_Comm_free(&pair);
  return error;
#else
  (void)world;
  *skip = "this MPI library has no MPI-4 large-count functions (MPI_Ibcast_c): MPI_VERSION " +
          std::to_string(MPI_VERSION);
  return {};
#endif
}

// A check that does not finish within the bound is hung: rank 0 records
// {"hung": index} and ends its process, which ends the job (the launcher
// stops every rank); the driver starts the plan again after that check.
// Rank 0 cannot run ahead of a hung rank: every check ends with an
// agreement among all ranks.
class Watchdog {
 public:
  explicit Watchdog(std::ofstream* log) : log_(log) {
    if (log_) thread_ = std::thread([this] { Watch(); });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  void Arm(std::size_t index, double bound) {
    std::lock_guard<std::mutex> lock(mutex_);
    index_ = index;
    bound_ = bound;
    armed_ = true;
    deadline_ =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(bound));
    wake_.notify_all();
  }
  void Disarm() {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = false;
  }

 private:
  void Watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
      if (!armed_) {
        wake_.wait(lock);
        continue;
      }
      if (wake_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ && !stop_ &&
          std::chrono::steady_clock::now() >= deadline_) {
        *log_ << json{{"hung", index_}, {"bound_seconds", bound_}}.dump() << std::endl;
        std::_Exit(kHarnessFailed);
      }
    }
  }

  std::ofstream* log_;
  double bound_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
  std::size_t index_ = 0;
  bool armed_ = false, stop_ = false;
  std::chrono::steady_clock::time_point deadline_;
};

// Whether `p` is one of the checks given as "<collective>|<words>": the
// collective and every word of its variant label.
bool NotRun(const Planned& p, const std::string& label, const std::vector<std::string>& not_run) {
  for (const std::string& entry : not_run) {
    const std::size_t bar = entry.find('|');
    if (entry.substr(0, bar) != p.collective) continue;
    std::istringstream want(bar == std::string::npos ? "" : entry.substr(bar + 1));
    bool all = true;
    for (std::string w; want >> w;) all = all && (" " + label + " ").find(" " + w + " ") != std::string::npos;
    if (all) return true;
  }
  return false;
}

int Size() {
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// Runs the plan; returns how many checks failed. The communicators are
// freed before MPI_Finalize.
int RunPlan(const std::vector<Planned>& plan, std::size_t from, double check_bound,
            const std::vector<std::string>& not_run, int provided, double bound, const std::string& out) {
  Comm world(MPI_COMM_WORLD);
  const Comms comms(world.get());
  std::ofstream log;
  if (world.rank() == 0) log.open(out, std::ios::app);
  auto write = [&](const json& j) {
    if (world.rank() == 0) log << j.dump() << std::endl;  // flushed: survives a hang or a crash
  };
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  write({{"library_version", std::string(version, length)}, {"checks", plan.size()}, {"from", from}});
  Watchdog watchdog(world.rank() == 0 ? &log : nullptr);
  int failed = 0;
  for (std::size_t index = from; index < plan.size(); ++index) {
    const Planned& p = plan[index];
    const std::string label = p.Label();
    write({{"started", p.collective}, {"variant", label}, {"index", index}});
    if (NotRun(p, label, not_run)) {
      write({{"index", index},
             {"collective", p.collective},
             {"variant", label},
             {"status", "skip"},
             {"not_run", true},
             {"message", "not run: the driver's known failures say it hangs"}});
      continue;
    }
    // Moving 2 GiB per rank and checking every byte takes far longer than
    // any other check.
    watchdog.Arm(index, p.collective == "large_count" ? 20 * check_bound : check_bound);
    std::string skip, error;
    double init_seconds = -1;
    const double t0 = MPI_Wtime();
    if (p.collective == "outstanding") error = RunOutstanding(p.detail.substr(p.detail.find('=') + 1), comms);
    else if (p.collective == "threads") error = RunThreads(provided, world.get(), &skip);
    else if (p.collective == "progress") error = RunProgress(comms, bound);
    else if (p.collective == "large_count") error = RunLargeCount(world.get(), &skip);
    else error = RunCollective(p, comms, &init_seconds, &skip);
    const std::string first = world.FirstError(error);
    watchdog.Disarm();
    json rec = {{"index", index},
                {"collective", p.collective},
                {"variant", label},
                {"status", !first.empty()  ? "fail"
                           : !skip.empty() ? "skip"
                                           : "pass"},
                {"seconds", MPI_Wtime() - t0}};
    if (!first.empty()) rec["message"] = first;
    if (first.empty() && !skip.empty()) rec["message"] = skip;
    if (init_seconds >= 0) rec["init_seconds"] = init_seconds;
    failed += first.empty() ? 0 : 1;
    write(rec);
  }
  write({{"end", true},
         {"ranks", world.size()},
         {"thread_level", provided},
         {"persistent", PersistentSource()}});
  return failed;
}

int Main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  CLI::App app("nbcguard-conformance: the conformance tier's MPI program");
  std::string tier = "quick", out;
  std::vector<std::string> selected;
  double bound = 5, check_bound = 120;
  std::size_t from = 0;
  std::vector<std::string> not_run;
  app.add_option("--tier", tier)->check(CLI::IsMember({"quick", "full"}));
  app.add_option("--collective", selected, "collectives or semantics checks (default: all)")->delimiter(',');
  app.add_option("--out", out, "JSON lines, written by rank 0")->required();
  app.add_option("--progress-bound", bound, "seconds an operation polled with MPI_Test may take");
  app.add_option("--check-bound", check_bound, "seconds one check may take before it counts as hung");
  bool library_version = false;
  app.add_flag("--library-version", library_version, "only write the library's version string to --out");
  app.add_option("--not-run", not_run, "checks not to run: \"<collective>|<words of the variant label>\"");
  app.add_option("--from", from, "index of the first check of the plan to run (after a hung one)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    MPI_Finalize();
    return app.exit(e);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (library_version) {  // the driver asks which library runs, before it plans
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::ofstream(out) << json{{"library_version", std::string(version, length)}}.dump() << std::endl;
    MPI_Finalize();
    return kPass;
  }
  const int failed =
      RunPlan(Plan(selected, tier == "full", Size()), from, check_bound, not_run, provided, bound, out);
  MPI_Finalize();
  return failed > 0 ? kConformance : kPass;
}
}  // namespace
}  // namespace nbcguard::conformance

int main(int argc, char** argv) {
  try {
    return nbcguard::conformance::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nbcguard-conformance: internal error: %s\n", e.what());
    return nbcguard::kHarnessFailed;
  }
}
