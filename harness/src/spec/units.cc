#include "nbcguard/units.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace nbcguard {
namespace {

constexpr double kRangeSlack = 1e-9;

struct Unit {
  std::string_view name;
  double seconds;
};

// Largest first, so FormatDuration can pick the first that fits.
constexpr std::array<Unit, 4> kUnits = {{{"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}}};

std::string DurationError(const std::string& text) {
  return "expected a positive duration with a unit (ns, us, ms, s), e.g. 500us, 4ms, 1s; got \"" + text +
         "\"";
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Length of the longest prefix of `s` that is a decimal number:
// [+-]? digits [. digits]? ([eE] [+-]? digits)?, at least one mantissa digit.
std::size_t NumberLength(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&] {
    std::size_t start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t mantissa = digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t mark = i++;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) i = mark;  // "1e" + "s"? not an exponent
  }
  return i;
}

std::optional<double> UnitSeconds(std::string_view name) {
  for (const Unit& u : kUnits) {
    if (u.name == name) return u.seconds;
  }
  return std::nullopt;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<double> ParseDuration(const std::string& text, std::string* error) {
  auto fail = [&]() -> std::optional<double> {
    if (error) *error = DurationError(text);
    return std::nullopt;
  };
  std::string_view s = Trim(text);
  std::size_t n = NumberLength(s);
  if (n == 0) return fail();
  std::string_view number = s.substr(0, n);
  std::string_view unit = s.substr(n);
  if (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  std::optional<double> scale = UnitSeconds(unit);
  if (!scale) return fail();
  if (number.front() == '+') number.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size()) return fail();
  double seconds = value * *scale;
  if (!std::isfinite(seconds) || !(seconds > 0)) return fail();
  return seconds;
}

std::optional<std::uint64_t> ParseBytes(const std::string& text, std::string* error) {
  struct ByteUnit {
    std::string_view name;
    double bytes;
  };
  static constexpr ByteUnit kByteUnits[] = {
      {"B", 1},    {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
      {"kB", 1e3}, {"MB", 1e6},     {"GB", 1e9}};
  auto fail = [&]() -> std::optional<std::uint64_t> {
    if (error)
      *error =
          "expected a positive whole number of bytes with a unit (B, KiB, MiB, GiB, kB, MB, GB), "
          "e.g. 64KiB; got \"" +
          text + "\"";
    return std::nullopt;
  };
  std::string_view s = Trim(text);
  const std::size_t n = NumberLength(s);
  if (n == 0) return fail();
  std::string_view number = s.substr(0, n), unit = s.substr(n);
  if (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (number.front() == '+') number.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size()) return fail();
  for (const ByteUnit& u : kByteUnits) {
    if (u.name != unit) continue;
    const double bytes = value * u.bytes;
    if (!(bytes >= 1) || bytes > 9.007199254740992e15 || bytes != std::floor(bytes)) return fail();
    return static_cast<std::uint64_t>(bytes);
  }
  return fail();
}

std::string FormatDecimalBytes(double bytes) {
  if (!std::isfinite(bytes) || bytes < 0) return "-";
  static constexpr std::pair<double, const char*> kUnits[] = {{1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}};
  double value = bytes;
  const char* unit = "B";
  for (const auto& [scale, name] : kUnits) {
    // Rounded to 3 significant digits first, so 999.96e6 reads 1.00GB.
    if (bytes >= scale * 0.9995) {
      value = bytes / scale;
      unit = name;
      break;
    }
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#.3g", value);
  std::string s = buf;
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s + unit;
}

std::string FormatBandwidth(double bps) {
  const std::string size = FormatDecimalBytes(bps);
  return size == "-" ? size : size + "/s";
}

std::string FormatBytes(std::uint64_t bytes) {
  static constexpr const char* kNames[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (u < 3 && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + kNames[u];
}

std::string FormatDuration(double seconds) {
  if (std::isnan(seconds)) return "nan";
  if (seconds < 0) return "-" + FormatDuration(-seconds);
  if (seconds == 0) return "0s";
  if (std::isinf(seconds)) return "inf";
  // Round to 3 significant digits first, so 999.9us becomes 1ms, not 1e+03us.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2e", seconds);
  double rounded = std::strtod(buf, nullptr);
  Unit unit = kUnits.back();
  for (const Unit& u : kUnits) {
    if (rounded >= u.seconds) {
      unit = u;
      break;
    }
  }
  double value = rounded / unit.seconds;
  // Values >= 1000 only happen in seconds; %g would switch to exponent form.
  std::snprintf(buf, sizeof buf, value >= 1000 ? "%.0f" : "%.3g", value);
  return std::string(buf) + std::string(unit.name);
}

namespace {

// from * factor^k, also when factor^k alone is beyond a double.
double GeometricTerm(double from, double factor, double k) {
  const double power = std::pow(factor, k);
  if (std::isfinite(power)) return from * power;
  return std::exp(std::log(from) + k * std::log(factor));
}

// Whether from * factor^k is within the slack of `to`; by logarithms where
// the product is beyond a double, so no k is refused for an overflow.
bool WithinRange(double from, double to, double factor, double k) {
  const double power = std::pow(factor, k);
  if (std::isfinite(power) && std::isfinite(from * power)) return from * power / (1 + kRangeSlack) <= to;
  return std::log(from) + k * std::log(factor) - std::log1p(kRangeSlack) <= std::log(to);
}

}  // namespace

std::size_t GeometricRangeSize(double from, double to, double factor) {
  if (!std::isfinite(from) || !std::isfinite(to) || !std::isfinite(factor)) return 0;
  if (!(from > 0) || !(to >= from) || !(factor > 1)) return 0;
  // The number of steps by logarithms; exact within one step whatever the range.
  const double estimate =
      std::floor((std::log(to) - std::log(from) + std::log1p(kRangeSlack)) / std::log(factor));
  // Beyond 2^52 steps a double no longer tells k from k + 1: the size is only "huge".
  constexpr double kHuge = 4503599627370496.0;
  if (estimate >= kHuge) return static_cast<std::size_t>(kHuge);
  auto steps = static_cast<std::size_t>(std::max(estimate, 0.0));
  // The logarithms may be off by one step at the edge: settle it exactly, in
  // a bounded number of tries.
  for (int i = 0; i < 2 && WithinRange(from, to, factor, static_cast<double>(steps + 1)); ++i) ++steps;
  for (int i = 0; i < 2 && steps > 0 && !WithinRange(from, to, factor, static_cast<double>(steps)); ++i)
    --steps;
  return steps + 1;
}

std::vector<double> GeometricRange(double from, double to, double factor) {
  std::size_t n = GeometricRangeSize(from, to, factor);
  std::vector<double> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(GeometricTerm(from, factor, static_cast<double>(i)));
  return out;
}

}  // namespace nbcguard
