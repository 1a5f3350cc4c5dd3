// The collectives' buffers are filled and checked a period at a time
// (pattern.h); these tests hold that to the element-by-element definition.
#include "nbcguard/pattern.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace nbcguard {
namespace {

// The definition: element i of block i / block_len holds value(b, i % block_len).
std::int32_t Expected(std::uint64_t i, std::uint64_t block_len, std::size_t size, const BlockValue& value) {
  const std::uint64_t len = block_len == 0 ? size : block_len;
  return value(i / len, (i % len) % kPatternPeriod);
}

const BlockValue kGatherLike = [](std::uint64_t b, std::uint64_t e) {
  return Pattern(static_cast<int>(b), 3, 5000 + e);
};

TEST(Pattern, IsPeriodicInTheElement) {
  for (int r : {0, 1, 7, 4095})
    for (std::uint64_t i : {0ull, 1ull, 1020ull, 123456789ull}) {
      EXPECT_EQ(Pattern(r, 9, i), Pattern(r, 9, i + kPatternPeriod));
      EXPECT_EQ(Pattern(r, 9, i), Pattern(r, 9, i + 1000 * kPatternPeriod));
    }
  EXPECT_NE(Pattern(0, 0, 1), Pattern(0, 0, 2));
  EXPECT_NE(Pattern(0, 0, 1), Pattern(1, 0, 1));
  EXPECT_NE(Pattern(0, 0, 1), Pattern(0, 1, 1));
}

TEST(Pattern, FillWritesEveryElementAsDefined) {
  for (std::uint64_t block_len : {0ull, 1ull, 1020ull, 1021ull, 1022ull, 5000ull})
    for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{3000}, std::size_t{20011}}) {
      std::vector<std::int32_t> buffer(size, -7);
      FillBlocks(buffer, block_len, kGatherLike);
      for (std::size_t i = 0; i < size; ++i)
        ASSERT_EQ(buffer[i], Expected(i, block_len, size, kGatherLike))
            << "block_len " << block_len << " size " << size << " element " << i;
      EXPECT_EQ(CheckBlocks("buffer", buffer, block_len, kGatherLike), "");
    }
}

// A wrong element anywhere, past the first period and in the last,
// shorter block included, is found and named with both values.
TEST(Pattern, CheckFindsAWrongElementAnywhere) {
  std::mt19937_64 rng(42);
  for (std::uint64_t block_len : {0ull, 1ull, 700ull, 1021ull, 4099ull}) {
    const std::size_t size = 3 * 4099 + 17;
    std::vector<std::int32_t> buffer(size);
    FillBlocks(buffer, block_len, kGatherLike);
    for (int trial = 0; trial < 50; ++trial) {
      const std::size_t i = trial == 0 ? size - 1 : rng() % size;
      const std::int32_t good = buffer[i];
      buffer[i] ^= 0x40;
      EXPECT_EQ(CheckBlocks("receive buffer", buffer, block_len, kGatherLike),
                "receive buffer element " + std::to_string(i) + ": expected " + std::to_string(good) +
                    ", got " + std::to_string(good ^ 0x40));
      buffer[i] = good;
    }
  }
}

// The first wrong element is the one named.
TEST(Pattern, CheckNamesTheFirstWrongElement) {
  std::vector<std::int32_t> buffer(10000);
  FillBlocks(buffer, 2500, kGatherLike);
  buffer[9000] = -1;
  buffer[3000] = -1;
  EXPECT_EQ(CheckBlocks("b", buffer, 2500, kGatherLike).rfind("b element 3000: ", 0), 0u);
}

