// Recorded runs (tests/data/raw/<name>/, see the README there): the raw logs
// of small real runs and the results.json the same runs wrote. Reducing the
// raw logs again must give exactly what results.json holds: the reduction's
// behaviour is pinned to that of the code that wrote the fixtures.
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "nbcguard/diagnosis.h"
#include "nbcguard/raw_records.h"
#include "nbcguard/reduce.h"
#include "nbcguard/reduce_partitioned.h"

namespace nbcguard {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const fs::path kRawData = fs::path(NBCGUARD_TEST_DATA) / "raw";

json ReadJson(const fs::path& p) {
  std::ifstream f(p);
  return json::parse(f);
}

// A run as the driver reduces it: raw.jsonl, then the r_mpi_impact jobs'
// "passive" records with their round (passive.<round>.jsonl), and per size
// and round the slowest process per repetition without MPI
// (no-mpi/<round>/compute.*.json).
// Its implicit move members move nlohmann::json values, which do not throw (clang-tidy cannot see it).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct Recorded {
  RawRun raw;
  NoMpiTimes no_mpi;
  json results;
};

Recorded Load(const std::string& name) {
  const fs::path dir = kRawData / name;
  Recorded r;
  r.raw = ReadRaw((dir / "raw.jsonl").string());
  r.results = ReadJson(dir / "results.json");
  for (int round = 0; fs::exists(dir / ("passive." + std::to_string(round) + ".jsonl")); ++round) {
    const RawRun passive = ReadRaw((dir / ("passive." + std::to_string(round) + ".jsonl")).string());
    for (const json* p : RecordsOfType(passive, record::kPassive)) {
      json rec = *p;
      rec["round"] = round;
      r.raw.records.push_back(rec);
    }
    std::map<int, std::vector<std::vector<double>>> procs_by_size;
    const fs::path rdir = dir / "no-mpi" / std::to_string(round);
    if (!fs::exists(rdir)) continue;
    for (const auto& e : fs::directory_iterator(rdir)) {
      const json process = ReadJson(e.path());
      for (const json& res : process["results"])
        procs_by_size[res["n"]].push_back(res["times"].get<std::vector<double>>());
    }
    for (auto& [n, procs] : procs_by_size) {
      std::vector<double> flat;
      for (auto& p : procs) flat.insert(flat.end(), p.begin(), p.end());
      r.no_mpi[n][round] = SlowestPerRep(flat, static_cast<int>(procs.size()));
    }
  }
  return r;
}

// Equal within a relative 1e-12; results.json writes NaN as null.
void ExpectNumber(const json& written, double v, const std::string& what) {
  if (written.is_null()) {
    EXPECT_FALSE(std::isfinite(v)) << what << ": written null, reduced " << v;
    return;
  }
  const double w = written.get<double>();
  EXPECT_NEAR(v, w, 1e-12 * std::max(1.0, std::fabs(w))) << what;
}

void ExpectSpread(const json& written, const Spread& s, const std::string& what) {
  const std::pair<const char*, double> fields[] = {{"median", s.median},
                                                   {"ci_lo", s.lo},
                                                   {"ci_hi", s.hi},
                                                   {"min", s.min},
                                                   {"max", s.max},
                                                   {"mad", s.mad},
                                                   {"confidence", s.confidence}};
  for (const auto& [name, v] : fields) ExpectNumber(written[name], v, what + "." + name);
  EXPECT_EQ(written["n"].get<int>(), s.n) << what << ".n";
}

// The same JSON once written and read back (NaN becomes null, as in the file).
json AsWritten(const json& j) { return json::parse(j.dump()); }

void ExpectPoint(const json& w, const PointResult& p) {
  const std::string at = w["comm_target"].dump() + " x " + w["comp_target"].dump();
  EXPECT_EQ(w["comm_target"].get<double>(), p.comm_target);
  EXPECT_EQ(w["comp_target"].get<double>(), p.comp_target);
  ASSERT_EQ(w["valid"].get<bool>(), p.valid) << at << ": " << p.invalid_reason;
  EXPECT_EQ(w["diagnosis"], ToString(p.diagnosis)) << at;
  const std::pair<const char*, const Spread*> per_row[] = {{"r_mpi_impact", &p.r_mpi_impact},
                                                           {"cpu_busy_nbc", &p.cpu_busy_nbc},
                                                           {"cpu_busy_blocking", &p.cpu_busy_blocking}};
  for (const auto& [name, s] : per_row) ExpectSpread(w[name], *s, at + " " + name);
  if (!p.valid) {
    EXPECT_EQ(w["invalid_reason"], p.invalid_reason) << at;
    return;
  }
  const std::pair<const char*, double> times[] = {{"t_comm_ref", p.t_comm_ref}, {"t_comp_ref", p.t_comp_ref},
                                                  {"t_measured", p.t_measured}, {"t_call", p.t_call},
                                                  {"t_comp", p.t_comp},         {"t_wait", p.t_wait}};
  for (const auto& [name, v] : times) ExpectNumber(w[name], v, at + " " + name);
  const std::pair<const char*, const Spread*> ratios[] = {
      {"r_overhead", &p.r_overhead}, {"r_comm", &p.r_comm}, {"r_comp_slowdown", &p.r_comp_slowdown}};
  for (const auto& [name, s] : ratios) ExpectSpread(w[name], *s, at + " " + name);
  ExpectNumber(w["osu_overlap_pct"], p.osu_overlap_pct, at + " osu_overlap_pct");
  ExpectNumber(w["imb_overlap_pct"], p.imb_overlap_pct, at + " imb_overlap_pct");
  ASSERT_EQ(w["per_rank"].size(), p.per_rank.size()) << at;
  for (std::size_t r = 0; r < p.per_rank.size(); ++r) {
    ExpectNumber(w["per_rank"][r]["comm_start"], p.per_rank[r].start, at + " comm_start");
    ExpectNumber(w["per_rank"][r]["comm_call"], p.per_rank[r].call, at + " comm_call");
    ExpectNumber(w["per_rank"][r]["comm_end"], p.per_rank[r].end, at + " comm_end");
  }
  EXPECT_EQ(w["late_ranks"].size(), p.late_ranks.size()) << at;
  EXPECT_EQ(w["late_exits"].size(), p.late_exits.size()) << at;
}

