// A threshold file (thresholds/<implementation>.yaml): what is acceptable for
// one MPI library. Rules match tests by deployment, collective, node count and
// label, and grid points by region; each sets limits on ratios.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nbcguard/deployment.h"
#include "nbcguard/library_version.h"
#include "nbcguard/metrics.h"
#include "nbcguard/spec_error.h"

namespace nbcguard {

struct Limit {
  Metric metric = Metric::kOverhead;
  std::optional<double> min;
  std::optional<double> max;
};

// Which tests a rule applies to. An empty list matches anything.
struct RuleMatch {
  std::optional<CaseKind> kind;  // absent: the kind of the rule's metrics
  std::vector<Deployment> deployments;
  std::vector<std::string> collectives;
  std::vector<int> nodes;
  std::vector<std::string> labels;   // matches when the test has ANY of these labels
  std::vector<std::string> systems;  // matches when the run's system is one of these
};

// Which grid points of a matching test a rule checks. Overlap tests: on
// TARGET times (so the region is the same from run to run). Partitioned
// tests: on partition size, ready order and Pready threads. Unset bounds
// and empty lists are open; a rule uses the keys of its own kind only.
struct Region {
  std::optional<double> comp_over_comm_min;  // target comp / target comm >= this
  std::optional<double> comp_over_comm_max;  // ... <= this
  std::optional<double> comm_min, comm_max;  // target comm time, seconds
  std::optional<double> comp_min, comp_max;  // target comp time, seconds
  bool Contains(double comm_target, double comp_target) const;

  std::optional<std::uint64_t> partition_min, partition_max;  // partition size, bytes
  std::vector<std::string> orders;                            // ready orders (partitioned.h names)
  std::vector<int> threads;                                   // Pready thread counts
  bool ContainsPartitioned(std::uint64_t partition_bytes, const std::string& order, int threads) const;
};

struct Rule {
  std::string name;  // required, unique in the file; named in failures
  // The kind of test the rule judges: from its metrics (r_partitioned:
  // partitioned; the others: overlap) and match.kind, which must agree.
  CaseKind kind = CaseKind::kOverlap;
  SourceLocation where;  // where the rule starts in the file
  std::string source;    // required: where the numbers come from (measurement, paper)
  RuleMatch match;
  Region region;
  std::vector<Limit> limits;  // non-empty
};

// A conformance check this library is known to fail (a bug of the library,
// reported upstream): its failure is reported as known, not as a failure,
// and the day it passes the entry is reported stale (docs/conformance.md).
struct KnownFailure {
  std::string collective;                // one of ConformanceCheckNames()
  std::vector<std::string> variant;      // words all in the variant label, "!word" none (empty: any variant)
  std::optional<VersionRange> versions;  // narrower than the file's (absent: the file's)
  std::string reason;                    // required: upstream issue, reproducer
  std::string message;                   // a text the failure message contains (empty: any failure)
  bool hangs = false;                    // not run (it would only cost the hang bound)
  SourceLocation where;
  // The check `collective` with variant label `label` of library `version`.
  bool Matches(const std::string& check, const std::string& label, const std::string& version) const;
};

struct ThresholdSpec {
  std::string file;
  std::string implementation;  // "openmpi", "mpich" (as LibraryId::implementation)
  // Texts of MPI_Get_library_version that name this implementation (a
  // site's or vendor's library the built-in table does not know); the
  // version is the token after the text. Empty: the built-in table's name.
  std::vector<std::string> identified_by;
  VersionRange versions;  // e.g. ">=4.0 <5"
  std::vector<Rule> rules;
  std::vector<KnownFailure> known_conformance_failures;
  // Which threshold directory the file came from, 0 first: per library the
  // lowest layer holding a matching file wins (a site's over the shipped).
  int layer = 0;
};

Parsed<ThresholdSpec> LoadThresholdSpec(const std::string& path);
Parsed<ThresholdSpec> ParseThresholdSpec(const std::string& yaml_text, const std::string& file);

// Every key of the threshold file format (name, type, default, meaning),
// from the tables the parser uses; nested keys are dotted
// ("rules[].region.comm.min").
std::vector<SchemaKey> ThresholdSpecSchema();

// A system name as rules' match.system and NBCGUARD_SYSTEM take it: 1-64
// letters, digits, '.', '_' and '-', starting with a letter or digit (host
// names fit).
bool IsSystemName(const std::string& name);

// The library named by a version string, the threshold files' own
// identified_by texts tried before the built-in table (a derivative's text
// often names its parent too).
LibraryId IdentifyLibrary(const std::string& version_string, const std::vector<ThresholdSpec>& specs);

// Among `specs`, the one whose implementation and version range match the
// running library, from the lowest layer that has one. nullptr when none
// (the caller reports that as an error, never as a pass), and when several
// of that layer do: then `ambiguous` (when given) says which files match,
// since either could hold the limits meant.
const ThresholdSpec* SelectThresholds(const std::vector<ThresholdSpec>& specs, const LibraryId& library,
                                      std::string* ambiguous = nullptr);

}  // namespace nbcguard
