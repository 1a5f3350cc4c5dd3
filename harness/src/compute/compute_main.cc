// nbcguard-compute: the harness's computation alone, in a process that never
// loads MPI: the t_comp_ref_without_mpi of r_mpi_impact. The driver starts it
// through the same launcher as the harness (so placement and load match) and
// reads one JSON file per process.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include <unistd.h>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "affinity.h"
#include "gemm.h"

namespace {

// The launcher's rank variables: the process never calls MPI.
std::string ProcessIndex() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
    if (const char* s = std::getenv(v)) return s;
  }
  return "pid" + std::to_string(getpid());
}

// The launcher's rank as a number; -1 when the launcher gives none.
int RankNumber() {
  const std::string index = ProcessIndex();
  char* end = nullptr;
  const long r = std::strtol(index.c_str(), &end, 10);
  return !index.empty() && *end == '\0' && r >= 0 ? static_cast<int>(r) : -1;
}

int ComputeMain(int argc, char** argv) {
  CLI::App app{"nbcguard-compute: the OpenMP GEMM computation without MPI"};
  int threads = 1;
  std::vector<int> sizes;
  int repetitions = 15;
  std::vector<double> targets;
  double start = 0;
  std::string out_dir;
  app.add_option("--threads", threads, "OpenMP threads (one per core)")
      ->required()
      ->check(CLI::PositiveNumber);
  app.add_option("--sizes", sizes, "matrix sizes, one per computation time")
      ->required()
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--repetitions", repetitions, "runs per size")->check(CLI::PositiveNumber);
  app.add_option("--targets", targets, "computation time each size was calibrated to (sets the time slots)")
      ->required()
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--start-realtime", start, "CLOCK_REALTIME instant of the first run (all processes)")
      ->required();
  app.add_option("--out-dir", out_dir, "write compute.<rank>.json here")->required();
  std::string thread_cpus, process_cpus;
  app.add_option("--thread-cpus", thread_cpus,
                 "per rank ('/'-separated) the cpus of its computation threads (','-separated)");
  app.add_option("--process-cpus", process_cpus, "per rank ('/'-separated) the cpus of its process");
  CLI11_PARSE(app, argc, argv);

  nbcguard::ComputeTeam team(threads);
  // On the cpus the overlap job's computation ran on, found by the launcher's rank.
  std::string error;
  if (!nbcguard::BindAsRank(team, thread_cpus, process_cpus, RankNumber(), &error)) {
    std::cerr << "nbcguard-compute: binding the computation as the overlap job did: " << error << "\n";
    return 2;
  }
  nlohmann::json out;
  out["threads"] = threads;
  out["process"] = ProcessIndex();
  out["thread_cpus"] = nbcguard::TeamThreadCpus(team);  // read back after binding
  out["results"] = nlohmann::json::array();
  if (targets.size() != sizes.size()) {
    std::cerr << "nbcguard-compute: --targets needs one time per size\n";
    return 2;
  }
  // How long before the agreed instant this process was ready: the driver
  // sizes the next job's start margin from it (launcher start-up time).
  out["slack"] = start - nbcguard::RealtimeNow();
  bool any_late = false;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    // Same start-together, back-to-back runs as the harness's idle-MPI runs.
    team.Prepare(sizes[i]);
    bool late = false;
    std::vector<double> times =
        nbcguard::RunFromInstant(team, repetitions, start, nbcguard::RealtimeNow, &late);
    any_late = any_late || late;
    start += nbcguard::BlockSlot(repetitions, targets[i]);
    out["results"].push_back({{"n", sizes[i]}, {"times", times}, {"late", late}});
  }
  out["late"] = any_late;
  const std::string path = out_dir + "/compute." + out["process"].get<std::string>() + ".json";
  std::ofstream f(path);
  f << out.dump() << "\n";
  if (!f) {
    std::cerr << "nbcguard-compute: cannot write " << path << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return ComputeMain(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nbcguard-compute: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "nbcguard-compute: internal error: unknown exception\n");
  }
  return 3;
}
