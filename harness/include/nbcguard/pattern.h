// The data the harness's collectives send and expect. Rank r contributes
// Pattern(r, rep, i) at element i in repetition rep: different for every
// rank, repetition and element, and small enough that sums over 4096 ranks
// stay far inside int32.
//
// A buffer is made of blocks (one per peer for gather-like collectives, or
// one for the whole buffer), and every value the collectives expect in a
// block depends on the element's offset e in the block only through
// e % kPatternPeriod. A block is therefore one period's values repeated: it
// is filled by copying and checked by comparing, at memory speed, instead
// of computing a value (two 64-bit divisions) per element. Every element is
// still written and checked.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nbcguard {

inline constexpr std::uint64_t kPatternPeriod = 1021;

inline std::int32_t Pattern(int r, int rep, std::uint64_t i) {
  return static_cast<std::int32_t>(
      (static_cast<std::uint64_t>(r) * 31u + static_cast<std::uint64_t>(rep) * 17u + i * 7u) %
      kPatternPeriod);
}

// True when every value a collective must deliver in repetition b differs
// from the one at the same element in repetition a, for any communicator of
// `ranks` ranks. A delivered value is one Pattern term or a sum of s <= ranks
// of them (the reductions, the scans), and each term moves by 17 * (b - a)
// modulo kPatternPeriod, so the sum moves by 17 * s * (b - a) modulo it:
// never by 0 while kPatternPeriod (a prime, above 17) divides neither b - a
// nor s. So a buffer that holds repetition a's checked values needs no reset
// before repetition b: an element b's call leaves unwritten still fails.
inline bool RepetitionsDifferEverywhere(int a, int b, int ranks) {
  const std::int64_t d = static_cast<std::int64_t>(b) - a;
  return d % static_cast<std::int64_t>(kPatternPeriod) != 0 && ranks > 0 &&
         static_cast<std::uint64_t>(ranks) < kPatternPeriod;
}

// The value expected at offset e (< kPatternPeriod) of block `block`; the
// same at e + k * kPatternPeriod.
using BlockValue = std::function<std::int32_t(std::uint64_t block, std::uint64_t e)>;

// Writes value(b, e mod period) at every element: block b is
// [b * block_len, (b + 1) * block_len) (the last may be shorter); a
// block_len of 0 means one block.
void FillBlocks(std::vector<std::int32_t>& buffer, std::uint64_t block_len, const BlockValue& value);

// "" when every element holds its value, else "<what> element <i>:
// expected <v>, got <w>" for the first that does not.
std::string CheckBlocks(const char* what, const std::vector<std::int32_t>& buffer, std::uint64_t block_len,
                        const BlockValue& value);

// A block at an explicit place in a buffer: elements [base, base + len).
struct PlacedBlock {
  std::uint64_t base = 0, len = 0;
};

// As above, with the blocks at explicit places inside the buffer, in
// increasing order and not overlapping (the v-collectives' displacements):
// block b is blocks[b], and every element outside the blocks is `gap`
// (written, or checked: a call that writes past a block or to a wrong
// displacement changes one).
void FillBlocks(std::vector<std::int32_t>& buffer, const std::vector<PlacedBlock>& blocks, std::int32_t gap,
                const BlockValue& value);
std::string CheckBlocks(const char* what, const std::vector<std::int32_t>& buffer,
                        const std::vector<PlacedBlock>& blocks, std::int32_t gap, const BlockValue& value);

}  // namespace nbcguard
