// r_mpi_impact shared between tests. It depends on the library with MPI
// initialised and idle, the ranks, the deployment (its environment, its
// progress thread), the threads, their cpus and the computation's target
// times: not on the collective. The tests of one CTest run that agree on all
// of these need it measured once.
//
// Each computation target is its own entry: its key is what the jobs share
// (library build, ranks, deployment, threads, cpus, repetitions per round)
// and the target. A test looks each of its targets up: the targets found
// within `max_age` seconds reuse their rounds, the others are measured (the
// driver's impact jobs, on those targets only) and stored, one file per
// key, beside the calibration cache. So a test at 2 ms and 4 ms after one
// at 500 us and 2 ms measures 4 ms only; results.json mpi_impact_source
// says, per target, whose rounds it used. Never shared: reference
// behaviours that change the idle state, and a second job that confirms an
// r_mpi_impact finding or regression or measures points whose r_mpi_impact
// the first job could not (it must be independent of the first); a second
// job that confirms another ratio takes the first job's rounds.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nbcguard/reduce.h"

namespace nbcguard {

// The r_mpi_impact jobs' rounds: the "passive" records of the jobs with MPI
// idle, each with its "round", and the times without MPI per size and round.
struct ImpactMeasurement {
  std::vector<nlohmann::json> passive;
  NoMpiTimes no_mpi;
};

// Its implicit move members move nlohmann::json values, which do not throw (clang-tidy cannot see it).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct StoredImpact {
  ImpactMeasurement rounds;
  nlohmann::json source;  // measured_by, measured_at (unix s), age_s, file, key
};

// The stored rounds of `key` measured at most `max_age` seconds before
// `now` (unix seconds), when there are; a file that cannot be read or is not
// of this key is no entry (`note` says why, when not merely absent).
std::optional<StoredImpact> FindImpact(const std::filesystem::path& dir, const std::string& key,
                                       double max_age, double now, std::string* note);

// Stores `rounds` as `key`'s measurement by `test_id` at `now`, replacing
// an older one; written whole or not at all (nothing when there are no
// passive records). Returns the error, empty on success.
std::string StoreImpact(const std::filesystem::path& dir, const std::string& key,
                        const ImpactMeasurement& rounds, const std::string& test_id, double now);

// The rounds of `m` at computation target `target`: its passive records of
// that target and the times without MPI of their sizes.
ImpactMeasurement ForTarget(const ImpactMeasurement& m, double target);

// Adds `part` to `into` with its rounds renumbered after `into`'s last, so
// rounds of different measurements never pair (a record with MPI and the
// times without MPI are matched by size and round).
void MergeImpact(ImpactMeasurement* into, const ImpactMeasurement& part);

// The file of `key` in `dir`: a stable hash of the key (FNV-1a, 64 bits).
std::filesystem::path ImpactFile(const std::filesystem::path& dir, const std::string& key);

}  // namespace nbcguard
