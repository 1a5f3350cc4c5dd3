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

}  // namespace
}  // namespace nbcguard
