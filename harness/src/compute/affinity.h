// Binding threads and processes to cpus (Linux sched_setaffinity), for the
// harness and for nbcguard-compute alike: the r_mpi_impact jobs run their
// computation on the cpus the overlap job's computation ran on.
#pragma once

#include <string>
#include <vector>

#include "gemm.h"

namespace nbcguard {

// The calling thread's cpus (sched_getaffinity), ascending.
std::vector<int> CallingThreadCpus();

// Each of the team's threads' cpus as the system reports them.
std::vector<std::vector<int>> TeamThreadCpus(const ComputeTeam& team);

// Binds every thread the process has (each task of /proc/self/task) to
// `cpus`; threads started later inherit the mask of the thread that starts
// them. False with *error set when the system refuses.
bool BindProcess(const std::vector<int>& cpus, std::string* error);

// The overlap job's binding repeated in another job: `thread_cpus` and
// `process_cpus` hold per rank ('/'-separated) a ','-separated cpu list;
// rank `rank` binds its process to its process cpus and its team's threads
// to its thread cpus (the driver writes them with RankCpusArg, binding.h). Both empty: nothing to do. False
// with *error set.
bool BindAsRank(ComputeTeam& team, const std::string& thread_cpus, const std::string& process_cpus, int rank,
                std::string* error);

}  // namespace nbcguard
