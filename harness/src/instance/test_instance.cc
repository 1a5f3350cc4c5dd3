#include "nbcguard/test_instance.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "nbcguard/driver_common.h"

namespace nbcguard {

namespace fs = std::filesystem;
using json = nlohmann::json;

DeploymentPlan PlanDeployment(Deployment d, const std::string& impl, const CaseSpec& c) {
  DeploymentPlan p;
  p.env["OMP_WAIT_POLICY"] = "PASSIVE";  // idle compute threads must not spin against MPI
  // Where the computation runs (binding.h); the thread-* deployments place by their policy instead.
  p.harness_args = {"--binding", ToString(c.binding), "--oversubscribe", ToString(c.oversubscribe)};
  if (c.persistent) p.harness_args.push_back("--persistent");
  if (c.root != 0) p.harness_args.insert(p.harness_args.end(), {"--root", std::to_string(c.root)});
  if (c.communicator != "world")
    p.harness_args.insert(p.harness_args.end(), {"--communicator", c.communicator});
  if (d == Deployment::kBasic) return p;
  if (IsApplicationProgression(d)) {
    const std::string interval = Precise(c.progress_interval);
    if (d == Deployment::kPoll) {
      p.harness_args.insert(p.harness_args.end(), {"--progression", "poll", "--progress-interval", interval});
    } else {
      const std::string policy = d == Deployment::kThreadBind   ? "bind"
                                 : d == Deployment::kThreadNuma ? "numa"
                                                                : "odd-even";
      p.harness_args.insert(p.harness_args.end(), {"--progression", "thread", "--placement", policy,
                                                   "--progress-interval", interval});
    }
    return p;
  }
  if (impl == "mpich") {
    p.env["MPIR_CVAR_ASYNC_PROGRESS"] = "1";
    if (d == Deployment::kDedicated) p.reserve = 1;
    return p;
  }
  if (impl == "openmpi")
    p.skip = std::string(
                 "Open MPI 4.1 has no general asynchronous progress thread for nonblocking "
                 "collectives, so the '") +
             ToString(d) + "' deployment cannot be set up";
  else p.skip = "no known way to turn on asynchronous progress for MPI implementation '" + impl + "'";
  return p;
}

std::string TestInstance::Variant() const {
  return deployment ? ToString(*deployment) : ToString(CaseKind::kPartitioned);
}

std::string TestInstance::Id() const { return spec.name + " n" + std::to_string(nodes) + " " + Variant(); }

std::string TestInstance::Name(const std::string& implementation) const {
  return implementation + "." + spec.name + ".n" + std::to_string(nodes) + "." + Variant();
}

std::vector<std::string> TestInstance::Labels(const std::string& implementation) const {
  std::vector<std::string> all = {"cases", spec.name, deployment ? spec.collective : Variant(),
                                  "n" + std::to_string(nodes)};
  if (deployment) all.push_back(ToString(*deployment));
  if (spec.persistent) all.push_back("persistent");
  all.push_back(implementation);
  all.insert(all.end(), spec.labels.begin(), spec.labels.end());
  // An overlap case named after its collective lists the name twice, as
  // CTest has always been given it (CTest does not mind).
  if (deployment) return all;
  std::vector<std::string> once;
  for (const std::string& l : all)
    if (std::find(once.begin(), once.end(), l) == once.end()) once.push_back(l);
  return once;
}

DeploymentPlan TestInstance::Plan(const std::string& implementation) const {
  if (deployment) return PlanDeployment(*deployment, implementation, spec);
  DeploymentPlan p;
  p.env["OMP_WAIT_POLICY"] = "PASSIVE";  // idle Pready threads must not spin
  return p;
}

TestContext TestInstance::Context() const {
  return TestContext{spec.collective, nodes,     deployment.value_or(Deployment::kBasic),
                     spec.labels,     spec.kind, ""};
}

std::string TestInstance::ResultsSubdir() const {
  return (fs::path(spec.name) / ("n" + std::to_string(nodes)) / Variant()).string();
}

std::vector<TestInstance> Instances(const CaseSpec& c, const std::vector<int>& nodes,
                                    const std::vector<Deployment>& deployments) {
  std::vector<TestInstance> out;
  for (int n : nodes.empty() ? c.nodes : nodes) {
    if (c.kind == CaseKind::kPartitioned) {
      out.push_back(TestInstance{c, n, std::nullopt});
      continue;
    }
    for (Deployment d : deployments.empty() ? c.deployments : deployments)
      out.push_back(TestInstance{c, n, d});
  }
  return out;
}

// ------------------------------------------------------------- listing --

namespace {

// "<impl>.case-file.<stem>", or with the whole file name when another file
// of that stem (bad.yaml, bad.yml) has the name already.
std::string CaseFileTestName(const std::string& implementation, const std::string& file,
                             std::set<std::string>& taken) {
  const std::string prefix = implementation + ".case-file.";
  std::string name = prefix + fs::path(file).stem().string();
  if (taken.count(name)) name = prefix + fs::path(file).filename().string();
  for (int i = 2; taken.count(name); ++i)
    name = prefix + fs::path(file).filename().string() + "-" + std::to_string(i);
  taken.insert(name);
  return name;
}

}  // namespace

std::vector<ListedTest> ListTests(const std::vector<std::string>& case_files, const ListSettings& s) {
  std::vector<ListedTest> out;
  std::set<std::string> case_file_names;
  std::map<std::string, std::string> case_names;  // name -> the first file that has it
  for (const std::string& f : case_files) {
    Parsed<CaseSpec> p = LoadCaseSpec(f);
    // A second case of one name would give its tests the names of the
    // first's: it becomes a failing check of both files instead.
    const std::string* first_file = nullptr;
    if (p.ok()) {
      const auto [first, inserted] = case_names.emplace(p.value->name, f);
      if (!inserted) first_file = &first->second;
    }
    if (!p.ok() || first_file) {
      ListedTest t;
      t.name = CaseFileTestName(s.implementation, f, case_file_names);
      t.args = {"check", f};
      if (first_file) t.args = {"check", *first_file, f};
      t.labels = {"cases", "invalid-case"};
      t.timeout = static_cast<long>(std::ceil(CaseSpec().timeout));
      t.case_file = f;
      t.kind = "invalid-case";
      out.push_back(t);
      continue;
    }
    for (const TestInstance& i : Instances(*p.value)) {
      ListedTest t;
      t.name = i.Name(s.implementation);
      t.args = {"run", f, "--nodes", std::to_string(i.nodes)};
      if (i.deployment) t.args.insert(t.args.end(), {"--deployment", ToString(*i.deployment)});
      t.args.insert(t.args.end(), {"--config", s.config_path});
      // Partitioned results are not compared with a baseline (nbcguard compare reads overlap results).
      if (i.deployment && !s.baseline_dir.empty())
        t.args.insert(t.args.end(), {"--baseline", s.baseline_dir});
      t.args.push_back("--ctest");
      t.labels = i.Labels(s.implementation);
      t.timeout = static_cast<long>(std::ceil(i.spec.timeout));
      t.processors = i.nodes;
      t.case_file = f;
      t.kind = ToString(i.kind());
      out.push_back(t);
    }
  }
  return out;
}

json TestsJson(const std::vector<ListedTest>& tests) {
  json list = json::array();
  for (const ListedTest& t : tests)
    list.push_back({{"name", t.name},
                    {"args", t.args},
                    {"labels", t.labels},
                    {"timeout", t.timeout},
                    {"processors", t.processors},
                    {"case_file", t.case_file},
                    {"kind", t.kind}});
  return {{"format", "nbcguard-tests"}, {"version", 1}, {"tests", list}};
}

}  // namespace nbcguard
