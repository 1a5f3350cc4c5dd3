// The run's clocks: per-rank models fitted over the "clock" records, local
// stamps mapped to the global clock, and the fit and barrier quality that
// results.json reports.
#include <algorithm>
#include <limits>

#include "nbcguard/clock_tree.h"
#include "nbcguard/raw_records.h"
#include "nbcguard/reduce.h"
#include "nbcguard/stats.h"

namespace nbcguard {

using json = nlohmann::json;

std::vector<ClockFit> FitClocks(const RawRun& run) {
  const int ranks = run.context.value("ranks", 1);
  std::vector<std::vector<OffsetPoint>> pts(ranks);
  for (const json* rec : RecordsOfType(run, record::kClock)) {
    const json& per_rank = (*rec)["points"];
    for (int r = 0; r < ranks && r < static_cast<int>(per_rank.size()); ++r)
      for (const json& p : per_rank[r]) pts[r].push_back({p[0], p[1], p[2]});
  }
  std::vector<ClockFit> fits;
  fits.reserve(static_cast<std::size_t>(std::max(ranks, 0)));
  for (int r = 0; r < ranks; ++r) fits.push_back(FitClock(pts[r]));
  return fits;
}

std::vector<double> SlowestPerRep(const std::vector<double>& values, int processes) {
  if (processes <= 0 || values.empty()) return {};
  const std::size_t reps = values.size() / processes;
  std::vector<double> out(reps, 0.0);
  for (int p = 0; p < processes; ++p)
    for (std::size_t i = 0; i < reps; ++i) out[i] = std::max(out[i], values[p * reps + i]);
  return out;
}

GlobalSamples ToGlobal(const json& samples, const std::vector<ClockFit>& clocks) {
  GlobalSamples out;
  const int k = samples.at("k");
  for (const json& s : samples.at("local")) {
    std::vector<std::vector<double>> ranks;
    for (std::size_t r = 0; r * k < s.size(); ++r) {
      std::vector<double> stamps;
      stamps.reserve(static_cast<std::size_t>(std::max(k, 0)));
      for (int j = 0; j < k; ++j) stamps.push_back(clocks.at(r).model.ToGlobal(s[r * k + j].get<double>()));
      ranks.push_back(std::move(stamps));
    }
    out.push_back(std::move(ranks));
  }
  return out;
}

double Span(const std::vector<std::vector<double>>& ranks, int first, int last) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& s : ranks) {
    lo = std::min(lo, s[first]);
    hi = std::max(hi, s[last]);
  }
  return hi - lo;
}

namespace {

json SkewStats(const json& rounds, const std::vector<ClockFit>& clocks) {
  std::vector<double> skews;
  for (const json& round : rounds) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::size_t r = 0; r < round.size(); ++r) {
      const double g = clocks.at(r).model.ToGlobal(round[r].get<double>());
      lo = std::min(lo, g);
      hi = std::max(hi, g);
    }
    skews.push_back(hi - lo);
  }
  Spread s = Summarize(skews);
  return {{"rounds", s.n}, {"median", s.median}, {"max", s.max}, {"min", s.min}};
}

}  // namespace

json ClockFitJson(const RawRun& run, const std::vector<ClockFit>& clocks) {
  const std::string method = run.context.value("clock_sync", std::string("flat"));
  const bool tree = method == "tree";
  json out = json::array();
  for (std::size_t r = 0; r < clocks.size(); ++r) {
    const ClockFit& f = clocks[r];
    const int rank = static_cast<int>(r);
    json rec = {{"rank", r},
                {"points", f.points},
                {"offset_s", f.model.offset()},
                {"drift_ppm", f.model.drift() * 1e6},
                {"residual_rms_s", f.residual_rms},
                {"min_rtt_s", f.min_rtt},
                {"span_s", f.span},
                {"method", method}};
    if (rank > 0) {
      rec["server"] = tree ? TreeServer(rank) : 0;
      rec["depth"] = tree ? TreeDepth(rank) : 1;
    }
    out.push_back(rec);
  }
  return out;
}

json BarrierSkewJson(const RawRun& run, const std::vector<ClockFit>& clocks) {
  json out;
  for (const json* rec : RecordsOfType(run, record::kBarrierSkew)) {
    out = {{"synchronized", SkewStats((*rec)["sync"], clocks)},
           {"mpi_barrier", SkewStats((*rec)["mpi"], clocks)},
           {"synchronized_late_rounds", (*rec)["sync_late"]}};
  }
  return out;
}

}  // namespace nbcguard
