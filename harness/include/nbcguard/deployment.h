// Deployments of the BenchNBC paper (section 7): where computation runs and
// whether the library's asynchronous progress is turned on.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace nbcguard {

enum class Deployment {
  kBasic,      // computation on all cores, library defaults
  kProgress,   // computation on all cores, library async progress on
  kDedicated,  // computation on all cores but one, progress on the free core
};

const char* ToString(Deployment d);  // "basic", "progress", "dedicated"
std::optional<Deployment> ParseDeployment(const std::string& name);
const std::vector<std::string>& DeploymentNames();

// What a case file measures: the overlap of a nonblocking collective with
// computation (the BenchNBC method; the default), or MPI-4 partitioned
// point-to-point against the other send mechanisms (paper 004).
enum class CaseKind { kOverlap, kPartitioned };

const char* ToString(CaseKind k);  // "overlap", "partitioned"
std::optional<CaseKind> ParseCaseKind(const std::string& name);
const std::vector<std::string>& CaseKindNames();

// Names of the nonblocking collectives the harness knows (the MPI registry
// in harness/src/mpi/collectives.cc must provide exactly these).
const std::vector<std::string>& CollectiveNames();

}  // namespace nbcguard
