// The pictures of one test (docs/method.md, "Showing results"), drawn with cairo from its
// results.json: the r_overhead heat-map, the r_comm / r_comp_slowdown pair,
// and the r_mpi_impact bars, each as PNG (CDash, the HTML summary) and SVG
// (papers, zooming into a large grid).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nbcguard::report {

// The three pictures: file stem (".png" / ".svg" added) and the name CTest
// and CDash show for it.
struct PlotKind {
  const char* stem;
  const char* measurement_name;
};
const std::vector<PlotKind>& PlotKinds();

// Why a results file has no pictures, or "" when it has them: partitioned
// results ("kind": "partitioned") have a table, not heat-maps.
std::string NoPicturesReason(const nlohmann::json& results);

// Writes the six files into dir and returns the paths written, in
// PlotKinds() order, PNG before SVG. On failure returns what was written
// before it and sets *error; the caller decides whether that matters (a
// test's verdict never depends on its pictures).
std::vector<std::filesystem::path> RenderPlots(const nlohmann::json& results,
                                               const std::filesystem::path& dir, std::string* error);

}  // namespace nbcguard::report
