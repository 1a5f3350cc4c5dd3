#include "impact_jobs.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>

#include "nbcguard/driver_common.h"
#include "nbcguard/raw_records.h"
#include "nbcguard/results_io.h"
#include "nbcguard/stats.h"
#include "nbcguard/units.h"

namespace nbcguard {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kMinRounds = 3, kMaxRounds = 9;
constexpr double kSpread = 1.2;
constexpr double kFirstMargin = 2.0, kMinMargin = 0.2, kMaxMargin = 16.0, kMarginPad = 0.1;

// One launch of the computation without MPI: per size, each process's times.
struct NoMpiLaunch {
  std::map<int, std::vector<std::vector<double>>> procs_by_size;
  bool late = false;
  double slack = 0;  // the least time any process had to spare before the instant
};

class ImpactRounds {
 public:
  explicit ImpactRounds(const ImpactSetup& s)
      : s_(s),
        per_round_(s.per_round),
        cdir_(s.dir / "no-mpi"),
        start_margin_(s.launch_seconds > 0
                          ? std::clamp(s.launch_seconds + kMarginPad, kMinMargin, kFirstMargin)
                          : kFirstMargin) {
    for (int n : s.sizes) list_ += (list_.empty() ? "" : ",") + std::to_string(n);
  }

  ImpactRuns Run(Watchdog* watchdog);

 private:
  void WithMpi(int round);
  // One job with MPI idle; false when a rank fell behind the agreed start
  // instants (its records are then left out).
  bool WithMpiOnce(int round);
  void WithoutMpi(int round);
  bool Launch(const fs::path& rdir, double margin, NoMpiLaunch* launch);
  bool Settled() const;
  // `args` and the overlap job's binding, when it had one.
  std::vector<std::string> WithBinding(std::vector<std::string> args) const {
    if (!s_.thread_cpus.empty())
      args.insert(args.end(), {"--thread-cpus", s_.thread_cpus, "--process-cpus", s_.process_cpus});
    return args;
  }

