// Deployments of the BenchNBC paper (section 7): where computation runs and
// whether the library's asynchronous progress is turned on; and the
// application-side progression of Denis et al., IJHPCA 2019 (the harness progresses the
// collective itself, the library's own progression left at its defaults).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace nbcguard {

enum class Deployment {
  kBasic,      // computation on all cores, library defaults
  kProgress,   // computation on all cores, library async progress on
  kDedicated,  // computation on all cores but one, progress on the free core
  // Application-side progression (library defaults otherwise):
  kPoll,           // MPI_Test polled from inside the computation every interval
  kThreadBind,     // a harness thread polls MPI_Test on the rank's own first core
  kThreadNuma,     // ... on the free core of the rank's NUMA node (gathered)
  kThreadOddEven,  // ... on one of two free cores, even and odd local ranks apart
};

const char* ToString(Deployment d);  // "basic", "progress", "dedicated"
std::optional<Deployment> ParseDeployment(const std::string& name);
const std::vector<std::string>& DeploymentNames();

// What a case file measures: the overlap of a nonblocking collective with
// computation (the BenchNBC method; the default), or MPI-4 partitioned
// point-to-point against the other send mechanisms (Schneewind, HLRS).
enum class CaseKind { kOverlap, kPartitioned };

const char* ToString(CaseKind k);  // "overlap", "partitioned"
std::optional<CaseKind> ParseCaseKind(const std::string& name);
const std::vector<std::string>& CaseKindNames();

// True for the deployments where the harness itself progresses the
// collective (poll, thread-*).
bool IsApplicationProgression(Deployment d);

// Names of the nonblocking collectives the harness knows (the MPI registry
// in harness/src/mpi/collectives.cc must provide exactly these).
// What the conformance tier checks: every collective of its registry and
// the semantics checks (outstanding, threads, progress, large_count).
const std::vector<std::string>& ConformanceCheckNames();
const std::vector<std::string>& CollectiveNames();

}  // namespace nbcguard
