#include "launcher.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace nbcguard {

namespace {
// The one piece of global state: the child group a signal handler must kill.
volatile sig_atomic_t g_child_group = 0;

void KillChildAndExit(int sig) {
  if (g_child_group > 0) kill(-g_child_group, SIGKILL);
  signal(sig, SIG_DFL);
  raise(sig);
}
}  // namespace

void ForwardTerminationToChildren() {
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) signal(sig, KillChildAndExit);
}

bool LoadConfig(const std::string& path, Config* c, std::string* error) {
  std::ifstream f(path);
  if (!f) {
    *error = "cannot read " + path +
             " (it is written by CMake next to the nbcguard executable; "
             "pass --config <build>/nbcguard-config.json)";
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
    c->thresholds_dir = j.at("thresholds_dir");
    c->results_dir = j.at("results_dir");
    c->reference_library = j.value("reference_library", "");
    c->baseline_dir = j.value("baseline_dir", "");
    c->calibration_cache = j.value("calibration_cache", "");
  } catch (const std::exception& e) {
    *error = path + ": " + e.what();
    return false;
  }
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

ProcessResult RunProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                         double timeout) {
  ProcessResult result;
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) return result;
  if (pid == 0) {
    setpgid(0, 0);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::perror(("nbcguard: cannot start " + argv[0]).c_str());
    _exit(127);
  }
  setpgid(pid, pid);
  g_child_group = pid;
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  int status = 0;
  double kill_at = timeout, term_sent_at = -1;
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0) return result;
    const double t = elapsed();
    if (term_sent_at < 0 && t >= kill_at) {
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
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  return result;
}

}  // namespace nbcguard
