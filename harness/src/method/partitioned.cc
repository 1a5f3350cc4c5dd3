#include "nbcguard/partitioned.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "nbcguard/stats.h"
#include "nbcguard/units.h"

namespace nbcguard {
namespace {

constexpr std::array<std::pair<ReadyOrder, const char*>, 3> kOrders = {{
    {ReadyOrder::kLeftRight, "left-right"},
    {ReadyOrder::kRandom, "random"},
    {ReadyOrder::kNeighbour, "neighbour"},
}};

constexpr std::array<Mechanism, kMechanisms> kAllMechanisms = {
    Mechanism::kSend, Mechanism::kIsend, Mechanism::kPersistent, Mechanism::kPartitioned};

// SplitMix64 (Steele, Lea, Flood 2014): a fixed, well-mixed 64-bit
// function, so seeds and data patterns are the same on every platform.
std::uint64_t Mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The pattern is built from 64-bit words, one per aligned 8 bytes of the
// buffer, so filling and checking 8 MiB runs at memory speed (a per-byte
// hash took ~15 ms per sample); PatternByte extracts one byte of a word.
std::uint64_t PatternWord(std::uint64_t sample, std::uint64_t word) {
  // Position times an odd constant, xor a per-sample key: every word of a
  // sample differs from its neighbours, and from the same word of any
  // other sample.
  return Mix(sample) ^ ((word + 1) * 0xD6E8FEB86659FD93ull);
}

std::string Hex(unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", b);
  return buf;
}

}  // namespace

const char* ToString(ReadyOrder o) {
  for (const auto& [value, name] : kOrders)
    if (value == o) return name;
  return "unknown";
}

std::optional<ReadyOrder> ParseReadyOrder(const std::string& name) {
  for (const auto& [value, text] : kOrders)
    if (name == text) return value;
  return std::nullopt;
}

const std::vector<std::string>& ReadyOrderNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    out.reserve(kOrders.size());
    for (const auto& entry : kOrders) out.emplace_back(entry.second);
    return out;
  }();
  return names;
}

const char* ToString(Mechanism m) {
  switch (m) {
    case Mechanism::kSend:
      return "send";
    case Mechanism::kIsend:
      return "isend";
    case Mechanism::kPersistent:
      return "persistent";
    case Mechanism::kPartitioned:
      return "partitioned";
  }
  return "unknown";
}

const std::array<Mechanism, kMechanisms>& AllMechanisms() { return kAllMechanisms; }

std::vector<std::uint64_t> DefaultPartitionSizes(std::uint64_t buffer) {
  std::vector<std::uint64_t> out;
  if (buffer == 0) return out;
  for (std::uint64_t s = PartitionedSpec::kSmallestDefaultPartition; s < buffer; s *= 2)
    if (buffer % s == 0 && CheckPartitionSize(s, buffer).empty()) out.push_back(s);
  out.push_back(buffer);
  return out;
}

std::string CheckPartitionSize(std::uint64_t partition, std::uint64_t buffer) {
  if (partition == 0) return "a partition holds at least 1 byte";
  if (partition > buffer)
    return FormatBytes(partition) + " is larger than the buffer (" + FormatBytes(buffer) + ")";
  if (buffer % partition != 0)
    return FormatBytes(partition) + " does not divide the buffer (" + FormatBytes(buffer) +
           ") into whole partitions; use a divisor of " + std::to_string(buffer) + " bytes";
  if (buffer / partition > PartitionedSpec::kMaxPartitions)
    return FormatBytes(partition) + " makes " + std::to_string(buffer / partition) + " partitions of " +
           FormatBytes(buffer) + "; at most " + std::to_string(PartitionedSpec::kMaxPartitions) +
           " (partitions are tagged in the per-partition mechanisms and MPI guarantees tags up to 32767 only)";
  return "";
}

bool PartitionedPointSpec::operator==(const PartitionedPointSpec& o) const {
  return partition_bytes == o.partition_bytes && partitions == o.partitions && order == o.order &&
         threads == o.threads;
}

std::string PointName(const PartitionedPointSpec& p) {
  return "partition=" + FormatBytes(p.partition_bytes) + " order=" + ToString(p.order) +
         " threads=" + std::to_string(p.threads);
}

std::vector<PartitionedPointSpec> ExpandPartitionedGrid(const PartitionedSpec& spec, int auto_threads) {
  std::vector<PartitionedPointSpec> out;
  for (std::uint64_t size : spec.partition_bytes) {
    if (size == 0 || spec.buffer % size != 0) continue;  // the parser refuses these
    for (ReadyOrder order : spec.orders) {
      for (int t : spec.pready_threads) {
        PartitionedPointSpec p;
        p.partition_bytes = size;
        p.partitions = static_cast<int>(spec.buffer / size);
        p.order = order;
        p.threads = t > 0 ? t : std::max(1, auto_threads);
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
      }
    }
  }
  return out;
}

