#include "launcher.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

#include "nbcguard/units.h"

namespace nbcguard {

namespace fs = std::filesystem;

namespace {
// The global state signal handlers need: the child group to kill and the
// signal that interrupted the driver (0: none).
volatile sig_atomic_t g_child_group = 0;
volatile sig_atomic_t g_interrupted = 0;

// First SIGTERM/SIGINT/SIGHUP: the running child group is killed, no new
// child starts, and the driver goes on to write what it has; a second
// signal ends the driver at once (the default action).
void KillChildAndStop(int sig) {
  if (g_child_group > 0) kill(-g_child_group, SIGKILL);
  g_interrupted = sig;
  signal(sig, SIG_DFL);
  static const char kMessage[] =
      "nbcguard: interrupted; the MPI processes are stopped, completed points are written\n";
  const ssize_t ignored = write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  (void)ignored;
}

// The supervisor between the driver and the launcher: the leader of the
// child's process group, it starts the launcher in the group and waits for
// it. If the driver dies without a chance to clean up (SIGKILL, a crash),
// the supervisor sees its parent change and kills the whole group, so no
// launcher or rank outlives the driver. Only async-signal-safe calls after
// fork(): the driver may have other threads.
[[noreturn]] void Supervise(pid_t driver, char* const* args) {
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) signal(sig, SIG_IGN);  // the group's TERM is for the launcher
  // The group is in the background of the driver's terminal, if it has
  // one: a launcher that touches the terminal (mpiexec.hydra does) has the
  // kernel stop the whole group with SIGTTOU or SIGTTIN. Stopped, the
  // supervisor would never reap the launcher and the driver would wait for
  // the timeout.
  for (int sig : {SIGTTOU, SIGTTIN, SIGTSTP}) signal(sig, SIG_IGN);
  const pid_t supervisor = getpid();
  const pid_t launcher = fork();
  if (launcher < 0) _exit(127);
  if (launcher == 0) {
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGTTOU, SIGTTIN, SIGTSTP}) signal(sig, SIG_DFL);
    // Should the supervisor itself be killed, the launcher goes with it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != supervisor) _exit(127);
    execvp(args[0], args);
    static const char kMessage[] = "nbcguard: cannot start the launcher\n";
    const ssize_t ignored = write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    (void)ignored;
    _exit(127);
  }
  for (;;) {
    int status = 0;
    const pid_t w = waitpid(launcher, &status, WNOHANG);
    if (w == launcher) {
      if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
      _exit(128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
    }
    if (w < 0 || getppid() != driver) kill(0, SIGKILL);  // the driver is gone: the group goes too
    const timespec pause = {0, 50000000L};               // 50 ms
    nanosleep(&pause, nullptr);
  }
}
}  // namespace

void ForwardTerminationToChildren() {
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) signal(sig, KillChildAndStop);
}

int InterruptSignal() { return g_interrupted; }

void EndIfInterrupted() {
  const int sig = g_interrupted;
  if (sig == 0) return;
  std::fflush(stdout);
  std::fprintf(stderr, "nbcguard: stopped by signal %d (%s)\n", sig, strsignal(sig));
  std::fflush(stderr);
  signal(sig, SIG_DFL);
  raise(sig);
}

bool LoadConfig(const std::string& path, Config* c, std::string* error) {
  std::ifstream f(path);
  if (!f) {
    *error = "cannot read " + path +
             " (CMake writes it in the build directory and installs it in <prefix>/share/nbcguard; "
             "pass --config FILE or set NBCGUARD_CONFIG)";
    return false;
  }
  try {
    nlohmann::json j = nlohmann::json::parse(f);
    c->path = path;
    c->implementation = j.at("implementation");
    c->launcher = j.value("launcher", "mpiexec");  // files written before srun existed name none
    c->mpiexec = j.at("mpiexec");
    c->numproc_flag = j.at("numproc_flag");
    c->preflags = j.at("preflags").get<std::vector<std::string>>();
    c->postflags = j.at("postflags").get<std::vector<std::string>>();
    c->harness = j.at("harness");
    c->compute = j.at("compute");
    c->cases_dir = j.at("cases_dir");
    // One directory, or several searched in order (a site's over the shipped).
    const nlohmann::json& td = j.at("thresholds_dir");
    c->thresholds_dirs =
        td.is_array() ? td.get<std::vector<std::string>>() : std::vector<std::string>{td.get<std::string>()};
    c->system = j.value("system", "");
    c->results_dir = j.at("results_dir");
    c->reference_library = j.value("reference_library", "");
    c->baseline_dir = j.value("baseline_dir", "");
    c->calibration_cache = j.value("calibration_cache", "");
  } catch (const std::exception& e) {
    *error = path + ": " + e.what();
    return false;
  }
  // An installed config names its programs and files relative to itself.
  std::error_code ec;
  const fs::path base = fs::absolute(path, ec).parent_path();
  for (std::string* p : {&c->harness, &c->compute, &c->reference_library, &c->cases_dir})
    if (!p->empty() && fs::path(*p).is_relative()) *p = (base / *p).lexically_normal().string();
  for (std::string& p : c->thresholds_dirs)
    if (!p.empty() && fs::path(p).is_relative()) p = (base / p).lexically_normal().string();
  if (c->thresholds_dirs.empty()) {
    *error = path + ": thresholds_dir names no directory";
    return false;
  }
  // Left to the user by an installed config: results under the working
  // directory, no calibration cache.
  if (c->results_dir.empty()) c->results_dir = "nbcguard-results";
  const auto& known = KnownLaunchers();
  if (std::find(known.begin(), known.end(), c->launcher) == known.end()) {
    std::string allowed;
    for (const std::string& l : known) allowed += (allowed.empty() ? "" : ", ") + l;
    *error = path + ": launcher '" + c->launcher + "' is not known; allowed: " + allowed +
             " (CMake's NBCGUARD_LAUNCHER writes it)";
    return false;
  }
  return true;
}

