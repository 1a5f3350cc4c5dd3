// Starting programs the FindMPI way and waiting for them with a timeout.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nbcguard {

// What the build knows (nbcguard-config.json, written by CMake).
struct Config {
  std::string path;
  std::string implementation;  // label: openmpi, mpich, mpi
  // Which launcher starts the ranks: "mpiexec" (FindMPI's MPIEXEC_*) or
  // "srun" (Slurm). Either way the command is built the same way from
  // mpiexec (the executable), numproc_flag, preflags and postflags.
  std::string launcher = "mpiexec";
  std::string mpiexec, numproc_flag;
  std::vector<std::string> preflags, postflags;
  std::string harness, compute;
  std::string cases_dir, results_dir;
  // Threshold directories, searched in order: per library the first one
  // holding a matching file wins (a site's directory over the shipped one).
  std::vector<std::string> thresholds_dirs;
  std::string system;             // NBCGUARD_SYSTEM: matched by rules' match.system (empty: none)
  std::string calibration_cache;  // NBCGUARD_CALIBRATION_CACHE: cached calibrated sizes (empty = off)
  std::string reference_library;  // libnbcguard-reference.so (reference behaviours)
  std::string baseline_dir;       // NBCGUARD_BASELINE_DIR: generated tests compare with it (empty = no)
  // Set per run, not read from the file: environment variables given to the
  // harness ranks only (through `env` in front of the harness on the launch
  // line), e.g. LD_PRELOAD of the reference library. Never reaches the
  // launcher itself nor the program that must not load MPI.
  std::map<std::string, std::string> harness_env;
};

// Reads the file; on error returns false with *error saying what is wrong.
bool LoadConfig(const std::string& path, Config* config, std::string* error);

// ${MPIEXEC} ${NUMPROC_FLAG} n ${PREFLAGS} program ${POSTFLAGS} args; for the
// harness with harness_env set: ... ${PREFLAGS} env K=V... harness ${POSTFLAGS} args
std::vector<std::string> LaunchCommand(const Config& c, int ranks, const std::string& program,
                                       const std::vector<std::string>& args);

// The launchers a config file may name.
const std::vector<std::string>& KnownLaunchers();

// The "launch" record of results.json: launcher name, its executable, the
// full command line (shell-quoted) and the config file it came from.
nlohmann::json LaunchRecord(const Config& c, const std::vector<std::string>& cmd);

// What the driver prints before starting a job: "launcher srun: <command>".
std::string DescribeLaunch(const Config& c, const std::vector<std::string>& cmd);

struct ProcessResult {
  int exit_code = -1;  // exit status; 128+signal when killed by a signal
  bool timed_out = false;
  bool interrupted = false;  // the driver was told to stop (SIGTERM/SIGINT/SIGHUP) meanwhile
  // Killed because it had not exited `exit_grace` seconds after ended()
  // said its work was done (a hang in MPI_Finalize or in the launcher).
  bool killed_after_end = false;
  double seconds = 0;
};

// Runs argv in its own process group with extra environment variables; on
// timeout kills the whole group (TERM, then KILL after 5 s). The group's
// leader is a small supervisor that kills the group when the driver dies,
// however it dies. Once the driver was interrupted it starts nothing: the
// result is `interrupted` at once.
// `ended` (optional, asked about once a second): whether the job's work is
// done, e.g. its log's "end" record is written. A job still running
// ExitGrace() seconds after that is killed the same way and marked
// killed_after_end: what it had to deliver is there.
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                         double timeout_seconds, const std::function<bool()>& ended = nullptr);

// Seconds a job may take to exit after its work is done: NBCGUARD_EXIT_GRACE
// when set to a number of seconds in [1, 3600], else 30. MPI_Finalize and
// the launcher's teardown take well under a second on one node.
double ExitGrace();

// Why NBCGUARD_EXIT_GRACE is unusable ("" when unset or valid): `run`
// refuses to start on it rather than use the default silently.
std::string ExitGraceError();

// The line saying that `job` was killed after its work was done.
std::string ExitHangWarning(const std::string& job);

std::string ShellQuote(const std::vector<std::string>& argv);

// On SIGTERM/SIGINT/SIGHUP (CTest's timeout, Ctrl-C) kill the process group
// of the running child, so no MPI process outlives the driver, and let the
// driver finish writing what completed; a second signal ends it at once.
void ForwardTerminationToChildren();

// The signal that interrupted the driver; 0 when none did.
int InterruptSignal();

// When the driver was interrupted: a last line naming the signal, then the
// signal's default action (so the parent sees how the driver ended).
void EndIfInterrupted();

}  // namespace nbcguard
