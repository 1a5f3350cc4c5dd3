// MPI-4 partitioned point-to-point against the other ways of sending a
// buffer in pieces (Schneewind, HLRS, HLRS: MPI_Send per partition, MPI_Isend per
// partition, persistent sends, MPI_Psend_init + MPI_Pready), the pure parts:
// the grid, the orders in which partitions are marked ready, the data
// pattern every sample is verified with, bandwidth statistics, the ratio of
// partitioned to the best other mechanism, and the verdict. No MPI here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nbcguard/stats.h"
#include "nbcguard/verdict.h"

namespace nbcguard {

// The order in which the sender marks its partitions ready.
enum class ReadyOrder {
  kLeftRight,  // 0, 1, 2, ...
  kRandom,     // a permutation drawn from a seed per repetition (RepetitionSeed)
  kNeighbour,  // pairs of neighbours swapped: 1, 0, 3, 2, ... (odd count: the last one last)
};

const char* ToString(ReadyOrder o);  // "left-right", "random", "neighbour"
std::optional<ReadyOrder> ParseReadyOrder(const std::string& name);
const std::vector<std::string>& ReadyOrderNames();

// The four transfer mechanisms of Schneewind, HLRS's table, in the order a
// repetition measures them.
enum class Mechanism { kSend, kIsend, kPersistent, kPartitioned };
constexpr int kMechanisms = 4;
const char* ToString(Mechanism m);  // "send", "isend", "persistent", "partitioned"
const std::array<Mechanism, kMechanisms>& AllMechanisms();

// The `partitioned:` section of a case file.
struct PartitionedSpec {
  static constexpr std::uint64_t kDefaultBuffer = 8ull << 20;  // 8 MiB, as in Schneewind, HLRS
  static constexpr std::uint64_t kSmallestDefaultPartition = 512;
  // Tags name partitions in the per-partition mechanisms; MPI guarantees
  // tags up to 32767 only.
  static constexpr std::uint64_t kMaxPartitions = 32768;
  std::uint64_t buffer = kDefaultBuffer;
  std::vector<std::uint64_t> partition_bytes;  // ascending, unique, each divides buffer
  std::vector<ReadyOrder> orders;              // unique, non-empty
  std::vector<int> pready_threads;             // unique, non-empty; 0 = auto (cores per process)
  std::uint64_t seed = 1;                      // base of the random orders' seeds
};

// 512 B, 1 KiB, 2 KiB, ... up to the buffer (Schneewind, HLRS's grid), keeping the
// sizes that divide the buffer, and the buffer itself.
std::vector<std::uint64_t> DefaultPartitionSizes(std::uint64_t buffer);

// Empty when `partition` splits `buffer` into at most kMaxPartitions whole
// partitions; otherwise what is wrong, for an error message.
std::string CheckPartitionSize(std::uint64_t partition, std::uint64_t buffer);

// One grid point.
struct PartitionedPointSpec {
  std::uint64_t partition_bytes = 0;
  int partitions = 0;
  ReadyOrder order = ReadyOrder::kLeftRight;
  int threads = 1;  // threads marking partitions ready (auto resolved)
  bool operator==(const PartitionedPointSpec& o) const;
};

// "partition=64KiB order=random threads=2": how verdicts and tables name a point.
std::string PointName(const PartitionedPointSpec& p);

// partition size (ascending) x order (as listed) x threads (as listed, auto
// resolved to `auto_threads`, repeats dropped: [1, auto] is one point per
// size and order when auto is 1).
std::vector<PartitionedPointSpec> ExpandPartitionedGrid(const PartitionedSpec& spec, int auto_threads);

// The seed of repetition `repetition` (0-based) from the case's base seed:
// every repetition draws its own random order, and a run can be replayed.
std::uint64_t RepetitionSeed(std::uint64_t base, int repetition);

// The indices 0..partitions-1 in the order they are marked ready. `seed` is
// used by kRandom only (same seed, same permutation, on every rank and
// platform: the generator is specified, not std::uniform_int_distribution).
std::vector<int> ReadyOrderOf(ReadyOrder order, int partitions, std::uint64_t seed);

// ---------------------------------------------------------------- data

// The byte at `offset` of the buffer sent in sample `sample`: depends on
// both, so a partition delivered to the wrong place, a stale one from an
// earlier sample and a missing one all show as wrong bytes.
unsigned char PatternByte(std::uint64_t sample, std::uint64_t offset);
void FillPattern(unsigned char* buffer, std::uint64_t bytes, std::uint64_t sample);
// Every byte the complement of the pattern's: what a receive buffer holds
// before the transfer, so a byte the transfer did not write is always wrong.
void FillPoison(unsigned char* buffer, std::uint64_t bytes, std::uint64_t sample);
// Offset of the first byte that differs from the pattern; nullopt when none.
std::optional<std::uint64_t> FirstWrongByte(const unsigned char* buffer, std::uint64_t bytes,
                                            std::uint64_t sample);
// "partitioned, partition 3 of 16 (bytes 1572864-2097151), byte 1572870:
// expected 0x5a, got 0x00": names mechanism and partition.
std::string DescribeWrongByte(Mechanism m, std::uint64_t partition_bytes, int partitions,
                              std::uint64_t offset, unsigned char expected, unsigned char got);

// ---------------------------------------------------------------- statistics

// Effective bandwidth of each sample, bytes / time (bytes per second); a
// time that is not positive and finite gives NaN (dropped by Summarize).
std::vector<double> Bandwidths(std::uint64_t bytes, const std::vector<double>& times);

struct PartitionedStats {
  std::array<Spread, kMechanisms> bandwidth;      // bytes/s, per mechanism (index: Mechanism)
  std::array<double, kMechanisms> time_median{};  // seconds
  // The other mechanism with the highest median bandwidth (send, isend or
  // persistent); nullopt when none has one.
  std::optional<Mechanism> best_other;
  // Per repetition: partitioned bandwidth / best_other's bandwidth in the
  // same repetition (the four are measured back to back, so a drift of the
  // machine's speed cancels); median and interval over repetitions.
  Spread r_partitioned;
};

// From the global times of each mechanism's samples, times[m][repetition].
// Repetitions are paired by index up to the shortest list.
PartitionedStats SummarizePartitioned(std::uint64_t buffer_bytes,
                                      const std::array<std::vector<double>, kMechanisms>& times);

// ---------------------------------------------------------------- verdict

struct PartitionedPoint {
  PartitionedPointSpec at;
  bool valid = true;
  std::string invalid_reason;
  PartitionedStats stats;
};

// The verdict of a partitioned test: every rule of kind partitioned that
// matches `test` checks r_partitioned at every point in its region, with
// the same rules as overlap tests (a min limit fails only when the whole
// confidence interval is below it; an invalid point in a region fails; no
// rule or no point checked fails). Findings name the point in `at`.
Verdict EvaluatePartitioned(const std::vector<PartitionedPoint>& points, const TestContext& test,
                            const std::vector<Rule>& rules);

// What the verdict says about one point: "fail", "within-noise", "pass"
// (checked, nothing exceeded), "invalid" (invalid inside a region) or
// "not-checked" (no rule's region holds it).
std::string PointVerdict(const PartitionedPoint& p, const Verdict& v);

}  // namespace nbcguard
