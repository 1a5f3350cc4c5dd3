#include "nbcguard/openmetrics.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>

#include "nbcguard/units.h"

namespace nbcguard {

using json = nlohmann::json;

namespace {

std::string MetricPart(const std::string& s) {
  std::string out;
  for (char c : s)
    out += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  return out.empty() ? "unknown" : out;
}

// Label values are quoted; backslash, quote and newline are escaped.
std::string LabelValue(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string Number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

double Get(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : NAN;
}

struct Family {
  std::string help;
  std::vector<std::pair<std::string, double>> samples;  // labels, value
};

// Families in a fixed order (first seen first), each with all its samples
// together, as the format requires.
class Families {
 public:
  void Add(const std::string& name, const std::string& help, const std::string& labels, double v) {
    if (!std::isfinite(v)) return;
    if (!families_.count(name)) order_.push_back(name);
    Family& f = families_[name];
    f.help = help;
    f.samples.emplace_back(labels, v);
  }
  void Write(std::ostream& out) const {
    for (const std::string& name : order_) {
      const Family& f = families_.at(name);
      out << "# TYPE " << name << " gauge\n# HELP " << name << " " << f.help << "\n";
      for (const auto& [labels, v] : f.samples) out << name << "{" << labels << "} " << Number(v) << "\n";
    }
  }

 private:
  std::vector<std::string> order_;
  std::map<std::string, Family> families_;
};

// A median and the bounds of its confidence interval beside it: `name`,
// `name`_ci_low and `name`_ci_high (each left out where the results have
// no such figure; the interval's coverage is in results.json).
void AddMedian(const std::string& name, const std::string& help, const std::string& labels, const json& stats,
               Families* f) {
  if (!stats.is_object()) return;
  f->Add(name, help, labels, Get(stats, "median"));
  f->Add(name + "_ci_low", "lower bound of the confidence interval of the " + help, labels,
         Get(stats, "ci_lo"));
  f->Add(name + "_ci_high", "upper bound of the confidence interval of the " + help, labels,
         Get(stats, "ci_hi"));
}

json Stats(const json& p, const char* key) { return p.contains(key) ? p[key] : json(); }

// The verdict's counts, the same for every kind of test.
void AddVerdict(const json& verdict, const std::string& impl, const std::string& labels, int invalid,
                Families* f) {
  f->Add(
      impl + "verdict_inconclusive",
      "1 when the test neither passed nor failed: points refused in every job, no limit exceeded in two jobs",
      labels, verdict.value("inconclusive", false) ? 1.0 : 0.0);
  f->Add(impl + "invalid_points", "grid points without a measurement", labels, invalid);
  f->Add(impl + "limits_exceeded", "threshold limits exceeded beyond noise", labels,
         static_cast<double>(verdict.value("failures", json::array()).size()));
}

void AddPartitioned(const json& r, const std::string& impl, const std::string& labels, Families* f) {
  const json& verdict = r.value("verdict", json::object());
  std::vector<std::string> checked;
  for (const json& at : verdict.value("checked", json::array()))
    if (at.is_string()) checked.push_back(at.get<std::string>());
  double lowest = NAN;
  int invalid = 0;
  for (const json& p : r.value("points", json::array())) {
    if (!p.value("valid", false)) {
      ++invalid;
      continue;
    }
    const std::string order = p.value("order", std::string());
    const int threads = p.value("threads", 0);
    const std::string partition = p.value("partition", std::string());
    const double ratio = p.contains("r_partitioned") ? Get(p["r_partitioned"], "median") : NAN;
    const std::string name =
        "partition=" + partition + " order=" + order + " threads=" + std::to_string(threads);
    if (std::find(checked.begin(), checked.end(), name) != checked.end() && std::isfinite(ratio) &&
        !(lowest <= ratio))
      lowest = ratio;
    const std::string point = labels + ",partition=\"" + LabelValue(partition) + "\",order=\"" +
                              LabelValue(order) + "\",threads=\"" + std::to_string(threads) + "\"";
    AddMedian(impl + "r_partitioned", "median partitioned bandwidth / best other mechanism's at a grid point",
              point, Stats(p, "r_partitioned"), f);
    const json& bw = p.value("bandwidth_bytes_per_s", json::object());
    AddMedian(impl + "partitioned_bandwidth_bytes_per_second",
              "median effective bandwidth of MPI_Psend_init/MPI_Pready", point, Stats(bw, "partitioned"), f);
  }
  f->Add(impl + "verdict_pass", "1 when the test passed its thresholds", labels,
         verdict.value("pass", false) ? 1.0 : 0.0);
  f->Add(impl + "r_partitioned_lowest", "lowest median r_partitioned over the points the thresholds checked",
         labels, lowest);
  AddVerdict(verdict, impl, labels, invalid, f);
}

// The CPU-busy fractions belong to the communication row: written once per
// comm, from the first point of the row that has them.
void AddCpuBusy(const json& p, double comm, const std::string& impl, const std::string& labels,
                std::vector<double>* cpu_rows, Families* f) {
  if (std::find(cpu_rows->begin(), cpu_rows->end(), comm) != cpu_rows->end()) return;
  const double nbc = p.contains("cpu_busy_nbc") ? Get(p["cpu_busy_nbc"], "median") : NAN;
  const double blocking = p.contains("cpu_busy_blocking") ? Get(p["cpu_busy_blocking"], "median") : NAN;
  if (std::isfinite(nbc) || std::isfinite(blocking)) cpu_rows->push_back(comm);
  const std::string row = labels + ",comm=\"" + FormatDuration(comm) + "\"";
  AddMedian(impl + "cpu_busy_nbc",
            "median CPU-busy fraction in the nonblocking collective + MPI_Wait (1 polling)", row,
            Stats(p, "cpu_busy_nbc"), f);
  AddMedian(impl + "cpu_busy_blocking", "median CPU-busy fraction in the blocking collective (1 polling)",
            row, Stats(p, "cpu_busy_blocking"), f);
}

// The collective alone at a point's calibrated size (results written before
// it was measured have none: nothing is written).
void AddSpeed(const json& p, const std::string& impl, const std::string& point, Families* f) {
  const json& speed = p.value("collective_speed", json::object());
  if (!speed.is_object()) return;
  AddMedian(impl + "collective_bandwidth_bytes_per_second",
            "median bytes per rank / time of the collective alone at the calibrated size", point,
            Stats(speed, "bandwidth_bytes_per_s"), f);
  AddMedian(impl + "collective_time_seconds", "median time of the collective alone at the calibrated size",
            point, Stats(speed, "time_s"), f);
}

void AddOverlap(const json& r, const std::string& impl, const std::string& labels, Families* f) {
  const json& verdict = r.value("verdict", json::object());
  std::vector<std::pair<double, double>> checked;
  for (const json& at : verdict.value("checked", json::array()))
    if (at.is_array() && at.size() == 2) checked.emplace_back(at[0].get<double>(), at[1].get<double>());
  double worst = NAN, impact = NAN;
  int invalid = 0;
  std::vector<double> cpu_rows;  // communication rows whose CPU-busy fractions are written
  for (const json& p : r.value("points", json::array())) {
    if (!p.value("valid", false)) {
      ++invalid;
      continue;
    }
    const double comm = Get(p, "comm_target"), comp = Get(p, "comp_target");
    const double ov = p.contains("r_overhead") ? Get(p["r_overhead"], "median") : NAN;
    const double im = p.contains("r_mpi_impact") ? Get(p["r_mpi_impact"], "median") : NAN;
    if (std::find(checked.begin(), checked.end(), std::make_pair(comm, comp)) != checked.end() &&
        std::isfinite(ov) && !(worst >= ov))
      worst = ov;
    if (std::isfinite(im) && !(impact >= im)) impact = im;
    const std::string point =
        labels + ",comm=\"" + FormatDuration(comm) + "\",comp=\"" + FormatDuration(comp) + "\"";
    AddMedian(impl + "r_overhead", "median r_overhead at a grid point (0 overlap, 1 serialized)", point,
              Stats(p, "r_overhead"), f);
    AddSpeed(p, impl, point, f);
    AddCpuBusy(p, comm, impl, labels, &cpu_rows, f);
  }
  double rtt = NAN;
  for (const json& k : r.value("clock_sync", json::array()))
    if (k.is_object() && std::isfinite(Get(k, "min_rtt_s")) && !(rtt >= Get(k, "min_rtt_s")))
      rtt = Get(k, "min_rtt_s");
  f->Add(impl + "verdict_pass", "1 when the test passed its thresholds", labels,
         verdict.value("pass", false) ? 1.0 : 0.0);
  f->Add(impl + "r_overhead_worst", "worst median r_overhead over the points the thresholds checked", labels,
         worst);
  f->Add(impl + "r_mpi_impact_max", "largest median r_mpi_impact (1 = the idle library costs nothing)",
         labels, impact);
  f->Add(impl + "sync_precision_seconds", "largest clock offset uncertainty over ranks (min RTT / 2)", labels,
         rtt / 2);
  AddVerdict(verdict, impl, labels, invalid, f);
}

}  // namespace

void WriteOpenMetrics(std::ostream& out, const std::vector<json>& results) {
  Families families;
  for (const json& r : results) {
    if (!r.is_object() || !r.contains("case")) continue;
    const json& c = r["case"];
    const std::string impl = "nbcguard_" + MetricPart(r.value("implementation_label", "unknown")) + "_";
    // Partitioned tests have no collective and no deployment; their test
    // names end in "partitioned", so the deployment label says that.
    const bool partitioned = r.value("kind", std::string()) == "partitioned";
    const std::string labels = "case=\"" + LabelValue(c.value("name", "")) + "\",collective=\"" +
                               LabelValue(c.value("collective", "")) + "\",nodes=\"" +
                               std::to_string(c.value("nodes", 0)) + "\",deployment=\"" +
                               LabelValue(partitioned ? "partitioned" : c.value("deployment", "")) + "\"";
    if (partitioned) AddPartitioned(r, impl, labels, &families);
    else AddOverlap(r, impl, labels, &families);
  }
  families.Write(out);
  out << "# EOF\n";
}

}  // namespace nbcguard
