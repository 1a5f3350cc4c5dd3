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
// of entries (no error) when the file belongs to another key. An entry
// that is not {target: finite seconds > 0, size: integer >= 1} is left out,
// the others kept, and described in *dropped (when given).
std::optional<CalibrationCacheEntries> ParseCalibrationCache(const std::string& text, const std::string& file,
                                                             const CalibrationCacheKey& key,
                                                             std::string* error,
                                                             std::vector<std::string>* dropped = nullptr);

// Reads dir/key.FileName(). A missing file: empty entries, no error. An
// unreadable or malformed one: empty entries and *error says why (the
// caller reports it and calibrates from scratch; the next Store replaces it).
// Entries left out as malformed are described in *dropped (when given).
CalibrationCacheEntries LoadCalibrationCache(const std::string& dir, const CalibrationCacheKey& key,
                                             std::string* error, std::vector<std::string>* dropped = nullptr);

// Writes the file atomically (a temporary file in dir, then rename), so a
// concurrent reader sees the old or the new file, never half of one.
// Creates dir if needed. false with *error on failure.
bool StoreCalibrationCache(const std::string& dir, const CalibrationCacheKey& key,
                           const CalibrationCacheEntries& entries, std::string* error);

// Why a cached size cannot start a search confined to [min_size, max_size]
// ("" when it can): no search produces a size outside its range, so such an
// entry was not written by one (it would only be clamped to the range's
// end, whose time can be anything).
std::string CachedSizeProblem(std::uint64_t size, std::uint64_t min_size, std::uint64_t max_size);

// The console's note on a cached size that was not used: "dropped comp size
// 100000000 for 500us: <why>; searching from the default". axis: "comm" or
// "comp"; target: the target time as printed.
std::string DroppedSizeNote(const char* axis, std::uint64_t size, const std::string& target,
                            const std::string& why);

}  // namespace nbcguard