  const ImpactSetup& s_;
  const int per_round_;
  const fs::path cdir_;
  double start_margin_;
  std::string list_;
  ImpactRuns out_;
};

ImpactRuns ImpactRounds::Run(Watchdog* watchdog) {
  if (s_.sizes.empty()) return out_;
  fs::remove_all(cdir_);
  auto stop = [this] { return !out_.error.empty() || !out_.disturbed.empty(); };
  for (int round = 0; round < kMaxRounds && !stop(); ++round) {
    watchdog->ImpactRound(round + 1, kMaxRounds);
    const double round_started = s_.left();
    if (round % 2 == 0) {
      WithMpi(round);
      if (!stop()) WithoutMpi(round);
    } else {
      WithoutMpi(round);
      if (!stop()) WithMpi(round);
    }
    if (stop()) break;
    if (round + 1 < kMinRounds) continue;
    // Another round only if it fits twice in what the case has left.
    if (Settled() || s_.left() < 2 * (round_started - s_.left()) + 5) break;
  }
  if (!out_.disturbed.empty()) {  // no r_mpi_impact from rounds a disturbance cut short
    out_.passive.clear();
    out_.no_mpi.clear();
  }
  return out_;
}

// With MPI, idle. A rank that fell behind the agreed start instants (it
// computed far slower than calibrated: a machine busy with other work) is
// a disturbance, not the library's: the job runs once more, as the job
// without MPI does; a second time, r_mpi_impact is not measured (its points
// are refused, as a validity gate refuses a disturbed point).
void ImpactRounds::WithMpi(int round) {
  if (WithMpiOnce(round) || !out_.error.empty()) return;
  std::cerr << "nbcguard: a rank of the computation with MPI idle fell behind its start times; once more\n";
  if (!WithMpiOnce(round) && out_.error.empty())
    out_.disturbed =
        std::string("a rank of the computation with MPI idle fell behind its start times twice") +
        (s_.inject_late ? " (injected: --inject-fault impact-late)"
                        : " (it ran more than 3 times slower than calibrated: a busy machine)");
}

bool ImpactRounds::WithMpiOnce(int round) {
  const fs::path raw_path = s_.dir / ("passive." + std::to_string(round) + ".jsonl");
  fs::remove(raw_path);
  ProcessResult r = RunProcess(
      LaunchCommand(s_.cfg, s_.nodes, s_.cfg.harness,
                    WithBinding({"--mode", "passive", "--threads", std::to_string(s_.threads), "--sizes",
                                 list_, "--comp", JoinPrecise(s_.targets), "--repetitions",
                                 std::to_string(per_round_), "--out", raw_path.string()})),
      s_.env, std::max(1.0, s_.left()), [&raw_path] { return RawLogEnded(raw_path.string()); });
  RawRun raw = ReadRaw(raw_path.string());
  if (r.killed_after_end && raw.ended) {
    r.exit_code = raw.status;
    const std::string job = "the r_mpi_impact job with MPI idle (round " + std::to_string(round + 1) + ")";
    out_.exit_hangs.push_back(job);
    std::cout << ExitHangWarning(job) << "\n";
  }
  if (r.exit_code != 0 || !raw.ended) {
    // A log cut short by a full or read-only file system: that is the reason.
    const std::string write_error = DirectoryWriteError(s_.dir);
    out_.error = !write_error.empty() ? "computation with MPI idle: " + write_error
                 : r.exit_code == 0
                     ? "computation with MPI idle failed: its log " + raw_path.string() + " ends early"
                     : "computation with MPI idle failed (exit " + std::to_string(r.exit_code) + ")";
    std::error_code ec;
    if (!write_error.empty()) fs::remove(raw_path, ec);  // a cut log is no record
    return false;
  }
  const std::vector<const json*> records = RecordsOfType(raw, record::kPassive);
  if (s_.inject_late ||
      std::any_of(records.begin(), records.end(), [](const json* p) { return (*p).value("late", false); }))
    return false;
  for (const json* p : records) {
    json rec = *p;
    rec["round"] = round;
    out_.passive.push_back(rec);
  }
  return true;
}

// Every process starts at one CLOCK_REALTIME instant, `margin` ahead (see
// impact_jobs.h). False when the job failed (out_.error says why).
bool ImpactRounds::Launch(const fs::path& rdir, double margin, NoMpiLaunch* launch) {
  fs::remove_all(rdir);
  fs::create_directories(rdir);
  ProcessResult r = RunProcess(
      LaunchCommand(
          s_.cfg, s_.nodes, s_.cfg.compute,
          WithBinding({"--threads", std::to_string(s_.threads), "--sizes", list_, "--targets",
                       JoinPrecise(s_.targets), "--repetitions", std::to_string(per_round_),
                       "--start-realtime", Precise(RealtimeSeconds() + margin), "--out-dir", rdir.string()})),
      s_.env, std::max(1.0, s_.left()));
  if (r.exit_code != 0) {
    out_.error = r.timed_out ? "computation without MPI timed out"
                             : "computation without MPI failed (exit " + std::to_string(r.exit_code) + ")";
    return false;
  }
  *launch = NoMpiLaunch{{}, false, margin};
  for (const auto& e : fs::directory_iterator(rdir)) {
    std::ifstream f(e.path());
    json j = json::parse(f, nullptr, false);
    if (j.is_discarded()) continue;
    launch->late = launch->late || j.value("late", false);
    launch->slack = std::min(launch->slack, j.value("slack", 0.0));
    for (const json& res : j["results"])
      launch->procs_by_size[res["n"]].push_back(res["times"].get<std::vector<double>>());
  }
  return true;
}

void ImpactRounds::WithoutMpi(int round) {
  const fs::path rdir = cdir_ / std::to_string(round);
  NoMpiLaunch launch;
  int behind_retries = 0;
  for (double margin = start_margin_;;) {
    if (!Launch(rdir, margin, &launch)) return;
    start_margin_ = std::clamp(2 * (margin - launch.slack) + kMarginPad, kMinMargin, kFirstMargin);
    if (!launch.late) break;
    // Every process was ready in time, yet one missed a later size's
    // instant: it computed more than 3 times slower than calibrated
    // (a machine busy with other work). A longer margin does not help;
    // a busy spell may pass, so once more before it counts.
    if (launch.slack >= 0) {
      if (behind_retries++ == 0) {
        std::cerr << "nbcguard: a computation without MPI fell behind its start times; once more\n";
        continue;
      }
      out_.disturbed =
          "a computation without MPI fell behind its start times twice (it ran more than 3 times "
          "slower than calibrated: a busy machine)";
      return;
    }
    // The launch itself was late: again with twice the margin, at least
    // 2 s and at most kMaxMargin (srun allocates a job per launch: 0.3-1 s
    // here when idle, more than 2 s while compilers shared the vCPUs).
    const double next = std::max(kFirstMargin, 2 * margin);
    if (next > kMaxMargin || s_.left() < 2 * next + 5) {
      out_.error = "a computation without MPI started after the agreed instant (launcher slower than " +
                   FormatDuration(margin) + ")";
      return;
    }
    std::cerr << "nbcguard: the launcher took more than " << FormatDuration(margin)
              << " to start the computation without MPI; again with " << FormatDuration(next) << "\n";
    margin = next;
  }
  for (auto& [n, procs] : launch.procs_by_size) {
    std::vector<double> flat;
    for (auto& p : procs) flat.insert(flat.end(), p.begin(), p.end());
    out_.no_mpi[n][round] = SlowestPerRep(flat, static_cast<int>(procs.size()));
  }
}

// Every size's interval of r_mpi_impact is within kSpread (hi / lo).
bool ImpactRounds::Settled() const {
  std::vector<const json*> recs;
  for (const json& p : out_.passive) recs.push_back(&p);
  bool settled = true;
  for (const auto& [target, ratios] : ImpactRatiosPerRound(recs, out_.no_mpi, s_.nodes)) {
    const Spread sp = Summarize(ratios);
    settled = settled && sp.lo > 0 && sp.hi / sp.lo <= kSpread;
  }
  return settled;
}

}  // namespace

double RealtimeSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

int ImpactRepsPerRound(int case_reps) { return std::clamp((case_reps + kMinRounds - 1) / kMinRounds, 3, 5); }

ImpactRuns RunImpact(const ImpactSetup& setup, Watchdog* watchdog) {
  return ImpactRounds(setup).Run(watchdog);
}

}  // namespace nbcguard
