#include "nbcguard/case_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "yaml_schema.h"

namespace nbcguard {
namespace {

using yaml_schema::Field;
using yaml_schema::Need;
using yaml_schema::Value;

constexpr int kMaxThreads = 4096;
constexpr long long kMinRepetitions = 3;
constexpr long long kMaxRepetitions = 100000;
constexpr std::size_t kMaxAxisPoints = 64;
constexpr double kSameTime = 1e-9;  // relative: 1ms and 1000us are the same time

const char* const kAxisType =
    "a non-empty list of durations, e.g. [1ms, 4ms, 16ms], or a range "
    "{from: 1ms, to: 64ms, factor: 4}";

// ---------------------------------------------------------------- grid axes

struct Range {
  std::optional<double> from, to, factor;
};

void ParseRangeDuration(const Value& v, std::optional<double>& out) {
  out = yaml_schema::ReadDuration(v, v.node);
}

const std::vector<Field<Range>>& RangeFields() {
  static const std::vector<Field<Range>> fields = {
      {"from", "a duration with a unit, e.g. 1ms", Need::kRequired, nullptr, "first time of the range",
       [](const Value& v, Range& r) { ParseRangeDuration(v, r.from); }},
      {"to", "a duration with a unit, not below from, e.g. 64ms", Need::kRequired, nullptr,
       "last time of the range (included when from * factor^k reaches it)",
       [](const Value& v, Range& r) { ParseRangeDuration(v, r.to); }},
      {"factor", "a number > 1, e.g. 4", Need::kRequired, nullptr, "ratio between successive times",
       [](const Value& v, Range& r) {
         std::optional<double> f = yaml_schema::ScalarNumber(v.node);
         if (f && *f > 1) {
           r.factor = f;
         } else {
           v.Expected();
         }
       }},
  };
  return fields;
}

std::optional<std::vector<double>> ExpandRange(const Value& v) {
  Range range;
  std::size_t before = v.errors.size();
  yaml_schema::ParseFields(v.node, v.path, RangeFields(), v.errors, range);
  if (v.errors.size() != before || !range.from || !range.to || !range.factor) return std::nullopt;
  if (*range.to < *range.from) {
    v.Fail(v.node["to"], "to (" + FormatDuration(*range.to) + ") is below from (" +
                             FormatDuration(*range.from) + "); expected to >= from");
    return std::nullopt;
  }
  std::size_t n = GeometricRangeSize(*range.from, *range.to, *range.factor);
  if (n > kMaxAxisPoints) {
    v.Fail(v.node, "the range has " + std::to_string(n) + " times; at most " +
                       std::to_string(kMaxAxisPoints) + " per axis (use a larger factor)");
    return std::nullopt;
  }
  return GeometricRange(*range.from, *range.to, *range.factor);
}

bool SameTime(double a, double b) { return std::fabs(a - b) <= kSameTime * std::max(a, b); }

std::optional<std::vector<double>> ReadTimeList(const Value& v) {
  if (v.node.size() == 0) {
    v.Fail(v.node, "the list is empty; expected " + v.type);
    return std::nullopt;
  }
  if (v.node.size() > kMaxAxisPoints) {
    v.Fail(v.node, "the list has " + std::to_string(v.node.size()) + " times; at most " +
                       std::to_string(kMaxAxisPoints) + " per axis");
    return std::nullopt;
  }
  std::vector<double> out;
  bool ok = true;
  for (const auto& item : v.node) {
    std::optional<double> t = yaml_schema::ReadDuration(v, item);
    if (!t) {
      ok = false;
      continue;
    }
    auto same = std::find_if(out.begin(), out.end(), [&](double x) { return SameTime(x, *t); });
    if (same != out.end()) {
      v.Fail(item, yaml_schema::Describe(item) + " repeats " + FormatDuration(*same) +
                       "; list each time once");
      ok = false;
      continue;
    }
    out.push_back(*t);
  }
  if (!ok) return std::nullopt;
  std::sort(out.begin(), out.end());
  return out;
}

void ParseAxis(const Value& v, std::vector<double>& out) {
  std::optional<std::vector<double>> times;
  if (v.node.IsSequence()) {
    times = ReadTimeList(v);
  } else if (v.node.IsMap()) {
    times = ExpandRange(v);
  } else {
    v.Expected();
  }
  if (times) out = *times;
}

const std::vector<Field<CaseSpec>>& GridFields() {
  static const std::vector<Field<CaseSpec>> fields = {
      {"comm", kAxisType, Need::kRequired, nullptr, "target communication times",
       [](const Value& v, CaseSpec& c) { ParseAxis(v, c.comm_times); }},
      {"comp", kAxisType, Need::kRequired, nullptr, "target computation times",
       [](const Value& v, CaseSpec& c) { ParseAxis(v, c.comp_times); }},
  };
  return fields;
}

// ---------------------------------------------------------------- reference

// Durations parse as positive (ParseDuration), so "0ms" is refused there.
void ParseReferenceDuration(const Value& v, double& out) {
  if (auto t = yaml_schema::ReadDuration(v, v.node)) out = *t;
}

// "50MB/s": a positive number and a decimal unit.
void ParseBandwidth(const Value& v, CaseSpec& c) {
  std::optional<std::string> text = yaml_schema::ScalarText(v.node);
  struct Unit {
    const char* name;
    double scale;
  };
  static const Unit kUnits[] = {{"GB/s", 1e9}, {"MB/s", 1e6}, {"kB/s", 1e3}, {"B/s", 1}};
  if (text) {
    for (const Unit& u : kUnits) {
      const std::string name = u.name;
      if (text->size() <= name.size() || text->compare(text->size() - name.size(), name.size(), name) != 0) continue;
      std::string number = text->substr(0, text->size() - name.size());
      if (!number.empty() && number.back() == ' ') number.pop_back();
      char* end = nullptr;
      const double x = std::strtod(number.c_str(), &end);
      if (!number.empty() && end == number.c_str() + number.size() && std::isfinite(x) && x > 0) {
        c.reference.bandwidth = x * u.scale;
        return;
      }
      break;
    }
  }
  v.Expected();
}

const std::vector<Field<CaseSpec>>& ReferenceFields() {
  static const std::vector<Field<CaseSpec>> fields = {
      {"behaviour", "one of " + yaml_schema::Join(ReferenceBehaviourNames()), Need::kRequired, nullptr,
       "the known behaviour that replaces the library's progression of the collective",
       [](const Value& v, CaseSpec& c) {
         std::optional<std::string> name = yaml_schema::ScalarText(v.node);
         std::optional<ReferenceBehaviour> b = name ? ParseReferenceBehaviour(*name) : std::nullopt;
         if (b && *b != ReferenceBehaviour::kNone) {
           c.reference.behaviour = *b;
         } else {
           v.Fail(v.node, "expected " + v.type + "; got " + yaml_schema::Describe(v.node) +
                              (name ? yaml_schema::DidYouMean(*name, ReferenceBehaviourNames()) : std::string()));
         }
       }},
      {"latency", "a positive duration with a unit, e.g. 20us", Need::kOptional, "20us",
       "modelled duration = latency + bytes / bandwidth",
       [](const Value& v, CaseSpec& c) { ParseReferenceDuration(v, c.reference.latency); }},
      {"bandwidth", "a positive rate with a unit B/s, kB/s, MB/s or GB/s, e.g. 50MB/s", Need::kOptional,
       "50MB/s", "modelled bandwidth (well below the real one, so the real transfer adds little)", ParseBandwidth},
      {"late_rank", "a rank >= 0, or -1 for the last rank", Need::kOptional, "-1",
       "late-rank, late-exit: the rank that enters (leaves) the collective late",
       [](const Value& v, CaseSpec& c) {
         std::optional<long long> r = yaml_schema::ScalarInt(v.node);
         if (r && *r >= -1 && *r < yaml_schema::kMaxProcesses) {
           c.reference.late_rank = static_cast<int>(*r);
         } else {
           v.Expected();
         }
       }},
      {"late_delay", "a positive duration with a unit, e.g. 1ms", Need::kOptional, "1ms",
       "late-rank, late-exit: how late that rank enters (leaves)",
       [](const Value& v, CaseSpec& c) { ParseReferenceDuration(v, c.reference.late_delay); }},
      {"share", "a number in (0, 0.9], e.g. 0.5", Need::kOptional, "0.5",
       "passive-impact: fraction of every period taken from the computing thread",
       [](const Value& v, CaseSpec& c) {
         std::optional<double> x = yaml_schema::ScalarNumber(v.node);
         if (x && *x > 0 && *x <= ReferenceSpec::kMaxShare) {
           c.reference.share = *x;
         } else {
           v.Expected();
         }
       }},
      {"period", "a positive duration with a unit, e.g. 1ms", Need::kOptional, "1ms",
       "passive-impact: time between the starts of two losses",
       [](const Value& v, CaseSpec& c) { ParseReferenceDuration(v, c.reference.period); }},
  };
  return fields;
}

void ParseReference(const Value& v, CaseSpec& c) {
  yaml_schema::ParseFields(v.node, v.path, ReferenceFields(), v.errors, c);
}

// ---------------------------------------------------------------- top level

void ParseName(const Value& v, CaseSpec& c) {
  std::optional<std::string> name = yaml_schema::ReadIdentifier(v.node);
  if (name) {
    c.name = *name;
  } else {
    v.Expected();
  }
}

void ParseCollective(const Value& v, CaseSpec& c) {
  std::optional<std::string> name = yaml_schema::ScalarText(v.node);
  const auto& known = CollectiveNames();
  if (name && std::find(known.begin(), known.end(), *name) != known.end()) {
    c.collective = *name;
  } else {
    v.Fail(v.node, "expected one of " + yaml_schema::Join(known) + "; got " +
                       yaml_schema::Describe(v.node) +
                       (name ? yaml_schema::DidYouMean(*name, known) : std::string()));
  }
}

void ParseNodes(const Value& v, CaseSpec& c) {
  if (auto nodes = yaml_schema::ReadProcessCounts(v)) {
    c.nodes = *nodes;
    std::sort(c.nodes.begin(), c.nodes.end());
  }
}

void ParseThreads(const Value& v, CaseSpec& c) {
  if (v.node.IsScalar() && v.node.Scalar() == "auto") {
    c.threads = 0;
    return;
  }
  std::optional<long long> n = yaml_schema::ScalarInt(v.node);
  if (n && *n >= 1 && *n <= kMaxThreads) {
    c.threads = static_cast<int>(*n);
  } else {
    v.Expected();
  }
}

void ParseDeployments(const Value& v, CaseSpec& c) {
  if (auto d = yaml_schema::ReadDeployments(v)) c.deployments = *d;
}

void ParseGrid(const Value& v, CaseSpec& c) {
  yaml_schema::ParseFields(v.node, v.path, GridFields(), v.errors, c);
}

void ParseRepetitions(const Value& v, CaseSpec& c) {
  std::optional<long long> n = yaml_schema::ScalarInt(v.node);
  if (n && *n >= kMinRepetitions && *n <= kMaxRepetitions) {
    c.repetitions = static_cast<int>(*n);
  } else {
    v.Expected();
  }
}

void ParseLabels(const Value& v, CaseSpec& c) {
  if (v.node.IsSequence() && v.node.size() == 0) {
    c.labels.clear();
    return;
  }
  if (auto labels = yaml_schema::ReadLabels(v, false)) c.labels = *labels;
}

void ParseTimeout(const Value& v, CaseSpec& c) {
  if (auto t = yaml_schema::ReadDuration(v, v.node)) c.timeout = *t;
}

const std::vector<Field<CaseSpec>>& CaseFields() {
  static const std::vector<Field<CaseSpec>> fields = {
      {"name",
       "a name of lowercase letters, digits, '_' and '-' starting with a letter or digit, "
       "e.g. ibcast-quick",
       Need::kRequired, nullptr, "names the tests and results of this case", ParseName},
      {"collective", "one of " + yaml_schema::Join(CollectiveNames()), Need::kRequired, nullptr,
       "the nonblocking collective to measure", ParseCollective},
      {"nodes", yaml_schema::ProcessCountType(), Need::kRequired, nullptr,
       "MPI process counts (one process per node); one test per entry", ParseNodes},
      {"threads", "auto or a thread count from 1 to " + std::to_string(kMaxThreads),
       Need::kOptional, "auto", "OpenMP computation threads per process; auto = cores per process",
       ParseThreads},
      {"deployment", yaml_schema::DeploymentType(), Need::kOptional, "[basic]",
       "where computation and progress run; one test per entry", ParseDeployments},
      {"grid",
       "a mapping with keys comm and comp, e.g. {comm: [1ms, 4ms], comp: {from: 1ms, to: 64ms, "
       "factor: 4}}",
       Need::kRequired, nullptr, "target communication x computation times to measure", ParseGrid},
      {"repetitions",
       "an integer from " + std::to_string(kMinRepetitions) + " to " +
           std::to_string(kMaxRepetitions),
       Need::kOptional, "15", "samples per grid point", ParseRepetitions},
      {"labels", "a list of labels of lowercase letters, digits, '_' and '-', e.g. [quick]",
       Need::kOptional, "[]", "extra CTest labels (quick, nightly, ...)", ParseLabels},
      {"timeout", "a positive duration with a unit, e.g. 600s", Need::kOptional, "600s",
       "time limit of one test (case x nodes x deployment)", ParseTimeout},
      {"reference",
       "a mapping with key behaviour (one of " + yaml_schema::Join(ReferenceBehaviourNames()) +
           ") and optional latency, bandwidth, late_rank, late_delay, share, period",
       Need::kOptional, nullptr,
       "ground truth: replace the library's progression with a behaviour whose ratios are known "
       "(README, Reference behaviours)",
       ParseReference},
  };
  return fields;
}

}  // namespace

Parsed<CaseSpec> ParseCaseSpec(const std::string& yaml_text, const std::string& file) {
  return yaml_schema::ParseDocument(yaml_text, file, "a case file", CaseFields());
}

Parsed<CaseSpec> LoadCaseSpec(const std::string& path) { return yaml_schema::LoadDocumentFile(path, ParseCaseSpec); }

std::vector<SchemaKey> CaseSpecSchema() {
  std::vector<SchemaKey> out;
  yaml_schema::AppendDocs("", CaseFields(), out);
  yaml_schema::AppendDocs("grid.", GridFields(), out);
  yaml_schema::AppendDocs("grid.<axis>.", RangeFields(), out);
  yaml_schema::AppendDocs("reference.", ReferenceFields(), out);
  return out;
}

}  // namespace nbcguard
