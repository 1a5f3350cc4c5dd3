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
      v.Fail(item,
             yaml_schema::Describe(item) + " repeats " + FormatDuration(*same) + "; list each time once");
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
      if (text->size() <= name.size() || text->compare(text->size() - name.size(), name.size(), name) != 0)
        continue;
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
           v.Fail(v.node,
                  "expected " + v.type + "; got " + yaml_schema::Describe(v.node) +
                      (name ? yaml_schema::DidYouMean(*name, ReferenceBehaviourNames()) : std::string()));
         }
       }},
      {"latency", "a positive duration with a unit, e.g. 20us", Need::kOptional, "20us",
       "modelled duration = latency + bytes / bandwidth",
       [](const Value& v, CaseSpec& c) { ParseReferenceDuration(v, c.reference.latency); }},
      {"bandwidth", "a positive rate with a unit B/s, kB/s, MB/s or GB/s, e.g. 50MB/s", Need::kOptional,
       "50MB/s", "modelled bandwidth (well below the real one, so the real transfer adds little)",
       ParseBandwidth},
      {"late_rank", "a rank >= 0 below the smallest of nodes, or -1 for the last rank", Need::kOptional, "-1",
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

// -------------------------------------------------------------- progression

constexpr double kMinProgressInterval = 1e-6, kMaxProgressInterval = 1.0;

const std::vector<Field<CaseSpec>>& ProgressionFields() {
  static const std::vector<Field<CaseSpec>> fields = {
      {"interval", "a duration from 1us to 1s, e.g. 100us", Need::kOptional, "100us",
       "poll: the computation calls MPI_Test when this long has passed since its last call (checked after "
       "every row of the GEMM); thread-*: the progress thread sleeps this long between MPI_Test calls",
       [](const Value& v, CaseSpec& c) {
         std::optional<double> t = yaml_schema::ReadDuration(v, v.node);
         if (!t) return;
         if (*t < kMinProgressInterval * (1 - 1e-9) || *t > kMaxProgressInterval) {
           v.Fail(v.node, "expected " + v.type + "; got " + FormatDuration(*t));
           return;
         }
         c.progress_interval = *t;
       }},
  };
  return fields;
}

void ParseProgression(const Value& v, CaseSpec& c) {
  yaml_schema::ParseFields(v.node, v.path, ProgressionFields(), v.errors, c);
}

// ---------------------------------------------------------------- partitioned

constexpr std::uint64_t kMaxBuffer = 1ull << 30;  // one rank's buffer

// The section while it is parsed: sizes and counts keep their place in the
// file, so checks that need the buffer (which may come later) point at them.
struct PartitionedDraft {
  struct Item {
    std::uint64_t value = 0;
    YAML::Mark mark;
  };
  PartitionedSpec spec;
  std::optional<std::vector<Item>> sizes;   // partitions:
  std::optional<std::vector<Item>> counts;  // partition_counts:
  YAML::Mark counts_key;
};

struct ByteRange {
  std::optional<std::uint64_t> from, to, factor;
};

void ParseByteRangeBound(const Value& v, std::optional<std::uint64_t>& out) {
  std::optional<std::string> text = yaml_schema::ScalarText(v.node);
  std::string error;
  out = text ? ParseBytes(*text, &error) : std::nullopt;
  if (!out) v.Fail(v.node, text ? error : "expected " + v.type + "; got " + yaml_schema::Describe(v.node));
}

const std::vector<Field<ByteRange>>& ByteRangeFields() {
  static const std::vector<Field<ByteRange>> fields = {
      {"from", "a size with a unit, e.g. 512B", Need::kRequired, nullptr, "smallest partition size",
       [](const Value& v, ByteRange& r) { ParseByteRangeBound(v, r.from); }},
      {"to", "a size with a unit, not below from, e.g. 8MiB", Need::kRequired, nullptr,
       "largest partition size (included when from * factor^k reaches it)",
       [](const Value& v, ByteRange& r) { ParseByteRangeBound(v, r.to); }},
      {"factor", "an integer >= 2, e.g. 2", Need::kRequired, nullptr, "ratio between successive sizes",
       [](const Value& v, ByteRange& r) {
         std::optional<long long> f = yaml_schema::ScalarInt(v.node);
         if (f && *f >= 2 && *f <= 1024) {
           r.factor = static_cast<std::uint64_t>(*f);
         } else {
           v.Expected();
         }
       }},
  };
  return fields;
}

void ParsePartitionSizes(const Value& v, PartitionedDraft& d) {
  std::vector<PartitionedDraft::Item> items;
  if (v.node.IsMap()) {
    ByteRange range;
    const std::size_t before = v.errors.size();
    yaml_schema::ParseFields(v.node, v.path, ByteRangeFields(), v.errors, range);
    if (v.errors.size() != before || !range.from || !range.to || !range.factor) return;
    if (*range.to < *range.from) {
      v.Fail(v.node["to"], "to (" + FormatBytes(*range.to) + ") is below from (" + FormatBytes(*range.from) +
                               "); expected to >= from");
      return;
    }
    // The sizes are checked against the buffer at the range itself.
    for (std::uint64_t s = *range.from; s <= *range.to; s *= *range.factor) {
      items.push_back({s, v.node.Mark()});
      if (items.size() > PartitionedSpec::kMaxPartitions) break;  // nonsense range; each size errs below
    }
  } else if (v.node.IsSequence() && v.node.size() > 0) {
    bool ok = true;
    for (const auto& item : v.node) {
      std::optional<std::string> text = yaml_schema::ScalarText(item);
      std::string error;
      std::optional<std::uint64_t> bytes = text ? ParseBytes(*text, &error) : std::nullopt;
      if (!bytes) {
        v.Fail(item, text ? error : "expected " + v.type + "; got " + yaml_schema::Describe(item));
        ok = false;
        continue;
      }
      items.push_back({*bytes, item.Mark()});
    }
    if (!ok) return;
  } else {
    v.Expected();
    return;
  }
  d.sizes = items;
}

void ParsePartitionCounts(const Value& v, PartitionedDraft& d) {
  auto counts =
      yaml_schema::ReadItems<long long>(v, false, [](const YAML::Node& n) -> std::optional<long long> {
        std::optional<long long> x = yaml_schema::ScalarInt(n);
        if (!x || *x < 1 || *x > static_cast<long long>(PartitionedSpec::kMaxPartitions)) return std::nullopt;
        return x;
      });
  if (!counts) return;
  std::vector<PartitionedDraft::Item> items;
  std::size_t i = 0;
  for (const auto& item : v.node) items.push_back({static_cast<std::uint64_t>((*counts)[i++]), item.Mark()});
  d.counts = items;
}

const std::vector<Field<PartitionedDraft>>& PartitionedFields() {
  static const std::vector<Field<PartitionedDraft>> fields = {
      {"buffer", "a size with a unit from 1B to 1GiB, e.g. 8MiB", Need::kOptional, "8MiB",
       "bytes sent from rank 0 to rank 1 in one sample (Schneewind, HLRS: 8 MiB)",
       [](const Value& v, PartitionedDraft& d) {
         std::optional<std::string> text = yaml_schema::ScalarText(v.node);
         std::string error;
         std::optional<std::uint64_t> bytes = text ? ParseBytes(*text, &error) : std::nullopt;
         if (bytes && *bytes <= kMaxBuffer) {
           d.spec.buffer = *bytes;
         } else {
           v.Fail(v.node, bytes  ? "expected " + v.type + "; got " + FormatBytes(*bytes)
                          : text ? error
                                 : "expected " + v.type + "; got " + yaml_schema::Describe(v.node));
         }
       }},
      {"partitions",
       "a non-empty list of sizes with units, e.g. [512B, 64KiB, 8MiB], or a range {from: 512B, to: 8MiB, "
       "factor: 2}; each must divide the buffer",
       Need::kOptional, nullptr,
       "partition sizes, one grid row each (absent, and no partition_counts: 512B doubling up to the buffer, "
       "as in Schneewind, HLRS)",
       ParsePartitionSizes},
      {"partition_counts",
       "a non-empty list of partition counts from 1 to 32768, e.g. [1, 16, 1024]; each must "
       "divide the buffer's bytes",
       Need::kOptional, nullptr, "partitions per buffer, instead of partitions (sizes)",
       ParsePartitionCounts},
      {"orders", "one of " + yaml_schema::Join(ReadyOrderNames()) + ", or a list of them", Need::kOptional,
       "[left-right]",
       "orders in which the sender marks partitions ready (random draws a new permutation per repetition "
       "from seed; neighbour swaps pairs 1,0,3,2,...)",
       [](const Value& v, PartitionedDraft& d) {
         auto orders = yaml_schema::ReadItems<ReadyOrder>(v, true, [](const YAML::Node& n) {
           std::optional<std::string> s = yaml_schema::ScalarText(n);
           return s ? ParseReadyOrder(*s) : std::nullopt;
         });
         if (orders) d.spec.orders = *orders;
       }},
      {"pready_threads",
       "auto or a thread count from 1 to " + std::to_string(kMaxThreads) +
           ", or a list of them, e.g. [1, auto]",
       Need::kOptional, "[1]",
       "OpenMP threads that mark partitions ready (and call MPI_Send, MPI_Isend, MPI_Start in the other "
       "mechanisms); auto = cores per process; more than 1 needs MPI_THREAD_MULTIPLE",
       [](const Value& v, PartitionedDraft& d) {
         auto threads = yaml_schema::ReadItems<int>(v, true, [](const YAML::Node& n) -> std::optional<int> {
           if (n.IsScalar() && n.Tag() != "!" && n.Scalar() == "auto") return 0;
           std::optional<long long> x = yaml_schema::ScalarInt(n);
           if (!x || *x < 1 || *x > kMaxThreads) return std::nullopt;
           return static_cast<int>(*x);
         });
         if (threads) d.spec.pready_threads = *threads;
       }},
      {"seed", "an integer from 0 to 9223372036854775807", Need::kOptional, "1",
       "random order: repetition r uses the permutation of seed r derived from this (recorded in results.json)",
       [](const Value& v, PartitionedDraft& d) {
         std::optional<long long> x = yaml_schema::ScalarInt(v.node);
         if (x && *x >= 0) {
           d.spec.seed = static_cast<std::uint64_t>(*x);
         } else {
           v.Expected();
         }
       }},
  };
  return fields;
}

// Sizes (or counts) against the buffer, once every key is read.
void ParsePartitioned(const Value& v, CaseSpec& c) {
  PartitionedDraft d;
  const std::size_t before = v.errors.size();
  if (!yaml_schema::ParseFields(v.node, v.path, PartitionedFields(), v.errors, d)) return;
  if (v.errors.size() != before) return;
  const std::uint64_t buffer = d.spec.buffer;
  std::vector<std::pair<std::uint64_t, YAML::Mark>> sizes;
  if (d.sizes && d.counts) {
    for (auto it = v.node.begin(); it != v.node.end(); ++it)
      if (it->first.Scalar() == "partition_counts")
        v.errors.Add(it->first,
                     v.path + ".partition_counts: give partitions (sizes) or partition_counts, not both");
    return;
  }
  bool ok = true;
  if (d.sizes) {
    for (const auto& item : *d.sizes) {
      const std::string why = CheckPartitionSize(item.value, buffer);
      if (!why.empty()) {
        v.errors.Add(item.mark, v.path + ".partitions: " + why);
        ok = false;
        continue;
      }
      sizes.push_back({item.value, item.mark});
    }
  } else if (d.counts) {
    for (const auto& item : *d.counts) {
      if (buffer % item.value != 0) {
        v.errors.Add(item.mark, v.path + ".partition_counts: " + std::to_string(item.value) +
                                    " does not divide the buffer (" + FormatBytes(buffer) + " = " +
                                    std::to_string(buffer) + " bytes) into whole bytes");
        ok = false;
        continue;
      }
      sizes.push_back({buffer / item.value, item.mark});
    }
  } else {
    for (std::uint64_t s : DefaultPartitionSizes(buffer)) sizes.push_back({s, v.node.Mark()});
  }
  std::vector<std::uint64_t> seen;
  for (const auto& [size, mark] : sizes) {
    if (std::find(seen.begin(), seen.end(), size) != seen.end()) {
      v.errors.Add(mark,
                   v.path + ": partition size " + FormatBytes(size) + " is listed twice; list each once");
      ok = false;
      continue;
    }
    seen.push_back(size);
  }
  if (!ok) return;
  std::sort(seen.begin(), seen.end());
  d.spec.partition_bytes = seen;
  c.partitioned = d.spec;
}

// ---------------------------------------------------------------- top level

void ParseName(const Value& v, CaseSpec& c) {
  std::optional<std::string> name = yaml_schema::ReadIdentifier(v.node);
  if (name) {
    c.name = *name;
    c.name_at = yaml_schema::Where(v.errors.file(), v.node.Mark());
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
    v.Fail(v.node, "expected one of " + yaml_schema::Join(known) + "; got " + yaml_schema::Describe(v.node) +
                       (name ? yaml_schema::DidYouMean(*name, known) : std::string()));
  }
}

void ParseNodes(const Value& v, CaseSpec& c) {
  if (auto nodes = yaml_schema::ReadProcessCounts(v)) {
    if (c.kind == CaseKind::kPartitioned) {
      // The kind is known before any key is parsed (ParseCaseSpec).
      std::vector<YAML::Node> items;
      if (v.node.IsSequence()) {
        for (const auto& item : v.node) items.push_back(item);
      } else {
        items.push_back(v.node);
      }
      bool ok = true;
      for (std::size_t i = 0; i < nodes->size(); ++i) {
        if ((*nodes)[i] == 2) continue;
        v.Fail(items[i], std::to_string((*nodes)[i]) +
                             " is not allowed for kind: partitioned: partitioned communication is measured "
                             "between 2 ranks (one sender, one receiver); expected 2 or [2]");
        ok = false;
      }
      if (!ok) return;
    }
    c.nodes = *nodes;
    std::sort(c.nodes.begin(), c.nodes.end());
  }
}

// One of a few names: the value, or an error naming the allowed ones (and a near miss).
template <class E>
void ParseChoice(const Value& v, std::optional<E> (*parse)(const std::string&),
                 const std::vector<std::string>& names, E& out) {
  std::optional<std::string> name = yaml_schema::ScalarText(v.node);
  std::optional<E> value = name ? parse(*name) : std::nullopt;
  if (value) {
    out = *value;
  } else {
    v.Fail(v.node, "expected " + v.type + "; got " + yaml_schema::Describe(v.node) +
                       (name ? yaml_schema::DidYouMean(*name, names) : std::string()));
  }
}

void ParseKind(const Value& v, CaseSpec& c) { ParseChoice(v, ParseCaseKind, CaseKindNames(), c.kind); }

void ParseRoot(const Value& v, CaseSpec& c) {
  if (v.node.IsScalar() && v.node.Scalar() == "last") {
    c.root = -1;
    return;
  }
  std::optional<long long> r = yaml_schema::ScalarInt(v.node);
  if (r && *r >= 0 && *r < yaml_schema::kMaxProcesses) {
    c.root = static_cast<int>(*r);
  } else {
    v.Expected();
  }
}

std::optional<std::string> ParseCommunicatorName(const std::string& name) {
  const std::vector<std::string>& names = CommunicatorNames();
  if (std::find(names.begin(), names.end(), name) == names.end()) return std::nullopt;
  return name;
}

void ParseCommunicator(const Value& v, CaseSpec& c) {
  ParseChoice(v, ParseCommunicatorName, CommunicatorNames(), c.communicator);
}

void ParsePersistent(const Value& v, CaseSpec& c) {
  const std::optional<std::string> s = yaml_schema::ScalarText(v.node);
  if (s && (*s == "true" || *s == "false")) {
    c.persistent = *s == "true";
  } else {
    v.Expected();
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

void ParseBinding(const Value& v, CaseSpec& c) {
  ParseChoice(v, ParseBindingPolicy, BindingPolicyNames(), c.binding);
}

void ParseOversubscribe(const Value& v, CaseSpec& c) {
  ParseChoice(v, ParseOversubscribePolicy, OversubscribePolicyNames(), c.oversubscribe);
}

void ParseDeployments(const Value& v, CaseSpec& c) {
  if (auto d = yaml_schema::ReadDeployments(v)) c.deployments = *d;
}

void ParseGrid(const Value& v, CaseSpec& c) {
  yaml_schema::ParseFields(v.node, v.path, GridFields(), v.errors, c);
}

void ParseRepetitionCount(const Value& v, int& out) {
  std::optional<long long> n = yaml_schema::ScalarInt(v.node);
  if (n && *n >= kMinRepetitions && *n <= kMaxRepetitions) {
    out = static_cast<int>(*n);
  } else {
    v.Expected();
  }
}

// "5%": more than 0 and less than 100 percent, as a fraction.
void ParsePrecision(const Value& v, CaseSpec& c) {
  const std::optional<std::string> text = yaml_schema::ScalarText(v.node);
  const std::string number =
      text && text->size() > 1 && text->back() == '%' ? text->substr(0, text->size() - 1) : "";
  // Decimal digits and at most one point (strtod alone also takes 0x5, inf, 1e2).
  if (!number.empty() &&
      std::all_of(number.begin(), number.end(),
                  [](char ch) { return (ch >= '0' && ch <= '9') || ch == '.'; }) &&
      std::count(number.begin(), number.end(), '.') <= 1) {
    char* end = nullptr;
    const double p = std::strtod(number.c_str(), &end);
    if (end == number.c_str() + number.size() && std::isfinite(p) && p > 0 && p < 100) {
      c.precision = p / 100;
      return;
    }
  }
  v.Expected();
}

const std::string kRepetitionCountType =
    "an integer from " + std::to_string(kMinRepetitions) + " to " + std::to_string(kMaxRepetitions);

const std::vector<Field<CaseSpec>>& RepetitionRuleFields() {
  static const std::vector<Field<CaseSpec>> fields = {
      {"min", kRepetitionCountType, Need::kRequired, nullptr, "samples of each kind a point takes at least",
       [](const Value& v, CaseSpec& c) { ParseRepetitionCount(v, c.repetitions_min); }},
      {"max", kRepetitionCountType, Need::kRequired, nullptr, "samples of each kind a point takes at most",
       [](const Value& v, CaseSpec& c) { ParseRepetitionCount(v, c.repetitions); }},
      {"precision", "a percentage more than 0% and less than 100%, e.g. 5%", Need::kRequired, nullptr,
       "a point stops once the 95 % interval of each kind's median is within +-precision of it",
       ParsePrecision},
  };
  return fields;
}

// An integer (that many samples per point), or for kind overlap a stopping
// rule {min, max, precision} (docs/method.md, "Repetitions: a stopping rule").
void ParseRepetitions(const Value& v, CaseSpec& c) {
  if (v.node.IsMap()) {
    if (c.kind != CaseKind::kOverlap) {
      v.Fail(v.node, "a stopping rule {min, max, precision} is for kind: overlap only; expected " +
                         kRepetitionCountType);
      return;
    }
    const std::size_t before = v.errors.size();
    yaml_schema::ParseFields(v.node, v.path, RepetitionRuleFields(), v.errors, c);
    if (v.errors.size() == before && c.repetitions_min > c.repetitions)
      v.Fail(v.node, "min " + std::to_string(c.repetitions_min) + " is more than max " +
                         std::to_string(c.repetitions) + "; expected min <= max");
    return;
  }
  ParseRepetitionCount(v, c.repetitions);
  c.repetitions_min = c.repetitions;
  c.precision = 0;
}

void ParseLabels(const Value& v, CaseSpec& c) {
  if (v.node.IsSequence() && v.node.size() == 0) {
    c.labels.clear();
    return;
  }
  if (auto labels = yaml_schema::ReadLabels(v, false)) c.labels = *labels;
}

void ParseTimeout(const Value& v, CaseSpec& c) {
  std::optional<double> t = yaml_schema::ReadDuration(v, v.node);
  if (!t) return;
  if (!(*t > kTimeoutReserve) || *t > kMaxTimeout) {
    v.Fail(v.node, "expected " + v.type + "; got " + yaml_schema::Describe(v.node));
    return;
  }
  c.timeout = *t;
}

// The root must be a rank of every test of the case, and the collective
// must have one.
void CheckRoot(const YAML::Node& doc, const CaseSpec& c, yaml_schema::Errors& errors) {
  if (!doc.IsMap() || !doc["root"].IsDefined()) return;
  const std::vector<std::string>& rooted = RootedCollectives();
  if (std::find(rooted.begin(), rooted.end(), c.collective) == rooted.end()) {
    errors.Add(doc["root"],
               "root: " + c.collective + " has no root; root applies to " + yaml_schema::Join(rooted));
    return;
  }
  if (c.root < 0 || c.nodes.empty()) return;
  const int ranks = *std::min_element(c.nodes.begin(), c.nodes.end());
  if (c.root < ranks) return;
  errors.Add(doc["root"], "root: rank " + std::to_string(c.root) +
                              " does not exist with nodes: " + std::to_string(ranks) +
                              "; expected a rank from 0 to " + std::to_string(ranks - 1) + ", or last");
}

// The late rank must be one of the ranks of every test of the case.
void CheckLateRank(const YAML::Node& doc, const CaseSpec& c, yaml_schema::Errors& errors) {
  if (c.reference.late_rank < 0 || c.nodes.empty() || !doc.IsMap()) return;
  const int ranks = *std::min_element(c.nodes.begin(), c.nodes.end());
  if (c.reference.late_rank < ranks) return;
  const YAML::Node reference = doc["reference"];
  const YAML::Node at = reference.IsMap() ? reference["late_rank"] : reference;
  errors.Add(at.IsDefined() ? at : doc, "reference.late_rank: rank " + std::to_string(c.reference.late_rank) +
                                            " does not exist with nodes: " + std::to_string(ranks) +
                                            "; expected a rank from 0 to " + std::to_string(ranks - 1) +
                                            ", or -1 for the last rank");
}

// Every top-level key, in the order the docs list them, with the kind of
// case it belongs to (nullopt: both kinds).
struct CaseField {
  Field<CaseSpec> field;
  std::optional<CaseKind> only;
};

const std::vector<CaseField>& AllCaseFields() {
  constexpr std::optional<CaseKind> kBoth;
  constexpr std::optional<CaseKind> kOverlapOnly = CaseKind::kOverlap;
  constexpr std::optional<CaseKind> kPartitionedOnly = CaseKind::kPartitioned;
  static const std::vector<CaseField> fields = {
      {{"name",
        "a name of lowercase letters, digits, '_' and '-' starting with a letter or digit, "
        "e.g. ibcast-quick",
        Need::kRequired, nullptr, "names the tests and results of this case", ParseName},
       kBoth},
      {{"collective", "one of " + yaml_schema::Join(CollectiveNames()), Need::kRequired, nullptr,
        "kind overlap: the nonblocking collective to measure", ParseCollective},
       kOverlapOnly},
      {{"persistent", "true or false", Need::kOptional, "false",
        "kind overlap: measure the collective as an MPI-4 persistent collective: MPI_<Coll>_init once per "
        "size (its cost reported apart, init_s), then MPI_Start + computation + MPI_Wait per sample (Open "
        "MPI 4: its MPIX_ extension; a library with neither: SKIP); adds the label persistent",
        ParsePersistent},
       kOverlapOnly},
      {{"root", "a rank >= 0 below the smallest of nodes, or last", Need::kOptional, "0",
        "kind overlap, collectives with a root (ibcast, ireduce, igather, igatherv, iscatter, iscatterv): the "
        "root rank; last = the last rank of each test",
        ParseRoot},
       kOverlapOnly},
      {{"communicator", "one of " + yaml_schema::Join(CommunicatorNames()), Need::kOptional, "world",
        "kind overlap: the communicator the collective runs on: world (a duplicate of MPI_COMM_WORLD, "
        "the one the harness synchronizes on), reversed (MPI_Comm_split with the ranks in reverse "
        "order: rank r of the world is rank n-1-r), dup (a duplicate of its own)",
        ParseCommunicator},
       kOverlapOnly},
      {{"nodes", yaml_schema::ProcessCountType(), Need::kRequired, nullptr,
        "MPI process counts (one process per node); one test per entry (kind partitioned: 2 only)",
        ParseNodes},
       kBoth},
      {{"threads", "auto or a thread count from 1 to " + std::to_string(kMaxThreads), Need::kOptional, "auto",
        "kind overlap: OpenMP computation threads per process; auto = the node's cores divided among its ranks (at least 1)",
        ParseThreads},
       kOverlapOnly},
      {{"deployment", yaml_schema::DeploymentType(), Need::kOptional, "[basic]",
        "kind overlap: where computation and progress run; one test per entry", ParseDeployments},
       kOverlapOnly},
      {{"grid",
        "a mapping with keys comm and comp, e.g. {comm: [1ms, 4ms], comp: {from: 1ms, to: 64ms, "
        "factor: 4}}",
        Need::kRequired, nullptr, "kind overlap: target communication x computation times to measure",
        ParseGrid},
       kOverlapOnly},
      {{"repetitions",
        kRepetitionCountType + ", or (kind overlap) a stopping rule {min: 9, max: 31, precision: 5%}",
        Need::kOptional, "15",
        "samples per grid point (kind partitioned: per mechanism); a stopping rule takes each point's "
        "samples until every kind's median is known to +-precision, between min and max",
        ParseRepetitions},
       kBoth},
      {{"labels", "a list of labels of lowercase letters, digits, '_' and '-', e.g. [quick]", Need::kOptional,
        "[]", "extra CTest labels (quick, nightly, ...)", ParseLabels},
       kBoth},
      {{"timeout",
        "a duration with a unit, more than 10s (kept for the report) and at most 7 days (604800s), e.g. 600s",
        Need::kOptional, "600s", "time limit of one test (case x nodes x deployment)", ParseTimeout},
       kBoth},
      {{"reference",
        "a mapping with key behaviour (one of " + yaml_schema::Join(ReferenceBehaviourNames()) +
            ") and optional latency, bandwidth, late_rank, late_delay, share, period",
        Need::kOptional, nullptr,
        "kind overlap: ground truth: replace the library's progression with a behaviour whose ratios are known "
        "(docs/validation.md)",
        ParseReference},
       kOverlapOnly},
      {{"kind", "one of " + yaml_schema::Join(CaseKindNames()), Need::kOptional, "overlap",
        "what the case measures: overlap of a nonblocking collective with computation, or MPI-4 partitioned "
        "point-to-point against MPI_Send, MPI_Isend and persistent sends (Schneewind, HLRS)",
        ParseKind},
       kBoth},
      {{"partitioned",
        "a mapping with any of the keys " + yaml_schema::Join(yaml_schema::KeyNames(PartitionedFields())) +
            ", e.g. {buffer: 8MiB, partitions: [4KiB, 1MiB], orders: [left-right, random]}",
        Need::kRequired, nullptr,
        "kind partitioned: buffer, partition sizes, ready orders and Pready threads to measure",
        ParsePartitioned},
       kPartitionedOnly},
      {{"progression", "a mapping with optional key interval, e.g. {interval: 100us}", Need::kOptional,
        nullptr,
        "kind overlap: application-side progression of the poll and thread-* deployments (docs/cases.md, "
        "\"Progress strategies\")",
        ParseProgression},
       kOverlapOnly},
      {{"binding", "one of " + yaml_schema::Join(BindingPolicyNames()), Need::kOptional, "cores",
        "kind overlap: cores: each rank binds its computation threads to a block of cores of its own "
        "(threads plus the cores the deployment keeps free), whatever the launcher did; none: the "
        "launcher's binding is kept (to measure unbound); the thread-* deployments place by their policy "
        "(docs/cases.md, \"Binding\")",
        ParseBinding},
       kOverlapOnly},
      {{"oversubscribe", "one of " + yaml_schema::Join(OversubscribePolicyNames()), Need::kOptional, "refuse",
        "kind overlap: when a node's ranks need more cores (threads plus the cores kept free, per rank) "
        "than it has: refuse SKIPs the test with the numbers; allow measures it, warns, and reports every "
        "point INVALID",
        ParseOversubscribe},
       kOverlapOnly},
  };
  return fields;
}

// The keys of one kind of case (nullopt: the kind is not known because its
// value is wrong; then every key is accepted and none is required, so the
// one error reported is the kind's).
std::vector<Field<CaseSpec>> CaseFields(std::optional<CaseKind> kind) {
  std::vector<Field<CaseSpec>> out;
  for (const CaseField& f : AllCaseFields()) {
    if (kind && f.only && *f.only != *kind) continue;
    out.push_back(f.field);
    if (!kind) out.back().need = Need::kOptional;
  }
  return out;
}

// The keys of the other kind, each with what to say when it is used here.
std::vector<yaml_schema::ElsewhereKey> OtherKindKeys(CaseKind kind) {
  std::vector<yaml_schema::ElsewhereKey> out;
  const std::string allowed = yaml_schema::Join(yaml_schema::KeyNames(CaseFields(kind)));
  for (const CaseField& f : AllCaseFields()) {
    if (!f.only || *f.only == kind) continue;
    out.push_back({f.field.key, std::string("only for kind: ") + ToString(*f.only) +
                                    " cases; this case is kind: " + ToString(kind) +
                                    (kind == CaseKind::kOverlap ? " (the default)" : "") +
                                    "; its keys are: " + allowed});
  }
  return out;
}

// The kind named in the document, before any key is parsed: which keys are
// valid (and nodes' check) depend on it. Absent: overlap. nullopt when the
// value is not a kind (ParseKind reports it).
std::optional<CaseKind> PeekKind(const YAML::Node& doc) {
  if (!doc.IsMap()) return CaseKind::kOverlap;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!it->first.IsScalar() || it->first.Scalar() != "kind") continue;
    std::optional<std::string> name = yaml_schema::ScalarText(it->second);
    return name ? ParseCaseKind(*name) : std::nullopt;
  }
  return CaseKind::kOverlap;
}

}  // namespace