const std::vector<std::string>& KnownLaunchers() {
  static const std::vector<std::string> known = {"mpiexec", "srun", "netns"};
  return known;
}

nlohmann::json LaunchRecord(const Config& c, const std::vector<std::string>& cmd) {
  return {
      {"launcher", c.launcher}, {"executable", c.mpiexec}, {"command", ShellQuote(cmd)}, {"config", c.path}};
}

std::string DescribeLaunch(const Config& c, const std::vector<std::string>& cmd) {
  return "launcher " + c.launcher + ": " + ShellQuote(cmd);
}

std::vector<std::string> LaunchCommand(const Config& c, int ranks, const std::string& program,
                                       const std::vector<std::string>& args) {
  std::vector<std::string> cmd = {c.mpiexec, c.numproc_flag, std::to_string(ranks)};
  cmd.insert(cmd.end(), c.preflags.begin(), c.preflags.end());
  if (program == c.harness && !c.harness_env.empty()) {
    cmd.push_back("env");
    for (const auto& [k, v] : c.harness_env) cmd.push_back(k + "=" + v);
  }
  cmd.push_back(program);
  cmd.insert(cmd.end(), c.postflags.begin(), c.postflags.end());
  cmd.insert(cmd.end(), args.begin(), args.end());
  return cmd;
}

std::string ShellQuote(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    if (a.find_first_of(" \t'\"$\\") == std::string::npos && !a.empty()) {
      out += a;
    } else {
      out += '\'';
      for (char ch : a) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
      out += '\'';
    }
  }
  return out;
}

double ExitGrace() {
  const char* v = std::getenv("NBCGUARD_EXIT_GRACE");
  if (v == nullptr || *v == '\0') return 30;
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  return *end == '\0' && s >= 1 && s <= 3600 ? s : 30;
}

std::string ExitGraceError() {
  const char* v = std::getenv("NBCGUARD_EXIT_GRACE");
  if (v == nullptr) return "";
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  if (*v != '\0' && *end == '\0' && s >= 1 && s <= 3600) return "";
  return std::string("NBCGUARD_EXIT_GRACE is '") + v +
         "'; allowed: seconds from 1 to 3600 a job may take to exit after its last record";
}

std::string ExitHangWarning(const std::string& job) {
  return "warning: " + job + " had not exited " + FormatDuration(ExitGrace()) +
         " after its last record (a hang in MPI_Finalize or in the launcher); it was killed, and every "
         "record it wrote is kept (results.json exit_hangs)";
}

ProcessResult RunProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                         double timeout, const std::function<bool()>& ended) {
  ProcessResult result;
  if (g_interrupted != 0) {  // nothing new starts once the driver was told to stop
    result.interrupted = true;
    result.exit_code = 128 + g_interrupted;
    return result;
  }
  const auto start = std::chrono::steady_clock::now();
  // Everything the child needs, prepared before fork().
  std::vector<std::string> environment;
  environment.reserve(env.size());
  for (const auto& [k, v] : env) environment.push_back(k + "=" + v);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t driver = getpid();
  const pid_t pid = fork();
  if (pid < 0) return result;
  if (pid == 0) {
    setpgid(0, 0);
    for (std::string& kv : environment) putenv(kv.data());
    Supervise(driver, args.data());
  }
  setpgid(pid, pid);
  g_child_group = pid;
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  int status = 0;
  double kill_at = timeout, term_sent_at = -1, next_ask = 1, ended_at = -1;
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0) return result;
    const double t = elapsed();
    if (ended && ended_at < 0 && t >= next_ask) {
      next_ask = t + 1;
      if (ended()) ended_at = t;
    }
    if (term_sent_at < 0 && ended_at >= 0 && t >= ended_at + ExitGrace() && t < kill_at) {
      result.killed_after_end = true;
      kill(-pid, SIGTERM);
      term_sent_at = t;
    } else if (term_sent_at < 0 && t >= kill_at) {
      result.timed_out = true;
      kill(-pid, SIGTERM);
      term_sent_at = t;
    } else if (term_sent_at >= 0 && t >= term_sent_at + 5) {
      kill(-pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Anything the launcher left behind in the group goes too.
  kill(-pid, SIGKILL);
  g_child_group = 0;
  result.seconds = elapsed();
  result.interrupted = g_interrupted != 0;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  return result;
}

}  // namespace nbcguard
