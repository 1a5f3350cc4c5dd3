// Calibrated sizes kept between runs. Calibration (calibrate.h) is the
// costliest part of a short run: every target time takes several sizes x
// several runs to find. The size that met a target last time is where the
// next run starts its search: when it still meets the target (one
// evaluation), calibration is done; otherwise the search goes on from there
// as usual. A cached size is never used without being measured again, so a
// stale entry costs time, never a wrong size.
//
// Entries belong to one configuration, the key: the library and its exact
// version string, the rank count, the hosts (and ranks per host), the
// collective, the deployment as the driver describes it (deployment name,
// progression, reference behaviour, extra environment), the computation
// threads and the largest message. Any change of these gives another key,
// so another file: nothing is ever looked up across configurations. One
// JSON file per key in the cache directory, named by a hash of the key and
// holding the key itself (a hash collision is detected, not trusted).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nbcguard {

struct CalibrationCacheKey {
  std::string library;  // MPI_Get_library_version, whitespace runs folded to one space
  int ranks = 0;
  std::vector<std::string> hosts;  // "host:ranks", sorted
  std::string collective;
  std::string deployment;  // the driver's description (deployment, progression, reference, env)
  int threads = 0;         // computation threads per rank
  std::uint64_t max_bytes = 0;

  // Canonical text of the key (JSON, keys sorted): equal keys, equal text.
  std::string Canonical() const;
  // "calibration-<16 hex digits>.json": FNV-1a 64 of Canonical().
  std::string FileName() const;
};

// "host:ranks" entries of a host list with one entry per rank, sorted.
std::vector<std::string> HostCounts(const std::vector<std::string>& rank_hosts);

// Sizes per target time: communication (element count of the collective)
// and computation (GEMM matrix order).
struct CalibrationCacheEntries {
  std::map<double, std::uint64_t> comm;
  std::map<double, std::uint64_t> comp;
};

// The file's text for a key and its entries.
std::string SerializeCalibrationCache(const CalibrationCacheKey& key, const CalibrationCacheEntries& entries);

// Parses a cache file's text. nullopt with *error (naming `file` and what
// is wrong) when the text is not a cache file of this format; an empty set
// of entries (no error) when the file belongs to another key.
std::optional<CalibrationCacheEntries> ParseCalibrationCache(const std::string& text, const std::string& file,
                                                             const CalibrationCacheKey& key,
                                                             std::string* error);

// Reads dir/key.FileName(). A missing file: empty entries, no error. An
// unreadable or malformed one: empty entries and *error says why (the
// caller reports it and calibrates from scratch; the next Store replaces it).
CalibrationCacheEntries LoadCalibrationCache(const std::string& dir, const CalibrationCacheKey& key,
                                             std::string* error);

// Writes the file atomically (a temporary file in dir, then rename), so a
// concurrent reader sees the old or the new file, never half of one.
// Creates dir if needed. false with *error on failure.
bool StoreCalibrationCache(const std::string& dir, const CalibrationCacheKey& key,
                           const CalibrationCacheEntries& entries, std::string* error);

}  // namespace nbcguard