const std::vector<std::string>& CommunicatorNames() {
  static const std::vector<std::string> kNames = {"world", "reversed", "dup"};
  return kNames;
}

const std::vector<std::string>& RootedCollectives() {
  static const std::vector<std::string> kRooted = {"ibcast",   "ireduce",  "igather",
                                                   "igatherv", "iscatter", "iscatterv"};
  return kRooted;
}

Parsed<CaseSpec> ParseCaseSpec(const std::string& yaml_text, const std::string& file) {
  yaml_schema::Errors errors(file);
  CaseSpec spec;
  spec.file = file;
  try {
    if (auto doc = yaml_schema::LoadDocument(yaml_text, "a case file", errors)) {
      const std::optional<CaseKind> kind = PeekKind(*doc);
      if (kind) spec.kind = *kind;
      yaml_schema::ParseFields(*doc, "", CaseFields(kind), errors, spec,
                               kind ? OtherKindKeys(*kind) : std::vector<yaml_schema::ElsewhereKey>{});
      if (errors.size() == 0) CheckLateRank(*doc, spec, errors);
      if (errors.size() == 0) CheckRoot(*doc, spec, errors);
    }
  } catch (const YAML::Exception& e) {  // a yaml-cpp surprise must not crash the driver
    errors.Add(e.mark, "cannot read the YAML: " + e.msg);
  }
  Parsed<CaseSpec> out;
  out.errors = errors.Sorted();
  if (out.errors.empty()) out.value = std::move(spec);
  return out;
}

