#include "nbcguard/threshold_spec.h"

#include <sstream>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "nbcguard/partitioned.h"
#include "yaml_schema.h"

namespace nbcguard {
namespace {

using yaml_schema::Field;
using yaml_schema::Need;
using yaml_schema::Value;

constexpr double kRegionSlack = 1e-9;  // relative, so a grid point on a bound is inside

// The kind of test whose points carry the metric.
CaseKind KindOf(Metric m) { return m == Metric::kPartitioned ? CaseKind::kPartitioned : CaseKind::kOverlap; }

std::vector<std::string> MetricNames() {
  std::vector<std::string> out;
  for (Metric m : AllMetrics()) out.emplace_back(MetricName(m));
  return out;
}

std::string FormatNumber(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// ---------------------------------------------------------------- bounds

struct Bounds {
  std::optional<double> min, max;
};

void ParseTimeBound(const Value& v, std::optional<double>& out) {
  out = yaml_schema::ReadDuration(v, v.node);
}

void ParseNumberBound(const Value& v, std::optional<double>& out) {
  out = yaml_schema::ScalarNumber(v.node);
  if (!out) v.Expected();
}

const std::vector<Field<Bounds>>& TimeBoundFields() {
  static const std::vector<Field<Bounds>> fields = {
      {"min", "a duration with a unit, e.g. 1ms", Need::kOptional, nullptr,
       "smallest target time in the region (inclusive)",
       [](const Value& v, Bounds& b) { ParseTimeBound(v, b.min); }},
      {"max", "a duration with a unit, e.g. 64ms", Need::kOptional, nullptr,
       "largest target time in the region (inclusive)",
       [](const Value& v, Bounds& b) { ParseTimeBound(v, b.max); }},
  };
  return fields;
}

const std::vector<Field<Bounds>>& LimitBoundFields() {
  static const std::vector<Field<Bounds>> fields = {
      {"max", "a number, e.g. 1.3", Need::kOptional, nullptr,
       "fails when the ratio is above this beyond noise",
       [](const Value& v, Bounds& b) { ParseNumberBound(v, b.max); }},
      {"min", "a number, e.g. 0.5", Need::kOptional, nullptr,
       "fails when the ratio is below this beyond noise",
       [](const Value& v, Bounds& b) { ParseNumberBound(v, b.min); }},
  };
  return fields;
}

void ParseByteBound(const Value& v, std::optional<double>& out) {
  std::optional<std::string> text = yaml_schema::ScalarText(v.node);
  std::string error;
  std::optional<std::uint64_t> bytes = text ? ParseBytes(*text, &error) : std::nullopt;
  if (bytes) {
    out = static_cast<double>(*bytes);
  } else {
    v.Fail(v.node, text ? error : "expected " + v.type + "; got " + yaml_schema::Describe(v.node));
  }
}

const std::vector<Field<Bounds>>& ByteBoundFields() {
  static const std::vector<Field<Bounds>> fields = {
      {"min", "a size with a unit, e.g. 1MiB", Need::kOptional, nullptr,
       "smallest partition size in the region (inclusive)",
       [](const Value& v, Bounds& b) { ParseByteBound(v, b.min); }},
      {"max", "a size with a unit, e.g. 8MiB", Need::kOptional, nullptr,
       "largest partition size in the region (inclusive)",
       [](const Value& v, Bounds& b) { ParseByteBound(v, b.max); }},
  };
  return fields;
}

std::string FormatByteBound(double bytes) { return FormatBytes(static_cast<std::uint64_t>(bytes)); }

// A {min, max} mapping with at least one bound and min <= max.
std::optional<Bounds> ReadBounds(const Value& v, const std::vector<Field<Bounds>>& fields,
                                 std::string (*format)(double)) {
  Bounds b;
  std::size_t before = v.errors.size();
  if (!yaml_schema::ParseFields(v.node, v.path, fields, v.errors, b)) return std::nullopt;
  if (v.errors.size() != before) return std::nullopt;
  if (!b.min && !b.max) {
    v.Fail(v.node, "no bound given; expected " + v.type);
    return std::nullopt;
  }
  if (b.min && b.max && *b.max < *b.min) {
    v.Fail(v.node["max"],
           "max (" + format(*b.max) + ") is below min (" + format(*b.min) + "); expected min <= max");
    return std::nullopt;
  }
  return b;
}

// ---------------------------------------------------------------- match

const std::vector<Field<RuleMatch>>& MatchFields() {
  static const std::vector<Field<RuleMatch>> fields = {
      {"deployment", yaml_schema::DeploymentType(), Need::kOptional, nullptr,
       "deployments the rule applies to (absent: all)",
       [](const Value& v, RuleMatch& m) {
         if (auto d = yaml_schema::ReadDeployments(v)) m.deployments = *d;
       }},
      {"collective", yaml_schema::CollectiveType(), Need::kOptional, nullptr,
       "collectives the rule applies to (absent: all)",
       [](const Value& v, RuleMatch& m) {
         if (auto c = yaml_schema::ReadCollectives(v)) m.collectives = *c;
       }},
      {"nodes", yaml_schema::ProcessCountType(), Need::kOptional, nullptr,
       "process counts the rule applies to (absent: all)",
       [](const Value& v, RuleMatch& m) {
         if (auto n = yaml_schema::ReadProcessCounts(v)) m.nodes = *n;
       }},
      {"labels", "a label or a list of labels of lowercase letters, digits, '_' and '-'", Need::kOptional,
       nullptr, "applies to tests with any of these labels (absent: all)",
       [](const Value& v, RuleMatch& m) {
         if (auto l = yaml_schema::ReadLabels(v, true)) m.labels = *l;
       }},
      {"system", "a system name or a list of them (letters, digits, '.', '_' and '-', at most 64)",
       Need::kOptional, nullptr,
       "applies to runs on one of these systems (NBCGUARD_SYSTEM, `run --system`; absent: all, and a "
       "run with no system set matches only rules without it)",
       [](const Value& v, RuleMatch& m) {
         auto one = [](const YAML::Node& n) -> std::optional<std::string> {
           std::optional<std::string> s = yaml_schema::ScalarText(n);
           if (!s || !IsSystemName(*s)) return std::nullopt;
           return s;
         };
         if (auto l = yaml_schema::ReadItems<std::string>(v, true, one)) m.systems = *l;
       }},
      {"kind", "one of " + yaml_schema::Join(CaseKindNames()), Need::kOptional, nullptr,
       "the kind of test the rule judges (absent: the kind of its metrics; r_partitioned is a "
       "partitioned ratio, the others overlap ratios)",
       [](const Value& v, RuleMatch& m) {
         std::optional<std::string> name = yaml_schema::ScalarText(v.node);
         std::optional<CaseKind> k = name ? ParseCaseKind(*name) : std::nullopt;
         if (k) {
           m.kind = k;
         } else {
           v.Fail(v.node, "expected " + v.type + "; got " + yaml_schema::Describe(v.node) +
                              (name ? yaml_schema::DidYouMean(*name, CaseKindNames()) : std::string()));
         }
       }},
  };
  return fields;
}

// ---------------------------------------------------------------- region

const char* const kTimeBoundsType = "a mapping with min, max or both, e.g. {min: 1ms, max: 64ms}";
const char* const kByteBoundsType = "a mapping with min, max or both, e.g. {min: 1MiB}";

void ParseRatioBand(const Value& v, Region& r) {
  if (!v.node.IsSequence() || v.node.size() != 2) {
    v.Expected();
    return;
  }
  std::optional<double> lo = yaml_schema::ScalarNumber(v.node[0]);
  std::optional<double> hi = yaml_schema::ScalarNumber(v.node[1]);
  if (!lo || !hi || !(*lo > 0) || *hi < *lo) {
    v.Expected();
    return;
  }
  r.comp_over_comm_min = lo;
  r.comp_over_comm_max = hi;
}

void ParseTimeBounds(const Value& v, std::optional<double>& min, std::optional<double>& max) {
  if (auto b = ReadBounds(v, TimeBoundFields(), FormatDuration)) {
    min = b->min;
    max = b->max;
  }
}

const std::vector<Field<Region>>& RegionFields() {
  static const std::vector<Field<Region>> fields = {
      {"comp_over_comm", "a pair [lo, hi] of numbers with 0 < lo <= hi, e.g. [0.25, 4]", Need::kOptional,
       nullptr, "grid points whose target comp / target comm is in [lo, hi]", ParseRatioBand},
      {"comm", kTimeBoundsType, Need::kOptional, nullptr,
       "grid points whose target communication time is in [min, max]",
       [](const Value& v, Region& r) { ParseTimeBounds(v, r.comm_min, r.comm_max); }},
      {"comp", kTimeBoundsType, Need::kOptional, nullptr,
       "grid points whose target computation time is in [min, max]",
       [](const Value& v, Region& r) { ParseTimeBounds(v, r.comp_min, r.comp_max); }},
      {"partition", kByteBoundsType, Need::kOptional, nullptr,
       "partitioned tests: points whose partition size is in [min, max]",
       [](const Value& v, Region& r) {
         if (auto b = ReadBounds(v, ByteBoundFields(), FormatByteBound)) {
           if (b->min) r.partition_min = static_cast<std::uint64_t>(*b->min);
           if (b->max) r.partition_max = static_cast<std::uint64_t>(*b->max);
         }
       }},
      {"order", "one of " + yaml_schema::Join(ReadyOrderNames()) + ", or a list of them", Need::kOptional,
       nullptr, "partitioned tests: points with one of these ready orders",
       [](const Value& v, Region& r) {
         auto orders = yaml_schema::ReadItems<std::string>(
             v, true, [](const YAML::Node& n) -> std::optional<std::string> {
               std::optional<std::string> s = yaml_schema::ScalarText(n);
               if (!s || !ParseReadyOrder(*s)) return std::nullopt;
               return s;
             });
         if (orders) r.orders = *orders;
       }},
      {"threads", "a thread count from 1 to 4096, or a list of them, e.g. [2, 4]", Need::kOptional, nullptr,
       "partitioned tests: points whose partitions were marked ready by this many threads",
       [](const Value& v, Region& r) {
         auto threads = yaml_schema::ReadItems<int>(v, true, [](const YAML::Node& n) -> std::optional<int> {
           std::optional<long long> x = yaml_schema::ScalarInt(n);
           if (!x || *x < 1 || *x > 4096) return std::nullopt;
           return static_cast<int>(*x);
         });
         if (threads) r.threads = *threads;
       }},
  };
  return fields;
}

// Region and match keys that only make sense for one kind of test.
const std::vector<std::string>& OverlapOnlyRegionKeys() {
  static const std::vector<std::string> keys = {"comp_over_comm", "comm", "comp"};
  return keys;
}
const std::vector<std::string>& PartitionedOnlyRegionKeys() {
  static const std::vector<std::string> keys = {"partition", "order", "threads"};
  return keys;
}
const std::vector<std::string>& OverlapOnlyMatchKeys() {
  static const std::vector<std::string> keys = {"deployment", "collective"};
  return keys;
}

// ---------------------------------------------------------------- rules

const char* const kLimitType = "a mapping with max, min or both, e.g. {max: 1.3}";

// What each metric a limit may name measures, for the docs (the keys of
// rules[].limits are the metric names, not a Field table).
const char* MetricMeaning(Metric m) {
  switch (m) {
    case Metric::kOverhead:
      return "overlap tests: (t_measured - max(t_comp_ref, t_comm_ref)) / min(t_comp_ref, t_comm_ref); 0 perfect "
             "overlap, 1 serialized";
    case Metric::kComm:
      return "overlap tests: (t_call + t_wait) / t_comm_ref; ~0 the collective progressed in the background, ~1 "
             "its work happened in MPI calls";
    case Metric::kCompSlowdown:
      return "overlap tests: t_comp / t_comp_ref; > 1 the computation was slowed while the collective ran";
    case Metric::kMpiImpact:
      return "overlap tests: computation time with MPI initialised and idle / without MPI, per computation size; "
             "> 1 the idle runtime slows computing";
    case Metric::kCpuBusyNbc:
      return "overlap tests: process CPU time / wall time inside MPI_I<coll> + MPI_Wait, busiest rank, per "
             "communication size; 1 the CPU polled throughout, 0 left free";
    case Metric::kCpuBusyBlocking:
      return "overlap tests: the same inside the blocking twin (MPI_Bcast for MPI_Ibcast, ...)";
    case Metric::kPartitioned:
      return "partitioned tests: partitioned bandwidth / the best of send, isend and persistent; 1 as good, < 1 "
             "worse";
  }
  return "";
}

void ParseLimit(const YAML::Node& key, const YAML::Node& value, const Value& v, Rule& rule) {
  const std::string name = key.IsScalar() ? key.Scalar() : yaml_schema::Describe(key);
  const std::vector<std::string> names = MetricNames();
  std::optional<Metric> metric = key.IsScalar() ? ParseMetric(name) : std::nullopt;
  if (!metric) {
    v.Fail(key, "unknown metric " + yaml_schema::Quote(name) + yaml_schema::DidYouMean(name, names) +
                    "; allowed metrics: " + yaml_schema::Join(names));
    return;
  }
  for (const Limit& l : rule.limits) {
    if (l.metric == *metric) {
      v.Fail(key, "metric " + yaml_schema::Quote(name) + " given twice; give each metric once");
      return;
    }
  }
  const std::string path = yaml_schema::Child(v.path, name);
  const std::string type = kLimitType;
  if (value.IsNull()) {
    v.errors.Add(key, path + ": no value; expected " + type);
    return;
  }
  if (auto b = ReadBounds(Value{value, path, type, v.errors}, LimitBoundFields(), FormatNumber)) {
    rule.limits.push_back({*metric, b->min, b->max});
  }
}

void ParseLimits(const Value& v, Rule& rule) {
  if (!v.node.IsMap() || v.node.size() == 0) {
    v.Expected();
    return;
  }
  for (auto it = v.node.begin(); it != v.node.end(); ++it) ParseLimit(it->first, it->second, v, rule);
}

void ParseText(const Value& v, std::string& out) {
  std::optional<std::string> s = yaml_schema::ScalarText(v.node);
  if (s && !s->empty()) {
    out = *s;
  } else {
    v.Expected();
  }
}

const std::vector<Field<Rule>>& RuleFields() {
  static const std::vector<Field<Rule>> fields = {
      {"name", "a non-empty string, unique in the file", Need::kRequired, nullptr,
       "names the rule in failures", [](const Value& v, Rule& r) { ParseText(v, r.name); }},
      {"source", "a non-empty string, e.g. \"measured on cluster X, 2024-05\"", Need::kRequired, nullptr,
       "where the numbers come from (a measurement, a paper)",
       [](const Value& v, Rule& r) { ParseText(v, r.source); }},
      {"match",
       "a mapping with any of the keys deployment, collective, nodes, labels, system, kind, e.g. "
       "{deployment: progress}",
       Need::kOptional, nullptr, "which tests the rule applies to (absent: all)",
       [](const Value& v, Rule& r) {
         yaml_schema::ParseFields(v.node, v.path, MatchFields(), v.errors, r.match);
       }},
      {"region",
       "a mapping with any of the keys comp_over_comm, comm, comp (overlap tests) or partition, order, "
       "threads (partitioned tests), e.g. {comp_over_comm: [0.25, 4]} or {partition: {min: 1MiB}}",
       Need::kOptional, nullptr, "which grid points of a matching test are checked (absent: all)",
       [](const Value& v, Rule& r) {
         yaml_schema::ParseFields(v.node, v.path, RegionFields(), v.errors, r.region);
       }},
      {"limits",
       "a non-empty mapping from metric (" + yaml_schema::Join(MetricNames()) + ") to " + kLimitType,
       Need::kRequired, nullptr, "bounds on the ratios at every checked grid point", ParseLimits},
  };
  return fields;
}

// The key node `key` of `map` (for its mark); nullopt when absent.
std::optional<YAML::Node> KeyNode(const YAML::Node& map, const std::string& key) {
  if (map.IsMap())
    for (auto it = map.begin(); it != map.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == key) return it->first;
  return std::nullopt;
}

// The value of `key` in `map`; nullopt when absent (operator[] on a
// missing key of a const node gives a node that throws when used).
std::optional<YAML::Node> ValueNode(const YAML::Node& map, const std::string& key) {
  if (map.IsMap())
    for (auto it = map.begin(); it != map.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
  return std::nullopt;
}

std::string MetricList(const std::vector<Limit>& limits, CaseKind kind) {
  std::vector<std::string> names;
  for (const Limit& l : limits)
    if (KindOf(l.metric) == kind) names.emplace_back(MetricName(l.metric));
  return yaml_schema::Join(names);
}

// A rule judges one kind of test: the kind of its metrics, which match.kind
// (when given) must name too; region and match keys of the other kind are
// errors at the key, saying what the rule's kind allows.
void CheckRuleKind(const YAML::Node& node, const std::string& path, yaml_schema::Errors& errors, Rule& rule) {
  bool overlap = false, partitioned = false;
  for (const Limit& l : rule.limits)
    (KindOf(l.metric) == CaseKind::kPartitioned ? partitioned : overlap) = true;
  if (overlap && partitioned) {
    errors.Add(KeyNode(node, "limits").value_or(node),
               path + ".limits: " + MetricList(rule.limits, CaseKind::kPartitioned) +
                   " judges partitioned tests and " + MetricList(rule.limits, CaseKind::kOverlap) +
                   " overlap tests; give them in two rules");
    return;
  }
  const std::optional<CaseKind> by_metrics = partitioned ? std::optional<CaseKind>(CaseKind::kPartitioned)
                                             : overlap   ? std::optional<CaseKind>(CaseKind::kOverlap)
                                                         : std::nullopt;
  if (by_metrics && rule.match.kind && *rule.match.kind != *by_metrics) {
    const std::optional<YAML::Node> match = ValueNode(node, "match");
    errors.Add(match ? KeyNode(*match, "kind").value_or(*match) : node,
               path + ".match.kind: " + ToString(*rule.match.kind) + ", but the limits (" +
                   MetricList(rule.limits, *by_metrics) + ") are ratios of " + ToString(*by_metrics) +
                   " tests; r_partitioned is the partitioned ratio");
    return;
  }
  rule.kind = by_metrics ? *by_metrics : rule.match.kind.value_or(CaseKind::kOverlap);
  const bool is_partitioned = rule.kind == CaseKind::kPartitioned;
  auto refuse = [&](const char* section, const std::vector<std::string>& foreign,
                    const std::vector<std::string>& allowed) {
    const std::optional<YAML::Node> map = ValueNode(node, section);
    if (!map) return;
    for (const std::string& key : foreign) {
      const std::optional<YAML::Node> k = KeyNode(*map, key);
      if (!k) continue;
      errors.Add(*k, path + "." + section + "." + key + ": only for rules on " +
                         (is_partitioned ? "overlap" : "partitioned") + " tests; this rule judges " +
                         ToString(rule.kind) + " tests; " + section +
                         " keys for it: " + yaml_schema::Join(allowed));
    }
  };
  std::vector<std::string> region_keys, match_keys;
  for (const std::string& k : yaml_schema::KeyNames(RegionFields())) {
    const auto& other = is_partitioned ? OverlapOnlyRegionKeys() : PartitionedOnlyRegionKeys();
    if (std::find(other.begin(), other.end(), k) == other.end()) region_keys.push_back(k);
  }
  for (const std::string& k : yaml_schema::KeyNames(MatchFields())) {
    const auto& overlap_only = OverlapOnlyMatchKeys();
    if (!is_partitioned || std::find(overlap_only.begin(), overlap_only.end(), k) == overlap_only.end())
      match_keys.push_back(k);
  }
  refuse("region", is_partitioned ? OverlapOnlyRegionKeys() : PartitionedOnlyRegionKeys(), region_keys);
  if (is_partitioned) refuse("match", OverlapOnlyMatchKeys(), match_keys);
}

// The rule of element `index`; its name must not repeat an earlier rule's.
Rule ParseRule(const YAML::Node& node, std::size_t index, const std::vector<Rule>& earlier,
               yaml_schema::Errors& errors) {
  Rule rule;
  // Point at the rule's first key: yaml-cpp marks a block mapping inside a
  // sequence at the space after the dash.
  const YAML::Mark mark =
      node.IsMap() && node.begin() != node.end() ? node.begin()->first.Mark() : node.Mark();
  rule.where = yaml_schema::Where(errors.file(), mark);
  const std::string path = "rules[" + std::to_string(index) + "]";
  if (!yaml_schema::ParseFields(node, path, RuleFields(), errors, rule)) return rule;
  CheckRuleKind(node, path, errors, rule);
  for (const Rule& other : earlier) {
    if (!rule.name.empty() && other.name == rule.name) {
      errors.Add(node["name"], path + ".name: " + yaml_schema::Quote(rule.name) +
                                   " is already the name of the rule at line " +
                                   std::to_string(other.where.line) + "; rule names must be unique");
      break;
    }
  }
  return rule;
}

void ParseRules(const Value& v, ThresholdSpec& spec) {
  if (!v.node.IsSequence() || v.node.size() == 0) {
    v.Expected();
    return;
  }
  std::size_t index = 0;
  for (const auto& item : v.node) spec.rules.push_back(ParseRule(item, index++, spec.rules, v.errors));
}

void ParseImplementation(const Value& v, ThresholdSpec& spec) {
  std::optional<std::string> name = yaml_schema::ReadIdentifier(v.node);
  if (name) {
    spec.implementation = *name;
  } else {
    v.Expected();
  }
}

// A non-empty text or a non-empty list of them, each at least 3 characters
// (shorter ones would match inside unrelated version strings).
void ParseIdentifiedBy(const Value& v, ThresholdSpec& spec) {
  auto one = [](const YAML::Node& n) -> std::optional<std::string> {
    std::optional<std::string> s = yaml_schema::ScalarText(n);
    if (!s || s->size() < 3) return std::nullopt;
    return s;
  };
  if (auto texts = yaml_schema::ReadItems<std::string>(v, true, one)) spec.identified_by = *texts;
}

void ParseVersions(const Value& v, ThresholdSpec& spec) {
  std::optional<std::string> text = yaml_schema::ScalarText(v.node);
  if (!text) {
    v.Expected();
    return;
  }
  std::string error;
  if (auto range = VersionRange::Parse(*text, &error)) {
    spec.versions = *range;
  } else {
    v.Fail(v.node, error);
  }
}

// ---------------------------------------------------------------- known conformance failures

const std::vector<Field<KnownFailure>>& KnownFailureFields() {
  static const std::vector<Field<KnownFailure>> fields = {
      {"collective", "one of " + yaml_schema::Join(ConformanceCheckNames()), Need::kRequired, nullptr,
       "the conformance check (a collective or a semantics check)",
       [](const Value& v, KnownFailure& k) {
         std::optional<std::string> s = yaml_schema::ScalarText(v.node);
         const auto& known = ConformanceCheckNames();
         if (!s || std::find(known.begin(), known.end(), *s) == known.end()) {
           v.Expected();
           return;
         }
         k.collective = *s;
       }},
      {"variant",
       "a text of words of a variant label, each may start with '!', e.g. \"persistent\" or \"persistent "
       "!count=0\"",
       Need::kOptional, nullptr,
       "the variants it covers: those whose label has every word and none of the !words (absent: all)",
       [](const Value& v, KnownFailure& k) {
         std::optional<std::string> s = yaml_schema::ScalarText(v.node);
         if (!s || s->empty()) {
           v.Expected();
           return;
         }
         std::istringstream words(*s);
         for (std::string w; words >> w;) k.variant.push_back(w);
       }},
      {"versions", "a quoted version range like \"==4.0.2\" or \"<4.2\"", Need::kOptional, nullptr,
       "library versions with the bug (absent: the file's range)",
       [](const Value& v, KnownFailure& k) {
         std::optional<std::string> text = yaml_schema::ScalarText(v.node);
         std::string error;
         if (!text) return v.Expected();
         if (auto range = VersionRange::Parse(*text, &error)) k.versions = *range;
         else v.Fail(v.node, error);
       }},
      {"reason", "a non-empty string: the upstream issue and a reproducer", Need::kRequired, nullptr,
       "why the library fails it; printed with the known failure",
       [](const Value& v, KnownFailure& k) { ParseText(v, k.reason); }},
      {"message", "a non-empty text, e.g. \"Invalid communicator\"", Need::kOptional, nullptr,
       "the known symptom: a failure whose message does not contain it still fails (absent: any failure)",
       [](const Value& v, KnownFailure& k) { ParseText(v, k.message); }},
      {"hangs", "true or false", Need::kOptional, "false",
       "the check hangs: it is not run (a hang costs the check bound each time); true entries are never "
       "reported stale, so re-check them by hand after a library upgrade",
       [](const Value& v, KnownFailure& k) {
         std::optional<std::string> s = yaml_schema::ScalarText(v.node);
         if (s && (*s == "true" || *s == "false")) k.hangs = *s == "true";
         else v.Expected();
       }},
  };
  return fields;
}

void ParseKnownFailures(const Value& v, ThresholdSpec& spec) {
  if (!v.node.IsSequence()) return v.Expected();
  std::size_t index = 0;
  for (const auto& item : v.node) {
    KnownFailure k;
    k.where = yaml_schema::Where(v.errors.file(), item.Mark());
    yaml_schema::ParseFields(item, "known_conformance_failures[" + std::to_string(index++) + "]",
                             KnownFailureFields(), v.errors, k);
    spec.known_conformance_failures.push_back(k);
  }
}

const std::vector<Field<ThresholdSpec>>& ThresholdFields() {
  static const std::vector<Field<ThresholdSpec>> fields = {
      {"implementation",
       "an implementation name as identified from MPI_Get_library_version: openmpi, mpich, "
       "mvapich, intelmpi (lowercase letters, digits, '_' and '-')",
       Need::kRequired, nullptr, "the MPI library these thresholds are for", ParseImplementation},
      {"identified_by", "a text of at least 3 characters, or a list of them, e.g. \"SiteMPI Version\"",
       Need::kOptional, nullptr,
       "texts of MPI_Get_library_version that name this implementation, for a library the built-in "
       "table (openmpi, mpich, mvapich, intelmpi) does not know; the version is read after the text",
       ParseIdentifiedBy},
      {"versions", "a quoted version range like \">=4.0 <5\", \"==4.1.4\" or \"*\"", Need::kRequired, nullptr,
       "library versions these thresholds are for", ParseVersions},
      {"rules",
       "a non-empty list of rules, each a mapping with keys " +
           yaml_schema::Join(yaml_schema::KeyNames(RuleFields())),
       Need::kRequired, nullptr, "what is acceptable; every matching rule is checked", ParseRules},
      {"known_conformance_failures",
       "a list of mappings with keys " + yaml_schema::Join(yaml_schema::KeyNames(KnownFailureFields())),
       Need::kOptional, nullptr,
       "conformance checks this library is known to fail (reported as known, stale once they pass)",
       ParseKnownFailures},
  };
  return fields;
}

bool AtLeast(double x, const std::optional<double>& bound) {
  return !bound || x >= *bound - kRegionSlack * std::fabs(*bound);
}

bool AtMost(double x, const std::optional<double>& bound) {
  return !bound || x <= *bound + kRegionSlack * std::fabs(*bound);
}

}  // namespace

bool Region::Contains(double comm_target, double comp_target) const {
  if (!AtLeast(comm_target, comm_min) || !AtMost(comm_target, comm_max)) return false;
  if (!AtLeast(comp_target, comp_min) || !AtMost(comp_target, comp_max)) return false;
  if (comp_over_comm_min || comp_over_comm_max) {
    double ratio = comp_target / comm_target;
    if (std::isnan(ratio)) return false;
    if (!AtLeast(ratio, comp_over_comm_min) || !AtMost(ratio, comp_over_comm_max)) return false;
  }
  return true;
}

bool Region::ContainsPartitioned(std::uint64_t partition_bytes, const std::string& order,
                                 int thread_count) const {
  if (partition_min && partition_bytes < *partition_min) return false;
  if (partition_max && partition_bytes > *partition_max) return false;
  if (!orders.empty() && std::find(orders.begin(), orders.end(), order) == orders.end()) return false;
  if (!threads.empty() && std::find(threads.begin(), threads.end(), thread_count) == threads.end())
    return false;
  return true;
}

bool KnownFailure::Matches(const std::string& check, const std::string& label,
                           const std::string& version) const {
  if (check != collective || (versions && !versions->Contains(version))) return false;
  std::istringstream words(label);
  std::vector<std::string> have;
  for (std::string w; words >> w;) have.push_back(w);
  for (const std::string& w : variant) {
    const bool negated = w.size() > 1 && w[0] == '!';
    const bool present = std::find(have.begin(), have.end(), negated ? w.substr(1) : w) != have.end();
    if (present == negated) return false;
  }
  return true;
}

Parsed<ThresholdSpec> ParseThresholdSpec(const std::string& yaml_text, const std::string& file) {
  return yaml_schema::ParseDocument(yaml_text, file, "a threshold file", ThresholdFields());
}

Parsed<ThresholdSpec> LoadThresholdSpec(const std::string& path) {
  return yaml_schema::LoadDocumentFile(path, ParseThresholdSpec);
}

std::vector<SchemaKey> ThresholdSpecSchema() {
  std::vector<SchemaKey> out;
  yaml_schema::AppendDocs("", ThresholdFields(), out);
  yaml_schema::AppendDocs("rules[].", RuleFields(), out);
  yaml_schema::AppendDocs("known_conformance_failures[].", KnownFailureFields(), out);
  yaml_schema::AppendDocs("rules[].match.", MatchFields(), out);
  yaml_schema::AppendDocs("rules[].region.", RegionFields(), out);
  yaml_schema::AppendDocs("rules[].region.<comm|comp>.", TimeBoundFields(), out);
  yaml_schema::AppendDocs("rules[].region.partition.", ByteBoundFields(), out);
  for (Metric m : AllMetrics()) {
    out.push_back({std::string("rules[].limits.") + MetricName(m), kLimitType, false, "", MetricMeaning(m)});
  }
  yaml_schema::AppendDocs("rules[].limits.<metric>.", LimitBoundFields(), out);
  return out;
}

bool IsSystemName(const std::string& name) {
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (name.empty() || name.size() > 64 || !alnum(name.front())) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; });
}

LibraryId IdentifyLibrary(const std::string& version_string, const std::vector<ThresholdSpec>& specs) {
  for (const ThresholdSpec& spec : specs)
    for (const std::string& text : spec.identified_by)
      if (version_string.find(text) != std::string::npos)
        return IdentifyLibrary(version_string, text, spec.implementation);
  return IdentifyLibrary(version_string);
}

const ThresholdSpec* SelectThresholds(const std::vector<ThresholdSpec>& specs, const LibraryId& library,
                                      std::string* ambiguous) {
  auto matches = [&](const ThresholdSpec& spec) {
    return spec.implementation == library.implementation && spec.versions.Contains(library.version);
  };
  // The lowest layer holding a match, whatever the order of `specs`.
  int layer = -1;
  for (const ThresholdSpec& spec : specs)
    if (matches(spec) && (layer < 0 || spec.layer < layer)) layer = spec.layer;
  const ThresholdSpec* found = nullptr;
  for (const ThresholdSpec& spec : specs) {
    if (!matches(spec) || spec.layer != layer) continue;
    if (found) {
      if (ambiguous)
        *ambiguous = "threshold files " + found->file + " and " + spec.file +
                     " both match the running library (" + library.implementation + " " + library.version +
                     "); narrow their versions: ranges so that one file matches each version";
      return nullptr;
    }
    found = &spec;
  }
  return found;
}

}  // namespace nbcguard
