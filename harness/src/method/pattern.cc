#include "nbcguard/pattern.h"

#include <algorithm>
#include <sstream>

namespace nbcguard {
namespace {

// Calls each(base, len, period) for every block, with the block's first
// min(len, kPatternPeriod) values in `period`.
template <class Each>
void ForBlocks(std::size_t size, std::uint64_t block_len, const BlockValue& value, Each each) {
  if (block_len == 0) block_len = size;
  std::vector<std::int32_t> period;
  for (std::uint64_t base = 0, b = 0; base < size; base += block_len, ++b) {
    const std::uint64_t len = std::min<std::uint64_t>(block_len, size - base);
    period.resize(std::min(len, kPatternPeriod));
    for (std::uint64_t e = 0; e < period.size(); ++e) period[e] = value(b, e);
    if (!each(base, len, period)) return;
  }
}

}  // namespace

void FillBlocks(std::vector<std::int32_t>& buffer, std::uint64_t block_len, const BlockValue& value) {
  ForBlocks(buffer.size(), block_len, value,
            [&](std::uint64_t base, std::uint64_t len, const std::vector<std::int32_t>& period) {
              for (std::uint64_t e = 0; e < len; e += period.size())
                std::copy_n(period.begin(), std::min<std::uint64_t>(period.size(), len - e),
                            buffer.begin() + static_cast<std::ptrdiff_t>(base + e));
              return true;
            });
}

std::string CheckBlocks(const char* what, const std::vector<std::int32_t>& buffer, std::uint64_t block_len,
                        const BlockValue& value) {
  std::string wrong;
  ForBlocks(buffer.size(), block_len, value,
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

}  // namespace nbcguard
