#include "nbcguard/pattern.h"

#include <algorithm>
#include <sstream>

namespace nbcguard {
namespace {

// Calls each(base, len, period) for every block, with the block's first
// min(len, kPatternPeriod) values in `period`, and likewise for every run of
// elements between, before or after the blocks, whose values are all `gap`.
template <class Each>
void ForBlocks(std::size_t size, const std::vector<PlacedBlock>& blocks, std::int32_t gap,
               const BlockValue& value, Each each) {
  std::vector<std::int32_t> period;
  std::uint64_t end = 0;  // of the previous block
  for (std::size_t b = 0; b <= blocks.size(); ++b) {
    const std::uint64_t base = b < blocks.size() ? blocks[b].base : size;
    if (base > end) {
      period.assign(std::min(base - end, kPatternPeriod), gap);
      if (!each(end, base - end, period)) return;
    }
    if (b == blocks.size()) return;
    period.resize(std::min(blocks[b].len, kPatternPeriod));
    for (std::uint64_t e = 0; e < period.size(); ++e) period[e] = value(b, e);
    if (!each(base, blocks[b].len, period)) return;
    end = base + blocks[b].len;
  }
}

// The blocks of block_len elements (0: one block) that tile a buffer.
std::vector<PlacedBlock> Tiles(std::size_t size, std::uint64_t block_len) {
  if (block_len == 0) block_len = size;
  std::vector<PlacedBlock> tiles;
  for (std::uint64_t base = 0; base < size; base += block_len)
    tiles.push_back({base, std::min<std::uint64_t>(block_len, size - base)});
  return tiles;
}

}  // namespace

void FillBlocks(std::vector<std::int32_t>& buffer, const std::vector<PlacedBlock>& blocks, std::int32_t gap,
                const BlockValue& value) {
  ForBlocks(buffer.size(), blocks, gap, value,
            [&](std::uint64_t base, std::uint64_t len, const std::vector<std::int32_t>& period) {
              for (std::uint64_t e = 0; e < len; e += period.size())
                std::copy_n(period.begin(), std::min<std::uint64_t>(period.size(), len - e),
                            buffer.begin() + static_cast<std::ptrdiff_t>(base + e));
              return true;
            });
}

std::string CheckBlocks(const char* what, const std::vector<std::int32_t>& buffer,
                        const std::vector<PlacedBlock>& blocks, std::int32_t gap, const BlockValue& value) {
  std::string wrong;
  ForBlocks(buffer.size(), blocks, gap, value,
            [&](std::uint64_t base, std::uint64_t len, const std::vector<std::int32_t>& period) {
              for (std::uint64_t e = 0; e < len; e += period.size()) {
                const std::uint64_t n = std::min<std::uint64_t>(period.size(), len - e);
                const auto at = buffer.begin() + static_cast<std::ptrdiff_t>(base + e);
                const auto bad =
                    std::mismatch(period.begin(), period.begin() + static_cast<std::ptrdiff_t>(n), at);
                if (bad.first == period.begin() + static_cast<std::ptrdiff_t>(n)) continue;
                std::ostringstream s;
                s << what << " element " << base + e + static_cast<std::uint64_t>(bad.first - period.begin())
                  << ": expected " << *bad.first << ", got " << *bad.second;
                wrong = s.str();
                return false;
              }
              return true;
            });
  return wrong;
}

// Equal blocks tile the buffer: no gaps, so the gap value is never used.
void FillBlocks(std::vector<std::int32_t>& buffer, std::uint64_t block_len, const BlockValue& value) {
  FillBlocks(buffer, Tiles(buffer.size(), block_len), 0, value);
}

std::string CheckBlocks(const char* what, const std::vector<std::int32_t>& buffer, std::uint64_t block_len,
                        const BlockValue& value) {
  return CheckBlocks(what, buffer, Tiles(buffer.size(), block_len), 0, value);
}

}  // namespace nbcguard
