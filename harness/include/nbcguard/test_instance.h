// A test as CTest lists it and the driver runs it: one case on one rank
// count with one deployment (kind: overlap), or with the partitioned
// mechanisms (kind: partitioned). Its name, labels, results directory and
// what its deployment means for each library are decided here only, so the
// list of tests and the tests that run can never disagree.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nbcguard/case_spec.h"
#include "nbcguard/deployment.h"
#include "nbcguard/verdict.h"

namespace nbcguard {

// What a deployment means for one library: the ranks' environment, cores
// kept free of computation, the harness's progression arguments, or why it
// cannot be set up (skip, non-empty).
struct DeploymentPlan {
  std::map<std::string, std::string> env;
  int reserve = 0;
  std::vector<std::string> harness_args;
  std::string skip;
};

// Denis et al., CCPE 2022, section 7; the application-side progression of
// Denis et al., IJHPCA 2019 is the same for every library.
DeploymentPlan PlanDeployment(Deployment d, const std::string& implementation, const CaseSpec& c);

struct TestInstance {
  CaseSpec spec;
  int nodes = 0;
  std::optional<Deployment> deployment;  // kind: overlap only

  CaseKind kind() const { return spec.kind; }
  // The last part of the name: the deployment, or "partitioned".
  std::string Variant() const;
  // "ibcast n2 basic": how the driver's messages name the test.
  std::string Id() const;
  // "mpich.ibcast.n2.basic": the CTest name.
  std::string Name(const std::string& implementation) const;
  // CTest labels: cases, the case, its collective (or "partitioned"), nN,
  // the deployment, the implementation and the case's own (partitioned:
  // each once).
  std::vector<std::string> Labels(const std::string& implementation) const;
  // The deployment's plan (partitioned: idle Pready threads must not spin).
  DeploymentPlan Plan(const std::string& implementation) const;
  // What the thresholds judge.
  TestContext Context() const;
  // case/nN/variant under a results directory.
  std::string ResultsSubdir() const;
};

// The tests of a case: every rank count and deployment, the case's unless
// given (deployments apply to kind: overlap only).
std::vector<TestInstance> Instances(const CaseSpec& c, const std::vector<int>& nodes = {},
                                    const std::vector<Deployment>& deployments = {});

// ------------------------------------------------------------- listing --

// What `nbcguard list` needs besides the case files.
struct ListSettings {
  std::string implementation;  // the build's label: mpich, openmpi, mpi
  std::string config_path;     // passed to every run (--config)
  std::string baseline_dir;    // overlap tests compare with it (--baseline) when set
};

// One test as data: the arguments after the driver's executable, the labels,
// the timeout in seconds, the processors it occupies (its ranks), the case
// file and its kind ("overlap", "partitioned", or "invalid-case" for a file
// that does not parse: the test shows the error instead of breaking the
// others).
struct ListedTest {
  std::string name;
  std::vector<std::string> args;
  std::vector<std::string> labels;
  long timeout = 0;
  int processors = 1;
  std::string case_file;
  std::string kind;
};

// The tests of the case files, in the files' order.
std::vector<ListedTest> ListTests(const std::vector<std::string>& case_files, const ListSettings& s);

// {"format": "nbcguard-tests", "version": 1, "tests": [...]}.
nlohmann::json TestsJson(const std::vector<ListedTest>& tests);

}  // namespace nbcguard
