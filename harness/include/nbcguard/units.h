// Durations with units ("500us", "1ms", "2s") and geometric time grids.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nbcguard {

// Parses a positive duration: a number followed by one of the units
// ns, us, ms, s (e.g. "500us", "1.5ms", "2s", "1e3us"). Returns seconds, or
// nullopt with *error set to a message that says what is allowed.
// Zero, negative, non-finite values and missing/unknown units are errors.
std::optional<double> ParseDuration(const std::string& text, std::string* error);

// Parses a positive whole number of bytes with a unit: B, KiB, MiB, GiB
// (powers of 1024) or kB, MB, GB (powers of 1000), e.g. "64KiB", "1MiB",
// "4096B". Fractions are allowed when the result is whole ("1.5KiB").
// Returns nullopt with *error saying what is allowed otherwise.
std::optional<std::uint64_t> ParseBytes(const std::string& text, std::string* error);

// "64KiB", "1MiB", "1000B": the largest binary unit that divides exactly.
std::string FormatBytes(std::uint64_t bytes);

// A byte count with a decimal unit, 3 significant digits: "1.61MB",
// "470kB", "800B"; "-" when not a finite non-negative number.
std::string FormatDecimalBytes(double bytes);

// A bandwidth in bytes per second with a decimal unit, 3 significant
// digits: "5.94GB/s", "151MB/s", "12.0kB/s", "800B/s"; "-" when not a
// finite non-negative number.
std::string FormatBandwidth(double bytes_per_second);

// Short human form with the largest unit that keeps the number >= 1:
// 0.001 -> "1ms", 0.0005 -> "500us", 1.5 -> "1.5s". At most 3 significant
// digits. Zero is "0s"; negative values get a leading '-'; NaN is "nan".
std::string FormatDuration(double seconds);

// from, from*factor, from*factor^2, ... while <= to (with a 1e-9 relative
// slack so 1ms..64ms by 4 includes 64ms). Requires from > 0, to >= from,
// factor > 1; otherwise returns an empty vector.
std::vector<double> GeometricRange(double from, double to, double factor);

// How many values GeometricRange(from, to, factor) returns, without building
// them (so callers can refuse huge grids first). 0 when the arguments are
// invalid.
std::size_t GeometricRangeSize(double from, double to, double factor);

}  // namespace nbcguard