std::uint64_t RepetitionSeed(std::uint64_t base, int repetition) {
  return Mix(base ^ Mix(static_cast<std::uint64_t>(repetition)));
}

std::vector<int> ReadyOrderOf(ReadyOrder order, int partitions, std::uint64_t seed) {
  std::vector<int> out(static_cast<std::size_t>(std::max(0, partitions)));
  for (int i = 0; i < partitions; ++i) out[i] = i;
  switch (order) {
    case ReadyOrder::kLeftRight:
      break;
    case ReadyOrder::kNeighbour:
      for (int i = 0; i + 1 < partitions; i += 2) std::swap(out[i], out[i + 1]);
      break;
    case ReadyOrder::kRandom: {
      // Fisher-Yates with SplitMix64 draws and rejection, so the bound
      // carries no modulo bias and the permutation is the same everywhere.
      std::uint64_t state = seed;
      for (int i = partitions - 1; i > 0; --i) {
        const std::uint64_t bound = static_cast<std::uint64_t>(i) + 1;
        const std::uint64_t limit =
            std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % bound;
        std::uint64_t draw = 0;
        do {
          state += 0x9E3779B97F4A7C15ull;
          draw = Mix(state);
        } while (draw >= limit);
        std::swap(out[i], out[static_cast<std::size_t>(draw % bound)]);
      }
      break;
    }
  }
  return out;
}

// ---------------------------------------------------------------- data

unsigned char PatternByte(std::uint64_t sample, std::uint64_t offset) {
  return static_cast<unsigned char>(PatternWord(sample, offset / 8) >> (8 * (offset % 8)));
}

void FillPattern(unsigned char* buffer, std::uint64_t bytes, std::uint64_t sample) {
  const std::uint64_t words = bytes / 8;
  for (std::uint64_t w = 0; w < words; ++w) {
    const std::uint64_t x = PatternWord(sample, w);
    // Little-endian byte order whatever the host's, to match PatternByte.
    unsigned char b[8];
    for (int k = 0; k < 8; ++k) b[k] = static_cast<unsigned char>(x >> (8 * k));
    std::memcpy(buffer + 8 * w, b, 8);
  }
  for (std::uint64_t i = words * 8; i < bytes; ++i) buffer[i] = PatternByte(sample, i);
}

void FillPoison(unsigned char* buffer, std::uint64_t bytes, std::uint64_t sample) {
  const std::uint64_t words = bytes / 8;
  for (std::uint64_t w = 0; w < words; ++w) {
    const std::uint64_t x = ~PatternWord(sample, w);
    unsigned char b[8];
    for (int k = 0; k < 8; ++k) b[k] = static_cast<unsigned char>(x >> (8 * k));
    std::memcpy(buffer + 8 * w, b, 8);
  }
  for (std::uint64_t i = words * 8; i < bytes; ++i)
    buffer[i] = static_cast<unsigned char>(~PatternByte(sample, i));
}

std::optional<std::uint64_t> FirstWrongByte(const unsigned char* buffer, std::uint64_t bytes,
                                            std::uint64_t sample) {
  const std::uint64_t words = bytes / 8;
  for (std::uint64_t w = 0; w < words; ++w) {
    const std::uint64_t x = PatternWord(sample, w);
    unsigned char b[8];
    for (int k = 0; k < 8; ++k) b[k] = static_cast<unsigned char>(x >> (8 * k));
    if (std::memcmp(buffer + 8 * w, b, 8) == 0) continue;
    for (int k = 0; k < 8; ++k)
      if (buffer[8 * w + k] != b[k]) return 8 * w + k;
  }
  for (std::uint64_t i = words * 8; i < bytes; ++i)
    if (buffer[i] != PatternByte(sample, i)) return i;
  return std::nullopt;
}

std::string DescribeWrongByte(Mechanism m, std::uint64_t partition_bytes, int partitions,
                              std::uint64_t offset, unsigned char expected, unsigned char got) {
  const std::uint64_t p = partition_bytes ? offset / partition_bytes : 0;
  return std::string(ToString(m)) + ", partition " + std::to_string(p) + " of " + std::to_string(partitions) +
         " (bytes " + std::to_string(p * partition_bytes) + "-" +
         std::to_string((p + 1) * partition_bytes - 1) + "), byte " + std::to_string(offset) + ": expected " +
         Hex(expected) + ", got " + Hex(got);
}

// ---------------------------------------------------------------- statistics

