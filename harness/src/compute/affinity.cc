#include "affinity.h"

#include <dirent.h>
#include <omp.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <set>
#include <sstream>

namespace nbcguard {

std::vector<int> CallingThreadCpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

std::vector<std::vector<int>> TeamThreadCpus(const ComputeTeam& team) {
  std::vector<std::vector<int>> out(static_cast<std::size_t>(team.threads()));
  // libgomp keeps the same threads for every region of the same size: these are the ones Run() uses.
#pragma omp parallel num_threads(team.threads())
  out[static_cast<std::size_t>(omp_get_thread_num())] = CallingThreadCpus();
  return out;
}

namespace {

std::set<pid_t> Tasks() {
  std::set<pid_t> out;
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return out;
  while (const dirent* e = readdir(dir))
    if (e->d_name[0] != '.') out.insert(static_cast<pid_t>(std::atoi(e->d_name)));
  closedir(dir);
  return out;
}

}  // namespace

bool BindProcess(const std::vector<int>& cpus, std::string* error) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  // Again until no thread appeared meanwhile (a library may start one).
  std::set<pid_t> done;
  for (std::set<pid_t> tasks = Tasks(); tasks != done; tasks = Tasks()) {
    for (pid_t tid : tasks) {
      if (done.count(tid)) continue;
      // A thread that ended meanwhile (ESRCH) needs no binding.
      if (sched_setaffinity(tid, sizeof(set), &set) != 0 && errno != ESRCH) {
        std::string list;
        for (int c : cpus) list += (list.empty() ? "" : ",") + std::to_string(c);
        *error = "sched_setaffinity refused cpus " + list + " for thread " + std::to_string(tid);
        return false;
      }
    }
    done = tasks;
  }
  return true;
}

namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);) out.push_back(item);
  return out;
}

// Rank `rank`'s list of `lists`; false with *error when it has none or a
// part is not a cpu number.
bool RankCpus(const std::string& lists, int rank, std::vector<int>* cpus, std::string* error) {
  const std::vector<std::string> per_rank = Split(lists, '/');
  if (rank < 0) {
    *error = "the launcher told this process no rank, so which cpus are its is unknown";
    return false;
  }
  if (rank >= static_cast<int>(per_rank.size())) {
    *error = "no cpus given for rank " + std::to_string(rank) + " in '" + lists + "'";
    return false;
  }
  for (const std::string& c : Split(per_rank[static_cast<std::size_t>(rank)], ',')) {
    char* end = nullptr;
    const long v = std::strtol(c.c_str(), &end, 10);
    if (c.empty() || *end != '\0' || v < 0 || v >= CPU_SETSIZE) {
      *error = "'" + c + "' is not a cpu number (in '" + lists + "')";
      return false;
    }
    cpus->push_back(static_cast<int>(v));
  }
  return true;
}

}  // namespace

bool BindAsRank(ComputeTeam& team, const std::string& thread_cpus, const std::string& process_cpus, int rank,
                std::string* error) {
  if (thread_cpus.empty() && process_cpus.empty()) return true;
  std::vector<int> threads, process;
  if (!RankCpus(thread_cpus, rank, &threads, error) || !RankCpus(process_cpus, rank, &process, error))
    return false;
  return BindProcess(process, error) && team.Bind(threads, error);
}

}  // namespace nbcguard
