#include "nbcguard/deployment.h"

#include <array>
#include <utility>

namespace nbcguard {
namespace {

constexpr std::array<std::pair<Deployment, const char*>, 7> kDeployments = {{
    {Deployment::kBasic, "basic"},
    {Deployment::kProgress, "progress"},
    {Deployment::kDedicated, "dedicated"},
    {Deployment::kPoll, "poll"},
    {Deployment::kThreadBind, "thread-bind"},
    {Deployment::kThreadNuma, "thread-numa"},
    {Deployment::kThreadOddEven, "thread-odd-even"},
}};

}  // namespace

const char* ToString(Deployment d) {
  for (const auto& [value, name] : kDeployments) {
    if (value == d) return name;
  }
  return "unknown";
}

std::optional<Deployment> ParseDeployment(const std::string& name) {
  for (const auto& [value, text] : kDeployments) {
    if (name == text) return value;
  }
  return std::nullopt;
}

const std::vector<std::string>& DeploymentNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    out.reserve(kDeployments.size());
    for (const auto& entry : kDeployments) out.emplace_back(entry.second);
    return out;
  }();
  return names;
}

const char* ToString(CaseKind k) { return k == CaseKind::kPartitioned ? "partitioned" : "overlap"; }

std::optional<CaseKind> ParseCaseKind(const std::string& name) {
  if (name == "overlap") return CaseKind::kOverlap;
  if (name == "partitioned") return CaseKind::kPartitioned;
  return std::nullopt;
}

const std::vector<std::string>& CaseKindNames() {
  static const std::vector<std::string> names = {"overlap", "partitioned"};
  return names;
}

bool IsApplicationProgression(Deployment d) {
  return d == Deployment::kPoll || d == Deployment::kThreadBind || d == Deployment::kThreadNuma ||
         d == Deployment::kThreadOddEven;
}

const std::vector<std::string>& CollectiveNames() {
  static const std::vector<std::string> names = {
      // equal blocks
      "ibcast", "ireduce", "iallreduce", "iallgather", "ialltoall", "igather", "iscatter",
      "ireduce_scatter_block", "iscan", "iexscan", "ibarrier",
      // per-block counts and displacements
      "igatherv", "iscatterv", "iallgatherv", "ialltoallv", "ialltoallw", "ireduce_scatter",
      // neighbourhood collectives (over a periodic ring)
      "ineighbor_allgather", "ineighbor_allgatherv", "ineighbor_alltoall", "ineighbor_alltoallv",
      "ineighbor_alltoallw"};
  return names;
}

const std::vector<std::string>& ConformanceCheckNames() {
  static const std::vector<std::string> names = {
      "ibcast",
      "ireduce",
      "iallreduce",
      "iallgather",
      "iallgatherv",
      "ialltoall",
      "ialltoallv",
      "ialltoallw",
      "igather",
      "igatherv",
      "iscatter",
      "iscatterv",
      "ireduce_scatter_block",
      "ireduce_scatter",
      "iscan",
      "iexscan",
      "ibarrier",
      "ineighbor_allgather",
      "ineighbor_allgatherv",
      "ineighbor_alltoall",
      "ineighbor_alltoallv",
      "ineighbor_alltoallw",
      "outstanding",
      "threads",
      "progress",
      "large_count",
  };
  return names;
}

}  // namespace nbcguard
