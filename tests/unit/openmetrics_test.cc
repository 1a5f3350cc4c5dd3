#include "nbcguard/openmetrics.h"

#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace nbcguard {
namespace {

using json = nlohmann::json;

json Point(double comm, double comp, double overhead, double impact) {
  return {{"comm_target", comm},
          {"comp_target", comp},
          {"valid", true},
          {"r_overhead", {{"median", overhead}}},
          {"r_mpi_impact", {{"median", impact}}}};
}

json Results(const std::string& impl, bool pass) {
  return {
      {"implementation_label", impl},
      {"case", {{"name", "ibcast"}, {"collective", "ibcast"}, {"nodes", 2}, {"deployment", "basic"}}},
      {"clock_sync", json::array({{{"rank", 1}, {"min_rtt_s", 4e-7}}, {{"rank", 2}, {"min_rtt_s", 6e-7}}})},
      {"points", json::array({Point(5e-4, 5e-4, 1.02, 1.01),
                              Point(2e-3, 5e-4, 3.5, 1.2),
                              {{"comm_target", 2e-3}, {"comp_target", 2e-3}, {"valid", false}}})},
      {"verdict",
       {{"pass", pass},
        {"checked", json::array({json::array({5e-4, 5e-4})})},
        {"failures", json::array({{{"rule", "x"}}})}}}};
}

std::string Render(const std::vector<json>& r) {
  std::ostringstream os;
  WriteOpenMetrics(os, r);
  return os.str();
}

TEST(OpenMetricsTest, KeyFiguresPerTestWithTheImplementationInTheName) {
  const std::string text = Render({Results("mpich", false)});
  const std::string labels = "{case=\"ibcast\",collective=\"ibcast\",nodes=\"2\",deployment=\"basic\"}";
  EXPECT_NE(text.find("nbcguard_mpich_verdict_pass" + labels + " 0\n"), std::string::npos) << text;
  // Worst over the CHECKED region only: 3.5 is outside it.
  EXPECT_NE(text.find("nbcguard_mpich_r_overhead_worst" + labels + " 1.02\n"), std::string::npos) << text;
  EXPECT_NE(text.find("nbcguard_mpich_r_mpi_impact_max" + labels + " 1.2\n"), std::string::npos);
  EXPECT_NE(text.find("nbcguard_mpich_sync_precision_seconds" + labels + " 3e-07\n"), std::string::npos);
  EXPECT_NE(text.find("nbcguard_mpich_invalid_points" + labels + " 1\n"), std::string::npos);
  EXPECT_NE(text.find("nbcguard_mpich_limits_exceeded" + labels + " 1\n"), std::string::npos);
  EXPECT_NE(text.find("nbcguard_mpich_r_overhead{case=\"ibcast\",collective=\"ibcast\",nodes=\"2\","
                      "deployment=\"basic\",comm=\"2ms\",comp=\"500us\"} 3.5\n"),
            std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
}

// The CPU-busy fractions belong to the communication row: one sample per
// comm target, labelled without comp; absent in older results: left out.
TEST(OpenMetricsTest, CpuBusyOncePerCommunicationRow) {
  json r = Results("openmpi", true);
  json busy = {{"median", 0.97}};
  r["points"][0]["cpu_busy_nbc"] = busy;
  r["points"][0]["cpu_busy_blocking"] = {{"median", 1.0}};
  r["points"].push_back(Point(5e-4, 2e-3, 0.5, 1.0));  // same row, another comp
  r["points"].back()["cpu_busy_nbc"] = busy;
  const std::string text = Render({r});
  const std::string row =
      "{case=\"ibcast\",collective=\"ibcast\",nodes=\"2\",deployment=\"basic\",comm=\"500us\"}";
  EXPECT_NE(text.find("nbcguard_openmpi_cpu_busy_nbc" + row + " 0.97\n"), std::string::npos) << text;
  EXPECT_NE(text.find("nbcguard_openmpi_cpu_busy_blocking" + row + " 1\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("cpu_busy_nbc" + row), text.rfind("cpu_busy_nbc" + row)) << "written twice:\n" << text;
  // The 2ms row (point 1) has no CPU figures: nothing written for it.
  EXPECT_EQ(text.find("comm=\"2ms\"}"), std::string::npos) << text;
  EXPECT_EQ(Render({Results("openmpi", true)}).find("cpu_busy"), std::string::npos);
}

// Each median has its interval's bounds beside it, under the same labels;
// a median without an interval has no bounds written.
TEST(OpenMetricsTest, IntervalBoundsBesideEachMedian) {
  json r = Results("mpich", true);
  r["points"][0]["r_overhead"] = {{"median", 0.8}, {"ci_lo", 0.74}, {"ci_hi", 0.91}};
  r["points"][0]["collective_speed"] = {{"time_s", {{"median", 2e-3}, {"ci_lo", 1.9e-3}, {"ci_hi", 2.2e-3}}}};
  const std::string text = Render({r});
  const std::string point =
      "{case=\"ibcast\",collective=\"ibcast\",nodes=\"2\",deployment=\"basic\",comm=\"500us\",comp=\"500us\"}";
  EXPECT_NE(text.find("nbcguard_mpich_r_overhead" + point + " 0.8\n"), std::string::npos) << text;
  EXPECT_NE(text.find("nbcguard_mpich_r_overhead_ci_low" + point + " 0.74\n"), std::string::npos) << text;
  EXPECT_NE(text.find("nbcguard_mpich_r_overhead_ci_high" + point + " 0.91\n"), std::string::npos) << text;
  EXPECT_NE(text.find("nbcguard_mpich_collective_time_seconds_ci_high" + point + " 0.0022\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE nbcguard_mpich_r_overhead_ci_low gauge\n"), std::string::npos);
  // Point 1 (2ms x 500us) has a median only.
  EXPECT_NE(text.find("comm=\"2ms\",comp=\"500us\"} 3.5\n"), std::string::npos) << text;
  EXPECT_EQ(
      text.find("ci_low{case=\"ibcast\",collective=\"ibcast\",nodes=\"2\",deployment=\"basic\",comm=\"2ms\""),
      std::string::npos)
      << text;
}

TEST(OpenMetricsTest, FamiliesAreContiguousAndLibrariesNeverShareAName) {
  const std::string text =
      Render({Results("openmpi", true), Results("mpich", true), Results("openmpi", true)});
  // Each family's TYPE line appears once, and all its samples follow it
  // before the next family starts.
  std::istringstream in(text);
  std::string line, family;
  std::map<std::string, int> types;
  for (std::string l; std::getline(in, l);) {
    if (l.rfind("# TYPE ", 0) == 0) {
      family = l.substr(7, l.find(' ', 7) - 7);
      ++types[family];
    } else if (l[0] != '#') {
      EXPECT_EQ(l.substr(0, l.find('{')), family) << l;
    }
  }
  for (const auto& [name, n] : types) EXPECT_EQ(n, 1) << name;
  EXPECT_TRUE(types.count("nbcguard_openmpi_verdict_pass"));
  EXPECT_TRUE(types.count("nbcguard_mpich_verdict_pass"));
}

TEST(OpenMetricsTest, MissingFiguresAreLeftOutAndLabelsEscaped) {
  json r = Results("Open MPI", true);
  r["case"]["name"] = "we\"ird";
  r["points"] = json::array();  // nothing measured
  r["clock_sync"] = json::array();
  const std::string text = Render({r});
  EXPECT_EQ(text.find("r_overhead_worst"), std::string::npos) << text;
  EXPECT_EQ(text.find("sync_precision"), std::string::npos) << text;
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  EXPECT_NE(text.find("nbcguard_open_mpi_verdict_pass{case=\"we\\\"ird\""), std::string::npos) << text;
}

}  // namespace
}  // namespace nbcguard