// Blocks at explicit places (the v-collectives' displacements): each holds
// its values, every element before, between and after them the gap value,
// and a wrong element in a block or a gap is found and named.
TEST(Pattern, PlacedBlocksAndTheGapsBetweenThem) {
  const std::vector<PlacedBlock> blocks = {{1, 1500}, {1502, 3}, {1506, 2100}};
  std::vector<std::int32_t> buffer(3700, 5);
  FillBlocks(buffer, blocks, -1, kGatherLike);
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    std::int32_t want = -1;
    for (std::size_t b = 0; b < blocks.size(); ++b)
      if (i >= blocks[b].base && i < blocks[b].base + blocks[b].len)
        want = kGatherLike(b, (i - blocks[b].base) % kPatternPeriod);
    ASSERT_EQ(buffer[i], want) << "element " << i;
  }
  EXPECT_EQ(CheckBlocks("buffer", buffer, blocks, -1, kGatherLike), "");
  for (std::size_t i : {0, 1, 1500, 1501, 1504, 1505, 3000, 3605, 3606, 3699}) {
    const std::int32_t good = buffer[i];
    buffer[i] ^= 0x40;
    EXPECT_EQ(CheckBlocks("receive buffer", buffer, blocks, -1, kGatherLike),
              "receive buffer element " + std::to_string(i) + ": expected " + std::to_string(good) +
                  ", got " + std::to_string(good ^ 0x40));
    buffer[i] = good;
  }
}


// The claim that lets Fill keep a checked buffer instead of resetting it:
// every value of repetition b differs from repetition a's at the same
// element, for single terms and for sums over any ranks, whenever
// RepetitionsDifferEverywhere says so. Checked exhaustively over the
// residues that decide it (each term's (31 r + 7 i) mod the period).
TEST(Pattern, RepetitionsThatDifferEverywhereDifferInEverySum) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> rank(0, 4095);
  std::uniform_int_distribution<std::uint64_t> element(0, 1u << 30);
  for (int ranks : {1, 2, 3, 16, 1020}) {
    for (int a : {0, 1, 5, 92}) {
      for (int d = -3; d <= 1030; ++d) {
        const int b = a + d;
        if (!RepetitionsDifferEverywhere(a, b, ranks)) continue;
        for (int trial = 0; trial < 4; ++trial) {
          // A sum of s terms, s <= ranks, each from any rank and element (the
          // reductions sum one element over ranks; a copy is s = 1).
          for (int s : {1, ranks / 2 + 1, ranks}) {
            std::int64_t before = 0, after = 0;
            for (int t = 0; t < s; ++t) {
              const int r = rank(gen);
              const std::uint64_t i = element(gen);
              before += Pattern(r, a, i);
              after += Pattern(r, b, i);
            }
            ASSERT_NE(before, after) << "ranks " << ranks << ", a " << a << ", b " << b << ", s " << s;
          }
        }
      }
    }
  }
}

// Where the claim does not hold it is not made: the same repetition (a
// redone try), a step of a whole period, or a communicator big enough for a
// sum of kPatternPeriod terms, whose residue does not move.
TEST(Pattern, RepetitionsThatMayCoincideAreNotSaidToDiffer) {
  EXPECT_FALSE(RepetitionsDifferEverywhere(4, 4, 2));
  EXPECT_FALSE(RepetitionsDifferEverywhere(0, static_cast<int>(kPatternPeriod), 2));
  EXPECT_FALSE(RepetitionsDifferEverywhere(3, 3 - 2 * static_cast<int>(kPatternPeriod), 2));
  EXPECT_FALSE(RepetitionsDifferEverywhere(0, 1, static_cast<int>(kPatternPeriod)));
  EXPECT_FALSE(RepetitionsDifferEverywhere(0, 1, 0));
  EXPECT_TRUE(RepetitionsDifferEverywhere(0, 1, static_cast<int>(kPatternPeriod) - 1));
  EXPECT_TRUE(RepetitionsDifferEverywhere(5, 2, 2));
  // A sum of kPatternPeriod equal terms is the same in every repetition.
  std::int64_t r0 = 0, r1 = 0;
  for (std::uint64_t t = 0; t < kPatternPeriod; ++t) {
    r0 += Pattern(static_cast<int>(t), 0, 0);
    r1 += Pattern(static_cast<int>(t), 1, 0);
  }
  EXPECT_EQ(r0, r1);
}

}  // namespace
}  // namespace nbcguard