SpecError DuplicateCaseName(const CaseSpec& later, const std::string& first_file) {
  SourceLocation where = later.name_at;
  if (where.file.empty()) where.file = later.file;
  return {where, "name: \"" + later.name + "\" is also the name of " + first_file +
                     "; two cases with one name would give their tests one name: rename one"};
}

Parsed<std::string> ReadSpecText(const std::string& path) {
  yaml_schema::Errors errors(path);
  Parsed<std::string> out;
  out.value = yaml_schema::ReadFile(path, errors);
  out.errors = errors.Sorted();
  return out;
}

SpecFileKind SpecFileKindOf(const std::string& yaml_text) {
  YAML::Node doc;
  try {
    doc = YAML::Load(yaml_text);
  } catch (const YAML::Exception&) {
    return SpecFileKind::kUnreadable;
  }
  if (doc.IsNull()) return SpecFileKind::kUnreadable;
  if (!doc.IsMap()) return SpecFileKind::kNeither;
  bool is_case = false, is_threshold = false;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    const std::string& key = it->first.Scalar();
    is_case = is_case || key == "name" || key == "collective";
    is_threshold = is_threshold || key == "rules" || key == "implementation";
  }
  if (is_case == is_threshold) return SpecFileKind::kNeither;
  return is_case ? SpecFileKind::kCase : SpecFileKind::kThreshold;
}

Parsed<CaseSpec> LoadCaseSpec(const std::string& path) {
  return yaml_schema::LoadDocumentFile(path, ParseCaseSpec);
}

std::vector<SchemaKey> CaseSpecSchema() {
  std::vector<SchemaKey> out;
  std::vector<Field<CaseSpec>> all;
  for (const CaseField& f : AllCaseFields()) all.push_back(f.field);
  yaml_schema::AppendDocs("", all, out);
  yaml_schema::AppendDocs("grid.", GridFields(), out);
  yaml_schema::AppendDocs("grid.<axis>.", RangeFields(), out);
  yaml_schema::AppendDocs("reference.", ReferenceFields(), out);
  yaml_schema::AppendDocs("repetitions.", RepetitionRuleFields(), out);
  yaml_schema::AppendDocs("partitioned.", PartitionedFields(), out);
  yaml_schema::AppendDocs("partitioned.partitions.", ByteRangeFields(), out);
  yaml_schema::AppendDocs("progression.", ProgressionFields(), out);
  return out;
}

}  // namespace nbcguard
