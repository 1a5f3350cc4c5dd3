#include "nbcguard/calibration_cache.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "nbcguard/results_io.h"

namespace nbcguard {

namespace {

using json = nlohmann::json;

constexpr int kFormat = 1;
// No search produces more (2^53: every integer up to it is a double).
constexpr double kMaxCachedSize = 9007199254740992.0;

json KeyJson(const CalibrationCacheKey& k) {
  return {{"library", k.library},       {"ranks", k.ranks},           {"hosts", k.hosts},
          {"collective", k.collective}, {"deployment", k.deployment}, {"threads", k.threads},
          {"max_bytes", k.max_bytes}};
}

json EntriesJson(const std::map<double, std::uint64_t>& m) {
  json out = json::array();
  for (const auto& [target, size] : m) out.push_back({{"target", target}, {"size", size}});
  return out;
}

// Reads [{"target": seconds > 0, "size": integer >= 1}, ...]. An entry that
// is not one (a size of 0, a negative, fractional or non-finite number,
// text) is left out and described in *dropped; a `name` that is not a list
// makes the file unreadable.
bool ReadEntries(const json& j, const char* name, const std::string& file,
                 std::map<double, std::uint64_t>* out, std::vector<std::string>* dropped,
                 std::string* error) {
  if (!j.contains(name)) return true;
  const json& list = j[name];
  if (!list.is_array()) {
    *error = file + ": '" + name + "' must be a list of {target, size}";
    return false;
  }
  for (const json& e : list) {
    const bool numbers = e.is_object() && e.contains("target") && e.contains("size") &&
                         e["target"].is_number() && e["size"].is_number();
    const double target = numbers ? e["target"].get<double>() : NAN;
    const double size = numbers ? e["size"].get<double>() : NAN;
    if (!std::isfinite(target) || !(target > 0) || !std::isfinite(size) || !(size >= 1) ||
        size != std::floor(size) || size > kMaxCachedSize) {
      dropped->push_back(std::string("dropped ") + (std::string(name) == "comm" ? "comm" : "comp") +
                         " entry " + e.dump() + ": not {\"target\": seconds > 0, \"size\": integer >= 1}");
      continue;
    }
    (*out)[target] =
        e["size"].is_number_unsigned() ? e["size"].get<std::uint64_t>() : static_cast<std::uint64_t>(size);
  }
  return true;
}

}  // namespace

std::string CalibrationCacheKey::Canonical() const { return KeyJson(*this).dump(); }

std::string CalibrationCacheKey::FileName() const {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64
  for (unsigned char c : Canonical()) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(h));
  return std::string("calibration-") + hex + ".json";
}

std::vector<std::string> HostCounts(const std::vector<std::string>& rank_hosts) {
  std::map<std::string, int> count;
  for (const std::string& h : rank_hosts) ++count[h];
  std::vector<std::string> out;
  out.reserve(count.size());
  for (const auto& [host, n] : count) out.push_back(host + ":" + std::to_string(n));
  return out;
}

std::string SerializeCalibrationCache(const CalibrationCacheKey& key,
                                      const CalibrationCacheEntries& entries) {
  json j = {{"format", kFormat},
            {"key", KeyJson(key)},
            {"comm", EntriesJson(entries.comm)},
            {"comp", EntriesJson(entries.comp)}};
  return j.dump(2) + "\n";
}

std::optional<CalibrationCacheEntries> ParseCalibrationCache(const std::string& text, const std::string& file,
                                                             const CalibrationCacheKey& key,
                                                             std::string* error,
                                                             std::vector<std::string>* dropped) {
  std::vector<std::string> ignored;
  if (!dropped) dropped = &ignored;
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    *error = file + ": not a JSON object (a calibration cache file is written by nbcguard-harness)";
    return std::nullopt;
  }
  if (!j.contains("format") || j["format"] != kFormat) {
    *error = file + ": unknown format (expected \"format\": " + std::to_string(kFormat) + ")";
    return std::nullopt;
  }
  if (!j.contains("key") || !j["key"].is_object()) {
    *error = file + ": no 'key' object";
    return std::nullopt;
  }
  CalibrationCacheEntries entries;
  if (j["key"] != KeyJson(key)) return entries;  // another configuration (hash collision): not ours
  if (!ReadEntries(j, "comm", file, &entries.comm, dropped, error) ||
      !ReadEntries(j, "comp", file, &entries.comp, dropped, error)) {
    return std::nullopt;
  }
  return entries;
}

CalibrationCacheEntries LoadCalibrationCache(const std::string& dir, const CalibrationCacheKey& key,
                                             std::string* error, std::vector<std::string>* dropped) {
  error->clear();
  const std::string path = dir + "/" + key.FileName();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot be read";
    return {};
  }
  std::stringstream text;
  text << in.rdbuf();
  std::optional<CalibrationCacheEntries> parsed =
      ParseCalibrationCache(text.str(), path, key, error, dropped);
  return parsed ? *parsed : CalibrationCacheEntries{};
}

bool StoreCalibrationCache(const std::string& dir, const CalibrationCacheKey& key,
                           const CalibrationCacheEntries& entries, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    *error = "cannot create the calibration cache directory " + dir + ": " + ec.message();
    return false;
  }
  const std::string path = dir + "/" + key.FileName();
  // The writer of results.json: a temporary file, synced, then renamed.
  *error = WriteFileAtomically(path, SerializeCalibrationCache(key, entries));
  return error->empty();
}

std::string CachedSizeProblem(std::uint64_t size, std::uint64_t min_size, std::uint64_t max_size) {
  if (size >= min_size && size <= max_size) return "";
  return "outside the search's range [" + std::to_string(min_size) + ", " + std::to_string(max_size) + "]";
}

std::string DroppedSizeNote(const char* axis, std::uint64_t size, const std::string& target,
                            const std::string& why) {
  return std::string("dropped ") + axis + " size " + std::to_string(size) + " for " + target + ": " + why +
         "; searching from the default";
}

}  // namespace nbcguard
