// A case file (cases/*.yaml): what to measure. Parsed and validated into an
// immutable CaseSpec; every problem is reported with file:line:column.
#pragma once

#include <string>
#include <vector>

#include "nbcguard/binding.h"
#include "nbcguard/deployment.h"
#include "nbcguard/partitioned.h"
#include "nbcguard/reference.h"
#include "nbcguard/spec_error.h"

namespace nbcguard {

// Keys of the two kinds: name, nodes, repetitions, labels, timeout and kind
// are common; collective, threads, deployment, grid, reference, progression,
// binding and oversubscribe belong to overlap cases, partitioned to
// partitioned cases. A key of the other kind is an error at that key.
// A test's timeout: more than the seconds a run keeps for reducing and
// reporting, at most a week (CTest's TIMEOUT is a whole number of seconds).
constexpr double kTimeoutReserve = 10;
constexpr double kMaxTimeout = 7 * 24 * 3600;

struct CaseSpec {
  std::string file;        // path it was read from
  std::string name;        // [a-z0-9_-]+, used in test names and labels
  SourceLocation name_at;  // where the name is written
  CaseKind kind = CaseKind::kOverlap;
  std::string collective;  // one of CollectiveNames()
  // kind overlap: measured as an MPI-4 persistent collective (MPI_<Coll>_init
  // once per size, MPI_Start + computation + MPI_Wait per sample).
  bool persistent = false;
  // kind overlap, rooted collectives (RootedCollectives()): the root rank;
  // -1 = the last rank of each test.
  int root = 0;
  // kind overlap: the communicator the collective runs on: world (the
  // harness's own duplicate of MPI_COMM_WORLD, default), reversed (a split
  // with the ranks in reverse order), dup (a duplicate of its own).
  std::string communicator = "world";
  std::vector<int> nodes;               // MPI process counts, each >= 2, unique
  int threads = 0;                      // OpenMP threads per process; 0 = auto
  std::vector<Deployment> deployments;  // unique, non-empty
  std::vector<double> comm_times;       // target communication times, seconds, ascending, unique
  std::vector<double> comp_times;       // target computation times, seconds, ascending, unique
  int repetitions = 15;                 // samples per grid point, >= 3 (with a stopping rule: the most)
  // kind overlap, `repetitions: {min, max, precision}`: a point stops after
  // repetitions_min samples of each kind once every kind's median is known
  // to +-precision (the 95 % interval's half-width / the median), else at
  // `repetitions`. precision 0: exactly `repetitions` (an integer was given).
  int repetitions_min = 15;
  double precision = 0;
  std::vector<std::string> labels;  // extra CTest labels (quick, nightly, ...)
  double timeout = 600;             // seconds for one test (case x nodes x deployment)
  // A reference behaviour replacing the library's progression (ground-truth
  // tests; reference.h). Inactive unless the case has a `reference:` section.
  ReferenceSpec reference;
  // kind: partitioned only (nodes is then [2]; repetitions, labels and
  // timeout apply as above; collective, grid and deployments stay empty).
  PartitionedSpec partitioned;
  // Application-side progression (deployments poll and thread-*): how often
  // the computation (poll) or the harness's progress thread (thread-*) calls
  // MPI_Test on the running collective, in seconds.
  double progress_interval = 100e-6;
  // kind overlap: whether each rank binds its computation to cores of its
  // own (binding.h; the thread-* deployments place by their policy), and
  // whether a node whose ranks need more cores than it has is measured.
  BindingPolicy binding = BindingPolicy::kCores;
  OversubscribePolicy oversubscribe = OversubscribePolicy::kRefuse;
};

// The values of the case field communicator.
const std::vector<std::string>& CommunicatorNames();

// The collectives with a root (the case field root applies to them).
const std::vector<std::string>& RootedCollectives();

// Two case files with one name would give their tests one name: the error
// at `later`'s name, naming the file that has it first.
SpecError DuplicateCaseName(const CaseSpec& later, const std::string& first_file);

// What a YAML text is by its top-level keys: a case file (name, collective),
// a threshold file (implementation, rules), or neither. kUnreadable when the
// YAML does not parse or is empty (either loader reports why).
enum class SpecFileKind { kCase, kThreshold, kNeither, kUnreadable };
SpecFileKind SpecFileKindOf(const std::string& yaml_text);

// The text of a case or threshold file: a regular file of at most 1 MiB,
// never read whole when larger, never waited for (a FIFO is refused).
Parsed<std::string> ReadSpecText(const std::string& path);

// Reads and validates a case file.
Parsed<CaseSpec> LoadCaseSpec(const std::string& path);
// Same, from text; `file` is used in error locations.
Parsed<CaseSpec> ParseCaseSpec(const std::string& yaml_text, const std::string& file);

// Every key of the case file format (name, type, default, meaning), from the
// tables the parser uses; nested keys are dotted ("grid.comm.factor").
std::vector<SchemaKey> CaseSpecSchema();

}  // namespace nbcguard
