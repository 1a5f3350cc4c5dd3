// The driver's reporting commands over results.json files:
//   nbcguard plot PATH...                      pictures of each test
//   nbcguard summary DIR [--format text|markdown|html|openmetrics|json] [--output FILE]
// and the pictures at the end of a test run, announced to CTest/CDash.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nbcguard {

// Renders the pictures of one test into dir after its results.json was
// written, and prints one <DartMeasurementFile> line per PNG. A rendering
// failure prints a warning and nothing else: pictures never change a
// verdict.
void RenderRunPlots(std::ostream& out, const nlohmann::json& results, const std::filesystem::path& dir);

// `nbcguard plot`: each path is a results.json or a directory searched
// recursively for them.
int PlotCommand(const std::vector<std::string>& paths);

// `nbcguard summary`: format is text, markdown, html, openmetrics or json; output empty =
// standard output. trends_dir (html only, "" = none): a directory written by
// `nbcguard history plot`, whose series with findings the page shows.
int SummaryCommand(const std::string& dir, const std::string& format, const std::string& output,
                   const std::string& trends_dir = "");

}  // namespace nbcguard
