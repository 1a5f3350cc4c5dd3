#include "nbcguard/impact_store.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "nbcguard/results_io.h"

namespace nbcguard {

namespace fs = std::filesystem;
using json = nlohmann::json;

fs::path ImpactFile(const fs::path& dir, const std::string& key) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : key) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char name[40];
  std::snprintf(name, sizeof name, "impact-%016" PRIx64 ".json", h);
  return dir / name;
}

namespace {

json NoMpiJson(const NoMpiTimes& no_mpi) {
  json out = json::object();
  for (const auto& [n, rounds] : no_mpi)
    for (const auto& [round, times] : rounds) out[std::to_string(n)][std::to_string(round)] = times;
  return out;
}

// False when `j` is not what NoMpiJson writes.
bool NoMpiFrom(const json& j, NoMpiTimes* out) {
  if (!j.is_object()) return false;
  for (const auto& [n, rounds] : j.items()) {
    if (!rounds.is_object()) return false;
    for (const auto& [round, times] : rounds.items()) {
      if (!times.is_array()) return false;
      std::vector<double> v;
      for (const json& t : times) {
        if (!t.is_number()) return false;
        v.push_back(t.get<double>());
      }
      try {
        (*out)[std::stoi(n)][std::stoi(round)] = std::move(v);
      } catch (const std::exception&) {
        return false;
      }
    }
  }
  return true;
}

// The fields ImpactRatiosPerRound and the reduction read of a passive record.
bool PassiveRecordOk(const json& p) {
  return p.is_object() && p.value("type", "") == "passive" && p.contains("n") && p["n"].is_number_integer() &&
         p.contains("comp_target") && p["comp_target"].is_number() && p.contains("round") &&
         p["round"].is_number_integer() && p.contains("times") && p["times"].is_array();
}

}  // namespace

ImpactMeasurement ForTarget(const ImpactMeasurement& m, double target) {
  ImpactMeasurement out;
  for (const json& p : m.passive) {
    if (!p.contains("comp_target") || p["comp_target"].get<double>() != target) continue;
    out.passive.push_back(p);
    const int n = p["n"];
    if (auto it = m.no_mpi.find(n); it != m.no_mpi.end()) out.no_mpi[n] = it->second;
  }
  return out;
}

void MergeImpact(ImpactMeasurement* into, const ImpactMeasurement& part) {
  int offset = 0;
  for (const json& p : into->passive) offset = std::max(offset, p.value("round", 0) + 1);
  for (const auto& [n, rounds] : into->no_mpi)
    if (!rounds.empty()) offset = std::max(offset, rounds.rbegin()->first + 1);
  for (json p : part.passive) {
    p["round"] = p.value("round", 0) + offset;
    into->passive.push_back(std::move(p));
  }
  for (const auto& [n, rounds] : part.no_mpi)
    for (const auto& [round, times] : rounds) into->no_mpi[n][round + offset] = times;
}

std::optional<StoredImpact> FindImpact(const fs::path& dir, const std::string& key, double max_age,
                                       double now, std::string* note) {
  if (!(max_age > 0)) return std::nullopt;
  const fs::path file = ImpactFile(dir, key);
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  std::ifstream in(file);
  json j = json::parse(in, nullptr, false);
  auto refuse = [&](const std::string& why) {
    *note = "the stored r_mpi_impact " + file.string() + " " + why + "; measured again";
    return std::nullopt;
  };
  if (j.is_discarded() || !j.is_object()) return refuse("is not JSON");
  if (j.value("key", "") != key) return std::nullopt;  // another key of the same hash
  if (!j.contains("measured_at") || !j["measured_at"].is_number()) return refuse("has no measured_at");
  const double age = now - j["measured_at"].get<double>();
  if (!(age >= 0)) return refuse("was measured in the future (a clock moved back)");
  if (age > max_age) return std::nullopt;  // too old: measured again, quietly
  StoredImpact out;
  if (!j.contains("passive") || !j["passive"].is_array() || j["passive"].empty())
    return refuse("has no passive records");
  for (const json& p : j["passive"]) {
    if (!PassiveRecordOk(p)) return refuse("holds a passive record without n, comp_target, round or times");
    out.rounds.passive.push_back(p);
  }
  if (!NoMpiFrom(j.value("no_mpi", json()), &out.rounds.no_mpi) || out.rounds.no_mpi.empty())
    return refuse("has no times without MPI");
  out.source = {{"measured_by", j.value("measured_by", "")},
                {"measured_at", j["measured_at"]},
                {"age_s", age},
                {"file", file.string()},
                {"key", key}};
  return out;
}

std::string StoreImpact(const fs::path& dir, const std::string& key, const ImpactMeasurement& rounds,
                        const std::string& test_id, double now) {
  if (rounds.passive.empty()) return "";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create " + dir.string() + ": " + ec.message();
  const json j = {{"key", key},
                  {"measured_by", test_id},
                  {"measured_at", now},
                  {"passive", rounds.passive},
                  {"no_mpi", NoMpiJson(rounds.no_mpi)}};
  return WriteFileAtomically(ImpactFile(dir, key), j.dump() + "\n");
}

}  // namespace nbcguard