std::vector<double> Bandwidths(std::uint64_t bytes, const std::vector<double>& times) {
  std::vector<double> out;
  out.reserve(times.size());
  for (double t : times) out.push_back(std::isfinite(t) && t > 0 ? static_cast<double>(bytes) / t : kNaN);
  return out;
}

PartitionedStats SummarizePartitioned(std::uint64_t buffer_bytes,
                                      const std::array<std::vector<double>, kMechanisms>& times) {
  PartitionedStats s;
  std::array<std::vector<double>, kMechanisms> bw;
  for (int m = 0; m < kMechanisms; ++m) {
    bw[m] = Bandwidths(buffer_bytes, times[m]);
    s.bandwidth[m] = Summarize(bw[m]);
    s.time_median[m] = Median(times[m]);
  }
  double best = -1;
  for (Mechanism m : {Mechanism::kSend, Mechanism::kIsend, Mechanism::kPersistent}) {
    const double median = s.bandwidth[static_cast<int>(m)].median;
    if (std::isfinite(median) && median > best) {
      best = median;
      s.best_other = m;
    }
  }
  std::vector<double> ratios;
  if (s.best_other) {
    const std::vector<double>& part = bw[static_cast<int>(Mechanism::kPartitioned)];
    const std::vector<double>& other = bw[static_cast<int>(*s.best_other)];
    for (std::size_t i = 0; i < std::min(part.size(), other.size()); ++i) {
      const double r = part[i] / other[i];
      ratios.push_back(std::isfinite(r) ? r : kNaN);
    }
  }
  s.r_partitioned = Summarize(ratios);
  return s;
}

// ---------------------------------------------------------------- verdict

Verdict EvaluatePartitioned(const std::vector<PartitionedPoint>& points, const TestContext& test,
                            const std::vector<Rule>& rules) {
  Verdict v;
  for (const Rule& rule : rules) {
    if (!RuleApplies(rule, test)) continue;
    ++v.rules_applied;
    for (const PartitionedPoint& p : points) {
      if (!rule.region.ContainsPartitioned(p.at.partition_bytes, ToString(p.at.order), p.at.threads))
        continue;
      const std::string name = PointName(p.at);
      auto invalid = [&](const std::string& why) {
        v.invalid.push_back({name + ": INVALID (" + (why.empty() ? std::string("no reason given") : why) +
                                 ") [rule '" + rule.name + "']",
                             std::nullopt});
      };
      if (!p.valid) {
        invalid(p.invalid_reason);
        continue;
      }
      ++v.points_checked;
      if (std::find(v.checked_names.begin(), v.checked_names.end(), name) == v.checked_names.end())
        v.checked_names.push_back(name);
      for (const Limit& limit : rule.limits) {
        if (limit.metric != Metric::kPartitioned) continue;  // the parser keeps rules to one kind
        const Spread& s = p.stats.r_partitioned;
        if (std::isnan(s.median)) {
          invalid("no measured r_partitioned");
          continue;
        }
        auto record = [&](double value, bool is_max, bool beyond) {
          Finding f;
          f.rule = rule.name;
          f.rule_where = rule.where;
          f.at = name;
          f.metric = limit.metric;
          f.measured = s;
          f.limit = value;
          f.is_max = is_max;
          f.beyond_noise = beyond;
          (beyond ? v.failures : v.within_noise).push_back(f);
        };
        // As for overlap ratios: past the limit beyond noise only when the
        // whole confidence interval is.
        if (limit.max) {
          if (s.lo > *limit.max) record(*limit.max, true, true);
          else if (s.median > *limit.max) record(*limit.max, true, false);
        }
        if (limit.min) {
          if (s.hi < *limit.min) record(*limit.min, false, true);
          else if (s.median < *limit.min) record(*limit.min, false, false);
        }
      }
    }
  }
  v.pass = v.failures.empty() && v.invalid.empty() && v.rules_applied > 0 && v.points_checked > 0;
  return v;
}

std::string PointVerdict(const PartitionedPoint& p, const Verdict& v) {
  const std::string name = PointName(p.at);
  auto at = [&](const std::vector<Finding>& fs) {
    return std::any_of(fs.begin(), fs.end(), [&](const Finding& f) { return f.at == name; });
  };
  if (!p.valid) {
    const bool judged = std::any_of(v.invalid.begin(), v.invalid.end(),
                                    [&](const InvalidPoint& i) { return i.line.rfind(name + ": ", 0) == 0; });
    return judged ? "invalid" : "not-checked";
  }
  if (at(v.failures)) return "fail";
  if (at(v.within_noise)) return "within-noise";
  if (std::find(v.checked_names.begin(), v.checked_names.end(), name) != v.checked_names.end()) return "pass";
  return "not-checked";
}

}  // namespace nbcguard
