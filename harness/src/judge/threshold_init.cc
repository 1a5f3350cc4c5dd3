#include "nbcguard/threshold_init.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>
#include <tuple>

namespace nbcguard {
namespace {

struct Group {
  std::set<std::string> runs;
  // per metric: medians and the largest CI lower bound
  std::map<std::string, std::vector<double>> medians;
  std::map<std::string, double> largest_ci_lo;
};

using Key = std::tuple<std::string, std::string, int>;  // collective, deployment, nodes

std::string YamlFixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

// A YAML double-quoted scalar: quotes, backslashes and control characters
// escaped (a version string may hold tabs).
std::string YamlQuoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

const std::vector<std::string>& InitMetrics() {
  static const std::vector<std::string> metrics = {"r_overhead", "r_comp_slowdown", "r_mpi_impact"};
  return metrics;
}

double StartingLimit(double largest_ci_lo, double margin) {
  // 1e-9: a product that lands a hair above a hundredth must not go up one
  return std::ceil(largest_ci_lo * (1 + margin) * 100 - 1e-9) / 100;
}

std::string StartingThresholdFile(const ThresholdInit& init, const std::vector<EnvelopeSample>& samples,
                                  std::string* error) {
  std::map<Key, Group> groups;
  for (const EnvelopeSample& s : samples) {
    Group& g = groups[{s.collective, s.deployment, s.nodes}];
    g.runs.insert(s.run);
    g.medians[s.metric].push_back(s.median);
    auto [it, fresh] = g.largest_ci_lo.emplace(s.metric, s.ci_lo);
    if (!fresh) it->second = std::max(it->second, s.ci_lo);
  }
  if (groups.empty()) {
    *error = "no valid grid point with a ratio to set a limit from";
    return "";
  }
  std::string few;
  for (const auto& [key, g] : groups)
    if (static_cast<int>(g.runs.size()) < init.min_runs)
      few += (few.empty() ? "" : ", ") + std::get<0>(key) + " " + std::get<1>(key) + " n" +
             std::to_string(std::get<2>(key)) + " (" + std::to_string(g.runs.size()) + ")";
  if (!few.empty()) {
    *error = "too few runs of " + few + ": a limit is set from the spread between runs, at least " +
             std::to_string(init.min_runs) + " (--min-runs) of each test are needed";
    return "";
  }

  std::ostringstream out;
  out << "# A starting threshold file written by nbcguard envelope --write-thresholds from the runs\n"
         "# named in each rule's source. Read every limit before relying on it: it is the\n"
         "# envelope measured on one machine plus a margin, not a statement of what the\n"
         "# library should do (docs/site-thresholds.md).\n";
  out << "implementation: " << init.library.implementation << "\n";
  if (!init.identified_by.empty()) out << "identified_by: " << YamlQuoted(init.identified_by) << "\n";
  out << "versions: " << YamlQuoted(init.library.version.empty() ? "*" : "==" + init.library.version) << "\n";
  out << "rules:\n";
  for (const auto& [key, g] : groups) {
    const auto& [collective, deployment, nodes] = key;
    out << "  - name: " << collective << "-" << deployment << "-n" << nodes << "\n";
    char margin[32];
    std::snprintf(margin, sizeof margin, "%g", init.margin);
    out << "    source: >-\n      measured " << init.measured << ", " << g.runs.size() << " runs, margin "
        << margin << " over the largest CI lower bound:";
    std::string limits;
    for (const std::string& m : InitMetrics()) {
      auto med = g.medians.find(m);
      if (med == g.medians.end()) continue;
      const auto [lo, hi] = std::minmax_element(med->second.begin(), med->second.end());
      const double largest = g.largest_ci_lo.at(m);
      out << "\n      " << m << " medians " << YamlFixed(*lo, 2) << ".." << YamlFixed(*hi, 2) << " ("
          << med->second.size() << " points), largest CI lower bound " << YamlFixed(largest, 3) << ";";
      limits += "      " + m + ": {max: " + YamlFixed(StartingLimit(largest, init.margin), 2) + "}\n";
    }
    out << "\n    match: {collective: " << collective << ", deployment: " << deployment
        << ", nodes: " << nodes;
    if (!init.system.empty()) out << ", system: " << init.system;
    out << "}\n    limits:\n" << limits;
  }
  return out.str();
}

}  // namespace nbcguard