void ExpectSameAsWritten(const std::string& name, int valid_points, int invalid_points) {
  const Recorded rec = Load(name);
  ASSERT_FALSE(rec.raw.records.empty()) << name;
  const Reduction red = Reduce(rec.raw, rec.no_mpi);
  const json& w = rec.results;
  ASSERT_EQ(w["points"].size(), red.points.size()) << name;
  int valid = 0;
  for (std::size_t i = 0; i < red.points.size(); ++i) {
    ExpectPoint(w["points"][i], red.points[i]);
    valid += red.points[i].valid;
  }
  EXPECT_EQ(valid, valid_points) << name;
  EXPECT_EQ(static_cast<int>(red.points.size()) - valid, invalid_points) << name;
  EXPECT_EQ(AsWritten(red.samples), w["samples"]) << name;
  EXPECT_EQ(AsWritten(red.mpi_impact), w["mpi_impact"]) << name;
  EXPECT_EQ(AsWritten(red.cpu_overhead), w["cpu_overhead"]) << name;
  EXPECT_EQ(AsWritten(red.calibration), w["calibration"]) << name;
  EXPECT_EQ(AsWritten(red.clock), w["clock_sync"]) << name;
  EXPECT_EQ(AsWritten(red.barrier), w["barrier_skew"]) << name;
  EXPECT_EQ(red.late_redone, w["late_samples_redone"].get<int>()) << name;
  EXPECT_EQ(red.conformance_error, w["conformance_error"].get<std::string>()) << name;
}

TEST(ReduceRecorded, IbcastWithValidPoints) { ExpectSameAsWritten("ibcast-background", 2, 0); }

TEST(ReduceRecorded, IbcastWhoseCalibrationFailed) { ExpectSameAsWritten("ibcast-invalid", 0, 4); }

TEST(ReduceRecorded, IbcastCutShortByAFault) { ExpectSameAsWritten("ibcast-fault", 1, 1); }

TEST(ReduceRecorded, Partitioned) {
  const Recorded rec = Load("partitioned");
  ASSERT_TRUE(rec.raw.ended);
  const PartitionedReduction red = ReducePartitioned(rec.raw);
  const json& w = rec.results;
  ASSERT_EQ(w["points"].size(), red.points.size());
  ASSERT_FALSE(red.points.empty());
  for (std::size_t i = 0; i < red.points.size(); ++i) {
    const json& wp = w["points"][i];
    const PartitionedPoint& p = red.points[i];
    const std::string at = wp["partition"].get<std::string>();
    EXPECT_EQ(wp["partition_bytes"].get<std::uint64_t>(), p.at.partition_bytes);
    EXPECT_EQ(wp["partitions"].get<int>(), p.at.partitions);
    EXPECT_EQ(wp["threads"].get<int>(), p.at.threads);
    ASSERT_EQ(wp["valid"].get<bool>(), p.valid) << at << ": " << p.invalid_reason;
    for (int m = 0; m < kMechanisms; ++m) {
      const char* mech = ToString(AllMechanisms()[m]);
      if (p.stats.bandwidth[m].n == 0) continue;
      ExpectSpread(wp["bandwidth_bytes_per_s"][mech], p.stats.bandwidth[m], at + " bandwidth " + mech);
      ExpectNumber(wp["time_median_s"][mech], p.stats.time_median[m], at + " time " + mech);
    }
    EXPECT_EQ(wp["best_other"], p.stats.best_other ? json(ToString(*p.stats.best_other)) : json(nullptr));
    ExpectSpread(wp["r_partitioned"], p.stats.r_partitioned, at + " r_partitioned");
    EXPECT_EQ(wp["verified_samples"].get<int>(), red.verified_samples[i]);
  }
  EXPECT_EQ(AsWritten(red.samples), w["samples"]);
  EXPECT_EQ(AsWritten(red.clock), w["clock_sync"]);
  EXPECT_EQ(AsWritten(red.barrier), w["barrier_skew"]);
  EXPECT_EQ(red.late_redone, w["late_samples_redone"].get<int>());
  EXPECT_EQ(red.samples_verified, w["verification"]["samples_verified_on_receiver"].get<std::int64_t>());
  EXPECT_EQ(red.thread_level, w["thread_level_provided"].get<int>());
  EXPECT_EQ(red.conformance_error, w["conformance_error"].get<std::string>());
}

}  // namespace
}  // namespace nbcguard
